"""State changes of tournaments (R14), one module per concern (docs/tournaments.md):

- ``creation``: a tournament created, its room opened in games, its seed committed;
  registration opened when due;
- ``registration``: entries paid into the tournament's escrow, withdrawn and refunded;
- ``lifecycle``: the start (the draw, the prize pool, round 1), a match's result taken to
  the bracket, a cancellation;
- ``bracket``: tables seated as soon as their players are known, results, byes;
- ``prizes``: places and prizes paid when final, the fees, the end;
- ``events``: the ``tournament.*`` events and the player's pushes;
- ``sweep``: the beat job that finds whatever is due.

Every function is keyword-only and typed and writes its audit row in its transaction.
"""
