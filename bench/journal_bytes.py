"""Where a round's journal bytes go, and what a round writes to the storage.

Run: .venv/bin/python bench/journal_bytes.py [--rounds N] [--dir DIR] [--format 1|2]

``--format 2``: every journal the bench makes is storage format 2 (a commit a row,
docs/journal.md "Storage format 2"); the columns and kinds are listed for format 1 only.

1. **The file.** A simulated busy table (PA, seven seats, seed 2026: the calls
   ``bench/journal_round.py`` records, which the Raspberry Pi image's SD-card bench replays
   too) is journaled;
   the file is measured with SQLite's ``dbstat`` (the pages of the table and of each
   index), and the rows by kind: how many a round, their stored bytes (columns as SQLite
   keeps them), and how much of the data is field names.
2. **The archive.** The same journal written into archive segments
   (``controller.journal.archive``, as ``journal archive`` does; here one segment for all
   the rounds, as a day's segment holds a day): its bytes a round.
3. **The writes.** The recorded calls are written again into a fresh sealed journal on
   ``--dir`` (a disk, not tmpfs) in a child process: its ``/proc/self/io`` ``write_bytes``
   (every page the process dirtied: WAL frames, the database at SQLite's checkpoints, the
   head record, the sealing key's replacement) and, under ``strace -c`` when it is
   installed, its ``fsync``/``fdatasync`` calls, a round. The Raspberry Pi image's SD-card
   bench replays the same calls onto an ext4 loop device and counts what
   reaches the device (ext4's own journal included), so the two figures are of the same
   rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from journal_round import Call, record_calls, replay
from journal_table import SCRATCH_DISK, end_on_signals

#: Rounds a busy table plays in a day and a year: a round a minute, 16 hours a day.
ROUNDS_A_DAY = 60 * 16
ROUNDS_A_YEAR = ROUNDS_A_DAY * 365


def _varint_size(value: int) -> int:
    """Bytes SQLite's record format gives an integer column (its serial type's size)."""
    if value in (0, 1):
        return 0
    for size, limit in ((1, 1 << 7), (2, 1 << 15), (3, 1 << 23), (4, 1 << 31), (6, 1 << 47)):
        if -limit <= value < limit:
            return size
    return 8


def file_breakdown(path: Path, figures: dict[str, Any]) -> None:
    """Print where the bytes of the journal at ``path`` go (see the module docstring)."""
    from controller.journal.storage import storage_of

    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        storage = storage_of(conn)
        rows = storage.count()
        rounds = max(len(list(storage.rows(kinds=["round_completed", "round_voided"]))), 1)
        pages = dict(conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"))
        total = sum(pages.values())
        columns: Counter[str] = Counter()
        by_kind: Counter[str] = Counter()
        kind_bytes: Counter[str] = Counter()
        names = 0
        query = "SELECT id, ts, kind, round, data, prev_hash, hash FROM journal"
        for row_id, ts, kind, round_no, data, prev_hash, digest in (
            conn.execute(query) if storage.version == 1 else ()
        ):
            sizes = {
                "id": _varint_size(row_id),
                "ts": len(ts),
                "kind": len(kind),
                "round": 0 if round_no is None else _varint_size(round_no),
                "data": len(data),
                "prev_hash": len(prev_hash),
                "hash": len(digest),
            }
            columns.update(sizes)
            by_kind[kind] += 1
            kind_bytes[kind] += sum(sizes.values())
            names += sum(len(name) + 3 for name in json.loads(data))  # "name":
    finally:
        conn.close()
    print(
        f"file: {total / rounds:,.0f} bytes a round ({rows / rounds:.1f} rows a round,"
        f" storage format {storage.version})"
    )
    for name, size in sorted(pages.items(), key=lambda item: -item[1]):
        print(f"  {name:24s} {size / rounds:8,.0f} bytes a round ({100 * size / total:4.1f}%)")
    figures["file_bytes_per_round"] = round(total / rounds)
    figures["rows_per_round"] = round(rows / rounds, 1)
    figures["file_bytes_per_year_gb"] = round(total / rounds * ROUNDS_A_YEAR / 1e9, 2)
    figures["storage_format"] = storage.version
    stored = sum(columns.values())
    if not stored:
        return
    print(f"columns (as stored, no page overhead): {stored / rounds:,.0f} bytes a round")
    for name, size in columns.most_common():
        print(f"  {name:10s} {size / rounds:8,.0f} bytes a round ({100 * size / stored:4.1f}%)")
    print(f"  of data, field names: {names / rounds:,.0f} bytes a round")
    print("kinds (rows a round, stored bytes a round):")
    for kind, count in by_kind.most_common():
        share = 100 * kind_bytes[kind] / stored
        per_round = kind_bytes[kind] / rounds
        print(f"  {kind:28s} {count / rounds:6.2f} {per_round:8,.0f} ({share:4.1f}%)")


def archive_bytes(path: Path, folder: Path, figures: dict[str, Any]) -> None:
    """Archive the journal at ``path`` into ``folder``; print its bytes a round."""
    from controller.journal.anchor import latest_anchor
    from controller.journal.archive import archive, read_header
    from controller.journal.reader import JournalReader

    with JournalReader.open(path) as reader:
        anchor = reader.query(latest_anchor)
        rows = reader.storage.count()
    assert anchor is not None, "the recorded journal is sealed"
    written = archive(path, folder, table=anchor.table, segment_rows=max(rows * 9 // 10, 1))
    size = sum(p.stat().st_size for p in written)
    last = read_header(written[-1]).last
    with JournalReader.open(path) as reader:
        ends = reader.rows(kinds=["round_completed", "round_voided"], until_id=last)
        rounds = max(len(list(ends)), 1)
    print(
        f"archive: {size / rounds:,.0f} bytes a round ({rounds} rounds, rows 1..{last},"
        f" {len(written)} segment), {size / rounds * ROUNDS_A_YEAR / 1e9:,.2f} GB a year"
    )
    figures["archive_bytes_per_round"] = round(size / rounds)
    figures["archive_gb_per_year"] = round(size / rounds * ROUNDS_A_YEAR / 1e9, 3)


def _write_counters() -> dict[str, int]:
    text = Path("/proc/self/io").read_text()
    return {k: int(v) for k, v in (line.split(": ") for line in text.splitlines())}


def replay_child(calls_file: Path, folder: Path) -> None:
    """In the child: replay the calls, print the ``/proc/self/io`` deltas as JSON."""
    with calls_file.open("rb") as f:
        calls: list[Call] = pickle.load(f)  # written by this script's parent
    before = _write_counters()
    replay(folder, calls)
    after = _write_counters()
    print(json.dumps({k: after[k] - before[k] for k in after}))


def bench_writes(folder: Path, calls: list[Call], rounds: int, figures: dict[str, Any]) -> None:
    """What the replayed rounds write (see the module docstring)."""
    calls_file = folder / "calls.pickle"
    with calls_file.open("wb") as f:
        pickle.dump(calls, f)
    scratch = folder / "replay"
    scratch.mkdir()
    from controller.journal import creation

    command = [sys.executable, __file__, "--replay", str(calls_file), str(scratch)]
    command += ["--format", str(creation.DEFAULT_FORMAT)]
    trace = folder / "strace.txt"
    strace = shutil.which("strace")
    if strace:
        command = [strace, "-f", "-c", "-e", "trace=fsync,fdatasync", "-o", str(trace), *command]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    counters = json.loads(done.stdout.strip().splitlines()[-1])
    per_round = counters["write_bytes"] / rounds
    print(
        f"writes: {per_round:,.0f} bytes a round (/proc/self/io write_bytes, {rounds} rounds"
        f" replayed, sealed), {per_round * ROUNDS_A_DAY / 1e6:,.0f} MB a day,"
        f" {per_round * ROUNDS_A_YEAR / 1e9:,.1f} GB a year ({ROUNDS_A_DAY} rounds a day)"
    )
    figures["write_bytes_per_round"] = round(per_round)
    figures["write_gb_per_year"] = round(per_round * ROUNDS_A_YEAR / 1e9, 2)
    if strace:
        syncs = 0
        for line in trace.read_text().splitlines():
            parts = line.split()
            if parts and parts[-1] in ("fsync", "fdatasync"):
                syncs += int(parts[3])
        print(f"  fsync + fdatasync: {syncs / rounds:.1f} a round")
        figures["syncs_per_round"] = round(syncs / rounds, 1)
    else:
        print("  fsync + fdatasync: not counted (no strace on this machine)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="simulated rounds")
    parser.add_argument(
        "--dir", type=Path, default=SCRATCH_DISK, help=f"a directory on disk ({SCRATCH_DISK})"
    )
    parser.add_argument("--replay", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--format", type=int, choices=(1, 2), default=1, help="the journals' storage format"
    )
    args = parser.parse_args()
    end_on_signals()
    from controller.journal import creation

    creation.DEFAULT_FORMAT = args.format
    if args.replay:
        replay_child(*args.replay)
        return
    from controller.service.logs import configure_logging

    configure_logging(level="error", form="console", stream=sys.stderr)
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="journal-bytes-", dir=args.dir) as name:
        folder = Path(name)
        calls, rounds = record_calls(folder, args.rounds)
        print(f"{rounds} rounds, PA, 7 seats, seed 2026; load average {os.getloadavg()[0]:.1f}")
        file_breakdown(folder / "recorded.sqlite3", figures)
        archive_bytes(folder / "recorded.sqlite3", folder / "archive", figures)
        bench_writes(folder, calls, rounds, figures)
    print("FIGURES " + json.dumps(figures))


if __name__ == "__main__":
    main()
