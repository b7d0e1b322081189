"""What the floor monitor reads from the database: the grid, the alerts, a round's recall.

Read-only queries; the recall reuses the station's own reconstruction and text
(:func:`controller.journal.recall.rebuild` and :func:`render_text`), fed with the floor's
copy of the rows, so a round reads the same on the floor as ``journal recall`` prints it
at the table.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from controller.journal.format import Row, format_ts
from controller.journal.recall import rebuild, render_text

Conn = psycopg.Connection[tuple[Any, ...]]


def grid(conn: Conn, silent_after: float, now: datetime | None = None) -> list[dict[str, Any]]:
    """One entry per table: state, round, rounds in the last hour, house result today
    (UTC day, cents), fault, device health, last seen, silent, quarantined, open alerts,
    and the table limits it posted at its last start."""
    now = now or datetime.now(UTC)
    day = format_ts(now.replace(hour=0, minute=0, second=0, microsecond=0))
    hour = format_ts(now - timedelta(hours=1))
    rows = conn.execute(
        "SELECT t.table_id, t.status, t.last_seen, t.quarantined, t.limits,"
        " (SELECT count(*) FROM round_result r WHERE r.table_id = t.table_id"
        "   AND r.ended >= %s),"
        " (SELECT COALESCE(sum(house_cents), 0) FROM round_result r"
        "   WHERE r.table_id = t.table_id AND r.ended >= %s),"
        " (SELECT count(*) FROM alert a WHERE a.table_id = t.table_id AND a.cleared IS NULL)"
        " FROM floor_table t ORDER BY t.table_id",
        (hour, day),
    ).fetchall()
    out = []
    for table, stored_status, last_seen, quarantined, limits, per_hour, house, alerts in rows:
        status = stored_status or {}
        silent = last_seen is None or (now - last_seen).total_seconds() > silent_after
        out.append(
            {
                "table": table,
                "state": status.get("state"),
                "round": status.get("round"),
                "fault": status.get("fault"),
                "devices": status.get("devices") or {},
                "last_seen": last_seen.astimezone(UTC).strftime("%H:%M:%S") if last_seen else None,
                "silent": silent,
                "rounds_per_hour": int(per_hour),
                "house_today_cents": int(house),
                "quarantined": quarantined,
                "alerts": int(alerts),
                "limits": limits,  # posted at its last start (NY 5324.12(d)(2)), or None
            }
        )
    return out


def alerts(conn: Conn, silent_after: float, now: datetime | None = None) -> list[dict[str, Any]]:
    """Open alerts, newest first, with a ``silent`` alert for each table not heard from in
    ``silent_after`` seconds."""
    now = now or datetime.now(UTC)
    found = [
        {"table": t, "kind": k, "message": m, "raised": r.astimezone(UTC).strftime("%H:%M:%S")}
        for t, k, m, r in conn.execute(
            "SELECT table_id, kind, message, raised FROM alert WHERE cleared IS NULL"
            " ORDER BY raised DESC LIMIT 200"
        )
    ]
    for table, last_seen in conn.execute(
        "SELECT table_id, last_seen FROM floor_table ORDER BY table_id"
    ):
        if last_seen is None or (now - last_seen).total_seconds() > silent_after:
            seen = last_seen.astimezone(UTC).strftime("%H:%M:%S") if last_seen else "never"
            found.append(
                {
                    "table": table,
                    "kind": "silent",
                    "message": f"station silent since {seen}",
                    "raised": seen,
                }
            )
    return found


def rounds(conn: Conn, table: str, limit: int = 50) -> list[tuple[int, str, str, int]]:
    """The table's last ended rounds: ``(round, ended, status, house_cents)``, newest first."""
    return [
        (int(r), e, s, int(h))
        for r, e, s, h in conn.execute(
            "SELECT round, ended, status, house_cents FROM round_result WHERE table_id = %s"
            " ORDER BY round DESC LIMIT %s",
            (table, limit),
        )
    ]


def recall_text(conn: Conn, table: str, round_no: int) -> str | None:
    """Round ``round_no`` of ``table`` as ``journal recall`` prints it, with the
    between-round rows that led up to it; None when the floor does not hold it."""
    rows = conn.execute(
        "SELECT row_id, ts, kind, round, data, prev_hash, hash FROM journal_row"
        " WHERE table_id = %s AND row_id > COALESCE((SELECT max(row_id) FROM journal_row"
        "   WHERE table_id = %s AND round IS NOT NULL AND round < %s), 0)"
        " AND row_id <= (SELECT max(row_id) FROM journal_row WHERE table_id = %s AND round = %s)"
        " ORDER BY row_id",
        (table, table, round_no, table, round_no),
    ).fetchall()
    if not rows:
        return None
    recalled = rebuild(Row(*r) for r in rows)
    recalled["after"] = []
    return render_text(recalled)
