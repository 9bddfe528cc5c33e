"""State changes of the wallet, one module per concern (docs/wallet.md "Where things are").

- ``plans``: the plans of the postings, pure functions from a posting's facts to its
  ledger lines (a buy-in, a refund, a settlement, a reversal, the network legs, the FX
  legs); each service reads the facts, locks the accounts and posts its plan through the
  ledger kernel (wallet/ledger/: validation, accounts and house shards, the reference
  replay check, ``post`` and the one skeleton every posting follows, ``posting_make``),
  which only this package imports;
- ``cashier``: deposits, withdrawals, the operator's cashier caps;
- ``escrow``: the table cashier: buy-in and refund, and the void of an interrupted game
  (every stake back at once, R13);
- ``escrow_settle``: the settlement that empties a game's escrow (``EscrowPayout``; a
  batch of games with ``escrow_settle_many``);
- ``practice``: practice chips: the first-use grant and the top-up;
- ``rates``: exchange rates, and the rate money moves at;
- ``responsible_gaming``: the player's deposit and loss limits, their breaks (time-outs and
  self-exclusion) and the check games asks before a seat (``check_no_break``), the KYC
  check of withdrawals;
- ``corrections``: reversals;
- ``approvals``: four eyes: proposals, approvals (which run the action) and rejections of
  reversals, cashier-cap raises and manual adjustments (``wallet_adjust``);
- ``seamless``: seamless wallet mode: the operator's wallet settings, debits, credits and
  rollbacks through the operator's wallet API and their mirror postings;
- ``seamless_retry``: their retries (task and beat sweep), the late-call alert, the balance;
- ``network``: money between operators in network play: the network positions, the fee
  split of a network game and the net settlement of a position (docs/network.md);
- ``confiscation``: a colluder's winnings given to the victims (integrity's cases, after
  four eyes), across operators through their network positions;
- ``tournament``: a tournament's escrow paid out in parts (R14): a round's prizes
  (``TournamentPrize``: into wallets, or tickets to another tournament), the entry fees,
  the operator's overlay in and back out;
- ``tickets``: tournament tickets (R14): granted from the operator's promotion account,
  entered with, refunded, expired.

Every function is keyword-only, typed and atomic, makes one state change, and writes its
audit row in the same database transaction. Other apps move money only through here:
``games`` with ``table_buy_in`` / ``table_refund`` / ``escrow_void``, ``settlement`` with
``escrow_settle``, the tournaments with ``table_buy_in`` / ``table_refund`` and the
``tournament`` and ``tickets`` services.
Import them from ``wallet.services`` (this package re-exports every public name); reads are
in ``wallet.selectors``.

Transactions: durable, or designed to run inside a caller's transaction.
- Durable (``transaction.atomic(durable=True)``: nesting it raises): ``cashier_caps_set``.
  Its one caller, the staff endpoint, runs it on its own.
- Savepoints of the caller's transaction (plain ``transaction.atomic``), on purpose:
  - ``deposit``, ``withdraw``, ``player_limit_set``, ``self_exclusion_create``,
    ``time_out_take`` and ``practice_chips_top_up``: the operator endpoints run them inside
    the Idempotency-Key transaction (gin_platform.http.idempotency), so the effect and the
    stored answer commit together or not at all;
  - ``table_buy_in`` and ``table_refund``: games take or free a seat inside their own
    transaction, so the seat and its money commit together; ``escrow_void`` likewise,
    inside the transaction that marks the game voided;
  - ``escrow_settle``: settlement posts inside the transaction that marks the game
    settled, so a game is settled exactly when its payout is posted (``escrow_settle_many``
    does the same for a batch of games, in the caller's transaction, no savepoint: any
    error rolls the whole batch back);
  - ``transaction_reverse``: a building block of corrections (reverse a settlement, then
    post the corrected one, in one transaction); the ledger's state-machine test also runs
    it inside the transaction each example rolls back;
  - the ``tournament`` and ``tickets`` services: the tournaments register, unregister,
    pay a round and cancel inside their own transaction, so the tournament's state and its
    money commit together (``tournament_fee_take`` retries its try, a savepoint, when a
    network tournament's contributions changed before its locks);
  - ``exchange_rate_record``: ``exchange_rates_load`` records every row of a file inside
    its own transaction (all rows or none). ``exchange_rates_load`` takes no row lock.
- Never inside a transaction (they call the operator over HTTP, and no lock may be held
  meanwhile; they raise if called inside one): ``seamless_debit``, ``seamless_rollback``,
  ``seamless_credit``, ``seamless_call_retry``, ``seamless_calls_sweep``,
  ``seamless_balance``. ``seamless_credits_record`` is the opposite: it runs inside the
  transaction that posted a payout, refund or void and sends after the commit.
A service that nests keeps its guarantees: it raises with nothing posted (its savepoint
rolls back), and its row locks, taken in primary-key order, are held until the caller's
transaction ends.
"""

from wallet.ledger.checks import MAX_AMOUNT
from wallet.ledger.keys import AccountKey, house_shards, shard_for
from wallet.ledger.post import LedgerInvariantError
from wallet.services.approvals import (
    adjustment_reference,
    approval_approve,
    approval_propose,
    approval_reject,
    caps_are_raise,
    wallet_adjust,
)
from wallet.services.cashier import (
    cashier_caps_set,
    deposit,
    deposit_reference,
    withdraw,
    withdrawal_reference,
)
from wallet.services.confiscation import (
    check_confiscation,
    confiscation_reference,
    winnings_confiscate,
)
from wallet.services.corrections import reversal_reference, transaction_reverse
from wallet.services.escrow import escrow_void, table_buy_in, table_refund
from wallet.services.escrow_settle import (
    COMPONENT_SHAPE,
    RESERVED_COMPONENTS,
    EscrowPayout,
    EscrowSettlement,
    NotBatchable,
    escrow_settle,
    escrow_settle_many,
)
from wallet.services.network import (
    check_net_settlement,
    network_position_settle,
    network_settlement_reference,
)
from wallet.services.plans.network import FeeSplit, network_fee_split
from wallet.services.practice import (
    practice_chips_top_up,
    practice_grant_amount,
    practice_grant_reference,
    practice_top_up_reference,
    practice_top_up_seconds,
    practice_top_up_window,
)
from wallet.services.rates import (
    RATE_FUTURE_TOLERANCE,
    ExchangeRateLoadResult,
    RateRowError,
    exchange_rate_record,
    exchange_rates_load,
    fx_max_age,
)
from wallet.services.responsible_gaming import (
    SELF_EXCLUSION_MAX_DAYS,
    BreakTaken,
    SessionLossLimit,
    check_no_break,
    limit_cooling_off,
    player_limit_set,
    self_exclusion_create,
    self_exclusion_days_allowed,
    time_out_days_allowed,
    time_out_take,
)
from wallet.services.seamless import (
    check_transfer_mode,
    operator_wallet_set,
    seamless_credit,
    seamless_credits_record,
    seamless_debit,
    seamless_debit_consume,
    seamless_debit_unavailable,
    seamless_mode,
    seamless_rollback,
)
from wallet.services.seamless_retry import (
    seamless_balance,
    seamless_call_retry,
    seamless_calls_sweep,
)
from wallet.services.tickets import ticket_enter, ticket_expire, ticket_grant, ticket_refund
from wallet.services.tournament import (
    TournamentPrize,
    tournament_fee_take,
    tournament_overlay_add,
    tournament_overlay_return,
    tournament_prizes_pay,
)

__all__ = [
    "COMPONENT_SHAPE",
    "MAX_AMOUNT",
    "RATE_FUTURE_TOLERANCE",
    "RESERVED_COMPONENTS",
    "SELF_EXCLUSION_MAX_DAYS",
    "AccountKey",
    "BreakTaken",
    "EscrowPayout",
    "EscrowSettlement",
    "ExchangeRateLoadResult",
    "FeeSplit",
    "LedgerInvariantError",
    "NotBatchable",
    "RateRowError",
    "SessionLossLimit",
    "TournamentPrize",
    "adjustment_reference",
    "approval_approve",
    "approval_propose",
    "approval_reject",
    "caps_are_raise",
    "cashier_caps_set",
    "check_confiscation",
    "check_net_settlement",
    "check_no_break",
    "check_transfer_mode",
    "confiscation_reference",
    "deposit",
    "deposit_reference",
    "escrow_settle",
    "escrow_settle_many",
    "escrow_void",
    "exchange_rate_record",
    "exchange_rates_load",
    "fx_max_age",
    "house_shards",
    "limit_cooling_off",
    "network_fee_split",
    "network_position_settle",
    "network_settlement_reference",
    "operator_wallet_set",
    "player_limit_set",
    "practice_chips_top_up",
    "practice_grant_amount",
    "practice_grant_reference",
    "practice_top_up_reference",
    "practice_top_up_seconds",
    "practice_top_up_window",
    "reversal_reference",
    "seamless_balance",
    "seamless_call_retry",
    "seamless_calls_sweep",
    "seamless_credit",
    "seamless_credits_record",
    "seamless_debit",
    "seamless_debit_consume",
    "seamless_debit_unavailable",
    "seamless_mode",
    "seamless_rollback",
    "self_exclusion_create",
    "self_exclusion_days_allowed",
    "shard_for",
    "table_buy_in",
    "table_refund",
    "ticket_enter",
    "ticket_expire",
    "ticket_grant",
    "ticket_refund",
    "time_out_days_allowed",
    "time_out_take",
    "tournament_fee_take",
    "tournament_overlay_add",
    "tournament_overlay_return",
    "tournament_prizes_pay",
    "transaction_reverse",
    "wallet_adjust",
    "winnings_confiscate",
    "withdraw",
    "withdrawal_reference",
]
