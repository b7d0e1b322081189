"""Journal throughput: appends per second with synchronous=FULL, and verify and recall speed.

Run: .venv/bin/python bench/journal_bench.py [--rows N] [--verify-rows N] [--dir DIR]
Use --dir on the disk the station's journal lives on (an SD card is far slower than a
laptop SSD, and /tmp may be a RAM disk).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from pathlib import Path

from controller.journal.recall import recall
from controller.journal.store import GENESIS_HASH, Journal, JournalReader, canonical_json, row_hash
from controller.journal.verify import verify

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
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    figures: dict[str, float] = {"rows": args.rows, "verify_rows": args.verify_rows}
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        bench_appends(Path(folder), args.rows, figures)
        bench_reading(Path(folder), args.verify_rows, figures)
        print(f"(directory: {folder})")
    # One machine-readable line for bench/run_all.py.
    print("FIGURES " + json.dumps(figures))


if __name__ == "__main__":
    main()
