"""The device end of a simulated serial cable: a real pseudo-terminal behind a stable path.

The real driver opens ``PtyPort.path`` with pyserial, exactly as it would open
``/dev/serial/by-id/usb-...``: a symlink that udev points at the current ``/dev/pts/N``.
``unplug`` closes the master (the driver's read fails as on a real USB-serial unplug) and
removes the symlink; ``plug`` opens a new pty and points the symlink at it.

Bytes the double writes go through an optional manipulator (:mod:`line_noise`) before the
kernel sees them. A reader thread hands bytes from the driver to ``on_data`` and calls
``on_tick`` so the double can run its protocol timers: when the wait ``on_data`` or
``on_tick`` last returned (seconds until its next deadline) has passed, or every
``tick_interval`` seconds if they return None.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path

from drivers.simulated.line_noise import Manipulator

#: The shortest and longest waits for bytes between two ticks: a deadline already passed
#: costs a wake-up a millisecond, not a spinning thread; ``stall`` (set from another
#: thread) takes effect within the longest.
_MIN_WAIT = 0.001
_MAX_WAIT = 0.5


class PtyPort:
    """A pty pair whose slave is reachable at ``path`` while plugged in."""

    def __init__(
        self,
        path: Path,
        on_data: Callable[[bytes], float | None],
        *,
        on_tick: Callable[[], float | None] | None = None,
        manipulator: Manipulator | None = None,
        tick_interval: float = 0.01,
    ) -> None:
        self.path = path
        self.manipulator = manipulator
        self._on_data = on_data
        self._on_tick = on_tick
        self._tick_interval = tick_interval
        self._lock = threading.Lock()
        self._master: int | None = None
        self._slave: int | None = None
        self._wake_r, self._wake_w = -1, -1
        self._thread: threading.Thread | None = None
        self.bytes_written = 0
        self._stalled = False

    @property
    def plugged(self) -> bool:
        """Whether the cable is plugged in (the path exists)."""
        return self._master is not None

    def plug(self) -> None:
        """Open a fresh pty and publish it at ``path``; no-op when already plugged."""
        with self._lock:
            if self._master is not None:
                return
            master, slave = os.openpty()
            # Raw at once: a cooked tty echoes and rewrites bytes (docs/pitfalls.md).
            tty.setraw(slave)
            os.set_blocking(master, False)
            # The double keeps the slave open so reads on the master never see EIO
            # while the driver is between opens.
            self._master, self._slave = master, slave
            self._wake_r, self._wake_w = os.pipe()
            tmp = self.path.with_name(self.path.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            tmp.symlink_to(os.ttyname(slave))
            tmp.replace(self.path)
            self._thread = threading.Thread(
                target=self._read_loop,
                args=(master, self._wake_r),
                name=f"pty-{self.path.name}",
                daemon=True,
            )
            self._thread.start()

    def unplug(self) -> None:
        """Pull the cable: the path disappears and the driver's port breaks."""
        with self._lock:
            if self._master is None:
                return
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            os.write(self._wake_w, b"x")
            thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(5.0)
        with self._lock:
            for fd in (self._master, self._slave, self._wake_r, self._wake_w):
                if fd is not None and fd >= 0:
                    os.close(fd)
            self._master = self._slave = None
            self._wake_r = self._wake_w = -1

    def close(self) -> None:
        """Unplug for good; idempotent."""
        self.unplug()

    def stall(self, stalled: bool) -> None:
        """Stop (or resume) draining what the driver writes, like a wedged UART: the
        kernel buffer fills and the driver's writes time out."""
        self._stalled = stalled

    def write(self, data: bytes) -> bool:
        """Send bytes to the driver through the manipulator; False when unplugged.

        Bytes the kernel cannot take (the driver is not reading) are dropped, as a UART's
        FIFO would drop them.
        """
        pieces = self.manipulator(data) if self.manipulator is not None else (data,)
        with self._lock:
            master = self._master
            if master is None:
                return False
            for piece in pieces:
                try:
                    os.write(master, piece)
                    self.bytes_written += len(piece)
                except BlockingIOError:
                    pass
                except OSError as err:
                    if err.errno != errno.EIO:
                        raise
        return True

    def _read_loop(self, master: int, wake: int) -> None:
        # on_tick runs when the double's next deadline comes (a held ACK, a retransmit, a
        # delayed reply), not after every burst: receive already acted on the bytes (one
        # call chain less for each of ~25 bursts a round); and an idle double sleeps
        # until its deadline instead of waking every tick.
        interval, on_data, on_tick = self._tick_interval, self._on_data, self._on_tick
        monotonic = time.monotonic
        tick_at = 0.0
        while True:
            watched = [wake] if self._stalled else [master, wake]
            wait = tick_at - monotonic()
            timeout = _MAX_WAIT if wait > _MAX_WAIT else _MIN_WAIT if wait < _MIN_WAIT else wait
            ready, _, _ = select.select(watched, [], [], timeout)
            if wake in ready:
                return
            if master in ready and not self._stalled:
                try:
                    data = os.read(master, 4096)
                except BlockingIOError:
                    data = b""
                except OSError as err:
                    # EIO: no slave fd open at this instant; the driver will reopen.
                    if err.errno != errno.EIO:
                        raise
                    data = b""
                if data:
                    due = on_data(data)
                    if due is not None:
                        tick_at = monotonic() + due
            now = monotonic()
            if now >= tick_at:
                due = on_tick() if on_tick is not None else None
                tick_at = now + (interval if due is None else due)
