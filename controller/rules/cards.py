"""Spanish cards: ranks, suits, cards, the sealed hole card and the shoe's composition.

A Spanish deck has 48 cards: the four 10s are removed (NY 5324.12(a)). A 10 reaching the
station is a foreign card and is always rejected.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from random import Random
from typing import Final

from controller.rules.errors import ForeignCardError

# The sealed hole card lives in its own module, which the compiled build leaves as Python
# (the table's WithheldCard subclasses it; a compiled class takes no Python subclass). Still
# importable from here, where it was first defined.
from controller.rules.sealed import SealedCard  # noqa: F401


class Rank(IntEnum):
    """Card ranks of a Spanish deck; the value is the rank number (A=1, J=11, Q=12, K=13)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def symbol(self) -> str:
        """The rank as printed on a card index: ``A``, ``2`` .. ``9``, ``J``, ``Q``, ``K``."""
        return _RANK_SYMBOL[self]

    @property
    def points(self) -> int:
        """Point value with an ace counted as 1 and J/Q/K as 10."""
        return RANK_POINTS[self]


class Suit(Enum):
    """Card suits, by their index letter."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"


_RANK_SYMBOL: Final = {
    r: ("A" if r == Rank.ACE else "JQK"[r - 11] if r > 9 else str(int(r))) for r in Rank
}
_SYMBOL_RANK: Final = {s: r for r, s in _RANK_SYMBOL.items()}
#: Point value of each rank (ace 1, J/Q/K 10). A plain table: totals are the engine's
#: hottest path, and an IntEnum key hashes in C where a property call would not.
RANK_POINTS: Final[dict[Rank, int]] = {r: 10 if r >= Rank.JACK else int(r) for r in Rank}
_SUIT_BY_LETTER: Final = {s.value: s for s in Suit}

#: Rank numbers the station may see on the wire that are not in a Spanish deck.
FOREIGN_RANK_TEN: Final = 10

CARDS_PER_DECK: Final = 48
DECK_COUNTS: Final = (6, 8)


@dataclass(frozen=True, slots=True)
class Card:
    """One card of a Spanish deck; :func:`parse_card` and :meth:`of` give shared instances.

    ``points`` (ace 1, J/Q/K 10) is stored, not computed: a slot read is the cheapest
    lookup Python has, and the engine reads it for every card of every hand (a property
    calling ``RANK_POINTS[rank]`` cost 0.11 us a read, ~12 reads a round).
    """

    rank: Rank
    suit: Suit
    points: int = field(init=False, compare=False, repr=False)
    #: The card as text, e.g. ``7S``; stored like ``points`` (the journal and the table
    #: view write it for every card shown: a property cost 1.7 us a read).
    text: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "points", RANK_POINTS[self.rank])
        object.__setattr__(self, "text", self.rank.symbol + self.suit.value)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text})"

    @staticmethod
    def of(rank: Rank, suit: Suit) -> Card:
        """Return the shared card instance for ``rank`` and ``suit``."""
        return _BY_RANK_SUIT[rank, suit]


ALL_CARDS: Final[tuple[Card, ...]] = tuple(Card(r, s) for s in Suit for r in Rank)
_BY_RANK_SUIT: Final = {(c.rank, c.suit): c for c in ALL_CARDS}
_BY_TEXT: Final = {c.text: c for c in ALL_CARDS}


def parse_card(text: object) -> Card:
    """Parse a card such as ``7S``, ``KH`` or ``AD`` (case-insensitive).

    ``text`` is typed ``object``: it comes from the outside world, and the compiled build
    (mypyc) would otherwise refuse a non-string with a TypeError before this check.

    Raises:
        ForeignCardError: for a 10 (``10S``, ``TS``) or anything that is not a Spanish card.
    """
    if not isinstance(text, str):
        raise ForeignCardError(f"not a card: {text!r}")
    key = text.strip().upper()
    card = _BY_TEXT.get(key)
    if card is not None:
        return card
    if key[:-1] in ("10", "T") and key[-1:] in _SUIT_BY_LETTER:
        raise ForeignCardError(f"foreign card {text!r}: a Spanish deck has no 10s")
    raise ForeignCardError(f"not a card: {text!r} (expected rank A 2-9 J Q K and suit S H D C)")


def card_from_codes(rank: int, suit_letter: str) -> Card:
    """Build a card from a device's rank number (1..13) and suit letter.

    Raises:
        ForeignCardError: for rank 10 or any code outside a Spanish deck.
    """
    if rank == FOREIGN_RANK_TEN:
        raise ForeignCardError(f"foreign card 10{suit_letter}: a Spanish deck has no 10s")
    try:
        return _BY_RANK_SUIT[Rank(rank), _SUIT_BY_LETTER[suit_letter]]
    except (ValueError, KeyError):
        raise ForeignCardError(f"not a card: rank {rank}, suit {suit_letter!r}") from None


def shoe_composition(decks: int) -> Counter[Card]:
    """The exact composition of a batch of ``decks`` Spanish decks (NY 5324.12(a)).

    Raises:
        ValueError: unless ``decks`` is 6 or 8.
    """
    if decks not in DECK_COUNTS:
        raise ValueError(f"a Spanish 21 shoe has 6 or 8 decks, not {decks}")
    return Counter({card: decks for card in ALL_CARDS})


def shuffled_batch(decks: int, rng: Random) -> list[Card]:
    """A batch of ``decks`` Spanish decks in an order drawn from ``rng``.

    Raises:
        ValueError: unless ``decks`` is 6 or 8.
    """
    cards = list(shoe_composition(decks).elements())
    rng.shuffle(cards)
    return cards


def rank_counts(cards: Iterable[Card]) -> dict[Rank, int]:
    """Count cards per rank."""
    counts = dict.fromkeys(Rank, 0)
    for card in cards:
        counts[card.rank] += 1
    return counts


def composition_problems(decks: int, per_rank: Mapping[int, int], total: int) -> list[str]:
    """Compare a shuffler's reported batch with ``decks`` Spanish decks.

    ``per_rank`` maps rank numbers (1..13, 10 included) to counts. Returns readable problems,
    empty when the batch is exactly right.
    """
    problems: list[str] = []
    expected_total = decks * CARDS_PER_DECK
    if total != expected_total:
        problems.append(f"batch has {total} cards, {decks} decks need {expected_total}")
    tens = per_rank.get(FOREIGN_RANK_TEN, 0)
    if tens:
        problems.append(f"batch holds {tens} foreign 10s")
    for number, count in sorted(per_rank.items()):
        if number != FOREIGN_RANK_TEN and number not in Rank._value2member_map_ and count:
            problems.append(f"batch holds {count} cards of unknown rank {number}")
    for rank in Rank:
        count = per_rank.get(int(rank), 0)
        if count != 4 * decks:
            problems.append(f"rank {rank.symbol}: {count} cards, expected {4 * decks}")
    return problems
