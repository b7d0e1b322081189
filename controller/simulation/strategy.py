"""Spanish 21 basic strategy: the decision a player following the published charts makes.

Source: the Wizard of Odds Spanish 21 basic strategy (Michael Shackleford,
https://wizardofodds.com/games/spanish-21/), its two charts for six to eight Spanish decks,
dealer stands on soft 17 and dealer hits soft 17, under the rules: late surrender, double
on any number of cards, double after split, resplit aces, double-down rescue, player
blackjack and player 21 always win, bonuses for 5/6/7-card 21, 6-7-8 and 7-7-7 (not on
a doubled hand). The charts depend on the number of cards in the hand for some totals
(e.g. stand on 16 against a 2 with up to four cards, hit with five or more, to chase the
multi-card 21 bonuses) and on the suits of a two-card 6-8 or 7-8 (hit to chase a 6-7-8
bonus); both are encoded below. The charts were transcribed by hand into the tables of
this module; the house-edge benchmark (``bench/house_edge.py``) checks the result
against the published house edge.

Cell notation (one cell per dealer up card 2 3 4 5 6 7 8 9 10 A):

- ``H`` hit, ``S`` stand, ``D`` double (hit when doubling is not allowed), ``R``
  surrender (hit when surrender is not allowed);
- ``Dn`` double with fewer than ``n`` cards, hit with ``n`` or more;
- ``Sn`` stand with fewer than ``n`` cards, hit with ``n`` or more;
- a suffix ``a``/``u``/``p`` on ``S``: hit a two-card 6-8 or 7-8 of any suit / of one
  suit / of spades, to draw to a 6-7-8 bonus;
- pairs: ``P`` split, ``N`` play the total, ``Pu`` split unless the two cards are suited
  (a suited 7-7 against a 7 is played for the 7-7-7 bonus), ``PR`` split, or surrender
  where the profile allows it.

Insurance is never taken (it is a losing wager at 2:1 with three ten-valued cards in
twelve). Pure: no I/O; used by the house-edge benchmark and the simulated players.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from controller.rules.cards import Card, Suit
from controller.rules.profiles import Profile
from controller.rules.steps import (
    LEGAL_SETS,
    Decision,
)

#: Dealer up-card columns of every chart row.
UP_CARDS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "A")

# Final, one name a line: the compiled build keeps these in C variables (see
# controller/rules/round.py).
_HIT: Final = Decision.HIT
_STAND: Final = Decision.STAND
_DOUBLE: Final = Decision.DOUBLE
_SPLIT: Final = Decision.SPLIT
_SURRENDER: Final = Decision.SURRENDER
_RESCUE: Final = Decision.RESCUE
_STAND_OR_RESCUE_MASK: Final = _STAND.bit | _RESCUE.bit
#: A legal set's mask by the set: the engine's steps share the sets of ``LEGAL_SETS``, whose
#: hash is cached, so this lookup replaces up to four ``decision in legal`` tests, each of
#: which calls Enum's Python-level ``__hash__`` (0.15 us).
_MASK_OF: Final = {legal: mask for mask, legal in enumerate(LEGAL_SETS)}
#: A chart column by the up card's points (ace 1 -> the "A" column).
_COLUMN_BY_POINTS: Final = (-1, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8)
_NO_LIMIT: Final = 99

#: A chart cell compiled once: (decision, card-count limit, 6-7-8 chase suffix).
Cell = tuple[Decision, int, str]


def _compile(cell: str) -> Cell:
    kind, rest = cell[0], cell[1:]
    digits = rest.rstrip("aup")
    limit = int(digits) if digits else _NO_LIMIT
    decision = {"H": _HIT, "R": _SURRENDER, "D": _DOUBLE}.get(kind, _STAND)
    return decision, limit, rest[len(digits) :]


@dataclass(frozen=True, slots=True)
class Chart:
    """One basic-strategy chart: rows by total (or pair rank), one cell per up card.

    The cells are compiled once into ``(decision, limit, suffix)`` tuples: parsing a cell's
    text for every decision cost 0.6 us, a tenth of a basic-strategy round.
    """

    hard: Mapping[int, tuple[str, ...]]
    soft: Mapping[int, tuple[str, ...]]
    pairs: Mapping[int, tuple[str, ...]]  # by card points: 1 (aces) .. 10 (J/Q/K)
    # Rescue after a double: (lowest total, highest total, up cards) triples.
    rescue: tuple[tuple[int, int, frozenset[int]], ...]
    hard_cells: dict[int, tuple[Cell, ...]] = field(init=False, compare=False, repr=False)
    soft_cells: dict[int, tuple[Cell, ...]] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        for name, rows in (("hard_cells", self.hard), ("soft_cells", self.soft)):
            compiled = {total: tuple(_compile(c) for c in row) for total, row in rows.items()}
            object.__setattr__(self, name, compiled)


def _rows(text: str) -> dict[int, tuple[str, ...]]:
    rows: dict[int, tuple[str, ...]] = {}
    for line in text.strip().splitlines():
        key, *cells = line.split()
        if len(cells) != len(UP_CARDS):
            raise ValueError(f"chart row {key} has {len(cells)} cells")  # a typo in a table
        rows[int(key)] = tuple(cells)
    return rows


# Dealer stands on soft 17. Totals not listed: hard 4-8 hit, hard 18+ stand.
S17: Final = Chart(
    hard=_rows("""
        9   H   H   H   H   D4  H   H   H   H   H
        10  D5  D5  D   D   D   D4  D3  H   H   H
        11  D4  D5  D5  D5  D5  D4  D4  D4  D3  D3
        12  H   H   H   H   H   H   H   H   H   H
        13  H   H   H   H   H   H   H   H   H   H
        14  H   H   S4a S5a S4a H   H   H   H   H
        15  S4a S5a S5p S6  S6p H   H   H   H   H
        16  S5  S6  S6  S   S   H   H   H   H   H
        17  S   S   S   S   S   S   S6  S6  S6  R
    """),
    soft=_rows("""
        12  H   H   H   H   H   H   H   H   H   H
        13  H   H   H   H   H   H   H   H   H   H
        14  H   H   H   H   H   H   H   H   H   H
        15  H   H   H   H   H   H   H   H   H   H
        16  H   H   H   H   D4  H   H   H   H   H
        17  H   H   D3  D4  D5  H   H   H   H   H
        18  S4  S4  D4  D5  D5  S6  S4  H   H   H
        19  S   S   S   S   S   S   S   S   S6  S
        20  S   S   S   S   S   S   S   S   S6  S
    """),
    pairs=_rows("""
        1   P   P   P   P   P   P   P   P   P   P
        2   P   P   P   P   P   P   P   N   N   N
        3   P   P   P   P   P   P   P   N   N   N
        4   N   N   N   N   N   N   N   N   N   N
        5   N   N   N   N   N   N   N   N   N   N
        6   N   N   P   P   P   N   N   N   N   N
        7   P   P   P   P   P   Pu  N   N   N   N
        8   P   P   P   P   P   P   P   P   P   P
        9   N   P   P   P   P   N   P   P   N   N
        10  N   N   N   N   N   N   N   N   N   N
    """),
    rescue=((12, 16, frozenset({8, 9, 10, 11})), (17, 17, frozenset({11}))),
)

# Dealer hits soft 17 (the profile option ``hit_soft_17``).
H17: Final = Chart(
    hard=_rows("""
        9   H   H   H   H   D   H   H   H   H   H
        10  D5  D5  D   D   D   D4  D3  H   H   H
        11  D4  D5  D5  D5  D5  D4  D4  D4  D3  D3
        12  H   H   H   H   H   H   H   H   H   H
        13  H   H   H   H   S4a H   H   H   H   H
        14  H   H   S4a S5u S6p H   H   H   H   H
        15  S4a S5u S6  S6  S   H   H   H   H   H
        16  S6  S6  S6  S   S   H   H   H   H   R
        17  S   S   S   S   S   S   S6  S6  S6  R
    """),
    soft=_rows("""
        12  H   H   H   H   H   H   H   H   H   H
        13  H   H   H   H   H   H   H   H   H   H
        14  H   H   H   H   H   H   H   H   H   H
        15  H   H   H   H   D4  H   H   H   H   H
        16  H   H   H   D3  D4  H   H   H   H   H
        17  H   H   D3  D4  D5  H   H   H   H   H
        18  S4  S4  D4  D5  D6  S6  S4  H   H   H
        19  S   S   S   S   S   S   S   S   S6  S6
        20  S   S   S   S   S   S   S   S   S   S
    """),
    pairs=_rows("""
        1   P   P   P   P   P   P   P   P   P   P
        2   P   P   P   P   P   P   P   N   N   N
        3   P   P   P   P   P   P   P   N   N   N
        4   N   N   N   N   N   N   N   N   N   N
        5   N   N   N   N   N   N   N   N   N   N
        6   N   N   P   P   P   N   N   N   N   N
        7   P   P   P   P   P   Pu  N   N   N   N
        8   P   P   P   P   P   P   P   P   P   PR
        9   N   P   P   P   P   N   P   P   N   N
        10  N   N   N   N   N   N   N   N   N   N
    """),
    rescue=((12, 16, frozenset({8, 9, 10, 11})), (17, 17, frozenset({11}))),
)

_SIX_EIGHT: Final = frozenset({6, 7, 8})


def chart_for(profile: Profile) -> Chart:
    """The chart matching the profile's soft-17 rule."""
    return H17 if profile.hit_soft_17 else S17


def _column(up_card: Card) -> int:
    return _COLUMN_BY_POINTS[up_card.points]


def _up_value(up_card: Card) -> int:
    points = up_card.points
    return 11 if points == 1 else points


def _totals(cards: Sequence[Card]) -> tuple[int, bool]:
    hard = 0
    ace = False
    for card in cards:
        points = card.points
        hard += points
        if points == 1:
            ace = True
    if ace and hard <= 11:
        return hard + 10, True
    return hard, False


def _chases_six_seven_eight(cards: Sequence[Card], suffix: str) -> bool:
    # A two-card 14 (6-8) or 15 (7-8) is one card away from 6-7-8: hit when the
    # bonus the chart names is still possible.
    if len(cards) != 2:
        return False
    first, second = cards
    if first.rank is second.rank or {first.rank, second.rank} - _SIX_EIGHT:
        return False
    if suffix == "a":
        return True
    if first.suit is not second.suit:
        return False
    return suffix == "u" or first.suit is Suit.SPADES


def _cell_decision(cell: Cell, cards: Sequence[Card]) -> Decision:
    """The chart's wish for ``cell`` (before checking what is legal)."""
    decision, limit, suffix = cell
    if decision is _HIT or decision is _SURRENDER:
        return decision
    count = len(cards)
    if decision is _DOUBLE:
        return _DOUBLE if count < limit else _HIT
    if count >= limit:
        return _HIT
    if suffix and _chases_six_seven_eight(cards, suffix):
        return _HIT
    return _STAND


def preferred(cards: Sequence[Card], up_card: Card, chart: Chart) -> Decision:
    """The chart's decision for a playable hand, ignoring what the round allows."""
    total, soft = _totals(cards)
    column = _COLUMN_BY_POINTS[up_card.points]
    if len(cards) == 2 and cards[0].points == cards[1].points:
        # Only identical ranks split at the table; J-Q is played as a hard 20 anyway.
        cell = chart.pairs[cards[0].points][column]
        if cell == "PR":
            return _SURRENDER
        if cell[0] == "P" and (cell != "Pu" or cards[0].suit is not cards[1].suit):
            return _SPLIT
    if total >= 21:
        return _STAND
    if soft:
        row = chart.soft_cells.get(total)
        return _STAND if row is None else _cell_decision(row[column], cards)
    if total <= 8:
        return _HIT
    if total >= 18:
        return _STAND
    return _cell_decision(chart.hard_cells[total][column], cards)


def _rescue(cards: Sequence[Card], up_card: Card, chart: Chart) -> Decision:
    total, _ = _totals(cards)
    up = _up_value(up_card)
    for low, high, ups in chart.rescue:
        if low <= total <= high and up in ups:
            return _RESCUE
    return _STAND


def choose(
    hand_cards: Sequence[Card],
    up_card: Card,
    legal: frozenset[Decision],
    profile: Profile,
) -> Decision:
    """The basic-strategy decision for a hand, always one of ``legal``.

    A doubled hand (``legal`` is stand or rescue) is rescued where the chart says so.
    When the chart's choice is not allowed: a split is played as the total, a double
    becomes a hit (a stand on soft 18 or more), a surrender becomes a split for 8-8 and
    a hit otherwise (the source: hit hard 17 against an ace when surrender is not
    offered), and a hit that is not allowed (split aces) becomes a stand.

    Raises:
        ValueError: if ``legal`` is empty.
    """
    mask = _MASK_OF.get(legal)
    if mask is None:  # a set the engine did not make
        mask = sum(d.bit for d in legal)
    return choose_by_mask(hand_cards, up_card, mask, profile)


def choose_by_mask(
    hand_cards: Sequence[Card], up_card: Card, mask: int, profile: Profile
) -> Decision:
    """:func:`choose` with the legal decisions as a mask (:attr:`NeedDecision.mask`).

    Raises:
        ValueError: if ``mask`` holds no decision.
    """
    if not 0 < mask < len(LEGAL_SETS):
        raise ValueError("no legal decision to choose from")
    legal = LEGAL_SETS[mask]
    chart = H17 if profile.hit_soft_17 else S17
    if not mask & ~_STAND_OR_RESCUE_MASK:
        wish = _rescue(hand_cards, up_card, chart) if mask & _RESCUE.bit else _STAND
        return wish if mask & wish.bit else next(iter(legal))
    wish = preferred(hand_cards, up_card, chart)
    if mask & wish.bit:
        return wish
    if wish is _SURRENDER and mask & _SPLIT.bit:
        return _SPLIT  # "PR": split where surrender is not offered
    if wish is _SPLIT or wish is _SURRENDER:
        wish = preferred_without_split(hand_cards, up_card, chart)
        if mask & wish.bit:
            return wish
    total, soft = _totals(hand_cards)
    if wish is _DOUBLE:
        wish = _STAND if soft and total >= 18 else _HIT
    elif wish is _SURRENDER:
        wish = _HIT  # the charts hit 16 and 17 against an ace without surrender
    if mask & wish.bit:
        return wish
    return _STAND if mask & _STAND.bit else next(iter(sorted(legal, key=str)))


def preferred_without_split(cards: Sequence[Card], up_card: Card, chart: Chart) -> Decision:
    """The chart's decision for a pair played as its total (no split allowed)."""
    total, soft = _totals(cards)
    column = _COLUMN_BY_POINTS[up_card.points]
    if soft:
        return _cell_decision(chart.soft_cells[total][column], cards)
    if total <= 8:
        return _HIT
    if total >= 18:
        return _STAND
    return _cell_decision(chart.hard_cells[total][column], cards)
