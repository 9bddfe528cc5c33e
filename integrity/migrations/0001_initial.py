"""Integrity's first tables: links, alerts and cases; the risk role gets their permissions
(gin_platform/staff/roles.py)."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

from gin_platform.staff.roles import roles_sync


def grant(apps, schema_editor) -> None:
    roles_sync(apps)


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('platform', '0011_interrupted_play'),
        ('games', '0009_interrupted_play'),
    ]

    operations = [
        migrations.CreateModel(
            name='Case',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('open', 'Open'), ('closed', 'Closed')], default='open', max_length=12)),
                ('title', models.CharField(max_length=200)),
                ('opened_by', models.CharField(max_length=80)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                ('closed_at', models.DateTimeField(blank=True, null=True)),
                ('resolution', models.TextField(blank=True, default='')),
            ],
            options={
                'permissions': [('work_case', 'Can note on a case, warn, suspend and block pairings'), ('propose_confiscation', 'Can propose confiscating winnings for the victims'), ('approve_confiscation', 'Can approve a confiscation proposed by someone else')],
                'indexes': [models.Index(fields=['status', 'created_at'], name='integrity_c_status_c2b942_idx')],
            },
        ),
        migrations.CreateModel(
            name='Alert',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('signal', models.CharField(choices=[('soft_play', 'Soft Play'), ('feeding', 'Feeding'), ('chip_dumping', 'Chip Dumping'), ('repeated_pairing', 'Repeated Pairing'), ('pair_win_rate', 'Pair Win Rate'), ('bot_timing', 'Bot Timing'), ('bot_marathon', 'Bot Marathon'), ('bot_engine_moves', 'Bot Engine Moves'), ('linked_identifiers', 'Linked Identifiers'), ('player_report', 'Player Report')], max_length=24)),
                ('score', models.FloatField()),
                ('threshold', models.FloatField()),
                ('reasoning', models.JSONField(default=dict)),
                ('status', models.CharField(choices=[('open', 'Open'), ('in_case', 'In Case'), ('dismissed', 'Dismissed')], default='open', max_length=12)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('other_player', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='platform.player')),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='platform.player')),
                ('case', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='alerts', to='integrity.case')),
            ],
            options={
                'indexes': [models.Index(fields=['status', 'created_at'], name='integrity_a_status_d476a2_idx')],
                'constraints': [models.UniqueConstraint(condition=models.Q(('status', 'open')), fields=('signal', 'player', 'other_player'), name='alert_open_unique', nulls_distinct=False)],
            },
        ),
        migrations.CreateModel(
            name='PlayerLink',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('device', 'Device'), ('address', 'Address'), ('payment_instrument', 'Payment Instrument'), ('household', 'Household'), ('associate', 'Associate'), ('transfers', 'Transfers'), ('case_block', 'Case Block')], max_length=24)),
                ('source', models.CharField(max_length=80)),
                ('evidence', models.JSONField(blank=True, default=dict)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                ('ended_at', models.DateTimeField(blank=True, null=True)),
                ('player_high', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='platform.player')),
                ('player_low', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='platform.player')),
            ],
            options={
                'indexes': [models.Index(fields=['player_high', 'player_low'], name='integrity_p_player__fee5df_idx')],
                'constraints': [models.UniqueConstraint(fields=('player_low', 'player_high', 'kind'), name='player_link_unique'), models.CheckConstraint(condition=models.Q(('player_low__lt', models.F('player_high'))), name='player_link_ordered')],
            },
        ),
        migrations.RunPython(grant, migrations.RunPython.noop),
    ]
