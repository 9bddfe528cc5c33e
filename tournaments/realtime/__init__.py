"""A tournament's watch socket (docs/realtime.md "A tournament's bracket"): the bracket as it
changes, pushed after each commit that changes what its watchers see.

- ``audience``: who a push is for: one channel-layer group per tournament and operator, as
  that operator (and its players) may see it; another operator's player identities are
  never in its messages (a network tournament names them by screen name only).
- ``render``: the snapshot a socket opens with (the bracket as ``GET .../bracket`` shows it
  to that viewer) and a push's changed tables, through the REST presenters.
- ``publisher``: the one module that pushes: ``bracket_changed`` inside the transaction
  (the tournament's ``bracket_version`` one more, once per transaction), the messages after
  the commit, to the audiences somebody listens to.
- ``consumers``, ``routing``: the socket, ``/ws/v1/tournaments/{id}/watch``.
"""
