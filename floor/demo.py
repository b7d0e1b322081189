"""``make floor-demo``: the whole floor on this machine until Ctrl-C.

A broker (mosquitto from the shipped configuration: TLS, a password per table), a database
(PostgreSQL), one collector, the monitor, and eight simulated stations: the real station
code against the device doubles (``dealer-station simulate`` at the pace of a person
watching, with a few injected device faults), each with its own table id and sealing key,
shipping its journal with the station's real shipper; the floor holds each table's
verification key and merges each round once its seal checks. It
prints the monitor's URL and two logins (a pit supervisor and surveillance).

    .venv/bin/python -m floor.demo [--stations 8] [--port 8021]
"""

from __future__ import annotations

import argparse
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from controller.service.config_floor import FloorSettings
from controller.service.shipper import Shipper
from controller.simulation.runner import verification_key_path
from floor.auth import hash_password
from floor.collector import Collector
from floor.config import parse_floor_config
from floor.monitor import MonitorServer
from floor.servers import Broker, Database, ServerError, remove, wait_for


def main() -> int:
    """Run the demo floor until SIGINT or SIGTERM."""
    parser = argparse.ArgumentParser(description="the casino floor on this machine")
    parser.add_argument("--stations", type=int, default=8)
    parser.add_argument("--port", type=int, default=8021)
    args = parser.parse_args()
    tables = [f"PA-S21-{n:02d}" for n in range(1, args.stations + 1)]
    work = Path(tempfile.mkdtemp(prefix="floor-demo-"))
    broker = Broker(tables)
    broker.start()
    database = Database()
    database.start()
    passwords = {"pat": secrets.token_urlsafe(9), "sam": secrets.token_urlsafe(9)}
    (work / "session.key").write_text(secrets.token_urlsafe(36))
    stations: list[subprocess.Popen[bytes]] = []
    shippers: list[Shipper] = []
    collector: Collector | None = None
    monitor: MonitorServer | None = None
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    # Each station its own table id (the floor takes a table's rows only from its own
    # account) and its own sealing key, whose verification key the floor is given.
    keys = {t: verification_key_path(work / f"{t}.sqlite3") for t in tables}
    try:
        for n, table in enumerate(tables):
            journal = work / f"{table}.sqlite3"
            stations.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "controller.cli.main",
                        "simulate",
                        "--plain",
                        "--speed",
                        "real",
                        "--rounds",
                        "100000",
                        "--seed",
                        str(n + 1),
                        "--faults",
                        "0.002",
                        "--journal",
                        str(journal),
                        "--table-id",
                        table,
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        if not wait_for(lambda: all(k.exists() for k in keys.values()), 60):
            raise ServerError("the simulated stations did not start within 60 s")
        config = parse_floor_config(
            {
                "broker": broker.collector_settings(),
                "database": {"conninfo": database.conninfo},
                "monitor": {
                    "port": args.port,
                    "session_key_file": str(work / "session.key"),
                    "silent_after_seconds": 15,
                    "users": {
                        "pat": {
                            "role": "pit_supervisor",
                            "password_hash": hash_password(passwords["pat"]),
                        },
                        "sam": {
                            "role": "surveillance",
                            "password_hash": hash_password(passwords["sam"]),
                        },
                    },
                },
                # The console's clock and pits: two pits of half the tables each.
                "casino": {
                    "time_zone": "America/New_York",
                    "pits": {
                        "Pit 1": tables[: (len(tables) + 1) // 2],
                        "Pit 2": tables[(len(tables) + 1) // 2 :],
                    },
                },
                # Each station seals its journal: the floor merges a round once its seal checks.
                "tables": {t: {"verify_key": keys[t].read_text().strip()} for t in tables},
            },
            work / "floor.toml",
        )
        collector = Collector(config)
        monitor = MonitorServer(config)
        collector.start()
        monitor.start()
        for table in tables:
            settings = FloorSettings(
                "127.0.0.1",
                broker.station_port,
                table,
                broker.password_file(table),
                broker.ca_file,
            )
            shippers.append(Shipper(work / f"{table}.sqlite3", table, settings))
            shippers[-1].start()
        print(f"floor monitor: {monitor.url}", flush=True)
        print(f"floor database: psql '{database.conninfo}'", flush=True)
        print(f"  pit supervisor: pat / {passwords['pat']}", flush=True)
        print(f"  surveillance:   sam / {passwords['sam']}", flush=True)
        print(f"{len(tables)} stations dealing; Ctrl-C stops the floor.", flush=True)
        stop.wait()
    finally:
        for station in stations:
            station.terminate()
        for station in stations:
            station.wait(10)
        # In parallel: a shipper whose broker is already gone may wait out a reconnect.
        stopping = [threading.Thread(target=s.stop) for s in shippers]
        for thread in stopping:
            thread.start()
        for thread in stopping:
            thread.join()
        if monitor is not None:
            monitor.stop()
        if collector is not None:
            collector.stop()
        broker.kill()
        database.stop()
        remove(broker)
        remove(database)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ServerError as err:  # a server not installed or not starting: one line, no trace
        sys.exit(f"floor demo: {err}")
