"""The console's figures and clock without a browser: the database's per-round lines (the
trigger of migration 0010) never fail the transaction that stores a station's rows,
whatever they hold (a real PostgreSQL); the casino's gaming day and shifts on its own
clock, across the changes of daylight saving time; ``[casino]`` in ``floor.toml`` checked
key by key."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.journal.format import GENESIS_HASH, Row, row_hash
from controller.service.config_schema import ConfigError
from floor.casino import Casino, quarter_floor
from floor.config import parse_floor_config
from floor.ingest import Ingest, Rows
from floor.servers import Database

_tables = itertools.count(1)
KINDS = ("round_started", "card", "decision", "settlement", "match_settled", "insurance",
         "insurance_taken", "seat_result", "hole_card_dealt", "hole_card_revealed",
         "fault")  # fmt: skip


def _chain(rows: list[tuple[str, str, int | None, str]]) -> list[Row]:
    out: list[Row] = []
    prev = GENESIS_HASH
    for number, (ts, kind, round_no, data) in enumerate(rows, start=1):
        digest = row_hash(prev, row_id=number, ts=ts, kind=kind, round_no=round_no, data_text=data)
        out.append(Row(number, ts, kind, round_no, data, prev, digest))
        prev = digest
    return out


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
fields = st.fixed_dictionaries(
    {},
    optional={
        name: json_values
        for name in ("seat", "hand", "wager_cents", "net_cents", "cents", "decision", "outcome",
                     "wager", "bonus", "super_bonus", "super_bonus_cents", "seats", "card", "role",
                     "returned", "match_cents")
    },
)  # fmt: skip
data_texts = st.one_of(
    fields.map(lambda d: json.dumps(d, sort_keys=True)),
    st.text(max_size=40).filter(lambda t: "\x00" not in t),  # not JSON at all
    st.just('{"net_cents": 1e400}'),
    st.just('{"net_cents": "\\ud800"}'),  # a lone surrogate: jsonb refuses it
)
times = st.one_of(
    st.just("2026-11-30T09:15:12.123456Z"), st.text(max_size=12).filter(lambda t: "\x00" not in t)
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.lists(st.tuples(times, st.sampled_from(KINDS), data_texts), max_size=8),
    end=st.tuples(times, st.sampled_from(["round_completed", "round_voided"]), data_texts),
)
def test_no_row_a_station_sends_fails_the_transaction(
    floor_database: Database, body: list[tuple[str, str, str]], end: tuple[str, str, str]
) -> None:
    table = f"H{next(_tables)}"
    rows = _chain([(ts, kind, 7, data) for ts, kind, data in [*body, end]])
    with psycopg.connect(floor_database.conninfo) as conn:
        # Stored as the collector stores rows (one statement for the batch), without the
        # collector's own bookkeeping: what is tested here is the trigger alone.
        with conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO journal_row (table_id, row_id, ts, kind, round, data, prev_hash,"
                " hash) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                [(table, r.id, r.ts, r.kind, r.round_no, r.data_text, r.prev_hash, r.hash)
                 for r in rows],
            )  # fmt: skip
        found = conn.execute(
            "SELECT status, handle_main, problem FROM round_stat WHERE table_id = %s", (table,)
        ).fetchall()
        assert len(found) == 1
        status, handle, problem = found[0]
        assert status == ("completed" if end[1] == "round_completed" else "voided")
        assert handle >= 0
        quarters = conn.execute(
            "SELECT sum(rounds) FROM table_quarter WHERE table_id = %s", (table,)
        ).fetchone()
        assert quarters == (1,)
        if problem is not None:
            assert handle == 0


def test_a_round_sent_twice_counts_once(floor_database: Database) -> None:
    table = f"H{next(_tables)}"
    rows = _chain(
        [
            ("2026-11-30T09:15:12.000000Z", "round_started", 1,
             '{"round":1,"seats":[{"match_cents":0,"seat":1,"wager_cents":1000}]}'),
            ("2026-11-30T09:15:13.000000Z", "settlement", 1,
             '{"hand":1,"net_cents":-1000,"outcome":"lose","seat":1,"wager":"main"}'),
            ("2026-11-30T09:15:14.000000Z", "round_completed", 1, '{"reshuffle":false}'),
        ]
    )  # fmt: skip
    with psycopg.connect(floor_database.conninfo) as conn:
        Ingest(conn).apply([Rows(table, rows)])
        Ingest(conn).apply([Rows(table, rows)])  # a copy sent again after a lost ack
        found = conn.execute(
            "SELECT rounds, handle_main, win_main, quarter FROM table_quarter WHERE table_id = %s",
            (table,),
        ).fetchall()
    assert found == [(1, 1000, 1000, datetime(2026, 11, 30, 9, 15, tzinfo=UTC))]


# --- the casino's clock ----------------------------------------------------------------------

NEW_YORK = Casino("America/New_York")


def test_a_gaming_day_is_23_or_25_hours_across_daylight_saving_time() -> None:
    spring = NEW_YORK.gaming_day(datetime(2026, 3, 8, 12, tzinfo=UTC))  # 08:00 EDT
    assert spring.start == datetime(2026, 3, 8, 10, tzinfo=UTC)  # 06:00 EDT
    before = NEW_YORK.gaming_day(datetime(2026, 3, 8, 9, tzinfo=UTC))  # 05:00 EDT: the 7th's
    assert before.start == datetime(2026, 3, 7, 11, tzinfo=UTC)  # 06:00 EST
    assert before.hours == 23 and before.end == spring.start
    autumn = NEW_YORK.gaming_day(datetime(2026, 11, 1, 12, tzinfo=UTC))
    assert NEW_YORK.gaming_day(autumn.start - timedelta(seconds=1)).hours == 25
    assert autumn.name == "gaming day 2026-11-01"


def test_the_grave_shift_runs_over_midnight() -> None:
    late = NEW_YORK.shift(datetime(2026, 12, 2, 4, 30, tzinfo=UTC))  # 23:30 EST on the 1st
    assert late.name == "grave shift 2026-12-01"
    assert late.start == datetime(2026, 12, 2, 3, tzinfo=UTC)  # 22:00 EST
    assert late.end == datetime(2026, 12, 2, 11, tzinfo=UTC)  # 06:00 EST
    first = NEW_YORK.shift(datetime(2026, 12, 2, 11, tzinfo=UTC))  # 06:00 exactly: day shift
    assert first.name == "day shift 2026-12-02"
    last = NEW_YORK.shift(datetime(2026, 12, 2, 11, tzinfo=UTC) - timedelta(microseconds=1))
    assert last.name == "grave shift 2026-12-01"


zones = st.sampled_from(["UTC", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu",
                         "Australia/Lord_Howe", "Europe/London", "America/St_Johns"])  # fmt: skip
quarters = st.builds(time, st.integers(0, 23), st.sampled_from([0, 15, 30, 45]))
moments = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2037, 12, 31), timezones=st.just(UTC)
)


@given(zone=zones, day_starts=quarters, shift_starts=st.sets(quarters, min_size=1, max_size=4),
       now=moments)  # fmt: skip
def test_any_moment_falls_in_one_gaming_day_and_one_shift_on_quarter_hours(
    zone: str, day_starts: time, shift_starts: set[time], now: datetime
) -> None:
    shifts = tuple((f"s{i}", t) for i, t in enumerate(sorted(shift_starts)))
    casino = Casino(zone, day_starts, shifts)
    for period in (casino.gaming_day(now), casino.shift(now)):
        assert period.start <= now < period.end
        assert quarter_floor(period.start) == period.start  # a UTC quarter hour
        assert quarter_floor(period.end) == period.end
    day = casino.gaming_day(now)
    assert 22 <= day.hours <= 26
    local = day.start.astimezone(ZoneInfo(zone))
    # The day starts at its configured time, unless that time did not exist that day.
    assert (
        local.time() == day_starts or local.utcoffset() != (local - timedelta(hours=3)).utcoffset()
    )


def test_a_chosen_period_is_widened_to_quarter_hours() -> None:
    period = NEW_YORK.period(
        datetime(2026, 12, 1, 14, 7, tzinfo=UTC), datetime(2026, 12, 1, 15, 44, tzinfo=UTC)
    )
    assert period.start == datetime(2026, 12, 1, 14, 0, tzinfo=UTC)
    assert period.end == datetime(2026, 12, 1, 15, 45, tzinfo=UTC)
    assert period.name == "2026-12-01 09:00 EST to 2026-12-01 10:45 EST"


def _config(casino: Any) -> dict[str, Any]:
    return {
        "broker": {"host": "h", "username": "c", "password_file": "p", "ca_file": "c.pem",
                   "client_id": "c"},
        "database": {"conninfo": "dbname=floor"},
        "casino": casino,
    }  # fmt: skip


def test_the_example_casino_section() -> None:
    example = Path(__file__).resolve().parent.parent / "examples" / "floor.toml"
    from floor.config import load_floor_config

    casino = load_floor_config(example).casino
    assert casino.time_zone == "America/New_York"
    assert casino.gaming_day_starts == time(6)
    assert [n for n, _t in casino.shifts] == ["day", "swing", "grave"]
    assert casino.pit_of("PA-S21-07") == "Pit 1"


@pytest.mark.parametrize(
    ("casino", "problem"),
    [
        (
            {"time_zone": "Mars/Olympus"},
            "casino.time_zone: 'Mars/Olympus' is not a known time zone",
        ),
        ({"gaming_day_starts": "06:10"}, "casino.gaming_day_starts: '06:10' is not a quarter hour"),
        ({"gaming_day_starts": "24:00"}, "is not a quarter hour"),
        ({"shifts": {}}, "casino.shifts: name at least one shift"),
        ({"shifts": {"a": "06:00", "b": "06:00"}}, "casino.shifts: two shifts start at the same"),
        ({"shifts": {"a": 6}}, "casino.shifts.a: expected a string"),
        ({"pits": {"P1": ["T1"], "P2": ["T1"]}}, "casino.pits.P2: table T1 is already in 'P1'"),
        ({"pits": {"P1": ["<script>"]}}, "casino.pits.P1: '<script>' is not a table name"),
        ({"pits": {"P/1": ["T1"]}}, "casino.pits.P/1: a pit name is"),
        ({"pits": {"Pit 1": 0}}, "casino.pits.Pit 1: expected an array, got an integer (0)"),
        ({"pits": {"Pit 1": "T1"}}, "casino.pits.Pit 1: expected an array, got a string ('T1')"),
        ({"colour": "red"}, "casino.colour: unknown key"),
    ],
)
def test_a_bad_casino_section_is_one_line(casino: dict[str, Any], problem: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_floor_config(_config(casino), Path("/etc/floor.toml"))
    assert problem in str(raised.value)
    assert "\n" not in str(raised.value)


@given(st.dictionaries(st.sampled_from(["time_zone", "gaming_day_starts", "shifts", "pits", "x"]),
                       json_values, max_size=4))  # fmt: skip
def test_any_casino_section_gives_a_casino_or_one_line(casino: dict[str, Any]) -> None:
    try:
        parse_floor_config(_config(casino), Path("/etc/floor.toml"))
    except ConfigError as err:
        assert "\n" not in str(err)


def test_the_vendored_chart_library_matches_its_sums(tmp_path: Path) -> None:
    """uPlot is served from the package as fetched (floor/vendor.py); an edited file fails."""
    import shutil

    from floor import vendor

    vendor.check()
    copy = tmp_path / "uplot"
    shutil.copytree(vendor.DIRECTORY, copy)
    script = copy / "uPlot.iife.min.js"
    script.write_bytes(script.read_bytes().replace(b"uPlot", b"uPlut", 1))
    with pytest.raises(vendor.VendorError, match=r"uPlot\.iife\.min\.js: sha256"):
        vendor.check(copy)
    assert "1.6.32" in (vendor.DIRECTORY / "SHA256SUMS").read_text()
