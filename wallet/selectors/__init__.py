"""The wallet's reads, one module per concern (docs/wallet.md "Where things are"); import
the module of the concern, ``from wallet.selectors import balances``:

- ``balances``: a player's wallet, the house accounts, a game's escrow and who staked in it;
- ``transactions``: a player's statement, one transaction, its entries, what a settlement
  credited to each wallet;
- ``limits``: the operator's cashier caps, the player's limits and self-exclusion, and the
  deposits and losses of each window;
- ``rates``: exchange rates, and amounts shown in the player's display currency (R11);
- ``practice``: practice-chip top-ups;
- ``postings``: what a posting reads under its locks (the wallet's services only);
- ``network``: network positions, what a net settlement settles, a network escrow's shares;
- ``seamless``: the seamless wallet's settings, calls and mirror check;
- ``approvals``: four-eyes requests;
- ``backoffice``: the back office's and the reports' reads (the player page, the daily
  report's corrections, the network statement's lines);
- ``reconciliation``: ``reconcile``, the whole ledger's check;
- ``history``: a player's own money history (their wallet's movements, its sums per day or
  month, each game's net), which player protection reads.

Nothing is re-exported here: a read is imported from the module of its concern, as the
modules import each other's (reconciliation reads network and seamless, which read balances).
"""
