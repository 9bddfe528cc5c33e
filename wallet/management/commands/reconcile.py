"""Check the ledger: cached balances equal the sum of entries, every transaction sums to zero
per currency (and within each operator's books), the network positions net to zero per
currency. Prints a readable report; exits non-zero on any drift."""

from django.core.management.base import BaseCommand, CommandError

from wallet.selectors.reconciliation import reconcile


class Command(BaseCommand):
    help = "Reconcile the wallet ledger; exit status 1 with a report on any drift."

    def handle(self, *args, **options) -> None:
        report = reconcile()
        for line in report.lines:
            self.stdout.write(line)
        if not report.ok:
            raise CommandError("the ledger does not reconcile (see the report above)", returncode=1)
