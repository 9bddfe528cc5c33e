"""The wallet's tables, a module per concern; import them from here (``from wallet.models
import Account``), as every app does:

- ``ledger``: the double-entry ledger (accounts, transactions, entries) and exchange rates
  (docs/wallet.md "Ledger", where its invariants and who holds them are listed);
- ``limits``: the operator's cashier caps, the player's own limits and breaks (time-outs
  and self-exclusions);
- ``seamless``: the seamless wallet's settings and calls to the operator's wallet;
- ``approvals``: four-eyes requests.
"""

from wallet.models.approvals import ApprovalRequest
from wallet.models.ledger import (
    COMPONENT_LENGTH,
    CURRENCY_LENGTH,
    GAME_REF_LENGTH,
    RATE_DECIMAL_PLACES,
    RATE_MAX_DIGITS,
    REFERENCE_LENGTH,
    Account,
    AppendOnlyError,
    AppendOnlyModel,
    AppendOnlyQuerySet,
    ExchangeRate,
    LedgerEntry,
    LedgerTransaction,
)
from wallet.models.limits import (
    CashierCaps,
    LimitKind,
    LimitPeriod,
    PlayerLimit,
    PlayerLimitChange,
    SelfExclusion,
)
from wallet.models.seamless import OperatorWallet, WalletCall

__all__ = [
    "COMPONENT_LENGTH",
    "CURRENCY_LENGTH",
    "GAME_REF_LENGTH",
    "RATE_DECIMAL_PLACES",
    "RATE_MAX_DIGITS",
    "REFERENCE_LENGTH",
    "Account",
    "AppendOnlyError",
    "AppendOnlyModel",
    "AppendOnlyQuerySet",
    "ApprovalRequest",
    "CashierCaps",
    "ExchangeRate",
    "LedgerEntry",
    "LedgerTransaction",
    "LimitKind",
    "LimitPeriod",
    "OperatorWallet",
    "PlayerLimit",
    "PlayerLimitChange",
    "SelfExclusion",
    "WalletCall",
]
