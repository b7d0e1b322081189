"""The simulated table: the real daemon, real drivers and transports, the device doubles,
and a simulated dealer (with players and supervisor) who acts on the doubles.

The station runs its main loop in its own thread, exactly as the daemon does; the dealer
works from the main thread. A :class:`Pacer` keeps the two in step: the dealer acts on a
view only once every event its last actions caused has been handled and nothing else is
in flight, so a seed gives the same table, event for event, every time.
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.journal.seal import new_sealing, save_state
from controller.rules.cards import Card, parse_card
from controller.rules.profiles import DealerSecondCard
from controller.rules.steps import Decision
from controller.service import config as cfg
from controller.service.config_panel import PanelConfig
from controller.service.daemon import build_station, simulated_drivers
from controller.simulation.dealer import (
    Action,
    Draw,
    InsertHoleCard,
    LoadShoe,
    PlaceWager,
    Press,
    SimulatedDealer,
    TurnKey,
)
from controller.simulation.pacer import STUCK_SECONDS, Pacer, SimulationStuckError
from controller.simulation.strategy import choose
from controller.table.prompts import State
from controller.table.view import HandView, TableView
from drivers.hal import (
    Button,
    ButtonPressed,
    CardDrawn,
    CoverCardSeen,
    DeviceConnected,
    DeviceLost,
    ForeignCardDrawn,
    HoleCardDealt,
    HoleCardRevealed,
    PeekResult,
    SeatWagerChanged,
    ShoeLoaded,
    SupervisorKey,
)

COVER_FROM_END = 60  # the cover card sits this many cards before the end of the batch


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


@dataclass
class SimulationResult:
    """What happened, for the summary."""

    rounds: int
    seconds: float
    faults_injected: list[str] = field(default_factory=list)


def simulation_config(s: SimulationSettings) -> cfg.StationConfig:
    """A station configuration for the simulated rig (devices come from the rig)."""
    table = cfg.PayTable.A if s.decks == 6 else cfg.PayTable.B
    return cfg.StationConfig(
        source=Path("<simulate>"),
        table_id=s.table_id,
        profile=cfg.Profile(s.profile),
        decks=s.decks,
        options=cfg.Options(match_the_dealer=True, match_pay_table=table),
        # The rig has every device: a card reader too, so PA and NY peek (a NY table
        # without one would not: controller.service.config_rules).
        devices=cfg.Devices(
            shoe=cfg.SerialDevice(Path("/dev/null"), "simulated"),
            panel=PanelConfig({}, {}, 0, {}),
            shuffler=cfg.ShufflerDevice(Path("/dev/null"), "simulated"),
            card_reader=cfg.UsbDevice(0, 0, "simulated"),
        ),
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


def strategy_players(profile: Any) -> Callable[[HandView, str, frozenset[Decision]], Decision]:
    """Players who follow Spanish 21 basic strategy (``controller.simulation.strategy``)."""

    def chooser(hand: HandView, up: str, legal: frozenset[Decision]) -> Decision:
        cards = [parse_card(c) for c in hand.cards]
        return choose(cards, parse_card(up), legal, profile)

    return chooser


class SimulatedTable:
    """Runs one simulation; see the module docstring."""

    def __init__(
        self, settings: SimulationSettings, on_view: Callable[[TableView], None] | None = None
    ) -> None:
        self.settings = settings
        self.on_view = on_view
        self.rng = random.Random(settings.seed)
        self.pacer = Pacer()
        self.result = SimulationResult(0, 0.0)
        self._hole: Card | None = None

    def run(self) -> SimulationResult:
        """Play the rounds; the journal is closed when this returns."""
        s = self.settings
        config = simulation_config(s)
        if not s.journal.exists():
            new_simulation_keys(s)
        started = time.perf_counter()
        with simulated_drivers(config, seed=s.seed) as drivers_for:
            self.rig = drivers_for.rig
            # A seed repeats the journal byte for byte apart from timestamps and the hole
            # cards' commitments and nonces: the shoe draws those from `secrets` (issue 14),
            # or anyone with the seed could open each commitment before the reveal.
            built = build_station(config, drivers_for, observer=self.pacer.observe)
            self.table_profile = built.table.profile
            dealer = SimulatedDealer(
                tuple(range(1, s.seats + 1)),
                strategy_players(self.table_profile),
                self.rng,
                dealer_change_every=25,
            )
            station = built.station
            errors: queue.Queue[BaseException] = queue.Queue()

            def serve() -> None:
                try:
                    station.run()
                except BaseException as err:  # handed to the main thread
                    errors.put(err)
                    self.pacer.fail(err)
                finally:
                    built.journal.close()

            thread = threading.Thread(target=serve, name="station", daemon=True)
            self.pacer.expect(*([DeviceConnected] * 4))
            thread.start()
            try:
                self._deal(dealer, built.table)
            finally:
                station.stop()
                thread.join(timeout=STUCK_SECONDS)
            if not errors.empty():
                raise errors.get()
        self.result.seconds = time.perf_counter() - started
        return self.result

    def _deal(self, dealer: SimulatedDealer, table: Any) -> None:
        seq = 0
        while True:
            view, seq = self.pacer.wait(seq)
            if self.on_view is not None:
                self.on_view(view)
            if view.state is State.BETTING and view.round_no >= self.settings.rounds:
                self.result.rounds = view.round_no
                return
            faulty = self.settings.faults and self.rng.random() < self.settings.faults
            if faulty and self._inject(view):
                continue
            actions = dealer.act(view)
            hole_at = None
            if view.state is State.DEALING and actions == [Draw()]:
                due = self._initial_cards_due(view)
                if not self.settings.delay:
                    # A dealer deals the initial cards in one go, without looking up between
                    # them: the station takes them in order off its queue.
                    actions = actions * due
                if self.table_profile.dealer_second_card is DealerSecondCard.HOLE:
                    # The last card of the initial deal is the hole card: through the
                    # shoe's hole-card slot, so the shoe withholds it.
                    hole_at = len(actions) - 1 if len(actions) == due else None
            for i, action in enumerate(actions):
                if i == hole_at:
                    self._draw(view, hole=True)
                else:
                    self._perform(action, view)
            if self.settings.delay:
                time.sleep(self.settings.delay)  # pacing for a person watching

    def _perform(self, action: Action, view: TableView) -> None:
        rig = self.rig
        if isinstance(action, Draw):
            self._draw(view)
        elif isinstance(action, Press):
            extra: list[type] = [PeekResult] if view.state is State.PEEKING else []
            if view.state is State.DEALER and view.reveal_due:
                extra = [HoleCardRevealed]  # the station asks the shoe, the shoe answers
            self.pacer.expect(ButtonPressed, *extra)
            rig.press(action.button)
        elif isinstance(action, TurnKey):
            self.pacer.expect(SupervisorKey)
            rig.turn_key(action.on)
        elif isinstance(action, PlaceWager):
            self.pacer.expect(SeatWagerChanged)
            rig.place_wager(action.seat, action.spot, action.cents is not None, action.cents)
        elif isinstance(action, LoadShoe):
            self.pacer.expect(ShoeLoaded)
            decks = self.settings.decks
            rig.shoe.load_shuffled(
                decks, seed=self.rng.randrange(1 << 30), cover_at=48 * decks - COVER_FROM_END
            )
        elif isinstance(action, InsertHoleCard):
            rig.card_reader.set_hole_card(self._hole)

    def _initial_cards_due(self, view: TableView) -> int:
        """Cards still to come in the initial deal: two per seat, the up card, and the hole
        card where the profile deals one (PA 635a.7(e), NJ 19.7(d), NY 5324.12(c)(4))."""
        dealer = 2 if self.table_profile.dealer_second_card is DealerSecondCard.HOLE else 1
        on_layout = sum(len(h.cards) for h in view.hands) + len(view.dealer_cards)
        return max(1, 2 * len(view.seats) + dealer - on_layout - view.hole_face_down)

    def _draw(self, view: TableView, *, hole: bool = False) -> None:
        reported = HoleCardDealt if hole else CardDrawn
        self.pacer.expect(reported)
        item = self.rig.shoe.deal(hole=hole)
        while isinstance(item, str):  # the cover card came out first
            self.pacer.expect(CoverCardSeen)
            item = self.rig.shoe.deal(hole=hole)
        if item is None:
            # Nothing came out: the shoe reported itself empty and the table faults.
            self.pacer.withdraw(reported)
            return
        if view.state is State.DEALING:
            self._hole = item  # the last card of the initial deal is the hole card

    def _inject(self, view: TableView) -> bool:
        """Inject a device fault the way a table sees them; True when one was injected."""
        rig = self.rig
        kind = self.rng.choice(("foreign_card", "shoe_unplugged", "reader_unplugged", "misread"))
        if kind == "foreign_card" and view.state in (State.DEALING, State.PLAYERS):
            self.pacer.expect(ForeignCardDrawn)
            rig.shoe.deal_ten(self.rng.choice("SHDC"))
        elif kind == "shoe_unplugged" and view.state is State.BETTING:
            # A person pulls a cable seconds after the last card, not while its ack is on
            # the wire (that case, a report sent again after the replug, is a HIL test).
            rig.shoe.wait_idle(STUCK_SECONDS)
            self.pacer.expect(DeviceLost)
            rig.shoe.unplug()
            self.pacer.wait(0)
            self.pacer.expect(DeviceConnected)
            rig.shoe.plug()
        elif kind == "reader_unplugged" and view.state is State.BETTING:
            rig.card_reader.wait_idle(STUCK_SECONDS)
            self.pacer.expect(DeviceLost)
            rig.card_reader.unplug()
            self.pacer.wait(0)
            self.pacer.expect(DeviceConnected)
            rig.card_reader.plug()
        elif kind == "misread" and view.state is State.PEEKING:
            rig.card_reader.misread()
            self.result.faults_injected.append(kind)
            return False  # the dealer's next NEXT gets the misread
        else:
            return False
        self.result.faults_injected.append(kind)
        return True


__all__ = [
    "Button",
    "Pacer",
    "SimulatedTable",
    "SimulationResult",
    "SimulationSettings",
    "SimulationStuckError",
]
