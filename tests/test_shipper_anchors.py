"""Anchors leave the station at every seal (docs/journal.md, "Anchors"): the shipper sends
a status carrying the last seal (row, epoch, hash) as soon as a seal is committed, inside
a round too, where the round's rows themselves stay on the table until it ends. Real
mosquitto (TLS, the table's own account), the real shipper thread, a real sealed journal.
"""

from __future__ import annotations

import queue
import ssl
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from floor_fixtures import floor_broker, station_settings
from paho.mqtt.enums import CallbackAPIVersion

from controller.journal.anchor import latest_anchor
from controller.journal.reader import JournalReader
from controller.journal.seal import new_sealing, save_state
from controller.journal.store import Journal
from controller.journal.wire import Status, decode_status, topic
from controller.service.outbox import Outbox
from controller.service.shipper import Shipper
from floor.broker import MOUNT_POINT
from floor.servers import COLLECTOR_USER, Broker

__all__ = ["floor_broker"]
TABLE = "T29"
WAIT = 30.0  # a hang guard: each status comes within the shipper's poll interval


@pytest.fixture
def statuses(floor_broker: Broker) -> Iterator[queue.Queue[tuple[str, bytes]]]:
    """Every message on the table's topics, as the floor's account receives them."""
    received: queue.Queue[tuple[str, bytes]] = queue.Queue()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="anchor-watch")
    password = floor_broker.password_file(COLLECTOR_USER).read_text().strip()
    client.username_pw_set(COLLECTOR_USER, password)
    client.tls_set(ca_certs=str(floor_broker.ca_file), cert_reqs=ssl.CERT_REQUIRED)
    subscribed = queue.Queue[bool]()
    # The collectors' listener shows a station's topics under the stations' mount point.
    client.on_connect = lambda c, *_: c.subscribe(f"{MOUNT_POINT}floor/{TABLE}/status", qos=1)
    client.on_subscribe = lambda *_: subscribed.put(True)
    client.on_message = lambda _c, _u, m: received.put((m.topic, bytes(m.payload)))
    client.connect("127.0.0.1", floor_broker.port)
    client.loop_start()
    subscribed.get(timeout=WAIT)
    yield received
    client.disconnect()
    client.loop_stop()


def next_anchor(received: queue.Queue[tuple[str, bytes]], row: int) -> Status:
    """The first status whose anchor is the seal in ``row``."""
    while True:
        name, payload = received.get(timeout=WAIT)
        if name == MOUNT_POINT + topic(TABLE, "status"):
            status = decode_status(payload, TABLE)
            if status.anchor is not None and status.anchor[0] == row:
                return status


def test_a_status_with_the_anchor_leaves_at_every_seal_inside_a_round(
    tmp_path: Path, floor_broker: Broker, statuses: queue.Queue[tuple[str, bytes]]
) -> None:
    key_file = tmp_path / "sealing-key"
    save_state(key_file, new_sealing(TABLE)[0])
    path = tmp_path / "journal.sqlite3"
    shipper = Shipper(path, TABLE, station_settings(floor_broker, TABLE, poll_interval=0.05))
    with Journal.open(path, sealing=key_file) as journal:
        journal.append("station_started", {"table_id": TABLE})  # row 1, its seal row 2
        shipper.start()
        try:
            first = next_anchor(statuses, 2)
            assert first.anchor is not None and first.anchor[1] == 0  # epoch 0
            journal.append("round_started", {"round": 1, "seats": []}, 1)
            journal.append("card", {"role": "up", "card": "KH"}, 1)
            journal.seal()  # 30 s of play unsealed: the idle seal, inside the round (row 5)
            inside = next_anchor(statuses, 5)
            with JournalReader.open(path) as reader:
                anchor = reader.query(latest_anchor)
            assert anchor is not None
            assert inside.anchor == (anchor.row, anchor.epoch, anchor.hash) == (5, 1, anchor.hash)
            assert "KH" not in repr(inside)
            assert shipper.outbox.horizon == 2  # the round's rows still wait on the table
            journal.append("round_completed", {"reshuffle": False}, 1)  # row 6, seal row 7
            assert next_anchor(statuses, 7).anchor is not None
        finally:
            shipper.stop()


def test_the_outbox_status_names_the_last_seal() -> None:
    from controller.journal.format import Row

    outbox = Outbox(TABLE, head_as_of=datetime(2026, 12, 1, 10, 0, 1, tzinfo=UTC))
    assert outbox.status().anchor is None
    seal = '{"epoch":3,"head":"' + "0" * 64 + '","mac":"' + "1" * 64 + '","row":4,"table":"T29"}'
    outbox.scan(Row(5, "2026-12-01T10:00:00.000000Z", "seal", None, seal, "0" * 64, "a" * 64))
    assert outbox.status().anchor == (5, 3, "a" * 64)
