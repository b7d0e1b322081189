"""The simulated dealer's loop, shared by the in-process and the split-process table.

:class:`Dealing` waits on a :class:`~controller.simulation.pacer.Pacer` for the station to
settle, asks the :class:`~controller.simulation.dealer.SimulatedDealer` what a person would
do now, and does it on a :class:`TableSide`: the few things a dealer's hands do to the
devices (draw from the shoe, press a button, turn the key, put chips on a spot, load the
shoe, slide the hole card into the reader) and the faults a table sees (a foreign card, a
cable pulled, a misread). Before each action it tells the pacer which events the action
will cause, so the next wait returns only once the station has handled all of them.

Two table sides exist (``controller.simulation.table_side``): ``RigSide`` acts on an in-process
:class:`~drivers.simulated.rig.SimulatedRig` (``controller.simulation.runner``), and
``controller.simulation.split_doubles.ServedSide`` acts on the doubles of the dealer's own
process and asks the station's process for what only it can do
(``controller.simulation.split``). A seed gives the same rounds through either.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from random import Random
from typing import Any, Literal

from controller.rules.cards import Card, parse_card
from controller.rules.profiles import DealerSecondCard
from controller.rules.steps import Decision
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
from controller.simulation.pacer import STUCK_SECONDS, Pacer
from controller.simulation.playout import DELIVER_SECONDS, play_out_players, players_follow
from controller.simulation.strategy import choose
from controller.simulation.table_side import Pluggable, TableSide
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
from drivers.registry import DEVICES

COVER_FROM_END = 60  # the cover card sits this many cards before the end of the batch


@dataclass
class SimulationResult:
    """What happened, for the summary. ``seconds``: the whole run, the start included;
    ``dealing_seconds``: from the dealer's first look at the table to the last round;
    ``looks``: how often the dealer waited for the station and looked at the table (by
    the state she saw: ``looks_by_state``); ``deliveries``: how often she waited for the
    station to take one device's reports before acting on another (``TableSide.deliver``)."""

    rounds: int
    seconds: float
    faults_injected: list[str] = field(default_factory=list)
    dealing_seconds: float = 0.0
    looks: int = 0
    looks_by_state: dict[str, int] = field(default_factory=dict)
    deliveries: int = 0


def strategy_players(profile: Any) -> Callable[[HandView, str, frozenset[Decision]], Decision]:
    """Players who follow Spanish 21 basic strategy (``controller.simulation.strategy``)."""

    def chooser(hand: HandView, up: str, legal: frozenset[Decision]) -> Decision:
        cards = [parse_card(c) for c in hand.cards]
        return choose(cards, parse_card(up), legal, profile)

    return chooser


@dataclass
class DealingPlan:
    """What the dealer was asked for (a part of ``SimulationSettings``)."""

    decks: int
    seats: int
    rounds: int
    seed: int
    faults: float
    delay: float


class Dealing:
    """The simulated dealer's loop (see the module docstring)."""

    def __init__(
        self,
        plan: DealingPlan,
        profile: Any,
        side: TableSide,
        pacer: Pacer,
        on_view: Callable[[TableView], None] | None = None,
    ) -> None:
        self.plan = plan
        self.profile = profile
        self.side = side
        self.pacer = pacer
        self.on_view = on_view
        self.rng = Random(plan.seed)
        self.result = SimulationResult(0, 0.0)
        self._hole: Card | None = None
        self.dealer = SimulatedDealer(
            tuple(range(1, plan.seats + 1)),
            strategy_players(profile),
            self.rng,
            dealer_change_every=25,
            profile=profile,
            match_offered=profile.match_the_dealer,
        )

    def expect_start(self) -> None:
        """The station's start: before it runs, each of its devices (every device of the
        registry: the rig has them all) will connect."""
        self.pacer.expect(*([DeviceConnected] * len(DEVICES)))

    def deal(self) -> SimulationResult:
        """Play until the table is betting on round ``plan.rounds``; the result so far."""
        seq = 0
        started: float | None = None
        plan, dealer = self.plan, self.dealer
        while True:
            view, seq = self.pacer.wait(seq)
            self.result.looks += 1
            by_state = self.result.looks_by_state
            by_state[view.state.value] = by_state.get(view.state.value, 0) + 1
            if started is None:
                started = time.perf_counter()
            if self.on_view is not None:
                self.on_view(view)
            if view.state is not State.FAULT:
                dealer.fault_over()
            if view.state is State.BETTING and view.round_no >= plan.rounds:
                self.result.rounds = view.round_no
                self.result.dealing_seconds = time.perf_counter() - started
                return self.result
            faulty = plan.faults and self.rng.random() < plan.faults
            if faulty and self._inject(view):
                continue
            if not plan.delay and self._play_out(view):
                # The players' turn and the dealer's draws, dealt in this look while the
                # rules engine says what follows (with pacing, a person watching sees each
                # card and each signal apart).
                continue
            actions = dealer.act(view)
            if (
                view.state is State.SETTLING
                and not view.reshuffle_pending
                and view.round_no < plan.rounds
                and not plan.faults
                and not plan.delay
            ):
                # The last seat paid, the players bet again: the dealer takes the next
                # round's bets without looking up, as the station will be betting once it
                # has the last NEXT (no reshuffle is due: the view says so). A run with
                # faults keeps the betting look, where a cable is pulled.
                bets = dealer.bets()
                actions += bets
                # No more bets: with the NEXT that closes them (not a new dealer's DEALER
                # CHANGE, who burns a card first) the station deals, so does she.
                deal_on = bets[-1:] == [Press(Button.NEXT)]
            else:
                deal_on = False
            hole_at = None
            if view.state is State.DEALING and actions == [Draw()]:
                due = self._initial_cards_due(view)
                if not plan.delay:
                    # A dealer deals the initial cards in one go, without looking up between
                    # them: the station takes them in order off its queue.
                    actions = actions * due
                if self.profile.dealer_second_card is DealerSecondCard.HOLE:
                    # The last card of the initial deal is the hole card: through the
                    # shoe's hole-card slot, so the shoe withholds it.
                    hole_at = len(actions) - 1 if len(actions) == due else None
            with self.side.holding():
                for i, action in enumerate(actions):
                    if i == hole_at:
                        self.draw_card(view, hole=True)
                    else:
                        self.perform(action, view)
                if deal_on and self.deliver("panel"):
                    self._deal_round(view)
                elif not plan.delay and players_follow(view):
                    # The last Match the Dealer wager settled, the dealer turns to the first
                    # player (PA 635a.7(f)-(h)): the station will be waiting for the signal.
                    play_out_players(self, replace(view, state=State.PLAYERS), after="panel")
            if plan.delay:
                time.sleep(plan.delay)  # pacing for a person watching

    def perform(self, action: Action, view: TableView) -> None:
        """Do ``action`` at the table as it shows ``view``, telling the pacer first which
        events it will cause."""
        side = self.side
        if isinstance(action, Draw):
            self.draw_card(view)
        elif isinstance(action, Press):
            extra: list[type] = [PeekResult] if view.state is State.PEEKING else []
            if view.state is State.DEALER and view.reveal_due and view.hole_in_shoe:
                extra = [HoleCardRevealed]  # the station asks the shoe, the shoe answers
            self.pacer.expect(ButtonPressed, *extra)
            side.press(action.button)
        elif isinstance(action, TurnKey):
            self.pacer.expect(SupervisorKey)
            side.turn_key(action.on)
        elif isinstance(action, PlaceWager):
            self.pacer.expect(SeatWagerChanged)
            side.place_wager(action.seat, action.spot, action.cents is not None, action.cents)
        elif isinstance(action, LoadShoe):
            self.pacer.expect(ShoeLoaded)
            decks = self.plan.decks
            side.load_shoe(decks, self.rng.randrange(1 << 30), 48 * decks - COVER_FROM_END)
        elif isinstance(action, InsertHoleCard):
            side.insert_hole_card(self._hole)

    def deliver(self, device: Literal["shoe", "panel"]) -> bool:
        """Wait until the station has ``device``'s reports on its queue before acting on
        another device (:meth:`TableSide.deliver`, ``DELIVER_SECONDS`` at most)."""
        self.result.deliveries += 1
        return self.side.deliver(device, DELIVER_SECONDS)

    def reveal(self, view: TableView) -> None:
        """Press NEXT for the hole card's reveal: the station asks the shoe, which answers
        with the card (PA 635a.7(k)); a hole card the station sealed itself (the shoe gave
        it in the open) it turns without asking."""
        self.pacer.expect(ButtonPressed, *([HoleCardRevealed] if view.hole_in_shoe else []))
        self.side.press(Button.NEXT)

    def _play_out(self, view: TableView) -> bool:
        """Deal the players' turn (``controller.simulation.playout``) or the dealer's
        draws (:meth:`_dealer_draws`) from ``view`` in one look, before the dealer's
        :meth:`SimulatedDealer.act` (whose choices move chips); False, with nothing done,
        when ``view`` is neither."""
        if view.state is State.PLAYERS:
            deal: Callable[[Dealing, TableView], bool] = play_out_players
        elif view.state is State.DEALER and view.card_due and not view.reveal_due:
            deal = Dealing._dealer_draws
        else:
            return False
        self.dealer.hole_inserted = False  # as act() leaves it outside the peek
        with self.side.holding():
            return deal(self, view)

    def _dealer_draws(self, view: TableView) -> bool:
        """Draw the card the dealer's hand needs and the next ones while the rules engine
        says her total draws (:meth:`SimulatedDealer.draws_again`, PA 635a.7(l)); the look
        ends with her 17 or the cover card. False, with nothing done, before her hand is
        face up: NJ 19.7(g)'s "Dealer's Card", after which the station judges."""
        if len(view.dealer_cards) < 2:
            return False
        cards = [parse_card(text) for text in view.dealer_cards]
        while True:
            card = self.draw_card(view)
            if card is None:
                return True
            cards.append(card)
            if not self.dealer.draws_again(cards):
                return True

    def _deal_round(self, view: TableView) -> None:
        """The next round's initial deal, from its bets' NEXT on (delivered first: on the
        station's queue before the first card): a card to each box from the dealer's left,
        the up card, a second card to each box, and the hole card through the shoe's slot
        where the profile deals one (PA 635a.7(e), NJ 19.7(d), NY 5324.12(c)(4)); every
        seat bets in the simulation."""
        hole = self.profile.dealer_second_card is DealerSecondCard.HOLE
        due = 2 * self.plan.seats + (2 if hole else 1)
        for i in range(due):
            self.draw_card(view, hole=hole and i == due - 1)

    def _initial_cards_due(self, view: TableView) -> int:
        """Cards still to come in the initial deal: two per seat, the up card, and the hole
        card where the profile deals one (PA 635a.7(e), NJ 19.7(d), NY 5324.12(c)(4))."""
        dealer = 2 if self.profile.dealer_second_card is DealerSecondCard.HOLE else 1
        on_layout = sum(len(h.cards) for h in view.hands) + len(view.dealer_cards)
        return max(1, 2 * len(view.seats) + dealer - on_layout - view.hole_face_down)

    def draw_card(self, view: TableView, *, hole: bool = False) -> Card | None:
        """Take the next card out of the shoe; the card, or None when the cover card came
        out first or the shoe was empty (the station has something to prompt)."""
        reported = HoleCardDealt if hole else CardDrawn
        self.pacer.expect(reported)
        item = self.side.draw(hole)
        cover = False
        while isinstance(item, str):  # the cover card came out first
            cover = True
            self.pacer.expect(CoverCardSeen)
            item = self.side.draw(hole)
        if item is None:
            # Nothing came out: the shoe reported itself empty and the table faults.
            self.pacer.withdraw(reported)
            return None
        if hole or view.state is State.DEALING:
            self._hole = item  # the last card of the initial deal is the hole card
        return None if cover else item

    def _inject(self, view: TableView) -> bool:
        """Inject a device fault the way a table sees them; True when one was injected."""
        side = self.side
        kind = self.rng.choice(("foreign_card", "shoe_unplugged", "reader_unplugged", "misread"))
        if kind == "foreign_card" and view.state in (State.DEALING, State.PLAYERS):
            self.pacer.expect(ForeignCardDrawn)
            side.draw_foreign(self.rng.choice("SHDC"))
        elif kind in ("shoe_unplugged", "reader_unplugged") and view.state is State.BETTING:
            # A person pulls a cable seconds after the last card, not while its ack is on
            # the wire (that case, a report sent again after the replug, is a HIL test).
            device: Pluggable = "shoe" if kind == "shoe_unplugged" else "reader"
            side.wait_idle(device, STUCK_SECONDS)
            self.pacer.expect(DeviceLost)
            side.unplug(device)
            self.pacer.wait(0)
            self.pacer.expect(DeviceConnected)
            side.plug(device)
        elif kind == "misread" and view.state is State.PEEKING:
            side.misread()
            self.result.faults_injected.append(kind)
            return False  # the dealer's next NEXT gets the misread
        else:
            return False
        self.result.faults_injected.append(kind)
        return True
