"""The legs of a confiscation (docs/wallet.md "Confiscation"): a colluder's winnings given
to the victims in ONE posting. Pure: the parties and the amounts in, the lines out.

Per victim ``v`` paid ``a``: the colluder's side gives ``a`` (their wallet; a seamless
colluder's operator gives it from its outside-world account, since the player's money is
in the operator's own wallet), the victim's wallet receives it, and when the two players
belong to different operators the money crosses the books the way network play does,
through the operators' network positions (wallet/services/plans/network.py
``crossing_lines``): the colluder's operator's position +a, the victim's operator's -a.
Every operator's books then balance on their own and the positions still net to zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wallet.ledger.keys import AccountKey, AccountKind, house_key, player_key
from wallet.ledger.lines import Line
from wallet.services.plans.network import crossing_lines, position_key

TAKEN, GIVEN, CROSSING = "confiscated", "restitution", "confiscation_crossing"


@dataclass(frozen=True)
class Party:
    """A player of a confiscation: whose books (``operator_id``), whether the operator
    keeps the player's balance (``seamless``) and the house shard their lines use."""

    player_id: Any
    operator_id: Any
    seamless: bool
    shard: int


def source_key(*, colluder: Party, currency: str) -> AccountKey:
    """Where the colluder's side comes from: their wallet, or (seamless) their operator's
    outside-world account."""
    if colluder.seamless:
        return house_key(
            operator_id=colluder.operator_id,
            kind=AccountKind.OUTSIDE,
            currency=currency,
            shard=colluder.shard,
        )
    return player_key(
        player_id=colluder.player_id, operator_id=colluder.operator_id, currency=currency
    )


def confiscation_lines(
    *, colluder: Party, refunds: Sequence[tuple[Party, int]], currency: str
) -> list[Line[AccountKey]]:
    """The posting's lines: the colluder's side once for the total, then per victim the
    crossing (if any) and the credit of their wallet."""
    total = sum(amount for _, amount in refunds)
    lines: list[Line[AccountKey]] = [
        Line(source_key(colluder=colluder, currency=currency), -total, TAKEN, colluder.player_id)
    ]
    for victim, amount in refunds:
        if victim.operator_id != colluder.operator_id:
            lines += crossing_lines(
                out_of=position_key(
                    operator_id=colluder.operator_id, currency=currency, shard=colluder.shard
                ),
                into=position_key(
                    operator_id=victim.operator_id, currency=currency, shard=victim.shard
                ),
                amount=amount,
                component=CROSSING,
                player_id=victim.player_id,
            )
        lines.append(
            Line(
                player_key(
                    player_id=victim.player_id, operator_id=victim.operator_id, currency=currency
                ),
                amount,
                GIVEN,
                victim.player_id,
            )
        )
    return lines


def confiscation_keys(lines: Sequence[Line[AccountKey]]) -> tuple[AccountKey, ...]:
    """The distinct accounts of ``lines``, in their first line's order."""
    return tuple(dict.fromkeys(line.account for line in lines))
