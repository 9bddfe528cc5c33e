"""Settle every finished game that is still waiting (operations: after an outage)."""

from django.core.management.base import BaseCommand

from settlement import services


class Command(BaseCommand):
    help = "Settle finished games that have not been settled yet (safe to run any time)."

    def handle(self, *args, **options) -> None:
        ids = services.unsettled_match_ids(older_than_seconds=0)
        for match_id in ids:
            settlement = services.game_settle(match_id=match_id)
            if settlement is None:  # a tournament's match (R14): nothing to pay
                self.stdout.write(f"settled match {match_id}: a tournament's, nothing to pay")
            else:
                self.stdout.write(f"settled match {match_id}: fee {settlement.statement['fee']}")
        self.stdout.write(f"{len(ids)} game(s) settled")
