"""Markers of harm (docs/player-protection.md "Markers of harm"): the rules the daily job
applies to each UTC day, one module per rule (``deposits_rising``, ``long_sessions``,
``chasing_losses``, ``night_play``): its parameters and their defaults, the facts it reads
(``facts``: play sessions; ``wallet.selectors.harm``: the ledger) and its test, a pure
function of those facts. ``rules`` holds them by code, ``params`` checks parameters,
``findings`` is what they share, ``selectors`` the back office's reads. The job itself is
``protection.services.harm.harm_markers_flag``.

Nothing is re-exported here: import the module of the part (``from protection.harm import
rules``), so the services can import the rules while the rules know no services.
"""
