"""A collector's heartbeat (``floor.heartbeat``) on a real PostgreSQL: ``NOTIFY
floor_collector, 'NAME STATE'`` about every second, delivered (autocommit: a notification
waits for its transaction's commit), cut to what a payload holds, and kept up across a
database that goes away and comes back. The console's side (a banner when no collector is
heard) is ``tests/test_floor_console_stale.py``'s, in a browser."""

from __future__ import annotations

import gc
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from floor_fixtures import HeldThread

from floor.heartbeat import CHANNEL, INTERVAL, Heartbeat
from floor.servers import Database


@pytest.fixture
def listener(floor_database: Database) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(floor_database.conninfo, autocommit=True) as conn:
        conn.execute(f"LISTEN {CHANNEL}")
        yield conn


def _heard(conn: psycopg.Connection[tuple[object, ...]], timeout: float = 10.0) -> list[str]:
    """The payloads of the next notification (empty after ``timeout`` seconds)."""
    return [n.payload for n in conn.notifies(timeout=timeout, stop_after=1)]


def test_the_heartbeat_names_the_collector_and_its_state_every_second(
    floor_database: Database,
    listener: psycopg.Connection[tuple[object, ...]],
) -> None:
    states = iter(["ok", "broker lost"])
    beat = Heartbeat(floor_database.conninfo, "collector-7", lambda: next(states, "ok"))
    beat.start()
    try:
        assert _heard(listener) == ["collector-7 ok"]
        first = time.monotonic()
        assert _heard(listener) == ["collector-7 broker lost"]
        assert INTERVAL == 1.0 and time.monotonic() - first >= 0.9  # no faster than a second
    finally:
        beat.stop()
    assert not beat._thread.is_alive()


def test_a_long_state_is_cut_to_200_characters(
    floor_database: Database,
    listener: psycopg.Connection[tuple[object, ...]],
) -> None:
    beat = Heartbeat(floor_database.conninfo, "collector-7", lambda: "x" * 300)
    beat.start()
    try:
        assert _heard(listener) == ["collector-7 " + "x" * 188]
    finally:
        beat.stop()


def test_the_heartbeats_connection_is_named_for_the_collector(
    floor_database: Database,
    listener: psycopg.Connection[tuple[object, ...]],
) -> None:
    beat = Heartbeat(floor_database.conninfo, "collector-9", lambda: "ok")
    beat.start()
    try:
        assert _heard(listener) == ["collector-9 ok"]
        names = listener.execute("SELECT application_name FROM pg_stat_activity").fetchall()
        assert ("floor-collector collector-9",) in names
    finally:
        beat.stop()


def test_the_heartbeat_outlives_a_database_that_goes_away(
    floor_database: Database,
) -> None:
    beat = Heartbeat(floor_database.conninfo, "collector-8", lambda: "ok")
    with psycopg.connect(floor_database.conninfo, autocommit=True) as conn:
        conn.execute(f"LISTEN {CHANNEL}")
        beat.start()
        assert _heard(conn) == ["collector-8 ok"]
    try:
        floor_database.stop()
        floor_database.start()
        with psycopg.connect(floor_database.conninfo, autocommit=True) as conn:
            conn.execute(f"LISTEN {CHANNEL}")
            assert _heard(conn) == ["collector-8 ok"]  # it connected again
        assert beat._thread.is_alive()
    finally:
        beat.stop()


def test_the_heartbeats_thread_is_named_for_what_it_does(tmp_path: Path) -> None:
    """A thread dump of the collector (py-spy, faulthandler) or the traceback of a thread
    that dies names it: the heartbeat's is ``collector-heartbeat``, beside the writer's
    ``collector-writer``. No database needed: one that cannot be reached is retried."""
    beat = Heartbeat(f"host={tmp_path / 'no-socket-here'}", "collector-7", lambda: "ok")
    errors: list[threading.ExceptHookArgs] = []
    default, threading.excepthook = threading.excepthook, errors.append
    try:
        beat.start()
        try:
            assert "collector-heartbeat" in {t.name for t in threading.enumerate()}
        finally:
            beat.stop()
    finally:
        threading.excepthook = default
    assert not beat._thread.is_alive()
    assert errors == []  # it ended as it ran, never connected: without an error


def test_stopping_never_waits_on_a_database_that_stopped_answering(
    floor_database: Database,
    listener: psycopg.Connection[tuple[object, ...]],
) -> None:
    """A database that holds the heartbeat's NOTIFY unanswered (its server process
    stopped) does not hold the collector's stop: it waits for the heartbeat's thread 5 s
    at most, as systemd waits for the whole process."""
    # The beat is held inside state() (before its NOTIFY) while the server is stopped, so
    # the NOTIFY that follows is sure to reach the stopped server, however slow the machine:
    # waiting for "the next beat" after the stop could catch one already sent.
    armed, asked, gate = threading.Event(), threading.Event(), threading.Event()

    def state() -> str:
        if armed.is_set():
            asked.set()
            gate.wait(30)
        return "ok"

    beat = Heartbeat(floor_database.conninfo, "collector-6", state)
    beat.start()
    assert _heard(listener) == ["collector-6 ok"]  # connected
    found = listener.execute(
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'floor-collector collector-6'"
    ).fetchone()
    assert found is not None
    backend = int(str(found[0]))
    armed.set()
    assert asked.wait(10)  # the next beat is held just before its NOTIFY
    os.kill(backend, signal.SIGSTOP)
    try:
        gate.set()  # its NOTIFY goes to the stopped server
        beat.stop()
        assert beat._thread.is_alive()  # stop returned with the thread still held
    finally:
        os.kill(backend, signal.SIGCONT)
    beat._thread.join(10)
    assert not beat._thread.is_alive()


def test_a_database_that_never_answers_the_connection_is_tried_again(tmp_path: Path) -> None:
    """A database address that takes the connection and never answers (a server hung
    before it greets) holds the heartbeat 5 s (``connect_timeout``), not for good: it
    connects again, so a database that comes back is heard again."""
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.bind(str(tmp_path / ".s.PGSQL.5432"))
    silent.listen(4)
    silent.settimeout(20)
    beat = Heartbeat(f"host={tmp_path}", "collector-5", lambda: "ok")
    beat.start()
    held: list[socket.socket] = []
    try:
        for _ in range(2):  # the first connection, then another once it gave up
            held.append(silent.accept()[0])
    finally:
        for conn in held:  # a connection the address drops fails at once
            conn.close()
        silent.close()
        beat.stop()
    assert not beat._thread.is_alive()
    gc.collect()  # the socket of a connection attempt given up on goes at a collection


def test_the_heartbeats_connection_gives_up_after_5_seconds(
    floor_database: Database,
    listener: psycopg.Connection[tuple[object, ...]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """libpq holds the bound the heartbeat's connection was made with: a database address
    that takes the connection and never answers holds the heartbeat 5 s at most (the
    module's docstring; ``test_a_database_that_never_answers_the_connection_is_tried_again``
    plays such an address, which cannot tell 5 s from 6 without an upper bound on time)."""
    made: list[dict[str, str]] = []  # the parameters of each connection libpq made
    real = psycopg.connect

    def connect(*args: object, **kwargs: object) -> psycopg.Connection[tuple[object, ...]]:
        conn = real(*args, **kwargs)  # type: ignore[arg-type]
        made.append(conn.info.get_parameters())
        return conn

    monkeypatch.setattr(psycopg, "connect", connect)
    beat = Heartbeat(floor_database.conninfo, "collector-4", lambda: "ok")
    beat.start()
    try:
        assert _heard(listener) == ["collector-4 ok"]  # connected, through the real libpq
    finally:
        beat.stop()
    assert [parameters["connect_timeout"] for parameters in made] == ["5"]


def test_a_stop_waits_5_seconds_at_most_for_a_heartbeat_held_by_its_database(
    tmp_path: Path,
) -> None:
    """``Heartbeat.stop``'s documented bound (5 s, then the thread is left to end on its
    own); ``test_stopping_never_waits_on_a_database_that_stopped_answering`` plays a held
    thread, which cannot tell 5 s from 6 without an upper bound on time."""
    beat = Heartbeat(f"host={tmp_path / 'no-socket-here'}", "collector-3", lambda: "ok")
    beat._thread = held = HeldThread()  # type: ignore[assignment]
    beat.stop()
    assert held.joins == [5]
