"""An in-process table: the simulated dealer's actions become device events at once.

No transports and no threads: the procedure's unit tests and its benchmark use this to
play thousands of rounds deterministically. ``dealer-station simulate`` and the HIL suite
run the same dealer against the real drivers and the device doubles instead.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from random import Random

from controller.rules.cards import Card, Rank, parse_card, shuffled_batch
from controller.rules.hands import hole_card_gives_blackjack
from controller.rules.profiles import Profile
from controller.simulation.dealer import (
    Action,
    Chooser,
    Draw,
    InsertHoleCard,
    LoadShoe,
    PlaceWager,
    Press,
    SimulatedDealer,
    TurnKey,
)
from controller.table.holecard import commit_hole_card
from controller.table.machine import Recorder, TableDevices, TableSettings
from controller.table.procedure import Table
from controller.table.prompts import State
from controller.table.view import table_view
from drivers.hal import (
    ButtonPressed,
    CardDrawn,
    CoverCardSeen,
    DeviceConnected,
    DeviceEvent,
    DeviceKind,
    DeviceLost,
    ForeignCardDrawn,
    HoleCardDealt,
    HoleCardRevealed,
    Led,
    LedMode,
    PeekAnswer,
    PeekResult,
    PeekTarget,
    SeatWagerChanged,
    ShoeEmpty,
    ShoeLoaded,
    ShuffleDone,
    SupervisorKey,
)

#: Faults the direct rig can inject, by name.
FAULT_KINDS = ("foreign_card", "stray_card", "device_lost", "misread", "bad_batch")


@dataclass
class _Devices:
    """In-process shuffler, reader, panel and (withholding) shoe: commands queue their
    answers as events."""

    events: deque[DeviceEvent]
    decks: int
    hole: Card | None = None
    up: Card | None = None
    misreads: int = 0
    bad_batches: int = 0
    lamps: dict[Led, LedMode] = field(default_factory=dict)
    #: The shoe's hole cards by commitment, (card, nonce): its flash, which a test hands to
    #: the shoe of a restarted station. Filled only by a withholding shoe.
    withheld: dict[str, tuple[Card, str]] = field(default_factory=dict)
    hole_next: bool = False

    def expect_hole_card(self) -> None:
        """The table says the next card is the hole card: the shoe withholds it."""
        self.hole_next = True

    def cancel_hole_card(self) -> None:
        """The round was voided before its hole card: the next card is an ordinary one."""
        self.hole_next = False

    def reveal_hole_card(self, commitment: str) -> None:
        """Answer with the card and nonce of ``commitment``, as often as asked."""
        held = self.withheld.get(commitment)
        if held is None:
            self.events.append(HoleCardRevealed(commitment, None, None, "not held by the shoe"))
        else:
            self.events.append(HoleCardRevealed(commitment, held[0], held[1]))

    def start(self) -> None:
        """Nothing to open."""

    def close(self) -> None:
        """Nothing to close."""

    def shuffle(self, decks: int) -> None:
        """Answer with a correct batch count (or a wrong one when a fault is injected)."""
        count = 4 * decks
        per_rank = tuple((int(rank), count) for rank in Rank)
        if self.bad_batches:
            self.bad_batches -= 1
            per_rank = ((10, 1), *per_rank)
        self.events.append(ShuffleDone(48 * decks + (1 if per_rank[0][0] == 10 else 0), per_rank))

    def check(self, target: PeekTarget) -> None:
        """Answer truthfully from the inserted hole card, unless a misread is injected."""
        if self.misreads:
            self.misreads -= 1
            self.events.append(PeekResult(PeekAnswer.READ_ERROR))
        elif self.hole is None or self.up is None:
            self.events.append(PeekResult(PeekAnswer.NO_CARD))
        else:
            blackjack = hole_card_gives_blackjack(self.up, self.hole)
            self.events.append(
                PeekResult(PeekAnswer.BLACKJACK if blackjack else PeekAnswer.NO_BLACKJACK)
            )

    def show(self, lamps: Mapping[Led, LedMode]) -> None:
        """Keep the lamps."""
        self.lamps = dict(lamps)


@dataclass
class DirectRig:
    """A table, a simulated dealer and a shoe, in one process."""

    profile: Profile
    decks: int
    journal: Recorder
    chooser: Chooser
    rng: Random
    seats: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)
    fault_rate: float = 0.0
    cover_at: int = 60  # cards before the end of the batch where the cover card sits
    #: The shoe withholds the hole card (as real shoes do) instead of reporting it like any
    #: card; its flash (:attr:`_Devices.withheld`) may be handed over from an earlier rig.
    withholding: bool = False
    shoe_flash: dict[str, tuple[Card, str]] = field(default_factory=dict)
    drawn: list[Card] = field(default_factory=list)
    injected: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.events: deque[DeviceEvent] = deque()
        self.devices = _Devices(self.events, self.decks, withheld=self.shoe_flash)
        shoe = self.devices if self.withholding else None
        self.table = Table(
            TableSettings(self.profile, self.decks),
            TableDevices(self.devices, self.devices, self.devices, shoe),
            self.journal,
        )
        self.dealer = SimulatedDealer(
            self.seats,
            self.chooser,
            self.rng,
            dealer_change_every=7,
            match_offered=self.profile.match_the_dealer,
        )
        self.shoe: list[Card | None] = []
        self._next_batch: list[Card | None] = []
        self._pending_reconnect = False

    def close(self) -> None:
        """Detach the table from the shared machine."""
        self.table.close()

    def play(self, rounds: int, max_steps: int = 1_000_000) -> None:
        """Play until ``rounds`` rounds have completed (or were voided).

        Raises:
            RuntimeError: when the table makes no progress (a bug, not a user error).
        """
        table = self.table
        if table.state is State.STARTING:
            table.begin()
        for _ in range(max_steps):
            if self.events:
                table.handle(self.events.popleft())
                continue
            if self._pending_reconnect and table.state is State.FAULT:
                self._pending_reconnect = False
                table.handle(DeviceConnected(DeviceKind.SHOE, "SIM-SHOE", "1.0"))
                continue
            view = table_view(table)
            if table.round_no >= rounds and view.state is State.BETTING:
                return
            if self.fault_rate and self.rng.random() < self.fault_rate:
                self._inject(view.state)
                continue
            for action in self.dealer.act(view):
                self._perform(action)
        raise RuntimeError(f"no progress after {max_steps} steps in state {table.state}")

    # --- actions --------------------------------------------------------------------------

    def _perform(self, action: Action) -> None:
        if isinstance(action, Draw):
            self._draw()
        elif isinstance(action, Press):
            self.events.append(ButtonPressed(action.button))
        elif isinstance(action, TurnKey):
            self.events.append(SupervisorKey(action.on))
        elif isinstance(action, PlaceWager):
            present = action.cents is not None
            self.events.append(SeatWagerChanged(action.seat, action.spot, present, action.cents))
        elif isinstance(action, LoadShoe):
            self._load()
        elif isinstance(action, InsertHoleCard):
            view = table_view(self.table)
            self.devices.up = parse_card(view.dealer_cards[0]) if view.dealer_cards else None

    def _load(self) -> None:
        batch: list[Card | None] = list(shuffled_batch(self.decks, self.rng))
        batch.insert(len(batch) - self.cover_at, None)  # None: the cover card
        batch.reverse()  # pop() takes from the front of the batch
        self.shoe = batch
        self.events.append(ShoeLoaded())

    def _draw(self) -> None:
        while self.shoe and self.shoe[-1] is None:
            self.shoe.pop()
            self.events.append(CoverCardSeen())
        if not self.shoe:
            self.events.append(ShoeEmpty())
            return
        card = self.shoe.pop()
        assert card is not None
        self.drawn.append(card)
        if self.table.state is State.DEALING:
            self.devices.hole = card  # the last card of the initial deal is the hole card
        if self.devices.hole_next:
            self.devices.hole_next = False
            commitment, nonce = commit_hole_card(card)  # a nonce from secrets
            self.devices.withheld[commitment] = (card, nonce)
            self.events.append(HoleCardDealt(commitment))
            return
        self.events.append(CardDrawn(card))

    def _inject(self, state: State) -> None:
        kind = self.rng.choice(FAULT_KINDS)
        if kind == "foreign_card":
            suit = self.rng.choice("SHDC")
            self.events.append(
                ForeignCardDrawn(f"foreign card 10{suit}: a Spanish deck has no 10s")
            )
        elif kind == "stray_card" and state in (State.BETTING, State.SETTLING, State.MATCH):
            self._draw()  # a card out of the shoe when none is due
        elif kind == "device_lost":
            self.events.append(DeviceLost(DeviceKind.SHOE, "injected: cable pulled"))
            self._pending_reconnect = True
        elif kind == "misread" and state is State.PEEKING:
            self.devices.misreads += 1
        elif kind == "bad_batch" and state is State.SETTLING:
            self.devices.bad_batches += 1  # the next shuffle reports a wrong count
        else:
            return
        self.injected.append(kind)
