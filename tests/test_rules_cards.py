"""Cards of a Spanish deck: parsing, foreign 10s, device codes, shoe composition, sealed card."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules.cards import (
    ALL_CARDS,
    CARDS_PER_DECK,
    Card,
    Rank,
    SealedCard,
    Suit,
    card_from_codes,
    composition_problems,
    parse_card,
    rank_counts,
    shoe_composition,
)
from controller.rules.errors import ForeignCardError, RulesError


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("7S", Rank.SEVEN, Suit.SPADES),
        ("KH", Rank.KING, Suit.HEARTS),
        ("AD", Rank.ACE, Suit.DIAMONDS),
        ("2C", Rank.TWO, Suit.CLUBS),
        ("9H", Rank.NINE, Suit.HEARTS),
        ("JC", Rank.JACK, Suit.CLUBS),
        ("QD", Rank.QUEEN, Suit.DIAMONDS),
        ("qd", Rank.QUEEN, Suit.DIAMONDS),
        (" 5s ", Rank.FIVE, Suit.SPADES),
    ],
)
def test_parse_card_rank_and_suit(text: str, rank: Rank, suit: Suit) -> None:
    card = parse_card(text)
    assert (card.rank, card.suit) == (rank, suit)
    assert card is Card.of(rank, suit)


def test_card_text_round_trips_for_every_card() -> None:
    for card in ALL_CARDS:
        assert parse_card(card.text) is card
        assert str(card) == card.text


@pytest.mark.parametrize("text", ["10S", "TS", "10h", "td", "10C"])
def test_ny_5324_12_a_ten_is_a_foreign_card_named_in_the_error(text: str) -> None:
    with pytest.raises(ForeignCardError, match="foreign card") as caught:
        parse_card(text)
    assert repr(text) in str(caught.value)
    assert "no 10s" in str(caught.value)


@pytest.mark.parametrize(
    "text", ["", "S", "7", "7X", "1S", "11S", "ZZ", "KHH", "CUT", "joker", "0S"]
)
def test_ny_5324_12_a_parse_card_rejects_garbage_naming_it(text: str) -> None:
    with pytest.raises(ForeignCardError, match="not a card") as caught:
        parse_card(text)
    assert repr(text) in str(caught.value)


def test_parse_card_rejects_non_text() -> None:
    with pytest.raises(ForeignCardError, match="not a card"):
        parse_card(7)  # type: ignore[arg-type]


def test_foreign_card_error_is_a_rules_error_and_a_value_error() -> None:
    with pytest.raises(RulesError):
        parse_card("10S")
    with pytest.raises(ValueError):
        parse_card("10S")


def test_ny_5324_12_a_card_points_ace_one_and_faces_ten() -> None:
    assert [Rank(r).points for r in (1, 2, 9, 11, 12, 13)] == [1, 2, 9, 10, 10, 10]
    assert parse_card("KS").points == 10
    assert [r.symbol for r in Rank] == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "J", "Q", "K"]


def test_card_from_codes_maps_device_numbers() -> None:
    assert card_from_codes(1, "S") is parse_card("AS")
    assert card_from_codes(13, "D") is parse_card("KD")
    assert card_from_codes(11, "H") is parse_card("JH")


def test_ny_5324_12_a_card_from_codes_rejects_rank_ten() -> None:
    with pytest.raises(ForeignCardError, match="foreign card 10H"):
        card_from_codes(10, "H")


@pytest.mark.parametrize(("rank", "suit"), [(0, "S"), (14, "S"), (7, "X"), (7, "")])
def test_card_from_codes_rejects_unknown_codes(rank: int, suit: str) -> None:
    with pytest.raises(ForeignCardError, match="not a card"):
        card_from_codes(rank, suit)


@pytest.mark.parametrize("decks", [6, 8])
def test_ny_5324_12_a_shoe_has_48_cards_per_deck_and_no_tens(decks: int) -> None:
    shoe = shoe_composition(decks)
    assert sum(shoe.values()) == 48 * decks == CARDS_PER_DECK * decks
    assert len(shoe) == 48
    assert all(count == decks for count in shoe.values())
    assert rank_counts(shoe.elements()) == dict.fromkeys(Rank, 4 * decks)
    assert 10 not in {int(c.rank) for c in shoe}


@pytest.mark.parametrize("decks", [0, 1, 5, 7, 9])
def test_ny_5324_12_a_shoe_of_other_deck_counts_rejected(decks: int) -> None:
    with pytest.raises(ValueError, match="6 or 8 decks"):
        shoe_composition(decks)


def test_composition_problems_exact_batch_has_none() -> None:
    per_rank = {int(r): 24 for r in Rank}
    assert composition_problems(6, per_rank, 288) == []


def test_composition_problems_name_tens_missing_cards_and_unknown_ranks() -> None:
    per_rank = {int(r): 32 for r in Rank}
    per_rank[10] = 2
    per_rank[7] = 31
    per_rank[14] = 1
    problems = composition_problems(8, per_rank, 386)
    assert "batch has 386 cards, 8 decks need 384" in problems
    assert "batch holds 2 foreign 10s" in problems
    assert "batch holds 1 cards of unknown rank 14" in problems
    assert "rank 7: 31 cards, expected 32" in problems
    assert len(problems) == 4


def test_composition_problems_name_a_rank_missing_from_the_batch_entirely() -> None:
    # Six decks of 48 (NY 5324.12(a)): 24 sevens expected; a batch counted without one seven
    # (the shuffler's count leaves the rank out) is short by all 24.
    per_rank = {int(r): 24 for r in Rank if r is not Rank.SEVEN}
    assert composition_problems(6, per_rank, 264) == [
        "batch has 264 cards, 6 decks need 288",
        "rank 7: 0 cards, expected 24",
    ]


def test_sealed_card_never_shows_the_card() -> None:
    card = parse_card("KS")
    sealed = SealedCard(card)
    shown = [repr(sealed), str(sealed), f"{sealed}", f"{sealed!r}", f"{sealed:>20}"]
    assert all("KS" not in s and "K" not in s.replace("SealedCard", "") for s in shown)
    assert sealed != SealedCard(card)
    assert sealed.reveal() is card
    with pytest.raises(TypeError):
        pickle.dumps(sealed)


def test_cards_are_hashable_and_counted_by_value() -> None:
    counts = Counter([parse_card("7S"), parse_card("7s"), parse_card("7D")])
    assert counts[parse_card("7S")] == 2


@given(st.text(max_size=6))
def test_any_text_is_a_card_or_a_foreign_card_error(text: str) -> None:
    try:
        card = parse_card(text)
    except ForeignCardError as err:
        assert repr(text) in str(err)
    else:
        assert card.text == text.strip().upper()
        assert card.rank.symbol + card.suit.value == card.text
