"""Basic strategy: chart cells, card-count and suit entries, rescue, and legality."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.cards import ALL_CARDS, Card, parse_card
from controller.rules.profiles import NEW_YORK, PENNSYLVANIA
from controller.rules.steps import Decision
from controller.simulation.strategy import H17, S17, UP_CARDS, Chart, choose, preferred

D = Decision
FULL = frozenset({D.HIT, D.STAND, D.DOUBLE, D.SURRENDER})
PAIR = FULL | {D.SPLIT}
NO_SURRENDER = frozenset({D.HIT, D.STAND, D.DOUBLE})
DOUBLED = frozenset({D.STAND, D.RESCUE})
H17_PROFILE = NEW_YORK.with_options(hit_soft_17=True)  # PA 635a.7(l) fixes S17


def cards(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


def pick(hand: str, up: str, legal: frozenset[Decision] = FULL, profile=PENNSYLVANIA) -> Decision:
    return choose(cards(hand), parse_card(up), legal, profile)


@pytest.mark.parametrize(
    ("hand", "up", "legal", "expected"),
    [
        # Hard 11 doubles against a king with two cards only (cell D3).
        ("6S 5H", "KD", NO_SURRENDER, D.DOUBLE),
        ("2S 4H 5C", "KD", NO_SURRENDER, D.HIT),
        # Hard 10 against a 6 doubles with any number of cards.
        ("2S 3H 2C 3D", "6C", NO_SURRENDER, D.DOUBLE),
        # Hard 16 against a 2: stand with up to four cards, hit with five (cell S5).
        ("2S 3H 4C 7D", "2C", NO_SURRENDER, D.STAND),
        ("2S 3H 4C 2D 5D", "2C", NO_SURRENDER, D.HIT),
        # Hard 12 always hits in Spanish 21.
        ("9S 3H", "5C", FULL, D.HIT),
        # Hard 17 against an ace: surrender, else hit (the source's note).
        ("9S 8H", "AC", FULL, D.SURRENDER),
        ("9S 8H", "AC", NO_SURRENDER, D.HIT),
        ("9S 8H", "7C", FULL, D.STAND),
        # A two-card 6-8 (14) against a 4 hits for the 6-7-8 bonus; 9-5 stands.
        ("6S 8H", "4C", FULL, D.HIT),
        ("9S 5H", "4C", FULL, D.STAND),
        # 7-8 (15) against a 4 hits only when both are spades.
        ("7S 8S", "4C", FULL, D.HIT),
        ("7H 8H", "4C", FULL, D.STAND),
        # Soft 18 against a 5: double with up to four cards, hit with five (cell D5).
        ("AS 2H 2C 3D", "5C", NO_SURRENDER, D.DOUBLE),
        ("AS 2H 2C 2D AD", "5C", NO_SURRENDER, D.HIT),
        # Soft 18 against a 9 hits; against a 2 stands.
        ("AS 7H", "9C", FULL, D.HIT),
        ("AS 7H", "2C", FULL, D.STAND),
        # Pairs.
        ("8S 8H", "AC", PAIR, D.SPLIT),
        ("AS AH", "KC", PAIR, D.SPLIT),
        ("9S 9H", "7C", PAIR, D.STAND),
        ("7S 7H", "7C", PAIR, D.SPLIT),
        ("7S 7S", "7C", PAIR, D.HIT),  # suited 7-7 against a 7: draw to 7-7-7
        ("5S 5H", "6C", PAIR, D.DOUBLE),
        ("KS KH", "6C", PAIR, D.STAND),
        # Rescue after a double.
        ("6S 4H 5C", "9C", DOUBLED, D.RESCUE),
        ("6S 4H 5C", "6C", DOUBLED, D.STAND),
        ("9S 2H 6C", "AC", DOUBLED, D.RESCUE),
        ("9S 2H 9C", "AC", DOUBLED, D.STAND),
        ("9S 2H 6C", "AC", frozenset({D.STAND}), D.STAND),
    ],
)
def test_s17_chart_cells(
    hand: str, up: str, legal: frozenset[Decision], expected: Decision
) -> None:
    assert pick(hand, up, legal) is expected


def test_hit_soft_17_uses_its_own_chart() -> None:
    # 8-8 against an ace: S17 splits, H17 surrenders (and splits without surrender).
    assert pick("8S 8H", "AC", PAIR, H17_PROFILE) is D.SURRENDER
    assert pick("8S 8H", "AC", PAIR - {D.SURRENDER}, H17_PROFILE) is D.SPLIT
    # Hard 16 against an ace: S17 hits, H17 surrenders.
    assert pick("9S 7H", "AC", FULL) is D.HIT
    assert pick("9S 7H", "AC", FULL, H17_PROFILE) is D.SURRENDER


def test_split_not_allowed_plays_the_total() -> None:
    # 8-8 against a 10 with four hands already: hard 16, hit.
    assert pick("8S 8H", "KC", NO_SURRENDER) is D.HIT
    # 9-9 against a 6 without a split: hard 18 stands.
    assert pick("9S 9H", "6C", NO_SURRENDER) is D.STAND


def test_double_not_allowed_falls_back() -> None:
    assert pick("6S 5H", "6C", frozenset({D.HIT, D.STAND})) is D.HIT
    assert pick("AS 7H", "5C", frozenset({D.HIT, D.STAND})) is D.STAND


def test_split_aces_standing_only() -> None:
    assert pick("AS 6H", "6C", frozenset({D.STAND})) is D.STAND


@pytest.mark.parametrize("chart", [S17, H17])
def test_every_cell_is_well_formed(chart: Chart) -> None:
    play = re.compile(r"^(H|R|D\d?|S\d?[aup]?)$")
    pair = re.compile(r"^(P|N|Pu|PR)$")
    for rows, pattern in ((chart.hard, play), (chart.soft, play), (chart.pairs, pair)):
        for row in rows.values():
            assert len(row) == len(UP_CARDS)
            for cell in row:
                assert pattern.match(cell), cell
    assert set(chart.pairs) == set(range(1, 11))


def test_preferred_ignores_what_is_legal() -> None:
    assert preferred(cards("9S 8H"), parse_card("AC"), S17) is D.SURRENDER


def test_empty_legal_set_is_an_error() -> None:
    with pytest.raises(ValueError, match="no legal decision"):
        choose(cards("9S 8H"), parse_card("AC"), frozenset(), PENNSYLVANIA)


_card = st.sampled_from(ALL_CARDS)
_decision_sets = st.frozensets(st.sampled_from(list(Decision)), min_size=1)


@settings(max_examples=400, deadline=None)
@given(
    hand=st.lists(_card, min_size=1, max_size=8),
    up=_card,
    legal=_decision_sets,
    h17=st.booleans(),
)
def test_choice_is_always_legal(
    hand: list[Card], up: Card, legal: frozenset[Decision], h17: bool
) -> None:
    profile = H17_PROFILE if h17 else PENNSYLVANIA
    assert choose(hand, up, legal, profile) in legal
