"""The plans of the postings: pure functions from a posting's facts to its ledger lines
(docs/wallet.md "Plans"). No database, no ORM, no locks: a plan is testable as plain Python
(tests/wallet/test_plans_properties.py), and its service is the thin step around it that
reads the facts, locks the accounts and posts the plan (wallet.ledger).

- ``conversion``: the FX legs of a stake paid from, or a payout paid into, a wallet in
  another currency (rounded as wallet/fx.py says);
- ``network``: the network positions' legs (a crossing between two operators' books, the
  fee split of a network game, the net settlement of a position);
- ``escrow``: a buy-in and a refund (wallet/services/escrow.py);
- ``escrow_settle``: a settlement (wallet/services/escrow_settle.py);
- ``corrections``: a reversal (wallet/services/corrections.py).

Every plan names its accounts by ``wallet.ledger.keys.AccountKey`` (or, for the postings
that undo earlier ones, by the account ids of the entries they undo), and its lines sum to
zero per currency and within each operator's books.
"""
