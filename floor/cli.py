"""``dealer-station floor collect|serve|migrate|alerts|release|clear-alert|hash-password``:
the floor side's commands.

Registered in ``controller.cli.main`` by module name only, and imported when ``floor`` is
the subcommand: the station never loads this package. Errors are one line on stderr with
exit status 2 (configuration or arguments) or 1 (a server that cannot be reached, an
operation that cannot be done, a collector thread that died).
"""

from __future__ import annotations

import argparse
import getpass
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Final

from controller.service.config_schema import ConfigError
from floor.config import FloorConfig, load_floor_config

DEFAULT_CONFIG = Path("/etc/dealer-station/floor.toml")
MAX_PASSWORD_BYTES: Final = 1024
_NOTE: Final = 500


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The floor's actions."""
    sub = parser.add_subparsers(dest="floor_command", required=True, metavar="ACTION")
    actions = {}
    for name, text in (
        ("collect", "subscribe to the stations and write their journals into PostgreSQL"),
        ("serve", "serve the floor monitor page"),
        ("migrate", "bring the database schema up to date and exit"),
        ("alerts", "list the open alerts and the quarantined tables"),
        ("release", "end a table's quarantine (its next rows are checked again)"),
        ("clear-alert", "close an open alert"),
    ):
        action = sub.add_parser(name, help=text, description=text)
        action.add_argument("--config", type=Path, default=DEFAULT_CONFIG, metavar="FILE")
        actions[name] = action
    actions["release"].add_argument("table", help="the table id")
    actions["clear-alert"].add_argument("alert", type=int, help="the alert's number (floor alerts)")
    for name in ("release", "clear-alert"):
        actions[name].add_argument("--reason", required=True, help="why (kept with the action)")
        actions[name].add_argument("--by", help="who (default: the login name)")
    sub.add_parser(
        "hash-password",
        help="read a password on stdin, print its hash for floor.toml's [monitor.users]",
    )


def run(args: argparse.Namespace) -> int:
    """Run the chosen action (``collect`` and ``serve`` until SIGTERM or SIGINT)."""
    if args.floor_command == "hash-password":
        return _hash_password()
    import psycopg

    from floor.operations import OperationError

    try:
        config = load_floor_config(args.config)
        if args.floor_command == "collect":
            return _collect(config)
        if args.floor_command == "serve":
            from floor.monitor import serve

            serve(config)
            return 0
        return _database_action(args, config)
    except (ConfigError, OSError) as err:
        return _fail(str(err), 2)
    except OperationError as err:
        return _fail(str(err), 1)
    except psycopg.Error as err:
        return _fail(f"database: {_first_line(err)}", 1)


def _fail(text: str, status: int) -> int:
    print(f"dealer-station floor: {text}", file=sys.stderr)
    return status


def _first_line(err: BaseException) -> str:
    """The error's first line, any character that is not printable escaped as Python writes
    it (a message may carry the server's text); the error's repr when it has no text."""
    text = str(err)
    if not text:
        return repr(err)
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text.splitlines()[0])


def _hash_password() -> int:
    from floor.auth import hash_password

    if sys.stdin.isatty():
        text = getpass.getpass("password: ")
    else:
        raw = sys.stdin.buffer.readline(MAX_PASSWORD_BYTES + 1)
        if len(raw) > MAX_PASSWORD_BYTES:
            return _fail(f"a password has at most {MAX_PASSWORD_BYTES} bytes", 2)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return _fail("the password on stdin is not UTF-8 text", 2)
    text = text.rstrip("\r\n")
    if len(text) < 8:
        return _fail("a password has at least 8 characters", 2)
    if not text.isprintable():
        return _fail("a password has no control characters", 2)
    print(hash_password(text))
    return 0


def _database_action(args: argparse.Namespace, config: FloorConfig) -> int:
    import psycopg

    from floor import operations
    from floor.schema import migrate

    if args.floor_command in ("release", "clear-alert"):
        reason = _note(args.reason, "--reason")
        operator = _note(args.by or _login(), "--by")
    with psycopg.connect(config.conninfo) as conn:
        if args.floor_command == "migrate":
            applied = migrate(conn)
            print(f"applied {applied or 'nothing'}")
        elif args.floor_command == "alerts":
            for number, table, kind, raised, repeats, message in operations.open_alerts(conn):
                again = f" (x{repeats + 1})" if repeats else ""
                print(f"{number}\t{table}\t{kind}\t{raised:%Y-%m-%d %H:%M:%S%z}{again}\t{message}")
            for table, why in operations.quarantined(conn):
                print(f"quarantined\t{table}\t{why}")
        elif args.floor_command == "release":
            was = operations.release(conn, args.table, operator, reason)
            print(f"released {args.table} (was: {was})")
        else:
            table, kind, message = operations.clear_alert(conn, args.alert, operator, reason)
            print(f"cleared alert {args.alert}: {table} {kind}: {message}")
    return 0


def _note(text: str, option: str) -> str:
    text = text.strip()
    if not text or len(text) > _NOTE or not text.isprintable():
        raise ConfigError("(arguments)", option, f"1-{_NOTE} printable characters")
    return text


def _login() -> str:
    try:
        return os.environ.get("SUDO_USER") or getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return f"uid {os.getuid()}"


def _collect(config: FloorConfig) -> int:
    from controller.service.sdnotify import Notifier
    from floor.collector import Collector, supervise

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    collector = Collector(config)
    collector.start()
    notifier = Notifier()
    where = f"{config.broker.host}:{config.broker.port}"
    notifier.ready(f"collecting from {where}")
    print(f"collecting from {where}", flush=True)
    status = supervise(collector, stop, notifier)
    notifier.stopping()
    notifier.close()
    if status:
        print(f"dealer-station floor: collector stopped: {collector.failure}", file=sys.stderr)
    return status
