"""drivers.simulated.serve: the doubles in their own process, with a real driver on the other
end of a real pty or unix socket.

The socket cases put a pty <-> socket copier between the driver and the double: the part
QEMU's ``usb-serial`` plays in the boot test (the guest's /dev/ttyUSB* on one side, the
chardev socket on the other).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import select
import socket
import subprocess
import sys
import threading
import tty
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.cards import parse_card
from drivers.device_link import ExpectedDevice
from drivers.hal import (
    Button,
    ButtonPressed,
    CardDrawn,
    DeviceConnected,
    DeviceEvent,
    DeviceKind,
    Led,
    LedMode,
    ShoeLoaded,
)
from drivers.panel_link import SerialPanelDriver
from drivers.serial_transport import SerialSettings
from drivers.shoe import ShoeDriver
from drivers.simulated.rig import FAST_BACKOFF, FAST_TIMING
from drivers.simulated.serve import port_factory, start_doubles
from drivers.simulated.serve_client import DoublesError, ServedDoubles
from drivers.simulated.serve_control import Doubles, answer

DEADLINE = 15.0
#: The doubles start paired with this secret (pairing itself: tests/test_serve_daemon.py).
SECRET = bytes(range(32))
SECRETS = {"shoe": SECRET, "panel": SECRET, "shuffler": SECRET}


def expected(serial: str) -> ExpectedDevice:
    return ExpectedDevice(serial, firmware=frozenset({"sim-1.0"}), secret=SECRET)


def next_event(events: queue.Queue[DeviceEvent], kind: type[Any]) -> Any:
    """The next event of ``kind`` (others are skipped), within the deadline."""
    while True:
        event = events.get(timeout=DEADLINE)
        if isinstance(event, kind):
            return event


class CableBridge:
    """A pty whose bytes are copied to and from a unix socket (QEMU's usb-serial role)."""

    def __init__(self, sock: socket.socket) -> None:
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self._slave = slave  # kept open: the master never reads EIO between driver opens
        self.sock = sock
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._copy, daemon=True)
        self._thread.start()

    def _copy(self) -> None:
        while True:
            ready, _, _ = select.select([self.master, self.sock, self._wake_r], [], [])
            if self._wake_r in ready:
                return
            if self.master in ready:
                with contextlib.suppress(OSError):
                    self.sock.sendall(os.read(self.master, 4096))
            if self.sock in ready:
                data = self.sock.recv(4096)
                if not data:
                    return
                os.write(self.master, data)

    def close(self) -> None:
        os.write(self._wake_w, b"x")
        self._thread.join(5)
        for fd in (self.master, self._slave, self._wake_r, self._wake_w):
            os.close(fd)
        self.sock.close()


def connect_when_there(path: Path) -> socket.socket:
    """Connect to the double's socket (it exists once the ready line came)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(path))
    return sock


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    # AF_UNIX paths are limited to 108 bytes; pytest's tmp paths can be long.
    short = Path(f"/tmp/ds-{os.getpid()}-{threading.get_ident() % 10000}")
    short.mkdir(exist_ok=True)
    yield short
    for child in short.iterdir():
        child.unlink()
    short.rmdir()


@pytest.fixture
def events() -> queue.Queue[DeviceEvent]:
    return queue.Queue()


def shoe_driver(port: str, events: queue.Queue[DeviceEvent], serial: str) -> ShoeDriver:
    return ShoeDriver(
        SerialSettings(port),
        events.put,
        expected(serial),
        decks=6,
        timing=FAST_TIMING,
        backoff=FAST_BACKOFF,
    )


def test_shoe_on_a_pty_deals_through_the_real_driver(
    tmp: Path, events: queue.Queue[DeviceEvent]
) -> None:
    """The doubles process publishes a pty; the real shoe driver opens it and receives
    the cards the double deals, the same cards in the same order."""
    with ServedDoubles(
        {"shoe": f"pty:{tmp}/shoe"},
        tmp / "control.sock",
        serials={"shoe": "SHO-77"},
        timing="fast",
        secrets=SECRETS,
    ) as served:
        entry = served.ready["devices"]["shoe"]
        assert entry["serial"] == "SHO-77"
        assert entry["tty"].startswith("/dev/pts/")
        driver = shoe_driver(str(tmp / "shoe"), events, "SHO-77")
        driver.start()
        try:
            connected = next_event(events, DeviceConnected)
            assert (connected.device, connected.serial_number) == (DeviceKind.SHOE, "SHO-77")
            served.client.call("shoe", "load", ["7S", "KH", "AD"], cover_at=None)
            next_event(events, ShoeLoaded)
            dealt = [served.client.call("shoe", "deal") for _ in range(3)]
            assert dealt == ["7S", "KH", "AD"]
            seen = [next_event(events, CardDrawn).card for _ in range(3)]
            assert seen == [parse_card(c) for c in dealt]
            assert served.client.call("shoe", "deal") is None  # empty shoe
            assert served.client.wait("shoe", "unconfirmed", 0, timeout=DEADLINE)
        finally:
            driver.close()


def test_panel_board_served_on_a_unix_socket(tmp: Path, events: queue.Queue[DeviceEvent]) -> None:
    """``unix:PATH``: the double serves the socket, the peer connects (QEMU as client).
    Buttons reach the real panel driver; its lamps reach the double."""
    with ServedDoubles(
        {"panel": f"unix:{tmp}/panel.sock"}, tmp / "c.sock", timing="fast", secrets=SECRETS
    ) as s:
        bridge = CableBridge(connect_when_there(tmp / "panel.sock"))
        driver = SerialPanelDriver(
            SerialSettings(bridge.path),
            events.put,
            expected("PANEL-0001"),
            timing=FAST_TIMING,
            backoff=FAST_BACKOFF,
        )
        driver.start()
        try:
            next_event(events, DeviceConnected)
            s.client.call("panel", "press", "double")
            assert next_event(events, ButtonPressed) == ButtonPressed(Button.DOUBLE)
            driver.show({Led.BETS: LedMode.BLINK})
            assert s.client.wait_lamp("bets", "blink", timeout=DEADLINE)
            assert s.client.call("panel", "lamp", "bets") == "blink"
            assert s.client.call("panel", "lamp", "deal") == "off"
        finally:
            driver.close()
            bridge.close()


def test_shoe_connects_to_a_served_socket(tmp: Path, events: queue.Queue[DeviceEvent]) -> None:
    """``unix-connect:PATH``: the peer serves (QEMU ``server=on``), the double connects,
    also when the server appears after the double started."""
    path = tmp / "shoe.sock"
    with ServedDoubles(
        {"shoe": f"unix-connect:{path}"}, tmp / "c.sock", timing="fast", secrets=SECRETS
    ) as s:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        listener.listen(1)
        listener.settimeout(DEADLINE)
        conn, _ = listener.accept()
        listener.close()
        bridge = CableBridge(conn)
        driver = shoe_driver(bridge.path, events, "SHOE-0001")
        driver.start()
        try:
            next_event(events, DeviceConnected)
            s.client.call("shoe", "load_shuffled", decks=6, seed=3)
            next_event(events, ShoeLoaded)
            card = s.client.call("shoe", "deal")
            assert next_event(events, CardDrawn).card == parse_card(card)
        finally:
            driver.close()
            bridge.close()


def test_unplug_breaks_the_link_and_plug_restores_it(
    tmp: Path, events: queue.Queue[DeviceEvent]
) -> None:
    """Pulling the served cable: the driver reconnects after ``plug`` and a card dealt
    while unplugged arrives (the shoe buffers what it sees)."""
    with ServedDoubles(
        {"shoe": f"pty:{tmp}/shoe"}, tmp / "c.sock", timing="fast", secrets=SECRETS
    ) as s:
        driver = shoe_driver(str(tmp / "shoe"), events, "SHOE-0001")
        driver.start()
        try:
            next_event(events, DeviceConnected)
            s.client.call("shoe", "load", ["9C", "2H"])
            s.client.call("shoe", "unplug")
            assert not (tmp / "shoe").exists()
            assert s.client.call("shoe", "deal") == "9C"
            s.client.call("shoe", "plug")
            next_event(events, DeviceConnected)
            assert next_event(events, CardDrawn).card == parse_card("9C")
        finally:
            driver.close()


def test_control_errors_are_one_line_and_the_connection_survives(tmp: Path) -> None:
    with ServedDoubles({"shoe": f"pty:{tmp}/shoe"}, tmp / "c.sock") as s:
        for bad in (
            {"device": "reader", "call": "deal"},
            {"device": "shoe", "call": "__init__"},
            {"device": "shoe", "call": "load", "args": [["10S"]]},
            {"device": "shoe", "call": "get", "args": ["_shoe"]},
            {"device": "shoe", "call": "set", "args": ["transmit", 1]},
            {"device": "shoe", "call": "load_shuffled", "kwargs": {"decks": 7}},
            {"device": "shoe", "call": "wait", "args": ["connected"]},
        ):
            with pytest.raises(DoublesError) as caught:
                s.client.request(bad)
            assert "\n" not in str(caught.value)
        raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        raw.connect(str(tmp / "c.sock"))
        raw.sendall(b"\xff{not json\n")
        reply = json.loads(raw.makefile("rb").readline())
        raw.close()
        assert reply["ok"] is False
        assert s.client.get("shoe", "remaining") == 0  # still serving


@pytest.fixture(scope="module")
def quiet_doubles() -> Iterator[Doubles]:
    short = Path(f"/tmp/dsq-{os.getpid()}")
    short.mkdir(exist_ok=True)
    doubles = start_doubles({"shoe": f"pty:{short}/shoe", "panel": f"pty:{short}/panel"})
    yield doubles
    doubles.close()
    short.rmdir()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    device=st.sampled_from(["shoe", "panel", "shuffler", "x"]),
    call=st.sampled_from(["get", "set", "wait", "press", "lamp", "load", "place_wager", "z"]),
    args=st.lists(json_values, max_size=4),
    kwargs=st.dictionaries(st.sampled_from(["timeout", "cover_at", "x"]), json_values),
)
def test_any_request_gets_an_answer(
    quiet_doubles: Doubles, device: str, call: str, args: list[Any], kwargs: dict[str, Any]
) -> None:
    """Hostile requests never raise out of the control server: each gets ok or one line."""
    if call == "wait":
        kwargs["timeout"] = 0.0
    line = json.dumps({"device": device, "call": call, "args": args, "kwargs": kwargs})
    reply = answer(quiet_doubles, line.encode())
    assert isinstance(reply["ok"], bool)
    if not reply["ok"]:
        assert "\n" not in reply["error"]


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=64))
def test_any_bytes_get_an_answer(quiet_doubles: Doubles, data: bytes) -> None:
    assert isinstance(answer(quiet_doubles, data)["ok"], bool)


@pytest.mark.parametrize("spec", ["", "pty", "tcp:1234", "unix:", "serial:/dev/ttyS0"])
def test_bad_endpoint_is_refused(spec: str) -> None:
    with pytest.raises(ValueError, match=r"expected|unknown endpoint"):
        port_factory(spec)


def test_cli_refuses_bad_arguments_with_one_line(tmp: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "controller.cli.main", "doubles", "--shoe", "tcp:1",
         "--control", str(tmp / "c.sock")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1
    assert "unknown endpoint kind 'tcp'" in run.stderr
