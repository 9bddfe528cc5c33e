"""Linked accounts: the marks of identifiers seen (as keyed hashes only)."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('integrity', '0003_detection'),
    ]

    operations = [
        migrations.CreateModel(
            name='LinkMark',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('device', 'Device'), ('address', 'Address'), ('payment_instrument', 'Payment Instrument')], max_length=24)),
                ('digest', models.CharField(max_length=64)),
                ('source', models.CharField(max_length=80)),
                ('first_seen_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('last_seen_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('derived_at', models.DateTimeField(blank=True, null=True)),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='platform.player')),
            ],
            options={
                'indexes': [models.Index(fields=['kind', 'digest', 'last_seen_at'], name='link_mark_shared_idx')],
                'constraints': [models.UniqueConstraint(fields=('player', 'kind', 'digest'), name='link_mark_unique')],
            },
        ),
    ]
