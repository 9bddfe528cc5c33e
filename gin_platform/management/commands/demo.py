"""``make demo``: seed, start the API under gunicorn, play three games over HTTP, stop."""

from __future__ import annotations

import secrets
import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from gin_platform import services
from gin_platform.demo.client import ApiClient
from gin_platform.demo.scenario import Scenario
from gin_platform.demo.server import running_server
from gin_platform.principals import Actor


class Command(BaseCommand):
    help = "Run the scripted demo against a real server on the embedded database."

    def handle(self, *args, **options) -> None:
        started = time.monotonic()
        actor = Actor.system("demo")
        operator = services.operator_create(
            name="Demo Casino",
            slug=f"demo-{secrets.token_hex(3)}",
            base_currency="EUR",
            actor=actor,
        )
        key = services.api_key_create(operator=operator, name="demo", actor=actor).key
        staff_password = secrets.token_urlsafe(16)
        get_user_model().objects.create_user(
            f"staff-{operator.slug}", password=staff_password, is_staff=True
        )
        self.say(f"Seeded operator {operator.slug} with an API key and a back-office user")

        with running_server(workers=2, env={"LOG_LEVEL": "WARNING"}) as base_url:
            health = ApiClient(base_url).get("/api/v1/health")
            self.say(
                f"Server up at {base_url}: {health['status']} "
                f"(database {health['checks']['database']}, broker {health['checks']['broker']})"
            )
            Scenario(
                base_url=base_url,
                operator_key=key,
                staff=(f"staff-{operator.slug}", staff_password),
                say=self.say,
            ).run()
        self.say("")
        self.say(f"Server stopped. Demo finished in {time.monotonic() - started:.0f} s.")

    def say(self, line: str) -> None:
        self.stdout.write(line)
