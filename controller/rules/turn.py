"""The players' turn: whose hand acts next, what it may do, what a decision or a card does.

:class:`Turn` is the part of a :class:`~controller.rules.round.Round` between the initial
deal (and the peek) and the dealer's play. Its cursor (seat index, hand index) moves from
the dealer's left (PA 635a.7(h)) and never re-walks finished hands; legal moves are an int
mask (each decision's ``bit``). The round checks a decision's turn and legality, records
the payments, and plays the dealer once :meth:`Turn.next_step` says the players are done.
"""

from __future__ import annotations

from typing import Final

from controller.rules.cards import Card
from controller.rules.hands import BLACKJACK_TOTAL, HandStatus, PlayerHand
from controller.rules.places import card_step, decision_step
from controller.rules.profiles import Profile
from controller.rules.settlement import Payment, settle_rescue, settle_surrender
from controller.rules.steps import CardRole, Decision, Step

# Final, one name a line: the compiled build keeps these in C variables (see round.py).
_PLAYING: Final = HandStatus.PLAYING
_AWAITING_CARD: Final = HandStatus.AWAITING_CARD
_DOUBLED: Final = HandStatus.DOUBLED
_STOOD: Final = HandStatus.STOOD
_BUST: Final = HandStatus.BUST
_TWENTY_ONE: Final = HandStatus.TWENTY_ONE
_SURRENDERED: Final = HandStatus.SURRENDERED
_RESCUED: Final = HandStatus.RESCUED
_STAND: Final = Decision.STAND
_HIT: Final = Decision.HIT
_DOUBLE: Final = Decision.DOUBLE
_SPLIT: Final = Decision.SPLIT
_SURRENDER: Final = Decision.SURRENDER
_STAND_BIT: Final[int] = _STAND.bit
_STAND_OR_RESCUE_BITS: Final[int] = _STAND.bit | Decision.RESCUE.bit
_HIT_BIT: Final[int] = _HIT.bit
_DOUBLE_BIT: Final[int] = _DOUBLE.bit
_SPLIT_BIT: Final[int] = _SPLIT.bit
_SURRENDER_BIT: Final[int] = _SURRENDER.bit
_HIT_ROLE: Final = CardRole.HIT
_DOUBLE_ROLE: Final = CardRole.DOUBLE
_SPLIT_ROLE: Final = CardRole.SPLIT


def legal_mask(hand: PlayerHand, hands_at_seat: int, profile: Profile) -> int:
    """The decisions ``hand`` may take as a mask, ``hands_at_seat`` counting its seat's hands.

    Called for a hand of two or more cards that is waiting for a decision (not doubled).
    """
    cards = hand.cards
    from_split = hand.from_split
    split_aces = from_split and cards[0].points == 1
    mask = _STAND_BIT
    if not split_aces or profile.hit_split_aces:
        mask |= _HIT_BIT
    # ASSUMPTION (635a.10): double on any number of cards.
    if (not from_split or profile.double_after_split) and (
        not split_aces or profile.double_split_aces
    ):
        mask |= _DOUBLE_BIT
    if len(cards) == 2:
        first = cards[0]
        if (
            first.rank is cards[1].rank
            and hands_at_seat < profile.max_split_hands
            and (first.points != 1 or not from_split or profile.resplit_aces)
        ):
            mask |= _SPLIT_BIT
        # ASSUMPTION (635a.9): late surrender on the initial two cards.
        if profile.surrender and not from_split:
            mask |= _SURRENDER_BIT
    return mask


class Turn:
    """The players' turn over ``hands`` (by seat, for ``seats`` in order) under ``profile``."""

    # A slots class (a native class in the compiled build): read and written per card.
    __slots__ = ("hand_index", "hands", "pending_role", "profile", "seat_index", "seats")

    def __init__(
        self, profile: Profile, seats: tuple[int, ...], hands: dict[int, list[PlayerHand]]
    ) -> None:
        self.profile = profile
        self.seats = seats
        self.hands = hands
        self.seat_index = 0
        self.hand_index = 0
        self.pending_role = _HIT_ROLE  # the role of the card a hand in AWAITING_CARD waits for

    def current(self) -> PlayerHand:
        """The hand the cursor is on (valid while :meth:`next_step` returned a step)."""
        return self.hands[self.seats[self.seat_index]][self.hand_index]

    def next_step(self) -> Step | None:
        """The next player card or decision from the cursor on, or None: the players are done.

        A split hand with one card gets its second card first; a hand with nothing to decide
        but stand (a split ace that may not be hit) stands.
        """
        # The cursor lives in locals while it moves: attribute writes per hand skipped and
        # len() per loop turn cost ~1 us a round (len was called 36 times a round).
        seats = self.seats
        seat_count = len(seats)
        i, j = self.seat_index, self.hand_index
        while i < seat_count:
            hands = self.hands[seats[i]]
            hand_count = len(hands)
            while j < hand_count:
                hand = hands[j]
                status = hand.status
                if status is _PLAYING:
                    if len(hand.cards) == 1:  # a split hand waits for its second card
                        self.seat_index, self.hand_index = i, j
                        hand.status = _AWAITING_CARD
                        self.pending_role = _SPLIT_ROLE
                        return card_step(_SPLIT_ROLE, hand.seat, j)
                    mask = legal_mask(hand, hand_count, self.profile)
                    if mask != _STAND_BIT:
                        self.seat_index, self.hand_index = i, j
                        return decision_step(hand.seat, j, mask)
                    hand.status = _STOOD  # e.g. a split ace that may not be hit
                elif status is _AWAITING_CARD:
                    self.seat_index, self.hand_index = i, j
                    return card_step(self.pending_role, hand.seat, j)
                elif status is _DOUBLED:
                    self.seat_index, self.hand_index = i, j
                    return decision_step(hand.seat, j, _STAND_OR_RESCUE_BITS)
                j += 1
            i += 1
            j = 0
        self.seat_index, self.hand_index = i, j
        return None

    def apply(self, hand: PlayerHand, decision: Decision) -> Payment | None:
        """Apply a legal ``decision`` to ``hand``; the payment a surrender or rescue settles."""
        if decision is _STAND:
            hand.status = _STOOD
        elif decision is _HIT:
            hand.status = _AWAITING_CARD
            self.pending_role = _HIT_ROLE
        elif decision is _DOUBLE:
            hand.double_cents = hand.wager
            hand.status = _AWAITING_CARD
            self.pending_role = _DOUBLE_ROLE
        elif decision is _SPLIT:
            hands = self.hands[hand.seat]
            second = hand.cards.pop()
            hand.hard -= second.points
            hand.has_ace = hand.cards[0].points == 1
            hand.from_split = True
            new = PlayerHand(hand.seat, hand.index + 1, hand.wager, from_split=True)
            new.add(second)
            hands.insert(hand.index + 1, new)
            for i, h in enumerate(hands):
                h.index = i
        elif decision is _SURRENDER:
            hand.status = _SURRENDERED
            return settle_surrender(hand)
        else:  # RESCUE
            hand.status = _RESCUED
            return settle_rescue(hand)
        return None

    def card(self, card: Card) -> None:
        """The hit, double or split card for the current hand."""
        hand = self.hands[self.seats[self.seat_index]][self.hand_index]
        hand.add(card)
        hard = hand.hard
        total = hard + 10 if hand.has_ace and hard <= 11 else hard
        if total > BLACKJACK_TOTAL:
            hand.status = _BUST
        elif total == BLACKJACK_TOTAL:
            hand.status = _TWENTY_ONE  # PA 635a.7(j)(1): no draw on 21
        elif self.pending_role is _DOUBLE_ROLE:
            # PA 635a.7(j)(2): one card after a double; rescue may still follow.
            hand.status = _DOUBLED if self.profile.rescue else _STOOD
        else:
            hand.status = _PLAYING
