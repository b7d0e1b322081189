"""The two channels between the station's process and the doubles-and-dealer process.

``controller.simulation.split`` runs the station in one process (A) and the serial device
doubles with the simulated dealer in another (B). Two channels join them:

* the *observation* socket (a socket pair), A -> B only: what the station's ``observer``
  hook saw, for the dealer's :class:`~controller.simulation.pacer.Pacer`, in batches:
  the *types* of the events handled, in order (never an event's fields: a
  ``HoleCardDealt`` carries a commitment, and nothing of a card leaves the station this
  way) and the public :class:`~controller.table.view.TableView` the station was left in;
  then a last word if the station's loop dies.
* the *control* pipe (``multiprocessing``), both ways: B says :class:`DoublesReady`
  (where its ptys are), :class:`DealingStarted`, :class:`ReaderCall` (what only A can do:
  the card reader double sits on A's in-process USB bus, so sliding the hole card in is a
  call, answered by :class:`ReaderAnswer` once the reader holds it) and
  :class:`DealingDone`; A says :class:`CloseDoubles` once its station has stopped.

:class:`ObservationRelay` is the station's observer in A and never blocks the station's
loop. Events handled while more wait in the station's queue only join the pending batch;
the batch goes out when the station is idle (its queue empty: the only moment the dealer
may act), written by the station's thread itself when the socket takes it at once. When
B is slow to read, the rest of the frame waits for the relay's own thread
(``observer-relay``) and meanwhile the station only adds to the pending batch, which keeps
every event type in order (the pacer counts them) and only the latest view
(drop-to-latest: the dealer acts on the table as it is, never on a view the station has
left). So at most one frame is in flight and one batch pending, and a batch is bounded by
what the dealer's own actions cause: the dealer waits for it before acting again.
"""

from __future__ import annotations

import pickle
import select
import socket
import struct
import threading
from dataclasses import dataclass, field
from typing import Any

from controller.simulation.dealing import SimulationResult
from controller.simulation.pacer import Pacer, SimulationStuckError
from controller.table.view import TableView, view_record
from drivers.hal import DeviceEvent, DeviceLost


@dataclass(frozen=True, slots=True)
class DoublesReady:
    """B serves its doubles: kind -> pty path."""

    ports: dict[str, str]


@dataclass(frozen=True, slots=True)
class DealingStarted:
    """The dealer got its first view: the measured part of the run begins."""


@dataclass(frozen=True, slots=True)
class ReaderCall:
    """B asks A to act on the card reader double (``controller.simulation.table_side.RigSide``
    method and arguments; a hole card goes as its text)."""

    name: str
    args: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class ReaderAnswer:
    """What the reader call returned."""

    value: Any


@dataclass(frozen=True, slots=True)
class DealingDone:
    """The dealer is done (``error``: what stopped it early, one line), with B's CPU seconds
    while dealing, by thread name, and the panel board's lamp frames."""

    result: SimulationResult
    error: str | None = None
    cpu_seconds: float = 0.0
    thread_seconds: dict[str, float] = field(default_factory=dict)
    lamp_frames: int = 0


@dataclass(frozen=True, slots=True)
class CloseDoubles:
    """A's station has stopped: B may close its doubles and exit."""


#: The observation pipe's framing: a 4-byte big-endian length, then a pickle of
#: ``("observed", kinds, view_record or None, idle)`` or ``("stopped", error)``.
_LENGTH = struct.Struct("!I")


def _frame(message: tuple[Any, ...]) -> bytes:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _LENGTH.pack(len(payload)) + payload


class ObservationRelay:
    """The station's observer in A (see the module docstring); close it when done.

    ``sock``: A's end of a socket pair. The station's thread writes a batch itself when the
    socket takes it at once (no thread switch on the common path); when it does not (B is
    slow to read), the rest waits for the ``observer-relay`` thread and, until it is out,
    the station only adds to the pending batch. The view travels as
    :func:`~controller.table.view.view_record` (a third of the cost of pickling the
    dataclasses).
    """

    def __init__(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        self._sock = sock
        self._cond = threading.Condition()
        self._kinds: list[type] = []
        self._view: TableView | None = None
        self._unsent = b""  # the part of a frame the socket did not take yet
        self._ready = False  # the pending batch ends on an idle station: send it
        self._closing = False
        self._broken = False
        self.device_lost = threading.Event()  # the station handled a DeviceLost
        self.sent = 0  # batches sent
        self.deferred = 0  # batches the socket did not take at once
        self._thread = threading.Thread(target=self._drain, name="observer-relay", daemon=True)
        self._thread.start()

    def observe(self, event: DeviceEvent, view: TableView | None, idle: bool) -> None:
        """The station's ``observer`` hook: never blocks on the socket."""
        kind = type(event)
        if kind is DeviceLost:
            self.device_lost.set()
        with self._cond:
            self._kinds.append(kind)
            if view is not None:
                self._view = view  # drop-to-latest: only the newest view is kept
            if not (idle and view is not None):
                self._ready = False
                return
            self._ready = True
            if self._unsent or self._broken:
                self.deferred += 1
                self._cond.notify()  # the relay's thread sends it after what is queued
                return
            self._send_pending()
            if self._unsent:
                self._cond.notify()

    def _send_pending(self) -> None:
        """Frame the pending batch and write what the socket takes (lock held)."""
        view = self._view
        frame = _frame(
            ("observed", tuple(self._kinds), None if view is None else view_record(view), True)
        )
        self._kinds.clear()
        self._view, self._ready = None, False
        self.sent += 1
        self._write(frame)

    def _write(self, frame: bytes) -> None:
        try:
            taken = self._sock.send(frame)
        except BlockingIOError:
            taken = 0
        except OSError:
            self._broken = True  # B has gone: the station sees its devices lost
            return
        self._unsent = frame[taken:]

    def fail(self, error: BaseException) -> None:
        """The station's loop died of ``error``: B's pacer raises it."""
        text = f"{type(error).__name__}: {error}".splitlines()[0]
        with self._cond:
            self._kinds.clear()
            self._unsent += _frame(("stopped", text))
            self._cond.notify()

    def _drain(self) -> None:
        """The relay's thread: writes what the socket did not take at once."""
        while True:
            with self._cond:
                self._cond.wait_for(
                    lambda: self._broken or self._closing or bool(self._unsent) or self._ready
                )
                if self._broken or (self._closing and not self._unsent):
                    return
                if not self._unsent and self._ready:
                    self._send_pending()
                    continue
            select.select([], [self._sock], [], 1.0)  # room in the socket, or look again
            with self._cond:
                self._write(self._unsent)

    def close(self) -> None:
        """Send what is queued (5 s at most), stop the thread, close the socket; idempotent."""
        with self._cond:
            self._closing = True
            self._cond.notify()
        self._thread.join(timeout=5.0)
        self._sock.close()


class ObservationFeed:
    """In B: feeds the dealer's pacer from the observation socket. No thread of its own:
    it is the pacer's pump (:attr:`Pacer.pump`), so the dealer's thread reads the socket
    while it waits and a batch costs no thread switch. The pacer fails when the station
    stops or A goes away."""

    def __init__(self, sock: socket.socket, pacer: Pacer) -> None:
        self._sock = sock
        self._pacer = pacer
        self._buffer = bytearray()
        self._ended = False
        pacer.pump = self.pump

    def pump(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for frames; hand every whole one to the pacer."""
        if self._ended:
            return
        readable, _, _ = select.select([self._sock], [], [], timeout)
        if not readable:
            return
        try:
            data = self._sock.recv(1 << 16)
        except OSError:
            data = b""
        if not data:
            self._end(SimulationStuckError("the station's process closed its end"))
            return
        buffer = self._buffer
        buffer += data
        while len(buffer) >= _LENGTH.size:
            (size,) = _LENGTH.unpack_from(buffer)
            end = _LENGTH.size + size
            if len(buffer) < end:
                break
            message = pickle.loads(buffer[_LENGTH.size : end])
            del buffer[:end]
            if message[0] == "observed":
                _, kinds, record, idle = message
                self._pacer.observe_record(kinds, record, idle)
            else:
                self._end(SimulationStuckError(f"the station stopped: {message[1]}"))
                return

    def _end(self, error: BaseException) -> None:
        self._ended = True
        self._pacer.fail(error)

    def close(self) -> None:
        """Close this end of the socket."""
        self._sock.close()
