"""station.toml and the rules profile: every option docs/rules.md lists is settable under its
own name where the regulation leaves it open, and refused naming the clause where the
regulation fixes or excludes it; left out, an option is the profile's own; a NY table
without a card reader runs the no-peek procedure of 5324.12(c)(7)."""

from __future__ import annotations

import copy
import json
import re
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cli.main import main
from controller.rules.options import Basis, SuperBonus, shown
from controller.rules.profiles import (
    MAX_SPLIT_HANDS,
    OPTION_FIELDS,
    PROFILES,
    DealerSecondCard,
    MatchPayTable,
    Profile,
    SettlementOrder,
    SplitTwentyOne,
)
from controller.service.config import parse_config
from controller.service.config_schema import ConfigError
from controller.service.daemon import station_profile
from controller.table.machine import TableDevices, TableSettings
from controller.table.procedure import Table
from controller.table.prompts import State

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "station.toml"
SOURCE = Path("/etc/dealer-station/station.toml")


def example(profile: str = "PA", **options: Any) -> dict[str, Any]:
    data = tomllib.loads(EXAMPLE.read_text())
    data = copy.deepcopy(data)
    data["profile"] = profile
    data["options"] = {"match_the_dealer": True, **options}
    if profile == "NY":
        data["table_id"] = "NY-1"
    return data


def error_of(data: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_config(data, SOURCE)
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_every_option_is_documented_in_the_example_with_a_valid_pa_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = EXAMPLE.read_text()
    for name in OPTION_FIELDS:
        assert re.search(rf"^(# )?{name} = ", text, re.MULTILINE) or f"`{name}`" in text, name
    # Uncommented, the example's values are a valid PA configuration.
    uncommented = tmp_path / "station.toml"
    names = "|".join(OPTION_FIELDS)
    uncommented.write_text(re.sub(rf"^# ((?:{names}) = )", r"\1", text, flags=re.MULTILINE))
    options = tomllib.loads(uncommented.read_text())["options"]
    assert set(OPTION_FIELDS) - {"match_tables"} <= set(options)
    assert main(["check-config", str(uncommented)]) == 0
    assert main(["check-config", str(EXAMPLE)]) == 0


# --- every option docs/rules.md lists, through check-config ----------------------------------


def _docs_rows() -> list[tuple[str, str, str, str]]:
    """(option, profile, value, basis) for every cell of docs/rules.md's table."""
    text = (ROOT / "docs" / "rules.md").read_text()
    block = text.split("<!-- option bases: begin -->\n")[1].split("<!-- option bases: end -->")[0]
    lines = block.splitlines()
    codes = [c.strip() for c in lines[0].strip("|").split("|")][1:]
    rows = []
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        for code, cell in zip(codes, cells[1:], strict=True):
            value, basis = cell[1:].split("` ", 1)
            rows.append((cells[0].strip("`"), code, value, basis))
    return rows


def _toml(value: object) -> str:
    if isinstance(value, SuperBonus):
        return _toml({f.name: getattr(value, f.name) for f in fields(value)})
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "[" + ", ".join(map(str, value)) + "]"
    if isinstance(value, dict):
        items = (f"{k} = {_toml(v if isinstance(v, int) else shown(v))}" for k, v in value.items())
        return "{ " + ", ".join(items) + " }"
    if isinstance(value, int):
        return str(value)
    return f'"{shown(value)}"'


def _others(profile: Profile, name: str) -> list[tuple[object, str]]:
    """Values other than the profile's for option ``name``, each as TOML."""
    value = getattr(profile, name)
    if isinstance(value, bool):
        return [(not value, _toml(not value))]
    if isinstance(value, int):
        return [(value - 1, str(value - 1))]
    if isinstance(value, tuple):
        return [((6,), "[6]")]
    if name == "match_tables":
        other = {6: MatchPayTable.B}
        return [(other, '{ 6 = "B" }')]
    if name == "bonus_odds":
        return [({"five_card_21": "2:1"}, '{ five_card_21 = "2:1" }')]
    if name == "super_bonus":
        return [({"share_cents": 2_500}, "{ share_cents = 2500 }")]
    members = [m for m in type(value) if m is not value]
    return [(m, f'"{m.value}"') for m in members]


def _walk_config(tmp_path: Path, code: str, options: dict[str, str]) -> Path:
    text = EXAMPLE.read_text().replace('profile = "PA"', f'profile = "{code}"')
    start = text.index("[options]\n")
    end = text.index("\n[", start) + 1
    body = "".join(f"{k} = {v}\n" for k, v in options.items())
    text = text[:start] + "[options]\n" + body + text[end:]
    start = text.index("[limits]\n")  # no Match limits where a walk turns the wager off
    text = text[:start] + text[text.index("\n[", start) + 1 :]
    path = tmp_path / f"{code}.toml"
    path.write_text(text)
    return path


def test_every_option_docs_rules_lists_walks_through_check_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """For each cell of docs/rules.md's table, check-config shows the documented value and
    basis; the option set to that value is taken; set otherwise it is taken where the
    basis leaves it open (and check-config shows the new value), and refused naming the
    clause where the regulation fixes or excludes it."""
    rows = _docs_rows()
    assert {(n, c) for n, c, _, _ in rows} == {(n, c) for n in OPTION_FIELDS for c in PROFILES}
    for name, code, value, basis in rows:
        profile = PROFILES[code]
        own = _toml(getattr(profile, name))
        companions = {"dealer_second_card": '"hole"'} if name == "peek" else {}
        assert main(["check-config", str(_walk_config(tmp_path, code, {name: own}))]) == 0
        out = capsys.readouterr().out
        assert f"\n  {name} = {value}  ({basis}, set)\n" in out, (name, code)
        for other, toml in _others(profile, name):
            path = _walk_config(tmp_path, code, {name: toml, **companions})
            code_of_run = main(["check-config", str(path)])
            captured = capsys.readouterr()
            excluded = any(shown(other) == shown(x) for x in profile.basis(name).excludes)
            if profile.basis(name).kind is Basis.FIXED or excluded:
                assert code_of_run == 2, (name, code, toml)
                clause = profile.basis(name).clause if not excluded else ""
                assert f"options.{name}: profile {code}: {name} = " in captured.err
                assert clause in captured.err and "is not allowed" in captured.err
            else:
                assert code_of_run == 0, (name, code, toml, captured.err)
                shown_line = next(
                    line for line in captured.out.splitlines() if line.startswith(f"  {name} = ")
                )
                assert shown_line != f"  {name} = {value}  ({basis}, set)", (name, code)


def test_pa_635a_7_p_2_settlement_order_is_settable() -> None:
    config = parse_config(example(settlement_order="right_to_left"), SOURCE)
    assert station_profile(config).settlement_order is SettlementOrder.RIGHT_TO_LEFT
    message = error_of(example(settlement_order="clockwise"))
    assert message == (
        f"{SOURCE}: options.settlement_order: must be one of"
        " collect_then_pay, right_to_left, not 'clockwise'"
    )


def test_pa_635a_7_l_hit_soft_17_refused_in_one_line_naming_the_clause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "station.toml"
    bad.write_text(EXAMPLE.read_text().replace("hit_soft_17 = false", "hit_soft_17 = true"))
    assert main(["check-config", str(bad)]) == 2
    assert capsys.readouterr().err == (
        f"{bad}: options.hit_soft_17: profile PA: hit_soft_17 = true is not allowed:"
        " PA 635a.7(l) fixes hit_soft_17 = false\n"
    )


@pytest.mark.parametrize(
    ("profile", "key", "value", "clause"),
    [
        ("PA", "blackjack_paid_at_once", False, "PA 635a.7(h)(1)(i)"),
        ("PA", "no_draw_when_decided", False, "PA 635a.7(m)"),
        ("NY", "blackjack_paid_at_once", True, "NY 5324.12(b)(5)"),
        ("NY", "split_21_vs_dealer_21", "push", "NY 5324.12(b)(1)(iii), (b)(5)"),
        ("NY", "burn_disclosed_on_request", False, "NY 5324.12(c)(3)"),
    ],
)
def test_an_option_the_regulation_fixes_is_refused(
    profile: str, key: str, value: object, clause: str
) -> None:
    message = error_of(example(profile, **{key: value}))
    assert message.startswith(f"{SOURCE}: options.{key}: profile {profile}: {key} = ")
    assert f"is not allowed: {clause} fixes" in message


@pytest.mark.parametrize(
    ("profile", "key", "value"),
    [
        ("NY", "hit_soft_17", True),  # NY is silent
        ("NJ", "hit_soft_17", True),  # NJ 19.12 is not included
        ("NJ", "blackjack_paid_at_once", True),  # NJ is silent
        ("PA", "surrender", False),  # PA 635a.9 is not included
        ("PA", "split_21_vs_dealer_21", "win"),  # 635a.1 is not included
        ("NY", "settlement_order", "right_to_left"),
    ],
)
def test_an_option_the_text_leaves_open_is_taken(profile: str, key: str, value: object) -> None:
    config = parse_config(example(profile, **{key: value}), SOURCE)
    got = getattr(station_profile(config), key)
    assert getattr(got, "value", got) == value


@pytest.mark.parametrize(
    ("hands", "ok"), [(0, False), (1, True), (MAX_SPLIT_HANDS, True), (MAX_SPLIT_HANDS + 1, False)]
)
def test_max_split_hands_checked_on_both_sides(hands: int, ok: bool) -> None:
    data = example(max_split_hands=hands)
    if ok:
        assert station_profile(parse_config(data, SOURCE)).max_split_hands == hands
    else:
        assert error_of(data) == (
            f"{SOURCE}: options.max_split_hands: profile PA: max_split_hands must be 1 to"
            f" {MAX_SPLIT_HANDS}, not {hands}"
        )


def test_ny_split_21_reading_is_the_profiles() -> None:
    config = parse_config(example("NY", split_21_vs_dealer_21="win"), SOURCE)
    assert station_profile(config).split_21_vs_dealer_21 is SplitTwentyOne.WIN


def _ny_without_reader() -> dict[str, Any]:
    data = example("NY")
    del data["devices"]["card_reader"]
    return data


def test_ny_5324_12_c_7_without_a_card_reader_runs_the_no_peek_procedure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = station_profile(parse_config(_ny_without_reader(), SOURCE))
    assert profile.dealer_second_card is DealerSecondCard.HOLE and not profile.peek
    # check-config says which procedure the table will run.
    path = tmp_path / "ny.toml"
    text = EXAMPLE.read_text().replace('profile = "PA"', 'profile = "NY"')
    text = text.replace('table_id = "PA-S21-07"', 'table_id = "NY-1"')
    start = text.index("\n[devices.card_reader]\n") + 1
    end = text.index("\n[", start) + 1
    path.write_text(text[:start] + text[end:])
    assert main(["check-config", str(path)]) == 0
    assert "procedure: hole card turned after the players, no peek" in capsys.readouterr().out


def test_ny_without_a_card_reader_plays_a_king_up_card_without_a_peek() -> None:
    """The round goes to the players on a K up card instead of faulting for want of a
    reader (the hole card is turned after the players, 5324.12(c)(7))."""
    from table_support import ListJournal, RecordingPanel, RecordingShuffler
    from test_procedure import bet, deal, press, ready

    profile = station_profile(parse_config(_ny_without_reader(), SOURCE))
    journal = ListJournal()
    table = Table(
        TableSettings(profile, 6),
        TableDevices(RecordingShuffler(), RecordingPanel(), None),
        journal,
    )

    class _Rig:
        pass

    rig: Any = _Rig()
    rig.table, rig.journal = table, journal
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9D", "KC", "8S", "5H")  # seat 1 17; up KC; hole 5H
    assert table.state is State.PLAYERS
    press(rig)  # stand
    press(rig)  # turn the hole card: K 5 = 15, draws
    deal(rig, "4C")  # 19
    assert [r.data["net_cents"] for r in journal.of("settlement")] == [-1000]
    assert journal.of("fault") == []
    table.close()


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("surrender", "yes", "must be true or false"),
        ("max_split_hands", 2.5, "must be a whole number"),
        ("settlement_order", 2, "must be one of collect_then_pay, right_to_left"),
        ("dealer_blackjack_takes", "some", "must be one of original_only, all"),
    ],
)
def test_a_rule_option_of_the_wrong_kind_is_one_line(key: str, value: object, problem: str) -> None:
    message = error_of(example(**{key: value}))
    assert message.startswith(f"{SOURCE}: options.{key}: ")
    assert problem in message


@pytest.mark.parametrize("name", ["split_21_vs_dealer_21", "split_21_vs_dealer_blackjack"])
def test_pa_635a_7_o_a_losing_split_21_is_refused_in_station_toml_and_in_a_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """(o): equal totals tie, and only 21 in more than two cards loses to a Blackjack; (n)(3)
    may make a split A-K a winner. No reading lets a split two-card 21 lose."""
    refusal = f"profile PA: {name} = lose is not allowed: PA 635a.7(o) ("
    assert error_of(example(**{name: "lose"})).startswith(f"{SOURCE}: options.{name}: {refusal}")
    script = tmp_path / "round.json"
    script.write_text(
        json.dumps(
            {
                "profile": "PA",
                "decks": 6,
                "options": {name: "lose"},
                "seats": [{"seat": 1, "wager": 10, "decisions": ["stand"]}],
                "shoe": ["KH", "6C", "9S", "QH", "9D"],
            }
        )
    )
    assert main(["replay", str(script)]) == 2
    assert refusal in capsys.readouterr().err
    for reading in ("push", "win"):  # the two readings (n)(3) and (o) leave open
        profile = station_profile(parse_config(example(**{name: reading}), SOURCE))
        assert getattr(profile, name).value == reading


_TOML_SCALARS = st.one_of(
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["hole", "after_players", "win", "lose", "A", "B", "2:1", "0:1", "all"]),
)
_TOML_VALUES = st.one_of(
    _TOML_SCALARS,
    st.lists(_TOML_SCALARS, max_size=3),
    st.dictionaries(
        st.sampled_from(["6", "8", "7", "five_card_21", "777_spades", "share_cents", "x"]),
        _TOML_SCALARS,
        max_size=3,
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(list(PROFILES)),
    st.dictionaries(
        st.sampled_from([*OPTION_FIELDS, "match_pay_table", "nj_card_reader", "bogus"]),
        _TOML_VALUES,
        max_size=4,
    ),
)
def test_any_options_give_a_table_or_one_line_naming_the_key(
    code: str, options: dict[str, Any]
) -> None:
    data = example(code)
    data["options"] = options
    del data["limits"]
    try:
        profile = parse_config(data, SOURCE).rules()
    except ConfigError as err:
        assert "\n" not in str(err) and str(err).startswith(f"{SOURCE}: ")
        return
    assert profile.code == code
