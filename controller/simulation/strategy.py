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
from dataclasses import dataclass
from typing import Final

from controller.rules.cards import Card, Rank, Suit
from controller.rules.profiles import Profile
from controller.rules.steps import Decision

#: Dealer up-card columns of every chart row.
UP_CARDS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "A")

_STAND_OR_RESCUE: Final = frozenset({Decision.STAND, Decision.RESCUE})


@dataclass(frozen=True, slots=True)
class Chart:
    """One basic-strategy chart: rows by total (or pair rank), one cell per up card."""

    hard: Mapping[int, tuple[str, ...]]
    soft: Mapping[int, tuple[str, ...]]
    pairs: Mapping[int, tuple[str, ...]]  # by card points: 1 (aces) .. 10 (J/Q/K)
    # Rescue after a double: (lowest total, highest total, up cards) triples.
    rescue: tuple[tuple[int, int, frozenset[int]], ...]


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
    points = up_card.rank.points
    return 9 if points == 1 else points - 2


def _up_value(up_card: Card) -> int:
    points = up_card.rank.points
    return 11 if points == 1 else points


def _totals(cards: Sequence[Card]) -> tuple[int, bool]:
    hard = 0
    ace = False
    for card in cards:
        hard += card.rank.points
        ace = ace or card.rank is Rank.ACE
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


def _cell_decision(cell: str, cards: Sequence[Card], total: int) -> Decision:
    """The chart's wish for ``cell`` (before checking what is legal)."""
    kind, rest = cell[0], cell[1:]
    count = len(cards)
    if kind == "H":
        return Decision.HIT
    if kind == "R":
        return Decision.SURRENDER
    digits = rest.rstrip("aup")
    limit = int(digits) if digits else None
    if kind == "D":
        return Decision.DOUBLE if limit is None or count < limit else Decision.HIT
    # "S"
    if limit is not None and count >= limit:
        return Decision.HIT
    suffix = rest[len(digits) :]
    if suffix and _chases_six_seven_eight(cards, suffix):
        return Decision.HIT
    return Decision.STAND


def preferred(cards: Sequence[Card], up_card: Card, chart: Chart) -> Decision:
    """The chart's decision for a playable hand, ignoring what the round allows."""
    total, soft = _totals(cards)
    column = _column(up_card)
    if len(cards) == 2 and cards[0].rank.points == cards[1].rank.points:
        # Only identical ranks split at the table; J-Q is played as a hard 20 anyway.
        cell = chart.pairs[cards[0].rank.points][column]
        if cell == "PR":
            return Decision.SURRENDER
        if cell.startswith("P") and (cell != "Pu" or cards[0].suit is not cards[1].suit):
            return Decision.SPLIT
    if total >= 21:
        return Decision.STAND
    if soft:
        if total >= 21 or total not in chart.soft:
            return Decision.STAND
        return _cell_decision(chart.soft[total][column], cards, total)
    if total <= 8:
        return Decision.HIT
    if total >= 18:
        return Decision.STAND
    return _cell_decision(chart.hard[total][column], cards, total)


def _rescue(cards: Sequence[Card], up_card: Card, chart: Chart) -> Decision:
    total, _ = _totals(cards)
    up = _up_value(up_card)
    for low, high, ups in chart.rescue:
        if low <= total <= high and up in ups:
            return Decision.RESCUE
    return Decision.STAND


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
    if not legal:
        raise ValueError("no legal decision to choose from")
    chart = chart_for(profile)
    if legal <= _STAND_OR_RESCUE:
        wish = _rescue(hand_cards, up_card, chart) if Decision.RESCUE in legal else Decision.STAND
        return wish if wish in legal else next(iter(legal))
    wish = preferred(hand_cards, up_card, chart)
    if wish is Decision.SURRENDER and wish not in legal and Decision.SPLIT in legal:
        wish = Decision.SPLIT  # "PR": split where surrender is not offered
    if wish in (Decision.SPLIT, Decision.SURRENDER) and wish not in legal:
        wish = preferred_without_split(hand_cards, up_card, chart)
    if wish in legal:
        return wish
    total, soft = _totals(hand_cards)
    if wish is Decision.DOUBLE:
        wish = Decision.STAND if soft and total >= 18 else Decision.HIT
    elif wish is Decision.SURRENDER:
        wish = Decision.HIT  # the charts hit 16 and 17 against an ace without surrender
    if wish in legal:
        return wish
    return Decision.STAND if Decision.STAND in legal else next(iter(sorted(legal, key=str)))


def preferred_without_split(cards: Sequence[Card], up_card: Card, chart: Chart) -> Decision:
    """The chart's decision for a pair played as its total (no split allowed)."""
    total, soft = _totals(cards)
    column = _column(up_card)
    if soft:
        return _cell_decision(chart.soft[total][column], cards, total)
    if total <= 8:
        return Decision.HIT
    if total >= 18:
        return Decision.STAND
    return _cell_decision(chart.hard[total][column], cards, total)
