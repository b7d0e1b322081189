"""The shipper's rules without a broker (``controller.service.shipper``, docs/floor.md):
what it reads from the journal, in which order the rows leave, what an acknowledgement
does, when the status goes and what it says.

A real journal (SQLite, WAL) in ``tmp_path`` and the real shipper's steps (``_open``,
``_scan``, ``_handle_inbox``, ``_publish``, as its thread's loop calls them); the MQTT
client is the boundary: a recording stand-in with paho's ``publish`` and ``subscribe``.
A collector is played by hand: it acknowledges what it received (``encode_ack``).
"""

from __future__ import annotations

import queue
import sqlite3
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.reasoncodes import ReasonCode

from controller.journal.format import GENESIS_HASH, Row, utc_now
from controller.journal.reader import JournalReader, select_rows
from controller.journal.store import Journal
from controller.journal.wire import (
    MAX_MESSAGE_BYTES,
    Ack,
    Status,
    decode_rows,
    decode_status,
    encode_ack,
    encode_rows,
    topic,
)
from controller.service import shipper as shipper_module
from controller.service.config_floor import FloorSettings
from controller.service.outbox import ack_path, load_ack, save_ack
from controller.service.shipper import STATUS_LOOKBACK, Shipper

TABLE = "T52"
ACCEPTED = ReasonCode(PacketTypes.CONNACK, "Success")


@dataclass
class Message:
    """An MQTT message as paho hands it to ``on_message``."""

    payload: bytes


@dataclass
class Wire:
    """The MQTT client as the shipper sees it: every publish and subscribe, in order."""

    sent: list[tuple[str, bytes, int]] = field(default_factory=list)
    subscribed: list[tuple[str, int]] = field(default_factory=list)

    def publish(self, name: str, payload: bytes, qos: int = 0) -> None:
        self.sent.append((name, payload, qos))

    def subscribe(self, name: str, qos: int = 0) -> None:
        self.subscribed.append((name, qos))

    def rows(self) -> list[list[Row]]:
        """Each rows message's rows, in the order sent (all at QoS 1)."""
        out = []
        for name, payload, qos in self.sent:
            if name == topic(TABLE, "rows"):
                assert qos == 1
                out.append(decode_rows(payload, TABLE))
        return out

    def statuses(self) -> list[Status]:
        out = []
        for name, payload, qos in self.sent:
            if name == topic(TABLE, "status"):
                assert qos == 1
                out.append(decode_status(payload, TABLE))
        return out


def settings(tmp_path: Path, **kw: Any) -> FloorSettings:
    """A never-started shipper's settings (no broker, no password read)."""
    return FloorSettings("127.0.0.1", 1, TABLE, tmp_path / "no-password", None, **kw)


class Loop:
    """One shipper's connection to the journal and its loop's steps, run by hand."""

    def __init__(self, shipper: Shipper, conn: sqlite3.Connection) -> None:
        self.shipper, self.conn, self.wire = shipper, conn, Wire()
        self.last: Status | None = None
        shipper._status_sent = shipper._checked = 0.0

    def post(self, what: str, value: Any = None) -> None:
        """What paho's network thread reports, through the shipper's own callbacks."""
        client = cast(mqtt.Client, self.wire)
        if what == "connected":
            self.shipper._on_connect(client, None, None, ACCEPTED, None)
        elif what == "disconnected":
            self.shipper._on_disconnect(client, None, None, value, None)
        else:
            assert what == "ack"
            self.shipper._on_message(client, None, cast(mqtt.MQTTMessage, Message(value)))

    def step(self) -> None:
        """What one pass of ``Shipper._run`` does while connected."""
        self.shipper._handle_inbox(self.conn)
        self.shipper._scan(self.conn)
        if self.shipper.connected:
            client = cast(mqtt.Client, self.wire)
            self.last = self.shipper._publish(client, self.conn, self.last)

    def ack_last_batch(self, rewind: bool = False) -> None:
        """The collector acknowledges the last rows message it received."""
        last = self.wire.rows()[-1][-1]
        self.post("ack", encode_ack(Ack(last.id, last.hash, rewind)))


@contextmanager
def shipping(path: Path, tmp_path: Path, **kw: Any) -> Iterator[Loop]:
    shipper = Shipper(path, TABLE, settings(tmp_path, **kw))
    conn = shipper._open()
    assert conn is not None
    try:
        yield Loop(shipper, conn)
    finally:
        conn.close()


def journal_rows(path: Path) -> list[Row]:
    with JournalReader.open(path) as reader:
        return list(reader.query(lambda conn: list(select_rows(conn))))


def play_rounds(journal: Journal, rounds: int, first: int = 1) -> None:
    """Whole rounds: each starts, deals a card and ends."""
    for n in range(first, first + rounds):
        journal.append("round_started", {"round": n, "seats": []}, n)
        journal.append("card", {"role": "up", "card": "KH", "seat": 1}, n)
        journal.append("round_completed", {"reshuffle": False}, n)


def test_every_row_leaves_once_in_order_and_the_acknowledgement_is_kept(tmp_path: Path) -> None:
    """Stop-and-wait with a collector that acknowledges each message: rows 1..N arrive
    exactly once each, in id order, each with its journal hash, in batches of
    ``batch_rows`` (the last one shorter); the kept acknowledgement names the last row."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("station_started", {"table_id": TABLE})
        play_rounds(journal, 3)  # rows 1..10
        with shipping(path, tmp_path, batch_rows=4) as loop:
            loop.post("connected")
            for _ in range(6):
                loop.step()
                loop.ack_last_batch()
            assert [[r.id for r in rows] for rows in loop.wire.rows()] == [
                [1, 2, 3, 4], [5, 6, 7, 8], [9, 10],
            ]  # fmt: skip
            assert loop.shipper.published_rows == 10
    rows = journal_rows(path)
    assert [r for batch in loop.wire.rows() for r in batch] == rows
    assert load_ack(ack_path(path)) == (10, rows[-1].hash)
    assert loop.shipper.acked == 10


def test_no_row_leaves_before_an_acknowledgement_of_the_batch_in_flight(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        play_rounds(journal, 2)  # rows 1..6
        with shipping(path, tmp_path, batch_rows=3, ack_timeout=3600.0) as loop:
            loop.post("connected")
            for _ in range(3):
                loop.step()
            assert [[r.id for r in b] for b in loop.wire.rows()] == [[1, 2, 3]]
            loop.ack_last_batch()
            loop.step()
            assert [[r.id for r in b] for b in loop.wire.rows()] == [[1, 2, 3], [4, 5, 6]]


def test_a_batch_not_acknowledged_in_time_goes_again_from_the_same_row(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        play_rounds(journal, 1)
        with shipping(path, tmp_path, ack_timeout=0.0) as loop:
            loop.post("connected")
            loop.step()
            loop.step()  # the timeout (0 s) is past: the same rows again
            assert [[r.id for r in b] for b in loop.wire.rows()] == [[1, 2, 3], [1, 2, 3]]
            assert loop.shipper.published_rows == 6  # copies included


def test_rows_of_the_round_in_play_wait_on_the_table(tmp_path: Path) -> None:
    """No card of a round in play leaves (the hole card's identity included): the
    round's rows go once it has ended."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("station_started", {"table_id": TABLE})
        journal.append("round_started", {"round": 1, "seats": []}, 1)
        journal.append("hole_card_dealt", {"card": "AS"}, 1)
        with shipping(path, tmp_path) as loop:
            loop.post("connected")
            loop.step()
            loop.ack_last_batch()
            loop.step()
            assert [[r.id for r in b] for b in loop.wire.rows()] == [[1]]
            assert all(b"AS" not in payload for _, payload, _ in loop.wire.sent)
            journal.append("round_completed", {"reshuffle": False}, 1)
            loop.step()
            assert [[r.id for r in b] for b in loop.wire.rows()] == [[1], [2, 3, 4]]


def test_nothing_is_published_while_disconnected(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        play_rounds(journal, 1)
        with shipping(path, tmp_path) as loop:
            loop.step()
            assert loop.wire.sent == []
            loop.post("connected")
            loop.step()
            assert len(loop.wire.rows()) == 1
            loop.post("disconnected", "gone")
            loop.step()
            assert loop.shipper.connected is False
            journal.append("device", {"device": "shoe", "status": "lost"})
            sent = len(loop.wire.sent)
            loop.step()
            assert len(loop.wire.sent) == sent


@pytest.mark.parametrize("event", ["connected", "disconnected"])
def test_a_connection_made_or_lost_sends_the_batch_in_flight_again(
    tmp_path: Path, event: str
) -> None:
    """What was in flight may never have reached the broker: after a reconnect the same
    rows go again at once (not after the acknowledgement's timeout)."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        play_rounds(journal, 1)
        with shipping(path, tmp_path, ack_timeout=3600.0) as loop:
            loop.post("connected")
            loop.step()
            loop.post(event, "reason")
            loop.post("connected")
            loop.step()
            assert [[r.id for r in b] for b in loop.wire.rows()] == [[1, 2, 3], [1, 2, 3]]


def test_an_acknowledgement_of_another_history_is_ignored(tmp_path: Path) -> None:
    """A row this journal holds with another hash, a row it does not hold, a damaged
    message: nothing is acknowledged or kept, and the rows are not given up."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        play_rounds(journal, 1)
        with shipping(path, tmp_path, ack_timeout=3600.0) as loop:
            loop.post("connected")
            loop.step()
            loop.post("ack", encode_ack(Ack(3, "f" * 64)))
            loop.post("ack", encode_ack(Ack(9, "f" * 64)))
            loop.post("ack", b"not an acknowledgement")
            loop.step()
            assert loop.shipper.acked == 0
            assert not ack_path(path).exists()
            assert len(loop.wire.rows()) == 1  # still waiting for the batch's own ack
            loop.ack_last_batch()
            loop.step()
            assert loop.shipper.acked == 3


def test_a_rewind_to_nothing_sends_every_row_again(tmp_path: Path) -> None:
    """A collector whose database was restored empty acknowledges row 0 (the genesis
    hash) with a rewind: the station sends from row 1 again and keeps row 0."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        play_rounds(journal, 1)
        with shipping(path, tmp_path) as loop:
            loop.post("connected")
            loop.step()
            loop.ack_last_batch()
            loop.step()
            assert load_ack(ack_path(path))[0] == 3
            loop.post("ack", encode_ack(Ack(0, GENESIS_HASH, rewind=True)))
            loop.step()
            assert load_ack(ack_path(path)) == (0, GENESIS_HASH)
            assert [[r.id for r in b] for b in loop.wire.rows()] == [[1, 2, 3], [1, 2, 3]]


def test_a_restart_goes_on_after_the_kept_acknowledgement(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        play_rounds(journal, 2)
        rows = journal_rows(path)
        save_ack(ack_path(path), 3, rows[2].hash)
        with shipping(path, tmp_path) as loop:
            assert loop.shipper.acked == 3
            loop.post("connected")
            loop.step()
            assert [[r.id for r in b] for b in loop.wire.rows()] == [[4, 5, 6]]


@pytest.mark.parametrize("kept", [(3, "f" * 64), (99, "f" * 64)])
def test_a_kept_acknowledgement_the_journal_does_not_match_sends_everything(
    tmp_path: Path, kept: tuple[int, str]
) -> None:
    """An acknowledgement file that names another hash, or a row the journal lacks (a
    journal replaced under it): every row goes again, none is taken as delivered."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        play_rounds(journal, 2)
        save_ack(ack_path(path), *kept)
        with shipping(path, tmp_path) as loop:
            assert loop.shipper.acked == 0
            assert loop.shipper.outbox.acked_hash == GENESIS_HASH
            loop.post("connected")
            loop.step()
            assert [[r.id for r in b] for b in loop.wire.rows()] == [[1, 2, 3, 4, 5, 6]]


def test_a_message_too_large_is_halved_and_no_row_is_skipped(tmp_path: Path) -> None:
    """Rows whose message would pass the broker's limit go in smaller batches: each
    message within ``MAX_MESSAGE_BYTES``, every row once, in order."""
    path = tmp_path / "journal.sqlite3"
    blob = "x" * (MAX_MESSAGE_BYTES // 3)
    with Journal.open(path) as journal:
        for n in range(1, 5):
            journal.append("device", {"device": f"d{n}", "status": "ok", "note": blob})
        with shipping(path, tmp_path, batch_rows=100) as loop:
            loop.post("connected")
            for _ in range(2):
                loop.step()
                loop.ack_last_batch()
    sizes = [len(p) for name, p, _ in loop.wire.sent if name == topic(TABLE, "rows")]
    assert all(size <= MAX_MESSAGE_BYTES for size in sizes)
    batches = [[r.id for r in b] for b in loop.wire.rows()]
    assert batches == [[1, 2], [3, 4]]  # 4 rows in one message are too large, 2 fit


def test_the_status_goes_at_once_when_it_changes_and_at_its_interval_otherwise(
    tmp_path: Path,
) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("prompt", {"state": "betting", "lamps": {}})
        with shipping(path, tmp_path, status_interval=3600.0) as loop:
            loop.post("connected")
            loop.step()
            first = loop.wire.statuses()
            assert [s.state for s in first] == ["betting"]  # the first goes at once
            assert first[0].head == (1, journal_rows(path)[0].hash)
            journal.append("device", {"device": "shoe", "status": "ok"})
            loop.step()
            loop.ack_last_batch()
            journal.append("device", {"device": "shoe", "status": "lost"})
            loop.step()
            statuses = loop.wire.statuses()
            assert [s.devices for s in statuses] == [{}, {"shoe": "ok"}, {"shoe": "lost"}]
            loop.step()  # nothing new: no status before the interval
            assert len(loop.wire.statuses()) == 3


def test_an_unchanged_status_goes_again_at_its_interval(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("prompt", {"state": "betting", "lamps": {}})
        with shipping(path, tmp_path, status_interval=0.0) as loop:
            loop.post("connected")
            loop.step()
            loop.step()
            assert [s.state for s in loop.wire.statuses()] == ["betting", "betting"]


def test_a_new_anchor_goes_at_once(tmp_path: Path) -> None:
    """A seal's status leaves without waiting for the interval (the floor's fork check
    waits for it), as does a fault, its resolution, a new round and a new state."""
    from controller.journal.seal import new_sealing, save_state

    key_file = tmp_path / "sealing-key"
    save_state(key_file, new_sealing(TABLE)[0])
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=key_file) as journal:
        journal.append("station_started", {"table_id": TABLE})  # row 1, its seal row 2
        with shipping(path, tmp_path, status_interval=3600.0) as loop:
            loop.post("connected")
            loop.step()
            assert loop.wire.statuses()[-1].anchor is not None
            assert loop.wire.statuses()[-1].anchor[0] == 2  # type: ignore[index]
            journal.append("round_started", {"round": 1, "seats": []}, 1)
            journal.seal()
            loop.step()
            statuses = loop.wire.statuses()
            assert statuses[-1].anchor is not None and statuses[-1].anchor[0] == 4
            assert statuses[-1].round_no == 1
            count = len(statuses)
            journal.append("fault", {"code": "shoe_lost", "message": "x", "state": "deal"}, 1)
            loop.step()
            assert len(loop.wire.statuses()) == count + 1
            journal.append("fault_resolved", {}, 1)
            loop.step()
            assert loop.wire.statuses()[-1].fault is None
            assert len(loop.wire.statuses()) == count + 2


def test_a_restart_reads_back_the_last_rows_for_the_status_and_no_further(
    tmp_path: Path,
) -> None:
    """At start the rows from ``STATUS_LOOKBACK`` before the acknowledged one are read
    again for the status: a device reported within them is known, one before them is not
    (nor does it leave again)."""
    path = tmp_path / "journal.sqlite3"
    acked = STATUS_LOOKBACK + 2
    with Journal.open(path) as journal:
        with journal.batch():
            journal.append("device", {"device": "early", "status": "lost"})  # row 1
            journal.append("device", {"device": "shoe", "status": "ok"})  # row 2
            journal.append("device", {"device": "reader", "status": "ok"})  # row 3
            for _ in range(4, acked + 1):
                journal.append("prompt", {"state": "betting", "lamps": {}})
        rows = journal_rows(path)
        save_ack(ack_path(path), acked, rows[acked - 1].hash)
        with shipping(path, tmp_path) as loop:
            assert loop.shipper.outbox.scanned == 2
            loop.post("connected")
            loop.step()
            assert loop.wire.rows() == []  # all acknowledged: nothing goes again
            assert loop.wire.statuses()[-1].devices == {"reader": "ok"}
            assert loop.wire.statuses()[-1].head == (acked, rows[-1].hash)


class Recorder(Wire):
    """The whole client as the shipper's thread uses it: the connection's calls too."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[Any, ...]] = []
        self.published: queue.Queue[tuple[str, bytes]] = queue.Queue()

    def connect_async(self, host: str, port: int, keepalive: int = 60) -> None:
        self.calls.append(("connect_async", host, port, keepalive))

    def loop_start(self) -> None:
        self.calls.append(("loop_start",))

    def publish(self, name: str, payload: bytes, qos: int = 0) -> None:
        super().publish(name, payload, qos)
        self.published.put((name, payload))

    def disconnect(self) -> None:
        self.calls.append(("disconnect",))

    def loop_stop(self) -> None:
        self.calls.append(("loop_stop",))

    def reinitialise(self) -> None:
        self.calls.append(("reinitialise",))


def next_rows(client: Recorder) -> list[Row]:
    while True:
        name, payload = client.published.get(timeout=WAIT)
        if name == topic(TABLE, "rows"):
            return decode_rows(payload, TABLE)


WAIT = 30.0  # a hang guard: each message comes within the shipper's poll interval


def test_the_thread_ships_what_the_journal_holds_and_stops_cleanly(tmp_path: Path) -> None:
    """The shipper's thread, its client the recorder: it connects to the configured
    broker, sends the rows once connected, goes on at each acknowledgement, and at
    ``stop`` disconnects and closes its loop."""
    path = tmp_path / "journal.sqlite3"
    password = tmp_path / "password"
    password.write_text("secret\n")
    client = Recorder()

    accounts: list[tuple[str | None, str | None]] = []

    class Recorded(Shipper):
        def _client(self) -> mqtt.Client:
            real = super()._client()  # as the shipper makes it, credentials and all
            accounts.append((real.username, real.password))
            return cast(mqtt.Client, client)

    floor = FloorSettings(
        "floor.example", 8883, TABLE, password, None, batch_rows=3, poll_interval=0.01
    )
    with Journal.open(path) as journal:
        play_rounds(journal, 1)
        shipper = Recorded(path, TABLE, floor)
        shipper.start()
        try:
            shipper._on_connect(
                cast(mqtt.Client, client),
                None,
                None,
                ReasonCode(PacketTypes.CONNACK, "Success"),
                None,
            )
            first = next_rows(client)
            assert [r.id for r in first] == [1, 2, 3]
            play_rounds(journal, 1, first=2)
            shipper._on_message(
                cast(mqtt.Client, client), None,
                cast(mqtt.MQTTMessage, Message(encode_ack(Ack(3, first[-1].hash)))),
            )  # fmt: skip
            assert [r.id for r in next_rows(client)] == [4, 5, 6]
            assert shipper.connected
        finally:
            shipper.stop()
    assert shipper.acked == 3
    assert accounts == [(TABLE, "secret")]  # the password file's first line, read at start
    assert client.calls[:2] == [("connect_async", "floor.example", 8883, 15), ("loop_start",)]
    assert client.calls[-3:] == [("disconnect",), ("loop_stop",), ("reinitialise",)]
    assert client.subscribed == [(topic(TABLE, "ack"), 1)]


def test_a_broker_that_refuses_the_station_gets_no_subscription(tmp_path: Path) -> None:
    client = Wire()
    shipper = Shipper(tmp_path / "journal.sqlite3", TABLE, settings(tmp_path))
    refused = ReasonCode(PacketTypes.CONNACK, "Not authorized")
    shipper._on_connect(cast(mqtt.Client, client), None, None, refused, None)
    assert client.subscribed == []
    assert shipper._inbox.empty()


CA_NAME = "shipper rules test CA"


def own_ca(path: Path) -> Path:
    """A CA certificate of the test's own, written at ``path``."""
    from datetime import UTC, datetime, timedelta

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CA_NAME)])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return path


def test_the_client_is_the_tables_own_mqtt5_account_with_tls(tmp_path: Path) -> None:
    password = tmp_path / "password"
    password.write_text("secret\n")
    ca = own_ca(tmp_path / "ca.pem")
    floor = FloorSettings("127.0.0.1", 8883, "station-52", password, None)
    shipper = Shipper(tmp_path / "journal.sqlite3", TABLE, floor)
    shipper._password = floor.password()
    plain = shipper._client()
    assert plain._client_id == TABLE.encode()
    assert plain._callback_api_version == CallbackAPIVersion.VERSION2  # the callbacks' form
    assert plain.on_connect == shipper._on_connect
    assert plain.on_disconnect == shipper._on_disconnect
    assert plain.on_message == shipper._on_message
    assert plain.protocol == mqtt.MQTTv5
    assert (plain.username, plain.password) == ("station-52", "secret")
    assert (plain._reconnect_min_delay, plain._reconnect_max_delay) == (1, 10)
    assert plain._ssl_context is None
    tls = Shipper(tmp_path / "journal.sqlite3", TABLE, FloorSettings(
        "127.0.0.1", 8883, "station-52", password, ca
    ), client_id="T52-b")  # fmt: skip
    tls._password = "secret"
    client = tls._client()
    assert client._client_id == b"T52-b"
    assert client._ssl_context is not None
    assert client._ssl_context.verify_mode == ssl.CERT_REQUIRED
    subjects = [c["subject"] for c in client._ssl_context.get_ca_certs()]
    assert subjects == [((("commonName", CA_NAME),),)]  # the floor's CA alone, not the system's


def test_a_password_that_cannot_be_read_stops_the_start(tmp_path: Path) -> None:
    shipper = Shipper(tmp_path / "journal.sqlite3", TABLE, settings(tmp_path))
    with pytest.raises(OSError):
        shipper.start()
    assert not shipper._thread.is_alive()


def test_stop_gives_up_on_a_thread_stuck_past_its_timeout(tmp_path: Path) -> None:
    """``stop`` waits at most its timeout for the thread (a broker's socket stuck in its
    close must not hold the daemon's shutdown); the thread ends once it is free."""
    password = tmp_path / "password"
    password.write_text("secret\n")
    release, closing = threading.Event(), threading.Event()

    class Stuck(Recorder):
        def disconnect(self) -> None:
            closing.set()
            release.wait(WAIT)

    client = Stuck()

    class Recorded(Shipper):
        def _client(self) -> mqtt.Client:
            return cast(mqtt.Client, client)

    floor = FloorSettings("127.0.0.1", 8883, TABLE, password, None, poll_interval=0.01)
    shipper = Recorded(tmp_path / "journal.sqlite3", TABLE, floor)
    shipper.start()
    stopper = threading.Thread(target=shipper.stop, kwargs={"timeout": 0.2})
    stopper.start()
    try:
        assert closing.wait(WAIT)
        stopper.join(WAIT / 3)  # a hang guard: stop returns after its 0.2 s
        assert not stopper.is_alive()
        assert shipper._thread.is_alive()  # still in its close
    finally:
        release.set()
        stopper.join(WAIT)
        shipper._thread.join(WAIT)
    assert not shipper._thread.is_alive()


class Passes:
    """The shipper's clock, read once in each pass of its loop (``_scan``): counts the
    passes, so a test waits for the loop to turn instead of for time to pass. It can make
    one read of the journal fail (``fail_at``: that pass's number)."""

    def __init__(self) -> None:
        self.count = 0
        self.target = 0
        self.reached = threading.Event()
        self.fail_at: int | None = None

    def __call__(self) -> Any:
        self.count += 1
        if self.count == self.fail_at:
            raise sqlite3.OperationalError("disk I/O error")
        if self.count >= self.target:
            self.reached.set()
        return utc_now()

    def turn(self, passes: int) -> None:
        """Wait for ``passes`` more passes of the loop."""
        self.reached.clear()
        self.target = self.count + passes
        assert self.reached.wait(WAIT)


class Wake(threading.Event):
    """The shipper's wake-up event, recording how long each of its waits may last."""

    def __init__(self) -> None:
        super().__init__()
        self.timeouts: list[float | None] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.timeouts.append(timeout)
        return super().wait(timeout)


@contextmanager
def running(tmp_path: Path, **kw: Any) -> Iterator[tuple[Shipper, Recorder, Passes, Wake]]:
    """The shipper's thread on ``tmp_path/journal.sqlite3``, its client the recorder."""
    password = tmp_path / "password"
    password.write_text("secret\n")
    client, passes, wake = Recorder(), Passes(), Wake()

    class Recorded(Shipper):
        def _client(self) -> mqtt.Client:
            return cast(mqtt.Client, client)

    floor = FloorSettings("127.0.0.1", 8883, TABLE, password, None, poll_interval=0.01, **kw)
    shipper = Recorded(tmp_path / "journal.sqlite3", TABLE, floor, clock=passes)
    shipper._wake = wake
    shipper.start()
    try:
        yield shipper, client, passes, wake
    finally:
        shipper.stop()


def connect(shipper: Shipper, client: Recorder) -> None:
    shipper._on_connect(cast(mqtt.Client, client), None, None, ACCEPTED, None)


def statuses_sent(client: Recorder) -> int:
    return sum(1 for name, _, _ in client.sent if name == topic(TABLE, "status"))


def test_rows_committed_while_idle_leave_with_no_message_to_wake_the_shipper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The journal is polled: rows the station commits go at the next poll, not at the
    next acknowledgement, connection change or idle check (here never due)."""
    monkeypatch.setattr(shipper_module, "_CHECK_SECONDS", 1e12)  # never due
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        journal.append("station_started", {"table_id": TABLE})
        with running(tmp_path, ack_timeout=3600.0) as (shipper, client, passes, _):
            connect(shipper, client)
            first = next_rows(client)
            assert [r.id for r in first] == [1]
            shipper._on_message(
                cast(mqtt.Client, client), None,
                cast(mqtt.MQTTMessage, Message(encode_ack(Ack(1, first[0].hash)))),
            )  # fmt: skip
            passes.turn(3)  # the acknowledgement taken: nothing more to send
            play_rounds(journal, 1)
            assert [r.id for r in next_rows(client)] == [2, 3, 4]


def test_a_batch_not_acknowledged_goes_again_while_nothing_else_happens(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        journal.append("station_started", {"table_id": TABLE})
        with running(tmp_path, ack_timeout=0.05) as (shipper, client, _, _):
            connect(shipper, client)
            assert [r.id for r in next_rows(client)] == [1]
            assert [r.id for r in next_rows(client)] == [1]  # its acknowledgement is late


def test_a_status_goes_once_until_it_changes_however_often_the_loop_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shipper_module, "_CHECK_SECONDS", 0.0)  # a check every pass
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        journal.append("prompt", {"state": "betting", "lamps": {}})
        with running(tmp_path, ack_timeout=3600.0, status_interval=3600.0) as run:
            shipper, client, passes, _ = run
            connect(shipper, client)
            passes.turn(20)
            assert statuses_sent(client) == 1


def test_an_idle_loop_checks_only_at_its_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With nothing new, the loop publishes only when its check is due (never here): a
    status whose interval is 0 still goes only on news."""
    monkeypatch.setattr(shipper_module, "_CHECK_SECONDS", 1e12)  # never due
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        journal.append("prompt", {"state": "betting", "lamps": {}})
        with running(tmp_path, ack_timeout=3600.0, status_interval=0.0) as run:
            shipper, client, passes, _ = run
            passes.turn(3)  # the journal read: the connection alone is the news
            connect(shipper, client)
            passes.turn(20)
            assert statuses_sent(client) == 1


def test_nothing_is_published_before_the_broker_accepts_the_station(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        play_rounds(journal, 1)
        with running(tmp_path) as (_, client, passes, _):
            passes.turn(20)
            assert client.sent == []


def test_a_journal_read_that_fails_opens_the_journal_again(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        journal.append("station_started", {"table_id": TABLE})
        with running(tmp_path, ack_timeout=3600.0) as (shipper, client, passes, _):
            passes.fail_at = 3
            passes.turn(6)  # past the failed read
            connect(shipper, client)
            assert [r.id for r in next_rows(client)] == [1]


def test_the_journal_is_polled_at_its_interval_and_four_times_slower_with_a_batch_in_flight(
    tmp_path: Path,
) -> None:
    """With a batch in flight no row can go before its acknowledgement, which wakes the
    thread: the journal is polled four times less often meanwhile (module ``_wait``)."""
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        journal.append("station_started", {"table_id": TABLE})
        with running(tmp_path, ack_timeout=3600.0) as (shipper, client, passes, wake):
            passes.turn(3)
            assert set(wake.timeouts) == {0.01}
            connect(shipper, client)
            next_rows(client)
            passes.turn(3)
            assert wake.timeouts[-1] == pytest.approx(0.04)


def test_rows_past_a_page_of_the_scan_are_read_in_the_same_pass(tmp_path: Path) -> None:
    """The scan reads in pages of 5,000 rows until a short one: a journal of 5,001 rows is
    read whole in one pass (no later commit is needed to read the last)."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        with journal.batch():
            for _ in range(5001):
                journal.append("prompt", {"state": "betting", "lamps": {}})
        with shipping(path, tmp_path) as loop:
            loop.step()
            assert loop.shipper.outbox.scanned == 5001


def sized_rows(journal: Journal, sizes: list[int]) -> None:
    for n, size in enumerate(sizes, start=1):
        journal.append("device", {"device": f"d{n}", "status": "ok", "note": "x" * size})


def test_a_message_of_exactly_the_limit_goes_whole_and_one_byte_more_is_halved(
    tmp_path: Path,
) -> None:
    path = tmp_path / "journal.sqlite3"
    half = MAX_MESSAGE_BYTES // 2
    with Journal.open(path) as journal:
        sized_rows(journal, [half, half])
        rows = journal_rows(path)
        over = len(encode_rows(TABLE, rows)) - MAX_MESSAGE_BYTES  # the note's bytes too many
    exact, longer = tmp_path / "exact", tmp_path / "longer"
    for folder, extra in ((exact, 0), (longer, 1)):
        folder.mkdir()
        with Journal.open(folder / "journal.sqlite3") as journal:
            sized_rows(journal, [half - over + extra, half])
        with shipping(folder / "journal.sqlite3", folder) as loop:
            loop.post("connected")
            loop.step()
            sent = [p for name, p, _ in loop.wire.sent if name == topic(TABLE, "rows")]
            folder_sizes = [len(p) for p in sent]
            if extra:
                assert [[r.id for r in b] for b in loop.wire.rows()] == [[1]]
            else:
                assert folder_sizes == [MAX_MESSAGE_BYTES]  # exactly the limit: one message
                assert [[r.id for r in b] for b in loop.wire.rows()] == [[1, 2]]


def test_two_rows_too_large_together_go_one_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        sized_rows(journal, [MAX_MESSAGE_BYTES * 6 // 10] * 2)
        with shipping(path, tmp_path) as loop:
            loop.post("connected")
            loop.step()
            loop.ack_last_batch()
            loop.step()
    assert [[r.id for r in b] for b in loop.wire.rows()] == [[1], [2]]


def test_a_row_larger_than_a_message_still_leaves_alone_and_none_is_skipped(
    tmp_path: Path,
) -> None:
    """A row's data may reach 1 MiB (the journal's limit), more than a message holds with
    its envelope: it goes alone (the broker decides), never dropped from the chain."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        sized_rows(journal, [MAX_MESSAGE_BYTES - 100, 10])
        with shipping(path, tmp_path) as loop:
            loop.post("connected")
            loop.step()
            loop.ack_last_batch()
            loop.step()
    assert [[r.id for r in b] for b in loop.wire.rows()] == [[1], [2]]


def test_an_acknowledgement_before_the_journal_exists_does_not_stop_the_shipper(
    tmp_path: Path,
) -> None:
    with running(tmp_path, ack_timeout=3600.0) as (shipper, client, _, _):
        connect(shipper, client)
        shipper._on_message(
            cast(mqtt.Client, client), None,
            cast(mqtt.MQTTMessage, Message(encode_ack(Ack(1, "f" * 64)))),
        )  # fmt: skip
        with Journal.open(tmp_path / "journal.sqlite3") as journal:
            journal.append("station_started", {"table_id": TABLE})
            assert [r.id for r in next_rows(client)] == [1]


def test_a_new_shipper_is_not_connected_and_its_thread_never_holds_the_exit(
    tmp_path: Path,
) -> None:
    """Before its thread runs: not connected (False, not merely falsy: the status reads
    it), nothing acknowledged for this table, and its thread named for the table and a
    daemon thread: a shipper stuck in a lost broker's close never keeps the station's
    process alive after ``serve_table`` has given it its 2 s."""
    password = tmp_path / "password"
    password.write_text("secret\n")
    floor = FloorSettings("127.0.0.1", 8883, TABLE, password, None)
    shipper = Shipper(tmp_path / "journal.sqlite3", TABLE, floor)
    assert shipper.connected is False
    assert shipper.acked == 0 and shipper.outbox.table == TABLE
    assert shipper._thread.name == f"shipper-{TABLE}"
    assert shipper._thread.daemon is True
