"""Confiscation (docs/wallet.md "Confiscation"): a colluder's winnings given to the victims
in ONE balanced ledger transaction, kind ``confiscation``. Integrity's cases call it from an
approved four-eyes request (integrity.services.confiscation); nothing else does.

- One currency: the colluder's and every victim's wallet in ``currency`` (a player whose
  wallet is in another currency is refused: ``confiscation-invalid``; no FX leg).
- Across operators (network tables): through the operators' network positions, like
  network games (wallet/services/plans/confiscation.py), so each operator's books balance
  and the network statement shows the move (``confiscated``).
- Seamless operators: a seamless victim's platform wallet is credited and the credit is
  sent on to the operator's wallet like a refund (``seamless_credits_record``, reason
  ``refund``); a seamless colluder's side is taken from their operator's outside-world
  account (the operator holds the player's balance and recovers it from them: the
  ``integrity.case_action`` webhook says how much).
- Exactly once: the reference (``confiscation:<case id>``) is unique; the same request
  again returns the first posting, a different one under it is ``reference-conflict``.
- A transfer-mode colluder's wallet must hold the total (``insufficient-funds`` otherwise;
  nothing is posted).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

from gin_platform.models import Player
from gin_platform.money import PRACTICE_CURRENCY
from gin_platform.tenancy import selectors as platform_selectors
from gin_platform.tenancy.principals import Actor
from wallet.amounts import parse_currency
from wallet.ledger.checks import check_amount, check_funds, check_reference
from wallet.ledger.keys import shard_for
from wallet.ledger.lines import lines_on
from wallet.ledger.post import post
from wallet.ledger.replay import reference_guard
from wallet.ledger.skeleton import Locked, posting_make
from wallet.models import LedgerTransaction
from wallet.problems import ConfiscationInvalidProblem
from wallet.selectors import seamless as seamless_selectors
from wallet.services.plans.confiscation import (
    Party,
    confiscation_keys,
    confiscation_lines,
    source_key,
)
from wallet.services.seamless import seamless_credits_record

Kind = LedgerTransaction.Kind


def confiscation_reference(*, case_id: Any) -> str:
    """The one reference of a case's confiscation: ``confiscation:<case id>``."""
    return f"confiscation:{case_id}"


def _party(player: Player, currency: str, seamless: dict[Any, bool]) -> Party:
    if player.wallet_currency != currency:
        raise ConfiscationInvalidProblem(
            f"a wallet in {player.wallet_currency}, not {currency}: a confiscation moves one "
            "currency",
            field="currency",
        )
    if player.operator_id not in seamless:
        seamless[player.operator_id] = seamless_selectors.is_seamless(
            operator_id=player.operator_id
        )
    return Party(
        player_id=player.pk,
        operator_id=player.operator_id,
        seamless=seamless[player.operator_id],
        shard=shard_for(player.pk),
    )


def check_confiscation(
    *, colluder: Player, refunds: Sequence[tuple[Player, int]], currency: str
) -> str:
    """The currency (checked) of a valid confiscation; ``confiscation-invalid`` otherwise:
    practice chips, no victim, the colluder among the victims, a victim twice, an amount
    that is not a positive integer."""
    code = parse_currency(currency)
    if code == PRACTICE_CURRENCY:
        raise ConfiscationInvalidProblem("practice chips are not confiscated", field="currency")
    if not refunds:
        raise ConfiscationInvalidProblem("name at least one victim", field="refunds")
    victims = [victim.pk for victim, _ in refunds]
    if colluder.pk in victims or len(set(victims)) != len(victims):
        raise ConfiscationInvalidProblem("each victim once, never the colluder", field="refunds")
    for _, amount in refunds:
        check_amount(amount)
    return code


@reference_guard
@transaction.atomic
def winnings_confiscate(
    *,
    colluder: Player,
    refunds: Sequence[tuple[Player, int]],
    currency: str,
    reference: str,
    actor: Actor,
    metadata: dict[str, Any] | None = None,
) -> LedgerTransaction:
    """Post the confiscation: ``refunds`` pairs each victim with what they get (minor units
    of ``currency``); the colluder gives the total. One transaction under ``reference``;
    the seamless victims' credits recorded in it (sent after the commit)."""
    code = check_confiscation(colluder=colluder, refunds=refunds, currency=currency)
    reference = check_reference(reference)
    seamless: dict[Any, bool] = {}
    source = _party(colluder, code, seamless)
    parties = [(_party(victim, code, seamless), amount) for victim, amount in refunds]
    lines = confiscation_lines(colluder=source, refunds=parties, currency=code)
    keys = confiscation_keys(lines)
    total = sum(amount for _, amount in refunds)
    operator_ids = {source.operator_id} | {party.operator_id for party, _ in parties}
    operator = colluder.operator
    if len(operator_ids) > 1:
        network_id = platform_selectors.network_operator_id()
        if network_id is None:
            raise ConfiscationInvalidProblem(
                "players of different operators meet only at network tables", field="refunds"
            )
        operator = platform_selectors.operator_get(operator_id=network_id)
    same = {"kind": Kind.CONFISCATION, "player": colluder, "amount": total, "currency": code}

    def rules(locked: Locked) -> LedgerTransaction:
        by_key = locked.by_key(keys)
        if not source.seamless:
            check_funds(by_key[source_key(colluder=source, currency=code)], total)
        txn = post(
            locked=locked.accounts,
            operator=operator,
            kind=Kind.CONFISCATION,
            reference=reference,
            lines=lines_on(lines, by_key),
            actor=actor,
            now=locked.now,
            amount=total,
            currency=code,
            player=colluder,
            metadata=(metadata or {})
            | {
                "colluder_seamless": source.seamless,
                # Each operator reads its own players' rows only (wallet.api.presenters).
                "refunds": [
                    {
                        "player_id": str(party.player_id),
                        "operator_id": str(party.operator_id),
                        "amount": amount,
                    }
                    for party, amount in parties
                ],
            },
        )
        txn.seamless_by_operator = seamless
        seamless_credits_record(ledger_transaction=txn, actor=actor)
        return txn

    return posting_make(reference=reference, same=same, keys=keys, rules=rules)
