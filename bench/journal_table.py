"""The table's side of the journal's cost: rows and commits per round and the
card-to-prompt latency of the simulated table (real daemon, drivers and transports, 7
seats), with the journal on disk; and one device event's rows in one commit. Called by
``bench/journal_bench.py`` (run that).

The station commits once per device event (``Station._handle``; events already waiting
share a transaction), and acts only after the commit. Card to prompt: from the shoe driver
putting a ``CardDrawn`` on the station's queue to the end of that event's handling (rows
committed to disk, panel commands sent).
"""

from __future__ import annotations

import contextlib
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from controller.journal import store
from controller.journal.store import Journal, JournalReader
from controller.simulation import runner
from controller.simulation.runner import SimulatedTable, SimulationSettings
from drivers.hal import CardDrawn

RECORD = {"seat": 3, "hand": 0, "role": "hit", "card": "7S"}


def _append_batches(path: Path, commits: int, rows: int) -> tuple[float, float]:
    """Append ``commits`` batches of ``rows`` rows each; wall seconds and this thread's CPU."""
    with Journal.open(path) as journal:
        wall, cpu = time.perf_counter(), time.thread_time()
        for n in range(commits):
            with journal.batch():
                for _ in range(rows):
                    journal.append("card", RECORD, round_no=n // 10)
        return time.perf_counter() - wall, time.thread_time() - cpu


def bench_event_commit(folder: Path, events: int, figures: dict[str, float]) -> None:
    """One device event's rows (three, as for a card with its payment) in one commit; and
    the writing thread's CPU for a row (formatting, hashing, SQLite) at 10 rows a commit, as
    in a round's busier events: what a Pi pays per row whatever its disk."""
    elapsed, _cpu = _append_batches(folder / "events.sqlite3", events, 3)
    print(f"event commit (3 rows, one transaction): {elapsed / events * 1000:.2f} ms mean")
    figures["event_commit_mean_ms"] = round(elapsed / events * 1000, 3)
    _wall, cpu = _append_batches(folder / "rows.sqlite3", events, 10)
    print(f"row CPU (10 rows a commit, this thread): {cpu / (events * 10) * 1e6:.1f} us")
    figures["row_cpu_us"] = round(cpu / (events * 10) * 1e6, 1)


@contextlib.contextmanager
def _instrumented(table: SimulatedTable) -> Iterator[dict[str, Any]]:
    """Count commits and time each card from the station's queue to its handled end."""
    seen: dict[str, Any] = {"commits": 0, "empty": 0, "last_id": 0, "latencies": [], "queued": {}}
    original_committed = store.Journal._committed
    original_drivers = runner.simulated_drivers

    def committed(self: store.Journal) -> None:
        # A commit that wrote no row (an event that changed nothing) writes no WAL frame
        # and syncs nothing: counted apart.
        if self.last_id != seen["last_id"]:
            seen["commits"] += 1
            seen["last_id"] = self.last_id
        else:
            seen["empty"] += 1
        original_committed(self)

    @contextlib.contextmanager
    def drivers(*args: Any, **kwargs: Any) -> Iterator[Any]:
        with original_drivers(*args, **kwargs) as drivers_for:

            class Timed:
                rig = drivers_for.rig

                def __call__(self, put: Callable[[Any], None]) -> Any:
                    def timed_put(event: Any) -> None:
                        if isinstance(event, CardDrawn):
                            seen["queued"][id(event)] = time.perf_counter()
                        put(event)

                    return drivers_for(timed_put)

            yield Timed()

    observe = table.pacer.observe

    def observed(event: Any, view: Any, queue_empty: bool) -> None:
        queued = seen["queued"].pop(id(event), None)
        if queued is not None:
            seen["latencies"].append(time.perf_counter() - queued)
        observe(event, view, queue_empty)

    store.Journal._committed = committed  # type: ignore[method-assign]
    runner.simulated_drivers = drivers
    table.pacer.observe = observed  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        store.Journal._committed = original_committed  # type: ignore[method-assign]
        runner.simulated_drivers = original_drivers


def bench_table(folder: Path, rounds: int, figures: dict[str, float]) -> None:
    """Rows and commits per round and card-to-prompt latency, journal on disk."""
    journal = folder / "table.sqlite3"
    table = SimulatedTable(
        SimulationSettings(profile="PA", seats=7, rounds=rounds, seed=11, journal=journal)
    )
    with _instrumented(table) as seen:
        result = table.run()
    with JournalReader.open(journal) as reader:
        rows = sum(1 for _ in reader.rows())
    played = max(result.rounds, 1)
    latencies = sorted(seen["latencies"])
    p50 = latencies[len(latencies) // 2] * 1000
    p99 = latencies[int(len(latencies) * 0.99)] * 1000
    print(
        f"simulated table, 7 seats, {result.rounds} rounds: {rows / played:.1f} rows and "
        f"{seen['commits'] / played:.1f} commits per round (and "
        f"{seen['empty'] / played:.1f} empty ones, nothing written)"
    )
    print(
        f"card to prompt ({len(latencies)} cards, journal on disk): p50 {p50:.2f} ms, "
        f"p99 {p99:.2f} ms, max {latencies[-1] * 1000:.2f} ms"
    )
    figures["rows_per_round"] = round(rows / played, 1)
    figures["commits_per_round"] = round(seen["commits"] / played, 1)
    figures["card_to_prompt_p50_ms"] = round(p50, 3)
    figures["card_to_prompt_p99_ms"] = round(p99, 3)


#: Where the benches that need a disk make their scratch folder unless ``--dir`` names
#: another: a disk by the filesystem hierarchy's rule (``/tmp`` may be a RAM disk), and not
#: the repository (a bench stopped by a signal it cannot catch would leave it there).
SCRATCH_DISK = Path("/var/tmp")


def end_on_signals() -> None:
    """SIGTERM and SIGHUP end the process as Ctrl-C does (SystemExit), so that its
    ``TemporaryDirectory`` is removed on the way out (bench/run_all.py's timeout kills)."""

    def leave(signum: int, _frame: object) -> None:
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, leave)
    signal.signal(signal.SIGHUP, leave)


def filesystem(path: Path) -> str:
    """The filesystem type ``path`` lives on (from /proc/mounts; "unknown" elsewhere)."""
    best, kind = "", "unknown"
    with contextlib.suppress(OSError), open("/proc/mounts", encoding="utf-8") as mounts:
        for line in mounts:
            parts = line.split()
            if (
                len(parts) > 2
                and str(path.resolve()).startswith(parts[1])
                and len(parts[1]) > len(best)
            ):
                best, kind = parts[1], parts[2]
    return kind
