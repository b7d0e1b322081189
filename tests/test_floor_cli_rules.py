"""``dealer-station floor`` (``floor.cli``) in-process, without PostgreSQL or a broker: each
action's arguments, what it prints, its exit status (2: configuration or arguments; 1: a
server that cannot be reached, an operation that cannot be done, a collector thread that
died) and its one line on stderr. The database's answers come from stand-ins of
``floor.operations`` (tested on PostgreSQL in ``tests/test_floor_operations.py``);
``tests/test_floor_cli_hostile.py`` feeds every action hostile files and stdin.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import io
import os
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import psycopg
import pytest
from test_cli_hostile import invoke

import floor.collector
import floor.monitor
import floor.operations
import floor.schema
from controller.service.sdnotify import Notifier
from floor import cli
from floor.auth import check_password
from floor.config import FloorConfig
from floor.operations import OperationError

NOWHERE = "host=/nonexistent/socket dbname=floor connect_timeout=2"


@pytest.fixture
def toml(tmp_path: Path) -> Path:
    (tmp_path / "collector.password").write_text("secret\n")
    path = tmp_path / "floor.toml"
    path.write_text(
        "[broker]\n"
        'host = "broker.casino.lan"\n'
        "port = 8884\n"
        'username = "collector-1"\n'
        'password_file = "collector.password"\n'
        "tls = false\n"
        "[database]\n"
        f'conninfo = "{NOWHERE}"\n'
    )
    return path


# --- the arguments -----------------------------------------------------------------------------


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="floor")
    cli.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_each_action_reads_floor_toml_from_etc_unless_told() -> None:
    for action in (["collect"], ["serve"], ["migrate"], ["alerts"]):
        args = _parse(*action)
        assert args.floor_command == action[0]
        assert args.config == Path("/etc/dealer-station/floor.toml")
    assert _parse("serve", "--config", "here.toml").config == Path("here.toml")


def test_release_and_clear_alert_take_their_target_a_reason_and_who() -> None:
    args = _parse("release", "T07", "--reason", "checked the journal")
    assert (args.table, args.reason, args.by) == ("T07", "checked the journal", None)
    args = _parse("clear-alert", "12", "--reason", "seen", "--by", "pat")
    assert (args.alert, args.reason, args.by) == (12, "seen", "pat")


@pytest.mark.parametrize(
    "argv",
    [
        ["release", "T07"],  # no reason
        ["clear-alert", "12"],
        ["clear-alert", "twelve", "--reason", "x"],  # not a number
        [],  # no action
        ["alerts", "--reason", "x"],  # alerts takes none
    ],
)
def test_an_action_without_what_it_needs_is_a_usage_error(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        _parse(*argv)
    assert raised.value.code == 2


def test_hash_password_takes_no_config() -> None:
    assert _parse("hash-password").floor_command == "hash-password"
    with pytest.raises(SystemExit):
        _parse("hash-password", "--config", "x")


# --- hash-password ------------------------------------------------------------------------------


class _Stdin(io.TextIOWrapper):
    def __init__(self, data: bytes, tty: bool = False) -> None:
        super().__init__(io.BytesIO(data), encoding="utf-8")
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def _hash(monkeypatch: pytest.MonkeyPatch, data: bytes) -> tuple[int, list[str], list[str]]:
    monkeypatch.setattr(sys, "stdin", _Stdin(data))
    return invoke(["floor", "hash-password"])


@pytest.mark.parametrize(
    ("data", "password"),
    [
        (b"eight ch\n", "eight ch"),  # 8 characters: the least
        (b"eight ch\r\n", "eight ch"),
        (b"eight ch", "eight ch"),  # no line end
        (b"correct horse\nsecond line\n", "correct horse"),  # the first line only
        ("p\u00e4ssw\u00f6rd\n".encode(), "p\u00e4ssw\u00f6rd"),
        (b"x" * 1023 + b"\n", "x" * 1023),  # 1,024 bytes with the line end
        (b"x" * 1024, "x" * 1024),
        (b"eight ch  \n", "eight ch  "),  # spaces are the password's own
        (b"passwordX\r\n", "passwordX"),  # only the line end is taken off
    ],
)
def test_hash_password_prints_the_hash_of_the_first_line(
    monkeypatch: pytest.MonkeyPatch, data: bytes, password: str
) -> None:
    status, out, err = _hash(monkeypatch, data)
    assert (status, err) == (0, []) and len(out) == 1
    assert out[0].startswith("scrypt$32768$8$1$") and check_password(password, out[0])


@pytest.mark.parametrize(
    ("data", "refusal"),
    [
        (b"seven c\n", "a password has at least 8 characters"),
        (b"\n", "a password has at least 8 characters"),
        (b"", "a password has at least 8 characters"),
        (b"tab\there ok\n", "a password has no control characters"),
        (b"bell\x07rings\n", "a password has no control characters"),
        (b"x" * 1025, "a password has at most 1024 bytes"),
        (b"x" * 1024 + b"\n", "a password has at most 1024 bytes"),
        (b"\xffbinary password\n", "the password on stdin is not UTF-8 text"),
    ],
)
def test_hash_password_refuses_in_one_line(
    monkeypatch: pytest.MonkeyPatch, data: bytes, refusal: str
) -> None:
    assert _hash(monkeypatch, data) == (2, [], [f"dealer-station floor: {refusal}"])


class _Endless:
    """A stdin that never ends its line (``yes | tr -d '\\n'``): each read's bound, noted."""

    def __init__(self) -> None:
        self.asked: list[int | None] = []

    def isatty(self) -> bool:
        return False

    @property
    def buffer(self) -> _Endless:
        return self

    def readline(self, limit: int | None = -1) -> bytes:
        self.asked.append(limit)
        if limit is None or limit < 0:
            raise AssertionError("a read without a bound never ends on this stdin")
        return b"x" * limit


def test_a_stdin_that_never_ends_its_line_is_read_no_further_than_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    endless = _Endless()
    monkeypatch.setattr(sys, "stdin", endless)
    refusal = "dealer-station floor: a password has at most 1024 bytes"
    assert invoke(["floor", "hash-password"]) == (2, [], [refusal])
    assert endless.asked == [1025]  # one byte past the longest password: enough to refuse


def test_at_a_terminal_the_password_is_asked_without_echo(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return "typed at the terminal"

    monkeypatch.setattr(getpass, "getpass", ask)
    monkeypatch.setattr(sys, "stdin", _Stdin(b"not read from stdin\n", tty=True))
    status, out, _ = invoke(["floor", "hash-password"])
    assert status == 0 and asked == ["password: "]
    assert check_password("typed at the terminal", out[0])
    monkeypatch.setattr(getpass, "getpass", lambda prompt: "short")
    assert invoke(["floor", "hash-password"])[2] == [
        "dealer-station floor: a password has at least 8 characters"
    ]


# --- the database actions ----------------------------------------------------------------------


class _Conn:
    def __init__(self) -> None:
        self.closed = False

    def __enter__(self) -> _Conn:
        return self

    def __exit__(self, *_: object) -> None:
        self.closed = True


@pytest.fixture
def database(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """``psycopg.connect`` answering with a connection; each call of an operation recorded
    ``(name, conn, args...)``."""
    calls: list[Any] = []

    def connect(conninfo: str, **_: object) -> _Conn:
        assert conninfo == NOWHERE
        calls.append(("connect", conninfo))
        conn = _Conn()
        opened.append(conn)
        return conn

    opened: list[_Conn] = []

    monkeypatch.setattr(psycopg, "connect", connect)
    monkeypatch.delenv("SUDO_USER", raising=False)
    yield calls


def _on_its_connection(conn: Any) -> None:
    """An operation is given the connection the action opened, still open."""
    assert isinstance(conn, _Conn) and not conn.closed


def test_migrate_says_which_versions_it_applied(
    toml: Path, database: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = [[1, 2, 12], []]

    def migrate(conn: Any) -> list[int]:
        _on_its_connection(conn)
        return answers.pop(0)

    monkeypatch.setattr(floor.schema, "migrate", migrate)
    assert invoke(["floor", "migrate", "--config", str(toml)]) == (0, ["applied [1, 2, 12]"], [])
    assert invoke(["floor", "migrate", "--config", str(toml)]) == (0, ["applied nothing"], [])
    assert database == [("connect", NOWHERE)] * 2


def test_alerts_lists_each_open_alert_then_each_quarantined_table(
    toml: Path, database: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    est = timezone(timedelta(hours=-5))
    alerts = [
        (3, "T01", "malformed", datetime(2026, 12, 1, 4, 5, 6, tzinfo=UTC), 0, "row 2: ..."),
        (9, "T02", "silent", datetime(2026, 12, 2, 23, 0, 0, tzinfo=est), 4, "no status"),
    ]

    def open_alerts(conn: Any) -> list[Any]:
        _on_its_connection(conn)
        return alerts

    def quarantined(conn: Any) -> list[tuple[str, str]]:
        _on_its_connection(conn)
        return [("T01", "row 2: NUL")]

    monkeypatch.setattr(floor.operations, "open_alerts", open_alerts)
    monkeypatch.setattr(floor.operations, "quarantined", quarantined)
    assert invoke(["floor", "alerts", "--config", str(toml)]) == (
        0,
        [
            "3\tT01\tmalformed\t2026-12-01 04:05:06+0000\trow 2: ...",
            "9\tT02\tsilent\t2026-12-02 23:00:00-0500 (x5)\tno status",
            "quarantined\tT01\trow 2: NUL",
        ],
        [],
    )


def test_release_says_why_the_table_was_quarantined_and_who_released_it(
    toml: Path, database: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def release(conn: Any, table: str, operator: str, reason: str) -> str:
        _on_its_connection(conn)
        database.append(("release", table, operator, reason))
        return "row 2: text the floor cannot hold"

    monkeypatch.setattr(floor.operations, "release", release)
    argv = ["floor", "release", "T01", "--reason", "  checked the journal ", "--by", "pat"]
    assert invoke([*argv, "--config", str(toml)]) == (
        0,
        ["released T01 (was: row 2: text the floor cannot hold)"],
        [],
    )
    assert database[-1] == ("release", "T01", "pat", "checked the journal")


def test_clear_alert_says_what_it_closed(
    toml: Path, database: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def clear(conn: Any, alert: int, operator: str, reason: str) -> tuple[str, str, str]:
        _on_its_connection(conn)
        database.append(("clear", alert, operator, reason))
        return ("T02", "silent", "no status for 60 s")

    monkeypatch.setattr(floor.operations, "clear_alert", clear)
    monkeypatch.setenv("SUDO_USER", "sam")  # who ran sudo, not root
    argv = ["floor", "clear-alert", "9", "--reason", "power cut", "--config", str(toml)]
    assert invoke(argv) == (0, ["cleared alert 9: T02 silent: no status for 60 s"], [])
    assert database[-1] == ("clear", 9, "sam", "power cut")


def test_who_is_the_login_name_without_sudo_or_the_uid_without_a_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SUDO_USER", raising=False)
    monkeypatch.setattr(getpass, "getuser", lambda: "kim")
    assert cli._login() == "kim"
    monkeypatch.setenv("SUDO_USER", "")
    assert cli._login() == "kim"

    def nameless() -> str:
        raise OSError("No username set in the environment")

    monkeypatch.setattr(getpass, "getuser", nameless)
    assert cli._login() == f"uid {os.getuid()}"
    monkeypatch.setattr(getpass, "getuser", lambda: (_ for _ in ()).throw(KeyError(1000)))
    assert cli._login() == f"uid {os.getuid()}"


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--reason", ""),
        ("--reason", "   "),
        ("--reason", "x" * 501),
        ("--reason", "tab\there"),
        ("--by", "x" * 501),
        ("--by", "new\nline"),
        ("--by", " "),
    ],
)
def test_a_reason_or_name_is_1_to_500_printable_characters(
    toml: Path, database: list[Any], option: str, value: str
) -> None:
    argv = ["floor", "release", "T01", "--reason", "ok", "--by", "pat", "--config", str(toml)]
    argv[argv.index(option) + 1] = value
    status, out, err = invoke(argv)
    assert (status, out) == (2, [])
    assert err == [f"dealer-station floor: (arguments): {option}: 1-500 printable characters"]
    assert database == []  # refused before the database is reached


def test_a_reason_of_500_characters_is_taken(
    toml: Path, database: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def release(*args: Any) -> str:
        database.append(args)
        return "x"

    monkeypatch.setattr(floor.operations, "release", release)
    reason = "r" * 500
    argv = ["floor", "release", "T01", "--reason", reason, "--by", "b" * 500]
    assert invoke([*argv, "--config", str(toml)])[0] == 0
    assert database[-1][1:] == ("T01", "b" * 500, reason)


def test_an_operation_that_cannot_be_done_is_status_1_in_one_line(
    toml: Path, database: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_: object) -> str:
        raise OperationError("table T09 is not quarantined")

    monkeypatch.setattr(floor.operations, "release", refuse)
    argv = ["floor", "release", "T09", "--reason", "x", "--config", str(toml)]
    assert invoke(argv) == (1, [], ["dealer-station floor: table T09 is not quarantined"])


def test_a_database_that_cannot_be_reached_is_status_1_with_its_first_line(toml: Path) -> None:
    status, out, err = invoke(["floor", "alerts", "--config", str(toml)])
    assert (status, out) == (1, [])
    assert err == [
        "dealer-station floor: database: connection is bad: connection to server on socket"
        ' "/nonexistent/socket/.s.PGSQL.5432" failed: No such file or directory'
    ]


def test_a_database_error_without_a_message_is_named_by_its_type(
    toml: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def connect(*_: object, **__: object) -> None:
        raise psycopg.OperationalError()

    monkeypatch.setattr(psycopg, "connect", connect)
    assert invoke(["floor", "migrate", "--config", str(toml)]) == (
        1,
        [],
        ["dealer-station floor: database: OperationalError()"],
    )


def test_a_database_message_with_control_characters_is_shown_escaped_on_one_line(
    toml: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def connect(*_: object, **__: object) -> None:
        raise psycopg.OperationalError('database "fl\x1b[31moor" in C:\\pg isn\'t there\nDETAIL: x')

    monkeypatch.setattr(psycopg, "connect", connect)
    assert invoke(["floor", "migrate", "--config", str(toml)])[2] == [
        'dealer-station floor: database: database "fl\\x1b[31moor" in C:\\pg isn\'t there'
    ]


def test_a_config_that_cannot_be_read_is_status_2(tmp_path: Path) -> None:
    missing = tmp_path / "none.toml"
    status, out, err = invoke(["floor", "alerts", "--config", str(missing)])
    assert (status, out, len(err)) == (2, [], 1) and err[0].startswith(
        f"dealer-station floor: {missing}: "
    )


# --- serve and collect -------------------------------------------------------------------------


def test_serve_runs_the_monitor_with_the_config(
    toml: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served: list[FloorConfig] = []
    monkeypatch.setattr(floor.monitor, "serve", served.append)
    assert invoke(["floor", "serve", "--config", str(toml)]) == (0, [], [])
    assert [c.conninfo for c in served] == [NOWHERE]


def test_a_monitor_that_cannot_bind_its_port_is_status_2(
    toml: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def serve(config: FloorConfig) -> None:
        raise OSError(98, "Address already in use")

    monkeypatch.setattr(floor.monitor, "serve", serve)
    assert invoke(["floor", "serve", "--config", str(toml)]) == (
        2,
        [],
        ["dealer-station floor: [Errno 98] Address already in use"],
    )


class _Collector:
    """``floor.collector.Collector`` as ``floor collect`` drives it."""

    made: ClassVar[list[_Collector]] = []

    def __init__(self, config: FloorConfig) -> None:
        self.config, self.started, self.failure = config, False, "the writer thread stopped: boom"
        _Collector.made.append(self)

    def start(self) -> None:
        self.started = True


@pytest.fixture
def collecting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[SimpleNamespace]:
    """``floor collect`` with a stand-in collector: its supervision records
    ``(collector, stop event, notifier)`` in ``supervised`` and answers the next of
    ``statuses``; the signal handlers are put back afterwards."""
    _Collector.made = []
    run = SimpleNamespace(statuses=[], supervised=[])

    def supervise(collector: _Collector, stop: threading.Event, notifier: Any) -> int:
        assert collector.started
        run.supervised.append((collector, stop, notifier))
        status: int = run.statuses.pop(0)
        return status

    monkeypatch.setattr(floor.collector, "Collector", _Collector)
    monkeypatch.setattr(floor.collector, "supervise", supervise)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(tmp_path / "notify"))
    listener.setblocking(False)
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    run.notified = lambda: _received(listener)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    yield run
    listener.close()
    for signum, handler in handlers.items():
        signal.signal(signum, handler)


def _received(listener: socket.socket) -> list[str]:
    out = []
    while True:
        try:
            out.append(listener.recv(1000).decode())
        except BlockingIOError:
            return out


class _Stdout(io.StringIO):
    """Standard output that notes what had been written at each flush."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed: list[str] = []

    def flush(self) -> None:
        self.flushed.append(self.getvalue())


def test_collect_runs_the_collector_until_a_signal_stops_it(
    toml: Path, collecting: SimpleNamespace
) -> None:
    collecting.statuses.append(0)
    stdout = _Stdout()
    with contextlib.redirect_stdout(stdout):
        assert cli.run(_parse("collect", "--config", str(toml))) == 0
    # Said at once (systemd's journal gets a pipe, which Python would otherwise buffer).
    assert stdout.flushed[:1] == ["collecting from broker.casino.lan:8884\n"]
    # systemd is told it is ready, then stopping; the supervision feeds its watchdog.
    assert collecting.notified() == [
        "READY=1\nSTATUS=collecting from broker.casino.lan:8884",
        "STOPPING=1",
    ]
    ((collector, stop, notifier),) = collecting.supervised
    assert isinstance(notifier, Notifier)
    assert collector.config.conninfo == NOWHERE and _Collector.made == [collector]
    for signum in (signal.SIGTERM, signal.SIGINT):
        stop.clear()
        handler = signal.getsignal(signum)
        assert callable(handler)
        handler(signum, None)
        assert stop.is_set()


def test_a_collector_whose_thread_died_exits_1_saying_why(
    toml: Path, collecting: SimpleNamespace
) -> None:
    collecting.statuses.append(1)
    status, out, err = invoke(["floor", "collect", "--config", str(toml)])
    assert (status, out) == (1, ["collecting from broker.casino.lan:8884"])
    assert err == ["dealer-station floor: collector stopped: the writer thread stopped: boom"]


# --- what the operator is told -----------------------------------------------------------------

ACTIONS_SAID = {
    "collect": "subscribe to the stations and write their journals into PostgreSQL",
    "serve": "serve the floor monitor page",
    "migrate": "bring the database schema up to date and exit",
    "alerts": "list the open alerts and the quarantined tables",
    "release": "end a table's quarantine (its next rows are checked again)",
    "clear-alert": "close an open alert",
}


@pytest.fixture
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # argparse wraps at the terminal's width


def _help(*argv: str) -> list[str]:
    status, out, err = invoke(["floor", *argv, "--help"])
    assert (status, err) == (0, [])
    return [" ".join(line.split()) for line in out]


def test_the_floors_help_lists_each_action_with_what_it_does(wide: None) -> None:
    lines = _help()
    assert any(
        line.startswith("usage: ") and line.endswith(" floor [-h] ACTION ...") for line in lines
    )
    for action, said in ACTIONS_SAID.items():
        assert f"{action} {said}" in lines
    i = lines.index("hash-password")  # a long name: its help on the next line
    assert (
        lines[i + 1] == "read a password on stdin, print its hash for floor.toml's [monitor.users]"
    )


@pytest.mark.parametrize("action", list(ACTIONS_SAID))
def test_each_actions_help_says_what_it_does_and_takes_a_config_file(
    action: str, wide: None
) -> None:
    lines = _help(action)
    assert ACTIONS_SAID[action] in lines  # the description, on its own line
    assert any(line.startswith("--config FILE") for line in lines)


def test_release_and_clear_alert_explain_their_arguments(wide: None) -> None:
    release = _help("release")
    assert "table the table id" in release
    assert "--reason REASON why (kept with the action)" in release
    assert "--by BY who (default: the login name)" in release
    assert "alert the alert's number (floor alerts)" in _help("clear-alert")
