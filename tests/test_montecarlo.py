"""The Monte Carlo shoe and one-seat loop (controller/simulation/montecarlo.py) that the
house-edge run and the like-for-like benchmark deal from."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.cards import ALL_CARDS, shoe_composition
from controller.rules.profiles import NEW_JERSEY, PENNSYLVANIA
from controller.rules.steps import SeatWager
from controller.simulation.montecarlo import Shoe, play_hand


@pytest.mark.parametrize("decks", [6, 8])
def test_a_round_from_a_fresh_shoe_draws_the_whole_composition(decks: int) -> None:
    # NY 5324.12(a): 48 cards a deck, no 10s. Drawn out in one round, every card of the
    # batch comes once: the partial shuffle neither loses nor doubles a card.
    shoe = Shoe(decks, random.Random(1), per_round=True)
    shoe.new_round()
    drawn = Counter(shoe.draw() for _ in range(48 * decks))
    assert drawn == shoe_composition(decks)
    shoe.new_round()  # the next round starts from a full shoe again
    assert Counter(shoe.draw() for _ in range(48 * decks)) == drawn


def test_a_continuous_shoe_is_dealt_to_the_cover_card_then_reshuffled() -> None:
    # Six decks, cover card 1.5 decks (72 cards) from the end: 216 cards are dealt before it
    # (75% penetration); the 217th draw is the cover card's place.
    shoe = Shoe(6, random.Random(2), per_round=False)
    order = list(shoe.cards)
    shoe.new_round()
    first = [shoe.draw() for _ in range(216)]
    assert first == order[:216]
    assert not shoe.cover_seen
    shoe.draw()
    assert shoe.cover_seen
    shoe.new_round()  # reshuffled: a new order, from the top
    assert not shoe.cover_seen and shoe.next == 0
    assert shoe.cards != order and Counter(shoe.cards) == Counter(order)


@pytest.mark.parametrize("seed", [0, 2, 2026])
def test_a_continuous_shoe_is_shuffled_as_random_shuffle_shuffles(seed: int) -> None:
    # The shoe's own Fisher-Yates draws what random.shuffle draws: a seed deals the same
    # shoes (and the same house-edge run) as the standard library's shuffle did.
    rng = random.Random(seed)
    shoe = Shoe(6, rng, per_round=False)
    expected = [c for c in ALL_CARDS for _ in range(6)]
    reference = random.Random(seed)
    reference.shuffle(expected)
    assert shoe.cards == expected
    shoe.cover_seen = True
    shoe.new_round()
    reference.shuffle(expected)
    assert shoe.cards == expected
    assert rng.getstate() == reference.getstate()  # no draw more, none fewer


def test_draw_cards_deals_the_next_cards_and_sees_the_cover_card_among_them() -> None:
    # The initial deal in one call: the next cards in shoe order, as one draw each would
    # give them. Six decks: the cover card's place is the 217th card (index 216).
    shoe = Shoe(6, random.Random(3), per_round=False)
    order = list(shoe.cards)
    shoe.new_round()
    assert shoe.draw_cards(4) == order[:4]
    assert shoe.draw() is order[4]
    shoe.next = 213
    assert shoe.draw_cards(3) == order[213:216]  # cards 214-216: the cover card still ahead
    assert not shoe.cover_seen
    assert shoe.draw_cards(4) == order[216:220]  # the 217th among them
    assert shoe.cover_seen
    assert shoe.next == 220
    shoe.next = 286
    with pytest.raises(IndexError):
        shoe.draw_cards(3)  # two cards left
    assert shoe.next == 286


def test_draw_cards_from_a_fresh_shoe_each_round_swaps_as_draw_does() -> None:
    # The same generator calls and swaps as one draw per card: a seed deals the house-edge
    # run the same hands whichever way the initial cards are drawn.
    one_call, one_by_one = (
        Shoe(6, random.Random(5), per_round=True),
        Shoe(6, random.Random(5), per_round=True),
    )
    for _ in range(3):
        one_call.new_round()
        one_by_one.new_round()
        assert one_call.draw_cards(4) == [one_by_one.draw() for _ in range(4)]
        assert one_call.draw() is one_by_one.draw()
        assert one_call.cards == one_by_one.cards
        assert one_call.rng.getstate() == one_by_one.rng.getstate()


def test_draw_cards_from_a_fresh_shoe_each_round_draws_without_repeats() -> None:
    # Per round: the whole batch drawn four cards at a time is the batch, each card once.
    shoe = Shoe(6, random.Random(4), per_round=True)
    shoe.new_round()
    drawn: Counter[object] = Counter()
    for _ in range(6 * 48 // 4):
        drawn.update(shoe.draw_cards(4))
    assert drawn == shoe_composition(6)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), nj=st.booleans())
def test_play_hand_deals_in_shoe_order_and_settles_the_round(seed: int, nj: bool) -> None:
    # PA 635a.7(e): the seat, the up card, the seat, then the hole card; NJ 19.7(d),(g): no
    # hole card, the dealer's second card after the players.
    profile = NEW_JERSEY if nj else PENNSYLVANIA
    shoe = Shoe(6, random.Random(seed), per_round=True)
    round_, initial = play_hand(profile, 6, (SeatWager(3, 1000, 500),), 3, shoe)
    assert len(initial) == (3 if nj else 4)
    assert shoe.cards[: len(initial)] == initial
    assert round_.over
    assert round_.dealer_cards[0] is initial[1]
    assert round_.hands[3][0].cards[0] is initial[0]
    assert all(card in ALL_CARDS for card in initial)
    assert {p.wager.value for p in round_.payments} >= {"main", "match"}
