"""The ``confiscation`` ledger kind: a colluder's winnings given to the victims in one
posting, after four eyes (integrity's cases, docs/wallet.md "winnings_confiscate"). Choices
only: no schema change."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('wallet', '0009_void_kind'),
    ]

    operations = [
        migrations.AlterField(
            model_name='ledgertransaction',
            name='kind',
            field=models.CharField(choices=[('deposit', 'Deposit'), ('withdrawal', 'Withdrawal'), ('buy_in', 'Buy In'), ('refund', 'Refund'), ('settlement', 'Settlement'), ('reversal', 'Reversal'), ('practice_grant', 'Practice Grant'), ('practice_top_up', 'Practice Top Up'), ('seamless_debit', 'Seamless Debit'), ('seamless_credit', 'Seamless Credit'), ('seamless_rollback', 'Seamless Rollback'), ('adjustment', 'Adjustment'), ('network_settlement', 'Network Settlement'), ('void', 'Void'), ('confiscation', 'Confiscation')], max_length=24),
        ),
    ]
