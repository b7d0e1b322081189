"""``dealer-station floor collect``: from the broker into PostgreSQL.

Two threads: the *network* thread (paho's own, ``loop_start``) only screens and queues
(:func:`floor.screen.screen`, which never raises: a message can never stop it); the
*writer* takes up to ``batch_messages`` messages at a time, applies them in one transaction
(:class:`floor.ingest.Ingest`) and only after the commit publishes each table's
acknowledgement. Several collectors share the stations' topics through an MQTT v5 shared
subscription (``$share/GROUP/<mount point>floor/+/rows``): each message goes to one of
them, and the table row lock in the database keeps their writes to one table in order.

No single station can stop or slow the others:

- the queue holds at most :data:`PER_TABLE` messages of one table (a station has one
  batch in flight, so more is a station repeating itself): the rest of that table's
  messages are dropped unacknowledged, and every other table's still fit;
- what :mod:`floor.screen` refuses is recorded and alerted, never stored as rows;
- a batch the database refuses for its content (not for being unreachable) is applied
  again table by table: the tables that fail alone are *suspects*, refused with an alert
  and their messages applied in their own transactions for a while, so that whatever
  they send never fails another table's transaction again;
- a writer or network thread that dies anyway leaves :meth:`Collector.healthy` false, and
  ``floor collect`` exits non-zero so that systemd restarts it: never a dead thread in a
  live process.

A database that goes away loses nothing: the batch is not acknowledged, the stations send
it again, and the writer reconnects.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

import paho.mqtt.client as mqtt
import psycopg
import structlog
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.reasoncodes import ReasonCode

from controller.journal.wire import encode_ack, topic
from controller.service.sdnotify import Notifier
from floor.config import FloorConfig
from floor.heartbeat import Heartbeat
from floor.ingest import Applied, Ingest
from floor.schema import migrate
from floor.screen import Message, Refused, Rows, refused_rows, screen
from floor.seals import TableSeals

_log = structlog.get_logger("dealer_station.floor.collector")
QUEUE_MESSAGES: Final = 2000  # about 1 million rows at 500 a message
#: Messages of one table waiting at most (one batch in flight, statuses, a resend or two).
PER_TABLE: Final = 16
#: How long a table whose messages failed a transaction is written on its own.
SUSPECT_SECONDS: Final = 300.0
#: A writer that has not turned for this long is stuck (the watchdog is no longer fed).
STUCK_SECONDS: Final = 30.0
#: One transaction of messages (:meth:`floor.ingest.Ingest.apply`).
Apply = Callable[[Sequence[Message]], Applied]
#: The database being unreachable, not a message's content.
_DATABASE_DOWN = (psycopg.OperationalError, psycopg.InterfaceError)


class Inbox:
    """The bounded queue between the network thread and the writer, fair per table."""

    def __init__(self, total: int = QUEUE_MESSAGES, per_table: int = PER_TABLE) -> None:
        self.total, self.per_table = total, per_table
        self._items: collections.deque[Message] = collections.deque()
        self._counts: dict[str, int] = {}
        self._ready = threading.Condition()

    def put(self, message: Message) -> bool:
        """Queue ``message``; False when its table or the queue is full (it is dropped)."""
        with self._ready:
            count = self._counts.get(message.table, 0)
            if count >= self.per_table or len(self._items) >= self.total:
                return False
            self._counts[message.table] = count + 1
            self._items.append(message)
            self._ready.notify()
            return True

    def take(self, limit: int, timeout: float) -> list[Message]:
        """Up to ``limit`` messages in arrival order; [] after ``timeout`` seconds."""
        with self._ready:
            if not self._items and not self._ready.wait(timeout):
                return []
            batch: list[Message] = []
            while self._items and len(batch) < limit:
                message = self._items.popleft()
                left = self._counts[message.table] - 1
                if left:
                    self._counts[message.table] = left
                else:
                    del self._counts[message.table]
                batch.append(message)
            return batch


class Collector:
    """One collector process's broker client and database writer."""

    def __init__(self, config: FloorConfig, seals: TableSeals | None = None) -> None:
        self.config = config
        self.seals = seals or TableSeals.from_text(config.verify_keys)
        self.inbox = Inbox()
        self.stopping = threading.Event()
        self.stored = 0
        self.rejected = 0  # refused by the checks (recorded and alerted)
        self.dropped = 0  # a full queue: never acknowledged, so sent again
        self.disconnects = 0  # connections to the broker lost (not by stop())
        self.subscribed = threading.Event()  # the broker has granted the subscriptions
        self.failure: str | None = None  # why a thread of the collector died
        self.suspects: dict[str, float] = {}  # table -> until (monotonic)
        self.heartbeat = time.monotonic()  # the writer's last turn
        self._started = False
        self._client = self._make_client()
        self._writer = threading.Thread(target=self._write_loop, name="collector-writer")
        # The console's sign of life from this collector (floor.heartbeat).
        self._heartbeat = Heartbeat(config.conninfo, config.broker.client_id, self._health)

    def _make_client(self) -> mqtt.Client:
        broker = self.config.broker
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=broker.client_id, protocol=mqtt.MQTTv5
        )
        client.username_pw_set(broker.username, broker.password())
        if broker.ca_file is not None:
            client.tls_set(ca_certs=str(broker.ca_file))
        client.reconnect_delay_set(min_delay=1, max_delay=5)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_subscribe = lambda *_: self.subscribed.set()
        client.on_message = self._on_message
        return client

    def start(self) -> None:
        """Migrate the schema, connect, start both threads; returns at once.

        Raises:
            psycopg.Error: the database cannot be reached or migrated at start.
        """
        with psycopg.connect(self.config.conninfo) as conn:
            migrate(conn)
        self._started = True
        self._writer.start()
        # A clean session that ends with the connection: a collector that dies must not
        # keep a share of the stations' messages queued for it on the broker. Nothing is
        # lost by it: a row counts as delivered only once a collector has acknowledged it.
        broker = self.config.broker
        self._client.connect_async(broker.host, broker.port, keepalive=15, clean_start=True)
        # paho's own thread: publish() from the writer is safe only with it (with a loop
        # run in a thread of ours, publish() writes to the TLS socket from the writer's
        # thread too, and the two interleave: the broker sees a corrupt stream).
        self._client.loop_start()
        self._heartbeat.start()

    def _health(self) -> str:
        if not self.healthy():
            return "writer stopped" if not self._writer.is_alive() else "network stopped"
        return "ok" if self._client.is_connected() else "broker lost"

    def healthy(self) -> bool:
        """Are both threads running (always True before :meth:`start`)?"""
        if not self._started or self.stopping.is_set():
            return True
        # paho offers no accessor for its thread: read it where loop_start() keeps it.
        network: threading.Thread | None = getattr(self._client, "_thread", None)
        if network is None or not network.is_alive():
            self.failure = self.failure or "the network thread (paho's loop) stopped"
            return False
        return self._writer.is_alive()

    def stop(self) -> None:
        """Disconnect and stop both threads (what they hold unacknowledged is sent again).
        The writer looks at the stop at least every 0.2 s (its wait for messages, and its
        0.5 s pause before it connects again after a lost database ends at once); a writer
        inside a database call is waited for 10 s at most, then left to end on its own."""
        self.stopping.set()
        self._heartbeat.stop()
        self._client.disconnect()
        self._client.loop_stop()
        self._client.reinitialise()  # closes the socket pair loop_start() opened
        if self._writer.is_alive():
            self._writer.join(10)

    # --- the network thread -----------------------------------------------------------

    def _on_connect(
        self, client: mqtt.Client, _u: Any, _f: Any, reason: ReasonCode, _p: Any
    ) -> None:
        if reason.is_failure:
            _log.warning("broker refused the collector", reason=str(reason))
            return
        group, mount = self.config.broker.share_group, self.config.broker.mount_point
        client.subscribe(
            [
                (f"$share/{group}/{mount}floor/+/rows", 1),
                (f"$share/{group}/{mount}floor/+/status", 1),
            ]
        )
        _log.info("collector connected", group=group)

    def _on_disconnect(self, _c: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if not self.stopping.is_set():
            self.disconnects += 1
            _log.warning("collector disconnected", reason=str(reason))

    def _on_message(self, _c: mqtt.Client, _u: Any, message: mqtt.MQTTMessage) -> None:
        try:
            self._take_in(message.topic, bytes(message.payload))
        except Exception as err:  # nothing a station sends may stop this thread
            self.rejected += 1
            _log.error("message not taken", topic=str(message.topic)[:80], error=repr(err))

    def _take_in(self, name: str, payload: bytes) -> None:
        broker, config = self.config.broker, self.config
        message = screen(
            name,
            payload,
            mount_point=broker.mount_point,
            max_bytes=config.max_message_bytes,
            arrived=time.time(),
        )
        if message is None:
            return
        if isinstance(message, Refused):
            self.rejected += 1
            _log.warning(
                "message refused", table=message.table, topic=message.topic, why=message.reason
            )
            if not message.table:
                return  # no table to hold it against: the log line is all
        if not self.inbox.put(message):
            self.dropped += 1

    # --- the writer thread ------------------------------------------------------------

    def _write_loop(self) -> None:
        conn: psycopg.Connection[tuple[Any, ...]] | None = None
        try:
            while not self.stopping.is_set():
                self.heartbeat = time.monotonic()
                batch = self.inbox.take(self.config.batch_messages, 0.2)
                if not batch:
                    continue
                try:
                    if conn is None or conn.closed:
                        conn = psycopg.connect(self.config.conninfo)
                    self._write(conn, batch)
                except _DATABASE_DOWN as err:
                    # Not acknowledged: the stations send these rows again.
                    _log.warning("database write failed", error=str(err).splitlines()[0])
                    if conn is not None:
                        conn.close()
                    conn = None
                    self.stopping.wait(0.5)  # reconnect backoff, cut short by stop()
        except BaseException as err:  # recorded; supervise() ends the process
            self._died("writer", err)
        finally:
            if conn is not None:
                conn.close()

    def _write(self, conn: psycopg.Connection[tuple[Any, ...]], batch: list[Message]) -> None:
        self.write_batch(batch, self._ingest(conn).apply)

    def write_batch(self, batch: list[Message], apply: Apply) -> None:
        """Apply ``batch`` with ``apply`` (one transaction a call) and publish what each
        commit acknowledges: a suspect table's messages on their own; a batch refused for its
        content (not for the database being down) again table by table, a table refused
        alone made a suspect for :data:`SUSPECT_SECONDS` and its rows recorded as refused.

        Raises:
            psycopg.OperationalError, psycopg.InterfaceError: the database is unreachable
                (nothing published: the stations send the rows again).
        """
        now = time.monotonic()
        self.suspects = {t: until for t, until in self.suspects.items() if until > now}
        common = [m for m in batch if m.table not in self.suspects]
        alone: dict[str, list[Message]] = {}
        for message in batch:
            if message.table in self.suspects:
                alone.setdefault(message.table, []).append(message)
        if common:
            try:
                self._publish(apply(common))
            except _DATABASE_DOWN:
                raise
            except Exception as err:
                _log.warning("a batch failed: writing it table by table", error=_first(err))
                for message in common:
                    alone.setdefault(message.table, []).append(message)
        for table, messages in alone.items():
            self._write_alone(table, messages, apply)

    def _write_alone(self, table: str, messages: list[Message], apply: Apply) -> None:
        try:
            self._publish(apply(messages))
            return
        except _DATABASE_DOWN:
            raise
        except Exception as err:
            reason = f"the database refused it: {_first(err)}"
            _log.exception("messages of one table refused", table=table, error=_first(err))
        self.suspects[table] = time.monotonic() + SUSPECT_SECONDS
        refused = [refused_rows(m, reason) for m in messages if isinstance(m, Rows)]
        if not refused:
            return
        try:
            self._publish(apply(refused))
        except _DATABASE_DOWN:
            raise
        except Exception as err:  # not even the refusal could be recorded: the log has it
            _log.exception("refusal not recorded", table=table, error=_first(err))

    def _ingest(self, conn: psycopg.Connection[tuple[Any, ...]]) -> Ingest:
        return Ingest(conn, self.seals, clock_tolerance=self.config.clock_tolerance)

    def _publish(self, applied: Applied) -> None:
        self.stored += applied.stored
        for name, payload in acknowledgements(applied, self.config.broker.mount_point):
            self._client.publish(name, payload, qos=1)
        for table, kind, text in applied.alerts:
            _log.warning("floor alert", table=table, kind=kind, message=text)

    def _died(self, thread: str, err: BaseException) -> None:
        if self.stopping.is_set():
            return
        self.failure = f"the {thread} thread stopped: {_first(err)}"
        _log.critical("collector thread died", thread=thread, exc_info=err)


def acknowledgements(applied: Applied, mount_point: str) -> list[tuple[str, bytes]]:
    """What to publish after a commit: each table's acknowledgement, ``(topic, payload)``,
    on the station's ``ack`` topic under the broker's ``mount_point``."""
    return [(mount_point + topic(t, "ack"), encode_ack(ack)) for t, ack in applied.acks.items()]


def _first(err: BaseException) -> str:
    text = str(err).splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}"[:200]


def supervise(
    collector: Collector,
    stop: threading.Event,
    notifier: Notifier | None = None,
    tick: float = 1.0,
) -> int:
    """Keep ``collector`` running until ``stop`` is set (0) or one of its threads dies (1,
    so that systemd restarts the process); stops it either way. Feeds systemd's watchdog
    while the writer keeps turning (a writer stuck for :data:`STUCK_SECONDS` is not fed)."""
    try:
        while not stop.wait(tick):
            if not collector.healthy():
                return 1
            if notifier is not None and time.monotonic() - collector.heartbeat < STUCK_SECONDS:
                notifier.feed_watchdog()
        return 0
    finally:
        collector.stop()
