"""A busy table's year, archived, and ``journal verify-archive --key`` of it.

Run: nice .venv/bin/python bench/journal_year.py [--days N] [--cache DIR] [--workers N]

The year is a round a minute, 16 hours a day, 365 days (350,400 rounds, about 46 million
rows): the rounds of a simulated table (PA, seven seats, seed 2026: the rows between its
rounds too) copied over and over with their rounds renumbered and their times moved to a
round a minute, each round's end sealed with the evolving key as a station seals it, a
sealed checkpoint every 2,000 rows as a running station writes one, cut into a segment a
day by the archive's own writer (``controller.journal.archive``). It is built once and
kept in ``--cache`` (default ``~/.cache/dealer-station-bench``, outside the repository:
about 600 MB; a build stopped part way goes on from its last whole day), then verified
with the key over the cores. Prints the archive's bytes a round and the check's wall
time, its CPU time (the workers') and its rate a core.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from controller.journal.archive import (
    Header,
    read_header,
    segments,
    verify_archive,
    write_segment,
)
from controller.journal.checkpoint import CHECKPOINT_ROWS, checkpoint_data
from controller.journal.format import (
    GENESIS_HASH,
    Row,
    canonical_json,
    format_ts,
    plain_row_hash,
)
from controller.journal.ranges import cores
from controller.journal.seal import SealingState, VerificationKey, new_sealing

ROUNDS_A_DAY = 60 * 16
#: The year's first round: 08:00 UTC.
START = datetime(2026, 1, 1, 8, 0, tzinfo=UTC)
FORMAT_NOTE = "v1"  # the cache's name changes when the way it is built does


def template(folder: Path) -> list[list[Row]]:
    """The simulated table's rows, grouped by round (each group: the rows before the
    round's start since the last round ended, then the round's own up to its end)."""
    from journal_bench import template_rounds

    rows = template_rounds(folder)
    groups: list[list[Row]] = [[]]
    for row in rows:
        groups[-1].append(row)
        if row.kind in ("round_completed", "round_voided"):
            groups.append([])
    return [g for g in groups if any(r.kind == "round_started" for r in g)]


class _Year:
    """The year's chain as it is made: ids, hashes, the key, the next checkpoint."""

    def __init__(self, state: SealingState) -> None:
        self.state = state
        self.row_id, self.prev = 0, GENESIS_HASH
        self.checkpointed = 0
        self.rows: list[Row] = []
        self.seals = 0

    def add(self, ts: str, kind: str, round_no: int | None, data: str) -> None:
        self.row_id += 1
        digest = plain_row_hash(
            self.prev, row_id=self.row_id, ts=ts, kind=kind, round_no=round_no, data_text=data
        )
        self.rows.append(Row(self.row_id, ts, kind, round_no, data, self.prev, digest))
        self.prev = digest

    def seal(self, ts: str) -> None:
        if self.row_id - self.checkpointed >= CHECKPOINT_ROWS:
            data = checkpoint_data(self.row_id + 1, ts, self.prev, schema=9, sealing=self.state)
            self.add(ts, "verified", None, canonical_json(data))
            self.checkpointed = self.row_id
        self.add(ts, "seal", None, canonical_json(self.state.seal(self.row_id, self.prev, ts)))
        self.state = self.state.evolved()
        self.seals += 1


#: Written after each day's segment while the year is built, so that a build stopped
#: part way goes on from its last whole day at the next run (a year takes over an hour).
PROGRESS = "progress.json"


def build(folder: Path, days: int) -> tuple[VerificationKey, int]:
    """Write the year's segments into ``folder``; its verification key and rounds. Goes
    on from :data:`PROGRESS` when an earlier run stopped part way."""
    with tempfile.TemporaryDirectory(prefix="journal-year-") as scratch:
        groups = template(Path(scratch))
    saved = folder / PROGRESS
    if saved.is_file():
        was = json.loads(saved.read_text())
        key = VerificationKey.from_text(was["key"])
        year = _Year(SealingState.from_json(was["state"]))
        year.row_id, year.prev, year.checkpointed = was["row"], was["prev"], was["checkpointed"]
        prev_segment, epoch, round_no, begin = year.prev, was["epoch"], was["round"], was["day"]
        for path in segments(folder):  # a segment written after the progress was saved
            if read_header(path).first > year.row_id:
                path.unlink()
    else:
        state, key = new_sealing("BENCH")
        # The station's first start: its checkpoint before any seal.
        year = _Year(state)
        first = format_ts(START)
        year.add(first, "verified", None, canonical_json(
            checkpoint_data(1, first, GENESIS_HASH, schema=9, sealing=state)
        ))  # fmt: skip
        year.checkpointed = 1
        prev_segment, epoch, round_no, begin = GENESIS_HASH, 0, 0, 0
    for day in range(begin, days):
        for minute in range(ROUNDS_A_DAY):
            round_no += 1
            group = groups[round_no % len(groups)]
            moment = START + timedelta(days=day, minutes=minute)
            step = 45.0 / len(group)  # the round's rows over 45 s of its minute
            for n, row in enumerate(group):
                ts = format_ts(moment + timedelta(seconds=n * step))
                number = None if row.round_no is None else round_no
                data = row.data_text
                if row.kind == "round_started":
                    data = canonical_json({**row.data, "round": round_no})
                year.add(ts, row.kind, number, data)
            year.seal(format_ts(moment + timedelta(seconds=46)))
        rows = year.rows
        header = Header(
            "BENCH", rows[0].id, rows[-1].id, len(rows), prev_segment, rows[-1].hash,
            (epoch, year.seals), (),
        )  # fmt: skip
        write_segment(folder, header, rows)
        prev_segment, epoch, year.rows, year.seals = rows[-1].hash, epoch + year.seals, [], 0
        progress = {
            "key": key.to_text(),
            "state": year.state.to_json(),
            "row": year.row_id,
            "prev": year.prev,
            "checkpointed": year.checkpointed,
            "epoch": epoch,
            "round": round_no,
            "day": day + 1,
        }
        tmp = saved.with_suffix(".tmp")
        tmp.write_text(json.dumps(progress))
        os.replace(tmp, saved)
        print(f"\rbuilt day {day + 1} of {days}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    saved.unlink(missing_ok=True)
    return key, round_no


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument(
        "--cache", type=Path, default=Path.home() / ".cache" / "dealer-station-bench"
    )
    parser.add_argument("--workers", type=int, default=cores())
    args = parser.parse_args()
    from controller.service.logs import configure_logging

    configure_logging(level="error", form="console", stream=sys.stderr)
    folder = args.cache / f"table-year-{FORMAT_NOTE}-{args.days}d"
    meta = folder / "bench.json"
    if not meta.is_file():
        if not (folder / PROGRESS).is_file():  # nothing to go on from
            shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
        began = time.perf_counter()
        key, rounds = build(folder, args.days)
        meta.write_text(json.dumps({"key": key.to_text(), "rounds": rounds}))
        print(f"built in {time.perf_counter() - began:.0f} s: {folder}")
    info = json.loads(meta.read_text())
    key = VerificationKey.from_text(info["key"])
    rounds = info["rounds"]
    size = sum(p.stat().st_size for p in segments(folder))
    load = os.getloadavg()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_self = time.process_time()
    began = time.perf_counter()
    report = verify_archive(folder, key, workers=args.workers)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) + (
        time.process_time() - cpu_self
    )
    assert report.ok, report.message
    figures: dict[str, Any] = {
        "year_days": args.days,
        "year_rounds": rounds,
        "year_rows": report.rows,
        "archive_bytes_per_round": round(size / rounds),
        "archive_gb_per_year": round(size / args.days * 365 / 1e9, 3),
        "verify_archive_key_s": round(wall, 1),
        "verify_archive_cpu_s": round(cpu, 1),
        "verify_rows_per_cpu_s": round(report.rows / cpu),
        "verify_year_s_two_idle_cores": round(
            report.rows * 365 / args.days / (2 * report.rows / cpu), 1
        ),
        "workers": args.workers,
        "load_average_before": round(load[0], 1),
    }
    print(report.message)
    print(
        f"{args.days} days, {rounds:,} rounds, {report.rows:,} rows: archive {size / 1e6:,.0f} MB"
        f" ({size / rounds:,.0f} bytes a round); verify-archive --key: {wall:.1f} s wall,"
        f" {cpu:.1f} s CPU ({report.rows / cpu:,.0f} rows a CPU second) with {args.workers}"
        f" workers, load average {load[0]:.1f} before"
    )
    print("FIGURES " + json.dumps(figures))


if __name__ == "__main__":
    main()
