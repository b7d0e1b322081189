"""The console feed's listener (``floor.feed.Feed.run``) on a real PostgreSQL, without a
browser: one autocommit connection named for the console that reads the grid at once, again
soon after a ``NOTIFY floor_changed`` and at least every second without one, that hears the
collectors' heartbeats without reading for them (every one, a change sent with it too); a
read or a connection that hangs counted as a lost database, and a lost database said once,
retried each second and read again. A stop at any step ends the feed at once, its
connection closed, and so does a cancel that Python 3.11's ``asyncio.wait_for`` loses.

The grid a read returns is the real one (:func:`floor.queries.snapshot` on an empty floor);
the tests only note each read (its time and connection) on its way. The pacing itself is
stated without a server in tests/test_floor_feed_rules.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest

from floor import feed as feed_module
from floor import queries
from floor.casino import Casino
from floor.feed import Feed
from floor.servers import Database

CASINO = Casino("UTC")


@dataclass(frozen=True)
class Read:
    """One read of the grid: when it began, on which backend, with which settings."""

    at: float
    pid: int
    autocommit: bool
    prepare_threshold: int | None


async def _all_open(tokens: set[str]) -> set[str]:
    return tokens


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Read]:
    """Each read the feed makes, noted before the real snapshot runs."""
    noted: list[Read] = []
    real = queries.snapshot

    async def noting(conn: Any, *args: Any) -> dict[str, Any]:
        noted.append(
            Read(time.monotonic(), conn.info.backend_pid, conn.autocommit, conn.prepare_threshold)
        )
        found: dict[str, Any] = await real(conn, *args)
        return found

    monkeypatch.setattr(queries, "snapshot", noting)
    return noted


class ProblemsFeed(Feed):
    """A feed that keeps every value its ``db_problem`` took, in order (``seen``)."""

    seen: list[str | None]

    @property  # type: ignore[override]
    def db_problem(self) -> str | None:
        return self._problem

    @db_problem.setter
    def db_problem(self, value: str | None) -> None:
        if not hasattr(self, "seen"):
            self.seen = []
        self.seen.append(value)
        self._problem = value


async def _until(check: Callable[[], object], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        await asyncio.sleep(0.01)
    return bool(check())


def _running(feed: Feed, body: Callable[[], Awaitable[None]]) -> None:
    """Run ``feed`` while ``body`` runs, then stop it."""

    async def main() -> None:
        runner = asyncio.create_task(feed.run())
        try:
            await body()
        finally:
            feed.stop()
            done, _ = await asyncio.wait({runner}, timeout=10.0)
            assert done, "the feed did not stop within 10 s"

    asyncio.run(main())


def _notify(database: Database, channel: str, payload: str = "") -> None:
    with psycopg.connect(database.conninfo, autocommit=True) as conn:
        conn.execute("SELECT pg_notify(%s, %s)", (channel, payload))


def _feed_backends(database: Database) -> list[tuple[int, str]]:
    """``(pid, state)`` of the feed's connections to the floor database."""
    with psycopg.connect(database.conninfo, autocommit=True) as conn:
        return conn.execute(
            "SELECT pid, state FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = 'floor-console feed'"
        ).fetchall()


def test_the_feed_reads_at_once_on_one_autocommit_connection_named_for_the_console(
    floor_database: Database, reads: list[Read]
) -> None:
    feed = Feed(floor_database.conninfo, CASINO, 30.0, _all_open)

    async def body() -> None:
        assert await _until(lambda: feed.db_problem is None)
        assert feed.last_good is not None and reads
        backends = await asyncio.to_thread(_feed_backends, floor_database)
        # Idle between reads, not in a transaction (where no notification is delivered).
        assert backends == [(reads[0].pid, "idle")]

    _running(feed, body)
    # Planned each time, as the pool's statements (floor.console): no prepared statement.
    assert (reads[0].autocommit, reads[0].prepare_threshold) == (True, None)


def test_with_no_change_the_floor_is_read_each_second_on_the_same_connection(
    floor_database: Database, reads: list[Read]
) -> None:
    feed = Feed(floor_database.conninfo, CASINO, 30.0, _all_open)

    async def body() -> None:
        assert await _until(lambda: len(reads) >= 3)

    _running(feed, body)
    gaps = [b.at - a.at for a, b in itertools.pairwise(reads)]
    assert all(gap >= 1.0 for gap in gaps), gaps
    assert {r.pid for r in reads} == {reads[0].pid}


def test_a_change_is_read_a_quarter_second_after_the_last_read_on_the_same_connection(
    floor_database: Database, reads: list[Read], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(feed_module, "IDLE_SECONDS", 60.0)  # no read but for the change
    feed = Feed(floor_database.conninfo, CASINO, 30.0, _all_open)

    async def body() -> None:
        assert await _until(lambda: reads)
        await asyncio.to_thread(_notify, floor_database, "floor_changed")
        assert await _until(lambda: len(reads) >= 2)
        await asyncio.to_thread(_notify, floor_database, "floor_changed")
        assert await _until(lambda: len(reads) >= 3)

    _running(feed, body)
    assert reads[1].at - reads[0].at >= 0.25
    assert {r.pid for r in reads} == {reads[0].pid}


def test_a_change_ends_the_wait_for_notifications_at_once(
    floor_database: Database, reads: list[Read], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Waits of a minute, for a read and for notifications: only the change ends one.
    monkeypatch.setattr(feed_module, "IDLE_SECONDS", 60.0)
    monkeypatch.setattr(feed_module, "STOP_POLL", 60.0)
    noting = queries.snapshot
    feed = Feed(floor_database.conninfo, CASINO, 30.0, _all_open)

    async def snapshot(*args: Any) -> dict[str, Any]:
        found: dict[str, Any] = await noting(*args)
        if len(reads) == 2:
            feed.stop()  # as the change's read ends: no wait of a minute after it
        return found

    monkeypatch.setattr(queries, "snapshot", snapshot)

    async def body() -> None:
        assert await _until(lambda: reads)
        await asyncio.to_thread(_notify, floor_database, "floor_changed")
        assert await _until(lambda: len(reads) >= 2)

    _running(feed, body)
    assert len(reads) == 2


def test_a_change_heard_right_after_a_slow_read_waits_four_times_its_duration(
    floor_database: Database, reads: list[Read], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(feed_module, "IDLE_SECONDS", 60.0)
    real = queries.snapshot  # the noting one

    async def slow(*args: Any) -> dict[str, Any]:
        found: dict[str, Any] = await real(*args)
        await asyncio.sleep(0.3)  # a big floor's read
        return found

    monkeypatch.setattr(queries, "snapshot", slow)
    feed = Feed(floor_database.conninfo, CASINO, 30.0, _all_open)

    async def body() -> None:
        assert await _until(lambda: feed.last_good is not None)
        ended = time.monotonic()
        await asyncio.to_thread(_notify, floor_database, "floor_changed")
        assert await _until(lambda: len(reads) >= 2)
        # The first read took 0.3 s and more: the next waits at least 1.2 s after its end.
        assert reads[1].at - ended >= 1.2 - 0.05

    _running(feed, body)
    assert {r.pid for r in reads} == {reads[0].pid}


def test_a_heartbeat_is_heard_and_makes_no_read(
    floor_database: Database, reads: list[Read], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(feed_module, "IDLE_SECONDS", 60.0)
    feed = Feed(floor_database.conninfo, CASINO, 30.0, _all_open)

    async def body() -> None:
        assert await _until(lambda: reads)
        await asyncio.to_thread(_notify, floor_database, "floor_collector", "c1 writer stopped")
        assert await _until(lambda: "c1" in feed.collectors)
        await asyncio.sleep(0.5)  # a read it made would come within 0.25 s

    _running(feed, body)
    assert feed.collectors["c1"][1] == "writer stopped"
    assert len(reads) == 1


def test_a_read_that_hangs_is_a_lost_database_and_the_feed_connects_again(
    floor_database: Database, reads: list[Read], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(feed_module, "QUERY_SECONDS", 0.3)
    real = queries.snapshot
    calls = 0

    async def hangs_once(*args: Any) -> dict[str, Any]:
        nonlocal calls
        calls += 1
        found: dict[str, Any] = await real(*args)
        if calls == 2:
            await asyncio.sleep(3600)
        return found

    monkeypatch.setattr(queries, "snapshot", hangs_once)
    feed = ProblemsFeed(floor_database.conninfo, CASINO, 30.0, _all_open)

    async def body() -> None:
        assert await _until(lambda: feed.db_problem is None and len(reads) >= 3)

    _running(feed, body)
    # Every state the feed went through (polling would miss a loss shorter than a poll on a
    # busy machine): connected, lost, connected again; a slow machine may lose a read more.
    seen = feed.seen
    assert seen[:2] == ["not connected yet", None], seen
    assert "lost" in seen[2:] and seen[-1] is None, seen
    assert {p for p in seen[2:] if p is not None} == {"lost"}  # a timeout says nothing of itself
    assert reads[2].pid != reads[0].pid and reads[2].at - reads[1].at >= 1.0 + 0.3


def test_a_lost_connection_is_dated_when_it_was_lost_and_read_again(
    floor_database: Database, reads: list[Read]
) -> None:
    feed = Feed(floor_database.conninfo, CASINO, 30.0, _all_open)
    moments: list[datetime] = []

    def kill(pid: int) -> None:
        with psycopg.connect(floor_database.conninfo, autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))

    async def body() -> None:
        assert await _until(lambda: reads and feed.db_problem is None)
        moments.append(datetime.now(UTC))
        await asyncio.to_thread(kill, reads[0].pid)
        assert await _until(lambda: feed.db_problem is not None)
        moments.append(datetime.now(UTC))
        assert await _until(lambda: feed.db_problem is None and reads[-1].pid != reads[0].pid)

    _running(feed, body)
    assert moments[0] <= feed.db_since <= moments[1]


# --- a database that cannot be reached --------------------------------------------------------


@contextlib.contextmanager
def _mute_server(directory: Path, *, answer: bool) -> Iterator[list[float]]:
    """A unix socket where PostgreSQL's would be in ``directory``: each connection is noted
    (its monotonic time) and closed at once (``answer``), or held without a word."""
    accepted: list[float] = []
    held: list[socket.socket] = []
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(directory / ".s.PGSQL.5432"))
    listener.listen(8)
    listener.settimeout(0.1)
    done = threading.Event()

    def serve() -> None:
        while not done.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            accepted.append(time.monotonic())
            if answer:
                conn.close()
            else:
                held.append(conn)

    thread = threading.Thread(target=serve, name="mute-postgres")
    thread.start()
    try:
        yield accepted
    finally:
        done.set()
        thread.join(5)
        listener.close()
        for conn in held:
            conn.close()


def test_a_server_that_never_answers_is_a_lost_database_after_the_query_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(feed_module, "QUERY_SECONDS", 0.3)
    feed = Feed(f"host={tmp_path} dbname=floor", CASINO, 30.0, _all_open)
    made = feed.db_since

    async def body() -> None:
        assert await _until(lambda: feed.db_problem != "not connected yet", 5.0)

    with _mute_server(tmp_path, answer=False) as accepted:
        _running(feed, body)
    assert feed.db_problem == "lost" and accepted
    assert feed.db_since == made  # never connected: unreachable since the feed was made


def test_a_refused_connection_is_tried_again_each_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    feed = Feed(f"host={tmp_path} dbname=floor", CASINO, 30.0, _all_open)
    made = feed.db_since

    async def body() -> None:
        assert await _until(lambda: len(accepted) >= 3)

    with _mute_server(tmp_path, answer=True) as accepted:
        _running(feed, body)
    gaps = [b - a for a, b in itertools.pairwise(accepted)]
    assert all(1.0 <= gap < 1.9 for gap in gaps), gaps
    assert feed.db_since == made
    assert feed.db_problem is not None and feed.db_problem != "not connected yet"


def test_a_long_error_is_cut_to_its_first_120_characters() -> None:
    directory = "/nonexistent/" + "d" * 150  # longer than a unix socket's path may be
    feed = Feed(f"host={directory} dbname=floor", CASINO, 30.0, _all_open)

    async def body() -> None:
        assert await _until(lambda: feed.db_problem != "not connected yet", 5.0)

    _running(feed, body)
    # libpq's refusal of the path, cut at 120 characters.
    said = 'connection is bad: Unix-domain socket path "/nonexistent/'
    assert feed.db_problem == said + "d" * (120 - len(said))


def test_a_heartbeat_sent_with_a_change_is_heard_too(
    floor_database: Database, reads: list[Read], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(feed_module, "IDLE_SECONDS", 60.0)
    feed = Feed(floor_database.conninfo, CASINO, 30.0, _all_open)

    def change_and_heartbeat() -> None:
        # One transaction: PostgreSQL delivers its notifications together at the commit.
        with psycopg.connect(floor_database.conninfo) as conn:
            conn.execute("SELECT pg_notify('floor_changed', '')")
            conn.execute("SELECT pg_notify('floor_collector', 'c1 ok')")

    async def body() -> None:
        assert await _until(lambda: reads)
        await asyncio.to_thread(change_and_heartbeat)
        assert await _until(lambda: len(reads) >= 2)
        assert await _until(lambda: "c1" in feed.collectors)

    _running(feed, body)
    assert feed.collectors["c1"][1] == "ok"


# --- stopping (floor.feed's docstring): a stop at each step of the listener ends it at once.
# The waits a missed stop would sit out (the next read, the next attempt, the next tick) are
# made a minute long, so that a feed that stops at once is told from one that does not whatever
# the machine's load; each stop comes on an event of the feed's own (a call made or answered).


@pytest.fixture
def long_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("IDLE_SECONDS", "RETRY_SECONDS", "TICK_SECONDS"):
        monkeypatch.setattr(feed_module, name, 60.0)


#: Where the stop comes, and how many reads the feed has made by then.
STOP_POINTS = {
    "as its connection is made": 0,
    "as a read starts": 1,
    "as a read ends": 1,
    "while it waits for notifications": 1,
    "as it hears a heartbeat": 1,
    "as it hears a change": 1,  # and reads no more
}


@pytest.mark.parametrize("point", list(STOP_POINTS))
def test_a_stop_ends_the_feed_at_once_and_closes_its_connection(
    floor_database: Database,
    reads: list[Read],
    monkeypatch: pytest.MonkeyPatch,
    long_waits: None,
    point: str,
) -> None:
    monkeypatch.setattr(feed_module, "IDLE_SECONDS", 60.0)
    feed = Feed(floor_database.conninfo, CASINO, 30.0, _all_open)
    waiting = asyncio.Event()  # the feed waits for notifications
    connect = psycopg.AsyncConnection.connect
    noting = queries.snapshot  # the fixture's
    notifies = psycopg.AsyncConnection.notifies
    heard = feed._heard

    async def connected(*args: Any, **kwargs: Any) -> Any:
        conn = await connect(*args, **kwargs)
        if point == "as its connection is made":
            feed.stop()
        return conn

    async def snapshot(*args: Any) -> dict[str, Any]:
        if point == "as a read starts":
            feed.stop()
        found: dict[str, Any] = await noting(*args)
        if point == "as a read ends":
            feed.stop()
        return found

    async def listening(conn: Any, **kwargs: Any) -> Any:
        waiting.set()
        async for note in notifies(conn, **kwargs):
            if point == "as it hears a change":
                feed.stop()
            yield note

    def hearing(payload: str) -> None:
        heard(payload)
        if point == "as it hears a heartbeat":
            feed.stop()

    monkeypatch.setattr(psycopg.AsyncConnection, "connect", connected)
    monkeypatch.setattr(queries, "snapshot", snapshot)
    monkeypatch.setattr(psycopg.AsyncConnection, "notifies", listening)
    monkeypatch.setattr(feed, "_heard", hearing)

    sent = {
        "while it waits for notifications": None,
        "as it hears a heartbeat": ("floor_collector", "c1 ok"),
        "as it hears a change": ("floor_changed", ""),
    }

    async def main() -> bool:
        runner = asyncio.create_task(feed.run())
        if point in sent:
            await asyncio.wait(
                {asyncio.create_task(waiting.wait()), runner},
                timeout=10.0,
                return_when=asyncio.FIRST_COMPLETED,
            )
            assert waiting.is_set()
            if (notification := sent[point]) is None:
                feed.stop()
            else:
                await asyncio.to_thread(_notify, floor_database, *notification)
        await asyncio.wait({runner}, timeout=10.0)
        return runner.done()

    assert asyncio.run(main()), f"the feed stopped {point} did not end within 10 s"
    assert len(reads) == STOP_POINTS[point]
    assert asyncio.run(_until(lambda: not _feed_backends(floor_database)))
    assert ("c1" in feed.collectors) == (point == "as it hears a heartbeat")


def test_a_cancel_that_comes_as_a_read_ends_is_not_lost(
    floor_database: Database, reads: list[Read], monkeypatch: pytest.MonkeyPatch, long_waits: None
) -> None:
    noting = queries.snapshot

    async def main() -> bool:
        async def snapshot(*args: Any) -> dict[str, Any]:
            found: dict[str, Any] = await noting(*args)
            runner.cancel()  # Python 3.11's wait_for hands back the read, not the cancel
            return found

        monkeypatch.setattr(queries, "snapshot", snapshot)
        runner = asyncio.create_task(Feed(floor_database.conninfo, CASINO, 30.0, _all_open).run())
        await asyncio.wait({runner}, timeout=10.0)
        return runner.done()

    assert asyncio.run(main()), "the cancelled feed did not end within 10 s"
    assert len(reads) == 1
