"""The simulated table: the real daemon, real drivers and transports, the device doubles,
and a simulated dealer (with players and supervisor) who acts on the doubles.

The station runs its main loop in its own thread, exactly as the daemon does; the dealer
(``controller.simulation.dealing``) works from the main thread. A :class:`Pacer` keeps the
two in step: the dealer acts on a view only once every event its last actions caused has
been handled and nothing else is in flight, so a seed gives the same table, event for
event, every time. ``controller.simulation.split`` runs the same dealer with the doubles
in a process of their own.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.journal.seal import new_sealing, save_state
from controller.rules.profiles import get_profile
from controller.service import config as cfg
from controller.service.daemon import Built, build_station, simulated_drivers
from controller.simulation.dealing import (
    COVER_FROM_END,
    Dealing,
    DealingPlan,
    SimulationResult,
    strategy_players,
)
from controller.simulation.pacer import STUCK_SECONDS, Pacer, SimulationStuckError
from controller.simulation.table_side import RigSide, TableSide
from controller.table.view import TableView
from drivers.hal import Button


@dataclass
class SimulationSettings:
    """What ``dealer-station simulate`` was asked for."""

    profile: str = "PA"
    decks: int = 6
    seats: int = 7
    rounds: int = 100
    seed: int = 1
    faults: float = 0.0
    journal: Path = Path("simulation.sqlite3")
    delay: float = 0.0  # seconds between the dealer's actions (0: as fast as possible)
    table_id: str = "SIM-1"
    #: The shoe and the panel board as the C reference firmware: "host" (host builds) or
    #: "qemu" (Cortex-M images on emulated boards); None: the Python doubles.
    firmware: str | None = None


def simulation_config(s: SimulationSettings) -> cfg.StationConfig:
    """A station configuration for the simulated rig (devices come from the rig)."""
    return cfg.StationConfig(
        source=Path("<simulate>"),
        table_id=s.table_id,
        profile=get_profile(s.profile),
        decks=s.decks,
        # Every option the profile's own: Match the Dealer where it offers the wager, with
        # the pay table of its deck count.
        options=cfg.Options(),
        # The rig has every device: a card reader too, so PA and NY peek (a NY table
        # without one would not: controller.service.config_rules).
        devices=cfg.simulated_devices(),
        journal=cfg.JournalSettings(s.journal, sealing_path(s.journal)),
        logging=cfg.LoggingSettings(),
    )


def sealing_path(journal: Path) -> Path:
    """The simulation's sealing state, beside its journal (never the station's own key)."""
    return journal.with_name(journal.name + "-sealing-key")


def verification_key_path(journal: Path) -> Path:
    """Where a simulation leaves its verification key (``journal verify --key @FILE``)."""
    return journal.with_name(journal.name + "-verification-key")


def new_simulation_keys(s: SimulationSettings) -> None:
    """A fresh sealing state for a new simulation journal, its verification key beside it."""
    state, key = new_sealing(s.table_id)
    save_state(sealing_path(s.journal), state)
    verification_key_path(s.journal).write_text(key.to_text() + "\n", encoding="ascii")


class SimulatedTable:
    """Runs one simulation in this process; see the module docstring."""

    def __init__(
        self, settings: SimulationSettings, on_view: Callable[[TableView], None] | None = None
    ) -> None:
        self.settings = settings
        self.on_view = on_view
        self.pacer = Pacer()
        self.result = SimulationResult(0, 0.0)

    def run(self) -> SimulationResult:
        """Play the rounds; the journal is closed when this returns."""
        s = self.settings
        config = simulation_config(s)
        if not s.journal.exists():
            new_simulation_keys(s)
        started = time.perf_counter()
        with simulated_drivers(config, seed=s.seed, firmware=s.firmware) as drivers_for:
            self.rig = drivers_for.rig
            # A seed repeats the journal byte for byte apart from timestamps and the hole
            # cards' commitments and nonces: the shoe draws those from `secrets`,
            # or anyone with the seed could open each commitment before the reveal.
            built = build_station(config, drivers_for, observer=self.pacer.observe)
            self.table_profile = built.table.t.profile
            side = self.table_side(self.rig)
            dealing = Dealing(dealing_plan(s), self.table_profile, side, self.pacer, self.on_view)
            self.dealing = dealing  # a watcher may change the plan as it goes (a test rig)
            self.result = dealing.result
            station = StationThread(built, self.pacer.fail)
            dealing.expect_start()
            station.start()
            try:
                dealing.deal()
            finally:
                station.stop()
        self.result.seconds = time.perf_counter() - started
        return self.result

    def table_side(self, rig: Any) -> TableSide:
        """What the dealer's hands act on: the rig (a subclass may watch or alter it)."""
        return RigSide(rig)


class StationThread:
    """The station's main loop in a thread named ``station``, as the daemon runs it; the
    journal is closed when the loop ends. ``on_failure`` hears what the loop died of."""

    def __init__(self, built: Built, on_failure: Callable[[BaseException], None]) -> None:
        self.built = built
        self.on_failure = on_failure
        self._errors: queue.Queue[BaseException] = queue.Queue()
        self.thread = threading.Thread(target=self._serve, name="station", daemon=True)

    def _serve(self) -> None:
        try:
            self.built.station.run()
        except BaseException as err:  # handed to whoever stops the thread
            self._errors.put(err)
            self.on_failure(err)
        finally:
            self.built.journal.close()

    def start(self) -> None:
        """Start the station's loop."""
        self.thread.start()

    def stop(self) -> None:
        """Stop the loop and wait for it (``STUCK_SECONDS`` at most).

        Raises:
            BaseException: what the loop died of, if it did.
        """
        self.built.station.stop()
        self.thread.join(timeout=STUCK_SECONDS)
        if not self._errors.empty():
            raise self._errors.get()


def dealing_plan(s: SimulationSettings) -> DealingPlan:
    """The dealer's part of the settings."""
    return DealingPlan(s.decks, s.seats, s.rounds, s.seed, s.faults, s.delay)


__all__ = [
    "COVER_FROM_END",
    "Button",
    "Pacer",
    "SimulatedTable",
    "SimulationResult",
    "SimulationSettings",
    "SimulationStuckError",
    "simulated_drivers",  # what SimulatedTable.run builds its drivers with (a bench wraps it)
    "strategy_players",
]
