"""The deferred zero-sum trigger (0002, made per-operator in 0006) reads each ledger
transaction's entries and looks up each entry's account, instead of joining the
transaction's entries with every account.

The join let PostgreSQL walk the whole account table in operator order to spare a sort (the
plan it chose, and the generic plan a long-lived connection keeps): every entry's check, run
at COMMIT, then cost time in proportion to the number of accounts, 1.5 ms per entry at
~1,600 accounts, 10 ms of a settlement's COMMIT. Looking each account up by primary key makes
the check proportional to the transaction's own entries whatever the table's size. Same rule,
same errors: every transaction sums to zero per currency within each operator's books."""

from importlib import import_module

from django.db import migrations

# The function as 0006 left it, to go back to (a module name that import cannot spell).
PREVIOUS = import_module("wallet.migrations.0006_network_positions")

BY_ENTRIES = r"""
CREATE OR REPLACE FUNCTION wallet_ledger_entry_check() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    account_currency varchar(3);
    bad RECORD;
BEGIN
    SELECT currency INTO account_currency FROM wallet_account WHERE id = NEW.account_id;
    IF account_currency IS DISTINCT FROM NEW.currency THEN
        RAISE EXCEPTION 'ledger entry % is in %, its account % is in %',
            NEW.id, NEW.currency, NEW.account_id, account_currency
            USING ERRCODE = 'check_violation';
    END IF;
    -- Each entry's operator by its account's primary key (a subquery per entry, never a
    -- join the planner could turn into a walk over every account).
    SELECT e.operator_id, e.currency, SUM(e.amount) AS total INTO bad
      FROM (SELECT (SELECT a.operator_id FROM wallet_account a WHERE a.id = le.account_id)
                       AS operator_id,
                   le.currency,
                   le.amount
              FROM wallet_ledgerentry le
             WHERE le.transaction_id = NEW.transaction_id) e
     GROUP BY e.operator_id, e.currency
    HAVING SUM(e.amount) <> 0
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'ledger transaction % does not sum to zero in % in the books of %'
            ' (total %)', NEW.transaction_id, bad.currency, bad.operator_id, bad.total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;
"""


class Migration(migrations.Migration):
    dependencies = [("wallet", "0006_network_positions")]

    operations = [
        migrations.RunPython(
            PREVIOUS._sql(BY_ENTRIES), PREVIOUS._sql(PREVIOUS.PER_OPERATOR), elidable=False
        ),
    ]
