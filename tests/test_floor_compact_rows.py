"""The floor's compact rows (migration 0012, a real PostgreSQL): ``journal_entry`` keeps the
time as a timestamptz, the hash as its 32 bytes and no ``prev_hash``, and the
``journal_row`` view gives every row back exactly as the station sent it (the chain hash is
over the station's text). A database of an older floor is migrated without losing a row,
and the collector goes on from its anchor."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from floor_fixtures import database_rows, journal_rows, simulated
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.journal.format import (
    GENESIS_HASH,
    KIND_PATTERN,
    Row,
    canonical_json,
    format_ts,
    row_hash,
)
from controller.journal.seal import SEAL_KIND
from floor.ingest import Ingest, Rows
from floor.schema import migrate
from floor.screen import SETTLED_KINDS, net_cents
from floor.servers import Database, remove

pytestmark = pytest.mark.usefixtures("floor_database")
_tables = itertools.count(1)
#: The version before the compact rows: a database as the floor left it until then.
BEFORE = 11
#: Kinds whose content the floor screens (a net in whole cents, the table's own name):
#: a row made up here of such a kind may be refused, which is not what is tested.
SCREENED = {*SETTLED_KINDS, "station_started", SEAL_KIND}


def _chain(rows: list[tuple[str, str, int | None, str]], prev: str = GENESIS_HASH) -> list[Row]:
    out: list[Row] = []
    for number, (ts, kind, round_no, data) in enumerate(rows, start=1):
        digest = row_hash(prev, row_id=number, ts=ts, kind=kind, round_no=round_no, data_text=data)
        out.append(Row(number, ts, kind, round_no, data, prev, digest))
        prev = digest
    return out


def _as_tuples(rows: list[Row]) -> list[tuple[Any, ...]]:
    return [(r.id, r.ts, r.kind, r.round_no, r.data_text, r.prev_hash, r.hash) for r in rows]


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=10,
)
#: Any time the station's clock can give (format_ts: UTC, microseconds, years 1000 on).
station_times = st.datetimes(
    min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999999)
).map(lambda moment: format_ts(moment.replace(tzinfo=UTC)))
station_rows = st.tuples(
    station_times,
    st.from_regex(KIND_PATTERN, fullmatch=True).filter(lambda kind: kind not in SCREENED),
    st.none() | st.integers(0, 2**62 - 1),
    st.dictionaries(st.text(max_size=8), json_values, max_size=4).map(canonical_json),
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(station_rows, min_size=1, max_size=12), split=st.integers(0, 12))
def test_any_row_a_station_writes_comes_back_byte_for_byte(
    floor_database: Database, rows: list[tuple[str, str, int | None, str]], split: int
) -> None:
    table = f"B{next(_tables)}"
    chain = _chain(rows)
    with psycopg.connect(floor_database.conninfo) as conn:
        ingest = Ingest(conn)
        # In two messages: the second's first row follows a row stored by the first.
        for part in (chain[:split], chain[split:]):
            if part:
                assert ingest.apply([Rows(table, part)]).alerts == []
        stored = conn.execute(
            "SELECT count(*), count(ts), count(ts_text), count(prev_hash),"
            " min(octet_length(hash)), max(octet_length(hash)) FROM journal_entry"
            " WHERE table_id = %s",
            (table,),
        ).fetchone()
    assert database_rows(floor_database, table) == _as_tuples(chain)
    # Kept compactly: every time as a timestamptz, no prev_hash, 32-byte hashes.
    assert stored == (len(chain), len(chain), 0, 0, 32, 32)


#: Texts that look like a journal time and are not one (or not as PostgreSQL writes it).
near_times = st.sampled_from(
    [
        "2026-02-30T09:15:12.123456Z",  # no such day (the floor took it before 0012)
        "2026-11-30T24:00:00.000000Z",  # PostgreSQL reads it as the next midnight
        "2026-11-30T23:59:60.000000Z",  # a leap second
        "0000-01-01T00:00:00.000000Z",
        "2026-11-30T09:15:12.123456+00:00",
        "2026-11-30 09:15:12.123456Z",
        "2026-11-30T09:15:12Z",
        "infinity",
        "epoch",
        "now",
    ]
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(
        st.tuples(
            station_times | near_times | st.text(max_size=30).filter(lambda t: "\x00" not in t),
            st.booleans(),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_a_row_written_through_the_view_comes_back_whatever_its_time_and_link(
    floor_database: Database, rows: list[tuple[str, bool]]
) -> None:
    """What the collector never writes (a time that is no journal time, a ``prev_hash``
    that is not the previous row's hash) is kept as it came: nothing is stored that reads
    back differently."""
    table = f"V{next(_tables)}"
    chain = _chain([(ts, "note", None, "{}") for ts, _ in rows])
    sent = [
        Row(r.id, r.ts, r.kind, r.round_no, r.data_text, "ab" * 32, r.hash) if cut else r
        for r, (_, cut) in zip(chain, rows, strict=True)
    ]
    with psycopg.connect(floor_database.conninfo) as conn, conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO journal_row (table_id, row_id, ts, kind, round, data, prev_hash, hash)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            [(table, *r) for r in _as_tuples(sent)],
        )
    assert database_rows(floor_database, table) == _as_tuples(sent)


@pytest.mark.parametrize(
    ("ts", "kept"),
    [
        ("2026-11-30T09:15:12.123456Z", True),
        ("1000-01-01T00:00:00.000000Z", True),
        ("9999-12-31T23:59:59.999999Z", True),
        ("2024-02-29T12:00:00.000001Z", True),  # a leap day
        ("2026-02-29T12:00:00.000001Z", False),  # not in 2026
        ("2026-11-31T12:00:00.000000Z", False),
        ("2026-13-01T12:00:00.000000Z", False),
        ("2026-11-30T24:00:00.000000Z", False),
        ("2026-11-30T09:60:00.000000Z", False),
        ("2026-11-30t09:15:12.123456Z", False),
    ],
)
def test_a_time_is_stored_as_a_timestamptz_only_when_its_text_comes_back(
    floor_database: Database, ts: str, kept: bool
) -> None:
    with psycopg.connect(floor_database.conninfo) as conn:
        moment, text = conn.execute(
            "SELECT floor_ts_moment(%s), floor_ts_text(floor_ts_moment(%s))", (ts, ts)
        ).fetchone() or (None, None)
    assert (moment is not None) == kept
    if kept:
        assert text == ts
        assert moment == datetime.fromisoformat(ts[:-1]).replace(tzinfo=UTC)


# --- the migration -------------------------------------------------------------------------


@pytest.fixture
def old_database() -> Iterator[Database]:
    """A PostgreSQL with the floor's schema as it was before the compact rows."""
    database = Database()
    database.start()
    with psycopg.connect(database.conninfo) as conn:
        assert max(migrate(conn, upto=BEFORE)) == BEFORE
    yield database
    database.stop()
    remove(database)


def _old_insert(conn: psycopg.Connection[Any], table: str, rows: list[Row]) -> None:
    """Rows stored as the collector stored them before migration 0012 (text columns)."""
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO journal_row (table_id, row_id, ts, kind, round, data, prev_hash, hash,"
            " net_cents) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [(table, *t, net_cents(r)) for r, t in zip(rows, _as_tuples(rows), strict=True)],
        )


EVERYTHING = (
    "SELECT table_id, row_id, ts, kind, round, data, prev_hash, hash, stored, net_cents"
    " FROM journal_row ORDER BY table_id, row_id"
)
FIGURES = (
    "SELECT * FROM round_stat ORDER BY table_id, round",
    "SELECT * FROM table_quarter ORDER BY table_id, quarter",
    "SELECT * FROM round_result ORDER BY table_id, round",
)


def test_the_migration_keeps_every_row_and_the_collector_goes_on(
    old_database: Database, tmp_path: Path
) -> None:
    journal = simulated(tmp_path / "t21.sqlite3", 4, 2021)
    rows = [Row(*r) for r in journal_rows(journal)]
    half = len(rows) // 2
    odd = _chain(
        [
            ("2026-02-30T09:15:12.123456Z", "note", None, "{}"),  # taken by the floor before
            ("2026-11-30T09:15:13.000000Z", "round_started", 1, '{"round":1,"seats":[]}'),
            ("2026-11-30T24:00:00.000000Z", "fault", 1, '{"code":"x"}'),
            ("2026-11-30T09:15:14.000000Z", "round_completed", 1, "{}"),
        ]
    )
    # A row whose prev_hash is not the row before's (a database altered by hand): kept.
    odd[1] = Row(*_as_tuples(odd)[1][:5], "cd" * 32, odd[1].hash)
    with psycopg.connect(old_database.conninfo) as conn:
        with conn.transaction():
            _old_insert(conn, "T21", rows[:half])
            _old_insert(conn, "X01", odd)
            last = rows[half - 1]
            conn.execute(
                "INSERT INTO floor_table (table_id, anchor_row, anchor_hash, anchor_ts)"
                " VALUES ('T21', %s, %s, %s)",
                (last.id, last.hash, last.ts),
            )
            # A hash the wire never takes (upper case): the migration refuses, keeps all.
            bad = _chain([("2026-11-30T09:15:12.000000Z", "note", None, "{}")])[0]
            _old_insert(conn, "X02", [Row(*_as_tuples([bad])[0][:6], bad.hash.upper())])
        with pytest.raises(psycopg.errors.RaiseException, match="row 1 of table X02"):
            migrate(conn)
        assert conn.execute("SELECT max(version) FROM schema_migration").fetchone() == (BEFORE,)
        assert len(conn.execute("SELECT 1 FROM journal_row").fetchall()) == half + 5
        with conn.transaction():
            conn.execute("DELETE FROM journal_row WHERE table_id = 'X02'")
        before = conn.execute(EVERYTHING).fetchall()
        figures = [conn.execute(sql).fetchall() for sql in FIGURES]
        assert {r[0] for r in figures[0]} == {"T21", "X01"}  # rounds ended before
        assert migrate(conn) == [12]
        assert conn.execute(EVERYTHING).fetchall() == before
        assert [conn.execute(sql).fetchall() for sql in FIGURES] == figures
        kept = conn.execute(
            "SELECT row_id, ts_text IS NOT NULL, prev_hash IS NOT NULL FROM journal_entry"
            " WHERE table_id = 'X01' ORDER BY row_id"
        ).fetchall()
        assert kept == [(1, True, False), (2, False, True), (3, True, False), (4, False, False)]
        # The station sends its whole journal again: what the floor held is checked
        # against it (same hashes), the rest is merged after it, with its figures.
        applied = Ingest(conn).apply([Rows("T21", rows)])
        assert applied.alerts == [] and applied.stored == len(rows) - half
        rounds = conn.execute("SELECT count(*) FROM round_stat WHERE table_id = 'T21'").fetchone()
    assert database_rows(old_database, "T21") == journal_rows(journal)
    assert rounds == (len({r.round_no for r in rows if r.kind == "round_completed"}),)


def test_journal_row_reads_as_the_table_it_was(floor_database: Database) -> None:
    """Whatever reads ``journal_row`` (recall, search, the console, the figures, a query by
    hand) finds the columns, their order and their types of the table before migration
    0012."""
    with psycopg.connect(floor_database.conninfo) as conn:
        found = conn.execute(
            "SELECT column_name, data_type FROM information_schema.columns"
            " WHERE table_name = 'journal_row' ORDER BY ordinal_position"
        ).fetchall()
    assert found == [
        ("table_id", "text"),
        ("row_id", "bigint"),
        ("ts", "text"),
        ("kind", "text"),
        ("round", "bigint"),
        ("data", "text"),
        ("prev_hash", "text"),
        ("hash", "text"),
        ("stored", "timestamp with time zone"),
        ("net_cents", "bigint"),
    ]


@pytest.mark.parametrize("ts", ["2026-02-30T09:15:12.123456Z", "2026-11-30T24:00:00.000000Z"])
def test_a_time_the_floor_takes_that_is_no_calendar_time_is_kept_as_it_came(
    floor_database: Database, ts: str
) -> None:
    """The floor takes any time in the journal's form (it did before migration 0012): one
    that names no moment is stored as its text, and the round it ends is still counted."""
    table = f"D{next(_tables)}"
    chain = _chain(
        [
            ("2026-11-30T09:15:11.000000Z", "round_started", 1, '{"round":1,"seats":[]}'),
            (ts, "round_completed", 1, "{}"),
        ]
    )
    with psycopg.connect(floor_database.conninfo) as conn:
        assert Ingest(conn).apply([Rows(table, chain)]).alerts == []
        kept = conn.execute(
            "SELECT row_id, ts IS NULL, ts_text FROM journal_entry WHERE table_id = %s"
            " ORDER BY row_id",
            (table,),
        ).fetchall()
        rounds = conn.execute(
            "SELECT count(*) FROM round_stat WHERE table_id = %s", (table,)
        ).fetchone()
    assert kept == [(1, False, None), (2, True, ts)]
    assert rounds == (1,)
    assert database_rows(floor_database, table) == _as_tuples(chain)
