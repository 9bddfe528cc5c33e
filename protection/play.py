"""What games asks player protection, from the seating and move paths
(docs/player-protection.md): may this player buy in now, and which reality checks are due.
It imports no games (games imports it)."""
