"""The posted table limits (NY 5324.12(d)(2)): configured in ``[limits]``, journaled at
start, checked at "no more bets" against what the wager sensors weigh.

The limits of these tests: Spanish 21 $10.00 to $500.00, Match the Dealer $5.00 to $50.00.
Each side of each range is tried (the limit itself is taken, one cent past it is refused).
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from table_support import ListJournal, Rig
from test_procedure import bet, press, ready, rows

from controller.rules.errors import WagerError
from controller.rules.profiles import get_profile
from controller.service.config import parse_config
from controller.service.config_schema import ConfigError
from controller.table.limits import NO_LIMITS, TableLimits, dollars
from controller.table.procedure import Table, TableDevices, TableSettings
from controller.table.prompts import State
from drivers.hal import SeatWagerChanged, WagerSpot

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "station.toml"
SOURCE = Path("/etc/dealer-station/station.toml")
LIMITS = TableLimits(main_min=1000, main_max=50_000, match_min=500, match_max=5000)


def limited_rig(limits: TableLimits = LIMITS, profile: str = "PA") -> Rig:
    from table_support import RecordingPanel, RecordingReader, RecordingShuffler

    journal = ListJournal()
    shuffler, reader, panel = RecordingShuffler(), RecordingReader(), RecordingPanel()
    settings = TableSettings(get_profile(profile), 6, limits=limits)
    table = Table(settings, TableDevices(shuffler, panel, reader), journal)
    return Rig(table, journal, shuffler, reader, panel)


def playing(rig: Rig) -> dict[int, tuple[int, int]]:
    """Seat -> (Spanish 21 cents, Match cents) of the round just dealt."""
    assert rig.table.play is not None
    return {s: (w.wager, w.match) for s, w in rig.table.play.round.wagers.items()}


# --- at "no more bets" ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cents", "plays"),
    [(999, False), (1000, True), (50_000, True), (50_001, False)],
)
def test_a_spanish_21_wager_outside_the_limits_sits_its_seat_out(cents: int, plays: bool) -> None:
    """NY 5324.12(d)(2): both sides of the posted Spanish 21 range; seat 2 ($25) always
    plays."""
    rig = limited_rig()
    ready(rig)
    bet(rig, 1, cents)
    bet(rig, 2, 2500)
    press(rig)
    assert rig.table.state is State.DEALING
    refused = rows(rig, "wager_refused")
    if plays:
        assert refused == []
        assert playing(rig) == {1: (cents, 0), 2: (2500, 0)}
    else:
        assert playing(rig) == {2: (2500, 0)}
        assert len(refused) == 1 and refused[0]["seat"] == 1 and "spot" not in refused[0]
        reason = refused[0]["reason"]
        assert "NY 5324.12(d)(2)" in reason
        side = "under the table minimum $10.00" if cents < 1000 else "over the table maximum"
        assert side in reason and dollars(cents) in reason
        assert reason.startswith(f"seat 1: the Spanish 21 wager of {dollars(cents)} is ")


@pytest.mark.parametrize(
    ("cents", "taken"),
    [(499, False), (500, True), (5000, True), (5001, False)],
)
def test_a_match_wager_outside_its_limits_is_refused_alone(cents: int, taken: bool) -> None:
    """NY 5324.12(d)(2): both sides of the Match the Dealer range. Refused, the seat still
    plays its Spanish 21 wager, without the Match (which then settles nothing)."""
    rig = limited_rig()
    ready(rig)
    bet(rig, 3, 2000, match=cents)
    press(rig)
    assert rig.table.state is State.DEALING
    refused = rows(rig, "wager_refused")
    if taken:
        assert refused == [] and playing(rig) == {3: (2000, cents)}
    else:
        assert playing(rig) == {3: (2000, 0)}
        assert [(r["seat"], r["spot"]) for r in refused] == [(3, "match")]
        assert refused[0]["reason"].startswith(
            f"seat 3: the Match the Dealer wager of {dollars(cents)}"
        )
        assert "NY 5324.12(d)(2)" in refused[0]["reason"]


def test_the_dealer_returns_a_refused_match_wager_without_a_fault() -> None:
    """The chips of a refused Match lie on a spot with nothing of the round on it: taking
    them back is no wager withdrawn in play (NY 5324.12(b)(8) is not in question)."""
    rig = limited_rig()
    ready(rig)
    bet(rig, 1, 2000, match=10_000)
    press(rig)
    rig.table.handle(SeatWagerChanged(1, WagerSpot.MATCH, False, None))
    assert rig.table.state is State.DEALING
    assert rows(rig, "fault") == []


def test_a_wager_the_sensor_cannot_weigh_is_taken() -> None:
    """Presence only (no amount): the limits cannot be checked, the wager plays as at a
    table without weighing sensors."""
    rig = limited_rig()
    ready(rig)
    rig.table.handle(SeatWagerChanged(4, WagerSpot.MAIN, True, None))
    press(rig)
    assert rig.table.state is State.DEALING and rows(rig, "wager_refused") == []
    assert set(playing(rig)) == {4}


def test_with_every_seat_outside_the_limits_betting_stays_open() -> None:
    rig = limited_rig()
    ready(rig)
    bet(rig, 1, 500)
    bet(rig, 2, 60_000)
    press(rig)
    assert rig.table.state is State.BETTING
    assert [r["seat"] for r in rows(rig, "wager_refused")] == [1, 2]


def test_one_sided_limits_check_one_side() -> None:
    rig = limited_rig(TableLimits(main_min=1000))
    ready(rig)
    bet(rig, 1, 90_000_000)
    bet(rig, 2, 999)
    press(rig)
    assert set(playing(rig)) == {1}


@settings(max_examples=60, deadline=None)
@given(
    main=st.integers(min_value=1, max_value=100_000),
    match=st.integers(min_value=0, max_value=10_000),
)
def test_whoever_plays_is_within_the_limits(main: int, match: int) -> None:
    """Any weighed wagers: a seat that plays has its Spanish 21 wager within the limits and
    a Match within its own or none; nothing else is dropped silently."""
    rig = limited_rig()
    ready(rig)
    bet(rig, 1, main, match=match)
    bet(rig, 2, 2500)
    press(rig)
    seats = playing(rig)
    refused = {(r["seat"], r.get("spot")) for r in rows(rig, "wager_refused")}
    main_in = 1000 <= main <= 50_000
    match_in = match == 0 or 500 <= match <= 5000
    if not main_in:
        assert 1 not in seats and refused == {(1, None)}
    else:
        assert seats[1] == (main, match if match_in else 0)
        assert refused == (set() if match_in else {(1, "match")})


# --- the limits themselves --------------------------------------------------------------


def test_no_limits_takes_every_wager_the_rules_take() -> None:
    assert NO_LIMITS.main_problem(1, 1) == "" and NO_LIMITS.main_problem(1, 100_000_000) == ""
    assert NO_LIMITS.match_problem(1, 1) == ""


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"main_min": 0}, "must be positive"),
        ({"match_max": -5}, "must be positive"),
        ({"main_min": 2000, "main_max": 1999}, "minimum $20.00 is over its maximum $19.99"),
        ({"match_min": 600, "match_max": 500}, "Match the Dealer minimum"),
        ({"main_max": 100_000_001}, "ceiling"),
    ],
)
def test_impossible_limits_are_refused(fields: dict[str, int], expected: str) -> None:
    with pytest.raises(WagerError, match=expected.replace("$", r"\$")):
        TableLimits(**fields)


@pytest.mark.parametrize("name", ["main_min", "main_max", "match_min", "match_max"])
def test_a_bad_limit_is_named_in_its_refusal(name: str) -> None:
    """A technician told "must be positive" learns which of the four limits is wrong."""
    with pytest.raises(WagerError, match=f"the table limit {name} must be positive"):
        TableLimits(**{name: 0})


def test_a_spanish_21_minimum_over_its_maximum_names_the_spanish_21_wager() -> None:
    with pytest.raises(WagerError, match=r"^the Spanish 21 minimum \$20\.00 is over"):
        TableLimits(main_min=2000, main_max=1999)


@pytest.mark.parametrize(
    "fields",
    [{"main_min": 2500, "main_max": 2500}, {"match_min": 500, "match_max": 500}],
)
def test_a_minimum_equal_to_its_maximum_is_a_single_posted_wager(fields: dict[str, int]) -> None:
    """NY 5324.12(d)(2) asks for the minimum and maximum on the sign; a table that takes
    one amount only (minimum = maximum) posts the same figure twice, and that amount plays."""
    limits = TableLimits(**fields)
    assert limits.main_problem(1, 2500) == "" and limits.match_problem(1, 500) == ""


def test_a_refusal_names_the_seat_and_the_wager() -> None:
    """NY 5324.12(d)(2): the dealer is told which seat's chips go back and why."""
    assert LIMITS.main_problem(4, 999) == (
        "seat 4: the Spanish 21 wager of $9.99 is under the table minimum $10.00 (NY 5324.12(d)(2))"
    )
    assert LIMITS.match_problem(6, 5001) == (
        "seat 6: the Match the Dealer wager of $50.01 is over the table maximum $50.00"
        " (NY 5324.12(d)(2))"
    )


def test_the_journal_records_each_posted_limit_under_its_documented_name() -> None:
    """``station_started``'s ``limits`` (docs/journal.md): each limit in cents under the
    name the journal's documentation gives it, null where none is set."""
    documented = Path(__file__).resolve().parent.parent / "docs" / "journal.md"
    row = next(
        line for line in documented.read_text().splitlines() if "| `station_started` |" in line
    )
    names = ["main_min_cents", "main_max_cents", "match_min_cents", "match_max_cents"]
    assert all(f"`{n}" in row or f" {n}" in row for n in names)
    assert LIMITS.posted() == dict(zip(names, [1000, 50_000, 500, 5000], strict=True))
    assert TableLimits(match_max=700).posted() == dict(
        zip(names, [None, None, None, 700], strict=True)
    )


def test_dollars_as_the_sign_shows_them() -> None:
    assert dollars(5) == "$0.05" and dollars(1000) == "$10.00"
    assert dollars(500_000) == "$5,000.00" and dollars(123_456_789) == "$1,234,567.89"


# --- station.toml -----------------------------------------------------------------------


def example() -> dict[str, Any]:
    return tomllib.loads(EXAMPLE.read_text())


def with_limits(**limits: object) -> dict[str, Any]:
    data = copy.deepcopy(example())
    data["limits"] = limits
    return data


def config_error(data: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_config(data, SOURCE)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(SOURCE))
    return message


def test_the_example_posts_its_limits() -> None:
    config = parse_config(example(), SOURCE)
    assert config.limits == TableLimits(1000, 500_000, 500, 10_000)


def test_no_limits_section_is_no_limits() -> None:
    data = example()
    del data["limits"]
    assert parse_config(data, SOURCE).limits == NO_LIMITS


@pytest.mark.parametrize(
    ("limits", "key", "problem"),
    [
        ({"main_min_cents": 0}, "limits.main_min_cents", "must be positive"),
        ({"main_min_cents": 10.5}, "limits.main_min_cents", "expected"),
        ({"main_min_cents": True}, "limits.main_min_cents", "expected"),
        ({"main_min_cents": "10"}, "limits.main_min_cents", "expected"),
        ({"match_max_cents": -1}, "limits.match_max_cents", "must be positive"),
        ({"main_max_cents": 10**20}, "limits.main_max_cents", ""),
        ({"main_min_cents": 500, "main_max_cents": 499}, "limits.main_max_cents", "under"),
        ({"match_min_cents": 600, "match_max_cents": 500}, "limits.match_max_cents", "under"),
        ({"table_max": 100}, "limits.table_max", "unknown"),
    ],
)
def test_bad_limits_name_the_key(limits: dict[str, object], key: str, problem: str) -> None:
    message = config_error(with_limits(**limits))
    assert f": {key}: " in message and problem in message


def test_match_limits_need_the_match_wager() -> None:
    data = with_limits(match_min_cents=500)
    data["options"]["match_the_dealer"] = False
    del data["options"]["match_pay_table"]
    message = config_error(data)
    assert "limits.match_min_cents" in message and "offers no Match the Dealer" in message


@settings(max_examples=80, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["main_min_cents", "main_max_cents", "match_min_cents", "match_max_cents"]),
        st.one_of(st.integers(-(10**12), 10**12), st.floats(), st.booleans(), st.text(max_size=4)),
    )
)
def test_any_limits_section_parses_or_names_its_key(limits: dict[str, object]) -> None:
    """Hostile [limits]: a config or one line naming a limits key, never a traceback."""
    try:
        config = parse_config(with_limits(**limits), SOURCE)
    except ConfigError as err:
        assert "\n" not in str(err) and ": limits." in str(err)
    else:
        posted = config.limits.posted()
        assert all(v is None or 1 <= v <= 100_000_000 for v in posted.values())


@pytest.mark.parametrize(
    ("key", "cents", "problem"),
    [
        ("main_min_cents", 0, "a table limit must be positive, not 0 cents"),
        ("match_min_cents", -1, "a table limit must be positive, not -1 cents"),
        (
            "main_max_cents",
            100_000_001,
            "a table limit of 100000001 cents is over the 100000000 cent ceiling",
        ),
    ],
)
def test_a_limit_out_of_range_is_refused_in_one_line_saying_why(
    key: str, cents: int, problem: str
) -> None:
    """NY 5324.12(d)(2): the posted limits are amounts of money, whole cents from 1 cent
    to the station's ceiling; the technician reads which key and what is wrong with it."""
    message = config_error(with_limits(**{key: cents}))
    assert message == f"{SOURCE}: limits.{key}: {problem}"


@pytest.mark.parametrize("cents", [1, 100_000_000])
def test_a_limit_of_one_cent_or_of_the_ceiling_is_posted(cents: int) -> None:
    """Both ends of the range a limit may take (NY 5324.12(d)(2)), on each of the four keys."""
    for side in ("main", "match"):
        limits = {f"{side}_min_cents": cents, f"{side}_max_cents": cents}
        posted = parse_config(with_limits(**limits), SOURCE).limits.posted()
        assert posted[f"{side}_min_cents"] == posted[f"{side}_max_cents"] == cents


def test_a_minimum_one_cent_under_its_maximum_is_posted_and_one_over_is_refused() -> None:
    config = parse_config(with_limits(main_min_cents=499, main_max_cents=500), SOURCE)
    assert config.limits == TableLimits(main_min=499, main_max=500)
    message = config_error(with_limits(match_min_cents=501, match_max_cents=500))
    assert message == (
        f"{SOURCE}: limits.match_max_cents: 500 cents is under match_min_cents (501 cents)"
    )


def test_match_limits_at_a_table_without_the_wager_are_refused_in_one_line() -> None:
    data = with_limits(main_min_cents=1000, match_max_cents=5000)
    data["options"]["match_the_dealer"] = False
    del data["options"]["match_pay_table"]
    assert config_error(data) == (
        f"{SOURCE}: limits.match_max_cents: set, but this table offers no Match the Dealer"
    )
