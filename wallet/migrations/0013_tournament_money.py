"""R14 tournaments' money (docs/wallet.md "Tournaments"): the ``promotion`` account (an
operator's promotion spend, sharded like the house's, may go negative) and the ``ticket``
account (a player's ticket to one tournament, its ``game_ref``; never negative), and the
postings' kinds: ``tournament_prize``, ``tournament_fee``, ``overlay``, ``overlay_return``,
``ticket_grant``, ``ticket_entry``, ``ticket_refund``, ``ticket_expiry``.

An escrow and the tickets to its tournament share a ``game_ref``: the escrow's unique index
now says ``player_id IS NULL`` (its lookups say so too, so their generic plans use it), and
one ticket per player, game and currency is an index on game_ref alone, which any lookup by
game_ref can use. Every row allowed before is allowed now."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('platform', '0013_launch_language'),
        ('wallet', '0012_break_kind'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='account',
            name='wallet_account_balance_non_negative',
        ),
        migrations.RemoveConstraint(
            model_name='account',
            name='wallet_account_only_house_accounts_are_sharded',
        ),
        migrations.RemoveConstraint(
            model_name='account',
            name='wallet_account_owner_matches_kind',
        ),
        migrations.RemoveConstraint(
            model_name='account',
            name='wallet_one_house_account_per_operator_kind_currency_shard',
        ),
        migrations.RemoveConstraint(
            model_name='account',
            name='wallet_one_escrow_per_game_and_currency',
        ),
        migrations.AlterField(
            model_name='account',
            name='kind',
            field=models.CharField(choices=[('player', 'Player wallet'), ('escrow', 'Table escrow'), ('house_fee', 'House fee'), ('house_fx', 'House FX'), ('outside', 'Outside world'), ('operator_wallet', 'Operator wallet'), ('network_position', 'Network position'), ('promotion', 'Promotion'), ('ticket', 'Tournament ticket')], max_length=16),
        ),
        migrations.AlterField(
            model_name='ledgertransaction',
            name='kind',
            field=models.CharField(choices=[('deposit', 'Deposit'), ('withdrawal', 'Withdrawal'), ('buy_in', 'Buy In'), ('refund', 'Refund'), ('settlement', 'Settlement'), ('reversal', 'Reversal'), ('practice_grant', 'Practice Grant'), ('practice_top_up', 'Practice Top Up'), ('seamless_debit', 'Seamless Debit'), ('seamless_credit', 'Seamless Credit'), ('seamless_rollback', 'Seamless Rollback'), ('adjustment', 'Adjustment'), ('network_settlement', 'Network Settlement'), ('void', 'Void'), ('confiscation', 'Confiscation'), ('tournament_prize', 'Tournament Prize'), ('tournament_fee', 'Tournament Fee'), ('overlay', 'Overlay'), ('overlay_return', 'Overlay Return'), ('ticket_grant', 'Ticket Grant'), ('ticket_entry', 'Ticket Entry'), ('ticket_refund', 'Ticket Refund'), ('ticket_expiry', 'Ticket Expiry')], max_length=24),
        ),
        migrations.AddConstraint(
            model_name='account',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind__in', ('player', 'escrow', 'house_fee', 'ticket')), _negated=True), ('balance__gte', 0), _connector='OR'), name='wallet_account_balance_non_negative'),
        ),
        migrations.AddConstraint(
            model_name='account',
            constraint=models.CheckConstraint(condition=models.Q(('kind__in', ('house_fee', 'house_fx', 'outside', 'operator_wallet', 'network_position', 'promotion')), ('shard', 0), _connector='OR'), name='wallet_account_only_house_accounts_are_sharded'),
        ),
        migrations.AddConstraint(
            model_name='account',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind', 'player'), ('player__isnull', False), ('game_ref__isnull', True)), models.Q(('kind', 'escrow'), ('player__isnull', True), ('game_ref__isnull', False)), models.Q(('kind', 'ticket'), ('player__isnull', False), ('game_ref__isnull', False)), models.Q(('kind__in', ('house_fee', 'house_fx', 'outside', 'operator_wallet', 'network_position', 'promotion')), ('player__isnull', True), ('game_ref__isnull', True)), _connector='OR'), name='wallet_account_owner_matches_kind'),
        ),
        migrations.AddConstraint(
            model_name='account',
            constraint=models.UniqueConstraint(condition=models.Q(('game_ref__isnull', False), ('player__isnull', True)), fields=('game_ref', 'currency'), name='wallet_one_escrow_per_game_and_currency'),
        ),
        migrations.AddConstraint(
            model_name='account',
            constraint=models.UniqueConstraint(condition=models.Q(('game_ref__isnull', False)), fields=('game_ref', 'currency', 'player'), name='wallet_one_ticket_per_player_game_and_currency'),
        ),
        migrations.AddConstraint(
            model_name='account',
            constraint=models.UniqueConstraint(condition=models.Q(('kind__in', ('house_fee', 'house_fx', 'outside', 'operator_wallet', 'network_position', 'promotion'))), fields=('operator', 'kind', 'currency', 'shard'), name='wallet_one_house_account_per_operator_kind_currency_shard'),
        ),
    ]
