"""The deployed settings plus the floor view's route (bench_actions.py, docs/benchmarks.md).

Only the benchmark's server uses this module: production never serves the floor view.
"""

from gin_platform.settings import *  # noqa: F403

ROOT_URLCONF = "tests.benchmarks.floor_urls"
