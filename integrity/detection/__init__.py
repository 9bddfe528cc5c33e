"""Detection from the hand history (docs/integrity.md): batch jobs over finished
games and settled money, per-player and per-pair aggregates, and one module per signal:

- pairs: ``soft_play``, ``feeding``, ``chip_dumping``, ``pair_win_rate``, ``repeated_pairing``;
- players: ``bot_timing``, ``marathon``, ``engine_moves``;
- ``stats`` (the statistics), ``counting`` (a game replayed and counted), ``findings`` (what a
  signal answers), ``alerts`` (what a finding changes), ``jobs`` (cursors and batches).
"""

from integrity.detection.jobs import (
    BatchReport,
    detection_job_run,
    games_batch_run,
    money_batch_run,
)

__all__ = ["BatchReport", "detection_job_run", "games_batch_run", "money_batch_run"]
