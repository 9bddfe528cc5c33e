"""Player protection (docs/player-protection.md): play sessions with their limits, reality
checks, breaks, the player's own history and the markers of harm the risk team reads."""
