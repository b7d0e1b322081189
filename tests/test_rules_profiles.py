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
    OPTION_BASES,
    PENNSYLVANIA,
    PROFILES,
    DealerBlackjackTakes,
    DealerSecondCard,
    MatchPayTable,
    Profile,
    SettlementOrder,
    SplitTwentyOne,
    get_profile,
    option_basis,
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
        NEW_YORK.with_options(dealer_second_card=DealerSecondCard.AFTER_PLAYERS)


def test_ny_5324_12_c_4_determinate_cards_before_dealer_second_card_option() -> None:
    ny = NEW_YORK.with_options(dealer_second_card=DealerSecondCard.AFTER_PLAYERS, peek=False)
    assert not ny.uses_hole_card_peek


def test_unknown_option_is_an_error() -> None:
    with pytest.raises(ProfileError, match="unknown profile option"):
        PENNSYLVANIA.with_options(hit_soft_18=True)


def test_with_options_leaves_the_profile_unchanged() -> None:
    changed = NEW_JERSEY.with_options(hit_soft_17=True)
    assert changed.hit_soft_17
    assert not NEW_JERSEY.hit_soft_17


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


# --- what each regulation fixes, leaves to the licensee, or is silent on ----------------------


def _docs_option_table() -> dict[str, dict[str, tuple[str, str, str]]]:
    text = (ROOT / "docs" / "rules.md").read_text()
    block = text.split("<!-- option bases: begin -->")[1].split("<!-- option bases: end -->")[0]
    table: dict[str, dict[str, tuple[str, str, str]]] = {}
    for line in block.strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        name = cells[0].strip("`")
        table[name] = {}
        for code, cell in zip(("PA", "NJ", "NY"), cells[1:], strict=True):
            value, rest = cell[1:].split("` ", 1)
            kind, clause = rest.split(": ", 1)
            table[name][code] = (value, kind, clause)
    return table


def _shown(value: object) -> str:
    if isinstance(value, tuple):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v.value}" for k, v in sorted(value.items()))
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(getattr(value, "value", value))


def test_docs_table_matches_every_profiles_options() -> None:
    """docs/rules.md's per-profile table (fixed / licensee / assumed, with clauses) is the
    code's: every option field, every profile, value, basis and clause."""
    table = _docs_option_table()
    option_fields = {f.name for f in fields(Profile)} - {"code", "name", "citation"}
    assert set(table) == option_fields == set(OPTION_BASES)
    for name, row in table.items():
        for code, (value, kind, clause) in row.items():
            assert value == _shown(getattr(PROFILES[code], name)), (name, code)
            basis = option_basis(code, name)
            assert (kind, clause) == (basis.kind.value, basis.clause), (name, code)


# The fixed values each regulation imposes, read from the texts (not from the code).
FIXED_BY_TEXT = [
    ("PA", "hit_soft_17", True, "PA 635a.7(l)"),
    ("PA", "no_draw_when_decided", False, "PA 635a.7(m)"),
    ("PA", "peek", False, "PA 635a.7(g)"),
    ("PA", "dealer_second_card", DealerSecondCard.AFTER_PLAYERS, "PA 635a.7(e)(4)"),
    ("PA", "blackjack_paid_at_once", False, "PA 635a.7(h)(1)(i)"),
    ("NY", "blackjack_paid_at_once", True, "NY 5324.12(b)(5)"),
    ("NY", "split_21_vs_dealer_21", SplitTwentyOne.PUSH, "NY 5324.12(b)(1)(iii), (b)(5)"),
    ("NY", "split_21_vs_dealer_blackjack", SplitTwentyOne.LOSE, "NY 5324.12(b)(1)(iii)"),
    ("NY", "burn_disclosed_on_request", False, "NY 5324.12(c)(3)"),
    ("NY", "decks_allowed", (6,), "NY 5324.12(a)"),
    ("NY", "match_tables", {6: MatchPayTable.B}, "NY 5324.12(d)(5)"),
    ("NJ", "burn_disclosed_on_request", False, "NJ 19.7(c)"),
]


@pytest.mark.parametrize(("code", "name", "value", "clause"), FIXED_BY_TEXT)
def test_a_profile_refuses_an_option_its_regulation_fixes(
    code: str, name: str, value: object, clause: str
) -> None:
    """One line naming the clause, e.g. PA 635a.7(l) and hit_soft_17."""
    with pytest.raises(ProfileError) as caught:
        get_profile(code).with_options(**{name: value})
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"profile {code}: {name} = ")
    assert f"is not allowed: {clause} fixes {name} = " in message


def test_pa_635a_7_l_hit_soft_17_refused_with_the_clause() -> None:
    with pytest.raises(ProfileError) as caught:
        PENNSYLVANIA.with_options(hit_soft_17=True)
    assert str(caught.value) == (
        "profile PA: hit_soft_17 = true is not allowed: PA 635a.7(l) fixes hit_soft_17 = false"
    )


LEFT_OPEN = [
    ("PA", "settlement_order", SettlementOrder.RIGHT_TO_LEFT),  # PA 635a.7(p)(2)
    ("PA", "hit_soft_17", False),  # the fixed value itself is accepted
    ("NJ", "hit_soft_17", True),  # NJ 19.12 not included
    ("NJ", "dealer_second_card", DealerSecondCard.HOLE),  # NJ 19.7(i)
    ("NY", "no_mid_shoe_entry", True),  # NY 5324.12(b)(10) "may"
    ("NY", "match_the_dealer", False),  # NY 5324.12(d) "may provide"
    ("NY", "match_tables", {8: MatchPayTable.B}),  # the (d)(5) table for eight decks
    ("NY", "peek", False),  # NY orders no peek
    ("NY", "dealer_second_card", DealerSecondCard.AFTER_PLAYERS),  # NY (c)(4)
    ("NY", "hit_soft_17", True),  # NY silent
]


@pytest.mark.parametrize(("code", "name", "value"), LEFT_OPEN)
def test_a_profile_keeps_options_the_text_leaves_open(code: str, name: str, value: object) -> None:
    options: dict[str, object] = {name: value}
    if name == "dealer_second_card" and value is DealerSecondCard.AFTER_PLAYERS:
        options["peek"] = False
    profile = get_profile(code).with_options(**options)
    assert getattr(profile, name) == value
