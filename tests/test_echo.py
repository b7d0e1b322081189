"""docs/protocol.md section 6a: a device answers a sealed ECHO_REQUEST with a sealed,
unreliable ECHO_REPLY carrying the same data; the Python double and the C firmware alike."""

from __future__ import annotations

import random
import time
from pathlib import Path

from firmware_support import Bench

import firmware_bridge as fb
from drivers.simulated.shoe import ShoeDouble

SECRET = bytes(range(32))
DATA = b"\x00\x01ping"


def test_the_python_double_answers_an_echo_request(tmp_path: Path) -> None:
    shoe = ShoeDouble(tmp_path / "shoe", secret=SECRET)
    try:
        wire: list[bytes] = []
        shoe.transmit = lambda data: wire.append(data) or True
        station = fb.Endpoint(
            fb.Role.STATION,
            fb.Identity(fb.DeviceKind.SHOE, "st", "T"),
            rng=random.Random(1),
            secret=SECRET,
        )
        now = time.monotonic()
        station.start(now)
        shoe.receive(station.data_to_send())
        station.receive_data(b"".join(wire), now)
        wire.clear()
        assert station.connected
        station.send(fb.EchoRequest(DATA), now, reliable=False)
        shoe.receive(station.data_to_send())
        station.receive_data(b"".join(wire), now)
        received = [e for e in station.events() if isinstance(e, fb.MessageReceived)]
        assert received == [fb.MessageReceived(fb.EchoReply(DATA), reliable=False)]
    finally:
        shoe.close()


def test_the_c_firmware_answers_an_echo_request(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    try:
        bench.pair()
        station = bench.connect()
        station.send(fb.EchoRequest(DATA), time.monotonic(), reliable=False)
        bench.pump_until(lambda: bool(bench.messages))
        assert bench.messages == [fb.EchoReply(DATA)]
    finally:
        bench.close()
