"""``dealer-station doubles`` serving a device as its C firmware (``--shoe-implementation
host``): the same control calls as the Python double, paired over its link through the
control socket, and a real shoe driver dealing from it."""

from __future__ import annotations

import json
import os
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.rules.cards import Card, parse_card
from drivers.device_link import ExpectedDevice
from drivers.hal import CardDrawn, DeviceConnected, DeviceEvent, DeviceKind, ShoeLoaded
from drivers.pairing import pair_over
from drivers.registry import Implementation
from drivers.serial_transport import SerialSettings, SerialTransport
from drivers.shoe import ShoeDriver
from drivers.simulated.c_device import FirmwareDevice
from drivers.simulated.c_firmware import build
from drivers.simulated.firmware import DEFAULT_FIRMWARE
from drivers.simulated.serve import start_doubles
from drivers.simulated.serve_control import Doubles, answer
from drivers.simulated.wiring import FAST_BACKOFF, FAST_TIMING

DEADLINE = 15.0


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Doubles]:
    build("host")
    short = Path(f"/tmp/dsf-{os.getpid()}-{threading.get_ident() % 10000}")
    short.mkdir(exist_ok=True)
    doubles = start_doubles(
        {"shoe": f"pty:{short / 'shoe'}"},
        {"shoe": "SHOE-C-1"},
        timing=FAST_TIMING,
        implementations={"shoe": Implementation.HOST},
    )
    yield doubles
    doubles.close()
    for child in short.iterdir():
        child.unlink()
    short.rmdir()


def call(doubles: Doubles, request: dict[str, Any]) -> Any:
    reply = answer(doubles, json.dumps(request).encode())
    assert reply["ok"], reply
    return reply["result"]


def next_event(events: queue.Queue[DeviceEvent], kind: type[Any]) -> Any:
    while True:
        event = events.get(timeout=DEADLINE)
        if isinstance(event, kind):
            return event


def test_a_served_c_firmware_pairs_and_deals_to_the_real_driver(served: Doubles) -> None:
    shoe = served.doubles["shoe"]
    assert isinstance(shoe, FirmwareDevice)  # the C firmware, not the Python double
    path = str(shoe.port.path)
    assert call(served, {"device": "shoe", "call": "get", "args": ["serial_number"]}) == (
        "SHOE-C-1"
    )
    call(served, {"device": "shoe", "call": "set", "args": ["pairing_button", True]})

    def serial(listener: Any) -> SerialTransport:
        return SerialTransport(SerialSettings(path), listener, backoff=FAST_BACKOFF)

    paired = pair_over(serial, DeviceKind.SHOE, "T1", timeout=10.0, interval=0.05)
    call(served, {"device": "shoe", "call": "set", "args": ["pairing_button", False]})
    assert call(served, {"device": "shoe", "call": "get", "args": ["paired_station"]}) == "T1"
    events: queue.Queue[DeviceEvent] = queue.Queue()
    expected = ExpectedDevice(
        "SHOE-C-1", firmware=frozenset({DEFAULT_FIRMWARE}), secret=paired.secret
    )
    driver = ShoeDriver(
        SerialSettings(path),
        events.put,
        expected,
        decks=6,
        timing=FAST_TIMING,
        backoff=FAST_BACKOFF,
    )
    driver.start()
    try:
        assert next_event(events, DeviceConnected).device is DeviceKind.SHOE
        call(served, {"device": "shoe", "call": "load", "args": [["9H", "KS", "8D"]]})
        next_event(events, ShoeLoaded)
        dealt = [call(served, {"device": "shoe", "call": "deal"}) for _ in range(3)]
        assert dealt == ["9H", "KS", "8D"]
        cards: list[Card] = [next_event(events, CardDrawn).card for _ in range(3)]
        assert cards == [parse_card(text) for text in dealt]
        assert call(served, {"device": "shoe", "call": "get", "args": ["draws"]}) == 3
        assert call(served, {"device": "shoe", "call": "wait_idle"}) is True
    finally:
        driver.close()


def test_a_refused_call_is_one_line_on_the_c_firmware_too(served: Doubles) -> None:
    reply = answer(served, b'{"device": "shoe", "call": "press", "args": ["next"]}')
    assert not reply["ok"] and "shoe has no call 'press'" in reply["error"]
    reply = answer(served, b'{"device": "shoe", "call": "get", "args": ["lamps"]}')
    assert not reply["ok"] and "no readable attribute" in reply["error"]
