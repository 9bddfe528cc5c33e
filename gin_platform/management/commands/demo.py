"""``make demo``: seed, start the web server (ASGI: HTTP and WebSockets), play three games over
HTTP for a transfer-wallet operator and one for a seamless-wallet operator (against the
reference operator wallet), stop. ``make play`` (``demo --play``): serve until Ctrl-C and
print a game-launch URL a person opens in a browser to play against the house bot."""

from __future__ import annotations

import secrets
import signal
import sys
import time

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError

from gin_platform.demo.client import ApiClient
from gin_platform.demo.play import PortTaken, play
from gin_platform.demo.scenario import Scenario
from gin_platform.demo.seamless_wallet import OperatorWalletServer
from gin_platform.demo.server import running_server
from gin_platform.staff.roles import ADMIN
from gin_platform.tenancy import services
from gin_platform.tenancy.principals import Actor


class Command(BaseCommand):
    help = "Run the scripted demo against a real server on the embedded database."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--play",
            action="store_true",
            help="Serve until Ctrl-C and print a URL to play against the house bot in a browser",
        )
        parser.add_argument("--port", type=int, default=8000, help="With --play (default 8000)")

    def handle(self, *args, **options) -> None:
        if options["play"]:
            # Ctrl-C stops the server even when this process was started with SIGINT
            # ignored, which a parent's ignoring passes on (a background job of a
            # non-interactive shell, a CI runner): Python then leaves it ignored, and the
            # server ran on. A supervisor's SIGTERM stops it alike, never orphaning it.
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, signal.default_int_handler)
            try:
                play(port=options["port"], say=self.say, lines=sys.stdin)
            except PortTaken as exc:
                raise CommandError(str(exc)) from None
            except KeyboardInterrupt:
                self.say("")
                self.say("Server stopped.")
            return
        self.scripted_demo()

    def scripted_demo(self) -> None:
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
        staff_user = get_user_model().objects.create_user(
            f"staff-{operator.slug}", password=staff_password, is_staff=True
        )
        # The admin role (docs/backoffice.md): the scenario records exchange rates, which
        # needs no second factor (only the endpoints that move money do).
        staff_user.groups.add(Group.objects.get(name=ADMIN))
        self.say(f"Seeded operator {operator.slug} with an API key and a back-office user")

        seamless = services.operator_create(
            name="Demo Seamless Casino",
            slug=f"demo-seamless-{secrets.token_hex(3)}",
            base_currency="EUR",
            actor=actor,
        )
        seamless_key = services.api_key_create(operator=seamless, name="demo", actor=actor).key

        with (
            OperatorWalletServer(secret=seamless.webhook_secret) as wallet_server,
            running_server(env={"LOG_LEVEL": "WARNING"}) as server,
        ):
            health = ApiClient(server.url).get("/api/v1/health")
            self.say(
                f"Server up at {server.url} (HTTP and WebSockets): {health['status']} "
                f"(database {health['checks']['database']}, broker {health['checks']['broker']})"
            )
            Scenario(
                base_url=server.url,
                operator_key=key,
                staff=(f"staff-{operator.slug}", staff_password),
                say=self.say,
            ).run()
            Scenario(
                base_url=server.url,
                operator_key=seamless_key,
                staff=(f"staff-{operator.slug}", staff_password),
                say=self.say,
            ).run_seamless(wallet_server)
        self.say("")
        self.say(f"Server stopped. Demo finished in {time.monotonic() - started:.0f} s.")

    def say(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()  # --play runs for long: each line as it comes, even into a pipe
