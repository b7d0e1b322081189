"""The shipper: a thread of the daemon that sends the journal to the floor over MQTT.

It owns its own read-only connection to the journal (WAL readers never block the writer)
and its own MQTT client (``paho-mqtt``, MQTT v5, QoS 1, the table's id as client id, TLS
and the station's own credentials from ``[floor]`` in ``station.toml``). The station thread
never calls it and never waits for it: with the broker down, slow or gone for hours, play
goes on and rows wait in the journal, which is the outbox. What leaves, in which order and
when it counts as delivered is decided by :class:`controller.service.outbox.Outbox`; the
message format is :mod:`controller.journal.wire`.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Final

import paho.mqtt.client as mqtt
import structlog
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.reasoncodes import ReasonCode

from controller.journal.format import GENESIS_HASH, Clock, JournalCorruptError, utc_now
from controller.journal.reader import open_readonly, select_rows
from controller.journal.storage import storage_of
from controller.journal.wire import (
    MAX_MESSAGE_BYTES,
    Status,
    WireError,
    decode_ack,
    encode_rows,
    encode_status,
    topic,
)
from controller.service.config_floor import FloorSettings
from controller.service.outbox import Outbox, ack_path, load_ack, save_ack

_log = structlog.get_logger("dealer_station.shipper")

#: At start the last rows are read again for the live status (state, faults, devices).
STATUS_LOOKBACK: Final = 2000
_SCAN_ROWS: Final = 5000
_CHECK_SECONDS: Final = 0.5  # acknowledgement timeouts and the status interval, when idle


class Shipper:
    """Ships one journal to the floor until :meth:`stop` (see the module docstring)."""

    def __init__(
        self,
        journal: Path,
        table: str,
        settings: FloorSettings,
        *,
        client_id: str | None = None,
        clock: Clock = utc_now,
    ) -> None:
        self.journal = Path(journal)
        self._clock = clock  # the station's time, as the journal stamps its rows
        self.table = table
        self.settings = settings
        self.client_id = client_id or table
        self._inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"shipper-{table}", daemon=True)
        self._connected = False
        self.outbox = Outbox(table)
        self.published_rows = 0  # rows sent (copies included), for figures

    def start(self) -> None:
        """Start the thread; returns at once (connecting happens in the background).

        Raises:
            OSError: when the password file cannot be read.
        """
        self._password = self.settings.password()
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the thread and close the connection; what is not acknowledged is sent
        after the next start."""
        self._stopping.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    @property
    def connected(self) -> bool:
        """Is the shipper connected to the broker now?"""
        return self._connected

    @property
    def acked(self) -> int:
        """The last row the collector acknowledged."""
        return self.outbox.acked

    # --- the thread -------------------------------------------------------------------

    def _client(self) -> mqtt.Client:
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=self.client_id, protocol=mqtt.MQTTv5
        )
        client.username_pw_set(self.settings.username, self._password)
        if self.settings.ca_file is not None:
            client.tls_set(ca_certs=str(self.settings.ca_file))
        client.reconnect_delay_set(min_delay=1, max_delay=10)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        return client

    def _on_connect(
        self, client: mqtt.Client, _u: Any, _f: Any, reason: ReasonCode, _p: Any
    ) -> None:
        if reason.is_failure:
            _log.warning("floor broker refused", reason=str(reason))
            return
        client.subscribe(topic(self.table, "ack"), qos=1)
        self._post("connected", None)

    def _on_disconnect(self, _c: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        self._post("disconnected", str(reason))

    def _on_message(self, _c: mqtt.Client, _u: Any, message: mqtt.MQTTMessage) -> None:
        self._post("ack", bytes(message.payload))

    def _post(self, what: str, value: Any) -> None:
        # From paho's network thread: hand over and wake the shipper, nothing more.
        self._inbox.put((what, value))
        self._wake.set()

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        client = self._client()
        client.connect_async(self.settings.host, self.settings.port, keepalive=15)
        client.loop_start()
        last_status: Status | None = None
        self._status_sent = self._checked = 0.0
        self._data_version = -1
        try:
            while not self._stopping.is_set():
                try:
                    if conn is None:
                        conn = self._open()
                    news = self._handle_inbox(conn)
                    if conn is not None:
                        news = self._scan(conn) or news
                        # An idle poll costs one PRAGMA: 200 stations on one bench machine
                        # otherwise spend more CPU polling than shipping.
                        due = time.monotonic() >= self._checked + _CHECK_SECONDS
                        if self._connected and (news or due):
                            self._checked = time.monotonic()
                            last_status = self._publish(client, conn, last_status)
                except sqlite3.Error as err:
                    # The journal is being created or replaced: open it again, later.
                    _log.warning("floor shipper cannot read the journal", error=str(err))
                    if conn is not None:
                        conn.close()
                    conn = None
                self._wait()
        finally:
            client.disconnect()
            client.loop_stop()
            client.reinitialise()  # closes the wake-up socket pair loop_start() opened
            if conn is not None:
                conn.close()

    def _publish(
        self, client: mqtt.Client, conn: sqlite3.Connection, last: Status | None
    ) -> Status | None:
        now = time.monotonic()
        self._send_rows(client, conn, now)
        status = self.outbox.status()
        if (
            last is None
            or _changed(status, last)
            or now - self._status_sent >= self.settings.status_interval
        ):
            client.publish(topic(self.table, "status"), encode_status(status), qos=1)
            self._status_sent = now
            return status
        return last

    def _wait(self) -> None:
        # The journal has no notification: it is polled (a cheap indexed read); an
        # acknowledgement or a connection change wakes the thread at once.
        # With a batch in flight no row can go before its acknowledgement (which wakes the
        # thread): the journal is then polled less often, for the status only.
        interval = self.settings.poll_interval * (4 if self.outbox.inflight else 1)
        self._wake.wait(interval)
        self._wake.clear()

    def _open(self) -> sqlite3.Connection | None:
        try:
            conn = open_readonly(self.journal)
        except (FileNotFoundError, ValueError):
            return None  # no journal yet: the station creates it at start
        acked, digest = load_ack(ack_path(self.journal))
        try:
            stored = storage_of(conn).hash_of(acked)
        except (sqlite3.Error, JournalCorruptError):
            conn.close()
            return None  # the station is creating the journal's tables
        if acked and stored != digest:
            _log.warning("floor acknowledgement does not match the journal: sending all again")
            acked, digest = 0, GENESIS_HASH
        self.outbox = Outbox(self.table, acked=acked, acked_hash=digest)
        self._data_version = -1  # a new connection: read whatever is there
        start = max(0, acked - STATUS_LOOKBACK)
        self.outbox.scanned = start
        return conn

    def _scan(self, conn: sqlite3.Connection) -> bool:
        """Read the rows committed since the last scan; True if there were any. The head
        scanned is the journal's as of the time taken before reading, the status's time
        (``Outbox.head_as_of``): every row committed by then is in it. A time taken after
        the read would claim rows committed in between (their times are earlier), and a
        collector that merged them first would see a head behind its rows."""
        moment = self._clock()
        (version,) = conn.execute("PRAGMA data_version").fetchone()
        if version == self._data_version:
            # No other connection has committed since the last read, which came after the
            # PRAGMA before it: the head read then is the head as of this moment too.
            self.outbox.head_as_of = moment
            return False
        self._data_version = version
        before = self.outbox.scanned
        self._read_rows(conn)  # reads everything committed before ``moment``, maybe more
        self.outbox.head_as_of = moment
        return self.outbox.scanned != before

    def _read_rows(self, conn: sqlite3.Connection) -> None:
        while True:
            rows = list(select_rows(conn, after_id=self.outbox.scanned, limit=_SCAN_ROWS))
            for row in rows:
                self.outbox.scan(row)
            if len(rows) < _SCAN_ROWS:
                return

    def _handle_inbox(self, conn: sqlite3.Connection | None) -> bool:
        news = False
        while True:
            try:
                what, value = self._inbox.get_nowait()
            except queue.Empty:
                return news
            news = True
            if what == "connected":
                self._connected = True
                self.outbox.reset()  # whatever was in flight goes again
                _log.info("floor connected", acked=self.outbox.acked)
            elif what == "disconnected":
                if self._connected:
                    _log.warning("floor disconnected", reason=value)
                self._connected = False
                self.outbox.reset()
            elif what == "ack" and conn is not None:
                self._acknowledge(conn, value)

    def _acknowledge(self, conn: sqlite3.Connection, payload: bytes) -> None:
        try:
            ack = decode_ack(payload)
        except WireError as err:
            _log.warning("bad floor acknowledgement", error=str(err))
            return
        ours = GENESIS_HASH if ack.row == 0 else storage_of(conn).hash_of(ack.row)
        if ours != ack.hash:
            # Not our history: the collector raises the alert; we keep what we know.
            _log.warning("floor acknowledged a row this journal does not hold", row=ack.row)
            return
        if self.outbox.acknowledge(ack):
            save_ack(ack_path(self.journal), self.outbox.acked, self.outbox.acked_hash)

    def _send_rows(self, client: mqtt.Client, conn: sqlite3.Connection, now: float) -> None:
        if self.outbox.expire(now, self.settings.ack_timeout):
            _log.info("floor acknowledgement late: sending again", acked=self.outbox.acked)
        batch = self.outbox.next_batch(now, self.settings.batch_rows)
        if batch is None:
            return
        first, last = batch
        rows = list(select_rows(conn, after_id=first - 1, until_id=last))
        payload = encode_rows(self.table, rows)
        while len(payload) > MAX_MESSAGE_BYTES and len(rows) > 1:
            rows = rows[: len(rows) // 2]  # rows this large are rare: halve until it fits
            payload = encode_rows(self.table, rows)
        self.outbox.shorten(rows[-1].id)
        client.publish(topic(self.table, "rows"), payload, qos=1)
        self.published_rows += len(rows)


def _changed(new: Status, old: Status) -> bool:
    # The head and the acknowledgement move with every round: they go at the interval.
    # A new anchor (a seal) goes at once: the floor's fork check waits for it.
    return (new.state, new.round_no, new.fault, new.devices, new.anchor) != (
        old.state,
        old.round_no,
        old.fault,
        old.devices,
        old.anchor,
    )
