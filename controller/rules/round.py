"""The round engine: one round of Spanish 21, fed one card, decision or answer at a time.

Pure and deterministic. ``Round.step`` says what the round needs next (a card for a given
place, an insurance answer, the card reader's answer, a player decision, the hole card's
reveal, or nothing: the round is over); the matching method applies it and moves on.
Anything out of turn raises :class:`OutOfTurnError`, an illegal decision
:class:`IllegalDecisionError`; neither changes the round. The replay command and the
table procedure both drive this class, so the station and the dispute tool settle alike.

The hole card is held as a :class:`SealedCard` until :meth:`Round.reveal_hole`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from controller.rules.cards import Card, Rank, SealedCard
from controller.rules.errors import (
    HoleCardMismatchError,
    IllegalDecisionError,
    OutOfTurnError,
    WagerError,
)
from controller.rules.hands import (
    BLACKJACK_TOTAL,
    HandStatus,
    PlayerHand,
    hand_total,
    hole_card_gives_blackjack,
    is_blackjack_pair,
)
from controller.rules.legality import SEATS, check_cents, check_wager, why_illegal
from controller.rules.profiles import DealerSecondCard, Profile
from controller.rules.settlement import (
    SUPER_BONUS_SHARE_CENTS,
    DealerResult,
    Outcome,
    Payment,
    WagerKind,
    apply_original_only,
    in_settlement_order,
    match_the_dealer,
    settle_hand,
    settle_insurance,
    settle_rescue,
    settle_surrender,
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
    NeedReveal,
    SeatWager,
    Step,
    describe,
)

PEEK_RANKS = frozenset({Rank.ACE, Rank.KING, Rank.QUEEN, Rank.JACK})  # PA 635a.7(g)
DEALER_STANDS = 17  # PA 635a.7(l)


class Round:
    """One round at the table under ``profile`` with a ``decks``-deck shoe.

    Raises:
        WagerError: for seats outside 1..7, a repeated seat, a wager that is not positive, a
            Match wager where the profile offers none, or no seat at all.
    """

    def __init__(self, profile: Profile, decks: int, wagers: Iterable[SeatWager]) -> None:
        self.profile = profile
        self.decks = decks
        self.match_table = profile.match_table(decks)
        self.wagers: dict[int, SeatWager] = {}
        for w in sorted(wagers, key=lambda w: w.seat):
            check_wager(w, profile, self.wagers)
            self.wagers[w.seat] = w
        if not self.wagers:
            raise WagerError("a round needs at least one seat with a wager")
        self.seats: tuple[int, ...] = tuple(self.wagers)
        self.hands: dict[int, list[PlayerHand]] = {
            s: [PlayerHand(s, 0, w.wager)] for s, w in self.wagers.items()
        }
        self.dealer_cards: list[Card] = []  # face-up cards; the hole card joins at the reveal
        self.hole: SealedCard | None = None
        self.payments: list[Payment] = []
        self.insurance: dict[int, int] = {}
        self.decisions: list[tuple[int, int, Decision]] = []
        self.reshuffle_due = False
        self.final_from = 0  # index of the first payment of the final settlement
        self.peek_answer: bool | None = None
        self._insurance_open = False
        self._settled: set[tuple[int, int]] = set()
        self._deal_plan = self._initial_plan()
        self._plan_index = 0
        self._seat_index = 0
        self._hand_index = 0
        self._pending_role = CardRole.HIT
        self.step: Step = self._deal_plan[0]

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
        cards = self.dealer_cards
        return len(cards) >= 2 and is_blackjack_pair(cards[0], cards[1])

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
        if not isinstance(step, NeedCard):
            raise OutOfTurnError(f"a card came out of the shoe while waiting for {describe(step)}")
        if step.role is CardRole.HOLE:
            self.hole = card if isinstance(card, SealedCard) else SealedCard(card)
            self._after_initial_card()
            return step
        if isinstance(card, SealedCard):
            raise OutOfTurnError(f"only the hole card is dealt face down, not {describe(step)}")
        role = step.role
        if role is CardRole.INITIAL:
            self.hands[step.seat or 0][0].add(card)
            self._after_initial_card()
        elif role is CardRole.UP:
            self.dealer_cards.append(card)
            self._after_initial_card()
        elif role in (CardRole.SECOND, CardRole.DRAW):
            self.dealer_cards.append(card)
            self.step = self._dealer_step()
        else:
            self._player_card(self._current_hand(), card)
        return step

    def cover_card(self) -> None:
        """The cover card came out: it is set aside, the round goes on, and a reshuffle
        follows (PA 635a.7(d), NJ 19.7(j))."""
        self.reshuffle_due = True

    def take_insurance(self, amounts: Mapping[int, int]) -> None:
        """Record insurance wagers (cents by seat; seats not named take none).

        Raises:
            OutOfTurnError: unless insurance is being offered.
            WagerError: for a seat not in the round or more than half its wager (PA 635a.8).
        """
        if not isinstance(self.step, NeedInsurance):
            raise OutOfTurnError(f"insurance is not offered: waiting for {describe(self.step)}")
        for seat, cents in amounts.items():
            if seat not in self.wagers:
                raise WagerError(f"seat {seat}: insurance but no wager in this round")
            check_cents(cents, f"seat {seat}: insurance", allow_zero=True)
            if cents * 2 > self.wagers[seat].wager:
                raise WagerError(
                    f"seat {seat}: insurance {cents / 100:.2f} is more than half the wager "
                    f"{self.wagers[seat].wager / 100:.2f}"
                )
        # By seat, whatever order the caller listed them in: the payments come out the same
        # for the table and for a replay of it.
        self.insurance = {s: c for s, c in sorted(amounts.items()) if c > 0}
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
        self.step = NEED_REVEAL if blackjack else self._player_step()

    def decide(self, seat: int, decision: Decision) -> None:
        """Apply a player's decision to the hand whose turn it is.

        Raises:
            OutOfTurnError: when no decision is due or it is another seat's turn.
            IllegalDecisionError: for a decision the rules do not allow on this hand.
        """
        step = self.step
        if not isinstance(step, NeedDecision):
            raise OutOfTurnError(
                f"seat {seat}: {decision.value} out of turn: waiting for {describe(step)}"
            )
        hand = self._current_hand()
        if seat != step.seat:
            raise OutOfTurnError(
                f"seat {seat}: {decision.value} out of turn: it is {hand.label}'s decision"
            )
        if decision not in step.legal:
            why = why_illegal(hand, decision, self.profile, len(self.hands[hand.seat]))
            cards = " ".join(c.text for c in hand.cards)
            raise IllegalDecisionError(
                f"{hand.label}: {decision.value} is not allowed on {cards} ({why})"
            )
        self.decisions.append((seat, hand.index, decision))
        self._apply(hand, decision)
        self.step = self._player_step()

    def reveal_hole(self) -> Card:
        """Turn the hole card face up and return it (PA 635a.7(k)).

        Raises:
            OutOfTurnError: unless the reveal is due.
            HoleCardMismatchError: when the card disagrees with the reader's answer; the
                round has moved on with the real card, and the procedure must fault.
        """
        if not isinstance(self.step, NeedReveal) or self.hole is None:
            raise OutOfTurnError(f"no reveal is due: waiting for {describe(self.step)}")
        card = self.hole.reveal()
        self.dealer_cards.append(card)
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

    def _initial_plan(self) -> list[NeedCard]:
        # PA 635a.7(e), NY 5324.12(c)(4), NJ 19.7(d): from the dealer's left, one card to
        # each box, the dealer's up card, a second card to each box, then the hole card
        # where the profile deals one.
        plan = [_INITIAL_CARD[s] for s in self.seats]
        plan.append(_UP_CARD)
        plan.extend(_INITIAL_CARD[s] for s in self.seats)
        if self.profile.dealer_second_card is DealerSecondCard.HOLE:
            plan.append(_HOLE_CARD)
        return plan

    def _after_initial_card(self) -> None:
        self._plan_index += 1
        if self._plan_index < len(self._deal_plan):
            self.step = self._deal_plan[self._plan_index]
            return
        for hands in self.hands.values():
            if hands[0].is_blackjack:
                hands[0].status = HandStatus.BLACKJACK
        self._settle_match()
        up = self.dealer_cards[0]
        if up.rank is Rank.ACE:
            self.step = NeedInsurance(self.seats)
        else:
            self.step = self._after_insurance()

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
        up = self.dealer_cards[0]
        if self.profile.uses_hole_card_peek and up.rank in PEEK_RANKS:
            return NeedPeek(looking_for_ace=up.rank is not Rank.ACE)
        self._pay_blackjacks_now()
        return self._player_step()

    def _pay_blackjacks_now(self) -> None:
        # PA 635a.7(h)(1)(i): against a 2-9 up card a blackjack is paid at once; against
        # A/K/Q/J it is announced and paid after the reveal ((h)(1)(ii)). NY 5324.12(b)(5):
        # paid with the rest after the round (profile.blackjack_paid_at_once false).
        if not self.profile.blackjack_paid_at_once or self.dealer_cards[0].rank in PEEK_RANKS:
            return
        for seat in self.seats:
            hand = self.hands[seat][0]
            if hand.status is HandStatus.BLACKJACK:
                self._record(hand, self._settle(hand))

    def _settle_insurance(self, dealer_blackjack: bool) -> None:
        if self._insurance_open:
            self._insurance_open = False
            for seat, cents in self.insurance.items():
                self.payments.append(settle_insurance(seat, cents, dealer_blackjack))

    # --- players --------------------------------------------------------------------------

    def _current_hand(self) -> PlayerHand:
        return self.hands[self.seats[self._seat_index]][self._hand_index]

    def _player_step(self) -> Step:
        while self._seat_index < len(self.seats):
            hands = self.hands[self.seats[self._seat_index]]
            while self._hand_index < len(hands):
                hand = hands[self._hand_index]
                status = hand.status
                if status is HandStatus.PLAYING:
                    if len(hand.cards) == 1:  # a split hand waits for its second card
                        hand.status = HandStatus.AWAITING_CARD
                        self._pending_role = CardRole.SPLIT
                        return NeedCard(CardRole.SPLIT, hand.seat, hand.index)
                    legal = self._legal(hand)
                    if legal != _STAND_ONLY:
                        return NeedDecision(hand.seat, hand.index, legal)
                    hand.status = HandStatus.STOOD  # e.g. a split ace that may not be hit
                elif status is HandStatus.AWAITING_CARD:
                    return NeedCard(self._pending_role, hand.seat, hand.index)
                elif status is HandStatus.DOUBLED:
                    return NeedDecision(hand.seat, hand.index, _STAND_OR_RESCUE)
                self._hand_index += 1
            self._seat_index += 1
            self._hand_index = 0
        return self._dealer_step()

    def _legal(self, hand: PlayerHand) -> frozenset[Decision]:
        profile = self.profile
        split_aces = hand.is_split_aces
        can_hit = not split_aces or profile.hit_split_aces
        # ASSUMPTION (635a.10): double on any number of cards.
        can_double = (not hand.from_split or profile.double_after_split) and (
            not split_aces or profile.double_split_aces
        )
        cards = hand.cards
        can_split = (
            len(cards) == 2
            and cards[0].rank is cards[1].rank
            and len(self.hands[hand.seat]) < profile.max_split_hands
            and (cards[0].rank is not Rank.ACE or not hand.from_split or profile.resplit_aces)
        )
        # ASSUMPTION (635a.9): late surrender on the initial two cards.
        can_surrender = profile.surrender and len(cards) == 2 and not hand.from_split
        return _LEGAL_SETS[can_hit, can_double, can_split, can_surrender]

    def _apply(self, hand: PlayerHand, decision: Decision) -> None:
        if decision is Decision.STAND:
            hand.status = HandStatus.STOOD
        elif decision is Decision.HIT:
            hand.status = HandStatus.AWAITING_CARD
            self._pending_role = CardRole.HIT
        elif decision is Decision.DOUBLE:
            hand.double_cents = hand.wager
            hand.status = HandStatus.AWAITING_CARD
            self._pending_role = CardRole.DOUBLE
        elif decision is Decision.SPLIT:
            hands = self.hands[hand.seat]
            second = hand.cards.pop()
            hand.hard -= second.rank.points
            hand.has_ace = hand.cards[0].rank is Rank.ACE
            hand.from_split = True
            new = PlayerHand(hand.seat, hand.index + 1, hand.wager, from_split=True)
            new.add(second)
            hands.insert(hand.index + 1, new)
            for i, h in enumerate(hands):
                h.index = i
        elif decision is Decision.SURRENDER:
            hand.status = HandStatus.SURRENDERED
            self._record(hand, settle_surrender(hand))
        else:  # RESCUE
            hand.status = HandStatus.RESCUED
            self._record(hand, settle_rescue(hand))

    def _player_card(self, hand: PlayerHand, card: Card) -> None:
        hand.add(card)
        total = hand.total
        if total > BLACKJACK_TOTAL:
            hand.status = HandStatus.BUST
        elif total == BLACKJACK_TOTAL:
            hand.status = HandStatus.TWENTY_ONE  # PA 635a.7(j)(1): no draw on 21
        elif self._pending_role is CardRole.DOUBLE:
            # PA 635a.7(j)(2): one card after a double; rescue may still follow.
            hand.status = HandStatus.DOUBLED if self.profile.rescue else HandStatus.STOOD
        else:
            hand.status = HandStatus.PLAYING
        self.step = self._player_step()

    # --- dealer ---------------------------------------------------------------------------

    def _dealer_step(self) -> Step:
        if self.hole is not None:
            return NEED_REVEAL
        cards = self.dealer_cards
        if len(cards) == 1:
            return _SECOND_CARD  # NJ 19.7(g): "Dealer's Card"
        # Without a peek, insurance settles once the dealer's two cards are known.
        self._settle_insurance(self.dealer_blackjack)
        total, soft = hand_total(cards)
        must_draw = total < DEALER_STANDS or (
            total == DEALER_STANDS and soft and self.profile.hit_soft_17
        )
        if (
            must_draw
            and not self.dealer_blackjack
            and (not self.profile.no_draw_when_decided or self._outcome_can_change())
        ):
            return _DRAW_CARD
        self._settle_all()
        return ROUND_OVER

    def _outcome_can_change(self) -> bool:
        # PA 635a.7(m): the dealer holds two cards and no blackjack here, so a player
        # blackjack and a player 21 of three or more cards win the same whatever the dealer
        # draws. A split two-card 21 does not: a dealer 21 makes it a push (PA reading) or a
        # 3:2 winner (NY 5324.12(b)(1)(iii), (b)(5)) instead of a 1:1 winner.
        for hands in self.hands.values():
            for hand in hands:
                status = hand.status
                if status in (HandStatus.STOOD, HandStatus.DOUBLED, HandStatus.TWENTY_ONE):
                    if hand.total < BLACKJACK_TOTAL:
                        return True
                    if hand.from_split and len(hand.cards) == 2:
                        return True
        return False

    # --- settlement -----------------------------------------------------------------------

    def _dealer_result(self) -> DealerResult:
        total, _ = hand_total(self.dealer_cards)
        return DealerResult(
            total, len(self.dealer_cards), self.dealer_blackjack, self.dealer_cards[0]
        )

    def _settle(self, hand: PlayerHand) -> Payment:
        return settle_hand(hand, self._dealer_result(), self.profile)

    def _record(self, hand: PlayerHand, payment: Payment) -> None:
        self._settled.add((hand.seat, hand.index))
        self.payments.append(payment)

    def _settle_all(self) -> None:
        dealer = self._dealer_result()
        dealer_bj = dealer.blackjack
        final: list[Payment] = []
        for seat in self.seats:
            seat_payments = [
                settle_hand(hand, dealer, self.profile)
                for hand in self.hands[seat]
                if (seat, hand.index) not in self._settled
            ]
            if dealer_bj:
                busted = frozenset(h.index for h in self.hands[seat] if h.status is HandStatus.BUST)
                apply_original_only(seat_payments, self.wagers[seat].wager, self.profile, busted)
            final.extend(seat_payments)
        for payment in [p for p in final if p.super_bonus_hand]:
            # NY 5324.12(b)(7): $50 to every other player who wagered this round.
            final.extend(
                Payment(
                    s,
                    WagerKind.SUPER_BONUS_SHARE,
                    Outcome.WIN,
                    SUPER_BONUS_SHARE_CENTS,
                    note=f"super bonus at seat {payment.seat}",
                )
                for s in self.seats
                if s != payment.seat
            )
        self.final_from = len(self.payments)
        self.payments.extend(in_settlement_order(final, self.profile))


# The steps every round asks for, built once: a step is immutable, and building sixteen
# frozen dataclasses per round was a tenth of the engine's time.
_INITIAL_CARD = {s: NeedCard(CardRole.INITIAL, s, 0) for s in SEATS}
_UP_CARD = NeedCard(CardRole.UP)
_HOLE_CARD = NeedCard(CardRole.HOLE)
_SECOND_CARD = NeedCard(CardRole.SECOND)
_DRAW_CARD = NeedCard(CardRole.DRAW)
_STAND_ONLY = frozenset({Decision.STAND})
_STAND_OR_RESCUE = frozenset({Decision.STAND, Decision.RESCUE})
# Every legal set a playing hand can have, by (hit, double, split, surrender): built once,
# because hashing enum members into a new set per decision dominated the engine's time.
_LEGAL_SETS: dict[tuple[bool, bool, bool, bool], frozenset[Decision]] = {
    (hit, double, split, surrender): frozenset(
        d
        for d, allowed in (
            (Decision.STAND, True),
            (Decision.HIT, hit),
            (Decision.DOUBLE, double),
            (Decision.SPLIT, split),
            (Decision.SURRENDER, surrender),
        )
        if allowed
    )
    for hit in (False, True)
    for double in (False, True)
    for split in (False, True)
    for surrender in (False, True)
}
