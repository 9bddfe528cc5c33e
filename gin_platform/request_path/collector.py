"""Python's cyclic garbage collector in the long-lived server processes (docs/deploy.md).

A web or Celery worker loads the application once: modules, classes, functions, URL
patterns, serializers, the settings, about 120,000 container objects that live as long as
the process. Every full collection traverses all of them again, and a full collection holds
the GIL throughout: measured under the action benchmark, each took 150-190 ms of a web
worker's CPU, with every request thread and the event loop stopped behind it.
``gc.freeze()`` moves the objects that exist once the application is loaded out of every
later collection (full collections then took 65-70 ms); what requests and tasks allocate
is collected exactly as before.

The youngest generation is collected after ``YOUNG_COLLECTION_THRESHOLD`` new container
objects instead of CPython's 700: a move builds thousands (model instances, the rows' JSON,
its answer), so at 700 every request ran several young collections, each traversing what
the request still holds. At 10,000 a REST move cost 0.4 ms (4 %) less of a web process's
CPU in alternated blocks (docs/benchmarks.md); garbage in cycles waits a little longer, a
few MB at most.
"""

from __future__ import annotations

import gc

YOUNG_COLLECTION_THRESHOLD = 10_000


def loaded_application_frozen() -> int:
    """Once the process has loaded the application: collect what is already garbage, then
    keep everything still alive out of later collections, and space the young collections
    (``YOUNG_COLLECTION_THRESHOLD``). Returns how many objects are frozen. Call it once per
    process, after the imports and before serving."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *gc.get_threshold()[1:])
    return gc.get_freeze_count()
