"""Serial transport on pyserial for the shuffler and the shoe (USB-serial, 115200 8N1).

The port is opened exclusively at the kernel level: ``TIOCEXCL`` makes any further
``open()`` of the tty fail with EBUSY while the station holds it (for every process but
root's), so another process in the ``dialout`` group can neither read the device's bytes
nor write to it; pyserial's advisory ``flock`` is kept too. Reads wait at most one tick,
writes give up after a timeout instead of blocking the caller, and an unplugged adapter is
reported and reopened with backoff. Configure the port by its stable udev path
(``/dev/serial/by-id/...``), not ``/dev/ttyUSB0``, whose number changes on replug.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import termios
from dataclasses import dataclass

import serial

from drivers.errors import (
    DeviceNotFoundError,
    DriverConfigError,
    LinkWriteTimeoutError,
    TransportError,
)
from drivers.transport import Backoff, LinkListener, ThreadedTransport

#: The most one read takes from the port (a burst of frames fits many times over).
_READ_CHUNK = 4096


@dataclass(frozen=True, slots=True)
class SerialSettings:
    """Where a serial device is and how to talk to it."""

    port: str
    baudrate: int = 115200
    # Seconds a write may take. pyserial checks it in wall time around the write, so a
    # thread that loses the CPU for a moment after a write that went through reports a
    # timeout: 2 s tolerates a loaded CPU and still catches a wedged adapter.
    write_timeout: float = 2.0
    exclusive: bool = True
    rtscts: bool = False  # hardware flow control, where the adapter wires RTS/CTS

    def __post_init__(self) -> None:
        if not self.port:
            raise DriverConfigError("serial port path is empty")
        if self.baudrate <= 0:
            raise DriverConfigError(f"baud rate must be positive, not {self.baudrate}")
        if self.write_timeout <= 0:
            raise DriverConfigError(f"write timeout must be positive, not {self.write_timeout}")


class SerialTransport(ThreadedTransport):
    """A serial port served by a reader thread; see :class:`ThreadedTransport`."""

    def __init__(
        self,
        settings: SerialSettings,
        listener: LinkListener,
        *,
        name: str | None = None,
        backoff: Backoff | None = None,
        tick_interval: float = 0.02,
    ) -> None:
        super().__init__(
            name=name or settings.port,
            listener=listener,
            backoff=backoff,
            tick_interval=tick_interval,
        )
        self.settings = settings
        self._port: serial.Serial | None = None

    def _open_port(self) -> str:
        path = self.settings.port
        port = serial.Serial(
            port=None,
            baudrate=self.settings.baudrate,
            bytesize=serial.EIGHTBITS,
            parity=serial.PARITY_NONE,
            stopbits=serial.STOPBITS_ONE,
            timeout=self._tick_interval,
            write_timeout=self.settings.write_timeout,
            exclusive=self.settings.exclusive,
            rtscts=self.settings.rtscts,
        )
        port.port = path
        try:
            port.open()
        except (serial.SerialException, OSError) as err:
            if not os.path.exists(path):
                raise DeviceNotFoundError(f"{path}: no such serial port") from err
            raise TransportError(f"{path}: cannot open: {err}") from err
        except ValueError as err:  # a NUL byte in the path: no such port can exist
            raise DeviceNotFoundError(f"{path!r}: not a usable port path: {err}") from err
        if self.settings.exclusive:
            try:
                fcntl.ioctl(port.fileno(), termios.TIOCEXCL)
            except OSError as err:
                with contextlib.suppress(serial.SerialException, OSError):
                    port.close()
                raise TransportError(f"{path}: cannot take the port exclusively: {err}") from err
        self._port = port
        return path

    def _read_port(self, timeout: float) -> bytes:
        port = self._port
        if port is None:
            raise TransportError(f"{self.name}: port is closed")
        try:
            # One wait for the whole burst: select on the port and pyserial's abort pipe
            # (which cancel_read() writes), then one read of whatever is there. pyserial's
            # read(1) + in_waiting + read(n) made two selects, two reads and an ioctl per
            # burst (~9 us of a link thread's CPU for each of ~100 bursts a round).
            fd, abort = port.fd, port.pipe_abort_read_r
            if fd is None or abort is None:
                raise TransportError(f"{self.settings.port}: lost: the port was closed")
            ready, _, _ = select.select([fd, abort], [], [], timeout)
            if abort in ready:
                os.read(abort, 1000)
                return b""
            if not ready:
                return b""
            data = os.read(fd, _READ_CHUNK)
        except BlockingIOError:
            return b""  # readable a moment ago, drained since: nothing lost
        except (serial.SerialException, OSError, TypeError, ValueError) as err:
            # TypeError/ValueError: a None or closed fd when the port vanished mid-call.
            raise TransportError(f"{self.settings.port}: lost: {err}") from err
        if not data:
            # Readable but empty: a USB adapter pulled out (or the pty's other end gone).
            raise TransportError(f"{self.settings.port}: lost: the device returned no data")
        return data

    def _write_port(self, data: bytes) -> None:
        port = self._port
        if port is None:
            raise TransportError(f"{self.name}: port is closed")
        try:
            # Straight to the (non-blocking) descriptor: a frame fits the tty's buffer, so
            # this is one system call; pyserial's write would also wait in select() for
            # room after every write. Only a remainder goes through pyserial, which waits
            # for room up to the write timeout.
            fd = port.fd
            if fd is None:
                raise TransportError(f"{self.settings.port}: write failed: the port was closed")
            try:
                written = os.write(fd, data)
            except BlockingIOError:
                written = 0
            if written < len(data):
                port.write(data[written:])
        except serial.SerialTimeoutException as err:
            raise LinkWriteTimeoutError(
                f"{self.settings.port}: device took no data for {self.settings.write_timeout} s"
            ) from err
        except (serial.SerialException, OSError) as err:
            raise TransportError(f"{self.settings.port}: write failed: {err}") from err

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            # The exclusive flag outlives our descriptor while another one stays open (a
            # pty's other end): give it back, so that the next opener is not refused.
            with contextlib.suppress(serial.SerialException, OSError, ValueError, TypeError):
                fcntl.ioctl(port.fileno(), termios.TIOCNXCL)
            # Closing a port whose device is gone may fail: it is released either way.
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()

    def _interrupt(self) -> None:
        port = self._port
        if port is not None:
            # Not open any more: nothing to wake.
            with contextlib.suppress(serial.SerialException, OSError, AttributeError, TypeError):
                port.cancel_read()
