"""The casino's clock and floor plan (``floor.casino``) without a server: the gaming day,
the shifts and a chosen period on both sides of each boundary (the start instant, a shift
change, a change of daylight saving time in the casino's zone), the clock's text, and every
refusal of ``[casino]`` as one line naming the key.

Every expected instant is worked by hand from the zone's rules: New York is UTC-5 (EST) and,
from the second Sunday of March 02:00 to the first Sunday of November 02:00, UTC-4 (EDT);
in 2026 those Sundays are March 8 and November 1. Tokyo is UTC+9, Kolkata UTC+5:30, without
daylight saving time.
"""

from __future__ import annotations

import time as clock
from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.service.config_schema import ConfigError, Section
from floor.casino import DEFAULT_SHIFTS, Casino, Period, parse_casino, quarter_floor

NEW_YORK = Casino("America/New_York")
TOKYO = Casino("Asia/Tokyo")
SOURCE = Path("/etc/dealer-station/floor.toml")
TICK = timedelta(microseconds=1)


def utc(  # noqa: PLR0917 - a datetime's own positional fields
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, us: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, us, tzinfo=UTC)


# --- periods ---------------------------------------------------------------------------------


def test_a_period_is_its_length_in_hours() -> None:
    assert Period("p", utc(2026, 12, 1, 10), utc(2026, 12, 1, 12, 30)).hours == 2.5
    assert Period("p", utc(2026, 12, 1, 10), utc(2026, 12, 1, 10, 0, 36)).hours == 0.01


# --- the gaming day --------------------------------------------------------------------------


def test_the_gaming_day_starts_at_its_instant_not_a_microsecond_before() -> None:
    # 06:00 EST on December 1 is 11:00 UTC.
    day = NEW_YORK.gaming_day(utc(2026, 12, 1, 11))
    assert (day.name, day.start, day.end) == (
        "gaming day 2026-12-01",
        utc(2026, 12, 1, 11),
        utc(2026, 12, 2, 11),
    )
    before = NEW_YORK.gaming_day(utc(2026, 12, 1, 11) - TICK)
    assert (before.name, before.start, before.end) == (
        "gaming day 2026-11-30",
        utc(2026, 11, 30, 11),
        utc(2026, 12, 1, 11),
    )
    last = NEW_YORK.gaming_day(utc(2026, 12, 2, 11) - TICK)  # 05:59:59.999999 on the 2nd
    assert last.name == "gaming day 2026-12-01"


def test_the_gaming_day_follows_the_local_date_not_the_utc_one() -> None:
    # 22:00 UTC on December 1 is 07:00 on December 2 in Tokyo: that day's gaming day,
    # which began at 06:00 JST, 21:00 UTC on the 1st.
    day = TOKYO.gaming_day(utc(2026, 12, 1, 22))
    assert (day.name, day.start, day.end) == (
        "gaming day 2026-12-02",
        utc(2026, 12, 1, 21),
        utc(2026, 12, 2, 21),
    )
    # 20:59 UTC on the 1st is 05:59 JST on the 2nd: still the 1st's gaming day.
    assert TOKYO.gaming_day(utc(2026, 12, 1, 20, 59)).name == "gaming day 2026-12-01"
    # 23:00 EST on December 1 is 04:00 UTC on the 2nd: the 1st's gaming day.
    assert NEW_YORK.gaming_day(utc(2026, 12, 2, 4)).name == "gaming day 2026-12-01"


def test_the_gaming_day_is_23_hours_at_the_spring_change() -> None:
    # 2026-03-07 06:00 EST = 11:00 UTC; 2026-03-08 06:00 EDT = 10:00 UTC.
    short = NEW_YORK.gaming_day(utc(2026, 3, 8, 7))  # 03:00 EDT, an hour after the change
    assert (short.name, short.start, short.end, short.hours) == (
        "gaming day 2026-03-07",
        utc(2026, 3, 7, 11),
        utc(2026, 3, 8, 10),
        23,
    )
    assert NEW_YORK.gaming_day(utc(2026, 3, 8, 10) - TICK).name == "gaming day 2026-03-07"
    after = NEW_YORK.gaming_day(utc(2026, 3, 8, 10))
    assert (after.name, after.start, after.hours) == (
        "gaming day 2026-03-08",
        utc(2026, 3, 8, 10),
        24,
    )


def test_the_gaming_day_is_25_hours_at_the_autumn_change() -> None:
    # 2026-10-31 06:00 EDT = 10:00 UTC; 2026-11-01 06:00 EST = 11:00 UTC.
    long = NEW_YORK.gaming_day(utc(2026, 11, 1, 6, 30))  # 01:30 EST, the second 01:30
    assert (long.name, long.start, long.end, long.hours) == (
        "gaming day 2026-10-31",
        utc(2026, 10, 31, 10),
        utc(2026, 11, 1, 11),
        25,
    )
    assert NEW_YORK.gaming_day(utc(2026, 11, 1, 11) - TICK).name == "gaming day 2026-10-31"
    assert NEW_YORK.gaming_day(utc(2026, 11, 1, 11)).name == "gaming day 2026-11-01"


def test_a_gaming_day_starting_at_another_time() -> None:
    late = Casino("America/New_York", gaming_day_starts=time(9, 45))  # 14:45 UTC in December
    day = late.gaming_day(utc(2026, 12, 1, 14, 45))
    assert (day.name, day.start, day.end) == (
        "gaming day 2026-12-01",
        utc(2026, 12, 1, 14, 45),
        utc(2026, 12, 2, 14, 45),
    )
    assert late.gaming_day(utc(2026, 12, 1, 14, 45) - TICK).name == "gaming day 2026-11-30"


# --- shifts ----------------------------------------------------------------------------------


def test_a_shift_change_on_both_sides() -> None:
    # New York in December: day 06:00 EST = 11:00 UTC, swing 14:00 = 19:00, grave 22:00 = 03:00.
    swing = NEW_YORK.shift(utc(2026, 12, 1, 19))
    assert (swing.name, swing.start, swing.end) == (
        "swing shift 2026-12-01",
        utc(2026, 12, 1, 19),
        utc(2026, 12, 2, 3),
    )
    day = NEW_YORK.shift(utc(2026, 12, 1, 19) - TICK)
    assert (day.name, day.start, day.end) == (
        "day shift 2026-12-01",
        utc(2026, 12, 1, 11),
        utc(2026, 12, 1, 19),
    )
    grave = NEW_YORK.shift(utc(2026, 12, 2, 3))
    assert (grave.name, grave.start, grave.end) == (
        "grave shift 2026-12-01",
        utc(2026, 12, 2, 3),
        utc(2026, 12, 2, 11),
    )
    assert NEW_YORK.shift(utc(2026, 12, 2, 3) - TICK).name == "swing shift 2026-12-01"


def test_the_grave_shift_is_named_by_its_local_start_date() -> None:
    # 01:00 EST on December 2 (06:00 UTC): the grave shift that began at 22:00 on the 1st.
    assert NEW_YORK.shift(utc(2026, 12, 2, 6)).name == "grave shift 2026-12-01"
    # In Tokyo 22:00 JST on December 1 is 13:00 UTC the same day.
    assert TOKYO.shift(utc(2026, 12, 1, 13)).name == "grave shift 2026-12-01"
    assert TOKYO.shift(utc(2026, 12, 1, 13)).start == utc(2026, 12, 1, 13)


def test_the_grave_shift_across_a_change_of_daylight_saving_time() -> None:
    # Spring: 22:00 EST on March 7 (03:00 UTC on the 8th) to 06:00 EDT (10:00 UTC): 7 hours.
    spring = NEW_YORK.shift(utc(2026, 3, 8, 8))
    assert (spring.name, spring.start, spring.end, spring.hours) == (
        "grave shift 2026-03-07",
        utc(2026, 3, 8, 3),
        utc(2026, 3, 8, 10),
        7,
    )
    # Autumn: 22:00 EDT on October 31 (02:00 UTC) to 06:00 EST (11:00 UTC): 9 hours.
    autumn = NEW_YORK.shift(utc(2026, 11, 1, 6))
    assert (autumn.name, autumn.start, autumn.end, autumn.hours) == (
        "grave shift 2026-10-31",
        utc(2026, 11, 1, 2),
        utc(2026, 11, 1, 11),
        9,
    )
    assert NEW_YORK.shift(utc(2026, 11, 1, 11)).name == "day shift 2026-11-01"


def test_one_shift_a_day_reaches_back_and_forward_a_day() -> None:
    single = Casino("UTC", shifts=(("all", time(6)),))
    early = single.shift(utc(2026, 12, 1, 5))
    assert (early.name, early.start, early.end) == (
        "all shift 2026-11-30",
        utc(2026, 11, 30, 6),
        utc(2026, 12, 1, 6),
    )
    late = single.shift(utc(2026, 12, 1, 7))
    assert (late.name, late.start, late.end) == (
        "all shift 2026-12-01",
        utc(2026, 12, 1, 6),
        utc(2026, 12, 2, 6),
    )


def test_shifts_given_out_of_order_are_taken_by_time() -> None:
    casino = Casino("UTC", shifts=(("late", time(18)), ("early", time(6))))
    assert casino.shift(utc(2026, 12, 1, 12)).name == "early shift 2026-12-01"
    assert casino.shift(utc(2026, 12, 1, 12)).end == utc(2026, 12, 1, 18)
    assert casino.shift(utc(2026, 12, 1, 3)).name == "late shift 2026-11-30"


# --- a chosen period -------------------------------------------------------------------------


def test_a_chosen_period_is_widened_to_whole_quarter_hours() -> None:
    widened = NEW_YORK.period(utc(2026, 12, 1, 14, 7), utc(2026, 12, 1, 15, 44))
    assert (widened.start, widened.end) == (utc(2026, 12, 1, 14), utc(2026, 12, 1, 15, 45))
    assert widened.name == "2026-12-01 09:00 EST to 2026-12-01 10:45 EST"
    exact = NEW_YORK.period(utc(2026, 12, 1, 14), utc(2026, 12, 1, 15, 45))
    assert (exact.start, exact.end) == (utc(2026, 12, 1, 14), utc(2026, 12, 1, 15, 45))
    a_tick_past = NEW_YORK.period(utc(2026, 12, 1, 14), utc(2026, 12, 1, 15, 45) + TICK)
    assert a_tick_past.end == utc(2026, 12, 1, 16)


def test_an_empty_or_reversed_period_is_one_quarter_hour() -> None:
    empty = NEW_YORK.period(utc(2026, 12, 1, 14, 15), utc(2026, 12, 1, 14, 15))
    assert (empty.start, empty.end) == (utc(2026, 12, 1, 14, 15), utc(2026, 12, 1, 14, 30))
    reversed_ = NEW_YORK.period(utc(2026, 12, 1, 14, 15), utc(2026, 12, 1, 13))
    assert (reversed_.start, reversed_.end) == (utc(2026, 12, 1, 14, 15), utc(2026, 12, 1, 14, 30))
    within = NEW_YORK.period(utc(2026, 12, 1, 14, 16), utc(2026, 12, 1, 14, 17))
    assert (within.start, within.end) == (utc(2026, 12, 1, 14, 15), utc(2026, 12, 1, 14, 30))


def test_quarter_floor_on_both_sides_of_a_quarter_hour() -> None:
    assert quarter_floor(utc(2026, 12, 1, 14, 14, 59, 999_999)) == utc(2026, 12, 1, 14)
    assert quarter_floor(utc(2026, 12, 1, 14, 15)) == utc(2026, 12, 1, 14, 15)
    assert quarter_floor(utc(2026, 12, 1, 14, 59, 59)) == utc(2026, 12, 1, 14, 45)
    # An aware time elsewhere is taken to UTC first: 10:05 IST is 04:35 UTC.
    kolkata = datetime(2026, 12, 1, 10, 5, tzinfo=ZoneInfo("Asia/Kolkata"))
    floored = quarter_floor(kolkata)
    assert floored == utc(2026, 12, 1, 4, 30) and floored.utcoffset() == timedelta(0)


# --- the clock's text ------------------------------------------------------------------------


def test_times_are_shown_on_the_casinos_clock_with_its_zone() -> None:
    moment = utc(2026, 12, 1, 21, 27, 10, 852_999)  # 16:27:10.852999 EST
    assert NEW_YORK.format(moment) == "2026-12-01 16:27:10 EST"
    assert NEW_YORK.format(moment, seconds=False) == "2026-12-01 16:27 EST"
    assert NEW_YORK.format(moment, ms=True) == "2026-12-01 16:27:10.852 EST"
    assert NEW_YORK.format(moment, seconds=False, ms=True) == "2026-12-01 16:27:10.852 EST"
    assert NEW_YORK.format(utc(2026, 7, 1, 4, 5, 6)) == "2026-07-01 00:05:06 EDT"
    assert NEW_YORK.time_ms(moment) == "16:27:10.852"
    assert NEW_YORK.time_ms(utc(2026, 12, 1, 21, 27, 10, 5_000)) == "16:27:10.005"
    assert NEW_YORK.format(utc(2026, 12, 1, 21, 27, 10, 5_000), ms=True).endswith(":10.005 EST")
    assert NEW_YORK.clock(moment) == "16:27:10"
    assert NEW_YORK.local(moment).utcoffset() == timedelta(hours=-5)


def test_a_table_stands_in_its_pit_or_none() -> None:
    casino = Casino(pits={"Pit 1": ("T1", "T2"), "Pit 2": ("T3",)})
    assert [casino.pit_of(t) for t in ("T1", "T2", "T3", "T4")] == ["Pit 1", "Pit 1", "Pit 2", None]


# --- [casino] --------------------------------------------------------------------------------


def parse(data: dict[str, Any] | None) -> Casino:
    return parse_casino(None if data is None else Section(SOURCE, data, "casino"))


def test_no_section_is_utc_with_the_default_day_and_shifts() -> None:
    for casino in (parse(None), parse({})):
        assert casino.time_zone == "UTC" and casino.gaming_day_starts == time(6)
        assert (
            casino.shifts
            == DEFAULT_SHIFTS
            == (
                ("day", time(6)),
                ("swing", time(14)),
                ("grave", time(22)),
            )
        )
        assert dict(casino.pits) == {}


def test_a_full_section_is_read() -> None:
    casino = parse(
        {
            "time_zone": "Asia/Kolkata",
            "gaming_day_starts": "23:45",
            "shifts": {"late": "18:30", "early": "00:00"},
            "pits": {"Pit 1": ["T1", "T2"], "High limit": []},
        }
    )
    assert casino.time_zone == "Asia/Kolkata" and casino.gaming_day_starts == time(23, 45)
    assert casino.shifts == (("early", time(0)), ("late", time(18, 30)))
    assert dict(casino.pits) == {"Pit 1": ("T1", "T2"), "High limit": ()}
    assert casino.pit_of("T2") == "Pit 1"


@pytest.mark.parametrize("clock", ["00:00", "00:15", "09:30", "19:45", "23:45"])
def test_every_quarter_hour_is_a_clock(clock: str) -> None:
    hours, minutes = clock.split(":")
    assert parse({"gaming_day_starts": clock}).gaming_day_starts == time(int(hours), int(minutes))


NAME_32 = "P" * 32
NAME_33 = "P" * 33


def test_names_of_32_characters_are_taken() -> None:
    casino = parse({"shifts": {NAME_32: "06:00"}, "pits": {NAME_32: ["T" * 32]}})
    assert casino.shifts == ((NAME_32, time(6)),)
    assert casino.pit_of("T" * 32) == NAME_32


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (
            {"time_zone": "Mars/Olympus"},
            "casino.time_zone: 'Mars/Olympus' is not a known time zone",
        ),
        ({"time_zone": "../etc/passwd"}, "casino.time_zone: '../etc/passwd' is not a known time"),
        ({"time_zone": ""}, "casino.time_zone: '' is not a known time zone"),
        ({"time_zone": 5}, "casino.time_zone: expected a string, got an integer (5)"),
        (
            {"gaming_day_starts": "06:10"},
            "casino.gaming_day_starts: '06:10' is not a quarter hour HH:MM (00, 15, 30 or 45)",
        ),
        ({"gaming_day_starts": "24:00"}, "casino.gaming_day_starts: '24:00' is not a quarter"),
        ({"gaming_day_starts": "6:00"}, "casino.gaming_day_starts: '6:00' is not a quarter"),
        ({"gaming_day_starts": "06:00 "}, "casino.gaming_day_starts: '06:00 ' is not a quarter"),
        ({"gaming_day_starts": "06:60"}, "casino.gaming_day_starts: '06:60' is not a quarter"),
        ({"shifts": {}}, "casino.shifts: name at least one shift"),
        (
            {"shifts": {"a": "06:00", "b": "06:00"}},
            "casino.shifts: two shifts start at the same time",
        ),
        ({"shifts": {"a": "06:05"}}, "casino.shifts.a: '06:05' is not a quarter hour"),
        ({"shifts": {"a": 6}}, "casino.shifts.a: expected a string, got an integer (6)"),
        ({"shifts": {NAME_33: "06:00"}}, f"casino.shifts.{NAME_33}: a shift name is 1-32 letters"),
        ({"shifts": {"a/b": "06:00"}}, "casino.shifts.a/b: a shift name is 1-32 letters, digits"),
        ({"shifts": {"": "06:00"}}, "casino.shifts.: a shift name is 1-32"),
        ({"shifts": "day"}, "casino.shifts: expected a table, got a string ('day')"),
        ({"pits": {"P1": ["T1"], "P2": ["T1"]}}, "casino.pits.P2: table T1 is already in 'P1'"),
        ({"pits": {"P1": ["T1", "T1"]}}, "casino.pits.P1: table T1 is already in 'P1'"),
        ({"pits": {"P1": ["<script>"]}}, "casino.pits.P1: '<script>' is not a table name"),
        ({"pits": {"P1": ["T 1"]}}, "casino.pits.P1: 'T 1' is not a table name"),
        ({"pits": {"P1": ["T" * 33]}}, f"casino.pits.P1: '{'T' * 33}' is not a table name"),
        ({"pits": {"P1": [7]}}, "casino.pits.P1: 7 is not a table name"),
        ({"pits": {"P/1": ["T1"]}}, "casino.pits.P/1: a pit name is 1-32 letters, digits, ' ._-'"),
        ({"pits": {NAME_33: ["T1"]}}, f"casino.pits.{NAME_33}: a pit name is 1-32"),
        ({"pits": {" P": ["T1"]}}, "casino.pits. P: a pit name is 1-32"),
        ({"pits": {"P1": "T1"}}, "casino.pits.P1: expected an array, got a string ('T1')"),
        ({"colour": "red"}, "casino.colour: unknown key"),
    ],
)
def test_each_refusal_is_one_line_naming_the_key(data: dict[str, Any], line: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse(data)
    assert str(raised.value).startswith(f"{SOURCE}: {line}")
    assert "\n" not in str(raised.value)


def test_an_unknown_key_after_good_pits_and_shifts_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"casino\.colour: unknown key"):
        parse({"shifts": {"a": "06:00"}, "pits": {"P": ["T"]}, "colour": "red"})


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 30) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)
CLOCKISH = st.sampled_from(["06:00", "23:45", "24:00", "6:00", "06:10", "00:00"]) | st.text(
    max_size=6
)


@given(
    st.dictionaries(
        st.sampled_from(["time_zone", "gaming_day_starts", "shifts", "pits", "x"]),
        JSON | CLOCKISH | st.dictionaries(st.text(max_size=4), CLOCKISH | JSON, max_size=3),
        max_size=5,
    )
)
def test_any_section_gives_a_casino_or_one_line(data: dict[str, Any]) -> None:
    try:
        casino = parse(data)
    except ConfigError as err:
        assert "\n" not in str(err) and str(err).startswith(f"{SOURCE}: casino")
    else:
        now = utc(2026, 12, 1, 12)
        assert casino.gaming_day(now).start <= now < casino.gaming_day(now).end
        assert casino.shift(now).start <= now < casino.shift(now).end


def test_shifts_are_kept_in_the_order_of_their_starts_not_their_names() -> None:
    # By name: day, grave, swing; by start: day, swing, grave.
    casino = parse({"shifts": {"swing": "14:00", "grave": "22:00", "day": "06:00"}})
    assert casino.shifts == (("day", time(6)), ("swing", time(14)), ("grave", time(22)))


@pytest.fixture
def server_in_new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The machine's own zone is not UTC (a floor server kept on the casino's wall clock)."""
    monkeypatch.setenv("TZ", "America/New_York")
    clock.tzset()
    yield
    monkeypatch.undo()
    clock.tzset()


@pytest.mark.usefixtures("server_in_new_york")
def test_periods_are_utc_whatever_the_machines_zone() -> None:
    day, shift = NEW_YORK.gaming_day(utc(2026, 12, 1, 12)), NEW_YORK.shift(utc(2026, 12, 1, 12))
    period = NEW_YORK.period(utc(2026, 12, 1, 14, 7), utc(2026, 12, 1, 15, 44))
    for moment in (day.start, day.end, shift.start, shift.end, period.start, period.end):
        assert moment.utcoffset() == timedelta(0)
    assert (day.start, shift.end) == (utc(2026, 12, 1, 11), utc(2026, 12, 1, 19))
    floored = quarter_floor(datetime(2026, 12, 1, 9, 44, tzinfo=ZoneInfo("America/New_York")))
    assert floored == utc(2026, 12, 1, 14, 30) and floored.utcoffset() == timedelta(0)
