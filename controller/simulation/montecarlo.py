"""Monte Carlo rounds through the real engine: a shoe of Spanish decks and one seat playing
basic strategy, for the house-edge run (``bench/house_edge.py``) and the like-for-like
benchmark (``bench/rules_bench.py``).

Every round is a :class:`controller.rules.round.Round`, the class the station settles with;
the simulation plays the shoe and the card reader (it answers the peek from the hole card,
as the replay command does). Pure: no I/O; the caller owns the random generator. In the
compiled build (``make compiled``) this module is C too: the shoe draws about six cards a
round and the loop asks the round for its next step about four times, and as Python calls
they were a fifth of a compiled like-for-like hand.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Final

from controller.rules.cards import ALL_CARDS, CARDS_PER_DECK, Card
from controller.rules.hands import hole_card_gives_blackjack
from controller.rules.profiles import Profile
from controller.rules.round import Round
from controller.rules.steps import (
    NeedCard,
    NeedDecision,
    NeedInsurance,
    NeedPeek,
    NeedReveal,
    SeatWager,
)
from controller.simulation.strategy import choose_by_mask

#: Decks left behind the cover card in a continuous shoe: 1.5 of 6 decks is a 75%
#: penetration, cardsharp's default too.
COVER_DECKS_BEHIND: Final = 1.5


class Shoe:
    """The cards, dealt either from a fresh shuffle each round or from continuous shoes.

    ``per_round``: every round is dealt from a freshly shuffled full shoe (a partial
    Fisher-Yates shuffle, one swap per card drawn). Otherwise one shuffled shoe is dealt
    down to the cover card, :data:`COVER_DECKS_BEHIND` decks from the end, and reshuffled
    before the next round (PA 635a.7(d)).
    """

    __slots__ = (
        "_swaps",
        "cards",
        "cover_at",
        "cover_seen",
        "next",
        "per_round",
        "random",
        "rng",
        "size",
    )

    def __init__(self, decks: int, rng: random.Random, *, per_round: bool) -> None:
        self.cards: list[Card] = [c for c in ALL_CARDS for _ in range(decks)]
        self.size = len(self.cards)
        self.rng = rng
        self.random = rng.random  # bound once: draw() runs ~6 times a round
        self.per_round = per_round
        self.cover_at = len(self.cards) - int(COVER_DECKS_BEHIND * CARDS_PER_DECK)
        self.next = 0
        self.cover_seen = False
        # For shuffle(): each place from the last down to the second, with the bit length
        # of the number of places it may swap with.
        self._swaps = tuple((i, (i + 1).bit_length()) for i in range(self.size - 1, 0, -1))
        if not per_round:
            self.shuffle()

    def new_round(self) -> None:
        """Start a round: a fresh shuffle (per round), or a reshuffle after the cover card."""
        if self.per_round:
            self.next = 0
        elif self.cover_seen:
            self.shuffle()
            self.next = 0
            self.cover_seen = False

    def shuffle(self) -> None:
        """Shuffle the whole shoe: the order ``rng.shuffle(cards)`` gives, in half the time.

        The same Fisher-Yates shuffle as CPython's ``random.shuffle``, drawing the same
        numbers from the generator (``getrandbits`` with rejection, as its ``_randbelow``),
        so a seed deals the same shoes as before; without ``_randbelow``'s Python call per
        card. A reshuffle took 36 us (about 0.9 us of a 13 us like-for-like hand, one every
        ~40 hands), and takes 14 us.
        """
        cards = self.cards
        getrandbits = self.rng.getrandbits
        for i, bits in self._swaps:
            j = getrandbits(bits)
            while j > i:  # uniform over 0..i: draw again outside it
                j = getrandbits(bits)
            cards[i], cards[j] = cards[j], cards[i]

    def draw(self) -> Card:
        """The next card. Per round, a partial Fisher-Yates shuffle draws it uniformly."""
        cards, i = self.cards, self.next
        if self.per_round:
            j = i + int(self.random() * (self.size - i))
            cards[i], cards[j] = cards[j], cards[i]
        elif i == self.cover_at:
            self.cover_seen = True
        self.next = i + 1
        return cards[i]

    def draw_cards(self, count: int) -> list[Card]:
        """The next ``count`` cards, as ``count`` calls of :meth:`draw` would give them.

        One call for a round's initial deal: the cards are one slice of the shoe, shuffled
        into place first in a per-round shoe (a comprehension of four draws cost 0.6 us of
        a 13 us like-for-like hand).

        Raises:
            IndexError: when the shoe holds fewer than ``count`` cards.
        """
        i = self.next
        end = i + count
        if end > self.size:
            raise IndexError(f"{count} cards asked for, {self.size - i} left in the shoe")
        cards = self.cards
        if self.per_round:  # draw()'s partial Fisher-Yates shuffle, one swap per card
            rand, size = self.random, self.size
            for k in range(i, end):
                j = k + int(rand() * (size - k))
                cards[k], cards[j] = cards[j], cards[k]
        elif i <= self.cover_at < end:
            self.cover_seen = True
        self.next = end
        return cards[i:end]


def play_seat(round_: Round, seat: int, shoe: Shoe, profile: Profile) -> None:
    """Play a round, its initial deal placed, to the end for one basic-strategy ``seat``.

    Cards come from ``shoe``; the hole card answers the card reader's peek; basic strategy
    never insures.
    """
    up = round_.dealer_cards[0]
    hands = round_.hands[seat]
    while True:
        step = round_.step
        kind = type(step)  # one type() and identity tests: cheaper than an isinstance chain
        if kind is NeedDecision:
            assert isinstance(step, NeedDecision)
            round_.decide(seat, choose_by_mask(hands[step.hand].cards, up, step.mask, profile))
        elif kind is NeedCard:
            round_.deal(shoe.draw())
        elif kind is NeedPeek:
            hole = round_.hole
            assert hole is not None  # a peek is due only with the hole card dealt
            round_.peek(hole_card_gives_blackjack(up, hole.reveal()))
        elif kind is NeedReveal:
            round_.reveal_hole()
        elif kind is NeedInsurance:
            round_.take_insurance({})
        else:
            return


def play_hand(
    profile: Profile, decks: int, wagers: Iterable[SeatWager], seat: int, shoe: Shoe
) -> tuple[Round, list[Card]]:
    """Deal and play one round for ``seat`` from ``shoe``; the round and its initial cards.

    The initial deal goes in one call, in shoe order: the seat, the up card, the seat, and
    the hole card where the profile deals one (PA 635a.7(e)); the cover card, when it came
    out during the round, is told to the round once it is played (nothing in it depends on
    it; the shoe reshuffles before the next round).
    """
    shoe.new_round()
    round_ = Round(profile, decks, wagers)
    initial = shoe.draw_cards(round_.initial_cards_due)
    round_.deal_initial(initial)
    play_seat(round_, seat, shoe, profile)
    if shoe.cover_seen:
        round_.cover_card()
    return round_, initial
