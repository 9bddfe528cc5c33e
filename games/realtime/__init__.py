"""Real time: every change a viewer may see, pushed to their sockets on commit
(docs/realtime.md).

- ``publisher``: the one module that pushes. Services call ``match_changed`` inside their
  transaction; after the commit it renders each audience's message once (a seat's events
  and game view, or the watchers') with the presenters that build the REST answers, and
  sends it to that audience's channel-layer group. Services know nothing of sockets.
- ``consumers``: the sockets under ``/ws/v1/`` (a player's match, a watcher's table):
  tickets, origin, hello, resume after ``after=N``, gap repair, actions over the socket,
  heartbeats, limits.
- ``audience`` and ``presence``: the group names, and who is listening (the publisher
  renders only for audiences somebody listens to; players see whether the other is here).
"""
