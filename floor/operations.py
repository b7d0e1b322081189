"""What a floor operator does from the command line: list the open alerts and quarantined
tables, release a quarantine, clear an alert (``dealer-station floor alerts|release|
clear-alert``). Each change is one transaction that also records who did it, when and why
(``operator_action``) and tells the monitors (``NOTIFY floor_changed``).

Releasing a quarantine does not merge anything by itself: the table's next rows are checked
from its anchor as any others (a station whose journal still differs from the floor's is
quarantined again at its first row). Clearing an alert only closes it; the same trouble
again opens a new one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import psycopg

Conn = psycopg.Connection[tuple[Any, ...]]
MAX_NOTE: Final = 500


class OperationError(RuntimeError):
    """The operation cannot be done (no such table or alert, nothing to release); the text
    is one line."""


def open_alerts(conn: Conn) -> list[tuple[int, str, str, datetime, int, str]]:
    """``(id, table, kind, raised, repeats, message)`` of every open alert, oldest first."""
    return conn.execute(
        "SELECT id, table_id, kind, raised, repeats, message FROM alert WHERE cleared IS NULL"
        " ORDER BY raised, id"
    ).fetchall()


def quarantined(conn: Conn) -> list[tuple[str, str]]:
    """``(table, why)`` of every quarantined table."""
    return conn.execute(
        "SELECT table_id, quarantined FROM floor_table WHERE quarantined IS NOT NULL"
        " ORDER BY table_id"
    ).fetchall()


def release(conn: Conn, table: str, operator: str, reason: str) -> str:
    """End ``table``'s quarantine; returns why it was quarantined.

    Raises:
        OperationError: no such table, or it is not quarantined.
    """
    with conn.transaction():
        found = conn.execute(
            "SELECT quarantined FROM floor_table WHERE table_id = %s FOR UPDATE", (table,)
        ).fetchone()
        if found is None:
            raise OperationError(f"no table {table!r} on the floor")
        if found[0] is None:
            raise OperationError(f"table {table} is not quarantined")
        conn.execute("UPDATE floor_table SET quarantined = NULL WHERE table_id = %s", (table,))
        _record(
            conn,
            operator,
            action="release",
            table=table,
            alert_id=None,
            reason=reason,
            detail=found[0],
        )
    return str(found[0])


def clear_alert(conn: Conn, alert_id: int, operator: str, reason: str) -> tuple[str, str, str]:
    """Close the open alert ``alert_id``; returns its ``(table, kind, message)``.

    Raises:
        OperationError: no open alert with that id.
    """
    with conn.transaction():
        found = conn.execute(
            "UPDATE alert SET cleared = clock_timestamp() WHERE id = %s AND cleared IS NULL"
            " RETURNING table_id, kind, message",
            (alert_id,),
        ).fetchone()
        if found is None:
            raise OperationError(f"no open alert {alert_id}")
        table, kind, message = found
        _record(
            conn,
            operator,
            action="clear-alert",
            table=table,
            alert_id=alert_id,
            reason=reason,
            detail=f"{kind}: {message}",
        )
    return table, kind, message


def _record(
    conn: Conn,
    operator: str,
    *,
    action: str,
    table: str,
    alert_id: int | None,
    reason: str,
    detail: str,
) -> None:
    conn.execute(
        "INSERT INTO operator_action (operator, action, table_id, alert_id, reason, detail)"
        " VALUES (%s, %s, %s, %s, %s, %s)",
        (operator, action, table, alert_id, reason, detail),
    )
    conn.execute("NOTIFY floor_changed")
