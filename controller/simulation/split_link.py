"""The two pipes between the station's process and the doubles-and-dealer process.

``controller.simulation.split`` runs the station in one process (A) and the serial device
doubles with the simulated dealer in another (B). Two ``multiprocessing`` pipes join them
(pickled messages, a length prefix each):

* the *observation* pipe, A -> B only: what the station's ``observer`` hook saw, for the
  dealer's :class:`~controller.simulation.pacer.Pacer`: batches of
  :class:`Observed` (event *types* only, never an event's fields: a ``HoleCardDealt``
  carries a commitment, and nothing of a card leaves the station this way; the public
  :class:`~controller.table.view.TableView` when the station is idle), then
  :class:`StationStopped` if the station's loop dies.
* the *control* pipe, both ways: B says :class:`DoublesReady` (where its ptys are),
  :class:`DealingStarted`, :class:`ReaderCall` (what only A can do: the card reader double
  sits on A's in-process USB bus, so sliding the hole card in is a call, answered by
  :class:`ReaderAnswer` once the reader holds it) and :class:`DealingDone`; A says
  :class:`CloseDoubles` once its station has stopped.

:class:`ObservationRelay` is the station's observer in A. It never blocks the station's
loop: it appends the event's type to a pending batch under a lock and, when the station
is idle (its queue empty: the only moment the dealer may act), wakes its own sender thread
(``observer-relay``), which sends the batch. While B is slow to read, the sender blocks,
not the station; the pending batch keeps every event type in order (the pacer counts
them) and only the latest view (drop-to-latest: the dealer acts on the table as it is, never
on a view the station has already left). A batch is bounded by what the dealer's own
actions cause, since the dealer waits for each batch before acting again.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from controller.simulation.dealing import SimulationResult
from controller.simulation.pacer import Pacer, SimulationStuckError
from controller.table.view import TableView
from drivers.hal import DeviceEvent, DeviceLost


@dataclass(frozen=True, slots=True)
class Observed:
    """Events the station handled, by type and in order; ``view`` and ``idle`` as its
    observer hook got them for the last one."""

    kinds: tuple[type, ...]
    view: TableView | None
    idle: bool


@dataclass(frozen=True, slots=True)
class StationStopped:
    """The station's loop died of ``error`` (one line)."""

    error: str


@dataclass(frozen=True, slots=True)
class DoublesReady:
    """B serves its doubles: kind -> pty path."""

    ports: dict[str, str]


@dataclass(frozen=True, slots=True)
class DealingStarted:
    """The dealer got its first view: the measured part of the run begins."""


@dataclass(frozen=True, slots=True)
class ReaderCall:
    """B asks A to act on the card reader double (``controller.simulation.dealing.RigSide``
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


class ObservationRelay:
    """The station's observer in A (see the module docstring); close it when done."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._cond = threading.Condition()
        self._kinds: list[type] = []
        self._view: TableView | None = None
        self._idle = False
        self._closing = False
        self._failure: str | None = None
        self.device_lost = threading.Event()  # the station handled a DeviceLost
        self.sent = 0  # batches sent
        self._thread = threading.Thread(target=self._send_loop, name="observer-relay", daemon=True)
        self._thread.start()

    def observe(self, event: DeviceEvent, view: TableView | None, idle: bool) -> None:
        """The station's ``observer`` hook: never blocks on the pipe."""
        kind = type(event)
        if kind is DeviceLost:
            self.device_lost.set()
        with self._cond:
            self._kinds.append(kind)
            if view is not None:
                self._view = view
            self._idle = idle and view is not None
            if self._idle:
                self._cond.notify()

    def fail(self, error: BaseException) -> None:
        """The station's loop died of ``error``: B's pacer raises it."""
        with self._cond:
            self._failure = f"{type(error).__name__}: {error}".splitlines()[0]
            self._cond.notify()

    def _send_loop(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(
                    lambda: self._closing or self._failure is not None or self._idle
                )
                batch = None
                if self._kinds:
                    batch = Observed(tuple(self._kinds), self._view, self._idle)
                    self._kinds.clear()
                    self._view, self._idle = None, False
                failure, closing = self._failure, self._closing
                self._failure = None
            try:
                if batch is not None:
                    self._conn.send(batch)
                    self.sent += 1
                if failure is not None:
                    self._conn.send(StationStopped(failure))
            except (OSError, ValueError):
                return  # B has gone: the station sees its devices lost
            if closing:
                return

    def close(self) -> None:
        """Send what is pending, stop the sender and close the pipe; idempotent."""
        with self._cond:
            self._closing = True
            self._cond.notify()
        self._thread.join(timeout=5.0)
        self._conn.close()


class ObservationFeed:
    """In B: feeds the dealer's pacer from the observation pipe, in a thread
    (``pacer-feed``); the pacer fails when the station stops or A goes away."""

    def __init__(self, conn: Connection, pacer: Pacer) -> None:
        self._conn = conn
        self._pacer = pacer
        self._thread = threading.Thread(target=self._run, name="pacer-feed", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        pacer = self._pacer
        try:
            while True:
                message = self._conn.recv()
                if isinstance(message, Observed):
                    pacer.observe_kinds(message.kinds, message.view, message.idle)
                elif isinstance(message, StationStopped):
                    pacer.fail(SimulationStuckError(f"the station stopped: {message.error}"))
                    return
        except (EOFError, OSError):
            pacer.fail(SimulationStuckError("the station's process closed its pipe"))

    def join(self, timeout: float) -> None:
        """Wait for the feed to end (after A closed its end)."""
        self._thread.join(timeout)
