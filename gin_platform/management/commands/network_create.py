"""Create the platform's player network and the operator that owns its rooms
(docs/network.md "Rooms, membership and screen names"), or change its settings."""

from django.core.management.base import BaseCommand, CommandError

from gin_platform.http.problems import Problem
from gin_platform.tenancy import selectors, services
from gin_platform.tenancy.principals import Actor


class Command(BaseCommand):
    help = (
        "Create the network (once) or, when it exists, change its fee share and whether "
        "players see their opponents' operators."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--name", default="Gin Network", help="The network operator's name")
        parser.add_argument("--slug", default="network", help="The network operator's slug")
        parser.add_argument("--currency", default="EUR", help="Its base currency (ISO 4217)")
        parser.add_argument(
            "--fee-share-bps",
            type=int,
            default=None,
            help="The network's share of each network game's fee (basis points; 2000 new)",
        )
        parser.add_argument(
            "--reveal-operators",
            choices=("yes", "no"),
            default=None,
            help="Whether players see their opponents' operator names (no when new)",
        )

    def handle(self, *args, **options) -> None:
        actor = Actor.system("network_create")
        reveal = (
            None if options["reveal_operators"] is None else options["reveal_operators"] == "yes"
        )
        try:
            if selectors.network_get() is None:
                network = services.network_create(
                    name=options["name"],
                    slug=options["slug"],
                    base_currency=options["currency"],
                    fee_share_bps=(
                        2000 if options["fee_share_bps"] is None else options["fee_share_bps"]
                    ),
                    reveal_operators=bool(reveal),
                    actor=actor,
                )
                verb = "created"
            else:
                network = services.network_update(
                    fee_share_bps=options["fee_share_bps"], reveal_operators=reveal, actor=actor
                )
                verb = "updated"
        except Problem as exc:
            raise CommandError(exc.detail) from exc
        self.stdout.write(
            f"network {verb}: operator {network.operator.slug} ({network.operator_id}), "
            f"fee share {network.fee_share_bps} bps, "
            f"operators {'shown' if network.reveal_operators else 'hidden'}"
        )
