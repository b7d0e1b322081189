"""The console's live feed (``floor.feed``) without a server: an event's text, a stream that
falls behind getting the whole picture, a stream ended with its last event, at most
``max_streams`` streams, what makes the picture stale (the database, no good read for 3 s,
no collector heard for 3 s, a collector's own trouble) and what each read sends (only the
tables that changed, the alerts and periods when they changed). The reads themselves, the
listener and the ticks run on PostgreSQL in tests/test_floor_console.py and
test_floor_console_stale.py; here the grid a read returns is written by hand.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest

from floor import feed as feed_module
from floor import queries
from floor.casino import Casino
from floor.feed import MAX_STREAMS, QUEUED, STALE_SECONDS, Feed, Pacing, Stream, event

NEW_YORK = Casino("America/New_York")
SEEN = datetime(2026, 12, 2, 15, 4, 5, tzinfo=UTC)  # 10:04:05 EST


async def _no_sessions(tokens: set[str]) -> set[str]:
    return tokens


def _feed(**kwargs: Any) -> Feed:
    return Feed("host=/nonexistent", NEW_YORK, 30.0, _no_sessions, **kwargs)


def _events(stream: Stream) -> list[tuple[str, Any]]:
    found = []
    while not stream.queue.empty():
        text = stream.queue.get_nowait()
        head, data, end = text.split("\n", 2)
        assert head.startswith("event: ") and data.startswith("data: ") and end == "\n"
        found.append((head[len("event: ") :], json.loads(data[len("data: ") :])))
    return found


# --- events and streams ----------------------------------------------------------------------


def test_an_event_is_its_name_and_compact_json_then_a_blank_line() -> None:
    assert event("grid", {"a": [1, 2], "b": "x"}) == ('event: grid\ndata: {"a":[1,2],"b":"x"}\n\n')
    assert event("bye", {}) == "event: bye\ndata: {}\n\n"


def test_a_stream_keeps_sixteen_events_and_then_gets_the_whole_picture_instead() -> None:
    async def main() -> None:
        stream = Stream("t")
        for n in range(QUEUED):
            stream.offer(f"e{n}", lambda: "whole")
        assert stream.queue.qsize() == 16
        stream.offer("one more", lambda: "whole")
        assert [stream.queue.get_nowait() for _ in range(stream.queue.qsize())] == ["whole"]
        assert not stream.closed

    asyncio.run(main())


def test_an_ended_stream_gets_only_its_last_event_and_is_closed() -> None:
    async def main() -> None:
        stream = Stream("t")
        for n in range(3):
            stream.offer(f"e{n}", lambda: "whole")
        stream.end("last")
        assert stream.closed
        assert [stream.queue.get_nowait() for _ in range(stream.queue.qsize())] == ["last"]
        full = Stream("u")
        for n in range(QUEUED):
            full.offer(f"e{n}", lambda: "whole")
        full.end("last")
        assert [full.queue.get_nowait() for _ in range(full.queue.qsize())] == ["last"]

    asyncio.run(main())


def test_at_most_max_streams_at_once_and_a_closed_one_frees_its_place() -> None:
    async def main() -> None:
        assert MAX_STREAMS == 64
        feed = _feed(max_streams=2)
        first, second = feed.subscribe("a"), feed.subscribe("b")
        assert first is not None and second is not None and first is not second
        assert (first.token, second.token) == ("a", "b")
        assert feed.subscribe("c") is None
        feed.unsubscribe(first)
        third = feed.subscribe("c")
        assert third is not None and feed.streams == {second, third}
        assert _feed().max_streams == 64
        assert _feed().still_open is _no_sessions

    asyncio.run(main())


def test_the_whole_picture_is_every_table_the_alerts_and_the_periods() -> None:
    feed = _feed()
    assert feed.full() == event("grid", {"full": True, "tables": [], "alerts": []})
    feed.tables = {"T1": {"table": "T1"}, "T2": {"table": "T2"}}
    feed.alerts = [{"id": 1}]
    feed.periods = {"shift": "day shift", "day": "gaming day"}
    assert feed.full() == event(
        "grid",
        {
            "full": True,
            "tables": [{"table": "T1"}, {"table": "T2"}],
            "alerts": [{"id": 1}],
            "shift": "day shift",
            "day": "gaming day",
        },
    )


def test_closing_the_feed_ends_every_stream_with_bye() -> None:
    async def main() -> None:
        feed = _feed()
        streams = [feed.subscribe(t) for t in ("a", "b")]
        feed.close()
        for stream in streams:
            assert stream is not None and stream.closed
            assert _events(stream) == [("bye", {})]

    asyncio.run(main())


# --- stale or not ----------------------------------------------------------------------------


def _fresh(feed: Feed) -> Feed:
    """A feed that read well just now and heard one collector say ok."""
    now = time.monotonic()
    feed.db_problem = None
    feed._last_good_at = now
    feed.last_good = SEEN
    feed.collectors = {"c1": (now, "ok")}
    return feed


def test_a_feed_that_reads_and_hears_a_collector_is_not_stale() -> None:
    state = _fresh(_feed()).state()
    assert state["stale"] == []
    assert state["last_good"] == "2026-12-02 10:04:05 EST"
    assert state["collectors"] == 1
    assert len(state["at"]) == 8 and state["at"].count(":") == 2


def test_before_any_read_the_database_is_not_connected_yet() -> None:
    feed = _feed()
    feed.db_since = SEEN
    state = feed.state()
    assert state["stale"] == ["database unreachable since 10:04:05 (not connected yet)"]
    assert state["last_good"] == "never"
    assert state["collectors"] == 0


def test_a_new_feed_is_not_connected_since_it_was_made() -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    (said,) = _feed().state()["stale"]
    found = re.fullmatch(r"database unreachable since (\d\d:\d\d:\d\d) \(not connected yet\)", said)
    assert found, said
    since = datetime.strptime(found[1], "%H:%M:%S").time()
    assert NEW_YORK.local(before).time() <= since or since.hour == 0  # (midnight)


def test_no_good_read_for_more_than_three_seconds_is_stale() -> None:
    feed = _fresh(_feed())
    feed._last_good_at = time.monotonic() - 2.5
    assert feed.state()["stale"] == []
    feed._last_good_at = time.monotonic() - 4.5
    assert feed.state()["stale"] == ["no answer from the database for 4 s"]


def test_no_collector_heard_for_three_seconds_is_stale_once_the_feed_is_three_seconds_old() -> None:
    feed = _fresh(_feed())
    feed.collectors = {}
    assert feed.state()["stale"] == []  # just started: a collector may not have spoken yet
    feed.started = time.monotonic() - STALE_SECONDS - 1
    assert feed.state()["stale"] == ["no collector heard from (last: never): nothing new is stored"]
    feed.collector_seen = SEEN
    feed.collectors = {"c1": (time.monotonic() - 4, "ok")}
    state = feed.state()
    assert state["stale"] == ["no collector heard from (last: 10:04:05): nothing new is stored"]
    assert state["collectors"] == 0
    feed.collectors = {"c1": (time.monotonic() - 2, "ok")}
    assert feed.state()["stale"] == []


def test_with_the_database_lost_only_that_is_said() -> None:
    feed = _fresh(_feed())
    feed.db_problem, feed.db_since = "connection refused", SEEN
    feed.collectors = {}
    feed.started = time.monotonic() - 10
    assert feed.state()["stale"] == ["database unreachable since 10:04:05 (connection refused)"]


def test_a_collector_in_trouble_is_named_after_the_others() -> None:
    feed = _fresh(_feed())
    now = time.monotonic()
    feed.collectors = {
        "c2": (now, "writer stopped"),
        "c1": (now, "broker lost"),
        "c3": (now, "ok"),
        "c4": (now - 10, "writer stopped"),
    }
    state = feed.state()
    assert state["stale"] == ["collector c1: broker lost", "collector c2: writer stopped"]
    assert state["collectors"] == 3


def test_three_seconds_exactly_is_not_yet_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    feed = _fresh(_feed())
    monkeypatch.setattr(time, "monotonic", lambda: 1000.0)
    feed._last_good_at, feed.started = 997.0, 997.0
    feed.collectors = {"c1": (997.0, "writer stopped")}
    assert feed.state()["stale"] == ["collector c1: writer stopped"]  # heard, and read, in time
    feed.collectors = {}
    assert feed.state()["stale"] == []  # a feed 3 s old still waits for its collectors
    feed._last_good_at, feed.started = 996.5, 996.5
    assert feed.state()["stale"] == [
        "no answer from the database for 3 s",
        "no collector heard from (last: never): nothing new is stored",
    ]


# --- heartbeats --------------------------------------------------------------------------------


def test_a_heartbeat_names_its_collector_and_its_state_ok_when_it_says_none() -> None:
    feed = _feed()
    before = datetime.now(UTC)
    feed._heard("c1 writer stopped")
    feed._heard("c2")
    feed._heard("n" * 70 + " " + "s" * 90)
    assert {n: s for n, (_t, s) in feed.collectors.items()} == {
        "c1": "writer stopped",
        "c2": "ok",
        "n" * 64: "s" * 80,
    }
    assert feed.collector_seen is not None and feed.collector_seen >= before


def test_at_most_256_collectors_are_remembered_the_longest_silent_forgotten() -> None:
    feed = _feed()
    for n in range(256):
        feed._heard(f"c{n}")
    assert len(feed.collectors) == 256
    feed.collectors["c7"] = (time.monotonic() - 100, "ok")  # the longest silent
    feed._heard("new")
    assert len(feed.collectors) == 256
    assert "c7" not in feed.collectors and "new" in feed.collectors and "c0" in feed.collectors


# --- what a read sends -----------------------------------------------------------------------


class _Reads:
    """The snapshots the feed's reads get, one a read (the read's SQL is floor.queries')."""

    def __init__(self, *snapshots: dict[str, Any]) -> None:
        self.snapshots = list(snapshots)
        self.asked: list[tuple[object, Casino, float]] = []

    async def __call__(
        self, conn: object, casino: Casino, silent_after: float, now: datetime
    ) -> dict[str, Any]:
        self.asked.append((conn, casino, silent_after))
        return self.snapshots.pop(0)


def _snapshot(tables: list[dict[str, Any]], alerts: list[Any], shift: str = "s1") -> dict[str, Any]:
    return {"tables": tables, "alerts": alerts, "shift": shift, "day": "d1"}


T1 = {"table": "T1", "state": "betting"}
T1_DEALING = {"table": "T1", "state": "dealing"}
T2 = {"table": "T2", "state": "idle"}


def test_each_read_sends_only_what_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = _Reads(
        _snapshot([T1, T2], []),
        _snapshot([T1, T2], []),
        _snapshot([T1_DEALING, T2], []),
        _snapshot([T2], [{"id": 5}]),
        _snapshot([T2], [{"id": 5}], shift="s2"),
    )
    monkeypatch.setattr(queries, "snapshot", reads)

    async def main() -> list[list[tuple[str, Any]]]:
        feed = _feed()
        stream = feed.subscribe("t")
        assert stream is not None
        conn = object()
        sent = []
        for _ in range(5):
            await feed._read(conn)  # type: ignore[arg-type]
            sent.append(_events(stream))
        assert feed.reads == 5
        assert reads.asked == [(conn, NEW_YORK, 30.0)] * 5
        assert feed.tables == {"T2": T2} and feed.alerts == [{"id": 5}]
        assert feed.periods == {"shift": "s2", "day": "d1"}
        return sent

    first, same, dealing, removed, new_shift = asyncio.run(main())
    assert first == [
        ("grid", {"full": False, "changed": [T1, T2], "removed": [], "shift": "s1", "day": "d1"})
    ]
    assert same == []
    assert dealing == [("grid", {"full": False, "changed": [T1_DEALING], "removed": []})]
    assert removed == [
        ("grid", {"full": False, "changed": [], "removed": ["T1"], "alerts": [{"id": 5}]})
    ]
    assert new_shift == [
        ("grid", {"full": False, "changed": [], "removed": [], "shift": "s2", "day": "d1"})
    ]


def test_a_removed_table_alone_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queries, "snapshot", _Reads(_snapshot([T1, T2], []), _snapshot([T2], [])))

    async def main() -> list[tuple[str, Any]]:
        feed = _feed()
        stream = feed.subscribe("t")
        assert stream is not None
        await feed._read(object())  # type: ignore[arg-type]
        _events(stream)
        await feed._read(object())  # type: ignore[arg-type]
        return _events(stream)

    assert asyncio.run(main()) == [("grid", {"full": False, "changed": [], "removed": ["T1"]})]


def test_a_stream_that_fell_behind_gets_the_whole_picture_of_the_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(queries, "snapshot", _Reads(_snapshot([T1], [])))

    async def main() -> list[tuple[str, Any]]:
        feed = _feed()
        stream = feed.subscribe("t")
        assert stream is not None
        for n in range(QUEUED):
            stream.offer(f"e{n}", feed.full)
        await feed._read(object())  # type: ignore[arg-type]
        return _events(stream)

    assert asyncio.run(main()) == [
        ("grid", {"full": True, "tables": [T1], "alerts": [], "shift": "s1", "day": "d1"})
    ]


def test_a_read_asks_for_the_grid_as_of_now(monkeypatch: pytest.MonkeyPatch) -> None:
    moments: list[datetime] = []

    async def snapshot(conn: object, casino: Casino, silent: float, now: datetime) -> Any:
        moments.append(now)
        return _snapshot([], [])

    monkeypatch.setattr(queries, "snapshot", snapshot)
    before = datetime.now(UTC)
    asyncio.run(_feed()._read(object()))  # type: ignore[arg-type]
    (now,) = moments
    assert before <= now <= datetime.now(UTC)


def test_a_good_read_clears_the_database_problem_and_stamps_the_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(queries, "snapshot", _Reads(_snapshot([], [])))
    feed = _feed()
    feed._last_good_at = 0.0
    before, monotonic = datetime.now(UTC), time.monotonic()
    asyncio.run(feed._read(object()))  # type: ignore[arg-type]
    assert feed.db_problem is None
    assert feed.last_good is not None and feed.last_good >= before
    assert feed._last_good_at >= monotonic
    assert feed.state()["stale"] == []  # a feed under 3 s old waits for its collectors


# --- the ticks and the listener's errors (a second's clock; no database) ---------------------


async def _until(check: Any, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        await asyncio.sleep(0.02)
    return bool(check())


def test_each_tick_sends_the_state_and_ends_the_streams_of_closed_sessions() -> None:
    asked: list[set[str]] = []

    async def still_open(tokens: set[str]) -> set[str]:
        asked.append(set(tokens))
        return {"open"}

    async def main() -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        feed = Feed("host=/nonexistent", NEW_YORK, 30.0, still_open)
        kept, ended = feed.subscribe("open"), feed.subscribe("closed")
        assert kept is not None and ended is not None
        ticker = asyncio.create_task(feed._tick())
        try:
            assert await _until(lambda: ended.closed)
        finally:
            ticker.cancel()
        assert not kept.closed
        return _events(kept), _events(ended)

    kept, ended = asyncio.run(main())
    assert asked[0] == {"open", "closed"}
    assert [name for name, _ in kept][:1] == ["status"]
    assert kept[0][1]["stale"][0].endswith("(not connected yet)")
    assert ended == [("logout", {})]


def test_a_tick_whose_session_check_fails_ends_no_stream() -> None:
    async def broken(tokens: set[str]) -> set[str]:
        raise OSError("database gone")

    async def main() -> Stream:
        feed = Feed("host=/nonexistent", NEW_YORK, 30.0, broken)
        stream = feed.subscribe("t")
        assert stream is not None
        ticker = asyncio.create_task(feed._tick())
        try:
            assert await _until(lambda: stream.queue.qsize() >= 2, 5.0)  # two ticks
        finally:
            ticker.cancel()
        return stream

    stream = asyncio.run(main())
    assert not stream.closed
    assert [name for name, _ in _events(stream)][:2] == ["status", "status"]


def test_a_database_that_cannot_be_reached_is_said_in_its_first_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(feed_module, "TICK_SECONDS", 0.05)

    async def main() -> Feed:
        feed = Feed("host=/nonexistent/socket dbname=floor", NEW_YORK, 30.0, _no_sessions)
        stream = feed.subscribe("t")
        assert stream is not None
        runner = asyncio.create_task(feed.run())
        try:
            assert await _until(lambda: feed.db_problem != "not connected yet", 10.0)
            # The run ticks too: the stream is told the feed's state.
            said = await asyncio.wait_for(stream.queue.get(), 10.0)
            assert said.startswith("event: status\n")
        finally:
            feed.stop()
            await asyncio.wait({runner}, timeout=10.0)
        assert runner.done() and runner.result() is None
        return feed

    feed = asyncio.run(main())
    problem = feed.db_problem
    assert problem is not None and "\n" not in problem and 0 < len(problem) <= 120
    assert "/nonexistent/socket" in problem


# --- when the listener reads (the module docstring: a quarter of the time at most, at least
# every second, every two seconds at most however long a read takes) -----------------------


def test_a_new_listener_reads_at_once() -> None:
    fresh = Pacing()
    assert (fresh.dirty, fresh.spacing) == (True, 0.25)
    assert fresh.due() == 0.25  # a monotonic time long past


@pytest.mark.parametrize(
    ("ended", "spacing"),
    [
        (8.03125, 0.25),  # a read of 1/32 s: four times that is under the 0.25 s floor
        (8.0625, 0.25),  # 1/16 s: four times that is the floor exactly
        (8.125, 0.5),  # 1/8 s: four times that
        (8.375, 1.5),
        (8.5, 2.0),  # half a second: four times that is the 2 s ceiling exactly
        (8.75, 2.0),  # past the ceiling
    ],
)
def test_a_read_spaces_the_next_four_times_its_duration_within_a_quarter_and_two_seconds(
    ended: float, spacing: float
) -> None:
    pacing = Pacing()
    pacing.read(8.0, ended)
    assert (pacing.last, pacing.dirty, pacing.spacing) == (ended, False, spacing)
    # Nothing heard: a second after the read, or the spacing when that is longer.
    assert pacing.due() == ended + max(1.0, spacing)
    pacing.dirty = True  # a change heard: the spacing after the read
    assert pacing.due() == ended + spacing


def test_with_no_change_a_quick_floor_is_read_each_second() -> None:
    pacing = Pacing()
    pacing.read(10.0, 10.125)  # spacing 0.5
    assert pacing.due() == 11.125
    pacing.dirty = True
    assert pacing.due() == 10.625


def test_each_tick_comes_a_second_after_the_last() -> None:
    async def main() -> list[float]:
        feed = _feed()
        stream = feed.subscribe("t")
        assert stream is not None
        ticker = asyncio.create_task(feed._tick())
        arrived = []
        try:
            for _ in range(3):
                await stream.queue.get()
                arrived.append(time.monotonic())
        finally:
            ticker.cancel()
        return arrived

    started = time.monotonic()
    arrived = asyncio.run(main())
    gaps = [b - a for a, b in zip([started, *arrived], arrived, strict=False)]
    assert all(1.0 <= gap < 1.9 for gap in gaps), gaps


# --- stopping (the module docstring): by Feed.stop, seen between waits; a cancel too, even one
# that Python 3.11's wait_for hands back as the call's own result or error ------------------
#
# The waits a missed stop would sit out are made a minute long, so that a feed that stops
# only at the end of one is told from one that stops at once whatever the machine's load.


@pytest.fixture
def long_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feed_module, "RETRY_SECONDS", 60.0)
    monkeypatch.setattr(feed_module, "TICK_SECONDS", 60.0)


async def _ends(task: asyncio.Task[None]) -> bool:
    """Did ``task`` end within 10 s (a minute's wait, missed stop, would not)?"""
    await asyncio.wait({task}, timeout=10.0)
    return task.done()


def test_a_feed_stopped_while_it_waits_to_connect_again_stops_at_once(long_waits: None) -> None:
    attempts = 0

    async def main() -> bool:
        async def refused(*_args: Any, **_kwargs: Any) -> None:
            nonlocal attempts
            attempts += 1
            raise psycopg.OperationalError("connection refused")

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(psycopg.AsyncConnection, "connect", refused)
            feed = _feed()
            runner = asyncio.create_task(feed.run())
            assert await _until(lambda: feed.db_problem == "connection refused")
            feed.stop()  # the feed waits a minute before its next attempt
            return await _ends(runner)

    assert asyncio.run(main())
    assert attempts == 1


def test_a_feed_stopped_as_its_connection_attempt_fails_makes_no_other(long_waits: None) -> None:
    attempts = 0

    async def main() -> bool:
        feed = _feed()

        async def refused(*_args: Any, **_kwargs: Any) -> None:
            nonlocal attempts
            attempts += 1
            feed.stop()  # the monitor stops as the attempt fails, in one turn
            raise psycopg.OperationalError("connection refused")

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(psycopg.AsyncConnection, "connect", refused)
            return await _ends(asyncio.create_task(feed.run()))

    assert asyncio.run(main())
    assert attempts == 1


def test_a_feed_cancelled_as_its_connection_attempt_fails_stops(long_waits: None) -> None:
    attempts = 0

    async def main() -> bool:
        runner: asyncio.Task[None] | None = None

        async def refused(*_args: Any, **_kwargs: Any) -> None:
            nonlocal attempts
            attempts += 1
            assert runner is not None
            runner.cancel()  # wait_for hands back this error, not the cancel
            raise psycopg.OperationalError("connection refused")

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(psycopg.AsyncConnection, "connect", refused)
            runner = asyncio.create_task(_feed().run())
            return await _ends(runner)

    assert asyncio.run(main())
    assert attempts == 1


def test_a_stopped_feed_stops_its_ticks_at_once(long_waits: None) -> None:
    async def main() -> bool:
        feed = _feed()
        ticker = asyncio.create_task(feed._tick())
        await asyncio.sleep(0)  # the ticker waits its minute
        feed.stop()
        return await _ends(ticker)

    assert asyncio.run(main())


def test_a_tick_stopped_during_its_session_check_sends_nothing_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(feed_module, "TICK_SECONDS", 0.0)  # a tick at each turn

    async def main() -> tuple[bool, list[tuple[str, Any]], int]:
        calls = 0

        async def checked(tokens: set[str]) -> set[str]:
            nonlocal calls
            calls += 1
            feed.stop()  # the feed stops as the check answers, in one turn
            return set()

        feed = Feed("host=/nonexistent", NEW_YORK, 30.0, checked)
        stream = feed.subscribe("t")
        assert stream is not None
        ended = await _ends(asyncio.create_task(feed._tick()))
        return ended, _events(stream), calls

    ended, events, calls = asyncio.run(main())
    assert ended and calls == 1
    assert [name for name, _ in events] == ["logout"]  # its answer, and no status after


@pytest.mark.parametrize("answer", ["closed", "error"])
def test_a_tick_cancelled_as_its_session_check_answers_stops(
    monkeypatch: pytest.MonkeyPatch, answer: str
) -> None:
    monkeypatch.setattr(feed_module, "TICK_SECONDS", 0.0)  # the first check at once

    async def main() -> bool:
        ticker: asyncio.Task[None] | None = None

        async def checked(_tokens: set[str]) -> set[str]:
            monkeypatch.setattr(feed_module, "TICK_SECONDS", 60.0)  # a missed cancel waits
            assert ticker is not None
            ticker.cancel()  # wait_for hands back this answer, not the cancel
            if answer == "error":
                raise OSError("database gone")
            return set()

        feed = Feed("host=/nonexistent", NEW_YORK, 30.0, checked)
        assert feed.subscribe("t") is not None
        ticker = asyncio.create_task(feed._tick())
        return await _ends(ticker)

    assert asyncio.run(main())


def test_a_feed_with_no_stream_yet_ticks_for_the_streams_that_come(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(feed_module, "TICK_SECONDS", 0.05)

    async def main() -> str:
        feed = _feed()
        ticked = asyncio.Event()
        state = feed.state

        def noted() -> dict[str, Any]:
            ticked.set()
            return state()

        monkeypatch.setattr(feed, "state", noted)
        ticker = asyncio.create_task(feed._tick())
        try:
            await asyncio.wait_for(ticked.wait(), 10.0)  # a tick with no stream
            stream = feed.subscribe("t")
            assert stream is not None
            return await asyncio.wait_for(stream.queue.get(), 10.0)
        finally:
            feed.stop()
            await asyncio.wait({ticker}, timeout=10.0)

    assert asyncio.run(main()).startswith("event: status\n")


def test_a_session_check_that_hangs_is_given_up_after_the_query_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(feed_module, "TICK_SECONDS", 0.05)
    monkeypatch.setattr(feed_module, "QUERY_SECONDS", 0.1)

    async def main() -> tuple[list[str], bool]:
        async def hangs(_tokens: set[str]) -> set[str]:
            await asyncio.Event().wait()
            return set()

        feed = Feed("host=/nonexistent", NEW_YORK, 30.0, hangs)
        stream = feed.subscribe("t")
        assert stream is not None
        ticker = asyncio.create_task(feed._tick())
        try:
            said = [await asyncio.wait_for(stream.queue.get(), 10.0) for _ in range(2)]
        finally:
            ticker.cancel()
            await asyncio.wait({ticker}, timeout=10.0)
        return said, stream.closed

    said, closed = asyncio.run(main())
    # The second tick came: the first one's check was given up; the stream stays open.
    assert [s.split("\n")[0] for s in said] == ["event: status", "event: status"]
    assert not closed
