"""Recompute every rating from the stored match history and report any difference from the
stored ratings (docs/ratings.md "Checking"). Reads only; exits non-zero on a difference."""

from django.core.management.base import BaseCommand, CommandError

from ratings.recompute import rating_differences


class Command(BaseCommand):
    help = (
        "Recompute every rating (R15) from the rated matches in the order they ended and "
        "report where the stored ratings differ; non-zero exit on any difference."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--check",
            action="store_true",
            required=True,
            help="Compare only (the one mode: stored ratings are never rewritten)",
        )

    def handle(self, *args, **options) -> None:
        differences = rating_differences()
        for line in differences:
            self.stdout.write(line)
        if differences:
            raise CommandError(f"{len(differences)} difference(s) from the recomputed ratings")
        self.stdout.write("the stored ratings agree with their recomputation")
