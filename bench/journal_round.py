"""The journal's own CPU a round, as the station thread pays it (the station thread's share): a
simulated table's journal calls (7 seats, PA: each event's rows in one ``Journal.batch``,
the few appends outside one) are recorded once, then written again into fresh journals,
sealed, with nothing else running in the thread: the thread's CPU per round is the
journal's alone (row checks, canonical JSON, timestamps, chain hashes, seals and the key
file, SQLite's inserts and commits, the head record). Also: how often a commit runs
SQLite's WAL checkpoint (1000 pages) inside the station's commit, and how long that
commit takes. Called by ``bench/journal_bench.py`` (run that); on tmpfs and on the
``--dir`` disk.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from controller.journal import store
from controller.journal.seal import new_sealing, save_state
from controller.journal.store import Journal
from controller.simulation.runner import SimulatedTable, SimulationSettings

Call = tuple[str, Any]  # ("batch", [(kind, data, round)]) or ("append", (kind, data, round))
#: Offset of the WAL header's checkpoint sequence number, which a WAL restart (the first
#: write after a checkpoint) changes.
_WAL_SEQUENCE = 12


def record_calls(folder: Path, rounds: int) -> tuple[list[Call], int]:
    """A simulated table's journal calls over ``rounds`` rounds, and the rounds played."""
    calls: list[Call] = []
    open_batch: list[list[tuple[str, dict[str, Any], int | None]]] = []
    batch, append = store.Journal.batch, store.Journal.append

    @contextlib.contextmanager
    def recorded_batch(self: Journal) -> Iterator[None]:
        open_batch.append([])
        try:
            with batch(self):
                yield
        finally:
            calls.append(("batch", open_batch.pop()))

    def recorded_append(
        self: Journal, kind: str, data: Mapping[str, Any], round_no: int | None = None
    ) -> int:
        row = (kind, dict(data), round_no)
        if open_batch:
            open_batch[-1].append(row)
        else:
            calls.append(("append", row))
        return append(self, kind, data, round_no)

    store.Journal.batch = recorded_batch  # type: ignore[method-assign]
    store.Journal.append = recorded_append  # type: ignore[method-assign]
    try:
        settings = SimulationSettings(
            profile="PA", seats=7, rounds=rounds, seed=2026, journal=folder / "recorded.sqlite3"
        )
        played = SimulatedTable(settings).run().rounds
    finally:
        store.Journal.batch = batch  # type: ignore[method-assign]
        store.Journal.append = append  # type: ignore[method-assign]
    return calls, max(played, 1)


def replay(folder: Path, calls: list[Call]) -> tuple[float, list[float], list[float]]:
    """Write ``calls`` into a fresh sealed journal in ``folder``: the thread's CPU seconds,
    and the wall seconds of the commits that ran a checkpoint and of the others."""
    key = folder / "replay-sealing-key"
    save_state(key, new_sealing("BENCH")[0])
    path = folder / "replay.sqlite3"
    walls: list[float] = []
    checkpointed: set[int] = set()
    sequence: bytes | None = None
    cpu = 0.0
    with Journal.open(path, sealing=key) as journal:
        wal = os.open(path.with_name(path.name + "-wal"), os.O_RDONLY)
        try:
            for what, rows in calls:
                wall, start = time.perf_counter(), time.thread_time()
                if what == "batch":
                    with journal.batch():
                        for kind, data, round_no in rows:
                            journal.append(kind, data, round_no)
                else:
                    journal.append(*rows)
                cpu += time.thread_time() - start
                walls.append(time.perf_counter() - wall)
                # The commit that ran a checkpoint is the one before the WAL restarts.
                now = os.pread(wal, 4, _WAL_SEQUENCE)
                if sequence is not None and now != sequence and len(walls) > 1:
                    checkpointed.add(len(walls) - 2)
                sequence = now
        finally:
            os.close(wal)
    ran = [w for i, w in enumerate(walls) if i in checkpointed]
    others = [w for i, w in enumerate(walls) if i not in checkpointed]
    return cpu, ran, others


def bench_round_cpu(folder: Path, rounds: int, figures: dict[str, float]) -> None:
    """The journal's CPU a round on tmpfs (as in bench/hil_throughput.py) and on ``folder``."""
    calls, played = record_calls(folder, rounds)
    places = [("tmpfs", Path("/dev/shm"))] if Path("/dev/shm").is_dir() else []
    for name, place in [*places, ("disk", folder)]:
        best: tuple[float, list[float], list[float]] | None = None
        for _ in range(3):  # the least CPU of three: the machine is shared
            with tempfile.TemporaryDirectory(dir=place) as scratch:
                result = replay(Path(scratch), calls)
            best = result if best is None or result[0] < best[0] else best
        assert best is not None
        cpu, ran, others = best
        others.sort()
        print(
            f"journal alone, {name}: {cpu / played * 1000:.2f} ms CPU a round ({played} rounds"
            f" of a simulated table's batches, sealed; least of 3); checkpoints in a commit:"
            f" {len(ran) / played:.2f} a round, {max(ran, default=0) * 1000:.2f} ms at most"
            f" (other commits p50 {others[len(others) // 2] * 1000:.2f} ms, p99"
            f" {others[len(others) * 99 // 100] * 1000:.2f} ms)"
        )
        figures[f"journal_cpu_round_ms_{name}"] = round(cpu / played * 1000, 3)
        figures[f"checkpoints_per_round_{name}"] = round(len(ran) / played, 3)
        figures[f"checkpoint_commit_max_ms_{name}"] = round(max(ran, default=0) * 1000, 2)
