"""Signals the games app sends; other apps connect receivers (games never imports settlement).

``match_finished``: sent once per match, when the transaction that recorded the match's
result has committed (so a receiver never sees a result that could still roll back).

    match_finished.send(sender=Match, match_id=<int>)

Settlement connects a receiver in its AppConfig that enqueues the settlement task; games
never imports settlement and never posts ledger rows.

``match_voided``: sent once per match, when the transaction that voided it (R13: an
interruption past the limit; a play session's end) has committed. Every stake went back
in that transaction; a tournament (R14) learns that its match will have no result.

    match_voided.send(sender=Match, match_id=<int>)
"""

from django.dispatch import Signal

match_finished = Signal()  # kwargs: match_id (int, games.models.Match pk)
match_voided = Signal()  # kwargs: match_id (int, games.models.Match pk)
