"""Jurisdiction profiles: the registry, the data each regulation imposes, and options."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from controller.rules.errors import ProfileError, RulesError
from controller.rules.odds import Odds
from controller.rules.options import NY_SUPER_BONUS, Bonus, SuperBonus
from controller.rules.profiles import (
    MATCH_TABLE_FOR_DECKS,
    NEW_JERSEY,
    NEW_YORK,
    OPTION_BASES,
    OPTION_FIELDS,
    PENNSYLVANIA,
    PROFILES,
    Basis,
    DealerBlackjackTakes,
    DealerSecondCard,
    MatchPayTable,
    Profile,
    SettlementOrder,
    SplitTwentyOne,
    declare,
    fixed,
    get_profile,
    option_table_markdown,
)

ROOT = Path(__file__).resolve().parents[1]


def test_three_profiles_by_code() -> None:
    assert {"PA", "NJ", "NY"} <= set(PROFILES)
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
    # 635a.9-635a.11 are not in the texts we hold: documented assumptions.
    for profile in (PENNSYLVANIA, NEW_JERSEY, NEW_YORK):
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


def test_every_profile_gives_every_option_a_basis_with_its_clause() -> None:
    fixed_names = {"code", "name", "citation", "bases"}
    assert set(OPTION_FIELDS) == {f.name for f in fields(Profile)} - fixed_names
    for profile in PROFILES.values():
        assert set(profile.bases) == set(OPTION_FIELDS), profile.code
        for name, basis in profile.bases.items():
            assert basis.clause.strip(), (profile.code, name)
            assert bool(basis.excludes) == bool(basis.excluded_by), (profile.code, name)


def test_a_declaration_must_name_every_option_once() -> None:
    before = dict(PROFILES)
    with pytest.raises(ProfileError, match="missing"):
        declare("XX", "Nowhere", "none", hit_soft_17=fixed(False, "XX 1"))
    with pytest.raises(ProfileError, match="declared once"):
        declare("PA", "Pennsylvania again", "none")
    with pytest.raises(ProfileError, match="upper case"):
        declare("xx", "lower", "none")
    assert before == PROFILES


def test_docs_rules_lists_every_profile_field() -> None:
    text = (ROOT / "docs" / "rules.md").read_text()
    for name in OPTION_FIELDS:
        assert f"`{name}`" in text, name


# --- what each regulation fixes, leaves to the licensee, or is silent on ----------------------


def _docs_option_block() -> str:
    text = (ROOT / "docs" / "rules.md").read_text()
    return text.split("<!-- option bases: begin -->\n")[1].split("<!-- option bases: end -->")[0]


def test_docs_table_is_the_registrys_both_ways() -> None:
    """docs/rules.md's per-profile table (fixed / licensee / assumed, with clauses) is the
    registry's, both ways: a profile, an option, a value or a basis in either and not in
    the other fails (the expected block is in the message)."""
    block = _docs_option_block()
    header = [c.strip() for c in block.splitlines()[0].strip("|").split("|")][1:]
    assert header == list(PROFILES), "docs/rules.md's columns are not the declared profiles"
    rows = {line.split("|")[1].strip().strip("`") for line in block.splitlines()[2:]}
    assert rows == set(OPTION_FIELDS) == set(OPTION_BASES)
    assert block == option_table_markdown(), "docs/rules.md should read:\n" + (
        option_table_markdown()
    )


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
    ("NY", "bonus_odds", {Bonus.FIVE_CARD_21.value: Odds(2, 1)}, "NY 5324.12(b)(6)"),
    ("NY", "super_bonus", SuperBonus(500, 50_000, 2_500, 500_000, 5_000), "NY 5324.12(b)(7)"),
    ("NY", "match_needs_shuffler", False, "NY 5324.12(d)(1)"),
    # (g): the reader finds a dealer blackjack before any double or split is made.
    ("PA", "dealer_blackjack_takes", DealerBlackjackTakes.ALL, "PA 635a.7(g)"),
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


@pytest.mark.parametrize("name", ["split_21_vs_dealer_21", "split_21_vs_dealer_blackjack"])
def test_pa_635a_7_o_equal_totals_tie_so_a_split_21_never_loses(name: str) -> None:
    """(o): equal totals tie, and only 21 in more than two cards loses to a Blackjack; (n)(3)
    may make a split A-K a winner. No reading lets a split two-card 21 lose: "lose" is
    refused with the clause, "push" and "win" are the two readings."""
    with pytest.raises(ProfileError) as caught:
        PENNSYLVANIA.with_options(**{name: SplitTwentyOne.LOSE})
    assert str(caught.value).startswith(f"profile PA: {name} = lose is not allowed: PA 635a.7(o) ")
    assert str(caught.value).endswith(f"excludes {name} = lose")
    for reading in (SplitTwentyOne.PUSH, SplitTwentyOne.WIN):
        assert getattr(PENNSYLVANIA.with_options(**{name: reading}), name) is reading
    assert PENNSYLVANIA.basis(name).kind is Basis.ASSUMED
    # NJ 19.5 is not in the texts we hold: every reading stays open there.
    assert NEW_JERSEY.with_options(**{name: SplitTwentyOne.LOSE})


def test_bonus_and_super_bonus_payouts_are_profile_fields_with_their_basis() -> None:
    """NY 5324.12(b)(6), (b)(7) fix them; PA and NJ pay the same where their payout
    sections are not in the texts we hold (assumed, settable)."""
    for profile in PROFILES.values():
        assert set(profile.bonus_odds) == {b.value for b in Bonus}
    assert NEW_YORK.bonus_odds[Bonus.SEVEN_PLUS_CARD_21.value] == Odds(3, 1)  # (b)(6)(vii)
    assert NEW_YORK.bonus_odds[Bonus.SIX_SEVEN_EIGHT_MIXED.value] == Odds(3, 2)  # (b)(6)(i)
    assert NEW_YORK.super_bonus == SuperBonus(500, 100_000, 2_500, 500_000, 5_000)  # (b)(7)
    assert str(NY_SUPER_BONUS) == "$1,000 from $5, $5,000 from $25, $50 to each other player"
    assert NEW_YORK.basis("bonus_odds").kind is Basis.FIXED
    for profile in (PENNSYLVANIA, NEW_JERSEY):
        assert profile.basis("bonus_odds").kind is Basis.ASSUMED
        assert profile.basis("super_bonus").kind is Basis.ASSUMED
        assert "not included" in profile.basis("bonus_odds").clause
    richer = PENNSYLVANIA.with_options(bonus_odds={Bonus.FIVE_CARD_21.value: Odds(2, 1)})
    assert richer.bonus_odds[Bonus.FIVE_CARD_21.value] == Odds(2, 1)
    assert richer.bonus_odds[Bonus.SIX_CARD_21.value] == Odds(2, 1)  # the rest kept
    none = PENNSYLVANIA.with_options(super_bonus=SuperBonus(500, 0, 2_500, 0, 0))
    assert none.super_bonus.for_wager(10_000) == 0


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        ("bonus_odds", {Bonus.FIVE_CARD_21.value: Odds(1, 2)}, "pays less than 1:1"),
        ("bonus_odds", {Bonus.FIVE_CARD_21.value: Odds(1, 1)}, ""),  # 1:1 is the floor
        ("super_bonus", SuperBonus(2_600, 100_000, 2_500, 500_000, 5_000), "above"),
        ("super_bonus", SuperBonus(500, -1, 2_500, 500_000, 5_000), "0 to 100000000"),
        ("super_bonus", SuperBonus(500, 100_000_001, 2_500, 1, 0), "0 to 100000000"),
        ("super_bonus", SuperBonus(0, 0, 0, 100_000_000, 0), ""),
        ("max_split_hands", 0, "1 to 8"),
        ("max_split_hands", 9, "1 to 8"),
        ("max_split_hands", 1, ""),
        ("max_split_hands", 8, ""),
        ("decks_allowed", (7,), "6, 8 or both"),
        ("decks_allowed", (6,), ""),
        ("match_tables", {7: MatchPayTable.A}, "pay table for 6 and 8"),
    ],
)
def test_option_ranges_on_both_sides(name: str, value: object, problem: str) -> None:
    if not problem:
        assert getattr(NEW_JERSEY.with_options(**{name: value}), name) is not None
        return
    with pytest.raises(ProfileError, match=problem):
        NEW_JERSEY.with_options(**{name: value})


@pytest.mark.parametrize(
    ("name", "raw", "expected"),
    [
        ("hit_soft_17", True, True),
        ("max_split_hands", 3, 3),
        ("settlement_order", "right_to_left", SettlementOrder.RIGHT_TO_LEFT),
        ("decks_allowed", [6], (6,)),
        ("match_tables", {"6": "B"}, {6: MatchPayTable.B}),
        ("bonus_odds", {"five_card_21": "2:1"}, {"five_card_21": Odds(2, 1)}),
        (
            "super_bonus",
            {"share_cents": 2_500},
            SuperBonus(500, 100_000, 2_500, 500_000, 2_500),
        ),
    ],
)
def test_an_option_read_from_a_script_or_station_toml(
    name: str, raw: object, expected: object
) -> None:
    assert NEW_JERSEY.parse(name, raw) == expected


@pytest.mark.parametrize(
    ("name", "raw", "problem"),
    [
        ("hit_soft_17", 1, "true or false"),
        ("max_split_hands", True, "whole number"),
        ("max_split_hands", 2.5, "whole number"),
        ("settlement_order", "clockwise", "one of collect_then_pay, right_to_left"),
        ("decks_allowed", [], "list of deck counts"),
        ("decks_allowed", [6.0], "list of deck counts"),
        ("match_tables", {"six": "A"}, "decks = pay table"),
        ("match_tables", {"6": "C"}, "decks = pay table"),
        ("bonus_odds", {"five_card_21": "3/2"}, "bonus = odds"),
        ("bonus_odds", {"five_card_22": "3:2"}, "bonus = odds"),
        ("bonus_odds", {"five_card_21": "0:1"}, "bonus = odds"),
        ("bonus_odds", [], "bonus = odds"),
        ("super_bonus", {"share": 1}, "amounts in cents"),
        ("super_bonus", {"share_cents": "50"}, "amounts in cents"),
        ("no_such_option", True, "unknown profile option"),
    ],
)
def test_an_option_of_the_wrong_form_is_one_line_naming_it(
    name: str, raw: object, problem: str
) -> None:
    with pytest.raises(ProfileError, match=problem) as caught:
        NEW_JERSEY.parse(name, raw)
    assert "\n" not in str(caught.value)


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
    ("PA", "match_tables", {6: MatchPayTable.B}),  # PA 635a.12(e) not included
    ("PA", "no_mid_shoe_entry", True),  # PA 635a.7 silent
    ("PA", "split_21_vs_dealer_21", SplitTwentyOne.WIN),  # (n)(3), 635a.1 not included
    ("PA", "bonus_odds", {"five_card_21": Odds(2, 1)}),  # PA 635a.12 not included
]


@pytest.mark.parametrize(("code", "name", "value"), LEFT_OPEN)
def test_a_profile_keeps_options_the_text_leaves_open(code: str, name: str, value: object) -> None:
    options: dict[str, object] = {name: value}
    if name == "dealer_second_card" and value is DealerSecondCard.AFTER_PLAYERS:
        options["peek"] = False
    profile = get_profile(code).with_options(**options)
    if isinstance(value, dict):  # a table names the entries it changes
        assert getattr(profile, name) | value == getattr(profile, name)
    else:
        assert getattr(profile, name) == value
