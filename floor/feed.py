"""The live feed of the console: one PostgreSQL listener per monitor process, fanned out to
every open event stream.

One connection ``LISTEN``s on ``floor_changed`` (the collector's ``NOTIFY`` at each commit,
and the console's own after an acknowledgement) and ``floor_collector`` (each collector's
heartbeat, :mod:`floor.heartbeat`). On a change, at most every :data:`MIN_INTERVAL` seconds
or :data:`READ_SHARE` times the last read's duration, whichever is longer (so that reading
takes at most a quarter of the time on a big floor), and at least every second (so that
silence shows) or two, it reads the grid and the alerts once
(:func:`floor.queries.snapshot`) and sends each stream only the tables that changed. So the
number of streams costs no database connection and no query: at most :data:`MAX_STREAMS`
streams are open at once, and one more is refused with a one-line answer (HTTP 503).

Each second every stream also gets the feed's own state (``status``): what makes the
picture stale, if anything, and the time of the last good update. Stale means any of:

- the database is unreachable (the listener lost its connection, or a read failed);
- no good read for :data:`STALE_SECONDS` (a database that hangs);
- no heartbeat from any collector for :data:`STALE_SECONDS` (every collector stopped), or a
  collector that says its writer stopped or it lost the broker.

The page also watches the stream itself: no message for a few seconds (the monitor gone)
shows the same banner (``floor/static/console.js``). Each second the feed also checks that
the sessions of its streams are still open and ends the streams of a logged-out session.

The feed is stopped by :meth:`Feed.stop`, never by cancelling its task: a cancel that lands
as a call completes is lost (Python 3.11's ``asyncio.wait_for`` hands back the call's result
or error instead, and the feed went on for ever), and one that lands inside psycopg's wait
for notifications is handled by psycopg (a server-side cancel, another wait) and has been
seen never to finish. So the listener waits for notifications at most :data:`STOP_POLL`
seconds at a time and looks at the stop between waits; a stop that comes during a
connection attempt or a read is seen when it ends (:data:`QUERY_SECONDS` at most).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

import psycopg
import structlog

from floor import queries
from floor.casino import Casino
from floor.heartbeat import CHANNEL as COLLECTOR_CHANNEL

_log = structlog.get_logger("dealer_station.floor.feed")
CHANGED: Final = "floor_changed"
MAX_STREAMS: Final = 64
MIN_INTERVAL: Final = 0.25  # seconds between two reads after changes, on a small floor
READ_SHARE: Final = 4  # ...and at least this many times the last read's duration
STALE_SECONDS: Final = 3.0
QUERY_SECONDS: Final = 5.0  # a read that takes longer counts as a lost database
QUEUED: Final = 16  # events waiting for one slow stream before it gets a full picture again
MAX_SPACING: Final = 2.0  # seconds between two reads at most, however long a read takes
IDLE_SECONDS: Final = 1.0  # a read at least this often with no change heard (silence shows)
STOP_POLL: Final = 0.2  # seconds of waiting for notifications between two looks at a stop
RETRY_SECONDS: Final = 1.0  # after a lost database, before the next connection attempt
TICK_SECONDS: Final = 1.0  # between two status events (and session checks)


@dataclass
class Pacing:
    """When the listener reads next: :attr:`spacing` after the last read once a change is
    heard (``dirty``), and without one at least every :data:`IDLE_SECONDS`, or every
    :attr:`spacing` when that is longer. A read that took ``d`` seconds makes the spacing
    ``READ_SHARE * d``, within :data:`MIN_INTERVAL` and :data:`MAX_SPACING`."""

    last: float = 0.0  # monotonic time of the last read's end (0: read at once)
    spacing: float = MIN_INTERVAL
    dirty: bool = True

    def due(self) -> float:
        """The monotonic time of the next read."""
        return self.last + (self.spacing if self.dirty else max(IDLE_SECONDS, self.spacing))

    def read(self, started: float, ended: float) -> None:
        """A read ran from ``started`` to ``ended``: nothing is waiting any more."""
        self.last, self.dirty = ended, False
        self.spacing = min(max(MIN_INTERVAL, READ_SHARE * (ended - started)), MAX_SPACING)


@dataclass(eq=False)
class Stream:
    """One open event stream: its session's token and the events waiting for it."""

    token: str
    queue: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(QUEUED))
    closed: bool = False

    def offer(self, text: str, full: Callable[[], str]) -> None:
        """Queue ``text``; a stream too slow to keep up is sent the whole picture instead."""
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(full())

    def end(self, text: str) -> None:
        """Send ``text`` last and close."""
        self.closed = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(text)


def _cancel_pending() -> bool:
    """Is the running task asked to stop by a cancel? Python 3.11's ``asyncio.wait_for``
    hands back the awaited call's own result or error, not the cancellation, when the call
    ends in the same turn of the loop as the cancel comes: the cancel is then lost but for
    the task's count of them."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def event(name: str, data: Any) -> str:
    """A server-sent event."""
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class Feed:
    """The listener and its streams (module docstring)."""

    def __init__(
        self,
        conninfo: str,
        casino: Casino,
        silent_after: float,
        still_open: Callable[[set[str]], Awaitable[set[str]]],
        *,
        max_streams: int = MAX_STREAMS,
    ) -> None:
        self.conninfo, self.casino, self.silent_after = conninfo, casino, silent_after
        self.still_open = still_open
        self.max_streams = max_streams
        self.streams: set[Stream] = set()
        self.tables: dict[str, dict[str, Any]] = {}
        self.alerts: list[dict[str, Any]] = []
        self.periods: dict[str, str] = {}
        self.last_good: datetime | None = None
        self._last_good_at = 0.0  # monotonic
        self.db_problem: str | None = "not connected yet"
        self.db_since = datetime.now(UTC)
        self.collectors: dict[str, tuple[float, str]] = {}  # name -> (monotonic, state)
        self.collector_seen: datetime | None = None
        self.started = time.monotonic()
        self.reads = 0
        self._stopping = asyncio.Event()

    # --- streams ------------------------------------------------------------------------

    def subscribe(self, token: str) -> Stream | None:
        """A new stream for session ``token``, or None when :attr:`max_streams` are open."""
        if len(self.streams) >= self.max_streams:
            return None
        stream = Stream(token)
        self.streams.add(stream)
        return stream

    def unsubscribe(self, stream: Stream) -> None:
        """The stream ended (the page closed, the session ended)."""
        self.streams.discard(stream)

    def full(self) -> str:
        """The whole picture, for a new stream or one that fell behind."""
        return event(
            "grid",
            {
                "full": True,
                "tables": list(self.tables.values()),
                "alerts": self.alerts,
                **self.periods,
            },
        )

    def state(self) -> dict[str, Any]:
        """The ``status`` event: the time, what makes the picture stale, the last update."""
        now = time.monotonic()
        stale: list[str] = []
        if self.db_problem is not None:
            stale.append(
                f"database unreachable since {self.casino.clock(self.db_since)} ({self.db_problem})"
            )
        elif now - self._last_good_at > STALE_SECONDS:
            stale.append(f"no answer from the database for {int(now - self._last_good_at)} s")
        alive = {n: s for n, (t, s) in self.collectors.items() if now - t <= STALE_SECONDS}
        if not alive and now - self.started > STALE_SECONDS and self.db_problem is None:
            seen = self.casino.clock(self.collector_seen) if self.collector_seen else "never"
            stale.append(f"no collector heard from (last: {seen}): nothing new is stored")
        stale += [f"collector {n}: {s}" for n, s in sorted(alive.items()) if s != "ok"]
        return {
            "at": self.casino.clock(datetime.now(UTC)),
            "stale": stale,
            "last_good": self.casino.format(self.last_good) if self.last_good else "never",
            "collectors": len(alive),
        }

    def _publish(self, text: str) -> None:
        for stream in list(self.streams):
            stream.offer(text, self.full)

    def close(self) -> None:
        """End every stream (the monitor stops)."""
        for stream in list(self.streams):
            stream.end(event("bye", {}))

    # --- the listener -------------------------------------------------------------------

    def stop(self) -> None:
        """Ask :meth:`run` to end: it returns within :data:`STOP_POLL` seconds of a wait for
        notifications or a pause, or as the connection attempt or the read under way ends
        (:data:`QUERY_SECONDS` at most). The feed runs once: a stopped feed stays stopped."""
        self._stopping.set()

    def _stopped(self) -> bool:
        # A cancel of the task stops it too, even one that ``asyncio.wait_for`` lost.
        return self._stopping.is_set() or _cancel_pending()

    async def _pause(self, seconds: float) -> None:
        """Wait ``seconds``, or until the feed is stopped (not at all when it is already)."""
        if not self._stopped():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), seconds)

    async def run(self) -> None:
        """Listen, read and publish until :meth:`stop`; reconnect after any database error."""
        ticker = asyncio.create_task(self._tick())
        try:
            while not self._stopped():
                try:
                    await self._listen()
                except (psycopg.Error, OSError, TimeoutError) as err:
                    if self.db_problem is None:
                        self.db_since = datetime.now(UTC)
                    self.db_problem = str(err).strip().splitlines()[0][:120] if str(err) else "lost"
                    _log.warning("console feed: database lost", error=self.db_problem)
                    await self._pause(RETRY_SECONDS)
        finally:
            self._stopping.set()  # the ticker ends at its next look (it is not cancelled)
            await ticker

    async def _listen(self) -> None:
        conn = await asyncio.wait_for(
            psycopg.AsyncConnection.connect(
                self.conninfo,
                autocommit=True,
                application_name="floor-console feed",
                prepare_threshold=None,  # planned each time, as the pool's (floor.console)
            ),
            QUERY_SECONDS,
        )
        try:
            await conn.execute(f"LISTEN {CHANGED}")
            await conn.execute(f"LISTEN {COLLECTOR_CHANNEL}")
            pacing = Pacing()  # a big floor's read takes longer: read it less often
            while not self._stopped():
                wait = pacing.due() - time.monotonic()
                if wait > 0:
                    await self._hear(conn, pacing, min(wait, STOP_POLL))
                    continue
                started = time.monotonic()
                await asyncio.wait_for(self._read(conn), QUERY_SECONDS)
                pacing.read(started, time.monotonic())
        finally:
            await conn.close()

    async def _hear(
        self, conn: psycopg.AsyncConnection[tuple[Any, ...]], pacing: Pacing, seconds: float
    ) -> None:
        """Wait at most ``seconds`` for notifications and take those that come, all of them
        (psycopg hands over a packet's notifications together, and ends its wait after it):
        a heartbeat is noted, a change makes the next read due sooner."""
        async for note in conn.notifies(timeout=seconds, stop_after=1):
            if note.channel == COLLECTOR_CHANNEL:
                self._heard(note.payload)
            else:
                pacing.dirty = True

    def _heard(self, payload: str) -> None:
        name, _, state = payload.partition(" ")
        self.collectors[name[:64]] = (time.monotonic(), state[:80] or "ok")
        if len(self.collectors) > 256:  # forget the longest silent
            oldest = min(self.collectors, key=lambda n: self.collectors[n][0])
            del self.collectors[oldest]
        self.collector_seen = datetime.now(UTC)

    async def _read(self, conn: psycopg.AsyncConnection[tuple[Any, ...]]) -> None:
        now = datetime.now(UTC)
        data = await queries.snapshot(conn, self.casino, self.silent_after, now)
        self.reads += 1
        tables = {t["table"]: t for t in data["tables"]}
        changed = [t for name, t in tables.items() if self.tables.get(name) != t]
        removed = [name for name in self.tables if name not in tables]
        periods = {"shift": data["shift"], "day": data["day"]}
        alerts_changed = data["alerts"] != self.alerts
        periods_changed = periods != self.periods
        self.tables, self.alerts, self.periods = tables, data["alerts"], periods
        self.last_good, self._last_good_at = now, time.monotonic()
        self.db_problem = None
        if changed or removed or alerts_changed or periods_changed:
            update: dict[str, Any] = {"full": False, "changed": changed, "removed": removed}
            if alerts_changed:
                update["alerts"] = self.alerts
            if periods_changed:
                update.update(periods)
            self._publish(event("grid", update))

    async def _tick(self) -> None:
        while True:
            await self._pause(TICK_SECONDS)
            if self._stopped():
                return
            self._publish(event("status", self.state()))
            tokens = {s.token for s in self.streams}
            if not tokens:
                continue
            try:
                still = await asyncio.wait_for(self.still_open(tokens), QUERY_SECONDS)
            except (psycopg.Error, OSError, TimeoutError) as err:
                _log.info("console feed: sessions not checked", error=str(err)[:120])
                continue
            for stream in list(self.streams):
                if stream.token not in still:
                    stream.end(event("logout", {}))
