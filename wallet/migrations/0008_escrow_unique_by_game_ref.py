"""One escrow per game and currency, the unique index's predicate on game_ref (only escrows
have one) instead of on kind: the escrow lookups' prepared statements (``kind = $1 AND
game_ref = $2``) can then use it in their generic plan instead of scanning every account
(28 ms at 100,000 accounts against 0.07 ms). Same rows allowed, same rows refused."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("platform", "0008_network"),
        ("wallet", "0007_zero_sum_check_by_entries"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="account",
            name="wallet_one_escrow_per_game_and_currency",
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.UniqueConstraint(
                condition=models.Q(("game_ref__isnull", False)),
                fields=("game_ref", "currency"),
                name="wallet_one_escrow_per_game_and_currency",
            ),
        ),
    ]
