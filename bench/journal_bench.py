"""Journal throughput: appends per second with synchronous=FULL, the cost of sealing, verify
and recall speed, and the daemon's start on a journal of a million rows.

Run: .venv/bin/python bench/journal_bench.py [--rows N] [--verify-rows N] [--format 1|2]
     [--start-rows N] [--rounds N] [--dir DIR]

0. The table's side (``bench/journal_table.py``): one device event's rows in one commit; the
   simulated table's rows and commits per round and card-to-prompt p50/p99, journal on disk
   (``--dir`` must not be a tmpfs: a RAM disk would hide the fsync).

0b. The journal's own CPU a round (``bench/journal_round.py``): a simulated table's journal
   calls written again into fresh sealed journals, on tmpfs and on ``--dir``, with how often
   a commit runs SQLite's WAL checkpoint and how long that commit takes.

1. Appends, each committed (``synchronous=FULL``); then the same with a sealing state, where
   every 40th row is a ``round_completed`` followed by its seal row and the key file's
   replacement (temporary file, fsync, rename, directory fsync): the mean latency of such
   an append against a plain one is the cost of a seal.
2. ``verify`` (full and ``--tail``) on a journal of ``--verify-rows`` rows.
3. Start-up on ``--start-rows`` rows (default 1,000,000): a realistic journal (copies of a
   simulated table's rounds, renumbered, chain recomputed, sealed after each round) is
   built, then the daemon (``dealer-station run --simulated-devices``) is started on it
   twice: the first start hashes every row (no checkpoint yet), the second only the rows
   since the first start's ``verified`` checkpoint, as every start after it. Both are
   timed to READY=1. The restore's read and ``recall`` of the last 10 rounds are timed on
   it (real rounds: recall finds them by their starts), then ``verify --key`` proves every
   seal of it.

Use --dir on the disk the station's journal lives on (an SD card is far slower than a
laptop SSD, and /tmp may be a RAM disk).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from daemon_start import start_to_ready, station_toml
from journal_round import bench_round_cpu
from journal_table import (
    SCRATCH_DISK,
    bench_event_commit,
    bench_table,
    end_on_signals,
    filesystem,
)

from controller.journal import creation
from controller.journal.checkpoint import checkpoint_data
from controller.journal.migrate import migrate_journal
from controller.journal.recall import recall
from controller.journal.seal import VerificationKey, new_sealing, save_state
from controller.journal.store import (
    GENESIS_HASH,
    Journal,
    JournalReader,
    Row,
    canonical_json,
    head_path,
    row_hash,
)
from controller.journal.verify import verify
from controller.service.daemon import WAGER_SPOTS, open_journal
from controller.service.logs import configure_logging
from controller.simulation.runner import SimulatedTable, SimulationSettings
from controller.table.recovery import read_journal

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


def bench_sealing(folder: Path, rows: int, figures: dict[str, float]) -> None:
    """Appends with a sealing state: every 40th is a round's end, sealed at once."""
    state, _ = new_sealing("BENCH")
    key_file = folder / "sealing-key"
    save_state(key_file, state)
    plain: list[float] = []
    sealing: list[float] = []
    with Journal.open(folder / "sealed.sqlite3", sealing=key_file) as journal:
        for n in range(1, rows + 1):
            round_end = n % 40 == 0
            start = time.perf_counter()
            if round_end:
                journal.append("round_completed", {"reshuffle": False}, round_no=n // 40)
            else:
                journal.append("card", RECORD, round_no=n // 40)
            (sealing if round_end else plain).append(time.perf_counter() - start)
    plain_ms = sum(plain) / len(plain) * 1000
    seal_ms = sum(sealing) / max(len(sealing), 1) * 1000
    print(
        f"append with sealing: plain row {plain_ms:.2f} ms, round end + seal row + key file"
        f" {seal_ms:.2f} ms ({len(sealing)} seals): a seal costs {seal_ms - plain_ms:.2f} ms"
    )
    figures["plain_append_ms"] = round(plain_ms, 3)
    figures["sealed_append_ms"] = round(seal_ms, 3)
    figures["seal_cost_ms"] = round(seal_ms - plain_ms, 3)


def template_rounds(folder: Path) -> list[Row]:
    """A simulated table's rows (7 seats, 30 rounds, PA), without the start and stop rows."""
    configure_logging(level="warning")  # the simulated table's state lines are not figures
    path = folder / "template.sqlite3"
    settings = SimulationSettings(profile="PA", seats=7, rounds=30, seed=2026, journal=path)
    SimulatedTable(settings).run()
    skip = {"seal", "verified", "station_started", "clean_shutdown", "recovered"}
    with JournalReader.open(path) as reader:
        rows = [row for row in reader.rows() if row.kind not in skip]
    last_end = max(i for i, row in enumerate(rows) if row.kind == "round_completed")
    return rows[: last_end + 1]


def build_realistic(path: Path, key_file: Path, rows: int, template: list[Row]) -> int:
    """About ``rows`` rows: copies of ``template`` with rounds renumbered, sealed after each
    round; returns the row count. The sealing state for the next epoch goes to ``key_file``.
    Written as storage format 1 (its table, in bulk), then migrated when the bench runs
    format 2 (``journal migrate``, as a station's journal gets there)."""
    Journal.open(path, storage_format=1).close()
    state, key = new_sealing("BENCH")
    rounds = max(row.round_no or 0 for row in template)
    conn = sqlite3.connect(path)
    prev, row_id, copy = GENESIS_HASH, 0, 0
    batch: list[tuple[object, ...]] = []

    def add(ts: str, kind: str, round_no: int | None, data: str) -> None:
        nonlocal prev, row_id
        row_id += 1
        digest = row_hash(prev, row_id=row_id, ts=ts, kind=kind, round_no=round_no, data_text=data)
        batch.append((row_id, ts, kind, round_no, data, prev, digest))
        prev = digest

    # The first start's checkpoint, sealed with the state's checkpoint key, as a station
    # writes it before its first seal (controller.journal.checkpoint).
    (schema,) = conn.execute("PRAGMA schema_version").fetchone()
    first_ts = template[0].ts
    checkpoint = checkpoint_data(1, first_ts, GENESIS_HASH, schema=schema, sealing=state)
    add(first_ts, "verified", None, canonical_json(checkpoint))

    while row_id < rows:
        for row in template:
            round_no = None if row.round_no is None else row.round_no + copy * rounds
            data = row.data_text
            if row.kind == "round_started":
                data = canonical_json({**row.data, "round": round_no})
            add(row.ts, row.kind, round_no, data)
            if row.kind == "round_completed":
                add(row.ts, "seal", None, canonical_json(state.seal(row_id, prev, row.ts)))
                state = state.evolved()
        copy += 1
        conn.executemany("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, ?)", batch)
        batch.clear()
    conn.commit()
    conn.close()
    head_path(path).write_text(canonical_json({"id": row_id, "hash": prev}).ljust(127) + "\n")
    save_state(key_file, state)
    (path.parent / "verification-key").write_text(key.to_text())
    _to_default_format(path)
    return row_id


def _to_default_format(path: Path) -> None:
    """Migrate a bulk-built format-1 journal when the bench runs storage format 2."""
    if creation.DEFAULT_FORMAT == 2:
        migrate_journal(path)


def bench_start(folder: Path, rows: int, figures: dict[str, float]) -> None:
    """The daemon's start on a journal of ``rows`` rows (see the module docstring)."""
    template = template_rounds(folder)
    path, key_file = folder / "year.sqlite3", folder / "year-sealing-key"
    start = time.perf_counter()
    count = build_realistic(path, key_file, rows, template)
    print(f"built a journal of {count:,} rows in {time.perf_counter() - start:.0f} s")
    start = time.perf_counter()
    open_journal(path, key_file).close()  # the first start: every row hashed once
    first = time.perf_counter() - start
    start = time.perf_counter()
    with JournalReader.open(path) as reader:
        read_journal(reader.rows_for_restore(WAGER_SPOTS))
    restore_ms = (time.perf_counter() - start) * 1000
    # Recall reads rounds by their starts: timed here, on real rounds (the reading bench's
    # journal is card rows without round starts, which recall would read whole).
    start = time.perf_counter()
    with JournalReader.open(path) as reader:
        recalled = recall(reader, 10)
    recall_ms = (time.perf_counter() - start) * 1000
    rounds = len(recalled["rounds"])
    assert rounds == 10, f"recall gave {rounds} rounds, not 10"
    config = station_toml(folder, path)
    config.write_text(
        config.read_text().replace("/var/lib/dealer-station/sealing-key", str(key_file))
    )
    ready = [start_to_ready(config, folder)[0] for _ in range(3)]
    ready.sort()
    print(f"first start's check ({count:,} rows, no checkpoint yet): {first:.1f} s")
    print(f"restore from the journal ({count:,} rows): {restore_ms:.0f} ms")
    print(f"recall of the last 10 rounds ({count:,} rows): {recall_ms:.1f} ms")
    print(f"start to READY on {count:,} rows (from a checkpoint): median {ready[1]:.3f} s")
    figures["start_rows"] = count
    figures["first_check_s"] = round(first, 2)
    figures["restore_ms"] = round(restore_ms, 1)
    figures["recall_10_rounds_ms"] = round(recall_ms, 1)
    figures["start_ready_s"] = round(ready[1], 3)
    key = VerificationKey.from_text((folder / "verification-key").read_text())
    start = time.perf_counter()
    report = verify(path, key=key)
    elapsed = time.perf_counter() - start
    assert report.ok, report.message
    print(f"verify --key ({count:,} rows): {elapsed:.1f} s; {report.message}")
    figures["verify_key_s"] = round(elapsed, 2)


def build_large(path: Path, rows: int) -> None:
    """A valid journal of ``rows`` rows written in one transaction (fast to build; format 1,
    then migrated when the bench runs format 2)."""
    Journal.open(path, storage_format=1).close()
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
    _to_default_format(path)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=2000, help="appends to time")
    parser.add_argument("--verify-rows", type=int, default=200_000, help="journal size to read")
    parser.add_argument(
        "--start-rows", type=int, default=1_000_000, help="journal size for the start-up"
    )
    parser.add_argument("--rounds", type=int, default=200, help="simulated table rounds")
    parser.add_argument(
        "--dir", type=Path, default=SCRATCH_DISK, help=f"a directory on disk ({SCRATCH_DISK})"
    )
    parser.add_argument(
        "--format",
        type=int,
        choices=(1, 2),
        default=creation.DEFAULT_FORMAT,
        help=f"the journals' storage format (default: a new journal's, {creation.DEFAULT_FORMAT})",
    )
    args = parser.parse_args()
    creation.DEFAULT_FORMAT = args.format
    end_on_signals()
    kind = filesystem(args.dir)
    if kind in ("tmpfs", "ramfs"):
        parser.error(f"{args.dir} is on {kind}: the journal's figures need a disk (fsync)")
    configure_logging(level="error", form="console", stream=sys.stderr)
    print(f"journal on disk: {args.dir} ({kind}), load average {os.getloadavg()[0]:.1f}")
    figures: dict[str, float] = {
        "rows": args.rows,
        "verify_rows": args.verify_rows,
        "storage_format": args.format,
    }
    with tempfile.TemporaryDirectory(prefix="journal-bench-", dir=args.dir) as folder:
        bench_appends(Path(folder), args.rows, figures)
        bench_event_commit(Path(folder), max(args.rows // 3, 1), figures)
        bench_table(Path(folder), args.rounds, figures)
        bench_round_cpu(Path(folder), args.rounds, figures)
        bench_sealing(Path(folder), args.rows, figures)
        bench_reading(Path(folder), args.verify_rows, figures)
        bench_start(Path(folder), args.start_rows, figures)
        print(f"(directory: {folder})")
    # One machine-readable line for bench/run_all.py.
    print("FIGURES " + json.dumps(figures))


if __name__ == "__main__":
    main()
