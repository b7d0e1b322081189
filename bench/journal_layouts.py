"""What a compact storage of the live journal (storage format 2, ``controller.journal.compact``)
would keep and write a round, measured before the writer changes.

Run: nice .venv/bin/python bench/journal_layouts.py [--rounds N] [--dir DIR]
     [--write-dictionaries]

A simulated busy table (PA, seven seats, seed 2026: the calls ``bench/journal_round.py``
records, as ``bench/journal_bytes.py``) is journaled as today (format 1). Its rows are then
stored again in candidate layouts of one SQLite table each, every row as the writer would
store it (``ts`` as integer microseconds, ``kind`` as a small integer, ``data`` deflated
with its kind's dictionary, no ``prev_hash`` column), differing in what is kept of the
chain hash (a 32-byte BLOB every row, every 32nd row, none) and in the page size. For each:

1. **bytes a round** in the file (SQLite's ``dbstat``), beside the target (< 4,500);
2. **written a round** (``/proc/self/io`` ``write_bytes`` of this process while the rows are
   written again on ``--dir``, a disk, in the station's transactions: one commit a device
   event, WAL, ``synchronous=FULL``, the seal in the commit of a round's end); format 1 is
   measured the same way, so that the figures compare;
3. **CPU a row** to encode (timestamp, data) and to decode, and that every row reads back
   exactly (its canonical text, its timestamp text; the chain hash computed again equals
   the stored one).

``--write-dictionaries`` builds the kinds' preset dictionaries from the first quarter of
the simulated rows (``controller.journal.compact.build_dictionary``) and writes
``controller/journal/dictionaries.json``; the measurement then uses them on the other
three quarters (rows a dictionary was built from would flatter it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from journal_round import Call, record_calls
from journal_table import SCRATCH_DISK, end_on_signals

from controller.journal.compact import (
    CommitCodec,
    DataCodec,
    build_dictionary,
    micros_from_ts,
    ts_from_micros,
)
from controller.journal.dictionaries import (
    DICTIONARIES_PATH,
    commit_dictionary,
    load_dictionaries,
)
from controller.journal.format import COLUMNS, Row, row_hash
from controller.journal.schema import SCHEMA

TARGET = 4500
#: (name, hash kept: "every" | "sampled" | "none", page size, with the count index, ts
#: from the file's first row instead of from 1970: 6 bytes instead of 8 for 4.4 years)
LAYOUTS: list[tuple[str, str, int, bool, bool]] = [
    ("v2, hash every row, 4 KiB pages", "every", 4096, False, False),
    ("v2, no hash, 4 KiB pages", "none", 4096, False, False),
    ("v2, no hash, count index, 4 KiB", "none", 4096, True, False),
    ("v2, no hash, 1 KiB pages", "none", 1024, False, False),
    ("v2, no hash, 1 KiB, ts from base", "none", 1024, False, True),
    ("v2, hash every 32nd, 1 KiB, base", "sampled", 1024, False, True),
    ("v2, hash every 32nd, 4 KiB, base", "sampled", 4096, False, True),
]
SAMPLED_EVERY = 32
#: The simulated rounds are played in seconds from row 1: stored as they are, their ids,
#: round numbers and times are smaller integers (fewer bytes in SQLite's record) than a
#: journal late in a busy year holds. Every layout stores them as that journal would: ids
#: past 40 million, rounds past 300,000 (a year: 45 million rows, 350,400 rounds), times
#: in 2026 (or, from a base, 2^40 us = 12.7 days after the file's first row).
LATE_ID = 40_000_000
LATE_ROUND = 300_000
LATE_TS = 1 << 40


def figure_key(label: str) -> str:
    """A layout's label as the stem of its FIGURES keys: ``v1 (today), 4 KiB pages`` ->
    ``v1_today_4_kib_pages``."""
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


def _write_bytes() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    return 0


def commits_of(rows: list[Row], calls: list[Call]) -> list[list[Row]]:
    """The rows grouped as the station committed them: a batch or an append a commit, the
    seal and checkpoint rows the journal adds in the commit of the row before them."""
    commits: list[list[Row]] = []
    at = 0
    for what, call in calls:
        count = len(call) if what == "batch" else 1
        commit = rows[at : at + count]
        at += count
        while at < len(rows) and rows[at].kind in ("seal", "verified"):
            commit.append(rows[at])
            at += 1
        if commit:
            commits.append(commit)
    if at < len(rows):
        commits.append(rows[at:])
    return commits


def _late(round_no: int | None) -> int | None:
    return None if round_no is None else round_no + LATE_ROUND


def _v1_store(conn: sqlite3.Connection, count_index: bool = True) -> Callable[[list[Row]], None]:
    for statement in SCHEMA.split(";\n"):
        if statement.strip() and (count_index or "journal_count" not in statement):
            conn.execute(statement)
    insert = f"INSERT INTO journal ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"

    def store(commit: list[Row]) -> None:
        conn.executemany(
            insert,
            [
                (r.id + LATE_ID, r.ts, r.kind, _late(r.round_no), r.data_text, r.prev_hash, r.hash)
                for r in commit
            ],
        )

    return store


def _v2_store(
    conn: sqlite3.Connection,
    keep: str,
    count_index: bool,
    ts_base: int | None,
    codecs: dict[str, DataCodec],
) -> Callable[[list[Row]], None]:
    conn.execute(
        "CREATE TABLE kinds (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
        " dictionary BLOB NOT NULL) STRICT"
    )
    conn.execute(
        "CREATE TABLE journal2 (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL,"
        " kind INTEGER NOT NULL, round INTEGER, data BLOB NOT NULL, hash BLOB) STRICT"
    )
    if count_index:
        conn.execute("CREATE INDEX journal2_count ON journal2 (0)")
    kind_ids: dict[str, int] = {}

    def store(commit: list[Row]) -> None:
        values = []
        for r in commit:
            kind = kind_ids.get(r.kind)
            if kind is None:
                kind = kind_ids[r.kind] = len(kind_ids) + 1
                conn.execute(
                    "INSERT INTO kinds VALUES (?, ?, ?)", (kind, r.kind, codecs[r.kind].dictionary)
                )
            digest = None
            if keep == "every" or (keep == "sampled" and r.id % SAMPLED_EVERY == 0):
                digest = bytes.fromhex(r.hash)
            data = codecs[r.kind].encode(r.data_text)
            ts = micros_from_ts(r.ts) - (ts_base or 0)
            values.append((r.id + LATE_ID, ts, kind, _late(r.round_no), data, digest))
        conn.executemany("INSERT INTO journal2 VALUES (?, ?, ?, ?, ?, ?)", values)

    return store


def _commit_store(
    conn: sqlite3.Connection, codec: CommitCodec, keep_hash: bool
) -> Callable[[list[Row]], None]:
    """A row of SQLite a commit (``CommitCodec``), the last row's hash beside it."""
    conn.execute(
        "CREATE TABLE journal3 (first INTEGER PRIMARY KEY, rows BLOB NOT NULL, hash BLOB) STRICT"
    )

    def store(commit: list[Row]) -> None:
        body = codec.encode([(r.ts, r.kind, _late(r.round_no), r.data_text) for r in commit])
        digest = bytes.fromhex(commit[-1].hash) if keep_hash else None
        conn.execute(
            "INSERT INTO journal3 VALUES (?, ?, ?)", (commit[0].id + LATE_ID, body, digest)
        )

    return store


def measure_layout(
    folder: Path, name: str, commits: list[list[Row]], rounds: int, make: Callable[..., Any]
) -> tuple[int, int]:
    """Write ``commits`` into a fresh file with the store ``make`` returns; (file bytes a
    round by ``dbstat``, written bytes a round)."""
    path = folder / f"{len(list(folder.iterdir()))}.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        page = int(name.rsplit(" ", 1)[-1]) if name.endswith(("1024", "4096")) else 4096
        conn.execute(f"PRAGMA page_size={page}")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("BEGIN")
        store = make(conn)
        conn.execute("COMMIT")
        before = _write_bytes()
        for commit in commits:
            conn.execute("BEGIN IMMEDIATE")
            store(commit)
            conn.execute("COMMIT")
        written = _write_bytes() - before
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (size,) = conn.execute("SELECT sum(pgsize) FROM dbstat").fetchone()
    finally:
        conn.close()
    return round(size / rounds), round(written / rounds)


def codec_cpu(rows: list[Row], codecs: dict[str, DataCodec]) -> tuple[float, float]:
    """Microseconds a row to encode and to decode (timestamp and data); every row checked
    to read back exactly and to hash as stored."""
    start = time.process_time()
    stored = [(micros_from_ts(r.ts), codecs[r.kind].encode(r.data_text)) for r in rows]
    encoded = time.process_time()
    back = [
        (ts_from_micros(micros), codecs[r.kind].decode(data, row_id=r.id))
        for r, (micros, data) in zip(rows, stored, strict=True)
    ]
    decoded = time.process_time()
    prev = rows[0].prev_hash
    for r, (ts, text) in zip(rows, back, strict=True):
        assert (ts, text) == (r.ts, r.data_text), f"row {r.id} does not read back exactly"
        digest = row_hash(
            prev, row_id=r.id, ts=ts, kind=r.kind, round_no=r.round_no, data_text=text
        )
        assert digest == r.hash, f"row {r.id} hashes differently read back"
        prev = digest
    return (encoded - start) / len(rows) * 1e6, (decoded - encoded) / len(rows) * 1e6


def commit_cpu(commits: list[list[Row]], codec: CommitCodec) -> tuple[float, float]:
    """Microseconds a row to store a commit's rows (``CommitCodec``) and to read them back;
    every row checked to read back exactly."""
    rows = sum(len(commit) for commit in commits)
    start = time.process_time()
    bodies = [
        (commit[0].id, codec.encode([(r.ts, r.kind, r.round_no, r.data_text) for r in commit]))
        for commit in commits
    ]
    encoded = time.process_time()
    back = [row for first, body in bodies for row in codec.decode(body, first_id=first)]
    decoded = time.process_time()
    flat = [(r.ts, r.kind, r.round_no, r.data_text) for commit in commits for r in commit]
    assert back == flat, "a commit does not read back exactly"
    return (encoded - start) / rows * 1e6, (decoded - encoded) / rows * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="simulated rounds")
    parser.add_argument(
        "--dir", type=Path, default=SCRATCH_DISK, help=f"a directory on disk ({SCRATCH_DISK})"
    )
    parser.add_argument("--write-dictionaries", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    end_on_signals()
    from controller.service.logs import configure_logging

    configure_logging(level="error", form="console", stream=sys.stderr)
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="journal-layouts-", dir=args.dir) as name:
        folder = Path(name)
        calls, rounds = record_calls(folder, args.rounds)
        conn = sqlite3.connect(folder / "recorded.sqlite3")
        from controller.journal.storage import storage_of

        rows = list(storage_of(conn).rows())  # either storage format
        conn.close()
        trained = len(rows) // 4
        if args.write_dictionaries:
            samples: dict[str, list[str]] = {}
            for r in rows[:trained]:
                samples.setdefault(r.kind, []).append(r.data_text)
            built = {
                kind: build_dictionary(texts[-60:]).decode() for kind, texts in samples.items()
            }
            DICTIONARIES_PATH.write_text(json.dumps(built, indent=1, sort_keys=True) + "\n")
            print(f"wrote {DICTIONARIES_PATH} ({len(built)} kinds)")
        dictionaries = load_dictionaries()
        codecs = {r.kind: DataCodec(dictionaries.get(r.kind, b"")) for r in rows}
        # The rounds after the dictionaries' samples (measured on rows they were not built from).
        start, later_calls = calls_after(calls, rows, trained)
        measured = rows[start:]
        measured_rounds = max(
            sum(1 for r in measured if r.kind in ("round_completed", "round_voided")), 1
        )
        commits = commits_of(measured, later_calls)
        print(
            f"{rounds} rounds, PA, 7 seats, seed 2026; measured on the last {measured_rounds}"
            f" ({len(measured) / measured_rounds:.1f} rows a round,"
            f" {len(commits) / measured_rounds:.1f} commits a round);"
            f" load average {os.getloadavg()[0]:.1f}"
        )
        results = [
            (
                "v1 (today), 4 KiB pages",
                *measure_layout(folder, "v1 4096", commits, measured_rounds, _v1_store),
            )
        ]
        for label, page, count_index in (
            ("v1, 1 KiB pages", 1024, True),
            ("v1, no count index, 4 KiB", 4096, False),
            ("v1, no count index, 1 KiB", 1024, False),
        ):

            def make_v1(conn: sqlite3.Connection, count: bool = count_index) -> Any:
                return _v1_store(conn, count)

            results.append(
                (label, *measure_layout(folder, f"v1 {page}", commits, measured_rounds, make_v1))
            )
        base = micros_from_ts(rows[0].ts) - LATE_TS
        for label, keep, page, count_index, from_base in LAYOUTS:

            def make(
                conn: sqlite3.Connection,
                keep: str = keep,
                count: bool = count_index,
                ts_base: int | None = base if from_base else None,
            ) -> Any:
                return _v2_store(conn, keep, count, ts_base, codecs)

            results.append(
                (label, *measure_layout(folder, f"v2 {page}", commits, measured_rounds, make))
            )
        commit_codec = CommitCodec(commit_dictionary(), base)
        for keep_hash, page in ((False, 4096), (True, 4096), (True, 1024)):

            def make_commits(conn: sqlite3.Connection, keep: bool = keep_hash) -> Any:
                return _commit_store(conn, commit_codec, keep)

            label = f"commit blocks, {'last hash' if keep_hash else 'no hash'}, {page // 1024} KiB"
            results.append(
                (
                    label,
                    *measure_layout(folder, f"v3 {page}", commits, measured_rounds, make_commits),
                )
            )
        print(
            f"{'layout':36s} {'file a round':>13s} {'written a round':>16s}   (target < {TARGET:,})"
        )
        for label, size, written in results:
            verdict = "meets" if size < TARGET else "misses"
            print(f"{label:36s} {size:13,d} {written:16,d}   {verdict}")
            figures[f"{figure_key(label)}_file"] = size
            figures[f"{figure_key(label)}_writes"] = written
        encode_us, decode_us = codec_cpu(measured, codecs)
        print(
            f"codec: {encode_us:.1f} us a row to encode, {decode_us:.1f} us to decode"
            f" (timestamp and data; every row read back exactly and hashed as stored)"
        )
        block_encode, block_decode = commit_cpu(commits, commit_codec)
        print(
            f"commit blocks: {block_encode:.1f} us a row to encode, {block_decode:.1f} us to"
            " decode (a commit's rows as one text, split again)"
        )
        figures["block_encode_us_per_row"] = round(block_encode, 2)
        figures["block_decode_us_per_row"] = round(block_decode, 2)
        figures["encode_us_per_row"] = round(encode_us, 2)
        figures["decode_us_per_row"] = round(decode_us, 2)
    print("FIGURES " + json.dumps(figures))


def calls_after(calls: list[Call], rows: list[Row], first: int) -> tuple[int, list[Call]]:
    """The index of the first row of the first call that begins at or after row index
    ``first``, and the calls from it on (a call's rows are consecutive, seals and
    checkpoints aside)."""
    at, start, kept = 0, len(rows), []
    for what, call in calls:
        while at < len(rows) and rows[at].kind in ("seal", "verified"):
            at += 1
        if at >= first:
            start = min(start, at)
            kept.append((what, call))
        at += len(call) if what == "batch" else 1
    return start, kept


if __name__ == "__main__":
    main()
