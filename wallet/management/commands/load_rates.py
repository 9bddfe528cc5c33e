"""Load exchange rates from a JSON or CSV file (all rows or none).

JSON: a list of objects, or an object with a "rates" list; each object has base, quote,
rate (a decimal string), as_of (ISO 8601 with a time zone) and optionally source.
CSV: a header row with the same column names. ``--source`` names rows without a source
(default: ``file:<file name>``). Re-loading the same file changes nothing.
"""

import csv
import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from gin_platform.tenancy.principals import Actor
from wallet.services import RateRowError, exchange_rates_load


class Command(BaseCommand):
    help = "Load exchange rates (base, quote, rate, as_of, source) from a JSON or CSV file."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", help="A .json or .csv file")
        parser.add_argument("--source", help="Source for rows without one (default file:<name>)")
        parser.add_argument(
            "--format", choices=("json", "csv"), help="Default: from the file extension"
        )

    def handle(self, *args, **options) -> None:
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"{path} is not a file")
        kind = options["format"] or path.suffix.lower().lstrip(".")
        rows = self._read(path, kind)
        try:
            result = exchange_rates_load(
                rows=rows,
                default_source=options["source"] or f"file:{path.name}",
                actor=Actor.system("load_rates"),
            )
        except RateRowError as exc:
            raise CommandError(f"{path.name} {exc}; nothing was loaded") from exc
        self.stdout.write(
            f"{path.name}: {result.created} rate(s) recorded, {result.unchanged} already known"
        )

    def _read(self, path: Path, kind: str) -> list:
        text = path.read_text(encoding="utf-8-sig")
        if kind == "json":
            try:
                data = json.loads(text, parse_float=str, parse_int=str)
            except json.JSONDecodeError as exc:
                raise CommandError(f"{path.name} is not valid JSON: {exc}") from exc
            rows = data.get("rates") if isinstance(data, dict) else data
            if not isinstance(rows, list):
                raise CommandError(f"{path.name}: expected a list of rates or {{'rates': [...]}}")
            return rows
        if kind == "csv":
            reader = csv.DictReader(text.splitlines())
            missing = {"base", "quote", "rate", "as_of"} - set(reader.fieldnames or [])
            if missing:
                raise CommandError(f"{path.name}: missing column(s) {', '.join(sorted(missing))}")
            return [{k.strip(): (v or "").strip() for k, v in row.items() if k} for row in reader]
        raise CommandError(f"{path.name}: unknown format {kind!r} (use --format json|csv)")
