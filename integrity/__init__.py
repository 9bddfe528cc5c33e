"""Game integrity (docs/integrity.md): linked accounts that never share a table, detection
jobs over the hand history, and the risk team's cases. It reads games and wallet through
their selectors and acts through their services; games asks it one question only, through
``integrity.pairing``: may these players share a table?"""
