"""UsbTransport running the real pyusb code against the simulated backend."""

from __future__ import annotations

import queue
from collections.abc import Iterator

import pytest

from drivers.errors import (
    DeviceNotFoundError,
    DriverConfigError,
    LinkWriteTimeoutError,
    TransportError,
    WrongDeviceError,
)
from drivers.simulated.usb_backend import SimulatedUsbBackend, SimulatedUsbDevice, UsbIdentity
from drivers.transport import Backoff
from drivers.usb_transport import UsbSettings, UsbTransport

WAIT = 5.0
VID, PID = 0x1D50, 0x6021


class Recorder:
    """A LinkListener that queues up/down/data."""

    def __init__(self) -> None:
        self.events: queue.Queue[tuple[str, object]] = queue.Queue()

    def link_up(self, description: str) -> None:
        self.events.put(("up", description))

    def link_data(self, data: bytes) -> None:
        self.events.put(("data", data))

    def link_tick(self) -> None:
        pass

    def link_down(self, error: TransportError) -> None:
        self.events.put(("down", error))

    def next(self, kind: str) -> object:
        got_kind, value = self.events.get(timeout=WAIT)
        assert got_kind == kind, (got_kind, value)
        return value


class Bus:
    """A simulated bus with one reader on it that echoes what the host sends, reversed."""

    def __init__(self, serial_number: str = "RD-0001") -> None:
        self.backend = SimulatedUsbBackend()
        self.received: queue.Queue[bytes] = queue.Queue()
        self.device = SimulatedUsbDevice(UsbIdentity(VID, PID, serial_number), self.received.put)
        self.backend.add(self.device)


@pytest.fixture
def bus() -> Bus:
    return Bus()


@pytest.fixture
def link(bus: Bus) -> Iterator[tuple[UsbTransport, Recorder]]:
    recorder = Recorder()
    transport = UsbTransport(
        UsbSettings(VID, PID, "RD-0001"),
        recorder,
        backend=bus.backend,
        backoff=Backoff(0.01, cap=0.05),
    )
    transport.start()
    yield transport, recorder
    transport.close()


def test_finds_by_ids_and_serial_detaches_kernel_driver_and_moves_bytes(
    link: tuple[UsbTransport, Recorder], bus: Bus
) -> None:
    transport, recorder = link
    description = recorder.next("up")
    assert "1d50:6021" in str(description) and "RD-0001" in str(description)
    assert not bus.device.kernel_driver_active
    assert bus.device.claimed == {0}
    transport.write(b"\x01\x02\x03")
    assert bus.received.get(timeout=WAIT) == b"\x01\x02\x03"
    bus.device.send_to_host(b"answer")
    assert recorder.next("data") == b"answer"


def test_unplug_is_reported_and_replug_reconnects(
    link: tuple[UsbTransport, Recorder], bus: Bus
) -> None:
    transport, recorder = link
    recorder.next("up")
    bus.device.unplug()
    assert "No such device" in str(recorder.next("down"))
    bus.device.plug()
    assert "address 6" in str(recorder.next("up"))
    transport.write(b"again")
    assert bus.received.get(timeout=WAIT) == b"again"


def test_wrong_serial_number_is_refused_naming_both() -> None:
    bus = Bus(serial_number="RD-0999")
    recorder = Recorder()
    transport = UsbTransport(
        UsbSettings(VID, PID, "RD-0001"), recorder, backend=bus.backend, backoff=Backoff(0.01)
    )
    transport.start()
    try:
        error = recorder.next("down")
        assert isinstance(error, WrongDeviceError)
        assert error.expected == {"serial_number": "RD-0001"}
        assert error.found == {"serial_number": "RD-0999"}
        assert bus.device.claimed == set()
    finally:
        transport.close()


def test_absent_device_is_reported_then_found() -> None:
    bus = Bus()
    bus.device.unplug()
    recorder = Recorder()
    transport = UsbTransport(
        UsbSettings(VID, PID, "RD-0001"), recorder, backend=bus.backend, backoff=Backoff(0.01)
    )
    transport.start()
    try:
        assert isinstance(recorder.next("down"), DeviceNotFoundError)
        bus.device.plug()
        recorder.next("up")
    finally:
        transport.close()


def test_settings_are_checked() -> None:
    with pytest.raises(DriverConfigError):
        UsbSettings(0x10000, 1, "x")
    with pytest.raises(DriverConfigError):
        UsbSettings(1, 1, "")
    assert UsbSettings(0x1D50, 0x6021, "x").ids == "1d50:6021"


def test_write_timeout_drops_the_link_and_it_comes_back(bus: Bus) -> None:
    recorder = Recorder()
    transport = UsbTransport(
        UsbSettings(VID, PID, "RD-0001", write_timeout=0.02),
        recorder,
        backend=bus.backend,
        backoff=Backoff(0.01, cap=0.05),
    )
    transport.start()
    try:
        recorder.next("up")
        bus.device.stalled = True
        with pytest.raises(LinkWriteTimeoutError):
            transport.write(b"stuck")
        assert "took no data" in str(recorder.next("down"))
        bus.device.stalled = False
        recorder.next("up")
        transport.write(b"flows")
        assert bus.received.get(timeout=WAIT) == b"flows"
    finally:
        transport.close()
