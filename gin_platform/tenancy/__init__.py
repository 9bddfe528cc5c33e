"""Tenancy: the operators and everything scoped to one (docs/api.md).

- ``services``: the state changes: operators, the network and its membership, the sandbox,
  API keys, players and their sessions, registered origins, the game launch, socket
  tickets, the pruning of what is kept only for a while;
- ``selectors``: the reads, always scoped to the caller's operator;
- ``principals``: who is calling (``request.user`` of an API request) and the audit actor;
- ``tokens``: minting and hashing the credentials (API keys, session tokens, launch tokens,
  socket tickets, signing secrets);
- ``watchable``: the question the game launch asks the games app (may this operator's
  players watch that match?).
"""
