"""The API fuzzer's figures, printed at the end of the run (docs/api-fuzzing.md quotes
them): the requests it sent by operation and status, and the inputs it held back because
they trigger a known bug (tests/fuzz/known_bugs.py).

They are counted in the process that runs the fuzz tests. Under xdist that is a worker, whose
output nobody sees: each worker hands its figures to the controller when it finishes
(``worker_output``), and the controller adds them up (``add_worker_output``) before it
prints the summary (tests/conftest.py). Standard library only.
"""

from __future__ import annotations

from collections import Counter

# (operation, status code) -> requests sent.
SENT: Counter[tuple[str, int]] = Counter()
# (operation, owner) -> inputs not sent because they trigger a known bug of that owner.
HELD_BACK: Counter[tuple[str, str]] = Counter()


def record(operation: str, status: int) -> None:
    SENT[(operation, status)] += 1


def hold_back(operation: str, owner: str) -> None:
    HELD_BACK[(operation, owner)] += 1


def worker_output() -> dict[str, list]:
    """This process's figures, in the plain lists xdist carries from a worker."""
    return {
        "fuzz_sent": [[operation, status, n] for (operation, status), n in SENT.items()],
        "fuzz_held_back": [[operation, owner, n] for (operation, owner), n in HELD_BACK.items()],
    }


def add_worker_output(output: dict) -> None:
    """Add a worker's figures (``worker_output``) to this process's."""
    for operation, status, n in output.get("fuzz_sent", []):
        SENT[(operation, status)] += n
    for operation, owner, n in output.get("fuzz_held_back", []):
        HELD_BACK[(operation, owner)] += n


def summary() -> list[str]:
    """The lines of the summary; none when nothing was fuzzed."""
    if not SENT and not HELD_BACK:
        return []
    by_class: Counter[str] = Counter()
    for (_, status), count in SENT.items():
        by_class[f"{status // 100}xx"] += count
    lines = [
        f"{len({operation for operation, _ in SENT})} operations, {sum(SENT.values())} "
        f"requests ({', '.join(f'{k}: {v}' for k, v in sorted(by_class.items()))}), "
        f"5xx: {sum(n for (_, status), n in SENT.items() if status >= 500)}"
    ]
    for (operation, owner), count in sorted(HELD_BACK.items()):
        lines.append(
            f"held back: {count} inputs of a known {owner} bug for {operation} "
            "(tests/fuzz/known_bugs.py)"
        )
    return lines
