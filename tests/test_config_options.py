"""``[options]`` read into the options a table plays (``controller.service.config_rules``),
fast: parsed documents, no command line, no table.

The older keys (``ALIASES``) set the profile options they stand for, and a refusal names the
key the file wrote; the devices decide what a profile leaves open (a peek, Match the
Dealer) and are named where the regulation requires them. Expected texts are the documented
one-line form ``FILE: key: problem`` with the clause the profile cites.
"""

from __future__ import annotations

import copy
import dataclasses
import tomllib
from pathlib import Path
from typing import Any

import pytest
from test_config import SOURCE, parse
from test_config import error_of as refusal

from controller.rules.options import Basis, DealerSecondCard, MatchPayTable, OptionBasis
from controller.rules.profiles import PROFILES
from controller.service.config_rules import Choice, Options, table_profile
from controller.service.config_schema import ConfigError

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "station.toml"
_EXAMPLE: dict[str, Any] = tomllib.loads(EXAMPLE.read_text())


def document(
    profile: str, options: dict[str, Any], *, without: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The example as ``profile``'s table with exactly ``options``, less the devices named
    in ``without``; no Match the Dealer limits (a table may not offer the wager)."""
    data = copy.deepcopy(_EXAMPLE)
    data["profile"], data["table_id"], data["options"] = profile, f"{profile}-1", options
    data["limits"] = {"main_min_cents": 1000, "main_max_cents": 500_000}
    for device in without:
        del data["devices"][device]
    return data


# --- Options ------------------------------------------------------------------------------


def test_options_set_by_their_own_names_are_each_a_choice_of_that_name() -> None:
    options = Options.of(hit_soft_17=True, max_split_hands=3)
    assert options.chosen == (
        Choice("hit_soft_17", "hit_soft_17", True),
        Choice("max_split_hands", "max_split_hands", 3),
    )
    assert options.get("max_split_hands") == 3 and options.get("hit_soft_17") is True
    assert options.get("surrender") is None and options.get("surrender", "default") == "default"
    assert "hit_soft_17" in options and "surrender" not in options
    assert Options().chosen == () and "peek" not in Options()


# --- the older keys -------------------------------------------------------------------------


@pytest.mark.parametrize("value", [True, False])
def test_ny_5324_12_b_10_no_mid_shoe_entry_is_set_by_its_older_key_either_way(
    value: bool,
) -> None:
    """NY 5324.12(b)(10) leaves it to the licensee: the older key sets it true or false."""
    config = parse(document("NY", {"ny_no_mid_shoe_entry": value}))
    assert config.options.chosen == (Choice("ny_no_mid_shoe_entry", "no_mid_shoe_entry", value),)
    assert config.rules().no_mid_shoe_entry is value


def test_an_older_key_and_the_option_it_sets_are_not_both_taken() -> None:
    data = document("NY", {"ny_no_mid_shoe_entry": True, "no_mid_shoe_entry": True})
    assert refusal(data) == (
        f"{SOURCE}: options.ny_no_mid_shoe_entry:"
        " ny_no_mid_shoe_entry and no_mid_shoe_entry both set it"
    )
    data = document("NY", {"match_pay_table": "A", "match_tables": {"6": "A"}})
    assert refusal(data) == (
        f"{SOURCE}: options.match_pay_table: match_pay_table and match_tables both set it"
    )


@pytest.mark.parametrize("key", ["ny_no_mid_shoe_entry", "nj_card_reader"])
def test_an_older_key_is_true_or_false(key: str) -> None:
    assert refusal(document("NJ", {key: 1})) == (
        f"{SOURCE}: options.{key}: expected true or false, got an integer (1)"
    )


def test_nj_19_7_i_the_card_reader_key_deals_a_hole_card_and_peeks() -> None:
    config = parse(document("NJ", {"nj_card_reader": True}))
    assert config.options.chosen == (
        Choice("nj_card_reader", "dealer_second_card", DealerSecondCard.HOLE),
        Choice("nj_card_reader", "peek", True),
    )
    rules = config.rules()
    assert rules.dealer_second_card is DealerSecondCard.HOLE and rules.peek


def test_an_older_key_set_false_leaves_the_profiles_own_procedure() -> None:
    for profile, key in (("NJ", "nj_card_reader"), ("NY", "ny_determinate_cards")):
        config = parse(document(profile, {key: False}))
        assert config.options.chosen == ()
        assert config.rules() == PROFILES[profile]


def test_ny_determinate_cards_deals_the_second_card_after_the_players_without_a_peek() -> None:
    config = parse(document("NY", {"ny_determinate_cards": True}))
    assert config.options.chosen == (
        Choice("ny_determinate_cards", "dealer_second_card", DealerSecondCard.AFTER_PLAYERS),
        Choice("ny_determinate_cards", "peek", False),
    )
    rules = config.rules()
    assert rules.dealer_second_card is DealerSecondCard.AFTER_PLAYERS and not rules.peek


def test_the_pay_table_key_names_the_table_for_the_shoes_decks() -> None:
    config = parse(document("PA", {"match_pay_table": "B"}))
    assert config.options.chosen == (
        Choice("match_pay_table", "match_tables", {6: MatchPayTable.B}),
    )
    assert config.rules().match_table(6) is MatchPayTable.B


def test_ny_5324_12_d_5_a_pay_table_the_regulation_fixes_is_refused_under_the_key_written() -> None:
    assert refusal(document("NY", {"match_pay_table": "B"})) == (
        f"{SOURCE}: options.match_pay_table: profile NY: match_tables = 6: B is not allowed:"
        " NY 5324.12(d)(5) fixes match_tables = 6: A, 8: B"
    )


def test_a_pay_table_at_a_table_without_match_the_dealer_is_refused() -> None:
    data = document("PA", {"match_pay_table": "A", "match_the_dealer": False})
    assert refusal(data) == (
        f"{SOURCE}: options.match_pay_table: set, but options.match_the_dealer is false"
    )


# --- what the devices allow -------------------------------------------------------------------


def test_nj_19_7_i_a_peek_asked_for_under_the_older_key_needs_the_card_reader() -> None:
    data = document("NJ", {"nj_card_reader": True}, without=("card_reader",))
    assert refusal(data) == (
        f"{SOURCE}: devices.card_reader: missing: options.nj_card_reader peeks with a card reader"
    )
    data = document("NJ", {"peek": True}, without=("card_reader",))
    assert refusal(data) == (
        f"{SOURCE}: devices.card_reader: missing: options.peek peeks with a card reader"
    )


def test_pa_635a_7_g_the_peek_the_regulation_fixes_needs_the_card_reader() -> None:
    assert refusal(document("PA", {}, without=("card_reader",))) == (
        f"{SOURCE}: devices.card_reader: missing: PA 635a.7(g) peeks with a card reader"
    )


def test_ny_5324_12_c_7_a_peek_the_profile_leaves_open_is_off_without_a_reader() -> None:
    """NY's profile peeks where the table has a reader; without one the hole card is turned
    after the players (5324.12(c)(7)): the option is false, not merely unset."""
    assert PROFILES["NY"].peek
    rules = parse(document("NY", {}, without=("card_reader",))).rules()
    assert rules.peek is False and rules == PROFILES["NY"].with_options(peek=False)
    assert parse(document("NY", {})).rules().peek is True


def test_a_shuffler_asked_for_by_option_takes_match_the_dealer_off_a_table_without_one() -> None:
    """NJ 19.7 is silent on a shuffler for Match the Dealer: a licensee who requires one
    (match_needs_shuffler = true) and fits none plays without the wager, and one who asks
    for the wager as well is told which device is missing and which option requires it
    (not a clause of a regulation that says nothing of it)."""
    assert not PROFILES["NJ"].match_needs_shuffler and PROFILES["NJ"].match_the_dealer
    data = document("NJ", {"match_needs_shuffler": True}, without=("shuffler",))
    rules = parse(data).rules()
    assert rules.match_needs_shuffler and rules.match_the_dealer is False
    data = document("NJ", {"match_needs_shuffler": True, "match_the_dealer": True})
    del data["devices"]["shuffler"]
    assert refusal(data) == (
        f"{SOURCE}: options.match_the_dealer: options.match_needs_shuffler offers Match the"
        " Dealer only with a six- or eight-deck multi-shuffle device (devices.shuffler: none is"
        " configured)"
    )


def test_a_peek_with_the_second_card_after_the_players_is_a_contradiction() -> None:
    data = document("NJ", {"peek": True, "dealer_second_card": "after_players"})
    assert refusal(data) == (
        f"{SOURCE}: options: profile NJ: peek needs a hole card, but the dealer's second card"
        " is dealt after the players"
    )


@pytest.mark.parametrize(
    ("shuffler_decks", "offered"), [(None, False), (5, False), (6, True), (8, True)]
)
def test_ny_5324_12_d_1_match_the_dealer_left_open_follows_the_shuffler(
    shuffler_decks: int | None, offered: bool
) -> None:
    """NY 5324.12(d)(1): Match the Dealer only with a six- or eight-deck multi-shuffle
    device; the licensee's offer left out, a table without one plays without the wager."""
    rules = table_profile(
        PROFILES["NY"], 6, Options(), card_reader=True, shuffler_decks=shuffler_decks
    )
    assert rules.match_the_dealer is offered


def test_ny_5324_12_d_1_match_the_dealer_left_open_is_off_without_a_shuffler() -> None:
    rules = parse(document("NY", {}, without=("shuffler",))).rules()
    assert not rules.match_the_dealer
    assert rules == PROFILES["NY"].with_options(match_the_dealer=False)


@pytest.mark.parametrize(
    ("shuffler_decks", "what"), [(None, "none is configured"), (5, "max_decks = 5")]
)
def test_ny_5324_12_d_1_match_the_dealer_asked_for_needs_a_six_deck_shuffler(
    shuffler_decks: int | None, what: str
) -> None:
    options = Options((Choice("match_the_dealer", "match_the_dealer", True),))
    with pytest.raises(ConfigError) as caught:
        table_profile(PROFILES["NY"], 6, options, card_reader=True, shuffler_decks=shuffler_decks)
    assert str(caught.value) == (
        "station.toml: options.match_the_dealer: NY 5324.12(d)(1) offers Match the Dealer only"
        f" with a six- or eight-deck multi-shuffle device (devices.shuffler: {what})"
    )


def test_match_the_dealer_asked_for_is_named_by_the_key_written() -> None:
    data = document("NY", {"match_the_dealer": True}, without=("shuffler",))
    assert refusal(data).startswith(f"{SOURCE}: options.match_the_dealer: NY 5324.12(d)(1) ")
    assert parse(document("NY", {"match_the_dealer": True})).rules().match_the_dealer


def test_a_profile_checked_without_a_file_names_station_toml() -> None:
    """PA 635a.7(l) fixes hit_soft_17 = false (the module's own example of a refusal)."""
    with pytest.raises(ConfigError) as caught:
        table_profile(
            PROFILES["PA"], 6, Options.of(hit_soft_17=True), card_reader=True, shuffler_decks=8
        )
    assert str(caught.value) == (
        "station.toml: options.hit_soft_17: profile PA: hit_soft_17 = true is not allowed:"
        " PA 635a.7(l) fixes hit_soft_17 = false"
    )


def test_a_deck_count_the_profile_does_not_deal_is_refused_as_decks() -> None:
    with pytest.raises(ConfigError) as caught:
        table_profile(PROFILES["PA"], 5, Options(), card_reader=True, shuffler_decks=8)
    assert str(caught.value) == "station.toml: decks: profile PA deals from 6 or 8 decks, not 5"


def test_an_older_key_after_other_options_keeps_them() -> None:
    config = parse(document("NJ", {"hit_soft_17": True, "nj_card_reader": True}))
    assert config.options.chosen == (
        Choice("hit_soft_17", "hit_soft_17", True),
        Choice("nj_card_reader", "dealer_second_card", DealerSecondCard.HOLE),
        Choice("nj_card_reader", "peek", True),
    )
    assert config.rules().hit_soft_17


def test_ny_match_the_dealer_declined_needs_no_shuffler() -> None:
    """NY 5324.12(d) leaves the offer to the licensee: a table that declines Match the Dealer
    is not asked for the multi-shuffle device (d)(1) requires of one that offers it."""
    rules = parse(document("NY", {"match_the_dealer": False}, without=("shuffler",))).rules()
    assert rules.match_the_dealer is False and rules.match_needs_shuffler


def test_a_regulation_that_requires_match_the_dealer_and_a_shuffler_refuses_a_table_without() -> (
    None
):
    """A profile whose regulation fixes the offer cannot drop the wager for want of the
    device: the refusal names the option the table cannot play, and the clause."""
    ny = PROFILES["NY"]
    fixed = dataclasses.replace(
        ny, bases={**ny.bases, "match_the_dealer": OptionBasis(Basis.FIXED, "XX 1(a)")}
    )
    with pytest.raises(ConfigError) as caught:
        table_profile(fixed, 6, Options(), card_reader=True, shuffler_decks=None)
    assert str(caught.value) == (
        "station.toml: options.match_the_dealer: NY 5324.12(d)(1) offers Match the Dealer only"
        " with a six- or eight-deck multi-shuffle device (devices.shuffler: none is configured)"
    )
