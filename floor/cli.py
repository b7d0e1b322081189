"""``dealer-station floor collect|serve|migrate|hash-password``: the floor side's commands.

Registered in ``controller.cli.main`` by module name only, and imported when ``floor`` is
the subcommand: the station never loads this package. Errors are one line on stderr with
exit status 2 (configuration) or 1 (a server that cannot be reached).
"""

from __future__ import annotations

import argparse
import getpass
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from controller.service.config_schema import ConfigError
from floor.config import load_floor_config

DEFAULT_CONFIG = Path("/etc/dealer-station/floor.toml")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The floor's actions."""
    sub = parser.add_subparsers(dest="floor_command", required=True, metavar="ACTION")
    for name, text in (
        ("collect", "subscribe to the stations and write their journals into PostgreSQL"),
        ("serve", "serve the floor monitor page"),
        ("migrate", "bring the database schema up to date and exit"),
    ):
        action = sub.add_parser(name, help=text, description=text)
        action.add_argument("--config", type=Path, default=DEFAULT_CONFIG, metavar="FILE")
    sub.add_parser(
        "hash-password",
        help="read a password on stdin, print its hash for floor.toml's [monitor.users]",
    )


def run(args: argparse.Namespace) -> int:
    """Run the chosen action until SIGTERM or SIGINT."""
    if args.floor_command == "hash-password":
        from floor.auth import hash_password

        text = getpass.getpass("password: ") if sys.stdin.isatty() else sys.stdin.readline()
        text = text.rstrip("\n")
        if len(text) < 8:
            print("dealer-station floor: a password has at least 8 characters", file=sys.stderr)
            return 2
        print(hash_password(text))
        return 0
    import psycopg

    try:
        config = load_floor_config(args.config)
        if args.floor_command == "migrate":
            from floor.schema import migrate

            with psycopg.connect(config.conninfo) as conn:
                applied = migrate(conn)
            print(f"applied {applied or 'nothing'}")
            return 0
        if args.floor_command == "collect":
            return _collect(config)
        from floor.monitor import serve

        serve(config)
        return 0
    except (ConfigError, OSError) as err:
        print(f"dealer-station floor: {err}", file=sys.stderr)
        return 2
    except psycopg.Error as err:
        print(f"dealer-station floor: database: {str(err).splitlines()[0]}", file=sys.stderr)
        return 1


def _collect(config: Any) -> int:
    from floor.collector import Collector

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    collector = Collector(config)
    collector.start()
    print(f"collecting from {config.broker.host}:{config.broker.port}", flush=True)
    try:
        while not stop.wait(1.0):
            pass
    finally:
        collector.stop()
    return 0
