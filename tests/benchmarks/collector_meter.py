"""What Python's cyclic garbage collector costs each benchmark server process (bench_actions.py).

Only the benchmark's servers install it (floor_settings.py, when ``BENCH_GC_DIR`` is set):
each process times every collection in the CPU time of the thread that ran it (a collection
holds the GIL, so nothing else in the process runs meanwhile) and writes its totals to
``<BENCH_GC_DIR>/gc-<pid>.json`` every 0.2 s; ``snapshot`` adds up every process's file, and
the difference of two snapshots is what the collector did between them.
"""

from __future__ import annotations

import gc
import json
import os
import threading
import time
from pathlib import Path

GENERATIONS = 3
WRITE_EVERY = 0.2  # seconds


def install(directory: str | os.PathLike) -> None:
    """Time this process's collections and keep its totals in ``directory``."""
    path = Path(directory) / f"gc-{os.getpid()}.json"
    totals = {
        "collections": [0] * GENERATIONS,
        "cpu_s": [0.0] * GENERATIONS,
        "collected": [0] * GENERATIONS,
        "longest_full_ms": 0.0,
    }
    started = [0.0]

    def timed(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.thread_time()
            return
        generation = info["generation"]
        spent = time.thread_time() - started[0]
        totals["collections"][generation] += 1
        totals["cpu_s"][generation] += spent
        totals["collected"][generation] += info["collected"]
        if generation == GENERATIONS - 1:
            totals["longest_full_ms"] = max(totals["longest_full_ms"], spent * 1000)

    def keep_writing() -> None:
        while True:
            time.sleep(WRITE_EVERY)
            record = {**totals, "frozen": gc.get_freeze_count(), "pid": os.getpid()}
            partial = path.with_suffix(".tmp")
            partial.write_text(json.dumps(record))
            partial.replace(path)  # a reader never sees half a file

    gc.callbacks.append(timed)
    threading.Thread(target=keep_writing, name="bench-gc-meter", daemon=True).start()


def snapshot(directory: str | os.PathLike) -> dict:
    """Every process's totals added up (the longest full collection: the longest of any)."""
    total = {
        "collections": [0] * GENERATIONS,
        "cpu_s": [0.0] * GENERATIONS,
        "collected": [0] * GENERATIONS,
        "longest_full_ms": 0.0,
        "frozen": 0,
    }
    for path in Path(directory).glob("gc-*.json"):
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        for key in ("collections", "cpu_s", "collected"):
            total[key] = [a + b for a, b in zip(total[key], record[key], strict=True)]
        total["longest_full_ms"] = max(total["longest_full_ms"], record["longest_full_ms"])
        total["frozen"] += record["frozen"]
    return total


def between(before: dict, after: dict, *, requests: int, web_cpu_s: float) -> dict:
    """What the collector did between two snapshots, per request and as a share of the web
    processes' CPU. ``longest_full_ms`` is the longest of the whole run so far."""

    def minus(key: str) -> list:
        return [a - b for a, b in zip(after[key], before[key], strict=True)]

    cpu = minus("cpu_s")
    return {
        "collections": minus("collections"),
        "collected": minus("collected"),
        "cpu_ms": [round(seconds * 1000, 1) for seconds in cpu],
        "cpu_ms_per_request": round(sum(cpu) * 1000 / requests, 3) if requests else None,
        "share_of_web_cpu": round(sum(cpu) / web_cpu_s, 3) if web_cpu_s else None,
        "longest_full_ms_so_far": round(after["longest_full_ms"], 1),
        "objects_frozen": after["frozen"],
    }
