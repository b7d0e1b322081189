"""UsbTransport running the real pyusb code against the simulated backend."""

from __future__ import annotations

import errno
import queue
import time
from collections.abc import Iterator
from typing import Any

import pytest
import usb.backend
import usb.core

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


def test_a_wedged_reader_is_given_the_whole_configured_write_timeout(bus: Bus) -> None:
    # A technician who sets write_timeout = 1.2 s on a slow reader gets 1.2 s before the link
    # is dropped, not pyusb's default of 1 s nor a millisecond (only the lower bound is
    # checked: a loaded CPU can only make the write fail later).
    recorder = Recorder()
    transport = UsbTransport(
        UsbSettings(VID, PID, "RD-0001", write_timeout=1.2), recorder, backend=bus.backend
    )
    transport.start()
    try:
        recorder.next("up")
        bus.device.stalled = True
        began = time.monotonic()
        with pytest.raises(LinkWriteTimeoutError) as timed_out:
            transport.write(b"stuck")
        assert time.monotonic() - began >= 1.2
        assert str(timed_out.value).endswith("device took no data for 1.2 s")
    finally:
        transport.close()


# --- the settings a technician writes ------------------------------------------------------


def test_ids_take_the_whole_16_bit_range_and_nothing_past_it() -> None:
    assert UsbSettings(0, 0xFFFF, "x").ids == "0000:ffff"  # both ends are ids (USB 2.0 9.6.1)
    with pytest.raises(DriverConfigError) as refused:
        UsbSettings(-1, 1, "x")
    assert str(refused.value) == "USB vendor id must be 0..0xffff, not -1"
    with pytest.raises(DriverConfigError) as refused:
        UsbSettings(1, 0x10000, "x")
    assert str(refused.value) == "USB product id must be 0..0xffff, not 65536"
    with pytest.raises(DriverConfigError) as refused:
        UsbSettings(1, 1, "")
    assert str(refused.value) == "USB serial number is empty"


# --- what is on the bus ---------------------------------------------------------------------


def _down_once(bus: SimulatedUsbBackend, serial_number: str = "RD-0001") -> TransportError:
    recorder = Recorder()
    transport = UsbTransport(
        UsbSettings(VID, PID, serial_number), recorder, backend=bus, backoff=Backoff(0.01)
    )
    transport.start()
    try:
        error = recorder.next("down")
        assert isinstance(error, TransportError)
        return error
    finally:
        transport.close()


def _device(vid: int, pid: int, serial_number: str) -> SimulatedUsbDevice:
    return SimulatedUsbDevice(UsbIdentity(vid, pid, serial_number), lambda data: None)


def test_a_device_with_the_serial_number_but_other_ids_is_not_the_reader() -> None:
    bus = SimulatedUsbBackend()
    other_product, other_vendor = _device(VID, 0x9999, "RD-0001"), _device(0x9999, PID, "RD-0001")
    bus.add(other_product)
    bus.add(other_vendor)
    error = _down_once(bus)
    assert isinstance(error, DeviceNotFoundError)
    assert str(error) == "no USB device 1d50:6021 on the bus"
    assert other_product.claimed == other_vendor.claimed == set()


def test_every_wrong_reader_on_the_bus_is_named() -> None:
    bus = SimulatedUsbBackend()
    bus.add(_device(VID, PID, "RD-0998"))
    bus.add(_device(VID, PID, "RD-0999"))
    error = _down_once(bus)
    assert isinstance(error, WrongDeviceError)
    assert str(error) == "USB 1d50:6021 has serial number RD-0998, RD-0999, configured RD-0001"
    assert error.found == {"serial_number": "RD-0998, RD-0999"}


class _SerialUnreadable(SimulatedUsbBackend):
    """A device whose serial number string cannot be read (the udev rule did not give the
    station the device: every string request fails)."""

    def ctrl_transfer(self, dev_handle: Any, *args: Any) -> int:
        raise usb.core.USBError("Access denied (insufficient permissions)", -3, errno.EACCES)


def test_a_reader_whose_serial_number_cannot_be_read_is_refused_saying_so() -> None:
    bus = _SerialUnreadable()
    device = _device(VID, PID, "RD-0001")
    bus.add(device)
    error = _down_once(bus)
    assert isinstance(error, WrongDeviceError)
    assert error.found["serial_number"].startswith("<unreadable: ")
    assert (
        "permission" in error.found["serial_number"]
    )  # pyusb: "The device has no langid (permission issue, ...)"
    assert device.claimed == set()


class _BusFails(SimulatedUsbBackend):
    def enumerate_devices(self) -> Any:
        raise usb.core.USBError("Input/Output Error", -1, errno.EIO)


def test_a_bus_that_cannot_be_listed_is_reported_as_such() -> None:
    error = _down_once(_BusFails())
    assert type(error) is TransportError
    assert str(error) == "USB 1d50:6021: cannot enumerate: [Errno 5] Input/Output Error"


class _NoBulkOut(SimulatedUsbBackend):
    """A device whose interface has a bulk IN endpoint only (the wrong firmware)."""

    def get_interface_descriptor(self, dev: Any, intf: int, alt: int, config: int) -> Any:
        descriptor = super().get_interface_descriptor(dev, intf, alt, config)
        descriptor.bNumEndpoints = 1
        return descriptor

    def get_endpoint_descriptor(self, dev: Any, ep: int, intf: int, alt: int, config: int) -> Any:
        return super().get_endpoint_descriptor(dev, ep + 1, intf, alt, config)  # 0x81 only


def test_a_reader_without_both_bulk_endpoints_is_released_and_refused() -> None:
    bus = _NoBulkOut()
    device = _device(VID, PID, "RD-0001")
    bus.add(device)
    error = _down_once(bus)
    assert str(error).startswith("USB 1d50:6021 RD-0001: cannot claim: ")
    assert str(error).endswith("interface 0 has no bulk IN/OUT endpoint pair")
    assert device.claimed == set()  # released for whatever else may use it


class _NoKernelDrivers(SimulatedUsbBackend):
    """A platform whose USB stack has no kernel-driver calls (pyusb raises
    NotImplementedError for them)."""

    is_kernel_driver_active = usb.backend.IBackend.is_kernel_driver_active
    detach_kernel_driver = usb.backend.IBackend.detach_kernel_driver


def test_a_platform_without_kernel_driver_calls_still_claims_the_reader() -> None:
    bus = _NoKernelDrivers()
    device = _device(VID, PID, "RD-0001")
    device.kernel_driver_active = False
    bus.add(device)
    recorder = Recorder()
    transport = UsbTransport(UsbSettings(VID, PID, "RD-0001"), recorder, backend=bus)
    transport.start()
    try:
        recorder.next("up")
        assert device.claimed == {0}
    finally:
        transport.close()
    assert device.claimed == set()  # closing the station releases the reader


# --- writes and the link's pace -------------------------------------------------------------


class _Faulty(SimulatedUsbBackend):
    """Bulk OUT transfers fail as ``outcome`` says: a halted endpoint or a short write."""

    outcome = "halt"

    def bulk_write(self, dev_handle: Any, ep: int, intf: int, data: Any, timeout: int) -> int:
        if self.outcome == "halt":
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
        return 2


@pytest.mark.parametrize(
    ("outcome", "text"),
    [
        ("halt", "usb 1d50:6021: write failed: [Errno 32] Pipe error"),
        ("short", "usb 1d50:6021: short write, 2 of 5 bytes"),
    ],
)
def test_a_write_the_reader_does_not_take_whole_drops_the_link(outcome: str, text: str) -> None:
    bus = _Faulty()
    bus.outcome = outcome
    bus.add(_device(VID, PID, "RD-0001"))
    recorder = Recorder()
    transport = UsbTransport(UsbSettings(VID, PID, "RD-0001"), recorder, backend=bus)
    transport.start()
    try:
        recorder.next("up")
        with pytest.raises(TransportError) as failed:
            transport.write(b"12345")
        assert str(failed.value) == text
        assert str(recorder.next("down")) == text
    finally:
        transport.close()


class _Ticks(Recorder):
    def __init__(self) -> None:
        super().__init__()
        self.ticks: queue.Queue[bool] = queue.Queue()

    def link_tick(self) -> None:
        self.ticks.put(True)


def test_the_protocol_is_ticked_every_tick_interval_on_an_idle_link(bus: Bus) -> None:
    # The link's timers (retransmit, heartbeat, silence) run on these ticks: 20 of them at
    # the default 20 ms take 0.4 s; at a second apiece the peer would be declared silent
    # late and retransmits would lag.
    recorder = _Ticks()
    transport = UsbTransport(UsbSettings(VID, PID, "RD-0001"), recorder, backend=bus.backend)
    transport.start()
    try:
        recorder.next("up")
        while not recorder.ticks.empty():
            recorder.ticks.get()
        started = time.monotonic()
        for _ in range(20):
            recorder.ticks.get(timeout=WAIT)
        assert time.monotonic() - started < WAIT
    finally:
        transport.close()


def test_an_absent_reader_is_looked_for_at_the_configured_pace() -> None:
    # Backoff(1 ms, factor 1): 30 attempts take well under a second; the default's
    # doubling to 2 s would take a minute.
    bus = Bus()
    bus.device.unplug()
    recorder = _Ticks()
    transport = UsbTransport(
        UsbSettings(VID, PID, "RD-0001"),
        recorder,
        backend=bus.backend,
        backoff=Backoff(0.001, factor=1.0, cap=0.001),
    )
    transport.start()
    try:
        started = time.monotonic()
        for _ in range(30):  # one tick after each attempt to open
            recorder.ticks.get(timeout=WAIT)
        assert time.monotonic() - started < WAIT
        assert isinstance(recorder.next("down"), DeviceNotFoundError)
    finally:
        transport.close()
