"""Python's cyclic garbage collector in the long-lived server processes (docs/deploy.md).

A web or Celery worker loads the application once: modules, classes, functions, URL
patterns, serializers, the settings, about 120,000 container objects that live as long as
the process. Every full collection traverses all of them again, and a full collection holds
the GIL throughout: measured under the action benchmark, each took 150-190 ms of a web
worker's CPU, with every request thread and the event loop stopped behind it.
``gc.freeze()`` moves the objects that exist once the application is loaded out of every
later collection (full collections then took 65-70 ms); what requests and tasks allocate
is collected exactly as before.
"""

from __future__ import annotations

import gc


def loaded_application_frozen() -> int:
    """Once the process has loaded the application: collect what is already garbage, then
    keep everything still alive out of later collections. Returns how many objects are
    frozen. Call it once per process, after the imports and before serving."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
