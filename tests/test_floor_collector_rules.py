"""The collector's rules (``floor.collector``) without a broker or a database: the fair
queue between the network thread and the writer, what a message from the broker becomes,
how a batch the database refuses is written table by table and a table that fails alone
made a suspect, what is published after a commit, and when systemd's watchdog is fed. The
module docstring of ``floor.collector`` and docs/floor.md ("What one station cannot do")
state the rules; ``tests/test_floor_collector.py``, ``test_floor_hostile.py`` and
``test_floor_faults.py`` play them on real mosquitto and PostgreSQL.
"""

from __future__ import annotations

import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import paho.mqtt.client as mqtt
import psycopg
import pytest
from floor_fixtures import HeldThread
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.reasoncodes import ReasonCode
from structlog.testing import capture_logs
from test_floor_ingest_verdicts import chain

from controller.journal.seal import new_sealing
from controller.journal.wire import Ack, Status, decode_ack, encode_rows, encode_status
from controller.service.sdnotify import Notifier
from floor import collector as module
from floor.collector import (
    PER_TABLE,
    QUEUE_MESSAGES,
    STUCK_SECONDS,
    SUSPECT_SECONDS,
    Collector,
    Inbox,
    acknowledgements,
    supervise,
)
from floor.config import FloorConfig, parse_floor_config
from floor.ingest import Applied
from floor.screen import Message, Refused, Rows, StatusReport, refused_rows
from floor.seals import TableSeals
from floor.servers import free_port


def _status(table: str) -> StatusReport:
    status = Status(table, "2026-12-01T05:00:00.000000Z", None, None, None, {}, (0, ""), 0)
    return StatusReport(status, 0.0)


def config(tmp_path: Path, mount_point: str = "station/", **collector: object) -> FloorConfig:
    """A checked ``floor.toml`` for a collector that is never started."""
    secret = tmp_path / "collector.password"
    secret.write_text("not-used\n")
    return parse_floor_config(
        {
            "broker": {
                "host": "127.0.0.1",
                "username": "collector",
                "password_file": str(secret),
                "tls": False,
                "mount_point": mount_point,
            },
            "database": {"conninfo": "host=/nonexistent"},
            "collector": collector,
        },
        tmp_path / "floor.toml",
    )


@pytest.fixture
def collector(tmp_path: Path) -> Iterator[Collector]:
    running = Collector(config(tmp_path))
    yield running
    running.stop()


# --- the queue --------------------------------------------------------------------------------


def test_one_table_holds_at_most_sixteen_places_and_the_others_still_fit() -> None:
    inbox = Inbox()
    assert PER_TABLE == 16 and QUEUE_MESSAGES == 2000  # the module's figures
    assert all(inbox.put(_status("T1")) for _ in range(16))
    assert not inbox.put(_status("T1"))  # the 17th: dropped, never acknowledged
    assert inbox.put(_status("T2"))


def test_the_queue_holds_at_most_its_total() -> None:
    inbox = Inbox(total=3, per_table=16)
    assert [inbox.put(_status(t)) for t in ("T1", "T2", "T3", "T4")] == [True, True, True, False]
    assert [m.table for m in inbox.take(10, 0)] == ["T1", "T2", "T3"]
    assert inbox.put(_status("T4"))


def test_take_gives_up_to_its_limit_in_arrival_order_and_frees_their_places() -> None:
    inbox = Inbox()
    sent = [_status(t) for t in ("T1", "T2", "T1", "T3", "T1")]
    for message in sent:
        assert inbox.put(message)
    assert inbox.take(3, 0) == sent[:3]
    assert inbox.take(3, 0) == sent[3:]
    assert inbox.take(3, 0) == []
    # a table's places come back as its messages are taken, one for one
    assert all(inbox.put(_status("T1")) for _ in range(16))
    inbox.take(1, 0)
    assert inbox.put(_status("T1")) and not inbox.put(_status("T1"))
    inbox.take(16, 0)
    assert all(inbox.put(_status("T1")) for _ in range(16))


def test_take_waits_for_a_message_and_returns_it_when_put() -> None:
    inbox = Inbox()
    assert inbox.take(5, 0.01) == []  # nothing within the timeout
    taken: list[list[Message]] = []
    waiter = threading.Thread(target=lambda: taken.append(inbox.take(5, 30.0)))
    waiter.start()
    message = _status("T1")
    assert inbox.put(message)
    waiter.join(10)
    assert taken == [[message]]


# --- what arrives from the broker -----------------------------------------------------------


def test_rows_and_statuses_are_screened_and_queued(collector: Collector) -> None:
    rows = chain(2)
    before = time.time()
    collector._take_in("station/floor/T1/rows", encode_rows("T1", rows))
    status = Status("T1", "2026-12-01T05:00:00.000000Z", None, None, None, {}, (2, rows[1].hash), 2)
    collector._take_in("station/floor/T1/status", encode_status(status))
    taken = collector.inbox.take(10, 0)
    assert taken[0] == Rows("T1", rows)
    assert isinstance(taken[1], StatusReport) and taken[1].status == status
    assert before <= taken[1].arrived <= time.time()
    assert collector.rejected == collector.dropped == 0


def test_an_acknowledgement_is_not_taken_and_not_counted(collector: Collector) -> None:
    collector._take_in("station/floor/T1/ack", b'{"row": 1}')
    assert collector.inbox.take(10, 0) == [] and collector.rejected == 0


def test_a_refused_message_of_a_table_is_queued_for_its_alert(collector: Collector) -> None:
    collector._take_in("station/floor/T1/rows", b"not json")
    (refused,) = collector.inbox.take(10, 0)
    assert isinstance(refused, Refused) and refused.table == "T1" and refused.payload
    assert collector.rejected == 1


def test_a_message_on_no_stations_topic_is_counted_and_not_queued(collector: Collector) -> None:
    collector._take_in("floor/T1/rows", encode_rows("T1", chain(1)))  # not under station/
    assert collector.inbox.take(10, 0) == [] and collector.rejected == 1
    collector._take_in("other/T1/rows", b"{}")
    assert collector.rejected == 2  # each one counted


def test_the_configured_limit_and_mount_point_are_the_ones_applied(tmp_path: Path) -> None:
    limited = config(tmp_path, "casino/", max_message_bytes=65536)
    running = Collector(limited)
    try:
        payload = encode_rows("T1", chain(1))
        running._take_in("casino/floor/T1/rows", payload + b" " * (65536 - len(payload)))
        running._take_in("casino/floor/T1/rows", payload + b" " * (65537 - len(payload)))
        fits, over = running.inbox.take(10, 0)
        assert isinstance(fits, Rows)
        assert isinstance(over, Refused) and over.kind == "oversize"
        assert over.reason == "65537 bytes, over the limit of 65536"
    finally:
        running.stop()


def test_a_table_over_its_places_is_dropped_and_counted(collector: Collector) -> None:
    payload = encode_rows("T1", chain(1))
    for _ in range(PER_TABLE + 2):
        collector._take_in("station/floor/T1/rows", payload)
    assert collector.dropped == 2 and len(collector.inbox.take(100, 0)) == PER_TABLE


def test_a_message_from_paho_is_taken_in(collector: Collector) -> None:
    message = mqtt.MQTTMessage(topic=b"station/floor/T1/rows")
    message.payload = encode_rows("T1", chain(1))
    collector._on_message(collector._client, None, message)
    assert collector.inbox.take(10, 0) == [Rows("T1", chain(1))]


def test_a_message_that_cannot_be_read_is_counted_and_never_stops_the_network_thread(
    collector: Collector,
) -> None:
    # nothing a station sends may stop paho's thread: any error taking a message in is
    # counted as a refusal (here a payload that is not bytes)
    for _ in range(2):
        message = mqtt.MQTTMessage(topic=b"station/floor/T1/rows")
        message.payload = object()  # type: ignore[assignment]
        collector._on_message(collector._client, None, message)
    assert collector.rejected == 2 and collector.inbox.take(10, 0) == []


def test_each_connection_lost_is_counted_unless_the_collector_stops(collector: Collector) -> None:
    for _ in range(2):
        collector._on_disconnect(collector._client, None, None, "keepalive timeout", None)
    assert collector.disconnects == 2
    collector.stopping.set()
    collector._on_disconnect(collector._client, None, None, "normal disconnection", None)
    assert collector.disconnects == 2


# --- the writer: a batch refused, suspects ---------------------------------------------------


class Database:
    """``Ingest.apply`` as the writer sees it: each call one transaction, refused (a
    ValueError, as psycopg's DataError is) when it holds a message of a ``poisoned``
    table, or unreachable when ``down``."""

    def __init__(self, *poisoned: str) -> None:
        self.poisoned = set(poisoned)
        self.calls: list[list[Message]] = []
        self.down = False
        self.refusals_fail = False

    def apply(self, messages: Sequence[Message]) -> Applied:
        self.calls.append(list(messages))
        if self.down:
            raise psycopg.OperationalError("connection lost")
        if self.refusals_fail and all(isinstance(m, Refused) for m in messages):
            raise ValueError("refusal refused")
        if any(m.table in self.poisoned and not isinstance(m, Refused) for m in messages):
            raise ValueError("invalid byte sequence\nDETAIL: more")
        done = Applied(stored=sum(len(m.rows) for m in messages if isinstance(m, Rows)))
        for m in messages:
            if isinstance(m, Rows) and m.rows:
                done.acks[m.table] = Ack(m.rows[-1].id, m.rows[-1].hash)
        return done


def _batch() -> list[Message]:
    return [
        Rows("T1", chain(2, "T1")),
        Rows("T6", chain(3, "T6")),
        _status("T6"),
        Rows("T2", chain(1, "T2")),
        Rows("T6", chain(1, "T6")),
    ]


def test_a_batch_the_database_takes_is_one_transaction(collector: Collector) -> None:
    database = Database()
    batch = _batch()
    published: list[tuple[str, bytes, int]] = []
    client: Any = collector._client
    client.publish = lambda name, payload, qos: published.append((name, payload, qos))
    collector.write_batch(batch, database.apply)
    assert database.calls == [batch]
    assert collector.stored == 7 and collector.suspects == {}
    # After the commit, each table's acknowledgement at QoS 1 (docs/floor.md: MQTT v5, QoS 1).
    assert [(name, decode_ack(payload), qos) for name, payload, qos in published] == [
        ("station/floor/T1/ack", Ack(2, chain(2, "T1")[-1].hash), 1),
        ("station/floor/T6/ack", Ack(1, chain(1, "T6")[-1].hash), 1),
        ("station/floor/T2/ack", Ack(1, chain(1, "T2")[-1].hash), 1),
    ]


def test_a_refused_batch_is_written_table_by_table_and_the_failing_table_suspected(
    collector: Collector,
) -> None:
    database = Database("T6")
    batch = _batch()
    before = time.monotonic()
    collector.write_batch(batch, database.apply)
    after = time.monotonic()
    reason = "the database refused it: ValueError: invalid byte sequence"
    assert isinstance(batch[1], Rows) and isinstance(batch[4], Rows)
    assert database.calls == [
        batch,
        [batch[0]],
        [batch[1], batch[2], batch[4]],  # T6 alone: refused again
        [refused_rows(batch[1], reason), refused_rows(batch[4], reason)],  # its rows, as evidence
        [batch[3]],
    ]
    assert collector.stored == 3  # T1's two rows and T2's one
    assert SUSPECT_SECONDS == 300.0  # docs/floor.md: "for five minutes"
    assert before + 300 <= collector.suspects["T6"] <= after + 300
    assert set(collector.suspects) == {"T6"}


def test_a_suspects_messages_are_written_on_their_own_until_its_time_is_over(
    collector: Collector,
) -> None:
    database = Database()
    collector.suspects = {"T6": time.monotonic() + 60}
    batch = _batch()
    collector.write_batch(batch, database.apply)
    assert database.calls == [[batch[0], batch[3]], [batch[1], batch[2], batch[4]]]
    assert "T6" in collector.suspects
    collector.suspects = {"T6": time.monotonic() - 0.001}
    database.calls.clear()
    collector.write_batch(batch, database.apply)
    assert database.calls == [batch] and collector.suspects == {}


def test_a_table_failing_with_statuses_only_has_nothing_to_refuse(collector: Collector) -> None:
    database = Database("T6")
    collector.write_batch([_status("T6")], database.apply)
    assert database.calls == [[_status("T6")], [_status("T6")]]
    assert "T6" in collector.suspects


def test_a_refusal_that_cannot_be_recorded_is_left_to_the_log(collector: Collector) -> None:
    database = Database("T6")
    database.refusals_fail = True
    collector.write_batch([Rows("T6", chain(1, "T6"))], database.apply)
    assert len(database.calls) == 3 and "T6" in collector.suspects


@pytest.mark.parametrize("at_call", [1, 2, 3])
def test_a_database_down_is_never_taken_for_a_tables_fault(
    collector: Collector, at_call: int
) -> None:
    """Unreachable (not refusing): the batch is not acknowledged and nobody is suspected,
    at the common transaction, a table's own, or the refusal's."""
    database = Database("T6")
    apply = database.apply

    def failing(messages: Sequence[Message]) -> Applied:
        database.down = len(database.calls) + 1 == at_call
        return apply(messages)

    with pytest.raises(psycopg.OperationalError):
        collector.write_batch([Rows("T6", chain(1, "T6"))], failing)
    assert len(database.calls) == at_call
    assert collector.suspects == ({"T6": collector.suspects["T6"]} if at_call == 3 else {})


# --- what is published --------------------------------------------------------------------------


def test_each_tables_acknowledgement_goes_to_its_ack_topic_under_the_mount_point() -> None:
    done = Applied(acks={"T1": Ack(3, "ab" * 32), "T2": Ack(0, "", rewind=True)})
    published = acknowledgements(done, "station/")
    assert [name for name, _ in published] == ["station/floor/T1/ack", "station/floor/T2/ack"]
    assert [decode_ack(payload) for _, payload in published] == [
        Ack(3, "ab" * 32),
        Ack(0, "", rewind=True),
    ]
    assert acknowledgements(done, "")[0][0] == "floor/T1/ack"


# --- a thread that dies, the watchdog ---------------------------------------------------------


def test_a_thread_that_dies_is_recorded_unless_the_collector_is_stopping(
    collector: Collector,
) -> None:
    assert collector.healthy() and collector._health() == "broker lost"  # never connected
    err = RuntimeError("boom\nsecond line")
    with capture_logs() as logs:
        collector._died("writer", err)
    assert collector.failure == "the writer thread stopped: RuntimeError: boom"
    # the journal of systemd says which thread died, with its traceback, before the restart
    assert logs == [
        {
            "event": "collector thread died",
            "thread": "writer",
            "exc_info": err,
            "log_level": "critical",
        }
    ]
    collector.failure = None
    collector.stopping.set()
    with capture_logs() as logs:
        collector._died("writer", RuntimeError("boom"))
    assert collector.failure is None and logs == []


def test_the_health_names_the_thread_that_stopped(collector: Collector) -> None:
    """The heartbeat's word for the console (docs/floor.md: "writer stopped" or "broker
    lost"; floor.heartbeat): either thread not running makes the collector unhealthy; a
    dead network thread (paho's loop) is recorded as its failure unless one is already;
    the word names the writer when it is the writer that is not running."""
    collector._started = True  # as start() leaves it, without a broker or a database
    client: Any = collector._client
    client._thread = None  # paho's loop never ran
    assert not collector.healthy() and collector._health() == "writer stopped"
    assert collector.failure == "the network thread (paho's loop) stopped"
    network = threading.Thread(target=collector.stopping.wait)
    network.start()
    try:
        client._thread = network
        assert not collector.healthy() and collector._health() == "writer stopped"
        collector._writer.start()  # takes from the empty inbox: no database reached
        assert collector.healthy() and collector._health() == "broker lost"  # never connected
        client.is_connected = lambda: True  # as paho says once the broker took it
        assert collector._health() == "ok"
        del client.is_connected
        client._thread = None
        collector.failure = "the writer thread stopped: RuntimeError: boom"
        assert not collector.healthy() and collector._health() == "network stopped"
        assert collector.failure == "the writer thread stopped: RuntimeError: boom"  # the first
        collector.stopping.set()  # stopping: no thread is missed any more
        assert collector.healthy()
    finally:
        collector.stopping.set()
        network.join()
        collector._writer.join()


def test_an_error_is_named_by_its_type_and_first_line_within_200_characters() -> None:
    assert module._first(ValueError("first\nsecond")) == "ValueError: first"
    assert module._first(ValueError()) == "ValueError: "
    assert module._first(ValueError("x" * 300)) == "ValueError: " + "x" * 188


class _Turns(Collector):
    """A collector whose health is asked a known number of times: ``stop`` is set at the
    ``turns``-th turn of the supervision; ``sick``: it reports a dead thread there."""

    def __init__(self, conf: FloorConfig, stop: threading.Event, turns: int, sick: bool) -> None:
        super().__init__(conf)
        self.stop_at, self.turns, self.sick, self.stop_event = turns, 0, sick, stop

    def healthy(self) -> bool:
        self.turns += 1
        if self.turns == self.stop_at:
            if self.sick:
                return False
            self.stop_event.set()
        return super().healthy()


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[tuple[socket.socket, Notifier]]:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(tmp_path / "notify"))
    listener.setblocking(False)
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "notify"), "WATCHDOG_USEC": "2"})
    yield listener, notifier
    listener.close()
    notifier.close()


def _pings(listener: socket.socket) -> int:
    count = 0
    while True:
        try:
            assert listener.recv(100) == b"WATCHDOG=1"
        except BlockingIOError:
            return count
        count += 1


@pytest.mark.parametrize(("age", "fed"), [(STUCK_SECONDS - 1, True), (STUCK_SECONDS + 1, False)])
def test_the_watchdog_is_fed_only_while_the_writer_turns(
    tmp_path: Path, notify_socket: tuple[socket.socket, Notifier], age: float, fed: bool
) -> None:
    listener, notifier = notify_socket
    stop = threading.Event()
    running = _Turns(config(tmp_path), stop, turns=3, sick=False)
    running.heartbeat = time.monotonic() - age
    assert STUCK_SECONDS == 30.0
    assert supervise(running, stop, notifier, tick=0.001) == 0
    assert running.stopping.is_set()  # stopped on the way out
    assert (_pings(listener) > 0) is fed


def test_a_dead_thread_ends_the_supervision_with_status_1(tmp_path: Path) -> None:
    stop = threading.Event()
    running = _Turns(config(tmp_path), stop, turns=2, sick=True)
    assert supervise(running, stop, None, tick=0.001) == 1
    assert running.turns == 2 and running.stopping.is_set()


def test_a_stop_asked_ends_the_supervision_with_status_0(tmp_path: Path) -> None:
    stop = threading.Event()
    stop.set()
    running = Collector(config(tmp_path))
    assert supervise(running, stop) == 0 and running.stopping.is_set()


class _Waits(threading.Event):
    """A stop event that records how long each wait is asked to be; set at the ``turns``-th."""

    def __init__(self, turns: int) -> None:
        super().__init__()
        self.asked: list[float | None] = []
        self.turns = turns

    def wait(self, timeout: float | None = None) -> bool:
        self.asked.append(timeout)
        if len(self.asked) >= self.turns:
            self.set()
        return self.is_set()


def test_the_collectors_threads_are_looked_at_every_second(tmp_path: Path) -> None:
    # docs/floor.md: a collector thread that died ends the process within a second.
    stop = _Waits(turns=3)
    running = Collector(config(tmp_path))
    assert supervise(running, stop) == 0
    assert stop.asked == [1.0, 1.0, 1.0]


@pytest.mark.parametrize(("age", "fed"), [(STUCK_SECONDS - 0.001, True), (STUCK_SECONDS, False)])
def test_a_writer_that_has_not_turned_for_exactly_30_seconds_is_stuck(
    tmp_path: Path,
    notify_socket: tuple[socket.socket, Notifier],
    monkeypatch: pytest.MonkeyPatch,
    age: float,
    fed: bool,
) -> None:
    listener, notifier = notify_socket
    running = Collector(config(tmp_path))
    monkeypatch.setattr(module, "time", SimpleNamespace(monotonic=lambda: 5000.0))
    running.heartbeat = 5000.0 - age
    assert supervise(running, _Waits(turns=2), notifier, tick=0.001) == 0
    assert (_pings(listener) > 0) is fed


# --- the broker client, connecting, subscribing -------------------------------------------


def test_the_client_logs_in_with_the_collectors_account_and_reconnects_within_5_seconds(
    tmp_path: Path,
) -> None:
    running = Collector(config(tmp_path))
    try:
        client: Any = running._client
        assert (client.username, client.password) == ("collector", "not-used")
        assert client._client_id == b"collector"  # the account name: no one else's id
        assert client._protocol == mqtt.MQTTv5
        assert (client._reconnect_min_delay, client._reconnect_max_delay) == (1, 5)
        assert client._ssl_context is None  # tls = false
        assert not running.subscribed.is_set()
        client.on_subscribe(client, None, 1, [], None)
        assert running.subscribed.is_set()
    finally:
        running.stop()


def test_with_tls_the_client_trusts_the_configured_ca(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-subj",
            "/CN=floor test CA",
            "-days",
            "1",
            "-keyout",
            str(tmp_path / "ca.key"),
            "-out",
            str(ca),
        ],
        check=True,
        capture_output=True,
    )
    conf = config(tmp_path)
    conf = replace(conf, broker=replace(conf.broker, ca_file=ca, port=8884))
    running = Collector(conf)
    try:
        context = running._client._ssl_context
        assert context is not None and context.verify_mode == ssl.CERT_REQUIRED
        assert [c["subject"] for c in context.get_ca_certs()] == [
            ((("commonName", "floor test CA"),),)
        ]
    finally:
        running.stop()


class _Subscriber:
    def __init__(self) -> None:
        self.subscribed: list[Any] = []

    def subscribe(self, topics: Any) -> None:
        self.subscribed.append(topics)


def test_once_connected_the_collector_joins_the_shared_subscription_of_rows_and_status(
    tmp_path: Path,
) -> None:
    running = Collector(config(tmp_path, mount_point="casino-7/"))
    try:
        client = _Subscriber()
        success = ReasonCode(PacketTypes.CONNACK, "Success")
        running._on_connect(client, None, None, success, None)  # type: ignore[arg-type]
        assert client.subscribed == [
            [
                ("$share/collectors/casino-7/floor/+/rows", 1),
                ("$share/collectors/casino-7/floor/+/status", 1),
            ]
        ]
        refused = ReasonCode(PacketTypes.CONNACK, "Not authorized")
        with capture_logs() as logs:
            running._on_connect(client, None, None, refused, None)  # type: ignore[arg-type]
        assert len(client.subscribed) == 1  # nothing subscribed on a refusal
        assert logs == [
            {
                "event": "broker refused the collector",
                "reason": "Not authorized",
                "log_level": "warning",
            }
        ]
    finally:
        running.stop()


# --- the writer thread ---------------------------------------------------------------------


class _Conn:
    """A database connection as the writer holds it: open until closed."""

    def __init__(self, number: int) -> None:
        self.number, self.closed = number, False

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> _Conn:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class _Writes(Collector):
    """A collector whose writes are recorded (or fail as ``fail`` says) instead of reaching
    a database: each call ``(connection number, tables)``."""

    def __init__(self, conf: FloorConfig) -> None:
        super().__init__(conf)
        self.writes: list[tuple[int, list[str]]] = []
        self.fail: list[BaseException | None] = []
        self.wrote = threading.Condition()

    def _write(self, conn: Any, batch: list[Message]) -> None:
        with self.wrote:
            self.writes.append((conn.number, [m.table for m in batch]))
            self.wrote.notify_all()
        error = self.fail.pop(0) if self.fail else None
        if error is not None:
            raise error

    def wait_writes(self, count: int) -> None:
        with self.wrote:
            assert self.wrote.wait_for(lambda: len(self.writes) >= count, 30)


class _Made(list[Any]):
    """The connections made (or the errors raised), and the errors to raise first."""

    def __init__(self) -> None:
        super().__init__()
        self.errors: list[Exception] = []


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> _Made:
    """Each ``psycopg.connect`` the writer makes, in order: a connection, or the error raised
    (``errors``: the errors to raise first)."""
    made = _Made()

    def connect(conninfo: str, **_: object) -> _Conn:
        assert conninfo == "host=/nonexistent"  # floor.toml's database
        if made.errors:
            made.append(made.errors.pop(0))
            raise made[-1]
        conn = _Conn(len(made) + 1)
        made.append(conn)
        return conn

    monkeypatch.setattr(psycopg, "connect", connect)
    return made


def _messages(collector: Collector, *tables: str) -> None:
    for table in tables:
        assert collector.inbox.put(_status(table))


def test_the_writer_takes_batches_of_the_configured_size_on_one_connection(
    tmp_path: Path, connections: _Made
) -> None:
    running = _Writes(config(tmp_path, batch_messages=2))
    _messages(running, "T1", "T2", "T3", "T4", "T5")
    before = running.heartbeat
    running._writer.start()
    try:
        running.wait_writes(3)
        assert running.writes == [(1, ["T1", "T2"]), (1, ["T3", "T4"]), (1, ["T5"])]
        assert running.heartbeat > before  # the writer turns
        # A connection found closed (the server restarted) is made again.
        connections[0].closed = True
        _messages(running, "T6")
        running.wait_writes(4)
        assert running.writes[3] == (2, ["T6"]) and len(connections) == 2
    finally:
        running.stop()
    assert not running._writer.is_alive() and running.failure is None
    assert connections[1].closed  # closed on the way out


def test_a_database_down_is_retried_on_a_new_connection_and_the_writer_lives_on(
    tmp_path: Path, connections: _Made
) -> None:
    running = _Writes(config(tmp_path, batch_messages=1))
    connections.errors.append(psycopg.OperationalError("no server\nat all"))
    running.fail = [psycopg.InterfaceError("the connection is lost")]
    _messages(running, "T1", "T2", "T3")
    with capture_logs() as logs:
        running._writer.start()
        try:
            running.wait_writes(2)
        finally:
            running.stop()
    # T1: no connection, not written (the station sends it again); T2 on the second
    # connection, which breaks; T3 on a third.
    assert running.writes == [(2, ["T2"]), (3, ["T3"])]
    assert isinstance(connections[0], psycopg.OperationalError)
    assert connections[1].closed and connections[2].closed
    assert running.failure is None and not running._writer.is_alive()
    assert [x for x in logs if x["event"] == "database write failed"] == [
        {"event": "database write failed", "error": "no server", "log_level": "warning"},
        {
            "event": "database write failed",
            "error": "the connection is lost",
            "log_level": "warning",
        },
    ]


def test_a_writer_that_fails_otherwise_dies_recorded_and_closes_its_connection(
    tmp_path: Path, connections: _Made
) -> None:
    running = _Writes(config(tmp_path))
    running.fail = [RuntimeError("boom")]
    running._started = True
    with capture_logs():
        _messages(running, "T1")
        running._writer.start()
        running._writer.join(30)
    try:
        assert not running._writer.is_alive()
        assert running.failure == "the writer thread stopped: RuntimeError: boom"
        assert connections[0].closed
        assert not running.healthy()
    finally:
        running.stop()


def test_start_migrates_the_schema_then_starts_the_writer_the_network_and_the_heartbeat(
    tmp_path: Path, connections: _Made, monkeypatch: pytest.MonkeyPatch
) -> None:
    migrated: list[Any] = []
    monkeypatch.setattr(module, "migrate", lambda conn: migrated.append((conn, conn.closed)))
    conf = config(tmp_path)
    conf = replace(conf, broker=replace(conf.broker, port=free_port()))  # paho retries
    running = Collector(conf)
    beats: list[str] = []
    running._heartbeat = SimpleNamespace(  # type: ignore[assignment]
        start=lambda: beats.append("start"), stop=lambda: beats.append("stop")
    )
    assert running.healthy()  # not started: nothing to miss
    running.start()
    try:
        assert migrated == [(connections[0], False)] and connections[0].closed  # then closed
        assert running._writer.is_alive() and running.healthy()
        client: Any = running._client
        assert (client.host, client.port, client.keepalive) == ("127.0.0.1", conf.broker.port, 15)
        assert client._clean_start is True
        assert beats == ["start"]
        # Started, a thread that stops is missed: here paho's loop.
        client.loop_stop()
        assert not running.healthy()
        assert running.failure == "the network thread (paho's loop) stopped"
    finally:
        running.stop()
    assert beats == ["start", "stop"] and not running._writer.is_alive()
    assert getattr(running._client, "_thread", None) is None  # paho's loop stopped


def test_a_database_that_cannot_be_migrated_stops_the_start(
    tmp_path: Path, connections: _Made, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(conn: Any) -> None:
        raise psycopg.errors.InsufficientPrivilege("permission denied for schema public")

    monkeypatch.setattr(module, "migrate", refuse)
    running = Collector(config(tmp_path))
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        running.start()
    assert not running._writer.is_alive() and running.healthy()
    running.stop()


def test_each_batch_is_applied_by_an_ingest_on_the_writers_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer's ``_write``: one :class:`floor.ingest.Ingest` on its connection, with the
    floor's seal keys and clock tolerance, applies the batch; what it stores is counted."""
    running = Collector(config(tmp_path, clock_tolerance_seconds=45))
    made: list[Any] = []

    class Recorded:
        def __init__(self, conn: Any, seals: Any, *, clock_tolerance: float) -> None:
            made.append((conn, seals, clock_tolerance))

        def apply(self, messages: Sequence[Message]) -> Applied:
            return Applied(stored=sum(len(m.rows) for m in messages if isinstance(m, Rows)))

    monkeypatch.setattr(module, "Ingest", Recorded)
    conn = _Conn(1)
    try:
        running._write(conn, [Rows("T1", chain(3, "T1")), _status("T2")])  # type: ignore[arg-type]
        assert made == [(conn, running.seals, 45.0)] and running.stored == 3
        ingest = running._ingest(conn)  # type: ignore[arg-type]
        assert isinstance(ingest, Recorded) and made[-1] == (conn, running.seals, 45.0)
    finally:
        running.stop()


class _CountedInbox(Inbox):
    """An inbox that never waits and counts the writer's turns (each take), noting how
    long each was asked to wait."""

    def __init__(self) -> None:
        super().__init__()
        self.takes = 0
        self.timeouts: set[float] = set()
        self.turned = threading.Condition()

    def take(self, limit: int, timeout: float) -> list[Message]:
        with self.turned:
            self.takes += 1
            self.timeouts.add(timeout)
            self.turned.notify_all()
        return super().take(limit, 0)


def test_an_idle_writer_keeps_turning_until_stopped(tmp_path: Path, connections: _Made) -> None:
    running = _Writes(config(tmp_path))
    inbox = _CountedInbox()
    running.inbox = inbox
    running._writer.start()
    try:
        with inbox.turned:  # nothing to write, turn after turn
            assert inbox.turned.wait_for(lambda: inbox.takes >= 5, 10)
        assert running._writer.is_alive() and connections == []  # no database asked for
    finally:
        running.stop()
    assert not running._writer.is_alive() and running.failure is None
    # Collector.stop: the writer looks at the stop at least every 0.2 s.
    assert inbox.timeouts == {0.2}


def test_after_a_lost_database_the_writer_waits_half_a_second_or_its_stop(
    tmp_path: Path, connections: _Made
) -> None:
    running = _Writes(config(tmp_path))
    running.stopping = stop = _Waits(turns=1)  # stopped in its first pause
    connections.errors.append(psycopg.OperationalError("no server"))
    _messages(running, "T1")
    with capture_logs():
        running._writer.start()
        running._writer.join(30)
    assert not running._writer.is_alive() and running.failure is None
    assert stop.asked == [0.5]  # Collector.stop: its pause before it connects again
    assert running.writes == []


def test_a_stop_waits_ten_seconds_at_most_for_a_writer_stuck_in_the_database(
    tmp_path: Path,
) -> None:
    running = Collector(config(tmp_path))
    running._writer = stuck = HeldThread()  # type: ignore[assignment]
    running.stop()
    assert stuck.joins == [10]  # Collector.stop, then left to end on its own


def test_a_suspects_time_ends_at_its_instant_and_failing_again_starts_it_anew(
    collector: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(module, "time", SimpleNamespace(monotonic=lambda: 1000.0))
    database = Database("T6")
    batch = _batch()
    collector.suspects = {"T6": 1000.0}  # its time ends now: written with the others again
    collector.write_batch([batch[0]], database.apply)
    assert collector.suspects == {}
    collector.suspects = {"T6": 1000.5}  # still a suspect, and its messages fail again
    with capture_logs():
        collector.write_batch(batch, database.apply)
    assert collector.suspects == {"T6": 1000.0 + SUSPECT_SECONDS}  # a new time, for T6


def test_a_new_collector_holds_the_floors_seal_keys_its_threads_and_callbacks(
    tmp_path: Path,
) -> None:
    _, key = new_sealing("T05")
    conf = replace(config(tmp_path), verify_keys={"T05": key.to_text()})
    running = Collector(conf)
    try:
        assert running.seals.sealed("T05") and not running.seals.sealed("T06")
        assert running._writer.name == "collector-writer"  # what a thread dump shows
        beat = running._heartbeat
        assert (beat.conninfo, beat.name) == ("host=/nonexistent", "collector")
        assert beat.state() == running._health()
        client: Any = running._client
        assert client.on_connect == running._on_connect
        assert client.on_disconnect == running._on_disconnect
        assert client.on_message == running._on_message
        assert client._callback_api_version == CallbackAPIVersion.VERSION2
    finally:
        running.stop()
    given = TableSeals({})
    other = Collector(conf, given)
    assert other.seals is given  # the seals handed in, not the file's
    other.stop()
