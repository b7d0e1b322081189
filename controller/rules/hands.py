"""Hands: totals, blackjack, and the state of each player hand."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Final

from controller.rules.cards import Card, Rank
from controller.rules.profiles import Profile

BLACKJACK_TOTAL: Final = 21
# Final: the compiled build keeps these in C variables (see controller/rules/round.py).
_ACE: Final = Rank.ACE
_JACK: Final = Rank.JACK


def hand_total(cards: Sequence[Card]) -> tuple[int, bool]:
    """Best total of ``cards`` and whether it is soft (an ace counted as 11)."""
    hard = 0
    ace = False
    for card in cards:
        points = card.points
        hard += points
        if points == 1:
            ace = True
    if ace and hard + 10 <= BLACKJACK_TOTAL:
        return hard + 10, True
    return hard, False


#: PA 635a.7(l): the dealer draws until a hard or soft 17 or more.
DEALER_STANDS: Final = 17


def dealer_must_draw(total: int, soft: bool, profile: Profile) -> bool:
    """Whether the dealer's hand of ``total`` (``soft``: an ace counts 11) takes another
    card: below 17, and a soft 17 where the profile hits it (PA 635a.7(l)). Whether a draw
    can still change an outcome (PA 635a.7(m)) is the round's to judge."""
    return total < DEALER_STANDS or (total == DEALER_STANDS and soft and profile.hit_soft_17)


def is_blackjack_pair(first: Card, second: Card) -> bool:
    """True for an ace and a J, Q or K (in either order); there are no 10s to make one."""
    a, b = first.rank, second.rank
    return (a is _ACE and b >= _JACK) or (b is _ACE and a >= _JACK)


def hole_card_gives_blackjack(up_card: Card, hole_card: Card) -> bool:
    """What a card reader answers: does the hole card give the dealer blackjack?"""
    return is_blackjack_pair(up_card, hole_card)


class HandStatus(Enum):
    """Where a player hand is in its play."""

    PLAYING = "playing"  # waiting for a decision
    AWAITING_CARD = "awaiting_card"  # a hit, double or split card is due
    DOUBLED = "doubled"  # took its double card; may still be rescued
    STOOD = "stood"
    TWENTY_ONE = "twenty_one"
    BLACKJACK = "blackjack"
    BUST = "bust"
    SURRENDERED = "surrendered"
    RESCUED = "rescued"

    @property
    def finished(self) -> bool:
        """True once the hand takes no more cards or decisions."""
        return self not in _OPEN


_OPEN: Final = frozenset({HandStatus.PLAYING, HandStatus.AWAITING_CARD, HandStatus.DOUBLED})
# Members read in functions through Final names: ``HandStatus.PLAYING`` inside a function
# goes through the Enum class on every read (73 ns in Python 3.11, 17 ns for a module name;
# a new hand paid it once, outcome_can_change up to three times a hand).
_PLAYING: Final = HandStatus.PLAYING
_STOOD: Final = HandStatus.STOOD
_DOUBLED: Final = HandStatus.DOUBLED
_TWENTY_ONE: Final = HandStatus.TWENTY_ONE


class PlayerHand:
    """One player hand: cards, stake and status. Mutated only by the round engine."""

    __slots__ = (
        "cards",
        "double_cents",
        "from_split",
        "hard",
        "has_ace",
        "index",
        "seat",
        "settled",
        "status",
        "wager",
    )

    def __init__(self, seat: int, index: int, wager: int, *, from_split: bool = False) -> None:
        self.seat = seat
        self.index = index
        self.wager = wager
        self.cards: list[Card] = []
        self.hard = 0
        self.has_ace = False
        self.double_cents = 0
        self.from_split = from_split
        self.status = _PLAYING
        self.settled = False  # its main wager has a payment (set by the round engine)

    def add(self, card: Card) -> None:
        """Add a card and update the running totals."""
        self.cards.append(card)
        points = card.points
        self.hard += points
        if points == 1:
            self.has_ace = True

    @property
    def total(self) -> int:
        """Best total (an ace counts 11 where that does not bust)."""
        if self.has_ace and self.hard + 10 <= BLACKJACK_TOTAL:
            return self.hard + 10
        return self.hard

    @property
    def soft(self) -> bool:
        """True when an ace counts as 11 in :attr:`total`."""
        return self.has_ace and self.hard + 10 <= BLACKJACK_TOTAL

    @property
    def doubled(self) -> bool:
        """True once a Double Down wager is on this hand."""
        return self.double_cents > 0 or self.status is _DOUBLED

    @property
    def is_blackjack(self) -> bool:
        """Blackjack: ace + J/Q/K as the first two cards of an unsplit hand."""
        # The only 10-point cards of a Spanish deck are J, Q and K: two cards with an ace
        # and a hard total of 11 are an ace and a J/Q/K. Read from the running totals.
        return self.hard == 11 and self.has_ace and not self.from_split and len(self.cards) == 2

    @property
    def is_split_aces(self) -> bool:
        """True for a hand formed by splitting aces."""
        return self.from_split and bool(self.cards) and self.cards[0].rank is Rank.ACE

    @property
    def label(self) -> str:
        """How prompts and errors name the hand: ``seat 3 hand 2``."""
        return f"seat {self.seat} hand {self.index + 1}"

    def __repr__(self) -> str:
        cards = " ".join(c.text for c in self.cards)
        return f"PlayerHand({self.label}: {cards} = {self.total}, {self.status.value})"


def outcome_can_change(hands: Iterable[Sequence[PlayerHand]], profile: Profile) -> bool:
    """Whether some hand's result still depends on the dealer's total (PA 635a.7(m)).

    Called with the dealer on two cards and no blackjack: a player blackjack and a player
    21 of three or more cards win whatever the dealer draws. A split two-card 21 does not:
    a dealer 21 makes it a push (PA reading) or a 3:2 winner (NY 5324.12(b)(1)(iii), (b)(5))
    instead of a 1:1 winner, so the dealer draws while one stands (``profile`` is kept for
    readings that differ by profile).
    """
    for seat_hands in hands:
        for hand in seat_hands:
            status = hand.status
            if status is _STOOD or status is _DOUBLED or status is _TWENTY_ONE:
                if hand.total < BLACKJACK_TOTAL:
                    return True
                if hand.from_split and len(hand.cards) == 2:
                    return True
    return False
