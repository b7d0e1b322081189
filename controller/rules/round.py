"""The round engine: one round of Spanish 21, fed one card, decision or answer at a time.

Pure and deterministic. ``Round.step`` says what the round needs next (a card for a given
place, an insurance answer, the card reader's answer, a player decision, the hole card's
reveal, or nothing: the round is over); the matching method applies it and moves on.
Anything out of turn raises :class:`OutOfTurnError`, an illegal decision
:class:`IllegalDecisionError`; neither changes the round. The replay command and the
table procedure both drive this class, so the station and the dispute tool settle alike.

The hole card is held as a :class:`SealedCard` until :meth:`Round.reveal_hole`.

Speed: the house-edge run plays ten million rounds through this class, so its hot path
is written for CPython (each trick carries the figure that justified it): the steps are
shared immutable objects looked up in tables, legal moves are an int mask, the players'
turn (:mod:`controller.rules.turn`) is a cursor that never re-walks finished hands, the totals
are running integers, the initial deal can come in one call (:meth:`Round.deal_initial`),
and payments are named tuples.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from controller.rules.cards import Card, Rank
from controller.rules.errors import (
    HoleCardMismatchError,
    IllegalDecisionError,
    OutOfTurnError,
    WagerError,
)
from controller.rules.hands import (
    HandStatus,
    PlayerHand,
    dealer_must_draw,
    hole_card_gives_blackjack,
    outcome_can_change,
)
from controller.rules.legality import check_cents, seat_wagers, why_illegal
from controller.rules.places import (
    DRAW_CARD,
    PEEK_FOR_ACE,
    PEEK_FOR_TEN,
    SECOND_CARD,
    insurance_step,
    table_setup,
)
from controller.rules.profiles import Profile
from controller.rules.sealed import SealedCard
from controller.rules.settlement import (
    DealerResult,
    Payment,
    final_settlement,
    match_the_dealer,
    settle_hand,
    settle_insurance,
)
from controller.rules.steps import (
    NEED_REVEAL,
    ROUND_OVER,
    CardRole,
    Decision,
    NeedCard,
    NeedDecision,
    NeedInsurance,
    NeedPeek,
    SeatWager,
    Step,
    describe,
)
from controller.rules.turn import Turn

PEEK_RANKS: Final = frozenset({Rank.ACE, Rank.KING, Rank.QUEEN, Rank.JACK})  # PA 635a.7(g)

# Module constants are Final, one name a line: the compiled build (mypyc) keeps a Final in a
# C variable, where any other module name is a dict lookup by string on every read (12% of
# the compiled like-for-like loop was such lookups). Pure Python reads both alike.
_BLACKJACK: Final = HandStatus.BLACKJACK
_INITIAL: Final = CardRole.INITIAL
_HOLE: Final = CardRole.HOLE
_SECOND: Final = CardRole.SECOND
_DRAW: Final = CardRole.DRAW
_HIT_ROLE: Final = CardRole.HIT
_DOUBLE_ROLE: Final = CardRole.DOUBLE
_SPLIT_ROLE: Final = CardRole.SPLIT
_DEALER_RESULT: Final = DealerResult
_NEW_TUPLE: Final = tuple.__new__


class Round:
    """One round at the table under ``profile`` with a ``decks``-deck shoe.

    Raises:
        WagerError: for seats outside 1..7, a repeated seat, a wager that is not positive, a
            Match wager where the profile offers none, or no seat at all.
    """

    # A slots class: attribute reads and writes on the round are the engine's commonest
    # operation (~150 a round), and slots make each ~10% cheaper than a __dict__.
    __slots__ = (
        "_ace_peeks",
        "_cursor",
        "_dealer_ace",
        "_dealer_bj",
        "_dealer_hard",
        "_has_match",
        "_insurance_open",
        "_plan",
        "_turn",
        "dealer_cards",
        "decisions",
        "decks",
        "final_from",
        "hands",
        "hole",
        "insurance",
        "match_table",
        "payments",
        "peek_answer",
        "profile",
        "reshuffle_due",
        "seats",
        "step",
        "wagers",
    )

    def __init__(self, profile: Profile, decks: int, wagers: Iterable[SeatWager]) -> None:
        self.profile = profile
        self.decks = decks
        ordered, seats, has_match = seat_wagers(profile, wagers)
        # A loop, not two dict comprehensions: a comprehension is a function call of its own
        # in Python 3.11 (0.18 us against 0.08 us for one seat).
        by_seat: dict[int, SeatWager] = {}
        hands: dict[int, list[PlayerHand]] = {}
        for w in ordered:
            seat = w.seat
            by_seat[seat] = w
            hands[seat] = [PlayerHand(seat, 0, w.wager)]
        self.wagers = by_seat
        self.hands = hands
        self.seats: tuple[int, ...] = seats
        self._has_match = has_match  # no Match wager: no Match settlement to walk the seats for
        # The pay table, the peek rule and the deal plan, cached per table set-up.
        self.match_table, self._ace_peeks, self._plan = table_setup(profile, decks, self.seats)
        self.dealer_cards: list[Card] = []  # face-up cards; the hole card joins at the reveal
        self.hole: SealedCard | None = None
        self.payments: list[Payment] = []
        self.insurance: dict[int, int] = {}
        self.decisions: list[tuple[int, int, Decision]] = []
        self.reshuffle_due = False
        self.final_from = 0  # index of the first payment of the final settlement
        self.peek_answer: bool | None = None
        self._insurance_open = False
        self._dealer_hard = 0
        self._dealer_ace = False
        self._dealer_bj = False
        self._cursor = 0  # the next place of the initial deal
        self._turn = Turn(profile, seats, hands)  # the players' turn, a cursor
        self.step: Step = self._plan[0]

    # --- what the round shows -------------------------------------------------------------

    @property
    def up_card(self) -> Card | None:
        """The dealer's up card once dealt."""
        return self.dealer_cards[0] if self.dealer_cards else None

    @property
    def over(self) -> bool:
        """True when every wager is settled."""
        return self.step is ROUND_OVER

    @property
    def dealer_blackjack(self) -> bool:
        """True once the dealer's two cards are known to be a blackjack."""
        return self._dealer_bj

    @property
    def initial_cards_due(self) -> int:
        """How many cards the initial deal still needs (0 once it is over)."""
        return len(self._plan) - self._cursor

    def seat_net(self, seat: int) -> int:
        """The seat's result so far over all its wagers, in cents (positive: player wins)."""
        return sum(p.net for p in self.payments if p.seat == seat)

    # --- inputs ---------------------------------------------------------------------------

    def deal(self, card: Card | SealedCard) -> NeedCard:
        """Place the next card from the shoe where the round expects it; return that place.

        The hole card may come in sealed; any other card must be open.

        Raises:
            OutOfTurnError: when the round is not waiting for a card.
        """
        step = self.step
        if type(step) is not NeedCard:
            raise OutOfTurnError(f"a card came out of the shoe while waiting for {describe(step)}")
        role = step.role
        if role is _HOLE:
            self.hole = card if isinstance(card, SealedCard) else SealedCard(card)
            self._next_initial()
            return step
        if card.__class__ is not Card:
            raise OutOfTurnError(f"only the hole card is dealt face down, not {describe(step)}")
        # The roles a round meets most often first (a player card, then a dealer draw).
        if role is _HIT_ROLE or role is _DOUBLE_ROLE or role is _SPLIT_ROLE:
            turn = self._turn
            turn.card(card)
            after = turn.next_step()  # inline _players_or_dealer: the commonest card
            self.step = self._dealer_step() if after is None else after
        elif role is _DRAW:
            self._dealer_add(card)
            self.step = self._dealer_step()
        elif role is _SECOND:
            self._dealer_second(card)
            self.step = self._dealer_step()
        elif role is _INITIAL:
            self.hands[step.seat or 0][0].add(card)
            self._next_initial()
        else:  # the up card
            self._dealer_add(card)
            self._next_initial()
        return step

    def deal_initial(self, cards: Sequence[Card | SealedCard]) -> None:
        """Place the whole initial deal in one call, ``cards`` in shoe order.

        The same as calling :meth:`deal` for each card (PA 635a.7(e): one card to each box,
        the up card, a second card to each box, the hole card where the profile deals
        one); :attr:`initial_cards_due` says how many. The house-edge run deals this way:
        one call instead of four (one seat) saved 1.8 us a round.

        Raises:
            OutOfTurnError: once a card of the initial deal is placed, for the wrong number
                of cards, or for anything but an open card outside the hole card's place;
                the round is unchanged.
        """
        plan = self._plan
        count = len(plan)
        if self._cursor:
            raise OutOfTurnError(f"the initial deal has begun: waiting for {describe(self.step)}")
        if len(cards) != count:
            raise OutOfTurnError(f"the initial deal is {count} cards, not {len(cards)}")
        seats = self.seats
        boxes = len(seats)
        open_count = 2 * boxes + 1
        open_cards = cards[:open_count]
        for card in open_cards:
            if card.__class__ is not Card:
                raise OutOfTurnError(f"only the hole card is dealt face down, not {card!r}")
        hands = self.hands
        for i, seat in enumerate(seats):
            hand = hands[seat][0]
            hand.add(open_cards[i])  # type: ignore[arg-type]
            hand.add(open_cards[boxes + 1 + i])  # type: ignore[arg-type]
        self._dealer_add(open_cards[boxes])  # type: ignore[arg-type]
        if count > open_count:
            hole = cards[-1]
            self.hole = hole if isinstance(hole, SealedCard) else SealedCard(hole)
        self._cursor = count
        self._initial_done()

    def cover_card(self) -> None:
        """The cover card came out: it is set aside, the round goes on, and a reshuffle
        follows (PA 635a.7(d), NJ 19.7(j))."""
        self.reshuffle_due = True

    def take_insurance(self, amounts: Mapping[int, object]) -> None:
        """Record insurance wagers (cents by seat; seats not named take none).

        The amounts are typed ``object``: a script or a button may send anything, and each
        is checked here (the compiled build would otherwise refuse a float with a TypeError).

        Raises:
            OutOfTurnError: unless insurance is being offered.
            WagerError: for a seat not in the round or more than half its wager (PA 635a.8).
        """
        if not isinstance(self.step, NeedInsurance):
            raise OutOfTurnError(f"insurance is not offered: waiting for {describe(self.step)}")
        checked: dict[int, int] = {}
        for seat, amount in amounts.items():
            if seat not in self.wagers:
                raise WagerError(f"seat {seat}: insurance but no wager in this round")
            cents = check_cents(amount, f"seat {seat}: insurance", allow_zero=True)
            if cents * 2 > self.wagers[seat].wager:
                raise WagerError(
                    f"seat {seat}: insurance {cents / 100:.2f} is more than half the wager "
                    f"{self.wagers[seat].wager / 100:.2f}"
                )
            checked[seat] = cents
        # By seat, whatever order the caller listed them in: the payments come out the same
        # for the table and for a replay of it.
        self.insurance = {s: c for s, c in sorted(checked.items()) if c > 0}
        self._insurance_open = bool(self.insurance)
        self.step = self._after_insurance()

    def peek(self, blackjack: bool) -> None:
        """The card reader's answer: does the hole card give the dealer blackjack?

        Raises:
            OutOfTurnError: unless the round is waiting for the reader.
        """
        if not isinstance(self.step, NeedPeek):
            raise OutOfTurnError(f"no peek is due: waiting for {describe(self.step)}")
        self.peek_answer = blackjack
        self._settle_insurance(blackjack)
        # PA 635a.7(g): on a blackjack no additional cards; every wager is settled.
        self.step = NEED_REVEAL if blackjack else self._players_or_dealer()

    def decide(self, seat: int, decision: Decision) -> None:
        """Apply a player's decision to the hand whose turn it is.

        Raises:
            OutOfTurnError: when no decision is due or it is another seat's turn.
            IllegalDecisionError: for a decision the rules do not allow on this hand.
        """
        step = self.step
        if type(step) is not NeedDecision:
            raise OutOfTurnError(
                f"seat {seat}: {decision.value} out of turn: waiting for {describe(step)}"
            )
        turn = self._turn
        hand = turn.current()
        if seat != step.seat:
            raise OutOfTurnError(
                f"seat {seat}: {decision.value} out of turn: it is {hand.label}'s decision"
            )
        if not step.mask & decision.bit:
            why = why_illegal(hand, decision, self.profile, len(self.hands[hand.seat]))
            cards = " ".join(c.text for c in hand.cards)
            raise IllegalDecisionError(
                f"{hand.label}: {decision.value} is not allowed on {cards} ({why})"
            )
        self.decisions.append((seat, hand.index, decision))
        payment = turn.apply(hand, decision)
        if payment is not None:  # a surrender or a rescue is settled at once
            self._record(hand, payment)
        after = turn.next_step()  # inline _players_or_dealer, as in deal()
        self.step = self._dealer_step() if after is None else after

    def reveal_hole(self) -> Card:
        """Turn the hole card face up and return it (PA 635a.7(k)).

        Raises:
            OutOfTurnError: unless the reveal is due.
            HoleCardMismatchError: when the card disagrees with the reader's answer; the
                round has moved on with the real card, and the procedure must fault.
        """
        if self.step is not NEED_REVEAL or self.hole is None:
            raise OutOfTurnError(f"no reveal is due: waiting for {describe(self.step)}")
        card = self.hole.reveal()
        self._dealer_second(card)
        self.hole = None
        self.step = self._dealer_step()
        up = self.dealer_cards[0]
        if self.peek_answer is not None and self.peek_answer != hole_card_gives_blackjack(up, card):
            said = "blackjack" if self.peek_answer else "no blackjack"
            raise HoleCardMismatchError(
                f"the card reader said {said} but the hole card {card} with up card {up} "
                f"{'does not make' if self.peek_answer else 'makes'} a blackjack"
            )
        return card

    # --- initial deal ---------------------------------------------------------------------

    def _next_initial(self) -> None:
        self._cursor += 1
        if self._cursor < len(self._plan):
            self.step = self._plan[self._cursor]
        else:
            self._initial_done()

    def _initial_done(self) -> None:
        hands = self.hands
        for seat in self.seats:
            hand = hands[seat][0]
            if hand.is_blackjack:
                hand.status = _BLACKJACK
        if self._has_match:
            self._settle_match()
        if self.dealer_cards[0].points == 1:  # an ace up
            self.step = insurance_step(self.seats)
        else:
            self.step = self._after_insurance()

    def _dealer_add(self, card: Card) -> None:
        self.dealer_cards.append(card)
        points = card.points
        self._dealer_hard += points
        if points == 1:
            self._dealer_ace = True

    def _dealer_second(self, card: Card) -> None:
        # The dealer's second card (the hole card or NJ's "Dealer's Card"). J/Q/K are the
        # only 10-point cards: an ace and one of them make a hard 11.
        self._dealer_add(card)
        self._dealer_bj = self._dealer_ace and self._dealer_hard == 11

    def _settle_match(self) -> None:
        # PA 635a.7(f), NY 5324.12(d)(3): before any other card or reader use, from the
        # dealer's right counterclockwise.
        up = self.dealer_cards[0]
        for seat in reversed(self.seats):
            cents = self.wagers[seat].match
            if cents:
                first, second = self.hands[seat][0].cards
                self.payments.append(
                    match_the_dealer(seat, cents, (first, second), up, self.match_table)
                )

    def _after_insurance(self) -> Step:
        points = self.dealer_cards[0].points
        if points in {1, 10}:  # PEEK_RANKS: the only 1- and 10-point cards
            if self._ace_peeks:
                return PEEK_FOR_ACE if points == 10 else PEEK_FOR_TEN
        elif self.profile.blackjack_paid_at_once:
            # PA 635a.7(h)(1)(i): against a 2-9 up card a blackjack is paid at once;
            # against A/K/Q/J it is announced and paid after the reveal ((h)(1)(ii)).
            # NY 5324.12(b)(5): paid with the rest after the round (the profile says no).
            for seat in self.seats:
                hand = self.hands[seat][0]
                if hand.status is _BLACKJACK:
                    self._record(hand, self._settle(hand))
        return self._players_or_dealer()

    def _settle_insurance(self, dealer_blackjack: bool) -> None:
        if self._insurance_open:
            self._insurance_open = False
            for seat, cents in self.insurance.items():
                self.payments.append(settle_insurance(seat, cents, dealer_blackjack))

    def _players_or_dealer(self) -> Step:
        step = self._turn.next_step()
        return self._dealer_step() if step is None else step

    # --- dealer ---------------------------------------------------------------------------

    def _dealer_step(self) -> Step:
        if self.hole is not None:
            return NEED_REVEAL
        if len(self.dealer_cards) == 1:
            return SECOND_CARD  # NJ 19.7(g): "Dealer's Card"
        # Without a peek, insurance settles once the dealer's two cards are known.
        if self._insurance_open:
            self._settle_insurance(self._dealer_bj)
        hard = self._dealer_hard
        soft = self._dealer_ace and hard <= 11
        total = hard + 10 if soft else hard
        must_draw = dealer_must_draw(total, soft, self.profile)
        if (
            must_draw
            and not self._dealer_bj
            and (
                not self.profile.no_draw_when_decided
                or outcome_can_change(self.hands.values(), self.profile)
            )
        ):
            return DRAW_CARD
        self._settle_all()
        return ROUND_OVER

    # --- settlement -----------------------------------------------------------------------

    def _dealer_result(self) -> DealerResult:
        hard = self._dealer_hard
        total = hard + 10 if self._dealer_ace and hard <= 11 else hard
        # By tuple.__new__: a NamedTuple's own __new__ is Python code (see _main_payment).
        cards = self.dealer_cards
        return _NEW_TUPLE(_DEALER_RESULT, (total, len(cards), self._dealer_bj, cards[0]))

    def _settle(self, hand: PlayerHand) -> Payment:
        return settle_hand(hand, self._dealer_result(), self.profile)

    def _record(self, hand: PlayerHand, payment: Payment) -> None:
        hand.settled = True
        self.payments.append(payment)

    def _settle_all(self) -> None:
        final = final_settlement(
            self.seats, self.hands, self.wagers, self._dealer_result(), self.profile
        )
        self.final_from = len(self.payments)
        self.payments.extend(final)
