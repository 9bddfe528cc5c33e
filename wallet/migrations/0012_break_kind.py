"""Breaks: a ``SelfExclusion`` row is a time-out or a self-exclusion (docs/player-protection.md
"Breaks and limits"). Every existing row was a self-exclusion, the default."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('wallet', '0011_wallet_call_context'),
    ]

    operations = [
        migrations.AddField(
            model_name='selfexclusion',
            name='kind',
            field=models.CharField(choices=[('time_out', 'Time Out'), ('self_exclusion', 'Self Exclusion')], default='self_exclusion', max_length=16),
        ),
    ]
