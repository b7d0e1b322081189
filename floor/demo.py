"""``make floor-demo``: the whole floor on this machine until Ctrl-C.

A broker (mosquitto, TLS, a password and ACL per table), a database (PostgreSQL), one
collector, the monitor, and eight simulated stations: the real station code against the
device doubles (``dealer-station simulate`` at the pace of a person watching, with a few
injected device faults), each shipping its journal with the station's real shipper. It
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
from floor.auth import hash_password
from floor.collector import Collector
from floor.config import parse_floor_config
from floor.monitor import MonitorServer
from floor.servers import Broker, Database, ServerError, remove


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
    config = parse_floor_config(
        {
            "broker": {
                "host": "127.0.0.1",
                "port": broker.port,
                "username": "collector",
                "password_file": str(broker.password_file("collector")),
                "ca_file": str(broker.ca_file),
                "client_id": "demo-collector",
            },
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
        },
        work / "floor.toml",
    )
    collector = Collector(config)
    monitor = MonitorServer(config)
    stations: list[subprocess.Popen[bytes]] = []
    shippers: list[Shipper] = []
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        collector.start()
        monitor.start()
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
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            settings = FloorSettings(
                "127.0.0.1", broker.port, table, broker.password_file(table), broker.ca_file
            )
            shippers.append(Shipper(journal, table, settings))
            shippers[-1].start()
        print(f"floor monitor: {monitor.url}", flush=True)
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
        monitor.stop()
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
