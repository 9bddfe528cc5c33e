"""``make messages``: the catalogues under locale/ brought up to date with the code (docs/play.md
"Languages"). Extracts the msgids (Python and templates: domain django; the hosted page's
modules: domain djangojs), updates each shipped language's ``.po`` (translations kept, new
msgids empty, dropped ones removed), regenerates the pseudo-locale's and compiles every ``.mo``.
``--check`` writes nothing and fails when a file is out of date."""

from django.core.management.base import BaseCommand, CommandError

from gin_platform.i18n.catalogues import locale_root, update_catalogues


class Command(BaseCommand):
    help = "Extract the msgids, update every language's .po files and compile their .mo files."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--check",
            action="store_true",
            help="write nothing; fail when a catalogue is out of date",
        )

    def handle(self, *args, **options) -> None:
        check = options["check"]
        changes = update_catalogues(check=check)
        for change in changes:
            path = change.path.relative_to(locale_root().parent)
            self.stdout.write(f"{'out of date' if check else 'wrote'}: {path} ({change.reason})")
        if check and changes:
            raise CommandError("the catalogues are out of date: run `make messages`")
        if not changes:
            self.stdout.write("the catalogues are up to date")
