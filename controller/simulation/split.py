"""The simulated table with the device doubles and the dealer in a process of their own.

:class:`SplitTable` plays the same rounds as :class:`~controller.simulation.runner.
SimulatedTable` (same seed, same round script, same decisions: the same journal apart from
timestamps and the hole cards' commitments and nonces), in two processes, as a real table
is built:

* **A, the station** (the calling process): the journal and ``build_station`` exactly as
  the in-process table builds them, the real drivers opening the served ptys, and the
  card reader double. The reader stays here because the station reaches it through an
  in-process pyusb backend (``drivers.simulated.served_rig``); its thread
  (``reader-double``) is device work counted apart from the station's.
* **B, the doubles and the dealer** (``python -m controller.simulation.split_doubles``,
  a fresh interpreter, never a fork of this threaded process): the doubles of the
  registry's serial devices (the shuffler, shoe and panel board) on pseudo-terminals (the
  rig's own classes), the pacer and the shared dealing loop.

The station's ``observer`` hook sends what the pacer needs over a pipe
(``controller.simulation.split_link``: event types in batches, the public view when the
station is idle, never blocking the station); B asks A for the one thing only A can do,
slide the hole card into the reader (and the reader faults).

If B dies (killed, crashed), its ptys close: the station's drivers report the devices
lost and the station faults, as at a real table. :meth:`SplitTable.run` then waits
(``STUCK_SECONDS`` at most) for the station to have handled that ``DeviceLost``, stops it
and raises :class:`DoublesProcessDiedError`.
"""

from __future__ import annotations

import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from controller.rules.cards import parse_card
from controller.service.daemon import build_station, rig_drivers, station_profile
from controller.simulation.dealing import SimulationResult
from controller.simulation.pacer import STUCK_SECONDS, SimulationStuckError
from controller.simulation.runner import (
    SimulationSettings,
    StationThread,
    dealing_plan,
    new_simulation_keys,
    simulation_config,
)
from controller.simulation.split_doubles import (
    SEED_OFFSETS,
    DoublesSetup,
    process_seconds,
    thread_seconds,
)
from controller.simulation.split_link import (
    CloseDoubles,
    DealingDone,
    DealingStarted,
    DoublesReady,
    ObservationRelay,
    ReaderAnswer,
    ReaderCall,
)
from controller.simulation.table_side import RigSide
from controller.table.view import TableView
from drivers.hal import DeviceEvent
from drivers.simulated.serve import DEFAULT_SERIALS, SERVED
from drivers.simulated.served_rig import ServedDouble, ServedRig

#: The reader calls B may make (``RigSide`` methods on the reader double here).
READER_CALLS = frozenset({"insert_hole_card", "wait_idle", "unplug", "plug", "misread"})


T = TypeVar("T")


def served_devices() -> str:
    """The devices the doubles' process serves, as the dealer names them: ``shuffler, shoe
    and panel board`` (each by its section of ``station.toml``)."""
    names = [spec.section.replace("_", " ") for spec in SERVED.values()]
    return " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else names[0]


class DoublesProcessDiedError(RuntimeError):
    """The doubles-and-dealer process ended before the dealer was done."""


@dataclass
class SplitCpu:
    """CPU seconds while dealing (from the dealer's first view to its last), per process
    and per thread name; ``lamp_frames``: what the panel board received."""

    station_process: float = 0.0
    station_threads: dict[str, float] = field(default_factory=dict)
    doubles_process: float = 0.0
    doubles_threads: dict[str, float] = field(default_factory=dict)
    lamp_frames: int = 0
    observation_batches: int = 0


class SplitTable:
    """Runs one simulation in two processes; see the module docstring.

    ``observer``, if given, also hears every event the station handles (in its thread,
    after the relay: a test uses it to act at a given point of a round).
    """

    def __init__(
        self,
        settings: SimulationSettings,
        observer: Callable[[DeviceEvent, TableView | None, bool], None] | None = None,
    ) -> None:
        self.settings = settings
        self.observer = observer
        self.result = SimulationResult(0, 0.0)
        self.cpu = SplitCpu()
        self.doubles_pid: int | None = None

    def run(self) -> SimulationResult:
        """Play the rounds; the journal is closed and B has exited when this returns.

        Raises:
            DoublesProcessDiedError: B ended early (the station faulted on its lost devices).
            SimulationStuckError: the dealer waited ``STUCK_SECONDS`` for the station.
        """
        s = self.settings
        config = simulation_config(s)
        if not s.journal.exists():
            new_simulation_keys(s)
        started = time.perf_counter()
        keys = {kind: secrets.token_bytes(32) for kind in SEED_OFFSETS}
        control_socket, control_b = socket.socketpair()
        observations, observed_b = socket.socketpair()
        control = Connection(control_socket.detach())
        with tempfile.TemporaryDirectory(prefix="dealer-split-") as directory:
            setup = DoublesSetup(dealing_plan(s), station_profile(config), Path(directory), keys)
            fds = (control_b.fileno(), observed_b.fileno())
            try:
                # A process of its own, started afresh (not forked from this threaded one).
                process = subprocess.Popen(
                    [sys.executable, "-m", "controller.simulation.split_doubles", *map(str, fds)],
                    pass_fds=fds,
                    stdin=subprocess.DEVNULL,
                )
            finally:
                control_b.close()
                observed_b.close()
            self.doubles_pid = process.pid
            try:
                self._send(control, process, setup)
                ready = self._next(control, process, DoublesReady)
                served = {
                    kind: ServedDouble(Path(path), DEFAULT_SERIALS[kind], keys[kind])
                    for kind, path in ready.ports.items()
                }
                with ServedRig(served, decks=s.decks, seed=s.seed) as rig:
                    self.rig = rig
                    self._play(config, rig, control, observations, process)
            finally:
                control.close()
                observations.close()
                try:
                    process.wait(timeout=STUCK_SECONDS)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=STUCK_SECONDS)
        self.result.seconds = time.perf_counter() - started
        return self.result

    def _play(
        self,
        config: Any,
        rig: ServedRig,
        control: Connection,
        observations: socket.socket,
        process: Any,
    ) -> None:
        relay = ObservationRelay(observations)
        extra = self.observer

        def observe(event: DeviceEvent, view: TableView | None, idle: bool) -> None:
            relay.observe(event, view, idle)
            if extra is not None:
                extra(event, view, idle)

        built = build_station(config, rig_drivers(rig), observer=observe)
        station = StationThread(built, relay.fail)
        station.start()
        try:
            done = self._serve(control, process, RigSide(rig))
        except DoublesProcessDiedError:
            # Its ptys closed with it: let the station see its devices lost and fault.
            relay.device_lost.wait(STUCK_SECONDS)
            raise
        finally:
            try:
                station.stop()
            finally:
                self.cpu.observation_batches = relay.sent
                relay.close()
        self._send(control, process, CloseDoubles())
        self.result = done.result
        self.cpu.doubles_process = done.cpu_seconds
        self.cpu.doubles_threads = done.thread_seconds
        self.cpu.lamp_frames = done.lamp_frames
        if done.error is not None:
            raise SimulationStuckError(f"the dealer stopped: {done.error}")

    def _serve(self, control: Connection, process: Any, side: RigSide) -> DealingDone:
        """Answer B's reader calls until the dealer is done."""
        start: tuple[float, dict[str, float]] | None = None
        while True:
            message = self._next(control, process, object)
            if isinstance(message, DealingStarted):
                start = (process_seconds(), thread_seconds())
            elif isinstance(message, ReaderCall) and message.name in READER_CALLS:
                args = message.args
                if message.name == "insert_hole_card":
                    args = (None if args[0] is None else parse_card(args[0]),)
                answer = ReaderAnswer(getattr(side, message.name)(*args))
                self._send(control, process, answer)
            elif isinstance(message, DealingDone):
                if start is not None:
                    self.cpu.station_process = process_seconds() - start[0]
                    self.cpu.station_threads = {
                        name: spent - start[1].get(name, 0.0)
                        for name, spent in thread_seconds().items()
                    }
                return message
            else:
                raise DoublesProcessDiedError(f"unexpected message {type(message).__name__}")

    def _send(self, control: Connection, process: Any, message: object) -> None:
        """Send ``message`` to B.

        Raises:
            DoublesProcessDiedError: B is gone (its end of the pipe closed).
        """
        try:
            control.send(message)
        except (OSError, EOFError):
            self._died(process)

    def _died(self, process: Any) -> NoReturn:
        """B has ended: say so, with what it means for the station.

        Raises:
            DoublesProcessDiedError: always.
        """
        try:
            code = process.wait(timeout=STUCK_SECONDS)
        except subprocess.TimeoutExpired:
            code = None
        raise DoublesProcessDiedError(
            f"the doubles-and-dealer process ended (exit code {code}): the station lost its"
            f" {served_devices()} with it"
        )

    def _next(self, control: Connection, process: Any, kind: type[T]) -> T:
        """The next message from B, of ``kind``.

        Raises:
            DoublesProcessDiedError: B exited (or said something else) first.
        """
        while not wait([control], timeout=STUCK_SECONDS):
            if process.poll() is not None:
                break
        else:
            try:
                message = control.recv()
            except (EOFError, OSError):
                pass  # B's end closed: B is gone
            else:
                if not isinstance(message, kind):
                    raise DoublesProcessDiedError(f"expected {kind.__name__}, got {message!r}")
                return message
        self._died(process)
