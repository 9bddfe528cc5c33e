"""Enrol a TOTP device for a staff user and print its otpauth:// URL (docs/backoffice.md)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from gin_platform.staff.otp import staff_otp_enrol
from gin_platform.tenancy.principals import Actor


class Command(BaseCommand):
    help = (
        "Give a staff user a TOTP device for the admin login and the staff API (X-OTP) and "
        "print the otpauth:// URL to add to an authenticator app (shown once)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--replace", action="store_true", help="Replace the user's existing device"
        )

    def handle(self, *args, **options) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"no user {options['username']!r}")
        try:
            device = staff_otp_enrol(
                user=user, actor=Actor.system("staff_otp_enrol"), replace=options["replace"]
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(device.config_url)
