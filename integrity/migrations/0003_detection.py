"""Detection's cursors and running figures per player and per pair (docs/integrity.md)."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('integrity', '0002_cases'),
        ('platform', '0011_interrupted_play'),
    ]

    operations = [
        migrations.CreateModel(
            name='DetectionCursor',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('job', models.CharField(max_length=40, unique=True)),
                ('last_at', models.DateTimeField(blank=True, null=True)),
                ('last_id', models.BigIntegerField(default=0)),
                ('rows_read', models.BigIntegerField(default=0)),
                ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
            ],
        ),
        migrations.CreateModel(
            name='PlayerStats',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('matches', models.PositiveIntegerField(default=0)),
                ('hands', models.PositiveIntegerField(default=0)),
                ('hands_won', models.PositiveIntegerField(default=0)),
                ('knock_chances', models.PositiveIntegerField(default=0)),
                ('knocks_declined', models.PositiveIntegerField(default=0)),
                ('discards', models.PositiveIntegerField(default=0)),
                ('discards_useful', models.PositiveIntegerField(default=0)),
                ('decisions', models.PositiveIntegerField(default=0)),
                ('engine_same', models.PositiveIntegerField(default=0)),
                ('think_count', models.PositiveIntegerField(default=0)),
                ('think_sum', models.FloatField(default=0.0)),
                ('think_sum_sq', models.FloatField(default=0.0)),
                ('session_start', models.DateTimeField(blank=True, null=True)),
                ('last_action_at', models.DateTimeField(blank=True, null=True)),
                ('session_actions', models.PositiveIntegerField(default=0)),
                ('longest_session_seconds', models.FloatField(default=0.0)),
                ('longest_session_start', models.DateTimeField(blank=True, null=True)),
                ('games', models.PositiveIntegerField(default=0)),
                ('games_won', models.PositiveIntegerField(default=0)),
                ('forfeits', models.PositiveIntegerField(default=0)),
                ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('player', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='platform.player')),
            ],
        ),
        migrations.CreateModel(
            name='PairStats',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('matches', models.PositiveIntegerField(default=0)),
                ('hands', models.PositiveIntegerField(default=0)),
                ('hands_won_low', models.PositiveIntegerField(default=0)),
                ('hands_won_high', models.PositiveIntegerField(default=0)),
                ('knock_chances_low', models.PositiveIntegerField(default=0)),
                ('knock_chances_high', models.PositiveIntegerField(default=0)),
                ('knocks_declined_low', models.PositiveIntegerField(default=0)),
                ('knocks_declined_high', models.PositiveIntegerField(default=0)),
                ('discards_low', models.PositiveIntegerField(default=0)),
                ('discards_high', models.PositiveIntegerField(default=0)),
                ('discards_useful_low', models.PositiveIntegerField(default=0)),
                ('discards_useful_high', models.PositiveIntegerField(default=0)),
                ('games', models.PositiveIntegerField(default=0)),
                ('games_won_low', models.PositiveIntegerField(default=0)),
                ('games_won_high', models.PositiveIntegerField(default=0)),
                ('forfeits_low', models.PositiveIntegerField(default=0)),
                ('forfeits_high', models.PositiveIntegerField(default=0)),
                ('net_to_low', models.JSONField(default=dict)),
                ('recent_hands', models.JSONField(default=list)),
                ('recent_games', models.JSONField(default=list)),
                ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('player_high', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='platform.player')),
                ('player_low', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='platform.player')),
            ],
            options={
                'indexes': [models.Index(fields=['player_high', 'player_low'], name='integrity_p_player__7dc383_idx')],
                'constraints': [models.UniqueConstraint(fields=('player_low', 'player_high'), name='pair_stats_unique'), models.CheckConstraint(condition=models.Q(('player_low__lt', models.F('player_high'))), name='pair_stats_ordered')],
            },
        ),
    ]
