"""PtyPort: a real pty behind a stable path that can be unplugged and plugged again."""

from __future__ import annotations

import os
import queue
import select
import tty
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from drivers.simulated import pty_port
from drivers.simulated.line_noise import LineNoise
from drivers.simulated.pty_port import PtyPort

WAIT = 5.0


def open_peer(path: Path) -> int:
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd)
    return fd


def read_exactly(fd: int, count: int) -> bytes:
    data = b""
    while len(data) < count:
        data += os.read(fd, count - len(data))
    return data


def test_path_follows_plug_and_unplug(tmp_path: Path) -> None:
    received: queue.Queue[bytes] = queue.Queue()
    port = PtyPort(tmp_path / "ttyX", received.put)
    assert not port.path.exists()
    port.plug()
    first = os.readlink(port.path)
    assert first.startswith("/dev/pts/")
    port.unplug()
    assert not port.path.exists() and not port.plugged
    assert port.write(b"lost") is False
    port.plug()
    assert port.path.is_symlink()
    port.close()
    port.close()  # idempotent


def test_bytes_cross_a_real_tty_both_ways(tmp_path: Path) -> None:
    received: queue.Queue[bytes] = queue.Queue()
    port = PtyPort(tmp_path / "ttyX", received.put)
    port.plug()
    fd = open_peer(port.path)
    try:
        payload = bytes(range(256))  # every byte value, 0x04 and 0x0a included: raw tty
        os.write(fd, payload)
        got = b""
        while len(got) < len(payload):
            got += received.get(timeout=WAIT)
        assert got == payload
        assert port.write(payload)
        assert read_exactly(fd, len(payload)) == payload
    finally:
        os.close(fd)
        port.close()


def test_manipulator_sees_every_write(tmp_path: Path) -> None:
    noise = LineNoise(5)
    noise.drop_next(1)
    port = PtyPort(tmp_path / "ttyX", lambda data: None, manipulator=noise)
    port.plug()
    fd = open_peer(port.path)
    try:
        port.write(b"dropped")
        port.write(b"kept")
        assert read_exactly(fd, 4) == b"kept"
        assert port.bytes_written == 4
    finally:
        os.close(fd)
        port.close()


def test_ticks_run_without_traffic(tmp_path: Path) -> None:
    ticks: queue.Queue[None] = queue.Queue()
    port = PtyPort(tmp_path / "ttyX", lambda data: None, on_tick=lambda: ticks.put(None))
    port.plug()
    try:
        for _ in range(3):
            ticks.get(timeout=WAIT)
    finally:
        port.close()


def test_the_double_is_ticked_when_it_asks_not_every_tick_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The double's receive and tick return the seconds until its next deadline: with an
    hour to go, each wait for bytes is as long as a wait may be (half a second), not one
    tick interval, and bytes come and go with no tick in between; asked for at once, the
    tick comes at once (a held ACK)."""
    events: queue.Queue[str] = queue.Queue()
    wait = [3600.0]
    timeouts: list[float] = []

    def recording_select(*args: Any) -> Any:
        timeouts.append(args[3])
        return select.select(*args)

    monkeypatch.setattr(pty_port, "select", SimpleNamespace(select=recording_select))

    def on_data(data: bytes) -> float:
        events.put("data")
        return wait[0]

    def on_tick() -> float:
        events.put("tick")
        return wait[0]

    port = PtyPort(tmp_path / "ttyX", on_data, on_tick=on_tick, tick_interval=0.001)
    port.plug()
    fd = open_peer(port.path)
    try:
        assert events.get(timeout=WAIT) == "tick"  # the first, at once
        for chunk in (b"one", b"two", b"three"):
            os.write(fd, chunk)
            assert events.get(timeout=WAIT) == "data"  # no tick in between
        assert timeouts[1:] and all(t == pytest.approx(0.5) for t in timeouts[1:])
        wait[0] = 0.0
        os.write(fd, b"now")
        assert events.get(timeout=WAIT) == "data"
        assert events.get(timeout=WAIT) == "tick"
    finally:
        os.close(fd)
        port.close()


def test_stalled_port_stops_draining(tmp_path: Path) -> None:
    received: queue.Queue[bytes] = queue.Queue()
    port = PtyPort(tmp_path / "ttyX", received.put)
    port.plug()
    fd = open_peer(port.path)
    try:
        port.stall(True)
        os.write(fd, b"held")
        with pytest.raises(queue.Empty):
            received.get(timeout=0.05)
        port.stall(False)
        assert received.get(timeout=WAIT) == b"held"
    finally:
        os.close(fd)
        port.close()
