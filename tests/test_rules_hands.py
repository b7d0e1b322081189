"""Hands: hard and soft totals, blackjack, hand status."""

from __future__ import annotations

import dataclasses

import pytest

from controller.rules.cards import Card, parse_card
from controller.rules.hands import (
    HandStatus,
    PlayerHand,
    dealer_must_draw,
    hand_total,
    hole_card_gives_blackjack,
    is_blackjack_pair,
)
from controller.rules.profiles import get_profile


def cards(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


def hand_of(text: str, *, from_split: bool = False) -> PlayerHand:
    hand = PlayerHand(1, 0, 1000, from_split=from_split)
    for card in cards(text):
        hand.add(card)
    return hand


@pytest.mark.parametrize(
    ("text", "total", "soft"),
    [
        ("7S 9H", 16, False),
        ("AS 6H", 17, True),  # soft 17
        ("AS 6H 9D", 16, False),  # the ace falls back to 1
        ("AS AH", 12, True),
        ("AS AH AD AC", 14, True),
        ("AS AH 9D", 21, True),
        ("AS KH", 21, True),
        ("KS QH", 20, False),
        ("KS QH 2D", 22, False),
        ("AS 5H 5D", 21, True),
        ("AS 5H 5D AC", 12, False),
        ("9S 9H 3D", 21, False),
        ("2S 2H 2D 2C 3S 3H 3D 4S", 21, False),
        ("AS", 11, True),
        ("", 0, False),
    ],
)
def test_pa_635a_7_l_hand_total_hard_and_soft(text: str, total: int, soft: bool) -> None:
    assert hand_total(cards(text)) == (total, soft)
    hand = hand_of(text)
    assert (hand.total, hand.soft) == (total, soft)


@pytest.mark.parametrize(
    ("pair", "blackjack"),
    [
        ("AS KH", True),
        ("QD AC", True),
        ("AH JH", True),
        ("AS AH", False),
        ("AS 9H", False),
        ("KS QS", False),
        ("5S 6S", False),
    ],
)
def test_ny_5324_12_a_blackjack_only_ace_with_jack_queen_or_king(
    pair: str, blackjack: bool
) -> None:
    first, second = cards(pair)
    assert is_blackjack_pair(first, second) is blackjack
    assert hand_of(pair).is_blackjack is blackjack


def test_ny_5324_12_b_1_iii_split_two_card_21_is_not_blackjack() -> None:
    hand = hand_of("AS KH", from_split=True)
    assert hand.total == 21
    assert not hand.is_blackjack
    assert hand.is_split_aces


def test_pa_635a_7_n_4_three_card_21_is_not_blackjack() -> None:
    assert not hand_of("AS 5H 5D").is_blackjack
    assert not hand_of("7S 7H 7D").is_blackjack


def test_pa_635a_7_g_card_reader_answer_ace_up_or_face_up() -> None:
    assert hole_card_gives_blackjack(parse_card("AS"), parse_card("QD"))
    assert hole_card_gives_blackjack(parse_card("JS"), parse_card("AD"))
    assert not hole_card_gives_blackjack(parse_card("AS"), parse_card("9D"))
    assert not hole_card_gives_blackjack(parse_card("KS"), parse_card("QD"))


def test_hand_status_finished_flags() -> None:
    open_statuses = {HandStatus.PLAYING, HandStatus.AWAITING_CARD, HandStatus.DOUBLED}
    for status in HandStatus:
        assert status.finished is (status not in open_statuses)


def test_hand_doubled_flag_and_label() -> None:
    hand = hand_of("5S 6H")
    assert not hand.doubled
    hand.double_cents = hand.wager
    assert hand.doubled
    assert hand.label == "seat 1 hand 1"
    assert "5S 6H = 11" in repr(hand)


def test_split_aces_flag_needs_split_and_ace_first() -> None:
    assert not hand_of("AS 5H").is_split_aces
    assert not hand_of("5S AH", from_split=True).is_split_aces
    assert hand_of("AS 5H", from_split=True).is_split_aces


@pytest.mark.parametrize(
    ("text", "stands_on_soft_17", "hits_soft_17"),
    [
        ("KS 6H", True, True),  # hard 16: draws (PA 635a.7(l))
        ("KS 7H", False, False),  # hard 17: stands, either rule
        ("AS 6H", False, True),  # soft 17: draws only where the profile hits it
        ("AS 7H", False, False),  # soft 18: stands, either rule
        ("AS 5H", True, True),  # soft 16
        ("AS 6H KD", False, False),  # A-6-K: a hard 17, stands either rule
        ("AS 5H KD", True, True),  # A-5-K: a hard 16
    ],
)
def test_the_dealer_draws_below_17_and_on_soft_17_only_where_the_profile_hits_it(
    text: str, stands_on_soft_17: bool, hits_soft_17: bool
) -> None:
    """PA 635a.7(l): the dealer draws until a hard or soft 17 or more; a profile that hits
    soft 17 draws on a soft 17 too (both sides of 17, hard and soft)."""
    total, soft = hand_total(cards(text))
    stands = get_profile("PA")
    hits = dataclasses.replace(stands, hit_soft_17=True)
    assert dealer_must_draw(total, soft, stands) is stands_on_soft_17
    assert dealer_must_draw(total, soft, hits) is hits_soft_17
