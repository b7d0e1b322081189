"""The console's pure helpers (``floor.queries``) without a server: money in integer cents
shown in dollars, the hold, the per-hour rates, the posted table limits (NY 5324.12(d)(2)),
a journal ``ts``, and the live grid's and the alerts' lines built from the rows PostgreSQL
gives (its queries run on a real database in tests/test_floor_ingest.py and
test_floor_monitor.py).

Every expected value is worked by hand.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from floor.casino import Casino
from floor.queries import (
    ALERTS_SHOWN,
    ALERTS_SQL,
    DETAIL_SQL,
    DEVICES_SQL,
    GRID_SQL,
    ROUNDS_SQL,
    SILENT_SQL,
    STARTED_SQL,
    Moment,
    _journal_time,
    _json_object,
    _mapping,
    _text,
    alert_rows,
    cash,
    grid_rows,
    grid_sql_params,
    hold_text,
    journal_moment,
    limits_text,
    per_hour,
    recent_rounds,
    snapshot,
    table_detail,
)

NEW_YORK = Casino("America/New_York", pits={"Pit 1": ("T1", "T2")})
DASH = "\u2013"


def utc(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, *, second: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


# --- money -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cents", "signed", "whole", "shown"),
    [
        (1321000, False, False, "$13,210.00"),
        (1321000, True, False, "+$13,210.00"),
        (1321000, False, True, "$13,210"),
        (1050, False, True, "$10.50"),
        (0, False, False, "$0.00"),
        (0, True, False, "$0.00"),
        (0, False, True, "$0"),
        (1, True, False, "+$0.01"),
        (-1, False, False, "-$0.01"),
        (-1, True, False, "-$0.01"),
        (-250000, True, True, "-$2,500"),
        (99, False, False, "$0.99"),
        (100, False, False, "$1.00"),
        (123456789012, False, False, "$1,234,567,890.12"),
        (None, False, False, "?"),
        (None, True, True, "?"),
    ],
)
def test_cash(cents: int | None, signed: bool, whole: bool, shown: str) -> None:
    assert cash(cents, signed=signed, whole=whole) == shown


@given(st.integers(-(10**15), 10**15), st.booleans(), st.booleans())
def test_any_cents_are_shown_as_exactly_those_cents(cents: int, signed: bool, whole: bool) -> None:
    shown = cash(cents, signed=signed, whole=whole)
    sign = shown[0] if shown[0] in "+-" else ""
    dollars, _, rest = shown.removeprefix(sign).removeprefix("$").partition(".")
    groups = dollars.split(",")
    assert 1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:])
    assert (rest == "") == (whole and cents % 100 == 0) and len(rest) in (0, 2)
    value = int("".join(groups)) * 100 + int(rest or 0)
    assert (-value if sign == "-" else value) == cents
    assert sign == ("-" if cents < 0 else "+" if signed and cents > 0 else "")


def test_the_hold_is_win_over_handle_to_a_tenth_of_a_per_cent() -> None:
    assert hold_text(1234, 10000) == "12.3%"
    assert hold_text(1, 3) == "33.3%" and hold_text(2, 3) == "66.7%"
    assert hold_text(-500, 10000) == "-5.0%"
    assert hold_text(0, 1) == "0.0%"
    assert hold_text(10000, 10000) == "100.0%"
    assert hold_text(0, 0) == DASH and hold_text(500, 0) == DASH  # zero handle: no hold
    assert hold_text(500, -1) == DASH


def test_per_hour_over_at_least_a_minute() -> None:
    assert per_hour(5, 2) == 2.5
    assert per_hour(10, 3) == 3.3
    assert per_hour(20, 3) == 6.7
    assert per_hour(0, 2) == 0.0
    assert per_hour(1, 1 / 60) == 60.0  # exactly a minute
    assert per_hour(1, 0.02) == 50.0  # a little more than a minute (72 s)
    assert per_hour(1, 0.01) == 60.0  # less than a minute counts as one
    assert per_hour(1, 0) == 60.0


# --- limits ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("limits", "shown"),
    [
        ({"main_min_cents": 1000, "main_max_cents": 500000}, f"$10{DASH}$5,000"),
        (
            {"main_min_cents": 1050, "main_max_cents": 500000, "match_min_cents": 500,
             "match_max_cents": 10000},
            f"$10.50{DASH}$5,000, match $5{DASH}$100",
        ),
        ({"match_min_cents": 500}, f"match $5{DASH}any"),
        ({"main_max_cents": 5000}, f"any{DASH}$50"),
        ({"main_min_cents": 0, "main_max_cents": 5000}, f"any{DASH}$50"),
        ({"main_min_cents": 1000, "main_max_cents": True}, f"$10{DASH}any"),
        ({"main_min_cents": "1000", "main_max_cents": 10.0}, "none posted"),
        ({}, "none posted"),
        ({"main_min_cents": None, "match_max_cents": None}, "none posted"),
        (None, ""),
        ([1000, 5000], ""),
        ("$10", ""),
    ],
)  # fmt: skip
def test_the_posted_limits(limits: Any, shown: str) -> None:
    assert limits_text(limits) == shown


# --- a journal's time ------------------------------------------------------------------------


def test_a_journal_ts_is_a_utc_moment_or_none() -> None:
    assert journal_moment("2026-11-30T09:15:12.123456Z") == datetime(
        2026, 11, 30, 9, 15, 12, 123456, tzinfo=UTC
    )
    plus_one = journal_moment("2026-11-30T10:15:12+01:00")
    assert plus_one == utc(2026, 11, 30, 9, 15, second=12)
    assert plus_one is not None and plus_one.utcoffset() == timedelta(hours=1)
    assert journal_moment("2026-11-30T09:15:12") is None  # no zone: not a journal ts
    assert journal_moment("yesterday") is None and journal_moment("") is None
    assert journal_moment("2026-13-30T09:15:12Z") is None


def test_a_journal_ts_is_shown_on_the_casinos_clock_or_as_it_came() -> None:
    assert _journal_time(NEW_YORK, "2026-11-30T14:15:12.123456Z") == "2026-11-30 09:15:12 EST"
    shown = _journal_time(NEW_YORK, "2026-11-30T14:15:12.123456Z", ms=True)
    assert shown == "2026-11-30 09:15:12.123 EST"
    assert _journal_time(NEW_YORK, "not a time") == "not a time"


@given(st.text(max_size=40))
def test_any_ts_gives_an_aware_moment_or_none(ts: str) -> None:
    moment = journal_moment(ts)
    assert moment is None or moment.tzinfo is not None
    assert isinstance(_journal_time(NEW_YORK, ts), str)


@given(st.datetimes(timezones=st.sampled_from([UTC, timezone(timedelta(hours=-5))])))
def test_a_written_ts_reads_back(moment: datetime) -> None:
    assert journal_moment(moment.isoformat()) == moment
    text = moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
    assert journal_moment(text) == moment


def test_station_values_as_plain_text() -> None:
    assert _text(None) == "" and _text("x") == "x" and _text(6) == "6" and _text(True) == "True"
    assert _json_object('{"a": 1}') == {"a": 1}
    assert _json_object("[1]") == {} and _json_object("{") == {}
    assert _mapping({"a": 1}) == {"a": 1} and _mapping([1]) == {} and _mapping(None) == {}


# --- the grid --------------------------------------------------------------------------------

NOW = utc(2026, 12, 1, 21)  # 16:00 EST: the swing shift began at 14:00 EST, 19:00 UTC
MOMENT = Moment.of(NEW_YORK, NOW)


def test_a_moment_is_its_shift_and_gaming_day() -> None:
    assert (MOMENT.shift.name, MOMENT.shift.start) == (
        "swing shift 2026-12-01",
        utc(2026, 12, 1, 19),
    )
    assert (MOMENT.day.name, MOMENT.day.start) == ("gaming day 2026-12-01", utc(2026, 12, 1, 11))
    assert grid_sql_params(MOMENT) == {
        "s0": utc(2026, 12, 1, 19),
        "s1": utc(2026, 12, 2, 3),
        "d0": utc(2026, 12, 1, 11),
        "d1": utc(2026, 12, 2, 11),
    }


def grid_row(**over: Any) -> tuple[Any, ...]:
    values: dict[str, Any] = {
        "table": "T1",
        "status": {
            "state": "dealing",
            "round": 42,
            "devices": {"shoe": "connected", "card_reader": "disconnected", "button": "lost"},
        },
        "last_seen": NOW - timedelta(seconds=10),
        "quarantined": None,
        "limits": {"main_min_cents": 1000, "main_max_cents": 500000},
        "rounds": 30,
        "hands": 75,
        "handle": 123456,
        "win": 15000,
        "faults": 1,
        "win_day": -20000,
        "alerts": 2,
    }
    values.update(over)
    return tuple(values.values())


def test_a_grid_line_worked_by_hand() -> None:
    (line,) = grid_rows([grid_row()], NEW_YORK, 30.0, MOMENT)
    assert line == {
        "table": "T1",
        "pit": "Pit 1",
        "state": "dealing",
        "round": 42,
        "fault": "",
        "quarantined": "",
        "devices": "button lost, card_reader disconnected",
        "seen": "15:59:50",
        "silent": False,
        "flag": 0,
        "limits": f"$10{DASH}$5,000",
        "rounds_h": 15.0,  # 30 rounds in the 2 hours of the shift so far
        "hands_h": 37.5,
        "handle": "$1,234.56",
        "handle_cents": 123456,
        "win": "$150.00",
        "win_cents": 15000,
        "hold": "12.2%",  # 15000 / 123456 = 12.150 %
        "faults": 1,
        "win_day": "-$200.00",
        "win_day_cents": -20000,
        "alerts": 2,
    }


def test_a_table_silent_past_the_limit_is_flagged_not_at_it() -> None:
    at = grid_rows([grid_row(last_seen=NOW - timedelta(seconds=30))], NEW_YORK, 30.0, MOMENT)
    assert (at[0]["silent"], at[0]["flag"]) == (False, 0)
    past = NOW - timedelta(seconds=30, microseconds=1000)
    (line,) = grid_rows([grid_row(last_seen=past)], NEW_YORK, 30.0, MOMENT)
    assert (line["silent"], line["flag"], line["seen"]) == (True, 1, "15:59:29")
    (never,) = grid_rows([grid_row(last_seen=None)], NEW_YORK, 30.0, MOMENT)
    assert (never["silent"], never["flag"], never["seen"]) == (True, 1, "never")


def test_a_fault_or_a_quarantine_outranks_silence() -> None:
    fault = {"state": "dealing", "fault": {"code": "E_SHOE", "state": "dealing"}}
    (line,) = grid_rows([grid_row(status=fault, last_seen=None)], NEW_YORK, 30.0, MOMENT)
    assert (line["flag"], line["fault"], line["devices"]) == (2, "E_SHOE (dealing)", "all ok")
    (held,) = grid_rows([grid_row(quarantined="bad seal")], NEW_YORK, 30.0, MOMENT)
    assert (held["flag"], held["quarantined"], held["fault"]) == (2, "bad seal", "")
    odd = {"fault": "E_SHOE", "round": "42", "devices": ["shoe"]}
    (line,) = grid_rows([grid_row(status=odd)], NEW_YORK, 30.0, MOMENT)
    assert (line["flag"], line["fault"], line["round"], line["devices"]) == (0, "", None, "all ok")


def test_a_table_without_figures_shows_zeros_and_no_hold() -> None:
    empty = grid_row(table="T9", status=None, limits=None, rounds=None, hands=None, handle=None,
                     win=None, faults=None, win_day=None, alerts=None)  # fmt: skip
    (line,) = grid_rows([empty], NEW_YORK, 30.0, MOMENT)
    assert {k: line[k] for k in ("pit", "state", "round", "limits", "rounds_h", "hands_h")} == {
        "pit": "",
        "state": "",
        "round": None,
        "limits": "",
        "rounds_h": 0.0,
        "hands_h": 0.0,
    }
    assert (line["handle"], line["win"], line["hold"], line["win_day"]) == (
        "$0.00",
        "$0.00",
        DASH,
        "$0.00",
    )
    assert (line["handle_cents"], line["faults"], line["alerts"]) == (0, 0, 0)


def test_a_busy_tables_rates_to_a_tenth() -> None:
    # 400 hands in the first 2 hours of the shift: 200.0 an hour, not 200.1 (an hour of 3601 s).
    (line,) = grid_rows([grid_row(rounds=401, hands=400)], NEW_YORK, 30.0, MOMENT)
    assert (line["rounds_h"], line["hands_h"]) == (200.5, 200.0)


def test_the_rates_are_over_the_shift_so_far_and_at_least_a_minute() -> None:
    start = Moment(MOMENT.shift.start, MOMENT.shift, MOMENT.day)  # the shift's first instant
    (line,) = grid_rows([grid_row(rounds=1, hands=2)], NEW_YORK, 30.0, start)
    assert (line["rounds_h"], line["hands_h"]) == (60.0, 120.0)
    minute = Moment(MOMENT.shift.start + timedelta(minutes=2), MOMENT.shift, MOMENT.day)
    (line,) = grid_rows([grid_row(rounds=1, hands=2)], NEW_YORK, 1e9, minute)
    assert (line["rounds_h"], line["hands_h"]) == (30.0, 60.0)
    after = Moment(MOMENT.shift.end + timedelta(hours=5), MOMENT.shift, MOMENT.day)
    (line,) = grid_rows([grid_row(rounds=80, hands=100)], NEW_YORK, 1e9, after)
    assert (line["rounds_h"], line["hands_h"]) == (10.0, 12.5)  # over the whole 8 hours


def at(hour: int, minute: int = 0, second: int = 0) -> datetime:
    return utc(2026, 12, 1, hour, minute, second=second)


# --- alerts ----------------------------------------------------------------------------------


def test_open_alerts_and_silent_tables() -> None:
    found = [
        (7, "T1", "clock", "ahead by 200 s", at(20, 30), "pat", at(20, 45, 5)),
        (6, "T2", "seal", "bad seal", at(20), None, None),
    ]
    tables = [
        ("T1", NOW - timedelta(seconds=30)),
        ("T2", NOW - timedelta(seconds=31)),
        ("T3", None),
    ]
    assert alert_rows(found, tables, NEW_YORK, 30.0, NOW) == [
        {
            "id": 7,
            "table": "T1",
            "kind": "clock",
            "message": "ahead by 200 s",
            "raised": "15:30:00",
            "ack": "acknowledged by pat at 15:45:05",
        },
        {
            "id": 6,
            "table": "T2",
            "kind": "seal",
            "message": "bad seal",
            "raised": "15:00:00",
            "ack": "",
        },
        {
            "id": None,
            "table": "T2",
            "kind": "silent",
            "message": "station silent since 15:59:29",
            "raised": "15:59:29",
            "ack": "",
        },
        {
            "id": None,
            "table": "T3",
            "kind": "silent",
            "message": "station silent since never",
            "raised": "never",
            "ack": "",
        },
    ]


# --- the reads, from rows written by hand ----------------------------------------------------


class Scripted:
    """A connection answering each query with the rows given for it, in order; it keeps what
    it was asked (the queries themselves run on PostgreSQL in test_floor_monitor.py)."""

    def __init__(self, *answers: list[tuple[Any, ...]]) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, Any]] = []
        self.rows: list[tuple[Any, ...]] = []

    async def execute(self, query: str, params: Any = None) -> Scripted:
        self.asked.append((query, params))
        self.rows = self.answers.pop(0)
        return self

    async def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows

    async def fetchone(self) -> tuple[Any, ...] | None:
        return self.rows[0] if self.rows else None


def run(coroutine: Any) -> Any:
    import asyncio

    return asyncio.run(coroutine)


def test_a_snapshot_is_the_grid_and_the_alerts_of_now() -> None:
    conn = Scripted(
        [grid_row()],
        [(6, "T2", "seal", "bad seal", at(20), None, None)],
        [("T1", NOW), ("T2", None)],
    )
    found = run(snapshot(conn, NEW_YORK, 30.0, NOW))  # type: ignore[arg-type]
    assert (found["shift"], found["day"]) == ("swing shift 2026-12-01", "gaming day 2026-12-01")
    assert [line["table"] for line in found["tables"]] == ["T1"]
    assert found["tables"][0]["rounds_h"] == 15.0
    assert [(a["table"], a["kind"]) for a in found["alerts"]] == [("T2", "seal"), ("T2", "silent")]
    (grid, grid_params), (alerts, shown), (silent, _none) = conn.asked
    assert grid == GRID_SQL and grid_params == grid_sql_params(MOMENT)
    assert (alerts, shown) == (ALERTS_SQL, (ALERTS_SHOWN,)) and ALERTS_SHOWN == 200
    assert silent == SILENT_SQL


STARTED = json.dumps(
    {"table_id": "T1", "version": "1.4.0", "profile": "pa", "decks": 6, "sealed": True}
)


def test_a_tables_page_worked_by_hand() -> None:
    status = {"state": "dealing", "round": 42, "devices": {"shoe": "connected", "reader": 1},
              "fault": {"code": "E_SHOE", "state": "dealing"}}  # fmt: skip
    limits = {"main_min_cents": 1000, "main_max_cents": 500000}
    conn = Scripted(
        [(status, NOW, "bad seal", limits, 10, 12)],
        [("2026-12-01T14:00:00.250Z", STARTED)],
        [
            ("2026-12-01T20:00:00Z", json.dumps({"device": "shoe", "status": "connected",
                                                  "serial": "S2", "firmware": 3,
                                                  "reason": "replugged"})),
            ("2026-12-01T19:00:00Z", json.dumps({"device": "shoe", "status": "lost",
                                                  "serial": "S1", "reason": "unplugged"})),
            ("2026-12-01T18:00:00Z", json.dumps({"device": "card_reader", "status": "connected"})),
            ("2026-12-01T17:00:00Z", "[1]"),
            ("2026-12-01T16:00:00Z", json.dumps({"device": "", "status": "x"})),
        ],
    )  # fmt: skip
    found = run(table_detail(conn, NEW_YORK, "T1"))  # type: ignore[arg-type]
    assert found == {
        "table": "T1",
        "pit": "Pit 1",
        "state": "dealing",
        "round": "42",
        "fault": "E_SHOE (dealing)",
        "live_devices": {"shoe": "connected", "reader": "1"},
        "seen": "2026-12-01 16:00:00 EST",
        "quarantined": "bad seal",
        "limits": f"$10{DASH}$5,000",
        "anchor": 10,
        "sealed": 12,
        "start": {
            "at": "2026-12-01 09:00:00 EST",
            "table_id": "T1",
            "version": "1.4.0",
            "profile": "pa",
            "decks": "6",
            "sealed": "yes",
        },
        "devices": [  # the latest row of each device, by name
            {"device": "card_reader", "status": "connected", "serial": "", "firmware": "",
             "reason": "", "at": "2026-12-01 13:00:00 EST"},
            {"device": "shoe", "status": "connected", "serial": "S2", "firmware": "3",
             "reason": "replugged", "at": "2026-12-01 15:00:00 EST"},
        ],
    }  # fmt: skip
    table, started, devices = (params for _query, params in conn.asked)
    assert table == started == devices == ("T1",)
    assert [query for query, _params in conn.asked] == [DETAIL_SQL, STARTED_SQL, DEVICES_SQL]
    assert "kind = 'station_started'" in STARTED_SQL and STARTED_SQL.endswith("DESC LIMIT 1")
    assert "kind = 'device'" in DEVICES_SQL and DEVICES_SQL.endswith("DESC LIMIT 64")


def test_a_table_never_started_nor_seen() -> None:
    conn = Scripted([({"fault": "E_SHOE"}, None, None, None, None, None)], [], [])
    found = run(table_detail(conn, NEW_YORK, "T9"))  # type: ignore[arg-type]
    assert {k: found[k] for k in ("pit", "state", "round", "fault", "seen", "quarantined")} == {
        "pit": "",
        "state": "",
        "round": "",
        "fault": "",
        "seen": "never",
        "quarantined": "",
    }
    assert (found["live_devices"], found["limits"], found["start"], found["devices"]) == (
        {},
        "",
        {},
        [],
    )
    unsealed = Scripted([({}, NOW, None, {}, None, None)], [("bad ts", '{"sealed": "true"}')], [])
    start = run(table_detail(unsealed, NEW_YORK, "T9"))["start"]  # type: ignore[arg-type]
    assert start == {"at": "bad ts", "table_id": "", "version": "", "profile": "",
                     "decks": "", "sealed": "no"}  # fmt: skip
    assert run(table_detail(Scripted([]), NEW_YORK, "T0")) is None  # type: ignore[arg-type]


def test_the_recent_rounds_newest_first() -> None:
    conn = Scripted(
        [
            (43, NOW, "completed", -1500, 2500, ["player_win", "push"]),
            (42, NOW - timedelta(minutes=1), "voided", 0, 0, []),
        ]
    )
    found = run(recent_rounds(conn, NEW_YORK, "T1", limit=2))  # type: ignore[arg-type]
    assert found == [
        {"round": 43, "ended": "2026-12-01 16:00:00 EST", "status": "completed",
         "win": "-$15.00", "handle": "$25.00", "outcomes": "player win, push"},
        {"round": 42, "ended": "2026-12-01 15:59:00 EST", "status": "voided",
         "win": "$0.00", "handle": "$0.00", "outcomes": ""},
    ]  # fmt: skip
    assert conn.asked[0] == (ROUNDS_SQL, ("T1", 2))
    assert ROUNDS_SQL.endswith("ORDER BY round DESC LIMIT %s")
    default = Scripted([])
    run(recent_rounds(default, NEW_YORK, "T1"))  # type: ignore[arg-type]
    assert default.asked[0][1] == ("T1", 50)
    win = Scripted([(1, NOW, "completed", 700, 700, [])])
    assert run(recent_rounds(win, NEW_YORK, "T1"))[0]["win"] == "+$7.00"  # type: ignore[arg-type]
