"""`dealer-station replay`: examples with nets worked out by hand, and bad input -> exit 2."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from dataclasses import fields
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from controller.cli.main import main
from controller.cli.replay import ReplayError, money, parse_script, play, settlement, to_cents
from controller.rules.cards import ALL_CARDS, shoe_composition
from controller.rules.hands import is_blackjack_pair
from controller.rules.profiles import PROFILES, Profile
from controller.rules.round import Round
from controller.rules.steps import (
    Decision,
    NeedCard,
    NeedDecision,
    NeedInsurance,
    NeedPeek,
    NeedReveal,
)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))
STATION = Path(sys.executable).parent / "dealer-station"

# Nets by seat, worked out by hand from each example's shoe and the regulations.
EXPECTED_NETS: dict[str, dict[int, float]] = {
    # AS KC blackjack against a 5 up: 12.50 * 3/2 = 18.75; 18 ties the dealer's 18.
    "blackjack_paid_at_once": {1: 18.75, 2: 0},
    # Cover card first: 18 against 17.
    "cover_card_first": {4: 15},
    # 5+6+3 = 14 against 17.
    "cover_card_mid_round": {1: -10},
    # Insurance 5 pays 10, the 18 loses 10; blackjack against dealer blackjack 3:2.
    "dealer_blackjack_insurance_wins": {2: 0, 4: 15},
    # Bust and a three-card 21: the dealer's 7 draws nothing.
    "dealer_does_not_draw": {1: -10, 2: 10},
    # Doubled five-card 21 1:1 on 20; rescue -10; surrender -5; doubled 19 beats 17.
    "double_rescue_surrender": {1: 20, 2: -10, 3: -5, 4: 20},
    # A+6 hits soft 17 to 20 and beats 19.
    "hit_soft_17_option": {1: -10},
    # Insurance -10 and 19 beats 18 (+20); blackjack paid 3:2 after the reveal.
    "insurance_peek_no_blackjack": {1: 10, 3: 15},
    # Match 7S+7C vs 7S: 45 + 20, main 14 vs 17 -10; 7D 20, push; no match -5, 19 wins.
    "match_table_a": {1: 55, 2: 20, 3: 5},
    # Table B: suited K 12:1 on 5 = 60 - 20; off-suit K 3:1 on 10 = 30 - 20.
    "match_table_b_dealer_blackjack": {2: 40, 5: 10},
    # 5-card 21 3:2, 6-card 2:1, 7-card 3:1, 4-card 1:1, on 10 each.
    "multi_card_21_bonuses": {1: 15, 2: 20, 3: 30, 4: 10},
    # Dealer blackjack after play: the double is returned; blackjack wins 3:2.
    "nj_dealers_card_after_players": {1: -10, 2: 15, 3: -10},
    # The dealer's 16 draws a 9 and busts.
    "pa_basic": {1: 10, 3: 25},
    # 6-7-8 mixed 3:2, suited 2:1, spades 3:1, 7-7-7 mixed 3:2.
    "six_seven_eight_and_seven_seven_seven": {1: 15, 2: 20, 3: 30, 4: 15},
    # Split A+K ties the dealer's three-card 21, A+2 = 13 loses; three-card 21 wins.
    "split_21_push_in_pa": {2: -10, 3: 10},
    # 8s: doubled 20 pushes 20, 18 and 17 lose; aces: A+K 21 wins 1:1, A+7 18 loses.
    "splits_and_split_aces": {1: -20, 5: 0},
    # 50 + 5000 + 50; 30 + 1000 + 50; 19 wins 5 after the dealer busts, + 2 x 50.
    "super_bonus": {1: 5100, 2: 1080, 6: 105},
    # Split 7-7-7 of hearts 2:1 on 10 and 7+9 = 16 wins 10 (dealer busts); doubled
    # 7-7-7 of diamonds 1:1 on 20; no fixed payout, no $50 shares.
    "seven_seven_seven_without_super_bonus": {1: 30, 2: 20},
}


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, document: object, name: str = "round.json") -> Path:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


def replay_doc(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], document: object
) -> tuple[int, Any, str]:
    code, out, err = run_main(["replay", str(write(tmp_path, document))], capsys)
    return code, json.loads(out) if code == 0 else out, err


def base(**changes: Any) -> dict[str, Any]:
    """A valid PA round: seat 1 KH 9S = 19 stands; dealer 6C QH = 16 draws 9S: bust."""
    document: dict[str, Any] = {
        "profile": "PA",
        "decks": 6,
        "seats": [{"seat": 1, "wager": 10, "decisions": ["stand"]}],
        "shoe": ["KH", "6C", "9S", "QH", "9D"],
    }
    document.update(changes)
    return document


# --- the examples --------------------------------------------------------------------------


def test_there_are_at_least_ten_examples_and_all_have_expected_nets() -> None:
    assert len(EXAMPLES) >= 10
    assert {p.stem for p in EXAMPLES} == set(EXPECTED_NETS)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_replays_with_hand_computed_nets(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(["replay", str(path)], capsys)
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert {s["seat"]: s["net"] for s in result["seats"]} == EXPECTED_NETS[path.stem]
    assert isinstance(result["reshuffle"], bool)
    assert all(isinstance(c, str) for c in result["dealer"]["cards"])
    for seat in result["seats"]:
        assert seat["net_cents"] == round(seat["net"] * 100)
        payments = [p for p in result["payments"] if p["seat"] == seat["seat"]]
        assert round(sum(p["net"] for p in payments) * 100) == seat["net_cents"]


def test_examples_cover_the_cover_card() -> None:
    reshuffles = {
        p.stem for p in EXAMPLES if "CUT" in json.loads(p.read_text(encoding="utf-8"))["shoe"]
    }
    assert reshuffles == {"cover_card_first", "cover_card_mid_round"}


def test_pa_635a_7_d_cover_card_example_reports_reshuffle(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run_main(["replay", str(ROOT / "examples" / "cover_card_mid_round.json")], capsys)
    result = json.loads(out)
    assert result["reshuffle"] is True
    assert result["dealer"]["cards"] == ["8D", "9C"]
    assert result["seats"][0]["hands"][0]["cards"] == ["5S", "6H", "3C"]


def test_super_bonus_example_output_fields(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_main(["replay", str(ROOT / "examples" / "super_bonus.json")], capsys)
    seat1 = json.loads(out)["seats"][0]
    hand = seat1["hands"][0]
    assert hand["cards"] == ["7D", "7D", "7D"]
    assert (hand["outcome"], hand["odds"], hand["bonus"], hand["super_bonus"]) == (
        "win",
        "2:1",
        "777_suited",
        5000,
    )
    assert [share["net"] for share in seat1["super_bonus_shares"]] == [50]
    assert [share["note"] for share in seat1["super_bonus_shares"]] == ["super bonus at seat 2"]


def test_ny_5324_12_b_7_two_super_bonuses_show_two_shares(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Seats 1 and 2 hit 7-7-7 of diamonds and of spades against the 7C; seat 3 stands on
    # 9S 9H = 18 against the dealer's 7C 9D = 16, who draws 8C: bust.
    document = base(
        profile="NY",
        seats=[
            {"seat": 1, "wager": 25, "decisions": ["hit"]},
            {"seat": 2, "wager": 10, "decisions": ["hit"]},
            {"seat": 3, "wager": 5, "decisions": ["stand"]},
        ],
        shoe=["7D", "7S", "9S", "7C", "7D", "7S", "9H", "9D", "7D", "7S", "8C"],
    )
    code, result, _ = replay_doc(tmp_path, capsys, document)
    assert code == 0
    seat3 = result["seats"][2]
    assert [s["net"] for s in seat3["super_bonus_shares"]] == [50, 50]
    assert seat3["net"] == 5 + 100
    assert [s["net"] for s in result["seats"]] == [50 + 5000 + 50, 30 + 1000 + 50, 105]
    assert result["seats"][0]["super_bonus_shares"][0]["note"] == "super bonus at seat 2"


def test_match_and_insurance_reported_per_seat(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_main(
        ["replay", str(ROOT / "examples" / "dealer_blackjack_insurance_wins.json")], capsys
    )
    seat2 = json.loads(out)["seats"][0]
    assert seat2["insurance"]["outcome"] == "win"
    assert seat2["insurance"]["net"] == 10
    assert seat2["match"] is None


def test_several_scripts_give_a_list_naming_each(capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(ROOT / "examples" / "pa_basic.json"), str(ROOT / "examples" / "super_bonus.json")]
    code, out, _ = run_main(["replay", *paths], capsys)
    results = json.loads(out)
    assert code == 0
    assert [r["script"] for r in results] == paths


# --- script semantics ----------------------------------------------------------------------


def test_amounts_with_cents(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, result, _ = replay_doc(
        tmp_path, capsys, base(seats=[{"seat": 1, "wager": 12.35, "decisions": ["stand"]}])
    )
    assert code == 0
    assert result["seats"][0]["net"] == 12.35
    assert result["seats"][0]["net_cents"] == 1235


def test_doubled_hand_ends_unless_next_decision_is_rescue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Seat 1: 5S 6H doubles to 5S 6H 2D = 13; seat 2: 9C 2H doubles to 15 and rescues.
    # Dealer 9D 8C = 17.
    document = base(
        seats=[
            {"seat": 1, "wager": 10, "decisions": ["double"]},
            {"seat": 2, "wager": 10, "decisions": ["double", "rescue"]},
        ],
        shoe=["5S", "9C", "9D", "6H", "2H", "8C", "2D", "4S"],
    )
    code, result, _ = replay_doc(tmp_path, capsys, document)
    assert code == 0
    assert [s["net"] for s in result["seats"]] == [-20, -10]
    assert result["seats"][1]["hands"][0]["outcome"] == "rescue"


def test_split_aces_end_without_decision_and_hands_play_left_to_right(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # AS AD split: hand 1 gets 5C (16), hand 2 gets AH and may resplit: the seat stands.
    document = base(
        seats=[{"seat": 3, "wager": 10, "decisions": ["split", "stand"]}],
        shoe=["AS", "9S", "AD", "8H", "5C", "AH"],
    )
    code, result, _ = replay_doc(tmp_path, capsys, document)
    assert code == 0
    hands = result["seats"][0]["hands"]
    assert [h["cards"] for h in hands] == [["AS", "5C"], ["AD", "AH"]]
    assert [h["total"] for h in hands] == [16, 12]
    assert result["seats"][0]["net"] == -20


def test_options_object_sets_profile_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = base(
        profile="NJ",
        options={"dealer_second_card": "hole", "peek": True, "hit_soft_17": True},
        shoe=["KH", "AC", "9S", "6D", "3S"],
    )
    code, result, _ = replay_doc(tmp_path, capsys, document)
    assert code == 0
    assert result["dealer"]["cards"] == ["AC", "6D", "3S"]  # soft 17 hit
    assert result["seats"][0]["net"] == -10


# --- bad input: exit 2, one line on stderr -------------------------------------------------


BAD_SCRIPTS: list[tuple[str, object, str]] = [
    ("unknown profile", base(profile="NV"), "unknown profile 'NV'"),
    ("profile not text", base(profile=6), "profile must be a string"),
    ("a ten", base(shoe=["KH", "10S", "9S", "QH"]), "shoe card 2: foreign card '10S'"),
    ("a T ten", base(shoe=["KH", "6C", "TD", "QH"]), "shoe card 3: foreign card 'TD'"),
    ("garbage card", base(shoe=["KH", "6C", "9X", "QH"]), "shoe card 3: not a card: '9X'"),
    ("number card", base(shoe=["KH", 6, "9S", "QH"]), "shoe card 2: not a card"),
    ("too few cards", base(shoe=["KH", "6C", "9S"]), "the shoe ran out after 3 cards"),
    (
        "illegal decision",
        base(seats=[{"seat": 1, "wager": 10, "decisions": ["split"]}]),
        "seat 1 hand 1: split is not allowed on KH 9S",
    ),
    (
        "extra decisions",
        base(seats=[{"seat": 1, "wager": 10, "decisions": ["stand", "hit"]}]),
        "seat 1: 1 decision(s) left over: hit",
    ),
    (
        "missing decisions",
        base(seats=[{"seat": 1, "wager": 10}]),
        "seat 1: no decision left for hand 1",
    ),
    (
        "unknown decision",
        base(seats=[{"seat": 1, "wager": 10, "decisions": ["fold"]}]),
        "seat 1: unknown decision 'fold'",
    ),
    (
        "insurance over half",
        base(
            seats=[{"seat": 1, "wager": 10, "insurance": 5.01, "decisions": ["stand"]}],
            shoe=["KH", "AC", "9S", "6D"],
        ),
        "seat 1: insurance 5.01 is more than half the wager 10.00",
    ),
    (
        "insurance without ace",
        base(seats=[{"seat": 1, "wager": 10, "insurance": 5, "decisions": ["stand"]}]),
        "seat 1: insurance 5 but the dealer's up card 6C is not an ace",
    ),
    ("unknown top key", base(bet=5), "unknown key 'bet'"),
    (
        "unknown seat key",
        base(seats=[{"seat": 1, "wager": 10, "bet": 5, "decisions": ["stand"]}]),
        "seats[0]: unknown key 'bet'",
    ),
    ("missing key", {"profile": "PA", "decks": 6, "seats": []}, "missing key 'shoe'"),
    ("not an object", [1, 2], "the script must be a JSON object"),
    ("no seats", base(seats=[]), "seats must be a non-empty list"),
    ("shoe not a list", base(shoe="KH 6C"), "shoe must be a list"),
    (
        "negative amount",
        base(seats=[{"seat": 1, "wager": -10, "decisions": ["stand"]}]),
        "seat 1 wager: -10 is not a non-negative amount in whole cents",
    ),
    (
        "fraction of a cent",
        base(seats=[{"seat": 1, "wager": 10.005, "decisions": ["stand"]}]),
        "seat 1 wager: 10.005 is not a non-negative amount in whole cents",
    ),
    (
        "amount as text",
        base(seats=[{"seat": 1, "wager": "10", "decisions": ["stand"]}]),
        'seat 1 wager: amount must be a number, not "10"',
    ),
    (
        "amount true",
        base(seats=[{"seat": 1, "wager": True, "decisions": ["stand"]}]),
        "seat 1 wager: amount must be a number, not true",
    ),
    (
        "match as text",
        base(seats=[{"seat": 1, "wager": 10, "match": "5", "decisions": ["stand"]}]),
        "seat 1 match: amount must be a number",
    ),
    (
        "zero wager",
        base(seats=[{"seat": 1, "wager": 0, "decisions": ["stand"]}]),
        "seat 1: the Spanish 21 wager must be positive",
    ),
    (
        "huge amount",
        '{"profile":"PA","decks":6,"seats":[{"seat":1,"wager":1e999999999}],"shoe":[]}',
        "seat 1 wager: not an amount",
    ),
    (
        "too large amount",
        base(seats=[{"seat": 1, "wager": 10**12, "decisions": ["stand"]}]),
        "is too large an amount",
    ),
    (
        "missing wager",
        base(seats=[{"seat": 1, "decisions": ["stand"]}]),
        "seat 1: missing wager",
    ),
    (
        "seat 8",
        base(seats=[{"seat": 8, "wager": 10}]),
        "seats[0]: seat must be a number from 1 to 7",
    ),
    (
        "seat twice",
        base(seats=[{"seat": 1, "wager": 10}, {"seat": 1, "wager": 10}]),
        "seat 1: listed twice",
    ),
    ("seven decks", base(decks=7), "profile PA deals from 6 or 8 decks, not 7"),
    ("decks as text", base(decks="6"), "decks must be 6 or 8"),
    ("unknown option", base(options={"hit_soft_18": True}), "unknown profile option 'hit_soft_18'"),
    (
        "option wrong type",
        base(options={"hit_soft_17": "yes"}),
        "options: hit_soft_17 must be true or false",
    ),
    (
        "option bad choice",
        base(options={"settlement_order": "random"}),
        "options: settlement_order must be one of collect_then_pay, right_to_left, not 'random'",
    ),
    (
        "option contradiction",
        base(profile="NY", options={"dealer_second_card": "after_players"}),
        "peek needs a hole card",
    ),
    (
        "option the regulation fixes",
        base(options={"hit_soft_17": True}),
        "profile PA: hit_soft_17 = true is not allowed: PA 635a.7(l) fixes hit_soft_17 = false",
    ),
    ("options not an object", base(options=[1]), "options must be an object"),
    (
        "option not a number",
        base(options={"max_split_hands": True}),
        "options: max_split_hands must be a whole number",
    ),
    (
        "option the regulation fixes",
        base(profile="NY", options={"decks_allowed": [6]}),
        "NY 5324.12(a) fixes decks_allowed = 6, 8",
    ),
    (
        "PA 635a.7(o): a split 21 never loses",
        base(options={"split_21_vs_dealer_21": "lose"}),
        "profile PA: split_21_vs_dealer_21 = lose is not allowed: PA 635a.7(o)",
    ),
    ("option code", base(options={"code": "NJ"}), "unknown profile option 'code'"),
    (
        "no split hands",
        base(options={"max_split_hands": 0}),
        "max_split_hands must be 1 to 8, not 0",
    ),
    (
        "too many split hands",
        base(options={"max_split_hands": 9}),
        "max_split_hands must be 1 to 8, not 9",
    ),
    ("malformed JSON", '{"profile": "PA",', "malformed JSON at line 1 column 18"),
    ("NaN", base(seats=[{"seat": 1, "wager": float("nan")}]), "amount must be a number, not NaN"),
    ("deep nesting", "[" * 100_000 + "]" * 100_000, "malformed JSON: nested too deeply"),
    (
        "too many digits",
        '{"profile":"PA","decks":6,"seats":[{"seat":1,"wager":' + "9" * 5000 + "}]}",
        "malformed JSON: a number with too many digits",
    ),
]


@pytest.mark.parametrize(
    ("document", "message"),
    [(doc, msg) for _, doc, msg in BAD_SCRIPTS],
    ids=[name for name, _, _ in BAD_SCRIPTS],
)
def test_bad_script_exits_2_with_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], document: object, message: str
) -> None:
    path = write(tmp_path, document)
    code, out, err = run_main(["replay", str(path)], capsys)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"dealer-station replay: {path}: ")
    assert message in lines[0]
    assert "Traceback" not in err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(["replay", str(tmp_path / "none.json")], capsys)
    assert code == 2
    assert err.strip().endswith("cannot read the script: No such file or directory")


def test_not_utf8_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bin.json"
    path.write_bytes(b"\xff\xfe{")
    code, _, err = run_main(["replay", str(path)], capsys)
    assert code == 2
    assert "cannot read the script" in err and len(err.splitlines()) == 1


def test_an_error_in_the_second_script_prints_nothing_on_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path, base(profile="XX"))
    code, out, err = run_main(["replay", str(EXAMPLES[0]), str(bad)], capsys)
    assert (code, out) == (2, "")
    assert "unknown profile 'XX'" in err


SUBPROCESS_CASES = [
    "unknown profile",
    "a ten",
    "too few cards",
    "illegal decision",
    "extra decisions",
    "missing decisions",
    "insurance over half",
    "insurance without ace",
    "malformed JSON",
    "unknown seat key",
    "negative amount",
    "fraction of a cent",
    "amount as text",
]


def test_installed_command_exits_2_without_traceback(tmp_path: Path) -> None:
    assert STATION.exists(), "run the tests from the project's .venv"
    cases = {name: (doc, msg) for name, doc, msg in BAD_SCRIPTS}
    for name in SUBPROCESS_CASES:
        document, message = cases[name]
        path = write(tmp_path, document, name.replace(" ", "_") + ".json")
        done = subprocess.run(
            [str(STATION), "replay", str(path)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert done.returncode == 2, name
        assert done.stdout == "", name
        assert len(done.stderr.splitlines()) == 1, (name, done.stderr)
        assert message in done.stderr, name
        assert "Traceback" not in done.stderr, name


def test_installed_command_replays_an_example() -> None:
    done = subprocess.run(
        [str(STATION), "replay", str(ROOT / "examples" / "pa_basic.json")],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert {s["seat"]: s["net"] for s in json.loads(done.stdout)["seats"]} == {1: 10, 3: 25}


# --- amounts -------------------------------------------------------------------------------


def test_to_cents_and_money() -> None:
    assert to_cents(10, "x") == 1000
    assert to_cents(Decimal("12.5"), "x") == 1250
    assert to_cents(Decimal("0.01"), "x") == 1
    assert isinstance(to_cents(Decimal("12.50"), "x"), int)
    assert money(1250) == 12.5
    assert money(1000) == 10
    assert isinstance(money(1000), int)
    assert money(-503) == -5.03


# --- docs/replay.md stays true -------------------------------------------------------------


def _code_blocks(text: str) -> list[str]:
    return text.split("```")[1::2]


def test_docs_worked_example_matches_the_replay(capsys: pytest.CaptureFixture[str]) -> None:
    docs = (ROOT / "docs" / "replay.md").read_text(encoding="utf-8")
    blocks = _code_blocks(docs)
    script = next(b for b in blocks if b.startswith('json\n{\n  "profile": "PA",\n  "decks"'))
    example = json.loads((ROOT / "examples" / "pa_basic.json").read_text(encoding="utf-8"))
    example.pop("description")
    assert json.loads(script.removeprefix("json\n")) == example
    shown = next(b for b in blocks if "$ dealer-station replay examples/pa_basic.json" in b)
    expected = json.loads(shown.split("\n", 2)[2])
    _, out, _ = run_main(["replay", str(ROOT / "examples" / "pa_basic.json")], capsys)
    assert json.loads(out) == expected


def test_docs_bad_script_line_matches(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = (ROOT / "docs" / "replay.md").read_text(encoding="utf-8")
    shown = next(b for b in _code_blocks(docs) if "bad.json; echo $?" in b).splitlines()
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(base(shoe=["KH", "10S", "9S", "QH"])))
    code, _, err = run_main(["replay", str(path)], capsys)
    assert err.strip().replace(str(path), "bad.json") == shown[2]
    assert str(code) == shown[3]


# --- the replay settles a random round exactly as the engine does ---------------------------

OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"hit_soft_17": True, "settlement_order": "right_to_left"},
    {"dealer_second_card": "hole", "peek": True},
    {"dealer_second_card": "after_players", "peek": False},
    {"hit_split_aces": True, "resplit_aces": False},
    {"rescue": False, "max_split_hands": 2},
]


def allowed(code: str, options: dict[str, Any]) -> bool:
    """True unless the profile's regulation fixes one of ``options`` otherwise."""
    try:
        parse_script(json.loads(json.dumps({**base(profile=code), "options": options})))
    except ReplayError:
        return False
    return True


@settings(max_examples=int(os.environ.get("REPLAY_PROPERTY_EXAMPLES", "150")), deadline=None)
@given(st.data())
def test_replay_of_a_random_round_settles_as_the_engine(data: st.DataObject) -> None:
    seats = data.draw(st.lists(st.integers(1, 7), min_size=1, max_size=7, unique=True))
    document: dict[str, Any] = {
        "profile": (profile := data.draw(st.sampled_from(list(PROFILES)))),
        "decks": data.draw(st.sampled_from([6, 8])),
        "options": data.draw(st.sampled_from(OPTION_SETS).filter(lambda o: allowed(profile, o))),
        "seats": [
            {
                "seat": seat,
                "wager": data.draw(st.sampled_from([5, 10, 12.5, 25, 100])),
                # Match the Dealer where the profile offers it.
                "match": data.draw(st.sampled_from([0, 0, 5])) * PROFILES[profile].match_the_dealer,
            }
            for seat in seats
        ],
        "shoe": [],
    }
    rnd = random.Random(data.draw(st.integers(0, 2**32)))
    script = parse_script(json.loads(json.dumps(document), parse_float=Decimal))
    shoe = list(shoe_composition(script.decks).elements())
    rnd.shuffle(shoe)
    cover_at = rnd.randrange(0, 40) if rnd.random() < 0.3 else None

    # Play the engine directly with random legal decisions, writing the script as we go.
    round_ = Round(script.profile, script.decks, [s.wager for s in script.seats])
    decisions: dict[int, list[str]] = {seat: [] for seat in seats}
    insurance: dict[int, int] = {}
    while not round_.over:
        step = round_.step
        if isinstance(step, NeedCard):
            if len(document["shoe"]) == cover_at:
                document["shoe"].append("CUT")
                round_.cover_card()
            card = shoe.pop()
            document["shoe"].append(card.text)
            round_.deal(card)
        elif isinstance(step, NeedInsurance):
            insurance = {s: rnd.choice([0, 100, 250]) for s in step.seats}
            round_.take_insurance(insurance)
        elif isinstance(step, NeedPeek):
            assert round_.up_card is not None and round_.hole is not None
            round_.peek(is_blackjack_pair(round_.up_card, round_.hole.reveal()))
        elif isinstance(step, NeedDecision):
            choice = rnd.choice(sorted(step.legal, key=lambda d: d.value))
            # A doubled hand's stand is implied in a script (docs/replay.md).
            if not (step.legal == {Decision.STAND, Decision.RESCUE} and choice is Decision.STAND):
                decisions[step.seat].append(choice.value)
            round_.decide(step.seat, choice)
        elif isinstance(step, NeedReveal):
            round_.reveal_hole()
    for entry in document["seats"]:
        entry["decisions"] = decisions[entry["seat"]]
        if insurance.get(entry["seat"]):
            entry["insurance"] = insurance[entry["seat"]] / 100

    replayed = play(parse_script(json.loads(json.dumps(document), parse_float=Decimal)))
    result = settlement(script, replayed)
    assert result["dealer"]["cards"] == [c.text for c in round_.dealer_cards]
    assert result["reshuffle"] is round_.reshuffle_due
    assert {s["seat"]: s["net_cents"] for s in result["seats"]} == {
        seat: round_.seat_net(seat) for seat in seats
    }
    assert [(p.seat, p.wager, p.net) for p in replayed.payments] == [
        (p.seat, p.wager, p.net) for p in round_.payments
    ]


# --- no input makes a traceback ------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**15), 10**15)
    | st.decimals(allow_nan=False, allow_infinity=False, places=3)
    | st.text(max_size=5)
    | st.sampled_from(["PA", "NJ", "NY", "CUT", "7S", "10S", "hit", "stand", "split"]),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(
        [
            "profile",
            "decks",
            "seats",
            "shoe",
            "options",
            "seat",
            "wager",
            "match",
            "insurance",
            "decisions",
        ]
    ),
    JSON_VALUES,
)
def test_any_value_in_any_field_gives_a_replay_error_or_a_round(key: str, value: object) -> None:
    document: dict[str, Any] = json.loads(json.dumps(base()), parse_float=Decimal)
    if key in ("seat", "wager", "match", "insurance", "decisions"):
        document["seats"][0][key] = value
    else:
        document[key] = value
    try:
        settlement(parse_script(document), play(parse_script(document)))
    except ReplayError as err:
        assert "\n" not in str(err)
        assert str(err)


PROFILE_FIELDS = sorted(f.name for f in fields(Profile))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(PROFILE_FIELDS), JSON_VALUES, max_size=3))
@example({"bonus_odds": {"\n": None}})  # a key that is a line break: the message stays one line
def test_any_options_give_a_replay_error_or_a_round(options: dict[str, object]) -> None:
    document: dict[str, Any] = json.loads(json.dumps(base()), parse_float=Decimal)
    document["options"] = options
    try:
        settlement(parse_script(document), play(parse_script(document)))
    except ReplayError as err:
        assert "\n" not in str(err)


CARD_TEXTS = [c.text for c in ALL_CARDS]
DECISION_NAMES = [d.value for d in Decision]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(list(PROFILES)),
    st.lists(
        st.tuples(
            st.integers(1, 7),
            st.sampled_from([1, 5, 10.5]),
            st.sampled_from([0, 0, 0, 0, 0.5, 5]),
            st.lists(st.sampled_from(DECISION_NAMES), max_size=3),
        ),
        min_size=1,
        max_size=4,
        unique_by=lambda seat: seat[0],
    ),
    st.lists(st.sampled_from([*CARD_TEXTS, "CUT"]), min_size=10, max_size=40),
)
def test_any_decisions_and_shoe_give_a_replay_error_or_a_round(
    profile: str, seats: list[tuple[int, float, float, list[str]]], shoe: list[str]
) -> None:
    document = {
        "profile": profile,
        "decks": 6,
        "seats": [{"seat": s, "wager": w, "insurance": i, "decisions": d} for s, w, i, d in seats],
        "shoe": shoe,
    }
    script = json.loads(json.dumps(document), parse_float=Decimal)
    try:
        result = settlement(parse_script(script), play(parse_script(script)))
    except ReplayError as err:
        assert "\n" not in str(err)
        event(" ".join(w for w in str(err).split()[2:5] if not w[0].isdigit()))
    else:
        event("settled")
        for seat in result["seats"]:
            assert seat["net_cents"] == round(seat["net"] * 100)
