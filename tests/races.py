"""Threads racing on a real database or Redis (the PostgreSQL and Redis concurrency tests)."""

from __future__ import annotations

import threading

from django.db import connection


def race(workers: int, work) -> list:
    """Run ``work(i)`` in ``workers`` threads released together; return results in order
    (an exception a thread raised is its result). Each thread closes its own database
    connection when done."""
    barrier = threading.Barrier(workers)
    results: list = [None] * workers

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = work(i)
        except Exception as exc:  # recorded and asserted on by the test
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
