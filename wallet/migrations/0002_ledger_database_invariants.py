"""PostgreSQL-only guards of the ledger (issue 4 item 2, ARCHITECTURE §3).

1. A deferred constraint trigger: at COMMIT, every transaction that received entries must
   sum to zero per currency, and every entry must be in its account's currency. A raw SQL
   insert of an unbalanced transaction therefore cannot commit.
2. Append-only: UPDATE and DELETE of ledger transactions and entries raise. (TRUNCATE, used
   only by test teardown, does not fire row triggers.)

On SQLite (the embedded demo database) this migration does nothing: the services build
balanced postings and the model layer refuses updates and deletes; ``manage.py reconcile``
checks the rest.
"""

from django.db import migrations

FORWARD = r"""
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
    SELECT currency, SUM(amount) AS total INTO bad
      FROM wallet_ledgerentry
     WHERE transaction_id = NEW.transaction_id
     GROUP BY currency
    HAVING SUM(amount) <> 0
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'ledger transaction % does not sum to zero in % (total %)',
            NEW.transaction_id, bad.currency, bad.total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER wallet_ledger_entry_balanced
    AFTER INSERT ON wallet_ledgerentry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallet_ledger_entry_check();

CREATE OR REPLACE FUNCTION wallet_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% rows are append-only: post a reversing transaction instead',
        TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END
$$;

CREATE TRIGGER wallet_ledgertransaction_append_only
    BEFORE UPDATE OR DELETE ON wallet_ledgertransaction
    FOR EACH ROW EXECUTE FUNCTION wallet_append_only();

CREATE TRIGGER wallet_ledgerentry_append_only
    BEFORE UPDATE OR DELETE ON wallet_ledgerentry
    FOR EACH ROW EXECUTE FUNCTION wallet_append_only();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS wallet_ledgerentry_append_only ON wallet_ledgerentry;
DROP TRIGGER IF EXISTS wallet_ledgertransaction_append_only ON wallet_ledgertransaction;
DROP FUNCTION IF EXISTS wallet_append_only();
DROP TRIGGER IF EXISTS wallet_ledger_entry_balanced ON wallet_ledgerentry;
DROP FUNCTION IF EXISTS wallet_ledger_entry_check();
"""


def _run(sql: str):
    def operation(apps, schema_editor) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(sql)

    return operation


class Migration(migrations.Migration):
    dependencies = [("wallet", "0001_initial")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD), elidable=False)]
