"""``dealer-station floor collect``: from the broker into PostgreSQL.

paho's network thread only decodes and queues (``on_message``); one writer thread takes up
to ``batch_messages`` messages at a time, applies them in one transaction
(:class:`floor.ingest.Ingest`) and only after the commit publishes each table's
acknowledgement. Several collectors share the stations' topics through an MQTT v5 shared
subscription (``$share/GROUP/floor/+/rows``): each message goes to one of them, and the
table row lock in the database keeps their writes to one table in order. A database that
goes away loses nothing: the batch is not acknowledged, the stations send it again, and
the writer reconnects.
"""

from __future__ import annotations

import queue
import threading
from typing import Any, Final

import paho.mqtt.client as mqtt
import psycopg
import structlog
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.reasoncodes import ReasonCode

from controller.journal.wire import (
    WireError,
    decode_rows,
    decode_status,
    encode_ack,
    parse_topic,
    topic,
)
from floor.config import FloorConfig
from floor.heartbeat import Heartbeat
from floor.ingest import Ingest, Message, Rows
from floor.schema import migrate
from floor.seals import SealCheck, TableSeals

_log = structlog.get_logger("dealer_station.floor.collector")
QUEUE_MESSAGES: Final = 2000  # about 1 million rows at 500 a message


class Collector:
    """One collector process's broker client and database writer."""

    def __init__(self, config: FloorConfig, seals: SealCheck | None = None) -> None:
        self.config = config
        self.seals = seals or TableSeals.from_text(config.verify_keys)
        # Bounded: while the database is away, stations send their batches again every
        # ack timeout; what does not fit is dropped (never acknowledged, so sent again).
        self.messages: queue.Queue[Message] = queue.Queue(maxsize=QUEUE_MESSAGES)
        self.dropped = 0
        self.stopping = threading.Event()
        self.stored = 0
        self.rejected = 0
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
        client.on_message = self._on_message
        return client

    def start(self) -> None:
        """Migrate the schema, connect, start the writer; returns at once.

        Raises:
            psycopg.Error: the database cannot be reached or migrated at start.
        """
        with psycopg.connect(self.config.conninfo) as conn:
            migrate(conn)
        self._writer.start()
        # A clean session that ends with the connection: a collector that dies must not
        # keep a share of the stations' messages queued for it on the broker. Nothing is
        # lost by it: a row counts as delivered only once a collector has acknowledged it.
        broker = self.config.broker
        self._client.connect_async(broker.host, broker.port, keepalive=15, clean_start=True)
        self._client.loop_start()
        self._heartbeat.start()

    def _health(self) -> str:
        if not self._writer.is_alive():
            return "writer stopped"
        return "ok" if self._client.is_connected() else "broker lost"

    def stop(self) -> None:
        """Disconnect and stop the writer (what it holds unacknowledged is sent again)."""
        self.stopping.set()
        self._heartbeat.stop()
        self._client.disconnect()
        self._client.loop_stop()
        self._client.reinitialise()  # closes the wake-up socket pair loop_start() opened
        if self._writer.is_alive():
            self._writer.join(10)

    def _on_connect(
        self, client: mqtt.Client, _u: Any, _f: Any, reason: ReasonCode, _p: Any
    ) -> None:
        if reason.is_failure:
            _log.warning("broker refused the collector", reason=str(reason))
            return
        group = self.config.broker.share_group
        client.subscribe(
            [(f"$share/{group}/floor/+/rows", 1), (f"$share/{group}/floor/+/status", 1)]
        )
        _log.info("collector connected", group=group)

    def _on_message(self, _c: mqtt.Client, _u: Any, message: mqtt.MQTTMessage) -> None:
        try:
            table, kind = parse_topic(message.topic)
            payload = bytes(message.payload)
            if kind == "rows":
                self.messages.put_nowait(Rows(table, decode_rows(payload, table)))
            elif kind == "status":
                self.messages.put_nowait(decode_status(payload, table))
        except queue.Full:
            self.dropped += 1
        except WireError as err:
            self.rejected += 1
            _log.warning("message refused", topic=message.topic[:80], error=str(err))

    def _write_loop(self) -> None:
        conn: psycopg.Connection[tuple[Any, ...]] | None = None
        try:
            while not self.stopping.is_set():
                batch = self._take()
                if not batch:
                    continue
                try:
                    if conn is None or conn.closed:
                        conn = psycopg.connect(self.config.conninfo)
                    applied = Ingest(conn, self.seals).apply(batch)
                except psycopg.Error as err:
                    # Not acknowledged: the stations send these rows again.
                    _log.warning("database write failed", error=str(err).splitlines()[0])
                    if conn is not None:
                        conn.close()
                    conn = None
                    self.stopping.wait(0.5)  # reconnect backoff, cut short by stop()
                    continue
                self.stored += applied.stored
                for table, ack in applied.acks.items():
                    self._client.publish(topic(table, "ack"), encode_ack(ack), qos=1)
                for table, kind, text in applied.alerts:
                    _log.warning("floor alert", table=table, kind=kind, message=text)
        finally:
            if conn is not None:
                conn.close()

    def _take(self) -> list[Message]:
        try:
            first = self.messages.get(timeout=0.2)
        except queue.Empty:
            return []
        batch = [first]
        limit = self.config.batch_messages
        while len(batch) < limit:
            try:
                batch.append(self.messages.get_nowait())
            except queue.Empty:
                break
        return batch
