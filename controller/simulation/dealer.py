"""A simulated dealer (with the players and the supervisor) who follows the panel's prompts.

It reads only the public :class:`~controller.table.view.TableView` (lamps, prompt, the cards
face up on the layout) and answers with :data:`Action` values: draw a card, press a
button, load the shoe, slide the hole card into the reader, turn the supervisor key,
place or take back a wager. Whoever runs the simulation turns the actions into events:
directly into a table (unit tests, benchmarks) or into the device doubles (``simulate``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from random import Random

from controller.rules.cards import Card
from controller.rules.hands import dealer_must_draw, hand_total
from controller.rules.profiles import Profile
from controller.rules.steps import LEGAL_SETS, Decision
from controller.table.prompts import State
from controller.table.view import HandView, SettlementView, TableView
from drivers.hal import Button, WagerSpot


@dataclass(frozen=True, slots=True)
class Draw:
    """Take the next card out of the shoe."""


@dataclass(frozen=True, slots=True)
class Press:
    """Press a panel button."""

    button: Button


@dataclass(frozen=True, slots=True)
class TurnKey:
    """Turn the supervisor key on or off."""

    on: bool


@dataclass(frozen=True, slots=True)
class LoadShoe:
    """Put the shuffled batch into the shoe."""


@dataclass(frozen=True, slots=True)
class InsertHoleCard:
    """Slide the hole card face down into the card reader."""


@dataclass(frozen=True, slots=True)
class PlaceWager:
    """A player puts chips on (cents) or takes them off (None) a betting spot."""

    seat: int
    spot: WagerSpot
    cents: int | None


Action = Draw | Press | TurnKey | LoadShoe | InsertHoleCard | PlaceWager

#: A player's choice: (their hand, the dealer's up card, the legal decisions) -> decision.
Chooser = Callable[[HandView, str, frozenset[Decision]], Decision]

_BUTTON_FOR = {
    Decision.STAND: Button.NEXT,
    Decision.DOUBLE: Button.DOUBLE,
    Decision.SPLIT: Button.SPLIT,
    Decision.SURRENDER: Button.SURRENDER,
    Decision.RESCUE: Button.RESCUE,
}


#: A view's legal decisions (sorted values) -> the engine's own set for them, built once
#: each: its hash is cached (the strategy looks the set up by it), a new frozenset of Enums
#: would hash each member in Python again at every decision.
_LEGAL_BY_VALUES: dict[tuple[str, ...], frozenset[Decision]] = {}


def _legal_set(values: tuple[str, ...]) -> frozenset[Decision]:
    legal = _LEGAL_BY_VALUES.get(values)
    if legal is None:
        legal = LEGAL_SETS[sum(Decision(v).bit for v in values)]
        _LEGAL_BY_VALUES[values] = legal
    return legal


def random_chooser(rng: Random) -> Chooser:
    """Players who pick any legal decision at random (exercises every path)."""

    def choose(hand: HandView, up: str, legal: frozenset[Decision]) -> Decision:
        return rng.choice(sorted(legal, key=lambda d: d.value))

    return choose


@dataclass
class SimulatedDealer:
    """Decides the next actions at the table from what the panel and layout show.

    ``seats`` bet every round (``wager_cents`` each); a Match the Dealer wager is placed
    with probability ``match_rate`` where the table offers it (``match_offered``), insurance
    (half the wager) with ``insurance_rate``; a new dealer comes every
    ``dealer_change_every`` rounds. A round found open at a restart is voided, or with
    ``resume_restarts`` resumed where it stood (voided only when the table refuses the
    resume).

    The wager sensors see what a dealer does with the chips (docs/panel.md): at each
    settlement prompt the dealer collects a lost spot (empty), pays a won one (wager plus
    win on the spot, which the player may take at once), leaves what a surrender or a
    rescue returns; a player doubling or splitting puts one more wager on the main spot.
    """

    seats: tuple[int, ...]
    choose: Chooser
    rng: Random
    wager_cents: int = 2_500
    match_rate: float = 0.3
    match_offered: bool = True  # the table's profile offers Match the Dealer
    insurance_rate: float = 0.3
    dealer_change_every: int = 0
    wagers_placed: bool = False
    hole_inserted: bool = False
    _rounds_bet: int = field(default=0, repr=False)
    _changed: bool = field(default=False, repr=False)
    _voided: str | None = field(default=None, repr=False)  # a void the table refused
    resume_restarts: bool = False
    _resumed: str | None = field(default=None, repr=False)  # a resume the table refused
    # What the dealer believes lies on each spot, in cents (the sensors read the same; 0:
    # known to be empty; a spot not in it has not been touched since this dealer came).
    chips: dict[tuple[int, WagerSpot], int] = field(default_factory=dict, repr=False)
    _insured: bool = field(default=False, repr=False)
    _settled: set[tuple[int, int]] = field(default_factory=set, repr=False)
    #: The rules the players' hands follow: with it the dealer plays a hand out after a
    #: hit without looking up (:meth:`after_hit`); without it she looks up after each card.
    profile: Profile | None = None

    def act(self, view: TableView) -> list[Action]:
        """The actions a person would take now; empty while waiting for a device."""
        state = view.state
        if state is not State.PEEKING:
            self.hole_inserted = False
        if state is State.LOADING:
            return [LoadShoe()]
        if state in (State.BURNING, State.DEALING):
            return [Draw()]
        if state is State.BETTING:
            return self._bet()
        if state is State.INSURANCE:
            self.wagers_placed = False
            return [*self._insure(view), Press(Button.NEXT)]
        if state in (State.MATCH, State.SETTLE_NOW, State.SETTLING):
            self.wagers_placed = False
            self._insured = False
            # The dealer settles seat after seat from the layout, without looking up at the
            # panel between two: each NEXT reaches the station after the chips before it
            # (one link, in order), so the station prompts each settlement as before.
            actions: list[Action] = []
            for settlement in view.settlements or (view.settling,):
                actions += self._settle(view, settlement)
                actions.append(Press(Button.NEXT))
            return actions
        if state is State.PEEKING:
            self.hole_inserted = True
            return [InsertHoleCard(), Press(Button.NEXT)]
        if state is State.PLAYERS:
            return self._player(view)
        if state is State.DEALER:
            return [Press(Button.NEXT)] if view.reveal_due else [Draw()]
        if state is State.FAULT:
            return self._supervise(view)
        return []

    def bets(self) -> list[Action]:
        """The next round's bets and the NEXT that closes them, as :meth:`act` gives them
        for a betting table (a new dealer's DEALER CHANGE instead, every
        ``dealer_change_every`` rounds)."""
        self.hole_inserted = False
        return self._bet()

    def _bet(self) -> list[Action]:
        actions: list[Action] = []
        if not self.wagers_placed:
            self._rounds_bet += 1
            if (
                self.dealer_change_every
                and self._rounds_bet % self.dealer_change_every == 0
                and not self._changed
            ):
                self._changed = True
                self._rounds_bet -= 1
                return [Press(Button.DEALER_CHANGE)]
            self._changed = False
            self.wagers_placed = True
            self._settled.clear()
            for seat in self.seats:
                # Drawn either way: a seed deals the same cards whatever the table offers.
                placed = self.rng.random() < self.match_rate and self.match_offered
                match = self.wager_cents // 5 if placed else None
                actions += self._put(seat, WagerSpot.MAIN, self.wager_cents)
                actions += self._put(seat, WagerSpot.MATCH, match)
                if self.chips.get((seat, WagerSpot.INSURANCE)):
                    actions += self._put(seat, WagerSpot.INSURANCE, None)
        actions.append(Press(Button.NEXT))
        return actions

    def _player(self, view: TableView) -> list[Action]:
        if view.card_due:
            return [Draw()]
        hand = next(
            h for h in view.hands if h.seat == view.acting_seat and h.hand == view.acting_hand
        )
        decision = self.choose(hand, view.dealer_cards[0], _legal_set(view.legal))
        return self.signal_actions(hand, decision)

    def draws_again(self, cards: list[Card]) -> bool:
        """Whether the dealer, having drawn to ``cards`` (her hand, face up), draws another
        card without looking up: the station asked for the card before the last, so a draw
        can change an outcome (PA 635a.7(m); the players' hands are done), and the rules
        engine says whether the total draws (PA 635a.7(l))."""
        if self.profile is None:
            return False
        total, soft = hand_total(cards)
        return dealer_must_draw(total, soft, self.profile)

    def signal_actions(self, hand: HandView, decision: Decision) -> list[Action]:
        """What the dealer does for ``hand``'s player's ``decision``: a card for a hit, the
        decision's button otherwise (with one more wager on the main spot for a double or
        a split)."""
        if decision is Decision.HIT:
            return [Draw()]
        actions: list[Action] = [Press(_BUTTON_FOR[decision])]
        if decision in (Decision.DOUBLE, Decision.SPLIT):
            # One more wager on the main spot (NY 5324.12(b)(9): made and confirmed).
            spot = (hand.seat, WagerSpot.MAIN)
            actions += self._put(
                hand.seat, WagerSpot.MAIN, self.chips.get(spot, 0) + self.wager_cents
            )
        return actions

    def _put(self, seat: int, spot: WagerSpot, cents: int | None) -> list[Action]:
        """Chips placed on (``cents`` in all) or taken off (None) a spot: nothing when the
        dealer knows the spot holds that already, as a sensor reports only a change (a
        wager left on its spot, an empty Match spot left empty)."""
        key = (seat, spot)
        if self.chips.get(key, -1) == (cents or 0):
            return []
        self.chips[key] = cents or 0  # 0: known to be empty
        return [PlaceWager(seat, spot, cents or None)]

    def _insure(self, view: TableView) -> list[Action]:
        """Some seats take insurance, half their wager (PA 635a.8 is not included: at most
        half, the station's reading)."""
        if self._insured:
            return []
        self._insured = True
        actions: list[Action] = []
        for seat in view.seats:
            if self.rng.random() < self.insurance_rate:
                actions += self._put(seat, WagerSpot.INSURANCE, self.wager_cents // 2)
        return actions

    def _settle(self, view: TableView, settling: SettlementView | None) -> list[Action]:
        """Move the chips of ``settling``, a settlement the panel prompts now or next in
        ``view`` (docs/panel.md)."""
        if settling is None or (view.round_no, settling.index) in self._settled:
            return []  # the chips of this settlement have moved already
        self._settled.add((view.round_no, settling.index))
        seat, spot = settling.seat, WagerSpot(settling.spot)
        on_spot = self.chips.get((seat, spot), 0)
        net = settling.net_cents
        if net is None:  # the sensors do not weigh this seat's chips: collect or leave
            return self._put(seat, spot, None) if settling.word == "collect" else []
        # Never below nothing: a dealer restarted with the station (the crash tests) has not
        # seen every chip put down before, and a sensor cannot read a negative amount.
        actions = self._put(seat, spot, max(on_spot + net, 0)) if net else []
        # A paid Match, insurance or blackjack-at-once spot is taken by its player at once
        # or later; chips of a hand still in play or still to be settled stay.
        alone = spot is not WagerSpot.MAIN or net > 0
        if (
            view.state is not State.SETTLING
            and alone
            and on_spot + net > 0
            and self.rng.random() < 0.5
        ):
            actions += self._put(seat, spot, None)
        return actions

    def fault_over(self) -> None:
        """The table left its fault: the next one starts from the usual resolution (a
        refusal is told by the same fault still shown after a resolution)."""
        self._voided = self._resumed = None

    def _supervise(self, view: TableView) -> list[Action]:
        fault = view.fault or ""
        if fault.startswith(("device_lost", "device_fault")):
            resolution = Button.SUPERVISOR_RESUME
        elif fault.startswith("recovered_mid_round") and self.resume_restarts:
            # Resumed where it stood; voided when the table refuses (it cannot be rebuilt).
            resolution = (
                Button.SUPERVISOR_VOID if fault == self._resumed else Button.SUPERVISOR_RESUME
            )
        elif fault.startswith(("bad_batch", "hole_card_mismatch", "recovered_mid_round")):
            resolution = Button.SUPERVISOR_VOID
        elif fault.startswith(("unexpected_card", "foreign_card", "duplicate_card")):
            # The card goes to the discard rack and play goes on; voided when the table
            # refuses the resume (such a fault during a restart's fault keeps a round the
            # restart could not rebuild, which only a void ends).
            resolution = (
                Button.SUPERVISOR_VOID if fault == self._resumed else Button.SUPERVISOR_RESUME
            )
        else:
            resolution = Button.SUPERVISOR_VOID
        if resolution is Button.SUPERVISOR_VOID and fault == self._voided:
            # Still the same fault after a void: the table refused it (a fully settled
            # round cannot be voided), so the supervisor resumes instead.
            resolution = Button.SUPERVISOR_RESUME
        self._voided = fault if resolution is Button.SUPERVISOR_VOID else None
        self._resumed = fault if resolution is Button.SUPERVISOR_RESUME else None
        return [TurnKey(True), Press(resolution), TurnKey(False)]
