"""Journal cost: appends with synchronous=FULL, commits per round, card-to-prompt latency,
verify and recall speed.

Run: .venv/bin/python bench/journal_bench.py [--rows N] [--rounds N] [--verify-rows N] [--dir DIR]

Everything is written on disk with fsync (``--dir``, default the current directory; the
filesystem is printed, and a tmpfs is refused: an SD card is far slower than this disk, and
a RAM disk would hide the fsync). The table figures come from the simulated table of
``dealer-station simulate`` (real daemon, drivers and transports, 7 seats): rows and commits
per round (the station commits once per device event, ``Station._handle``), and the
card-to-prompt time: from the shoe driver putting a ``CardDrawn`` on the station's queue to
the end of that event's handling (rows committed to disk, panel commands sent).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from controller.journal import store
from controller.journal.recall import recall
from controller.journal.store import GENESIS_HASH, Journal, JournalReader, canonical_json, row_hash
from controller.journal.verify import verify
from controller.service.logs import configure_logging
from controller.simulation import runner
from controller.simulation.runner import SimulatedTable, SimulationSettings
from drivers.hal import CardDrawn

RECORD = {"seat": 3, "hand": 0, "role": "hit", "card": "7S"}


def bench_appends(folder: Path, rows: int, figures: dict[str, float]) -> None:
    with Journal.open(folder / "journal.sqlite3") as journal:
        start = time.perf_counter()
        for n in range(rows):
            journal.append("card", RECORD, round_no=n // 40)
        elapsed = time.perf_counter() - start
    print(f"append (each committed, synchronous=FULL): {rows / elapsed:,.0f} rows/s")
    print(f"  mean latency: {elapsed / rows * 1000:.2f} ms per append")
    figures["append_rows_per_s"] = round(rows / elapsed, 1)
    figures["append_mean_ms"] = round(elapsed / rows * 1000, 3)


def bench_event_commit(folder: Path, events: int, figures: dict[str, float]) -> None:
    """One device event's rows (three, as for a card with its payment) in one commit."""
    with Journal.open(folder / "events.sqlite3") as journal:
        start = time.perf_counter()
        for n in range(events):
            with journal.batch():
                for _ in range(3):
                    journal.append("card", RECORD, round_no=n // 10)
        elapsed = time.perf_counter() - start
    print(f"event commit (3 rows, one transaction): {elapsed / events * 1000:.2f} ms mean")
    figures["event_commit_mean_ms"] = round(elapsed / events * 1000, 3)


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
    runner.simulated_drivers = drivers  # type: ignore[assignment]
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


def build_large(path: Path, rows: int) -> None:
    """A valid journal of ``rows`` rows written in one transaction (fast to build)."""
    Journal.open(path).close()
    conn = sqlite3.connect(path)
    prev, data = GENESIS_HASH, canonical_json(RECORD)
    batch = []
    for row_id in range(1, rows + 1):
        ts, round_no = f"2026-11-30T09:00:00.{row_id % 1000000:06d}Z", row_id // 40
        digest = row_hash(
            prev, row_id=row_id, ts=ts, kind="card", round_no=round_no, data_text=data
        )
        batch.append((row_id, ts, "card", round_no, data, prev, digest))
        prev = digest
    conn.executemany("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, ?)", batch)
    conn.commit()
    conn.close()
    head = path.with_name(path.name + "-head")
    head.write_text(canonical_json({"id": rows, "hash": prev}).ljust(127) + "\n")


def bench_reading(folder: Path, rows: int, figures: dict[str, float]) -> None:
    path = folder / "large.sqlite3"
    build_large(path, rows)
    start = time.perf_counter()
    report = verify(path)
    elapsed = time.perf_counter() - start
    print(f"verify, full ({rows:,} rows): {elapsed:.2f} s, {rows / elapsed:,.0f} rows/s")
    figures["verify_s"] = round(elapsed, 3)
    figures["verify_rows_per_s"] = round(rows / elapsed)
    assert report.ok, report.message
    start = time.perf_counter()
    assert verify(path, tail=2000).ok
    tail_ms = (time.perf_counter() - start) * 1000
    print(f"verify --tail 2000 ({rows:,} rows): {tail_ms:.0f} ms")
    figures["verify_tail_2000_ms"] = round(tail_ms, 1)
    start = time.perf_counter()
    with JournalReader.open(path) as reader:
        recall(reader, 10)
    recall_ms = (time.perf_counter() - start) * 1000
    print(f"recall of the last 10 rounds: {recall_ms:.1f} ms")
    figures["recall_10_rounds_ms"] = round(recall_ms, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=2000, help="appends to time")
    parser.add_argument("--verify-rows", type=int, default=200_000, help="journal size to read")
    parser.add_argument("--rounds", type=int, default=200, help="simulated table rounds")
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="a directory on disk")
    args = parser.parse_args()
    kind = filesystem(args.dir)
    if kind in ("tmpfs", "ramfs"):
        parser.error(f"{args.dir} is on {kind}: the journal's figures need a disk (fsync)")
    configure_logging(level="error", form="console", stream=sys.stderr)
    print(f"journal on disk: {args.dir} ({kind}), load average {os.getloadavg()[0]:.1f}")
    figures: dict[str, float] = {"rows": args.rows, "verify_rows": args.verify_rows}
    with tempfile.TemporaryDirectory(prefix="journal-bench-", dir=args.dir) as folder:
        bench_appends(Path(folder), args.rows, figures)
        bench_event_commit(Path(folder), max(args.rows // 3, 1), figures)
        bench_table(Path(folder), args.rounds, figures)
        bench_reading(Path(folder), args.verify_rows, figures)
    # One machine-readable line for bench/run_all.py.
    print("FIGURES " + json.dumps(figures))


if __name__ == "__main__":
    main()
