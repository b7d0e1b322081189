"""Jurisdiction profiles PA, NJ, NY: the data each regulation imposes, and options."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from controller.rules.errors import ProfileError, RulesError
from controller.rules.profiles import (
    MATCH_TABLE_FOR_DECKS,
    NEW_JERSEY,
    NEW_YORK,
    PENNSYLVANIA,
    PROFILES,
    DealerBlackjackTakes,
    DealerSecondCard,
    MatchPayTable,
    Profile,
    SettlementOrder,
    SplitTwentyOne,
    get_profile,
)

ROOT = Path(__file__).resolve().parents[1]


def test_three_profiles_by_code() -> None:
    assert set(PROFILES) == {"PA", "NJ", "NY"}
    assert get_profile("pa") is PENNSYLVANIA
    assert get_profile("NJ") is NEW_JERSEY
    assert get_profile("Ny") is NEW_YORK
    assert PENNSYLVANIA.citation == "58 Pa. Code 635a.7"
    assert NEW_JERSEY.citation == "N.J.A.C. 13:69F-19.7"
    assert NEW_YORK.citation == "9 NYCRR 5324.12"


@pytest.mark.parametrize("code", ["XX", "", "PAX", "nevada"])
def test_unknown_profile_is_an_error_naming_it(code: str) -> None:
    with pytest.raises(ProfileError, match="unknown profile") as caught:
        get_profile(code)
    assert repr(code) in str(caught.value)
    assert isinstance(caught.value, RulesError)


def test_unknown_profile_not_text() -> None:
    with pytest.raises(ProfileError):
        get_profile(6)  # type: ignore[arg-type]


def test_pa_635a_7_e_4_hole_card_and_g_peek() -> None:
    assert PENNSYLVANIA.dealer_second_card is DealerSecondCard.HOLE
    assert PENNSYLVANIA.peek
    assert PENNSYLVANIA.uses_hole_card_peek


def test_ny_5324_12_c_4_iv_hole_card() -> None:
    assert NEW_YORK.dealer_second_card is DealerSecondCard.HOLE
    assert NEW_YORK.uses_hole_card_peek


def test_nj_19_7_g_dealers_card_after_players_and_no_peek() -> None:
    assert NEW_JERSEY.dealer_second_card is DealerSecondCard.AFTER_PLAYERS
    assert not NEW_JERSEY.peek
    assert not NEW_JERSEY.uses_hole_card_peek


def test_nj_19_7_i_card_reader_alternative_is_an_option() -> None:
    reader = NEW_JERSEY.with_options(dealer_second_card=DealerSecondCard.HOLE, peek=True)
    assert reader.uses_hole_card_peek
    assert reader.code == "NJ"
    # 19.7(i) first sentence: a hole card the dealer does not look at, no reader.
    blind = NEW_JERSEY.with_options(dealer_second_card=DealerSecondCard.HOLE)
    assert blind.dealer_second_card is DealerSecondCard.HOLE
    assert not blind.uses_hole_card_peek


def test_peek_without_a_hole_card_is_a_contradiction() -> None:
    with pytest.raises(ProfileError, match="peek needs a hole card"):
        NEW_JERSEY.with_options(peek=True)
    with pytest.raises(ProfileError, match="peek needs a hole card"):
        PENNSYLVANIA.with_options(dealer_second_card=DealerSecondCard.AFTER_PLAYERS)


def test_ny_5324_12_c_4_determinate_cards_before_dealer_second_card_option() -> None:
    ny = NEW_YORK.with_options(dealer_second_card=DealerSecondCard.AFTER_PLAYERS, peek=False)
    assert not ny.uses_hole_card_peek


def test_unknown_option_is_an_error() -> None:
    with pytest.raises(ProfileError, match="unknown profile option"):
        PENNSYLVANIA.with_options(hit_soft_18=True)


def test_with_options_leaves_the_profile_unchanged() -> None:
    changed = PENNSYLVANIA.with_options(hit_soft_17=True)
    assert changed.hit_soft_17
    assert not PENNSYLVANIA.hit_soft_17


def test_pa_635a_7_l_dealer_stands_on_soft_17_by_default() -> None:
    assert not PENNSYLVANIA.hit_soft_17
    assert not NEW_JERSEY.hit_soft_17
    assert not NEW_YORK.hit_soft_17


def test_pa_635a_7_m_no_draw_when_decided_in_every_profile() -> None:
    assert all(p.no_draw_when_decided for p in PROFILES.values())


def test_pa_635a_7_p_settlement_order_default_and_option() -> None:
    assert PENNSYLVANIA.settlement_order is SettlementOrder.COLLECT_THEN_PAY
    assert (
        PENNSYLVANIA.with_options(settlement_order=SettlementOrder.RIGHT_TO_LEFT).settlement_order
        is SettlementOrder.RIGHT_TO_LEFT
    )


def test_split_two_card_21_readings_per_profile() -> None:
    # PA 635a.7(n)(3) needs a "Blackjack": a split 21 is none, so (o) makes it a tie.
    assert PENNSYLVANIA.split_21_vs_dealer_21 is SplitTwentyOne.PUSH
    # NY 5324.12(b)(1)(iii): "21 in two cards" against "21 in two or more cards" wins.
    assert NEW_YORK.split_21_vs_dealer_21 is SplitTwentyOne.WIN
    assert NEW_YORK.split_21_vs_dealer_blackjack is SplitTwentyOne.WIN


def test_pa_635a_7_o_split_two_card_21_ties_dealer_blackjack_reading() -> None:
    # (o): only "21 in more than two cards" loses to a dealer Blackjack; a split two-card
    # 21 has the dealer's total, so it ties.
    assert PENNSYLVANIA.split_21_vs_dealer_blackjack is SplitTwentyOne.PUSH
    assert NEW_JERSEY.split_21_vs_dealer_blackjack is SplitTwentyOne.PUSH


def test_nj_19_7_c_ny_5324_12_c_3_burn_card_disclosed_on_request() -> None:
    assert NEW_JERSEY.burn_disclosed_on_request
    assert NEW_YORK.burn_disclosed_on_request
    assert not PENNSYLVANIA.burn_disclosed_on_request


def test_ny_5324_12_d_5_match_pay_table_by_deck_count() -> None:
    assert MATCH_TABLE_FOR_DECKS == {6: MatchPayTable.A, 8: MatchPayTable.B}
    for profile in PROFILES.values():
        assert profile.match_table(6) is MatchPayTable.A
        assert profile.match_table(8) is MatchPayTable.B
    assert [str(o) for o in MatchPayTable.A.odds] == ["4:1", "9:1"]
    assert [str(o) for o in MatchPayTable.B.odds] == ["3:1", "12:1"]


@pytest.mark.parametrize("decks", [1, 4, 7, 10])
def test_ny_5324_12_a_six_or_eight_decks(decks: int) -> None:
    for profile in PROFILES.values():
        assert profile.decks_allowed == (6, 8)
        with pytest.raises(ProfileError, match=f"6 or 8 decks, not {decks}"):
            profile.check_decks(decks)
        with pytest.raises(ProfileError):
            profile.match_table(decks)


def test_assumed_defaults_for_sections_not_included() -> None:
    # 635a.9-635a.11 are not in the shared regulations: documented assumptions.
    for profile in PROFILES.values():
        assert profile.surrender
        assert profile.rescue
        assert profile.double_after_split
        assert profile.max_split_hands == 4
        assert profile.resplit_aces
        assert not profile.hit_split_aces
        assert profile.dealer_blackjack_takes is DealerBlackjackTakes.ORIGINAL_ONLY
        assert profile.match_the_dealer


def test_profiles_are_frozen() -> None:
    with pytest.raises(AttributeError):
        PENNSYLVANIA.hit_soft_17 = True  # type: ignore[misc]


def test_every_profile_field_cites_a_clause_or_an_assumption() -> None:
    # The comment block above each field (or on its line) must name PA, NJ, NY or say
    # ASSUMPTION; fields grouped under one comment share it.
    source = (ROOT / "controller" / "rules" / "profiles.py").read_text().splitlines()
    start = next(i for i, line in enumerate(source) if line.startswith("class Profile"))
    cited = ("PA ", "NJ ", "NY ", "ASSUMPTION")
    names = {f.name for f in fields(Profile)} - {"code", "name", "citation"}
    block: list[str] = []
    after_field = False
    checked = set()
    for line in source[start:]:
        stripped = line.strip()
        if stripped.startswith("def "):
            break
        if stripped.startswith("#"):
            block = [*([] if after_field else block), stripped]
            after_field = False
            continue
        name = stripped.split(":", 1)[0]
        if name in names:
            after_field = True
            comment = " ".join(block) + (line.split("#", 1)[1] if "#" in line else "")
            assert any(c in comment for c in cited), f"{name} cites nothing"
            checked.add(name)
    assert checked == names


def test_docs_rules_lists_every_profile_field() -> None:
    text = (ROOT / "docs" / "rules.md").read_text()
    for f in fields(Profile):
        assert f"`{f.name}`" in text, f.name
