"""SerialTransport over a real pseudo-terminal (drivers.simulated.pty_port)."""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import serial

from drivers.errors import DeviceNotFoundError, DriverConfigError, LinkNotOpenError, TransportError
from drivers.serial_transport import SerialSettings, SerialTransport
from drivers.simulated.pty_port import PtyPort
from drivers.transport import Backoff

WAIT = 5.0


class Recorder:
    """A LinkListener that queues what it is told (ticks only counted)."""

    def __init__(self) -> None:
        self.events: queue.Queue[tuple[str, object]] = queue.Queue()
        self.ticks = 0

    def link_up(self, description: str) -> None:
        self.events.put(("up", description))

    def link_data(self, data: bytes) -> None:
        self.events.put(("data", data))

    def link_tick(self) -> None:
        self.ticks += 1

    def link_down(self, error: TransportError) -> None:
        self.events.put(("down", error))

    def next(self, kind: str, wait: float = WAIT) -> object:
        """The next event of ``kind``; data events are skipped unless asked for."""
        while True:
            got_kind, value = self.events.get(timeout=wait)
            if got_kind == kind:
                return value
            if got_kind != "data":
                raise AssertionError(f"expected {kind}, got {got_kind}: {value!r}")

    def read_exactly(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            kind, value = self.events.get(timeout=WAIT)
            assert kind == "data", (kind, value)
            assert isinstance(value, bytes)
            data += value
        return data


class DeviceEnd:
    """The far end: a pty port that queues what the driver sent."""

    def __init__(self, path: Path) -> None:
        self.received: queue.Queue[bytes] = queue.Queue()
        self.port = PtyPort(path, self.received.put)

    def read_exactly(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            data += self.received.get(timeout=WAIT)
        return data


@pytest.fixture
def device(tmp_path: Path) -> Iterator[DeviceEnd]:
    end = DeviceEnd(tmp_path / "ttyShoe")
    end.port.plug()
    yield end
    end.port.close()


@pytest.fixture
def link(device: DeviceEnd) -> Iterator[tuple[SerialTransport, Recorder]]:
    recorder = Recorder()
    transport = SerialTransport(
        SerialSettings(str(device.port.path)),
        recorder,
        backoff=Backoff(initial=0.01, cap=0.05),
    )
    transport.start()
    yield transport, recorder
    transport.close()


@contextlib.contextmanager
def opened(device: DeviceEnd, listener: Recorder) -> Iterator[SerialTransport]:
    """A transport on ``device``'s port, started and heard up; closed after."""
    transport = SerialTransport(SerialSettings(str(device.port.path)), listener)
    transport.start()
    try:
        listener.next("up")
        yield transport
    finally:
        transport.close()


def test_bytes_cross_both_ways(link: tuple[SerialTransport, Recorder], device: DeviceEnd) -> None:
    transport, recorder = link
    assert recorder.next("up") == str(device.port.path)
    payload = bytes(range(256)) * 4
    transport.write(payload)
    assert device.read_exactly(len(payload)) == payload
    device.port.write(payload)
    assert recorder.read_exactly(len(payload)) == payload


def test_unplug_is_reported_and_replug_reconnects(
    link: tuple[SerialTransport, Recorder], device: DeviceEnd
) -> None:
    transport, recorder = link
    recorder.next("up")
    device.port.unplug()
    error = recorder.next("down")
    assert isinstance(error, TransportError)
    with pytest.raises(LinkNotOpenError):
        transport.write(b"lost")
    device.port.plug()
    recorder.next("up")
    transport.write(b"back")
    assert device.read_exactly(4) == b"back"


def test_missing_port_is_reported_once_then_found(tmp_path: Path) -> None:
    recorder = Recorder()
    device = DeviceEnd(tmp_path / "ttyLate")
    transport = SerialTransport(
        SerialSettings(str(device.port.path)), recorder, backoff=Backoff(0.005, cap=0.01)
    )
    transport.start()
    try:
        error = recorder.next("down")
        assert isinstance(error, DeviceNotFoundError)
        assert "no such serial port" in str(error)
        # Let several retries fail: still only one report.
        ticks_seen = threading.Event()
        while recorder.ticks < 5:
            ticks_seen.wait(0.01)
        assert recorder.events.empty()
        device.port.plug()
        assert recorder.next("up") == str(device.port.path)
    finally:
        transport.close()
        device.port.close()


def test_exclusive_open_refuses_a_second_user(
    link: tuple[SerialTransport, Recorder], device: DeviceEnd
) -> None:
    _, recorder = link
    recorder.next("up")
    with pytest.raises(serial.SerialException):
        serial.Serial(str(device.port.path), exclusive=True)


def test_reconnect_request_reopens_port(
    link: tuple[SerialTransport, Recorder], device: DeviceEnd
) -> None:
    transport, recorder = link
    recorder.next("up")
    transport.reconnect("peer silent")
    assert "peer silent" in str(recorder.next("down"))
    recorder.next("up")


def test_write_timeout_when_nobody_reads(tmp_path: Path) -> None:
    """A device that stops draining makes the write fail after write_timeout, not hang."""
    recorder = Recorder()
    stalled = DeviceEnd(tmp_path / "ttyStalled")
    stalled.port.plug()
    transport = SerialTransport(
        SerialSettings(str(stalled.port.path), write_timeout=0.05), recorder
    )
    transport.start()
    try:
        recorder.next("up")
        stalled.port.stall(True)
        with pytest.raises(TransportError) as failed:
            for _ in range(1000):
                transport.write(b"\x55" * 4096)
        assert str(failed.value) == f"{stalled.port.path}: device took no data for 0.05 s"
        recorder.next("down")
    finally:
        transport.close()
        stalled.port.close()


def test_settings_are_checked() -> None:
    with pytest.raises(DriverConfigError):
        SerialSettings("")
    with pytest.raises(DriverConfigError):
        SerialSettings("/dev/ttyUSB0", baudrate=0)


def test_hardware_flow_control_setting_opens(tmp_path: Path) -> None:
    recorder = Recorder()
    device = DeviceEnd(tmp_path / "ttyFlow")
    device.port.plug()
    transport = SerialTransport(SerialSettings(str(device.port.path), rtscts=True), recorder)
    transport.start()
    try:
        recorder.next("up")
        transport.write(b"ok")
        assert device.read_exactly(2) == b"ok"
    finally:
        transport.close()
        device.port.close()


def test_backoff_doubles_up_to_the_cap() -> None:
    delays = Backoff(initial=0.05, factor=2.0, cap=0.3).delays()
    assert [next(delays) for _ in range(6)] == [0.05, 0.1, 0.2, 0.3, 0.3, 0.3]


class Exploding(Recorder):
    """A listener with a bug in its data handler."""

    def link_data(self, data: bytes) -> None:
        super().link_data(data)
        raise RuntimeError("driver bug")


def test_a_failing_listener_does_not_kill_the_reader(tmp_path: Path) -> None:
    recorder = Exploding()
    device = DeviceEnd(tmp_path / "ttyBug")
    device.port.plug()
    transport = SerialTransport(SerialSettings(str(device.port.path)), recorder)
    transport.start()
    try:
        recorder.next("up")
        device.port.write(b"one")
        assert recorder.read_exactly(3) == b"one"
        device.port.write(b"two")
        assert recorder.read_exactly(3) == b"two"
    finally:
        transport.close()
        device.port.close()


#: A second process, as an ordinary user (root bypasses TIOCEXCL), opens a tty and prints
#: the errno name it got, or "opened".
_SECOND_OPENER = """
import errno, os, sys
try:
    os.close(os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK))
except OSError as err:
    print(errno.errorcode[err.errno])
else:
    print("opened")
"""


NOBODY = ("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups")


def open_as_nobody(tty: str) -> str:
    """What ``nobody`` gets when it opens ``tty`` in a process of its own."""
    result = subprocess.run(
        [*NOBODY, "/usr/bin/python3", "-c", _SECOND_OPENER, tty],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return result.stdout.strip()


def test_a_second_process_cannot_open_the_port_while_the_station_holds_it(
    link: tuple[SerialTransport, Recorder], device: DeviceEnd
) -> None:
    # Another dialout user opened the shoe's tty beside the station (the flock
    # is advisory), read its bytes and stopped play. TIOCEXCL refuses it in the kernel.
    transport, recorder = link
    recorder.next("up")
    tty = os.path.realpath(device.port.path)
    os.chmod(tty, 0o666)  # as if nobody were in the dialout group: only TIOCEXCL stops it
    assert open_as_nobody(tty) == "EBUSY"
    transport.close()  # the station lets go: the same open now succeeds
    assert open_as_nobody(tty) == "opened"


class Paced(Recorder):
    """A listener whose protocol asks for its ticks: ``wait`` seconds after each call."""

    def __init__(self, wait: float) -> None:
        super().__init__()
        self.wait = wait

    def link_data(self, data: bytes) -> float:
        super().link_data(data)
        return self.wait

    def link_tick(self) -> float:
        super().link_tick()
        self.events.put(("tick", None))
        return self.wait


def test_the_reader_ticks_when_the_listener_asks_not_at_the_tick_interval(
    device: DeviceEnd,
) -> None:
    """A held ACK is due 10 ms after the frame it acknowledges (docs/protocol.md, section 5):
    the transport wakes at the listener's deadline, not a tick interval later (a one-hour
    interval here, so a tick that came by the interval would never come)."""
    listener = Paced(0.0)
    transport = SerialTransport(
        SerialSettings(str(device.port.path)), listener, tick_interval=3600.0
    )
    transport.start()
    try:
        listener.next("up")
        listener.next("tick")  # the first tick is at once, whatever the interval
        device.port.write(b"frame")
        listener.next("tick")  # asked for at once by link_data: no interval to wait
        listener.next("tick")  # and again by that tick
    finally:
        transport.close()


class WaitRecording(SerialTransport):
    """A serial transport that keeps how long each of its reads may wait."""

    waits: list[float]

    def _read_port(self, timeout: float) -> bytes:
        self.waits.append(timeout)
        return super()._read_port(timeout)


def test_an_idle_link_is_not_woken_before_the_listener_asks(device: DeviceEnd) -> None:
    """With nothing due for an hour, each read waits as long as a read may (half a second),
    not one tick interval, and bytes come and go without a tick in between: an idle link
    wakes for its protocol's work and for bytes, nothing else."""
    listener = Paced(3600.0)
    transport = WaitRecording(SerialSettings(str(device.port.path)), listener, tick_interval=0.001)
    transport.waits = []
    transport.start()
    try:
        listener.next("up")
        assert listener.next("tick") is None  # the first, at once
        for chunk in (b"one", b"two", b"three"):
            device.port.write(chunk)
            assert listener.read_exactly(len(chunk)) == chunk  # no tick event in between
        assert listener.ticks == 1
        later = transport.waits[1:]  # the first read's wait came before the first tick
        assert later and all(wait == pytest.approx(0.5) for wait in later)
    finally:
        transport.close()


def test_settings_refused_say_why_and_the_least_values_pass() -> None:
    for settings, text in (
        ({"port": ""}, "serial port path is empty"),
        ({"port": "/dev/x", "baudrate": 0}, "baud rate must be positive, not 0"),
        ({"port": "/dev/x", "write_timeout": 0}, "write timeout must be positive, not 0"),
    ):
        with pytest.raises(DriverConfigError) as refused:
            SerialSettings(**settings)
        assert str(refused.value) == text
    assert SerialSettings("/dev/x", baudrate=1, write_timeout=0.001).baudrate == 1


def test_a_transport_is_named_after_its_port_unless_named() -> None:
    # The name is in its thread's name and in every line it logs.
    settings = SerialSettings("/dev/dealer-shoe")
    assert SerialTransport(settings, Recorder()).name == "/dev/dealer-shoe"
    assert SerialTransport(settings, Recorder(), name="shoe").name == "shoe"


def _line_settings(path: Path) -> list[Any]:
    """The tty's termios settings, read through a descriptor of our own (root may open a
    tty the station holds exclusively)."""
    fd = os.open(os.path.realpath(path), os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        return termios.tcgetattr(fd)
    finally:
        os.close(fd)


@pytest.mark.parametrize("rtscts", [False, True])
def test_the_port_is_opened_at_the_configured_speed_and_flow_control(
    tmp_path: Path, rtscts: bool
) -> None:
    device = DeviceEnd(tmp_path / "ttyLine")
    device.port.plug()
    recorder = Recorder()
    settings = SerialSettings(str(device.port.path), baudrate=57600, rtscts=rtscts)
    transport = SerialTransport(settings, recorder)
    transport.start()
    try:
        recorder.next("up")
        _, _, cflag, _, ispeed, ospeed, _ = _line_settings(device.port.path)
        assert (ispeed, ospeed) == (termios.B57600, termios.B57600)
        assert bool(cflag & termios.CRTSCTS) is rtscts
        assert cflag & termios.CSIZE == termios.CS8  # 8N1
        assert not cflag & (termios.PARENB | termios.CSTOPB)
    finally:
        transport.close()
        device.port.close()


def _first_down(settings: SerialSettings) -> TransportError:
    recorder = Recorder()
    transport = SerialTransport(settings, recorder, backoff=Backoff(0.01))
    transport.start()
    try:
        error = recorder.next("down")
        assert isinstance(error, TransportError)
        return error
    finally:
        transport.close()


def test_a_path_that_is_no_serial_port_is_reported_in_one_line(tmp_path: Path) -> None:
    plain = tmp_path / "notes.txt"
    plain.write_text("x")
    error = _first_down(SerialSettings(str(plain)))
    assert type(error) is TransportError
    assert str(error).startswith(f"{plain}: cannot open: ")
    error = _first_down(SerialSettings("/dev/dealer\0shoe"))
    assert isinstance(error, DeviceNotFoundError)
    assert str(error) == "'/dev/dealer\\x00shoe': not a usable port path: embedded null byte"


def test_a_reconnect_delivers_no_bytes_the_device_never_sent(
    link: tuple[SerialTransport, Recorder], device: DeviceEnd
) -> None:
    # The wake-up that interrupts the read is no data: the next thing the listener hears
    # after the request is the port going down, then up again.
    transport, recorder = link
    recorder.next("up")
    transport.reconnect("peer silent")
    kind, error = recorder.events.get(timeout=WAIT)
    assert (kind, str(error)) == ("down", "peer silent")
    assert recorder.next("up") == str(device.port.path)


def test_a_port_whose_other_end_closes_is_lost_saying_so(
    link: tuple[SerialTransport, Recorder], device: DeviceEnd
) -> None:
    _, recorder = link
    recorder.next("up")
    device.port.unplug()
    # A hung-up tty reads as end of file (a USB adapter pulled out does the same).
    assert str(recorder.next("down")) == f"{device.port.path}: lost: the device returned no data"


def test_an_absent_port_is_looked_for_at_the_configured_pace(tmp_path: Path) -> None:
    # Backoff(1 ms, factor 1): 30 attempts take well under a second; the default's
    # doubling to 2 s would take a minute.
    recorder = Recorder()
    transport = SerialTransport(
        SerialSettings(str(tmp_path / "ttyAbsent")),
        recorder,
        backoff=Backoff(0.001, factor=1.0, cap=0.001),
    )
    transport.start()
    try:
        deadline = time.monotonic() + WAIT
        while recorder.ticks < 30 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert recorder.ticks >= 30  # one tick after each attempt to open
    finally:
        transport.close()


def test_an_idle_open_port_is_ticked_every_tick_interval(device: DeviceEnd) -> None:
    # The link's timers run on these ticks: 20 of them at the default 20 ms take 0.4 s.
    recorder = Recorder()
    with opened(device, recorder):
        start = recorder.ticks
        deadline = time.monotonic() + WAIT
        while recorder.ticks < start + 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert recorder.ticks >= start + 20


# --- the reader thread (drivers/transport.py) -----------------------------------------------


def test_the_reader_is_a_named_daemon_thread_gone_after_close(device: DeviceEnd) -> None:
    # Named in thread dumps and logs; a daemon, so a port call stuck in the kernel never
    # keeps the station's process from exiting.
    recorder = Recorder()
    transport = SerialTransport(SerialSettings(str(device.port.path)), recorder, name="shoe")
    assert transport.is_open is False
    with pytest.raises(LinkNotOpenError):
        transport.write(b"early")  # before start: refused, never written
    transport.start()
    recorder.next("up")
    (thread,) = [t for t in threading.enumerate() if t.name == "shoe-link"]
    assert thread.daemon
    transport.close()
    assert not thread.is_alive()  # close returns once the reader has ended


def test_a_port_lost_leaves_the_transport_closed(
    link: tuple[SerialTransport, Recorder], device: DeviceEnd
) -> None:
    transport, recorder = link
    recorder.next("up")
    device.port.unplug()
    recorder.next("down")
    assert transport.is_open is False


class Crashing(SerialTransport):
    """A port whose read raises what no port call should (a bug), and whose close then
    fails too."""

    def _read_port(self, timeout: float) -> bytes:
        raise RuntimeError("boom")

    def _close_port(self) -> None:
        super()._close_port()
        raise OSError("already gone")


def test_a_reader_thread_that_fails_reports_the_port_down_and_closed(device: DeviceEnd) -> None:
    recorder = Recorder()
    transport = Crashing(SerialSettings(str(device.port.path)), recorder, name="shoe")
    transport.start()
    try:
        recorder.next("up")
        # The failure is logged with its traceback before the "down" goes out: rendered
        # with its source lines, that took over 5 s in mutmut's copy of the module (every
        # mutant written beside each function) on a loaded machine.
        error = recorder.next("down", wait=30.0)
        assert str(error) == "shoe: reader thread ended: RuntimeError: boom"
        assert transport.is_open is False
    finally:
        transport.close()


class ClosingOnDown(Recorder):
    """A listener that closes its transport from the reader thread when the port goes."""

    transport: SerialTransport

    def link_down(self, error: TransportError) -> None:
        self.transport.close()
        super().link_down(error)


def test_a_listener_may_close_its_transport_from_the_reader_thread(device: DeviceEnd) -> None:
    recorder = ClosingOnDown()
    recorder.transport = SerialTransport(SerialSettings(str(device.port.path)), recorder)
    recorder.transport.start()
    recorder.next("up")
    device.port.unplug()
    assert isinstance(recorder.next("down"), TransportError)  # close() returned at once


class TickBug(Recorder):
    """A listener whose tick handler fails once."""

    failed = False

    def link_tick(self) -> None:
        super().link_tick()
        if not self.failed:
            self.failed = True
            raise RuntimeError("driver bug")


def test_a_failing_tick_does_not_kill_the_reader(device: DeviceEnd) -> None:
    recorder = TickBug()
    transport = SerialTransport(SerialSettings(str(device.port.path)), recorder)
    transport.start()
    try:
        recorder.next("up")
        deadline = time.monotonic() + WAIT
        while recorder.ticks < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert recorder.failed and recorder.ticks >= 3
        device.port.write(b"still")
        assert recorder.read_exactly(5) == b"still"
    finally:
        transport.close()


def test_an_idle_link_keeps_its_port_open_between_reads(device: DeviceEnd) -> None:
    # Reads that return empty before the listener's deadline are no reason to reopen.
    listener = Paced(3600.0)
    transport = SerialTransport(SerialSettings(str(device.port.path)), listener)
    transport.start()
    try:
        listener.next("up")
        listener.next("tick")
        device.port.write(b"a")
        assert listener.read_exactly(1) == b"a"
        time_to_pass = time.monotonic() + 0.6  # a read of half a second comes back empty
        while time.monotonic() < time_to_pass:
            time.sleep(0.05)
        device.port.write(b"b")
        assert listener.read_exactly(1) == b"b"  # no "up" (a reopened port) in between
    finally:
        transport.close()


def test_a_write_into_a_full_buffer_waits_for_room_and_loses_no_byte(device: DeviceEnd) -> None:
    # The device stops reading until the tty's buffer is full, then reads again: a frame
    # written meanwhile goes out whole, after what was already queued.
    recorder = Recorder()
    transport = SerialTransport(SerialSettings(str(device.port.path)), recorder)
    transport.start()
    try:
        recorder.next("up")
        device.port.stall(True)
        # Fill the buffer through a descriptor of our own (root passes TIOCEXCL).
        filler = os.open(os.path.realpath(device.port.path), os.O_WRONLY | os.O_NOCTTY)
        os.set_blocking(filler, False)
        # To the last byte, and again until a round takes nothing: the kernel moves what
        # was written on to the other end's buffer a moment later, making room again.
        queued, before = 0, -1
        try:
            while queued != before:
                before = queued
                for chunk in (1024, 1):
                    with contextlib.suppress(BlockingIOError):
                        while True:
                            queued += os.write(filler, b"\x00" * chunk)
                threading.Event().wait(0.05)
        finally:
            os.close(filler)
        resume = threading.Timer(0.2, device.port.stall, (False,))
        resume.start()
        try:
            transport.write(b"FRAME")  # the buffer is full: this waits for room
        finally:
            resume.join()
        assert device.read_exactly(queued + 5)[queued:] == b"FRAME"
    finally:
        transport.close()


def test_a_closed_transport_tells_its_listener_nothing_more(device: DeviceEnd) -> None:
    # Closing is the station's own doing: no "down" follows it (the journal would show a
    # device lost at every shutdown).
    recorder = Recorder()
    transport = SerialTransport(SerialSettings(str(device.port.path)), recorder)
    transport.start()
    recorder.next("up")
    transport.close()  # returns once the reader has ended: all it said is queued
    assert recorder.events.empty()


def test_after_a_reconnect_request_the_port_goes_down_before_any_more_bytes(
    device: DeviceEnd,
) -> None:
    # The driver asks for a reconnect when its protocol finds the peer dead: what the device
    # sends after that belongs to the next session, so the listener hears the port go down
    # first, however long the read was to wait (here up to half a second, its cap).
    listener = Paced(3600.0)
    with opened(device, listener) as transport:
        listener.next("tick")
        transport.reconnect("peer silent")
        device.port.write(b"late")
        heard = [listener.events.get(timeout=WAIT)]
        while heard[-1][0] == "tick":
            heard.append(listener.events.get(timeout=WAIT))
        assert heard[-1][0] == "down" and str(heard[-1][1]) == "peer silent", heard


class Parking(Recorder):
    """A listener that parks the reader thread in its next tick while ``hold`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.hold = threading.Event()
        self.parked = threading.Event()
        self.release = threading.Event()

    def link_tick(self) -> None:
        super().link_tick()
        if self.hold.is_set():
            self.parked.set()
            self.release.wait(WAIT)


def test_a_write_to_a_port_whose_device_went_away_says_why_it_failed(device: DeviceEnd) -> None:
    # The cable is pulled while the reader thread is busy elsewhere: the write itself finds
    # the hung-up tty (EIO), and the technician reads which port failed and how.
    listener = Parking()
    with opened(device, listener) as transport:
        listener.hold.set()
        assert listener.parked.wait(WAIT)
        device.port.unplug()
        with pytest.raises(TransportError) as failed:
            transport.write(b"\x55")
        assert str(failed.value) == (
            f"{device.port.path}: write failed: [Errno 5] Input/output error"
        )
        listener.release.set()
        assert str(listener.next("down")) == str(failed.value)


def test_a_read_that_fails_names_the_port_and_the_error(device: DeviceEnd) -> None:
    # A cable pulled inside a read reaches the reader as the read's own error (EIO), not as
    # an empty read: the technician reads which port was lost and how. The EIO is made
    # certain here: while the reader is parked, the port's descriptor becomes (dup2) a pty
    # master whose other end is closed, which reads EIO every time.
    listener = Parking()
    with opened(device, listener) as transport:
        listener.hold.set()
        assert listener.parked.wait(WAIT)
        port = transport._port
        assert port is not None and port.fd is not None
        master, slave = os.openpty()
        os.close(slave)
        try:
            os.dup2(master, port.fd)
        finally:
            os.close(master)
        listener.hold.clear()
        listener.release.set()
        assert str(listener.next("down")) == (
            f"{device.port.path}: lost: [Errno 5] Input/output error"
        )


def test_close_returns_when_the_reader_cannot_be_woken(device: DeviceEnd) -> None:
    # pyserial's own close (the reader's, after a loss) closes the port's wake-up pipe before
    # it marks the port closed: a close() of the station's landing in between finds the
    # wake-up write failing (EBADF). The close still returns and the reader still ends (at
    # its next read's end). The failing write is made certain here: the pipe's write end
    # becomes (dup2) a read-only descriptor, its pipe kept open by a copy.
    recorder = Recorder()
    transport = SerialTransport(SerialSettings(str(device.port.path)), recorder)
    transport.start()
    recorder.next("up")
    port = transport._port
    assert port is not None and port.pipe_abort_read_w is not None
    keep = os.dup(port.pipe_abort_read_w)
    read_only = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(read_only, port.pipe_abort_read_w)
        transport.close()
    finally:
        os.close(read_only)
        os.close(keep)
    assert transport.is_open is False
    assert recorder.events.empty()
