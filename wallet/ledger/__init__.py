"""The ledger kernel: the one way money is written (docs/wallet.md "Ledger").

Only ``wallet.services`` imports it (an import-linter contract): a service turns its facts
into a plan of lines (wallet/services/plans/) and posts the plan through here.

How a posting is made (``wallet.ledger.skeleton.posting_make``):
1. the service validates the request (``wallet.ledger.checks``; each bad input is its own
   problem type, wallet.problems);
2. every account it touches is resolved and all are locked at once in primary-key order
   (``wallet.ledger.accounts.resolve_and_lock``): when all exist, ONE statement finds and
   locks them (``wallet.locks.lock_accounts_if_all_exist``); else the missing ones are
   created first, holding no lock, in one global order (house accounts, escrows, wallets),
   then all are locked (``wallet.locks.lock_accounts``);
3. a reference seen before returns the first transaction if it was the same request, and
   is ``reference-conflict`` otherwise (``wallet.ledger.replay``): every posting is
   idempotent by its unique reference, and checked under the locks, so a concurrent twin
   has either committed (and is returned) or is queued behind us (refunds, settlements and
   reversals also check before locking, with ``posting_replay``, to skip work on a
   replay). A service with ``reads`` asks whether the reference exists in the same query
   as its own reads (wallet.selectors.postings), and the full check runs only if it does;
4. the service's rules are checked against the locked balances (status, self-exclusion,
   caps, limits, funds, escrow state);
5. ``wallet.ledger.post.post`` (or ``post_transfer`` for a player's two-leg posting)
   checks the lines sum to zero per currency and per operator's books
   (``wallet.ledger.lines``), then writes the transaction, its entries, the balance moves
   of the locked accounts and the audit row in ONE statement (``wallet.ledger.write``; the
   database's CHECKs and deferred zero-sum trigger still check every row).
A problem raised at any step leaves nothing posted: each service is one transaction (a
savepoint inside the caller's), and ``wallet.ledger.replay.reference_guard`` turns a
reference lost to a concurrent posting on other accounts into ``reference-conflict``.

Modules, one concern each:
- ``checks``: the input checks every service shares (amount, reference, game, metadata,
  player status, funds);
- ``lines``: ``Line`` and the sums every posting must make (pure: no database);
- ``keys``: ``AccountKey``, which account a posting needs, and the house shards (pure);
- ``accounts``: finding, creating and locking a posting's accounts;
- ``replay``: idempotency by reference;
- ``post``: ``post`` and ``post_transfer``, the only writers of ledger rows and cached
  balances;
- ``skeleton``: ``posting_make``, the one skeleton of every posting;
- ``write``: the rows of a posting in one statement (``ledger_write``, ``LedgerBatch``).
"""
