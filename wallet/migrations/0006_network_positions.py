"""Network play's money (docs/network.md "Money between operators"): the network position
account kind, the net settlement's ledger and approval kinds with their permissions (given
to the finance and admin roles, gin_platform/staff/roles.py), and on PostgreSQL the deferred
zero-sum trigger of migration 0002 made stricter: every transaction sums to zero per
currency within each operator's books (so overall too)."""

from django.db import migrations, models

PER_OPERATOR = r"""
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
    SELECT a.operator_id, e.currency, SUM(e.amount) AS total INTO bad
      FROM wallet_ledgerentry e JOIN wallet_account a ON a.id = e.account_id
     WHERE e.transaction_id = NEW.transaction_id
     GROUP BY a.operator_id, e.currency
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

OVERALL = r"""
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
"""

NEW_PERMISSIONS = ("propose_net_settlement", "approve_net_settlement")
ROLES = ("finance", "admin")


def _sql(sql: str):
    def operation(apps, schema_editor) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(sql)

    return operation


def grant(apps, schema_editor) -> None:
    """The finance and admin roles may propose and approve net settlements (roles that do
    not exist yet get them when gin_platform.staff.roles.roles_sync creates them)."""
    content_type_model = apps.get_model("contenttypes", "ContentType")
    permission_model = apps.get_model("auth", "Permission")
    group_model = apps.get_model("auth", "Group")
    content_type, _ = content_type_model.objects.get_or_create(
        app_label="wallet", model="approvalrequest"
    )
    permissions = [
        permission_model.objects.get_or_create(
            content_type=content_type,
            codename=codename,
            defaults={"name": f"Can {codename.replace('_', ' ')}"},
        )[0]
        for codename in NEW_PERMISSIONS
    ]
    for group in group_model.objects.filter(name__in=ROLES):
        group.permissions.add(*permissions)


class Migration(migrations.Migration):
    dependencies = [
        ("platform", "0008_network"),
        ("wallet", "0005_approvals"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="approvalrequest",
            options={
                "ordering": ("-proposed_at", "-id"),
                "permissions": [
                    ("propose_reversal", "Can propose a ledger reversal"),
                    ("approve_reversal", "Can approve a ledger reversal"),
                    ("propose_adjustment", "Can propose a manual wallet adjustment"),
                    ("approve_adjustment", "Can approve a manual wallet adjustment"),
                    ("propose_cashier_caps", "Can propose raising cashier caps"),
                    ("approve_cashier_caps", "Can approve raising cashier caps"),
                    ("propose_net_settlement", "Can propose a network net settlement"),
                    ("approve_net_settlement", "Can approve a network net settlement"),
                ],
            },
        ),
        migrations.RemoveConstraint(
            model_name="account",
            name="wallet_account_only_house_accounts_are_sharded",
        ),
        migrations.RemoveConstraint(
            model_name="account",
            name="wallet_account_owner_matches_kind",
        ),
        migrations.RemoveConstraint(
            model_name="account",
            name="wallet_one_house_account_per_operator_kind_currency_shard",
        ),
        migrations.AlterField(
            model_name="account",
            name="kind",
            field=models.CharField(
                choices=[
                    ("player", "Player wallet"),
                    ("escrow", "Table escrow"),
                    ("house_fee", "House fee"),
                    ("house_fx", "House FX"),
                    ("outside", "Outside world"),
                    ("operator_wallet", "Operator wallet"),
                    ("network_position", "Network position"),
                ],
                max_length=16,
            ),
        ),
        migrations.AlterField(
            model_name="approvalrequest",
            name="kind",
            field=models.CharField(
                choices=[
                    ("reversal", "Reversal"),
                    ("cashier_caps", "Cashier Caps"),
                    ("adjustment", "Adjustment"),
                    ("net_settlement", "Net Settlement"),
                ],
                max_length=16,
            ),
        ),
        migrations.AlterField(
            model_name="ledgertransaction",
            name="kind",
            field=models.CharField(
                choices=[
                    ("deposit", "Deposit"),
                    ("withdrawal", "Withdrawal"),
                    ("buy_in", "Buy In"),
                    ("refund", "Refund"),
                    ("settlement", "Settlement"),
                    ("reversal", "Reversal"),
                    ("practice_grant", "Practice Grant"),
                    ("practice_top_up", "Practice Top Up"),
                    ("seamless_debit", "Seamless Debit"),
                    ("seamless_credit", "Seamless Credit"),
                    ("seamless_rollback", "Seamless Rollback"),
                    ("adjustment", "Adjustment"),
                    ("network_settlement", "Network Settlement"),
                ],
                max_length=24,
            ),
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "kind__in",
                        ("house_fee", "house_fx", "outside", "operator_wallet", "network_position"),
                    ),
                    ("shard", 0),
                    _connector="OR",
                ),
                name="wallet_account_only_house_accounts_are_sharded",
            ),
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("kind", "player"), ("player__isnull", False), ("game_ref__isnull", True)
                    ),
                    models.Q(
                        ("kind", "escrow"), ("player__isnull", True), ("game_ref__isnull", False)
                    ),
                    models.Q(
                        (
                            "kind__in",
                            (
                                "house_fee",
                                "house_fx",
                                "outside",
                                "operator_wallet",
                                "network_position",
                            ),
                        ),
                        ("player__isnull", True),
                        ("game_ref__isnull", True),
                    ),
                    _connector="OR",
                ),
                name="wallet_account_owner_matches_kind",
            ),
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.UniqueConstraint(
                condition=models.Q(
                    (
                        "kind__in",
                        ("house_fee", "house_fx", "outside", "operator_wallet", "network_position"),
                    )
                ),
                fields=("operator", "kind", "currency", "shard"),
                name="wallet_one_house_account_per_operator_kind_currency_shard",
            ),
        ),
        migrations.RunPython(_sql(PER_OPERATOR), _sql(OVERALL), elidable=False),
        migrations.RunPython(grant, migrations.RunPython.noop),
    ]
