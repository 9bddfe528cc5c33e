"""``make demo``: seed a demo operator, start the API, drive it over HTTP, stop it."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from gin_platform import services
from gin_platform.demo.client import ApiClient
from gin_platform.demo.server import running_server
from gin_platform.models import Operator
from gin_platform.principals import Actor


class Command(BaseCommand):
    help = "Run the scripted demo against a real server on the embedded database."

    def handle(self, *args, **options) -> None:
        actor = Actor.system("demo")
        operator = Operator.objects.filter(slug="demo-casino").first() or (
            services.operator_create(
                name="Demo Casino", slug="demo-casino", base_currency="EUR", actor=actor
            )
        )
        key = services.api_key_create(operator=operator, name="demo", actor=actor).key
        self.say(f"Seeded operator {operator.slug} and minted an API key {key[:16]}...")

        with running_server(workers=2) as base_url:
            self.say(f"Server up at {base_url}")
            anonymous = ApiClient(base_url)
            health = anonymous.get("/api/v1/health")
            self.say(
                f"GET /api/v1/health -> {health['status']} "
                f"(database: {health['database']['detail']}, broker: {health['broker']['detail']})"
            )
            api = anonymous.with_token(key)
            me = api.get("/api/v1/operators/me")
            self.say(f"GET /api/v1/operators/me -> {me['name']} ({me['base_currency']})")
            for ref in ("alice", "bob"):
                found = api.get(f"/api/v1/players?external_ref={ref}")["results"]
                player = (
                    found[0]
                    if found
                    else api.write(
                        "POST", "/api/v1/players", {"external_ref": ref, "display_currency": "USD"}
                    )
                )
                session = api.write("POST", f"/api/v1/players/{player['id']}/sessions")
                self.say(
                    f"player {ref}: id {player['id']}, wallet {player['wallet_currency']}, "
                    f"session token {session['token'][:12]}... expires {session['expires_at']}"
                )
        self.say("Server stopped. Demo finished.")

    def say(self, line: str) -> None:
        self.stdout.write(line)
