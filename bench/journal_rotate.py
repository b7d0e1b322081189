"""The live journal under nightly rotation (docs/journal.md, "Rotation"): its size after
each night, the time and the storage writes of a rotation of a busy day.

Run: nice .venv/bin/python bench/journal_rotate.py [--days N] [--rounds-a-day N]
[--format 1|2] [--dir DIR]

A simulated busy table's journal calls (PA, seven seats: ``bench/journal_round.py``'s
recording, each event's rows in one commit) are written day after day into a sealed
journal on ``--dir`` (a disk), the rounds renumbered so each day plays new ones; a running
station's checkpoints every 2,000 rows are the writer's own. Each night, as the timer does:
``journal archive`` (segments of a day) and ``journal rotate`` with the station's sealing
state. Printed a night: the rows live and the live file's size after the rotation, the
rotation's time (wall clock, this machine, nice'd) and the bytes it wrote
(``/proc/self/io`` ``write_bytes`` of this process over the rotation, the new file and its
sync), and the segment's size. The live file's size after a year is the size after any
night once it is steady: a rotation keeps the rows since the last segment's end, whatever
the age of the journal (the arithmetic is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from journal_round import Call, record_calls
from journal_table import SCRATCH_DISK

from controller.journal.archive import SEGMENT_ROWS, archive, segments
from controller.journal.rotate import NothingToRotateError, rotate_journal
from controller.journal.seal import load_state, new_sealing, save_state
from controller.journal.store import Journal
from controller.service.daemon import WAGER_SPOTS
from controller.service.logs import configure_logging

ROUNDS_A_DAY = 60 * 16  # a round a minute, 16 hours a day
POOL_ROUNDS = 120  # simulated once, replayed with new round numbers


def _written_bytes() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    return 0


def _renumbered(data: dict[str, Any], round_no: int | None, offset: int) -> tuple[Any, Any]:
    if round_no is None:
        return data, None
    if "round" in data:
        data = {**data, "round": data["round"] + offset}
    return data, round_no + offset


def play_day(journal: Journal, calls: list[Call], pool: int, rounds: int, first: int) -> None:
    """``rounds`` rounds from the recorded calls, round numbers from ``first`` on."""
    played = 0
    offset = first - 1
    while True:
        for what, value in calls:
            rows = value if what == "batch" else [value]
            with journal.batch():
                for kind, data, round_no in rows:
                    journal.append(kind, *_renumbered(data, round_no, offset))
            played += sum(kind == "round_completed" for kind, _d, _r in rows)
            if played >= rounds:
                return
        offset += pool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=3)
    parser.add_argument("--rounds-a-day", type=int, default=ROUNDS_A_DAY)
    parser.add_argument("--format", type=int, choices=(1, 2), default=2)
    parser.add_argument("--dir", type=Path, default=SCRATCH_DISK)
    parser.add_argument("--segment-rows", type=int, default=SEGMENT_ROWS)
    parser.add_argument("--pool-rounds", type=int, default=POOL_ROUNDS)
    args = parser.parse_args()
    # The station's log lines (the rig's links, its devices) are not figures: errors
    # only, on stderr, so stdout is the report docs/performance.md shows.
    configure_logging(level="error", form="console", stream=sys.stderr)
    figures: dict[str, Any] = {
        "format": args.format,
        "rounds_a_day": args.rounds_a_day,
        "live_bytes_after": None,
        "live_bytes_max": 0,
        "rotation_s": None,
        "rotation_written_bytes": None,
        "archive_bytes_per_day": None,
    }
    folder = Path(tempfile.mkdtemp(prefix="journal-rotate-", dir=args.dir))
    try:
        (folder / "record").mkdir()
        calls, pool = record_calls(folder / "record", args.pool_rounds)
        state, _key = new_sealing("T1")
        key_file = folder / "sealing-key"
        save_state(key_file, state)
        path = folder / "journal.sqlite3"
        archive_dir = folder / "archive"
        first = 1
        print(
            f"format {args.format}, {args.rounds_a_day} rounds a day, {args.days} days;"
            f" {pool} simulated rounds replayed"
        )
        for day in range(1, args.days + 1):
            began = time.perf_counter()
            with Journal.open(path, sealing=key_file, storage_format=args.format) as journal:
                play_day(journal, calls, pool, args.rounds_a_day, first)
            first += args.rounds_a_day
            wrote = time.perf_counter() - began
            size_before = path.stat().st_size
            began = time.perf_counter()
            figures["live_bytes_max"] = max(figures["live_bytes_max"], size_before)
            new = archive(path, archive_dir, table="T1", segment_rows=args.segment_rows)
            archived = time.perf_counter() - began
            written = _written_bytes()
            began = time.perf_counter()
            try:
                done = rotate_journal(
                    path,
                    archive_dir,
                    wager_spots=WAGER_SPOTS,
                    floor_acked=None,
                    sealing=load_state(key_file),
                )
            except NothingToRotateError as why:
                print(f"night {day}: {why}")
                continue
            took = time.perf_counter() - began
            written = _written_bytes() - written
            segment = sum(p.stat().st_size for p in new)
            figures.update(
                live_bytes_after=path.stat().st_size,
                rotation_s=round(took, 2),
                rotation_written_bytes=written,
            )
            print(
                f"night {day}: day written in {wrote:.1f} s; live file {size_before:,} bytes"
                f" before, {path.stat().st_size:,} after ({done.live_rows:,} rows live,"
                f" {done.cut_rows:,} cut); archive {archived:.2f} s, segment {segment:,}"
                f" bytes; rotation {took:.2f} s, {written:,} bytes written"
            )
        total = sum(p.stat().st_size for p in segments(archive_dir))
        print(
            f"steady: the live file after a night holds the rows since the end of the last"
            f" segment before the shoe in progress; a year is 365 such nights: live file"
            f" {path.stat().st_size:,} bytes, archive"
            f" {total / args.days * 365 / 1e9:.2f} GB a year ({total / args.days:,.0f} bytes a day)"
        )
        figures["archive_bytes_per_day"] = round(total / args.days)
        print("FIGURES " + json.dumps(figures))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    os.nice(0)
    main()
