"""The device end of a simulated serial cable on a unix stream socket.

QEMU's ``-chardev socket`` carries the bytes of a guest's serial port (a ``usb-serial``
device the guest sees as an FTDI adapter, ``/dev/ttyUSB*``) over a unix socket on the host.
``SocketPort`` is the double's end of that socket, with the interface of
:class:`drivers.simulated.pty_port.PtyPort`, so a double runs unchanged on either.

``listen=True`` (the default): the double is the server. It binds ``path`` and serves one
connection at a time; when the peer goes away it waits for the next one (QEMU connects as
the client: ``-chardev socket,id=c,path=PATH,reconnect=1``). ``listen=False``: the double
is the client and connects to ``path`` (QEMU serves: ``server=on,wait=off``), retrying
every tick until the server is there, and again after the peer closes.

``unplug`` drops the connection and stops serving or connecting (the path disappears when
the double is the server); ``plug`` starts again. Bytes written while no peer is connected
are dropped, and so are bytes the peer does not take (a full socket buffer), as a UART's
FIFO would drop them: the protocol's CRC and retransmission handle the loss.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import threading
from collections.abc import Callable
from pathlib import Path

from drivers.simulated.line_noise import Manipulator


class SocketPort:
    """One end of a unix stream socket at ``path`` (see the module docstring)."""

    def __init__(
        self,
        path: Path,
        on_data: Callable[[bytes], object],
        *,
        on_tick: Callable[[], object] | None = None,
        manipulator: Manipulator | None = None,
        tick_interval: float = 0.01,
        listen: bool = True,
    ) -> None:
        self.path = path
        self.listen = listen
        self.manipulator = manipulator
        self._on_data = on_data
        self._on_tick = on_tick
        self._tick_interval = tick_interval
        self._lock = threading.Lock()
        self._plugged = False
        self._listener: socket.socket | None = None
        self._conn: socket.socket | None = None
        self._wake_r, self._wake_w = -1, -1
        self._thread: threading.Thread | None = None
        self._stalled = False
        self.bytes_written = 0
        self.connections = 0

    @property
    def plugged(self) -> bool:
        """Whether the port serves (or seeks) a peer."""
        return self._plugged

    @property
    def connected(self) -> bool:
        """Whether a peer is connected now."""
        return self._conn is not None

    def plug(self) -> None:
        """Start serving (or connecting to) ``path``; no-op when already plugged."""
        with self._lock:
            if self._plugged:
                return
            if self.listen:
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
                listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                listener.bind(str(self.path))
                listener.listen(1)
                self._listener = listener
            self._wake_r, self._wake_w = os.pipe()
            self._plugged = True
            self._thread = threading.Thread(
                target=self._loop, args=(self._wake_r,), name=f"sock-{self.path.name}", daemon=True
            )
            self._thread.start()

    def unplug(self) -> None:
        """Drop the peer and stop serving; the server's path disappears."""
        with self._lock:
            if not self._plugged:
                return
            self._plugged = False
            os.write(self._wake_w, b"x")
            thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(5.0)
        with self._lock:
            for sock in (self._conn, self._listener):
                if sock is not None:
                    sock.close()
            if self._listener is not None:
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
            self._conn = self._listener = None
            for fd in (self._wake_r, self._wake_w):
                if fd >= 0:
                    os.close(fd)
            self._wake_r = self._wake_w = -1

    def close(self) -> None:
        """Unplug for good; idempotent."""
        self.unplug()

    def stall(self, stalled: bool) -> None:
        """Stop (or resume) reading what the peer writes, like a wedged UART."""
        self._stalled = stalled

    def write(self, data: bytes) -> bool:
        """Send bytes to the peer through the manipulator; False when unplugged."""
        pieces = self.manipulator(data) if self.manipulator is not None else (data,)
        with self._lock:
            if not self._plugged:
                return False
            conn = self._conn
            if conn is None:
                return True  # nobody on the line: the bytes are lost
            for piece in pieces:
                with contextlib.suppress(BlockingIOError, BrokenPipeError, ConnectionResetError):
                    self.bytes_written += conn.send(piece, socket.MSG_DONTWAIT)
        return True

    # --- the thread -----------------------------------------------------------------------

    def _loop(self, wake: int) -> None:
        while True:
            conn = self._conn
            watched: list[int | socket.socket] = [wake]
            if conn is not None and not self._stalled:
                watched.append(conn)
            elif conn is None and self._listener is not None:
                watched.append(self._listener)
            ready, _, _ = select.select(watched, [], [], self._tick_interval)
            if wake in ready:
                return
            if conn is None:
                if self._listener is not None and self._listener in ready:
                    self._accept(self._listener)
                elif self._listener is None:
                    self._connect()
            elif conn in ready:
                self._receive(conn)
            if self._on_tick is not None:
                self._on_tick()

    def _accept(self, listener: socket.socket) -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        self._attach(conn)

    def _connect(self) -> None:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(str(self.path))
        except OSError:
            conn.close()  # no server yet: try again at the next tick
            return
        self._attach(conn)

    def _attach(self, conn: socket.socket) -> None:
        with self._lock:
            if not self._plugged:
                conn.close()
                return
            self._conn = conn
            self.connections += 1

    def _receive(self, conn: socket.socket) -> None:
        try:
            data = conn.recv(4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if data:
            self._on_data(data)
            return
        with self._lock:  # the peer went away: wait for (or seek) the next one
            if self._conn is conn:
                self._conn = None
            conn.close()
