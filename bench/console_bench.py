"""Console benchmark: the floor console's queries at the size of a big floor.

A real PostgreSQL 15 (fsync on, ``floor.servers.Database(durable=True)``) with the floor's
schema, filled as ``--tables`` tables leave it 16 hours into a gaming day at a round a
minute each: a ``floor_table`` line each (a live status, posted limits), an open fault
alert on one table in a hundred, and the per-quarter-hour sums the database keeps
(``table_quarter``, 64 quarter hours a table: 960 rounds each); for the comparison, the
per-round lines the console of before read (``round_result``, 960 a table).

Figures (p50 / p99 over ``--runs`` runs each, on this machine):

- the live grid's read (``floor.queries.snapshot``: the grid, the alerts, the silent
  tables), and the bytes of a whole picture and of an update of the tables that change in
  a second (a round a minute: ``tables / 60``);
- the pit view (``floor.figures.period_figures`` and ``floor.figures.series``) for the
  gaming day, every table in ``--pits`` pits;
- the grid query of the console before this one, which summed ``round_result`` per table;
- what the figures' trigger (migration 0010) costs the collector: rows/s of
  ``floor.ingest.Ingest`` storing simulated rounds with and without it.

    .venv/bin/python bench/console_bench.py [--tables 2000] [--pits 20] [--runs 50]

The last line is ``FIGURES {json}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OLD_GRID = """
SELECT t.table_id, t.status, t.last_seen, t.quarantined, t.limits,
    (SELECT count(*) FROM round_result r WHERE r.table_id = t.table_id AND r.ended >= %s),
    (SELECT COALESCE(sum(house_cents), 0) FROM round_result r
       WHERE r.table_id = t.table_id AND r.ended >= %s),
    (SELECT count(*) FROM alert a WHERE a.table_id = t.table_id AND a.cleared IS NULL)
FROM floor_table t ORDER BY t.table_id
"""


def _fill(conn: Any, tables: list[str], day_start: datetime, now: datetime) -> None:
    status = json.dumps(
        {"state": "betting", "round": 960, "fault": None, "devices": {
            "shoe": "connected", "shuffler": "connected", "card_reader": "connected",
            "panel": "connected"}, "head": [100_000, "0" * 64], "acked": 100_000,
         "ts": now.isoformat()}
    )  # fmt: skip
    limits = json.dumps(
        {"main_min_cents": 1000, "main_max_cents": 500_000, "match_min_cents": 500,
         "match_max_cents": 10_000}
    )  # fmt: skip
    with conn.cursor() as cur:
        cur.execute(
            "INSERT INTO floor_table (table_id, status, last_seen, limits)"
            " SELECT t, %s::jsonb, %s, %s::jsonb FROM unnest(%s::text[]) AS t",
            (status, now, limits, tables),
        )
        cur.execute(
            "INSERT INTO alert (table_id, kind, message) SELECT t, 'fault',"
            " 'fault device_lost in deal' FROM unnest(%s::text[]) AS t",
            (tables[::100],),
        )
        # 64 quarter hours a table, 15 rounds each (a round a minute), 7 seats, $25 wagers.
        cur.execute(
            "INSERT INTO table_quarter (table_id, quarter, rounds, voids, seats, hands,"
            " handle_main, handle_match, handle_insurance, win_main, win_match, win_insurance,"
            " bonuses, bonus_cents, faults)"
            " SELECT t, %s + q * interval '15 minutes', 15, 0, 105, 112, 280000, 7500, 2500,"
            " (hashtext(t || q) %% 20000), 1500, 500, 1, 3750, 0"
            " FROM unnest(%s::text[]) AS t, generate_series(0, 63) AS q",
            (day_start, tables),
        )
        # What the console of before summed: a line per round.
        cur.execute(
            "INSERT INTO round_result (table_id, round, ended, status, house_cents)"
            " SELECT t, r, to_char((%s::timestamptz + r * interval '1 minute') AT TIME ZONE 'UTC',"
            " 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), 'completed', (hashtext(t || r) %% 5000)"
            " FROM unnest(%s::text[]) AS t, generate_series(1, 960) AS r",
            (day_start, tables),
        )
    conn.commit()
    conn.autocommit = True
    conn.execute("VACUUM ANALYZE")


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return (
        round(ordered[len(ordered) // 2] * 1000, 1),
        round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000, 1),
    )


async def _console_figures(conninfo: str, casino: Any, now: datetime, runs: int) -> dict[str, Any]:
    import psycopg

    from controller.journal.format import format_ts
    from floor import figures, queries

    out: dict[str, Any] = {}
    # As the console's own connections: no server-side prepared statements (floor.console).
    async with await psycopg.AsyncConnection.connect(
        conninfo, autocommit=True, prepare_threshold=None
    ) as conn:
        grid: list[float] = []
        data: dict[str, Any] = {}
        for _ in range(runs):
            started = time.perf_counter()
            data = await queries.snapshot(conn, casino, 30.0, now)
            grid.append(time.perf_counter() - started)
        out["grid_p50_ms"], out["grid_p99_ms"] = _percentiles(grid)
        whole = json.dumps({"full": True, "tables": data["tables"], "alerts": data["alerts"]})
        changed = data["tables"][: max(1, len(data["tables"]) // 60)]
        update = json.dumps({"full": False, "changed": changed, "removed": []})
        out["grid_full_kib"] = round(len(whole) / 1024, 1)
        out["grid_update_kib"] = round(len(update) / 1024, 1)
        day = casino.gaming_day(now)
        pit: list[float] = []
        for _ in range(runs):
            started = time.perf_counter()
            await figures.period_figures(conn, casino, day, now)
            await figures.series(conn, casino, day, now, by="pit")
            pit.append(time.perf_counter() - started)
        out["pit_p50_ms"], out["pit_p99_ms"] = _percentiles(pit)
        one: list[float] = []
        first_pit = next(iter(casino.pits))
        for _ in range(runs):
            started = time.perf_counter()
            await figures.period_figures(conn, casino, day, now, pit=first_pit)
            await figures.series(conn, casino, day, now, by="table", pit=first_pit)
            one.append(time.perf_counter() - started)
        out["one_pit_p50_ms"], out["one_pit_p99_ms"] = _percentiles(one)
        old: list[float] = []
        for _ in range(max(3, runs // 10)):
            started = time.perf_counter()
            since = format_ts(day.start)  # round_result.ended is the journal's text
            await (await conn.execute(OLD_GRID, (since, since))).fetchall()
            old.append(time.perf_counter() - started)
        out["old_grid_p50_ms"], out["old_grid_p99_ms"] = _percentiles(old)
    return out


def _own(rows: list[Any], table: str) -> list[Any]:
    """The rows as ``table``'s own (the floor refuses rows naming another table): its id
    in the start and seal rows, the chain hashed again (this floor holds no key)."""
    from controller.journal.format import GENESIS_HASH, Row, canonical_json, row_hash

    own, prev = [], GENESIS_HASH
    for r in rows:
        text = r.data_text
        if r.kind in ("station_started", "seal"):
            name = "table_id" if r.kind == "station_started" else "table"
            text = canonical_json({**json.loads(text), name: table})
        digest = row_hash(prev, row_id=r.id, ts=r.ts, kind=r.kind, round_no=r.round_no,
                          data_text=text)  # fmt: skip
        own.append(Row(r.id, r.ts, r.kind, r.round_no, text, prev, digest))
        prev = digest
    return own


def _ingest_rate(conninfo: str, source: Path, copies: int, trigger: bool) -> float:
    import psycopg

    from controller.journal.format import Row
    from controller.journal.storage import storage_of
    from floor.ingest import Ingest, Rows

    with sqlite3.connect(source) as src:
        rows = [Row(*r) for r in storage_of(src).raw_rows(0)]  # either storage format
    prefix = "W" if trigger else "N"
    copies_rows = {f"{prefix}{n:03d}": _own(rows, f"{prefix}{n:03d}") for n in range(copies)}
    with psycopg.connect(conninfo) as conn:
        state = "ENABLE" if trigger else "DISABLE"
        conn.execute(f"ALTER TABLE journal_entry {state} TRIGGER journal_entry_figures")
        conn.commit()
        ingest = Ingest(conn)
        started = time.perf_counter()
        for table, own in copies_rows.items():
            for first in range(0, len(own), 500):
                ingest.apply([Rows(table, own[first : first + 500])])
        elapsed = time.perf_counter() - started
        conn.execute("ALTER TABLE journal_entry ENABLE TRIGGER journal_entry_figures")
        conn.commit()
    return len(rows) * copies / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--pits", type=int, default=20)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--ingest-copies", type=int, default=10)
    args = parser.parse_args()

    import psycopg

    from floor.casino import Casino
    from floor.schema import migrate
    from floor.servers import Database, remove

    tables = [f"PA-S21-{n:04d}" for n in range(args.tables)]
    per_pit = max(1, len(tables) // args.pits)
    pits = {
        f"Pit {p + 1}": tuple(tables[p * per_pit : (p + 1) * per_pit]) for p in range(args.pits)
    }
    casino = Casino("America/New_York", pits=pits)
    day = casino.gaming_day(datetime(2026, 12, 1, 18, tzinfo=UTC))
    now = day.start + timedelta(hours=16)
    work = Path(tempfile.mkdtemp(prefix="console-bench-"))
    database = Database(durable=True)
    database.start()
    try:
        with psycopg.connect(database.conninfo) as conn:
            migrate(conn)
            _fill(conn, tables, day.start, now)
        figures = asyncio.run(_console_figures(database.conninfo, casino, now, args.runs))
        source = work / "source.sqlite3"
        subprocess.run(
            [sys.executable, "-m", "controller.cli.main", "simulate", "--plain", "--rounds",
             "20", "--seed", "2026", "--journal", str(source)],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
        )  # fmt: skip
        without = _ingest_rate(database.conninfo, source, args.ingest_copies, trigger=False)
        with_trigger = _ingest_rate(database.conninfo, source, args.ingest_copies, trigger=True)
    finally:
        database.stop()
        remove(database)
        shutil.rmtree(work, ignore_errors=True)
    figures.update(
        {
            "tables": args.tables,
            "pits": args.pits,
            "quarter_lines": args.tables * 64,
            "ingest_rows_per_s_without_trigger": round(without),
            "ingest_rows_per_s_with_trigger": round(with_trigger),
        }
    )
    print(
        f"{args.tables} tables, 16 h into the gaming day ({args.tables * 64} quarter-hour lines,"
        f" {args.tables * 960} rounds)"
    )
    print(
        "live grid read: p50 {grid_p50_ms} ms, p99 {grid_p99_ms} ms; a whole picture"
        " {grid_full_kib} KiB, a second's update {grid_update_kib} KiB".format(**figures)
    )
    print(
        "pit view, gaming day, every table: p50 {pit_p50_ms} ms, p99 {pit_p99_ms} ms;"
        " one pit: p50 {one_pit_p50_ms} ms, p99 {one_pit_p99_ms} ms".format(**figures)
    )
    print(
        "the grid query of before (every round of each table): p50 {old_grid_p50_ms} ms,"
        " p99 {old_grid_p99_ms} ms".format(**figures)
    )
    print(
        "ingest (floor.ingest, simulated rounds): {ingest_rows_per_s_without_trigger} rows/s"
        " without the figures' trigger, {ingest_rows_per_s_with_trigger} with it".format(**figures)
    )
    print("FIGURES " + json.dumps(figures))


if __name__ == "__main__":
    main()
