"""Process B of the split simulated table: the serial device doubles and the dealer.

:func:`doubles_and_dealer` is the process's entry point: ``controller.simulation.split``
starts ``python -m controller.simulation.split_doubles CONTROL_FD OBSERVATION_FD`` with
its ends of two socket pairs, and sends the :class:`DoublesSetup` as the first message on
the control one. It serves the doubles of the registry's serial devices (the shuffler,
shoe and panel board) on pseudo-terminals (:func:`drivers.simulated.serve.start_doubles`: the same
classes as the in-process rig, already paired with the station's secrets), feeds a
:class:`~controller.simulation.pacer.Pacer` from the station's observations
(:class:`~controller.simulation.split_link.ObservationFeed`) and runs the shared dealing
loop (:class:`~controller.simulation.dealing.Dealing`) on a :class:`ServedSide`: the
doubles here act directly; the card reader, which lives in the station's process, is a
:class:`~controller.simulation.split_link.ReaderCall` away.
"""

from __future__ import annotations

import resource
import socket
import sys
import threading
import time
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Literal

from controller.rules.cards import Card
from controller.simulation.dealing import Dealing, DealingPlan
from controller.simulation.pacer import Pacer
from controller.simulation.split_link import (
    CloseDoubles,
    DealingDone,
    DealingStarted,
    DoublesReady,
    ObservationFeed,
    ReaderAnswer,
    ReaderCall,
)
from controller.simulation.table_side import Pluggable
from controller.table.view import TableView
from drivers.hal import Button, WagerSpot
from drivers.registry import seed_offset
from drivers.simulated.firmware import Holding
from drivers.simulated.panel import PanelDouble
from drivers.simulated.rig import SIMULATION_TIMING
from drivers.simulated.serve import SERVED, start_doubles
from drivers.simulated.serve_control import Doubles
from drivers.simulated.shoe import ShoeDouble

#: Each served double's own seed, as the in-process rig seeds it (offset from the run's):
#: every serial device of the registry is served here.
SEED_OFFSETS = {name: seed_offset(spec.kind) for name, spec in SERVED.items()}


class ServedSide:
    """The dealer's :class:`~controller.simulation.table_side.TableSide` in B."""

    def __init__(self, doubles: Doubles, control: Connection) -> None:
        shoe, panel = doubles.doubles["shoe"], doubles.doubles["panel"]
        assert isinstance(shoe, ShoeDouble) and isinstance(panel, PanelDouble)
        self.shoe, self.panel = shoe, panel
        self.control = control

    def _reader(self, name: str, *args: Any) -> Any:
        self.control.send(ReaderCall(name, args))
        answer = self.control.recv()
        if not isinstance(answer, ReaderAnswer):
            raise RuntimeError(f"expected the reader's answer, got {type(answer).__name__}")
        return answer.value

    def draw(self, hole: bool) -> Card | str | None:
        """See ``TableSide.draw``."""
        return self.shoe.deal(hole=hole)

    def draw_foreign(self, suit: str) -> None:
        """See ``TableSide.draw_foreign``."""
        self.shoe.deal_ten(suit)

    def press(self, button: Button) -> None:
        """See ``TableSide.press``."""
        self.panel.press(button)

    def turn_key(self, on: bool) -> None:
        """See ``TableSide.turn_key``."""
        self.panel.turn_key(on)

    def place_wager(self, seat: int, spot: WagerSpot, present: bool, cents: int | None) -> None:
        """See ``TableSide.place_wager``."""
        self.panel.place_wager(seat, spot, present, cents)

    def load_shoe(self, decks: int, seed: int, cover_at: int) -> None:
        """See ``TableSide.load_shoe``."""
        self.shoe.load_shuffled(decks, seed=seed, cover_at=cover_at)

    def insert_hole_card(self, card: Card | None) -> None:
        """See ``TableSide.insert_hole_card``: the physical card goes to the reader in the
        station's process (its text on the control pipe, never on a station link)."""
        self._reader("insert_hole_card", None if card is None else card.text)

    def wait_idle(self, device: Pluggable, timeout: float) -> bool:
        """See ``TableSide.wait_idle``."""
        if device == "shoe":
            return self.shoe.wait_idle(timeout)
        return bool(self._reader("wait_idle", device, timeout))

    def unplug(self, device: Pluggable) -> None:
        """See ``TableSide.unplug``."""
        if device == "shoe":
            self.shoe.unplug()
        else:
            self._reader("unplug", device)

    def plug(self, device: Pluggable) -> None:
        """See ``TableSide.plug``."""
        if device == "shoe":
            self.shoe.plug()
        else:
            self._reader("plug", device)

    def misread(self) -> None:
        """See ``TableSide.misread``."""
        self._reader("misread")

    def deliver(self, device: Literal["shoe", "panel"], timeout: float) -> bool:
        """See ``TableSide.deliver``."""
        return (self.shoe if device == "shoe" else self.panel).deliver(timeout)

    def holding(self) -> AbstractContextManager[None]:
        """See ``TableSide.holding``."""
        return Holding((self.shoe, self.panel))


def thread_seconds() -> dict[str, float]:
    """CPU seconds of each live thread of this process, by thread name (summed)."""
    seconds: dict[str, float] = {}
    for thread in threading.enumerate():
        if thread.ident is None:
            continue
        try:
            clock = time.pthread_getcpuclockid(thread.ident)
            spent = time.clock_gettime(clock)
        except OSError:  # the thread ended meanwhile
            continue
        seconds[thread.name] = seconds.get(thread.name, 0.0) + spent
    return seconds


def process_seconds() -> float:
    """CPU seconds (user + system) of this whole process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass(frozen=True)
class DoublesSetup:
    """What process B is started with: the dealer's plan, the station's profile (its
    strategy and deal order), where to put the ptys, and the pairing secrets the station's
    configuration holds for each served double."""

    plan: DealingPlan
    profile: Any
    directory: Path
    secrets: Mapping[str, bytes]


def doubles_and_dealer(
    setup: DoublesSetup, control: Connection, observations: socket.socket
) -> None:
    """Process B's entry point (see the module docstring)."""
    plan, directory = setup.plan, setup.directory
    endpoints = {kind: f"pty:{directory / kind}" for kind in SEED_OFFSETS}
    seeds = {kind: plan.seed + offset for kind, offset in SEED_OFFSETS.items()}
    doubles = start_doubles(endpoints, timing=SIMULATION_TIMING, secrets=setup.secrets, seeds=seeds)
    try:
        pacer = Pacer()
        feed = ObservationFeed(observations, pacer)
        started: list[tuple[float, dict[str, float]]] = []

        def first_view(_view: TableView) -> None:
            if not started:
                started.append((process_seconds(), thread_seconds()))
                control.send(DealingStarted())

        side = ServedSide(doubles, control)
        dealing = Dealing(plan, setup.profile, side, pacer, on_view=first_view)
        dealing.expect_start()
        control.send(DoublesReady({kind: str(directory / kind) for kind in SEED_OFFSETS}))
        error = None
        try:
            result = dealing.deal()
        except Exception as err:  # reported to A, which raises it
            result = dealing.result
            error = f"{type(err).__name__}: {err}".splitlines()[0]
        cpu, threads = process_seconds(), thread_seconds()
        if started:
            cpu -= started[0][0]
            threads = {k: v - started[0][1].get(k, 0.0) for k, v in threads.items()}
        panel = side.panel
        control.send(DealingDone(result, error, cpu, threads, panel.lamp_frames))
        # The doubles stay up until the station has stopped (no device lost at the end).
        while not isinstance(control.recv(), CloseDoubles):
            pass
        feed.close()
    except (EOFError, OSError):
        pass  # the station's process went away: nothing left to serve
    finally:
        doubles.close()


def main(argv: list[str]) -> int:
    """``python -m controller.simulation.split_doubles CONTROL_FD OBSERVATION_FD``."""
    control = Connection(int(argv[0]))
    observations = socket.socket(fileno=int(argv[1]))
    try:
        setup = control.recv()
    except EOFError:
        return 1  # the station's process went away before it said anything
    doubles_and_dealer(setup, control, observations)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
