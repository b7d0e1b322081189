"""The initial deal in one call (``Round.deal_initial``) is the card-by-card deal, and refuses
what ``Round.deal`` refuses without changing the round.

PA 635a.7(e), NJ 19.7(d): one card to each box, the up card, a second card to each box, then
the hole card where the profile deals one.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.cards import Card, SealedCard, parse_card, shoe_composition
from controller.rules.errors import OutOfTurnError
from controller.rules.hands import hole_card_gives_blackjack
from controller.rules.profiles import PENNSYLVANIA, PROFILES, DealerSecondCard, Profile
from controller.rules.round import Round
from controller.rules.steps import NeedCard, NeedDecision, NeedPeek, NeedReveal, SeatWager


def _finish(round_: Round, shoe: list[Card]) -> None:
    """Play out with stands and the reader answered from the hole card."""
    while not round_.over:
        step = round_.step
        if isinstance(step, NeedCard):
            round_.deal(shoe.pop())
        elif isinstance(step, NeedDecision):
            round_.decide(step.seat, min(step.legal, key=lambda d: d.value != "stand"))
        elif isinstance(step, NeedPeek):
            assert round_.up_card is not None and round_.hole is not None
            round_.peek(hole_card_gives_blackjack(round_.up_card, round_.hole.reveal()))
        elif isinstance(step, NeedReveal):
            round_.reveal_hole()
        else:
            round_.take_insurance({})


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(list(PROFILES.values())),
    st.lists(st.integers(1, 7), min_size=1, max_size=7, unique=True),
    st.integers(0, 2**32),
    st.booleans(),
)
def test_one_call_deals_as_card_by_card(
    profile: Profile, seats: list[int], seed: int, sealed: bool
) -> None:
    match = 500 if profile.match_the_dealer else 0
    wagers = [SeatWager(s, 1000, match if s % 2 else 0) for s in seats]
    hole = profile.dealer_second_card is DealerSecondCard.HOLE
    shoe = list(shoe_composition(6).elements())
    random.Random(seed).shuffle(shoe)
    by_card, at_once = Round(profile, 6, wagers), Round(profile, 6, wagers)
    due = at_once.initial_cards_due
    # PA/NY deal a hole card, NJ deals the dealer's second card after the players.
    assert due == 2 * len(seats) + (2 if hole else 1)
    open_cards = shoe[-due:][::-1]
    for card in open_cards:
        by_card.deal(card)
    initial: list[Card | SealedCard] = list(open_cards)
    if sealed and hole:
        initial[-1] = SealedCard(open_cards[-1])
    at_once.deal_initial(initial)
    assert at_once.initial_cards_due == 0
    assert at_once.step == by_card.step
    assert at_once.dealer_cards == by_card.dealer_cards
    assert {s: [h.cards for h in hs] for s, hs in at_once.hands.items()} == {
        s: [h.cards for h in hs] for s, hs in by_card.hands.items()
    }
    assert at_once.payments == by_card.payments  # Match settled before anything else
    rest_a, rest_b = shoe[:-due], shoe[:-due]
    _finish(by_card, rest_a)
    _finish(at_once, rest_b)
    assert at_once.payments == by_card.payments
    assert at_once.dealer_cards == by_card.dealer_cards


def test_wrong_count_begun_deal_and_face_down_card_are_refused_unchanged() -> None:
    cards = [parse_card(t) for t in ("9S", "5H", "7D", "3C")]
    round_ = Round(PENNSYLVANIA, 6, [SeatWager(1, 1000)])
    with pytest.raises(OutOfTurnError, match="4 cards, not 3"):
        round_.deal_initial(cards[:3])
    with pytest.raises(OutOfTurnError, match="4 cards, not 5"):
        round_.deal_initial([*cards, cards[0]])
    with pytest.raises(OutOfTurnError, match="face down"):
        round_.deal_initial([SealedCard(cards[0]), *cards[1:]])
    assert round_.initial_cards_due == 4 and not round_.dealer_cards
    assert round_.hands[1][0].cards == []
    round_.deal(cards[0])
    with pytest.raises(OutOfTurnError, match="has begun"):
        round_.deal_initial(cards[1:])
    assert round_.initial_cards_due == 3
