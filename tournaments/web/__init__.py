"""The hosted tournament page (docs/play.md "Tournaments"): the HTML shell at
/play/tournaments and /play/tournaments/{id}; its modules are under
tournaments/static/tournaments/play/ and reuse the table page's (games/static/games/play/)."""
