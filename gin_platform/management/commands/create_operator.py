"""Create an operator with its first API key, and with --test-key its sandbox and a test key
(keys are printed once, never stored)."""

from django.core.management.base import BaseCommand, CommandError

from gin_platform.http.problems import Problem
from gin_platform.models import Operator
from gin_platform.tenancy import services
from gin_platform.tenancy.principals import Actor


class Command(BaseCommand):
    help = "Create an operator and print its first API key and webhook secret (shown once)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--name", help="Display name (defaults to the slug)")
        parser.add_argument("--currency", default="EUR", help="Base currency (ISO 4217)")
        parser.add_argument("--webhook-url", default="")
        parser.add_argument(
            "--key-only", action="store_true", help="Print only the API key (for scripts)"
        )
        parser.add_argument(
            "--test-key",
            action="store_true",
            help="Also create the sandbox and print a test key (gop_test_...; with --key-only "
            "on a second line)",
        )

    def handle(self, *args, **options) -> None:
        if Operator.objects.filter(slug=options["slug"]).exists():
            raise CommandError(f"operator {options['slug']!r} already exists")
        actor = Actor.system("create_operator")
        try:
            operator = services.operator_create(
                name=options["name"] or options["slug"],
                slug=options["slug"],
                base_currency=options["currency"],
                webhook_url=options["webhook_url"],
                actor=actor,
            )
        except Problem as exc:
            raise CommandError(exc.detail) from exc
        issued = services.api_key_create(operator=operator, name="initial", actor=actor)
        test = (
            services.api_key_create(operator=operator, name="initial", actor=actor, mode="test")
            if options["test_key"]
            else None
        )
        if options["key_only"]:
            self.stdout.write(issued.key)
            if test is not None:
                self.stdout.write(test.key)
            return
        self.stdout.write(f"operator:       {operator.slug} ({operator.pk})")
        self.stdout.write(f"api key:        {issued.key}")
        self.stdout.write(f"webhook secret: {operator.webhook_secret}")
        if test is not None:
            sandbox = test.api_key.operator
            self.stdout.write(f"sandbox:        {sandbox.slug} ({sandbox.pk})")
            self.stdout.write(f"test api key:   {test.key}")
            self.stdout.write(f"test webhook secret: {sandbox.webhook_secret}")
        self.stdout.write("Store them now: they are not shown again.")
