"""The deployed settings plus the floor view's route (bench_actions.py, docs/benchmarks.md).

Only the benchmark's server uses this module: production never serves the floor view.
"""

import os

from gin_platform.project.settings import *  # noqa: F403

ROOT_URLCONF = "tests.benchmarks.floor_urls"

if os.environ.get("BENCH_GC_DIR"):  # bench_actions.py: what the garbage collector costs
    from tests.benchmarks.collector_meter import install

    install(os.environ["BENCH_GC_DIR"])
