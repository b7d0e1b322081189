"""Journal throughput: appends per second with synchronous=FULL, verify and recall speed.

Run: .venv/bin/python bench/journal_bench.py [--rows N] [--dir DIR]
Use --dir on the disk the station's journal lives on (an SD card is far slower than a
laptop SSD, and /tmp may be a RAM disk).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from controller.journal import Journal, JournalReader
from controller.journal_verify import verify
from controller.recall import recall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        path = Path(folder) / "journal.sqlite3"
        record = {"seat": 3, "hand": 0, "role": "hit", "card": "7S"}
        with Journal.open(path) as journal:
            start = time.perf_counter()
            for n in range(args.rows):
                journal.append("card", record, round_no=n // 40)
            elapsed = time.perf_counter() - start
        print(f"append (commit + head record, synchronous=FULL): {args.rows / elapsed:,.0f} rows/s")
        print(f"  mean latency: {elapsed / args.rows * 1000:.2f} ms per append")
        start = time.perf_counter()
        report = verify(path)
        elapsed = time.perf_counter() - start
        print(f"verify: {report.rows / elapsed:,.0f} rows/s ({report.case.value})")
        start = time.perf_counter()
        with JournalReader.open(path) as reader:
            recall(reader, 10)
        print(f"recall of the last 10 rounds: {(time.perf_counter() - start) * 1000:.1f} ms")
        # The same appends with the head record's fdatasync left out: SQLite's share.
        real_fdatasync = os.fdatasync
        os.fdatasync = lambda fd: None
        try:
            with Journal.open(Path(folder) / "nohead.sqlite3") as journal:
                start = time.perf_counter()
                for n in range(args.rows):
                    journal.append("card", record, round_no=n // 40)
                elapsed = time.perf_counter() - start
        finally:
            os.fdatasync = real_fdatasync
        print(f"append, head record not synced (SQLite alone): {args.rows / elapsed:,.0f} rows/s")
        print(f"(directory: {folder})")


if __name__ == "__main__":
    main()
