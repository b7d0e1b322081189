"""Floor benchmark: N stations -> one mosquitto -> collector(s) -> one PostgreSQL.

Real parts throughout: journals from a real simulation (``dealer-station simulate``), each
station's copy written again under its own table id and sealing key by the journal's own
writer, the station's real shipper (``controller.service.shipper``), the real broker from
the shipped configuration (TLS, passwords, ACL), ``dealer-station floor collect`` processes
holding every table's verification key (each round merged once its seal checks; with
``--unsealed`` the floor holds no key and merges row by row) and PostgreSQL with its
default durability (fsync on), all from ``floor.servers``. The stations run in worker
processes (a station is a journal and its shipper; in the live phase also a writer).

1. Catch-up (throughput): every station holds a journal of ``--rounds`` simulated rounds
   and ships it at once; figures: rows/s ingested, collector CPU per 1,000 rows, database
   bytes per row.
2. Live (lag): ``--live-stations`` empty journals, each appended a round at a time (the
   rows of a simulated round, one commit per round) every ``--round-seconds``; figures:
   lag p50/p99 from a round's last row committed in the journal (its ``ts``) to its row
   stored in the database (``stored``), when the round becomes shippable.

    .venv/bin/python bench/floor_bench.py [--stations 200] [--rounds 20]
        [--live-stations 200] [--round-seconds 6] [--live-seconds 30] [--collectors 1]
        [--unsealed]

The last line is ``FIGURES {json}`` (bench/run_all.py).
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, LiteralString

if TYPE_CHECKING:
    import psycopg

ROOT = Path(__file__).resolve().parents[1]
ROWS_PER_ROUND_DAY = 60 * 16  # a busy table: a round a minute, 16 hours a day
_POSTGRES_UID = pwd.getpwnam("postgres").pw_uid


def _clock_ticks(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _postgres_ticks() -> float:
    total = 0.0
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if proc.stat().st_uid == _POSTGRES_UID:
                    total += _clock_ticks(int(proc.name))
            except (OSError, ValueError, IndexError):
                continue  # the process ended meanwhile
    return total


def _relabel(source: Path, journal: Path, table: str, sealing: Path | None) -> str | None:
    """``source``'s records written again as station ``table``'s own journal (its own
    ``station_started`` table id, its own seals with a fresh sealing state at ``sealing``);
    the table's verification key as text (None without ``sealing``)."""
    from controller.journal.store import Journal

    key = _new_key(table, sealing)
    with Journal.open(journal, sealing=sealing) as station, station.batch():
        for kind, data, round_no in _records(source):
            station.append(kind, _own(kind, data, table), round_no)
    return key


def _new_key(table: str, sealing: Path | None) -> str | None:
    from controller.journal.seal import new_sealing, save_state

    if sealing is None:
        return None
    state, key = new_sealing(table)
    save_state(sealing, state)
    return key.to_text()


def _records(source: Path) -> list[tuple[str, Any, int | None]]:
    """The source journal's records, without the rows its journal wrote itself."""
    from controller.journal.reader import JournalReader

    with JournalReader.open(source) as reader:
        return [
            (r.kind, r.data, r.round_no)
            for r in reader.rows()
            if r.kind not in ("seal", "verified")
        ]


def _own(kind: str, data: Any, table: str) -> Any:
    return {**data, "table_id": table} if kind == "station_started" else data


def _simulate(journal: Path, rounds: int) -> None:
    subprocess.run(
        [sys.executable, "-m", "controller.cli.main", "simulate", "--plain", "--rounds",
         str(rounds), "--seed", "2026", "--journal", str(journal)],
        check=True, stdout=subprocess.DEVNULL, cwd=ROOT,
    )  # fmt: skip


# --- the station worker (a child process) ---------------------------------------------------


def worker(spec: dict[str, Any]) -> None:
    """Run the stations of ``spec`` until every row is acknowledged (live: after writing)."""
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    from controller.journal.reader import JournalReader
    from controller.journal.store import Journal
    from controller.service.config_floor import FloorSettings
    from controller.service.shipper import Shipper

    def settings(table: str) -> FloorSettings:
        return FloorSettings(
            "127.0.0.1", spec["port"], table, Path(spec["passwords"]) / f"{table}.password",
            Path(spec["ca"]), batch_rows=spec["batch_rows"], ack_timeout=30.0,
        )  # fmt: skip

    journals = {t: Path(p) for t, p in spec["journals"].items()}
    shippers = {t: Shipper(j, t, settings(t)) for t, j in journals.items()}
    writers: list[threading.Thread] = []
    if spec["live"]:
        # Seal and checkpoint rows are the source journal's own: each live journal seals
        # its own rounds with its own sealing state (when the floor holds the keys).
        rows = _records(Path(spec["source"]))
        rounds: list[list[tuple[str, Any, int | None]]] = [[]]
        for row in rows:
            rounds[-1].append(row)
            if row[0] == "round_completed":
                rounds.append([])
        stop_at = time.monotonic() + spec["live_seconds"]

        def write(table: str, journal: Path, offset: float) -> None:
            sealing = spec["sealing"].get(table)
            with Journal.open(journal, sealing=Path(sealing) if sealing else None) as station:
                next_at = time.monotonic() + offset
                for block in rounds:
                    time.sleep(max(0.0, next_at - time.monotonic()))  # the table's pace
                    if time.monotonic() >= stop_at:
                        return
                    with station.batch():
                        for kind, data, round_no in block:
                            station.append(kind, _own(kind, data, table), round_no)
                    next_at += spec["round_seconds"]

        for n, (table, journal) in enumerate(journals.items()):
            offset = spec["round_seconds"] * n / max(1, len(journals))  # tables not in step
            writers.append(threading.Thread(target=write, args=(table, journal, offset)))
    for shipper in shippers.values():
        shipper.start()
    while not all(s.connected for s in shippers.values()):
        time.sleep(0.05)  # the lag counts from a connected station, not its TLS handshake
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join()
    for table, shipper in shippers.items():
        with JournalReader.open(journals[table]) as reader:
            last = reader.last()
        target = last.id if last else 0
        while shipper.acked < target:
            time.sleep(0.05)
    for shipper in shippers.values():
        shipper.stop()


# --- the table beside its shipper ------------------------------------------------------------


def table_rounds_per_s(work: Path, rounds: int, name: str, port: int | None, ca: Any) -> float:
    """Rounds/s of the real station (simulated dealer and devices, in this process) with
    its shipper beside it in the same process: none (``port`` None), or one reaching for
    the broker at ``port``."""
    from controller.service.config_floor import FloorSettings
    from controller.service.shipper import Shipper
    from controller.simulation.runner import SimulatedTable, SimulationSettings

    journal = work / f"{name}.sqlite3"
    shipper = None
    if port is not None:
        settings = FloorSettings(
            "127.0.0.1", port, name, work / f"{name}.password", ca if ca else None
        )
        shipper = Shipper(journal, name, settings)
        shipper.start()
    try:
        result = SimulatedTable(SimulationSettings(rounds=rounds, seed=7, journal=journal)).run()
    finally:
        if shipper is not None:
            shipper.stop()
    return result.rounds / result.seconds


# --- where the bytes go ----------------------------------------------------------------------


def _count(conn: psycopg.Connection[Any], sql: LiteralString) -> int:
    """The number a ``SELECT count(*) ...`` gives."""
    row = conn.execute(sql).fetchone()
    assert row is not None  # an aggregate without GROUP BY always gives one row
    return int(row[0])


def bytes_breakdown(conn: Any) -> dict[str, Any]:
    """Bytes a stored row in the floor database as the catch-up left it: ``total`` (the
    rows' table, its indexes and ``round_result``, as ``db_bytes_per_row`` always counted),
    ``heap``, each index's, and each column's average ``pg_column_size`` (NULL counts
    nothing). The rows' table is ``journal_entry`` (migration 0012) or, on an older schema,
    ``journal_row``."""
    (store,) = conn.execute(
        "SELECT coalesce(to_regclass('journal_entry'), to_regclass('journal_row'))::text"
    ).fetchone()
    (rows,) = conn.execute(f"SELECT count(*) FROM {store}").fetchone()
    rows = max(int(rows), 1)
    (heap, total) = conn.execute(
        "SELECT sum(pg_table_size(inhrelid)), sum(pg_total_relation_size(inhrelid))"
        " FROM pg_inherits WHERE inhparent = %s::regclass",
        (store,),
    ).fetchone()
    (results,) = conn.execute("SELECT pg_total_relation_size('round_result')").fetchone()
    indexes = {
        str(name): int(size) / rows
        for name, size in conn.execute(
            "SELECT p.relname, sum(pg_relation_size(i.inhrelid)) FROM pg_class p"
            " JOIN pg_index x ON x.indexrelid = p.oid JOIN pg_inherits i ON i.inhparent = p.oid"
            " WHERE x.indrelid = %s::regclass GROUP BY p.relname ORDER BY 2 DESC",
            (store,),
        )
    }
    names = [
        str(n)
        for (n,) in conn.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0"
            " AND NOT attisdropped ORDER BY attnum",
            (store,),
        )
    ]
    sizes = conn.execute(
        "SELECT "
        + ", ".join(f"coalesce(sum(pg_column_size({n})), 0)" for n in names)
        + f" FROM {store}"
    ).fetchone()
    return {
        "store": store,
        "total": (int(total) + int(results)) / rows,
        "heap": int(heap) / rows,
        "indexes": indexes,
        "columns": {n: int(v) / rows for n, v in zip(names, sizes, strict=True)},
    }


# --- the bench ------------------------------------------------------------------------------


def _await_subscribed(collector: subprocess.Popen[str]) -> None:
    # The collector logs "collector connected" once subscribed; then its log is drained.
    assert collector.stdout is not None
    for line in collector.stdout:
        if "collector connected" in line:
            break
    threading.Thread(target=collector.stdout.read, daemon=True).start()


def _start_workers(spec: dict[str, Any], tables: list[str], count: int) -> list[Any]:
    workers = []
    for part in range(count):
        mine = tables[part::count]
        part_spec = dict(spec, journals={t: spec["journals"][t] for t in mine})
        workers.append(
            subprocess.Popen(
                [sys.executable, __file__, "--worker", json.dumps(part_spec)], cwd=ROOT
            )
        )
    return workers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stations", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--live-stations", type=int, default=200)
    parser.add_argument("--round-seconds", type=float, default=6.0)
    parser.add_argument("--live-seconds", type=float, default=30.0)
    parser.add_argument("--collectors", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-rows", type=int, default=500, help="the stations' batch_rows")
    parser.add_argument("--table-rounds", type=int, default=100, help="rounds per table run")
    parser.add_argument(
        "--unsealed", action="store_true", help="the floor holds no key: rows merge one by one"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(json.loads(args.worker))
        return
    import logging

    import structlog

    # The simulated table of phase 0 logs every link (and an unsealed journal); the
    # figures are what is printed.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))

    import psycopg

    from floor.schema import migrate
    from floor.servers import COLLECTORS, Broker, Database, free_port, remove

    work = Path(tempfile.mkdtemp(prefix="floor-bench-"))
    source = work / "source.sqlite3"
    _simulate(source, args.rounds)
    catch_up = [f"C{n:03d}" for n in range(args.stations)]
    live = [f"L{n:03d}" for n in range(args.live_stations)]
    if args.collectors > len(COLLECTORS):
        sys.exit(f"floor bench: at most {len(COLLECTORS)} collectors (one account each)")
    # Each station's journal under its own table id and sealing key (the floor refuses
    # rows naming another table), written before the clock starts.
    journals: dict[str, str] = {}
    sealing: dict[str, str] = {}
    keys: dict[str, str] = {}
    for table in [*catch_up, *live]:
        sealing[table] = str(work / f"{table}.sealing-key")
    for table in catch_up:
        journals[table] = str(work / f"{table}.sqlite3")
        key = _relabel(source, Path(journals[table]), table, Path(sealing[table]))
        keys[table] = key or ""
    for table in live:
        keys[table] = _new_key(table, Path(sealing[table])) or ""
    if args.unsealed:
        keys = {}
    broker = Broker([*catch_up, *live, "D-LIVE"])
    broker.start()
    database = Database(durable=True)
    database.start()
    collectors: list[subprocess.Popen[str]] = []
    try:
        with psycopg.connect(database.conninfo) as conn:
            migrate(conn)
        tables_toml = "".join(f'[tables.{t}]\nverify_key = "{k}"\n' for t, k in keys.items())
        for n in range(args.collectors):
            config = work / f"floor-{n}.toml"
            account = COLLECTORS[n]
            config.write_text(
                f'[broker]\nhost = "127.0.0.1"\nport = {broker.port}\nusername = "{account}"\n'
                f'password_file = "{broker.password_file(account)}"\n'
                f'ca_file = "{broker.ca_file}"\n'
                f'[database]\nconninfo = "{database.conninfo}"\n{tables_toml}'
            )
            collectors.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "controller.cli.main",
                        "floor",
                        "collect",
                        "--config",
                        str(config),
                    ],
                    cwd=ROOT,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        for collector in collectors:
            _await_subscribed(collector)
        for table in [*catch_up, *live]:
            broker.password_file(table)
        spec: dict[str, Any] = {
            "port": broker.station_port, "ca": str(broker.ca_file), "passwords": str(broker.dir),
            "source": str(source), "round_seconds": args.round_seconds,
            "live_seconds": args.live_seconds, "batch_rows": args.batch_rows,
            "sealing": {} if args.unsealed else sealing,
        }  # fmt: skip

        # 0. the table's own speed: no floor, broker gone, shipping to a live floor
        for name in ("D-DOWN", "D-LIVE"):
            (work / f"{name}.password").write_text(
                broker.password_file("D-LIVE").read_text() if name == "D-LIVE" else "x\n"
            )
        speeds = {
            "none": table_rounds_per_s(work, args.table_rounds, "D-NONE", None, None),
            "down": table_rounds_per_s(work, args.table_rounds, "D-DOWN", free_port(), None),
            "live": table_rounds_per_s(
                work, args.table_rounds, "D-LIVE", broker.station_port, broker.ca_file
            ),
        }

        # 1. catch-up
        with sqlite3.connect(journals[catch_up[0]]) as src:
            from controller.journal.storage import storage_of

            per_station = storage_of(src).count()  # either storage format
        src.close()
        expected = per_station * len(catch_up)
        cpu_before = sum(_clock_ticks(c.pid) for c in collectors)
        pg_before = _postgres_ticks()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        stations_before = children.ru_utime + children.ru_stime
        started = time.monotonic()
        workers = _start_workers(dict(spec, live=False, journals=journals), catch_up, args.workers)
        with psycopg.connect(database.conninfo, autocommit=True) as conn:
            while (
                _count(conn, "SELECT count(*) FROM journal_row WHERE table_id LIKE 'C%'") < expected
            ):
                time.sleep(0.05)
        elapsed = time.monotonic() - started
        cpu = sum(_clock_ticks(c.pid) for c in collectors) - cpu_before
        pg_cpu = _postgres_ticks() - pg_before
        for each in workers:
            each.wait()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        stations_cpu = children.ru_utime + children.ru_stime - stations_before
        with psycopg.connect(database.conninfo) as conn:
            breakdown = bytes_breakdown(conn)
        bytes_per_row = breakdown["total"]
        rows_per_round = per_station / args.rounds

        # 2. live
        live_journals = {t: str(work / f"{t}.sqlite3") for t in live}
        workers = _start_workers(dict(spec, live=True, journals=live_journals), live, args.workers)
        for each in workers:
            each.wait()
        with psycopg.connect(database.conninfo) as conn:
            lags = [
                float(x)
                for (x,) in conn.execute(
                    "SELECT extract(epoch FROM stored - ts::timestamptz) * 1000 FROM journal_row"
                    " WHERE kind = 'round_completed' AND table_id LIKE 'L%' ORDER BY 1"
                )
            ]
            live_rows = _count(conn, "SELECT count(*) FROM journal_row WHERE table_id LIKE 'L%'")
    finally:
        for each in collectors:
            each.terminate()
            each.wait(10)
        broker.kill()
        database.stop()
        remove(broker)
        remove(database)
        shutil.rmtree(work, ignore_errors=True)

    def pct(q: float) -> float:
        return round(lags[min(len(lags) - 1, int(q * len(lags)))], 1) if lags else float("nan")

    figures = {
        "stations": len(catch_up),
        "rows": expected,
        "rows_per_s": round(expected / elapsed),
        "collector_cpu_ms_per_1000_rows": round(cpu * 1000 / (expected / 1000), 1),
        "postgres_cpu_ms_per_1000_rows": round(pg_cpu * 1000 / (expected / 1000), 1),
        "stations_cpu_ms_per_1000_rows": round(stations_cpu * 1000 / (expected / 1000), 1),
        "db_bytes_per_row": round(bytes_per_row),
        "db_heap_bytes_per_row": round(breakdown["heap"]),
        "db_index_bytes_per_row": round(sum(breakdown["indexes"].values())),
        "db_mb_per_table_day": round(bytes_per_row * rows_per_round * ROWS_PER_ROUND_DAY / 1e6, 1),
        "db_tb_per_year_200_tables": round(
            bytes_per_row * rows_per_round * ROWS_PER_ROUND_DAY * 365 * 200 / 1e12, 2
        ),
        "live_stations": len(live),
        "live_rows_per_s": round(live_rows / args.live_seconds),
        "lag_rounds": len(lags),
        "lag_p50_ms": pct(0.50),
        "lag_p99_ms": pct(0.99),
        "table_rounds_per_s_no_floor": round(speeds["none"], 1),
        "table_rounds_per_s_broker_down": round(speeds["down"], 1),
        "table_rounds_per_s_shipping": round(speeds["live"], 1),
    }
    print(
        f"catch-up: {expected} rows from {len(catch_up)} stations in {elapsed:.1f} s"
        f" ({figures['rows_per_s']} rows/s), {args.collectors} collector(s)"
    )
    print(
        "CPU per 1,000 rows: collector {collector_cpu_ms_per_1000_rows} ms, PostgreSQL"
        " {postgres_cpu_ms_per_1000_rows} ms, stations {stations_cpu_ms_per_1000_rows} ms".format(
            **figures
        )
    )
    print(
        f"live: {len(live)} stations, a round every {args.round_seconds} s each"
        f" ({figures['live_rows_per_s']} rows/s); lag p50 {figures['lag_p50_ms']} ms,"
        f" p99 {figures['lag_p99_ms']} ms over {len(lags)} rounds"
    )
    print(
        f"database: {figures['db_bytes_per_row']} bytes/row;"
        f" {rows_per_round:.0f} rows/round x {ROWS_PER_ROUND_DAY} rounds/day ="
        f" {figures['db_mb_per_table_day']} MB per table-day"
    )
    print(
        f"where the bytes go ({breakdown['store']}, bytes a row): heap {breakdown['heap']:.1f};"
        + "".join(f" {n} {v:.1f};" for n, v in breakdown["indexes"].items())
        + " columns:"
        + ",".join(f" {n} {v:.1f}" for n, v in breakdown["columns"].items())
    )
    print(f"a year of 200 busy tables: {figures['db_tb_per_year_200_tables']} TB")
    print(
        "the table beside its shipper (rounds/s, simulated dealer, same process): no floor"
        " {table_rounds_per_s_no_floor}, broker gone {table_rounds_per_s_broker_down},"
        " shipping {table_rounds_per_s_shipping}".format(**figures)
    )
    print("FIGURES " + json.dumps(figures))


if __name__ == "__main__":
    from floor.servers import ServerError

    try:
        main()
    except ServerError as err:  # a server not installed or not starting: one line, no trace
        sys.exit(f"floor bench: {err}")
