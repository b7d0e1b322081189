"""The collector's database writer (``floor.ingest``) on a real PostgreSQL: whatever order,
copies and gaps the rows of a table arrive in, the floor holds a prefix of the station's
chain, never a row twice or out of place, and asks again for what it lacks."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import psycopg
import pytest
from floor_fixtures import chained, database_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.journal.format import GENESIS_HASH, Row, canonical_json, row_hash
from controller.journal.wire import Ack
from floor.ingest import Ingest, Rows
from floor.servers import Database


def chain(length: int) -> list[Row]:
    """A valid journal chain of ``length`` rows (hashes from the journal's own function)."""
    rows: list[Row] = []
    prev = GENESIS_HASH
    for n in range(1, length + 1):
        ts, data = f"2026-11-30T20:00:{n % 60:02d}.000000Z", canonical_json({"n": n})
        digest = row_hash(prev, row_id=n, ts=ts, kind="device", round_no=None, data_text=data)
        rows.append(Row(n, ts, "device", None, data, prev, digest))
        prev = digest
    return rows


@pytest.fixture(scope="module")
def conn(floor_database: Database) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(floor_database.conninfo) as connection:
        yield connection


COUNTER = iter(range(10**6))


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    length=st.integers(1, 30),
    deliveries=st.lists(st.tuples(st.integers(0, 29), st.integers(1, 10)), max_size=12),
)
def test_any_delivery_order_leaves_a_prefix_and_the_resend_completes_it(
    conn: psycopg.Connection[tuple[object, ...]],
    floor_database: Database,
    length: int,
    deliveries: list[tuple[int, int]],
) -> None:
    table = f"H{next(COUNTER)}"
    rows = chain(length)
    ingest = Ingest(conn)
    for start, size in deliveries:
        batch = rows[start % length : start % length + size]
        applied = ingest.apply([Rows(table, batch)])
        stored = database_rows(floor_database, table)
        held = len(stored)
        assert stored == [tuple(r.__getattribute__(f) for f in FIELDS) for r in rows[:held]]
        assert applied.alerts == []
        ack = applied.acks[table]
        if batch[0].id > held + 1:
            assert ack.rewind and ack.row == held  # "send again from after my anchor"
        else:
            assert not ack.rewind and ack.row == batch[-1].id
    # The station's resend from the floor's anchor completes the copy, row for row.
    held = len(database_rows(floor_database, table))
    if held < length:
        ingest.apply([Rows(table, rows[held:])])
    assert database_rows(floor_database, table) == [
        tuple(r.__getattribute__(f) for f in FIELDS) for r in rows
    ]


FIELDS = ("id", "ts", "kind", "round_no", "data_text", "prev_hash", "hash")


def test_migrations_apply_once_and_a_newer_database_is_refused(
    conn: psycopg.Connection[tuple[object, ...]],
) -> None:
    from floor.schema import SchemaError, migrate, migrations

    versions = [v for v, _, _ in migrations()]
    # In order, each once (the console's migrations are numbered from 0010 on).
    assert versions == sorted(set(versions)) and versions[:3] == [1, 2, 3]
    assert migrate(conn) == []  # the fixture applied them all; nothing twice
    applied = [v for (v,) in conn.execute("SELECT version FROM schema_migration ORDER BY 1")]
    assert applied == versions
    with conn.transaction():
        conn.execute("INSERT INTO schema_migration (version, name) VALUES (99, 'future')")
    try:
        with pytest.raises(SchemaError, match="schema version 99"):
            migrate(conn)
    finally:
        with conn.transaction():
            conn.execute("DELETE FROM schema_migration WHERE version = 99")


def grid(
    conn: psycopg.Connection[tuple[object, ...]], silent_after: float, now: object = None
) -> list[dict[str, object]]:
    """The console's grid lines (``floor.queries``), read on a plain connection."""
    from datetime import UTC, datetime

    from floor.casino import Casino
    from floor.queries import GRID_SQL, Moment, grid_rows, grid_sql_params

    moment = Moment.of(Casino(), now if isinstance(now, datetime) else datetime.now(UTC))
    found = conn.execute(GRID_SQL, grid_sql_params(moment)).fetchall()
    return grid_rows(found, Casino(), silent_after, moment)


def alerts(
    conn: psycopg.Connection[tuple[object, ...]], silent_after: float, now: object
) -> list[dict[str, object]]:
    """The console's alert lines (``floor.queries``), read on a plain connection."""
    from datetime import datetime

    from floor.casino import Casino
    from floor.queries import ALERTS_SQL, SILENT_SQL, alert_rows

    assert isinstance(now, datetime)
    found = conn.execute(ALERTS_SQL, (200,)).fetchall()
    tables = conn.execute(SILENT_SQL).fetchall()
    return alert_rows(found, tables, Casino(), silent_after, now)


def test_a_table_not_heard_from_for_the_silent_time_shows_silent(
    conn: psycopg.Connection[tuple[object, ...]],
) -> None:
    from datetime import UTC, datetime, timedelta

    now = datetime(2026, 11, 30, 21, 0, tzinfo=UTC)
    with conn.transaction():
        for table, ago in (("S-29", 29), ("S-31", 31)):
            conn.execute(
                "INSERT INTO floor_table (table_id, last_seen) VALUES (%s, %s)",
                (table, now - timedelta(seconds=ago)),
            )
    rows = {g["table"]: g for g in grid(conn, 30.0, now)}
    assert rows["S-29"]["silent"] is False  # both sides of the 30 s limit
    assert rows["S-31"]["silent"] is True
    silent = {a["table"] for a in alerts(conn, 30.0, now) if a["kind"] == "silent"}
    assert "S-31" in silent and "S-29" not in silent


POSTED = {
    "main_min_cents": 1000,
    "main_max_cents": 500_000,
    "match_min_cents": 500,
    "match_max_cents": 10_000,
}


def test_the_grid_shows_the_limits_of_the_latest_start(
    conn: psycopg.Connection[tuple[object, ...]],
) -> None:
    """NY 5324.12(d)(2): the limits a station posts at start reach the floor's grid; a
    later start with other limits replaces them; a station without limits posts none."""
    table = f"L{next(COUNTER)}"
    started = {"version": "1", "table_id": table, "profile": "NY", "decks": 6, "sealed": True}
    rows = chained(
        [
            ("station_started", started, None),  # an older station: no limits field
            ("device", {"n": 1}, None),
            ("station_started", {**started, "limits": POSTED}, None),
            ("station_started", {**started, "limits": {**POSTED, "main_min_cents": 2500}}, None),
        ]
    )
    ingest = Ingest(conn)
    ingest.apply([Rows(table, rows[:2])])
    shown = {g["table"]: g for g in grid(conn, 30.0)}
    assert shown[table]["limits"] == "none posted"
    ingest.apply([Rows(table, rows[2:3])])
    posted = {g["table"]: g for g in grid(conn, 30.0)}[table]["limits"]
    assert posted == "$10\u2013$5,000, match $5\u2013$100"
    ingest.apply([Rows(table, rows[3:])])
    latest = {g["table"]: g for g in grid(conn, 30.0)}[table]["limits"]
    assert latest == "$25\u2013$5,000, match $5\u2013$100"


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    limits=st.one_of(
        st.none(),
        st.text(max_size=5),
        st.lists(st.integers(), max_size=3),
        st.dictionaries(
            st.sampled_from([*POSTED, "other"]),
            st.one_of(
                st.none(), st.booleans(), st.integers(-(10**18), 10**18), st.text(max_size=3)
            ),
        ),
    )
)
def test_whatever_a_station_posts_as_limits_the_floor_keeps_cents_or_none(
    conn: psycopg.Connection[tuple[object, ...]], limits: object
) -> None:
    """Hostile content in a well-chained row: the floor keeps only whole positive cents
    under the four known names, never fails the batch, raises no alert."""
    from floor.ingest import posted_limits

    table = f"Q{next(COUNTER)}"
    rows = chained([("station_started", {"limits": limits, "table_id": table}, None)])
    applied = Ingest(conn).apply([Rows(table, rows)])
    assert applied.alerts == [] and applied.acks[table].row == 1
    stored = conn.execute("SELECT limits FROM floor_table WHERE table_id = %s", (table,))
    (kept,) = stored.fetchone() or (None,)
    assert kept == posted_limits(rows[0])
    assert set(kept) == set(POSTED)
    for name, value in kept.items():
        sent = limits.get(name) if isinstance(limits, dict) else None
        if type(sent) is int and sent > 0:
            assert value == sent
        else:
            assert value is None


def test_more_of_a_branch_held_as_evidence_is_kept_and_an_orphan_is_asked_again(
    conn: psycopg.Connection[tuple[object, ...]],
) -> None:
    """A sealing table (docs/floor.md "Seals"): a row continuing a forged branch the floor
    keeps in ``quarantine_row`` is kept there too; a row whose parent never reached the
    floor is asked for again from the sealed head."""
    from test_floor_branches import TABLE, _row, journal
    from test_floor_ingest_verdicts import rehash

    from controller.journal.seal import new_sealing
    from floor.seals import TableSeals

    sealing, key = new_sealing(TABLE)
    genuine = journal(sealing, 1)
    ingest = Ingest(conn, TableSeals({TABLE: key}))
    assert ingest.apply([Rows(TABLE, genuine[:2])]).acks[TABLE].row == 2  # start and seal
    other = _row(None, "station_started", {"table_id": "elsewhere"}, None)
    stray = rehash(genuine[2], other)  # row 3 on another history than the sealed head's
    more = _row(stray, "settlement", {"net_cents": 1}, 1)
    orphan = _row(_row(genuine[2], "device", {}, None), "device", {"n": 5}, None)  # row 5

    def evidence() -> list[object]:
        found = conn.execute(
            "SELECT row_id, hash FROM quarantine_row WHERE table_id = %s ORDER BY row_id",
            (TABLE,),
        ).fetchall()
        return [tuple(r) for r in found]

    ingest.apply([Rows(TABLE, [stray])])
    assert evidence() == [(3, stray.hash)]
    applied = ingest.apply([Rows(TABLE, [more])])
    assert evidence() == [(3, stray.hash), (4, more.hash)]
    assert not applied.acks[TABLE].rewind
    applied = ingest.apply([Rows(TABLE, [orphan])])
    assert applied.acks[TABLE] == Ack(2, genuine[1].hash, rewind=True)
    assert evidence() == [(3, stray.hash), (4, more.hash)]


def test_a_refused_message_is_kept_as_evidence_and_counted_when_it_comes_again(
    conn: psycopg.Connection[tuple[object, ...]],
) -> None:
    """docs/floor.md "What one station cannot do": a message refused unstored is kept in
    ``refused_message`` (reason, size, SHA-256, the message itself), counted when it comes
    again, with an alert; never as rows."""
    from floor.screen import Refused

    table = f"R{next(COUNTER)}"
    refused = Refused(table, f"floor/{table}/rows", "not in the wire format: x", 9, "d1", b"[1, 2]")
    Ingest(conn).apply([refused])
    again = Refused(table, f"floor/{table}/rows", "not in the wire format: y", 12, "d1", b"[1, 2]")
    applied = Ingest(conn).apply([again])
    assert applied.alerts == [(table, "malformed", "not in the wire format: y")]
    kept = conn.execute(
        "SELECT topic, reason, size, digest, payload, times FROM refused_message"
        " WHERE table_id = %s",
        (table,),
    ).fetchall()
    assert kept == [(f"floor/{table}/rows", "not in the wire format: x", 12, "d1", b"[1, 2]", 2)]
    stored = conn.execute("SELECT count(*) FROM journal_entry WHERE table_id = %s", (table,))
    assert stored.fetchone() == (0,)


def test_the_clock_tolerance_is_the_one_the_collector_is_given(
    conn: psycopg.Connection[tuple[object, ...]],
) -> None:
    """``clock_tolerance_seconds`` (docs/floor.md, 120 s unless configured): a station 120.5 s
    ahead is alerted by default and not under a tolerance of 200 s; 119.5 s is not."""
    from controller.journal.wire import Status
    from floor.screen import StatusReport

    arrived = 1_796_101_200.0  # 2026-12-01T05:00:00Z

    def clock_alerts(ts: str, **tolerance: float) -> list[str]:
        table = f"C{next(COUNTER)}"
        status = Status(table, ts, None, None, None, {}, (0, ""), 0)
        applied = Ingest(conn, **tolerance).apply([StatusReport(status, arrived)])
        return [kind for _, kind, _ in applied.alerts]

    assert clock_alerts("2026-12-01T05:02:00.500000Z") == ["clock"]
    assert clock_alerts("2026-12-01T05:01:59.500000Z") == []
    assert clock_alerts("2026-12-01T05:02:00.500000Z", clock_tolerance=200.0) == []
    assert clock_alerts("2026-12-01T05:00:30.000000Z", clock_tolerance=20.0) == ["clock"]


def test_a_rollback_whose_head_row_came_in_the_same_transaction_is_named_so(
    conn: psycopg.Connection[tuple[object, ...]],
) -> None:
    """A collector that fell behind takes a station's rows 4-8 and its status of 6 s after
    row 8, head 5, in one transaction: the station lost rows 6-8, "rolled back or
    truncated" (docs/floor.md: the same hash at the head, past the 5 s commit window),
    though row 5 reaches the database only when that transaction commits."""
    from controller.journal.wire import Status
    from floor.screen import StatusReport

    table = f"R{next(COUNTER)}"
    rows = chain(8)  # row n at 20:00:0n
    ingest = Ingest(conn)
    ingest.apply([Rows(table, rows[:3])])
    ts = "2026-11-30T20:00:14.000000Z"
    arrived = datetime(2026, 11, 30, 20, 0, 14, tzinfo=UTC).timestamp()  # no clock skew
    status = Status(table, ts, None, None, None, {}, (5, rows[4].hash), 5)
    applied = ingest.apply([Rows(table, rows[3:]), StatusReport(status, arrived)])
    text = "rolled back or truncated: the station's last row is 5, the floor holds 8"
    assert applied.alerts == [(table, "rollback", text)]
    line = conn.execute(
        "SELECT anchor_row, quarantined FROM floor_table WHERE table_id = %s", (table,)
    ).fetchone()
    assert line == (8, text)  # the rows were sound: merged, then the table quarantined


def test_each_round_that_ends_gets_its_house_result(
    conn: psycopg.Connection[tuple[object, ...]],
) -> None:
    """A round completed or voided: its house result is minus the players' net over its
    settled wagers (main hands, Match the Dealer, insurance; other rows' nets do not count),
    at the time of the row that ended it."""
    table = f"W{next(COUNTER)}"
    rows = chained(
        [
            ("station_started", {"table_id": table}, None),
            ("round_started", {"round": 1}, 1),
            ("settlement", {"net_cents": 2500}, 1),
            ("match_settled", {"net_cents": -500}, 1),
            ("insurance", {"net_cents": 100}, 1),
            ("device", {"net_cents": 999}, 1),
            ("round_completed", {}, 1),
            ("round_started", {"round": 2}, 2),
            ("round_voided", {"reason": "shoe lost"}, 2),
        ]
    )
    Ingest(conn).apply([Rows(table, rows)])
    results = conn.execute(
        "SELECT round, ended, status, house_cents FROM round_result WHERE table_id = %s"
        " ORDER BY round",
        (table,),
    ).fetchall()
    assert results == [(1, rows[6].ts, "completed", -2100), (2, rows[8].ts, "voided", 0)]


def test_rows_waiting_for_a_seal_are_merged_when_it_arrives_in_a_later_transaction(
    conn: psycopg.Connection[tuple[object, ...]],
) -> None:
    """docs/floor.md "Seals": a sealing table's rows after its sealed head wait in
    ``pending_row``; the seal arriving in a later transaction (another batch, another
    collector) merges them with it: the waiting rows are read back from the database."""
    from test_floor_branches import _row, journal

    from controller.journal.seal import new_sealing
    from floor.seals import TableSeals

    table = f"W{next(COUNTER)}"
    sealing, key = new_sealing(table)
    start = _row(None, "station_started", {"table_id": table}, None)
    rows = journal(sealing, 1, after=[start])  # start, a round's three rows, its seal
    assert [r.kind for r in rows] == [
        "station_started", "round_started", "settlement", "round_completed", "seal"
    ]  # fmt: skip
    ingest = Ingest(conn, TableSeals({table: key}))

    def merged() -> list[object]:
        found = conn.execute(
            "SELECT row_id FROM journal_entry WHERE table_id = %s ORDER BY row_id", (table,)
        )
        return [r[0] for r in found.fetchall()]

    ingest.apply([Rows(table, rows[:3])])
    assert merged() == []  # not sealed yet: waiting
    applied = ingest.apply([Rows(table, rows[3:])])
    assert merged() == [1, 2, 3, 4, 5]
    assert applied.acks[table] == Ack(5, rows[4].hash)
