"""LinkedDevice driven by hand: no threads, no port, a manual clock and a sans-I/O peer.

The transport is a stub that keeps what the driver writes; the device is a real
firmware_bridge Endpoint. Every step is explicit, so timing rules (refusal retry, one
DeviceLost per outage) are checked exactly.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

import firmware_bridge as fb
from drivers.device_link import ExpectedDevice, LinkedDevice
from drivers.errors import DeviceNotFoundError, TransportError, WrongDeviceError
from drivers.hal import (
    CoverCardSeen,
    DeviceConnected,
    DeviceEvent,
    DeviceFault,
    DeviceKind,
    DeviceLost,
)
from drivers.transport import ThreadedTransport

TIMING = fb.Timing(retransmit_timeout=0.1, heartbeat_interval=0.5, silence_timeout=1.5)


class StubTransport(ThreadedTransport):
    """Never started: the test calls the listener itself and collects the writes."""

    def __init__(self, listener: LinkedDevice) -> None:
        super().__init__(name="stub", listener=listener)
        self.written = bytearray()

    def write(self, data: bytes) -> None:
        self.written += data

    def _open_port(self) -> str:
        raise AssertionError("not used")

    def _read_port(self, timeout: float) -> bytes:
        raise AssertionError("not used")

    def _write_port(self, data: bytes) -> None:
        raise AssertionError("not used")

    def _close_port(self) -> None:
        return


class Shoe(LinkedDevice):
    KIND = DeviceKind.SHOE

    def __init__(self, clock: list[float]) -> None:
        self.events: list[DeviceEvent] = []
        super().__init__(
            self.events.append,
            ExpectedDevice("S-1"),
            timing=TIMING,
            refusal_retry=2.0,
            clock=lambda: clock[0],
        )
        self._stub = StubTransport(self)

    @property
    def transport(self) -> StubTransport:
        return self._stub

    def _on_message(self, message: fb.Message) -> Iterable[DeviceEvent]:
        if isinstance(message, fb.CoverCardReport):
            yield CoverCardSeen()


class Link:
    """The driver and a device endpoint, with bytes moved by ``pump``."""

    def __init__(self, serial: str = "S-1") -> None:
        self.clock = [100.0]
        self.driver = Shoe(self.clock)
        self.device = fb.Endpoint(
            fb.Role.DEVICE,
            fb.Identity(fb.DeviceKind.SHOE, "fw-2", serial),
            timing=TIMING,
            rng=random.Random(1),
        )
        self.device.start(self.clock[0])

    def pump(self) -> None:
        for _ in range(10):
            to_device = bytes(self.driver.transport.written)
            self.driver.transport.written.clear()
            if to_device:
                self.device.receive_data(to_device, self.clock[0])
            self.device.events()
            to_station = self.device.data_to_send()
            if to_station:
                self.driver.link_data(to_station)
            if not to_device and not to_station:
                return

    def advance(self, seconds: float) -> None:
        self.clock[0] += seconds
        self.driver.link_tick()
        self.device.tick(self.clock[0])
        self.pump()


def test_handshake_then_messages_then_silence_is_one_loss() -> None:
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    assert link.driver.events == [DeviceConnected(DeviceKind.SHOE, "S-1", "fw-2")]
    link.device.send(fb.CoverCardReport(1), link.clock[0])
    link.pump()
    assert link.driver.events[-1] == CoverCardSeen()
    # The device dies: the driver reports it once, however long it stays away.
    link.device = fb.Endpoint(
        fb.Role.DEVICE, fb.Identity(fb.DeviceKind.SHOE, "fw-2", "S-1"), timing=TIMING
    )
    for _ in range(40):
        link.clock[0] += 0.25
        link.driver.link_tick()
        link.driver.transport.written.clear()
    losses = [e for e in link.driver.events if isinstance(e, DeviceLost)]
    assert len(losses) == 1 and "silent" in losses[0].reason
    assert not link.driver.connected


def test_port_errors_are_one_loss_and_a_wrong_device_is_a_fault() -> None:
    link = Link()
    link.driver.link_down(DeviceNotFoundError("no such serial port"))
    link.driver.link_down(TransportError("still gone"))
    link.driver.link_down(
        WrongDeviceError("wrong reader", {"serial_number": "A"}, {"serial_number": "B"})
    )
    assert [type(e) for e in link.driver.events] == [DeviceLost, DeviceFault]
    fault = link.driver.events[1]
    assert isinstance(fault, DeviceFault)
    assert fault.details == {"expected_serial_number": "A", "found_serial_number": "B"}


def test_refused_device_is_checked_again_after_the_retry_interval() -> None:
    link = Link(serial="S-9")
    link.driver.link_up("stub")
    link.pump()
    (fault,) = link.driver.events
    assert isinstance(fault, DeviceFault)
    assert fault.details["found_serial_number"] == "S-9"
    assert fault.details["expected_serial_number"] == "S-1"
    link.device.identity = fb.Identity(fb.DeviceKind.SHOE, "fw-2", "S-1")
    link.advance(1.9)  # before the retry: still refused, nothing new
    assert len(link.driver.events) == 1
    link.advance(0.2)
    link.advance(0.2)
    assert link.driver.events[-1] == DeviceConnected(DeviceKind.SHOE, "S-1", "fw-2")
    assert link.driver.connected


def test_a_command_while_down_is_a_fault_not_an_exception() -> None:
    link = Link()
    assert link.driver._send(fb.StatusQuery()) is False
    (fault,) = link.driver.events
    assert isinstance(fault, DeviceFault) and "StatusQuery not sent" in fault.reason
