"""The floor operator's commands (``floor.operations``) on a real PostgreSQL, without the
command line: the open alerts oldest first, the quarantined tables, a release and an
alert's clearing each in one transaction with its ``operator_action`` row and a
``NOTIFY floor_changed``, and each refusal as one line (tests/test_floor_forgery.py runs
the same through ``dealer-station floor``).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest

from floor.operations import (
    OperationError,
    clear_alert,
    open_alerts,
    quarantined,
    release,
)
from floor.servers import Database

Conn = psycopg.Connection[tuple[Any, ...]]


@pytest.fixture
def conn(floor_database: Database) -> Iterator[Conn]:
    with psycopg.connect(floor_database.conninfo, autocommit=True) as connection:
        connection.execute("DELETE FROM operator_action")
        connection.execute("DELETE FROM alert_ack")
        connection.execute("DELETE FROM alert")
        connection.execute("DELETE FROM floor_table")
        yield connection


def at(minute: int) -> datetime:
    return datetime(2026, 12, 2, 10, minute, tzinfo=UTC)


def _alert(conn: Conn, table: str, kind: str, raised: datetime, *, cleared: bool = False) -> int:
    row = conn.execute(
        "INSERT INTO alert (table_id, kind, message, raised, cleared, repeats)"
        " VALUES (%s, %s, %s, %s, %s, 2) RETURNING id",
        (table, kind, f"{kind} at {table}", raised, raised if cleared else None),
    ).fetchone()
    assert row is not None
    return int(row[0])


def _actions(conn: Conn) -> list[tuple[object, ...]]:
    return conn.execute(
        "SELECT operator, action, table_id, alert_id, reason, detail FROM operator_action"
        " ORDER BY id"
    ).fetchall()


def _notified(conn: Conn) -> list[str]:
    return [n.channel for n in conn.notifies(timeout=0.5, stop_after=1)]


def test_open_alerts_oldest_first_then_by_id_without_the_cleared(conn: Conn) -> None:
    late = _alert(conn, "T2", "seal", at(30))
    first = _alert(conn, "T1", "fault", at(10))
    _alert(conn, "T3", "fault", at(5), cleared=True)
    tie = _alert(conn, "T3", "chain", at(10))
    assert [a[0] for a in open_alerts(conn)] == [first, tie, late]
    assert open_alerts(conn)[0] == (first, "T1", "fault", at(10), 2, "fault at T1")


def test_the_quarantined_tables_by_name_with_why(conn: Conn) -> None:
    conn.execute(
        "INSERT INTO floor_table (table_id, quarantined) VALUES"
        " ('T9', 'chain broken'), ('T1', NULL), ('T10', 'forged row')"
    )
    assert quarantined(conn) == [("T10", "forged row"), ("T9", "chain broken")]


def test_a_release_ends_the_quarantine_and_records_who_why_and_what_it_was(conn: Conn) -> None:
    conn.execute(
        "INSERT INTO floor_table (table_id, quarantined) VALUES ('T7', 'chain broken: row 1'),"
        " ('T8', 'forged row')"
    )
    conn.execute("LISTEN floor_changed")
    assert release(conn, "T7", "pat", "password changed") == "chain broken: row 1"
    assert _notified(conn) == ["floor_changed"]
    assert quarantined(conn) == [("T8", "forged row")]
    assert _actions(conn) == [
        ("pat", "release", "T7", None, "password changed", "chain broken: row 1")
    ]


def test_a_release_of_no_table_or_one_not_quarantined_changes_nothing(conn: Conn) -> None:
    conn.execute("INSERT INTO floor_table (table_id) VALUES ('T1')")
    with pytest.raises(OperationError) as unknown:
        release(conn, "T2", "pat", "why")
    assert str(unknown.value) == "no table 'T2' on the floor"
    with pytest.raises(OperationError) as free:
        release(conn, "T1", "pat", "why")
    assert str(free.value) == "table T1 is not quarantined"
    assert _actions(conn) == []


def test_clearing_an_alert_closes_it_alone_and_records_it(conn: Conn) -> None:
    alert = _alert(conn, "T4", "fault", at(1))
    other = _alert(conn, "T5", "fault", at(2))
    conn.execute("LISTEN floor_changed")
    assert clear_alert(conn, alert, "sam", "seen on video") == ("T4", "fault", "fault at T4")
    assert _notified(conn) == ["floor_changed"]
    assert [a[0] for a in open_alerts(conn)] == [other]
    assert _actions(conn) == [
        ("sam", "clear-alert", "T4", alert, "seen on video", "fault: fault at T4")
    ]
    (cleared,) = conn.execute("SELECT cleared FROM alert WHERE id = %s", (alert,)).fetchone() or ()
    assert isinstance(cleared, datetime)


def test_an_alert_cleared_already_or_none_is_refused(conn: Conn) -> None:
    alert = _alert(conn, "T4", "fault", at(1), cleared=True)
    for number in (alert, alert + 1):
        with pytest.raises(OperationError) as refused:
            clear_alert(conn, number, "sam", "why")
        assert str(refused.value) == f"no open alert {number}"
    assert _actions(conn) == []
