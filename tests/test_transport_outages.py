"""The transport's outages (drivers.transport.ThreadedTransport), with the real pyusb code of
drivers.usb_transport against the simulated USB backend.

- One outage is one report, but a wrong device that appears during an outage is news: the
  procedure must hear that the reader on the bus is not the configured one (a refusal,
  naming both serial numbers), and again if another wrong one replaces it.
- After a write fails, the port is broken: the next write is refused (``LinkNotOpenError``)
  and reaches nothing until the reader thread has reopened the port.
- A new session clears the count of frames that failed their seal: the device is faulted
  after AUTH_FAILURE_LIMIT failures in one session, not across sessions.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator

import pytest
import structlog
from test_usb_transport import PID, VID, WAIT
from test_usb_transport import Recorder as UsbRecorder

from drivers.errors import (
    DeviceNotFoundError,
    DriverConfigError,
    LinkNotOpenError,
    LinkWriteTimeoutError,
    TransportError,
    WrongDeviceError,
)
from drivers.serial_transport import SerialSettings, SerialTransport
from drivers.simulated.usb_backend import SimulatedUsbBackend, SimulatedUsbDevice, UsbIdentity
from drivers.transport import Backoff
from drivers.usb_transport import UsbSettings, UsbTransport


class Recorder(UsbRecorder):
    """tests/test_usb_transport.py's listener; ``hold`` also parks the reader thread in its
    next tick until ``release`` (``entered`` says it is parked), and ticks are counted."""

    def __init__(self) -> None:
        super().__init__()
        self.hold = threading.Event()
        self.entered = threading.Event()
        self.release = threading.Event()
        self._ticks = 0
        self._ticked = threading.Condition()

    def link_tick(self) -> None:
        with self._ticked:
            self._ticks += 1
            self._ticked.notify_all()
        if self.hold.is_set():
            self.entered.set()
            self.release.wait(WAIT)

    def wait_ticks(self, count: int) -> None:
        """Wait until the reader thread has ticked ``count`` more times (each failed open
        of the port ticks once)."""
        with self._ticked:
            goal = self._ticks + count
            assert self._ticked.wait_for(lambda: self._ticks >= goal, WAIT)


def reader(serial: str, received: queue.Queue[bytes] | None = None) -> SimulatedUsbDevice:
    sink: queue.Queue[bytes] = received if received is not None else queue.Queue()
    return SimulatedUsbDevice(UsbIdentity(VID, PID, serial), sink.put)


@pytest.fixture
def backend() -> SimulatedUsbBackend:
    return SimulatedUsbBackend()


@pytest.fixture
def started(backend: SimulatedUsbBackend) -> Iterator[tuple[UsbTransport, Recorder]]:
    recorder = Recorder()
    transport = UsbTransport(
        UsbSettings(VID, PID, "RD-0001", write_timeout=0.02),
        recorder,
        backend=backend,
        name="card_reader",
        backoff=Backoff(0.01, cap=0.02),
    )
    transport.start()
    yield transport, recorder
    recorder.release.set()
    transport.close()


def test_a_wrong_reader_that_appears_during_an_outage_is_reported_each_time(
    started: tuple[UsbTransport, Recorder], backend: SimulatedUsbBackend
) -> None:
    _, recorder = started
    assert isinstance(recorder.next("down"), DeviceNotFoundError)  # nothing on the bus
    wrong = reader("RD-0999")
    backend.add(wrong)
    error = recorder.next("down")
    assert isinstance(error, WrongDeviceError)
    assert (error.expected, error.found) == (
        {"serial_number": "RD-0001"},
        {"serial_number": "RD-0999"},
    )
    backend.remove(wrong)
    other = reader("RD-0777")
    backend.add(other)
    error = recorder.next("down")
    assert isinstance(error, WrongDeviceError) and error.found == {"serial_number": "RD-0777"}
    # The same wrong reader, retried with backoff, is not reported again.
    recorder.wait_ticks(3)
    assert recorder.events.empty()
    backend.remove(other)
    backend.add(reader("RD-0001"))
    recorder.next("up")


def test_after_a_failed_write_nothing_is_written_until_the_port_reopens(
    started: tuple[UsbTransport, Recorder], backend: SimulatedUsbBackend
) -> None:
    transport, recorder = started
    received: queue.Queue[bytes] = queue.Queue()
    device = reader("RD-0001", received)
    assert isinstance(recorder.next("down"), DeviceNotFoundError)  # started before the plug
    backend.add(device)
    recorder.next("up")
    recorder.hold.set()  # the reader thread parks in its next tick: the port stays as it is
    assert recorder.entered.wait(WAIT)
    device.stalled = True
    with pytest.raises(LinkWriteTimeoutError):
        transport.write(b"stuck")
    device.stalled = False  # the device drains again, but the port is broken
    with pytest.raises(LinkNotOpenError, match="link is down"):
        transport.write(b"lost")
    recorder.hold.clear()
    recorder.release.set()
    assert "took no data" in str(recorder.next("down"))
    recorder.next("up")
    transport.write(b"flows")
    got = b""
    while not got.endswith(b"flows"):
        got += received.get(timeout=WAIT)
    assert b"lost" not in got


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"port": ""}, "serial port path is empty"),
        ({"baudrate": 0}, "baud rate must be positive, not 0"),
        ({"baudrate": -9600}, "baud rate must be positive, not -9600"),
        ({"write_timeout": 0.0}, "write timeout must be positive, not 0.0"),
    ],
)
def test_serial_settings_refuse_in_one_line(kwargs: dict[str, object], message: str) -> None:
    settings = {"port": "/dev/ttyUSB0", **kwargs}
    with pytest.raises(DriverConfigError) as caught:
        SerialSettings(**settings)  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_serial_settings_take_the_smallest_positive_values() -> None:
    settings = SerialSettings("/dev/ttyUSB0", baudrate=1, write_timeout=0.001)
    assert (settings.baudrate, settings.write_timeout) == (1, 0.001)


def test_a_serial_link_is_named_after_its_port_unless_named() -> None:
    listener = Recorder()
    assert SerialTransport(SerialSettings("/dev/ttyUSB3"), listener).name == "/dev/ttyUSB3"
    assert SerialTransport(SerialSettings("/dev/ttyUSB3"), listener, name="shoe").name == "shoe"


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        ((-1, 1), "USB vendor id must be 0..0xffff, not -1"),
        ((0x10000, 1), "USB vendor id must be 0..0xffff, not 65536"),
        ((1, -1), "USB product id must be 0..0xffff, not -1"),
        ((1, 0x10000), "USB product id must be 0..0xffff, not 65536"),
    ],
)
def test_usb_ids_are_16_bits_each_refused_in_one_line(ids: tuple[int, int], message: str) -> None:
    with pytest.raises(DriverConfigError) as caught:
        UsbSettings(ids[0], ids[1], "RD-0001")
    assert str(caught.value) == message


def test_usb_settings_take_both_ends_of_the_id_range_and_need_a_serial() -> None:
    assert UsbSettings(0, 0xFFFF, "RD-0001").ids == "0000:ffff"
    assert UsbSettings(0xFFFF, 0, "RD-0001").ids == "ffff:0000"
    with pytest.raises(DriverConfigError) as caught:
        UsbSettings(VID, PID, "")
    assert str(caught.value) == "USB serial number is empty"


class Crashing(UsbTransport):
    """A transport whose port code raises what it never should (a bug)."""

    def _open_port(self) -> str:
        raise RuntimeError("boom")


def test_a_reader_thread_that_crashes_reports_the_device_lost_naming_the_bug(
    backend: SimulatedUsbBackend,
) -> None:
    recorder = Recorder()
    transport = Crashing(UsbSettings(VID, PID, "RD-0001"), recorder, backend=backend, name="rd")
    transport.start()
    try:
        error = recorder.next("down")
        assert isinstance(error, TransportError)
        assert str(error) == "rd: reader thread ended: RuntimeError: boom"
        assert not transport.is_open
    finally:
        transport.close()


def test_the_reader_thread_is_named_after_the_link_and_does_not_hold_the_process(
    started: tuple[UsbTransport, Recorder],
) -> None:
    threads = [t for t in threading.enumerate() if t.name == "card_reader-link"]
    transport, _ = started
    assert transport.name == "card_reader"
    assert len(threads) == 1 and threads[0].daemon


class CountingReads(UsbTransport):
    """The real USB transport; the test counts how often its reader thread reads the port."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.reads = 0

    def _read_port(self, timeout: float) -> bytes:
        self.reads += 1
        return super()._read_port(timeout)


def test_an_idle_link_reads_the_port_about_once_a_tick_not_in_a_spin(
    backend: SimulatedUsbBackend,
) -> None:
    # The reader thread of a quiet device waits in the port's read until the protocol's next
    # deadline (here every tick of 0.1 s): a Pi running four links has no core to spare for
    # a thread that wakes every millisecond to find nothing. A read may end a moment early
    # (the kernel's timer), so a tick may take two reads; a spinning reader takes about a
    # hundred a tick.
    backend.add(reader("RD-0001"))
    recorder = Recorder()
    transport = CountingReads(
        UsbSettings(VID, PID, "RD-0001"), recorder, backend=backend, tick_interval=0.1
    )
    transport.start()
    try:
        recorder.next("up")
        recorder.wait_ticks(1)
        before = transport.reads
        recorder.wait_ticks(5)
        reads = transport.reads - before
    finally:
        transport.close()
    assert 5 <= reads <= 3 * 5 + 3, reads


class UnplugsToWake(UsbTransport):
    """A port whose read is woken by taking the device away (as closing a socket under a
    blocked read does): the read then fails, because the link is being closed."""

    def __init__(self, device: SimulatedUsbDevice, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.device = device

    def _interrupt(self) -> None:
        self.device.unplug()


def test_closing_a_link_reports_no_outage(backend: SimulatedUsbBackend) -> None:
    # A link the station closes (shutdown, a pairing done) is not a lost device: the
    # listener hears no link_down, even when closing makes the port's read fail.
    device = reader("RD-0001")
    backend.add(device)
    recorder = Recorder()
    transport = UnplugsToWake(
        device, UsbSettings(VID, PID, "RD-0001"), recorder, backend=backend, tick_interval=0.2
    )
    transport.start()
    recorder.next("up")
    recorder.wait_ticks(1)  # the reader thread is in its wait
    with structlog.testing.capture_logs() as logs:
        transport.close()
    assert not device.plugged and not transport.is_open
    assert not [e for e in threading.enumerate() if e.name == transport.name + "-link"]
    assert recorder.events.empty(), recorder.events.get_nowait()
    assert not [e for e in logs if e["log_level"] == "warning"], logs  # it stopped in time


def test_close_gives_up_on_a_reader_thread_stuck_in_its_listener(
    started: tuple[UsbTransport, Recorder],
    backend: SimulatedUsbBackend,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A listener that hangs (a bug) must not hang the station's shutdown with it: close()
    # waits for the reader thread a bounded time, then returns (the thread is a daemon).
    monkeypatch.setattr("drivers.transport._JOIN_TIMEOUT", 0.05)
    transport, recorder = started
    recorder.hold.set()
    assert recorder.entered.wait(WAIT)  # the reader thread is parked in link_tick
    with structlog.testing.capture_logs() as logs:
        transport.close()
    # Said, since the port stays open (the next opener refused) until the thread ends.
    assert [(e["event"], e["link"], e["seconds"]) for e in logs] == [
        ("link reader did not stop: its port stays open until it does", "card_reader", 0.05)
    ]
    assert not recorder.release.is_set()
    stuck = [t for t in threading.enumerate() if t.name == "card_reader-link"]
    assert len(stuck) == 1 and stuck[0].is_alive()
    recorder.release.set()
    stuck[0].join(WAIT)
    assert not stuck[0].is_alive()
