"""The console's reads of the floor database: the live grid, the alerts, a table's page.

Every figure comes from the record: ``table_quarter`` and ``round_stat`` are kept from the
journal rows by the database itself (migration 0010), so the grid reads at most one line
per table and quarter hour of the current gaming day and shift, never every round of a
table: its cost is bounded by the number of tables, whatever their history.

Times are shown on the casino's clock (:class:`floor.casino.Casino`); money is formatted
here once (:func:`cash`, with thousands separators), and the grid also carries the raw
cents for sorting. Nothing here writes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import psycopg

from controller.journal.recall import money
from floor.casino import Casino, Period
from floor.ingest import LIMIT_FIELDS

Conn = psycopg.Connection[tuple[Any, ...]]
AsyncConn = psycopg.AsyncConnection[tuple[Any, ...]]
ALERTS_SHOWN: Final = 200

GRID_SQL: Final = """
WITH q AS (
    SELECT table_id,
        sum(rounds) FILTER (WHERE quarter >= %(s0)s AND quarter < %(s1)s) AS rounds,
        sum(hands) FILTER (WHERE quarter >= %(s0)s AND quarter < %(s1)s) AS hands,
        sum(handle_main + handle_match + handle_insurance)
            FILTER (WHERE quarter >= %(s0)s AND quarter < %(s1)s) AS handle,
        sum(win_main + win_match + win_insurance)
            FILTER (WHERE quarter >= %(s0)s AND quarter < %(s1)s) AS win,
        sum(faults) FILTER (WHERE quarter >= %(s0)s AND quarter < %(s1)s) AS faults,
        sum(win_main + win_match + win_insurance)
            FILTER (WHERE quarter >= %(d0)s AND quarter < %(d1)s) AS win_day
    FROM table_quarter
    WHERE quarter >= least(%(s0)s, %(d0)s) AND quarter < greatest(%(s1)s, %(d1)s)
    GROUP BY table_id
), a AS (
    SELECT table_id, count(*) AS open FROM alert
    WHERE cleared IS NULL AND NOT EXISTS (SELECT 1 FROM alert_ack k WHERE k.alert_id = alert.id)
    GROUP BY table_id
)
SELECT t.table_id, t.status, t.last_seen, t.quarantined, t.limits,
    q.rounds, q.hands, q.handle, q.win, q.faults, q.win_day, a.open
FROM floor_table t LEFT JOIN q USING (table_id) LEFT JOIN a USING (table_id)
ORDER BY t.table_id
"""


@dataclass(frozen=True, slots=True)
class Moment:
    """What "now" means for one snapshot: the time, the shift and the gaming day."""

    now: datetime
    shift: Period
    day: Period

    @classmethod
    def of(cls, casino: Casino, now: datetime) -> Moment:
        """The shift and the gaming day ``now`` falls in."""
        return cls(now, casino.shift(now), casino.gaming_day(now))


def cash(cents: int | None, *, signed: bool = False, whole: bool = False) -> str:
    """``1321000`` -> ``$13,210.00`` (``+`` when signed and positive; ``$13,210`` when
    ``whole`` and no cents); ``None`` -> ``?`` as in ``controller.journal.recall.money``."""
    if cents is None:
        return money(cents)
    sign = "-" if cents < 0 else "+" if signed and cents > 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars:,}" + ("" if whole and rest == 0 else f".{rest:02d}")


def hold_text(win: int, handle: int) -> str:
    """The hold (win over handle) in per cent, one decimal; a dash without handle."""
    if handle <= 0:
        return "\u2013"
    return f"{win * 100 / handle:.1f}%"


def per_hour(count: int, hours: float) -> float:
    """``count`` per hour of ``hours`` (at least one minute), one decimal."""
    return round(count / max(hours, 1 / 60), 1)


def limits_text(limits: Any) -> str:
    """The table limits it posted (NY 5324.12(d)(2)): ``$10.00-$5000.00, match ...``
    (an en dash between the two)."""
    if not isinstance(limits, dict):
        return ""
    values = [limits.get(f) if type(limits.get(f)) is int else None for f in LIMIT_FIELDS]

    def span(low: int | None, high: int | None) -> str | None:
        if low is None and high is None:
            return None
        return (
            f"{cash(low, whole=True) if low else 'any'}"
            f"\u2013{cash(high, whole=True) if high else 'any'}"
        )

    main, match = span(values[0], values[1]), span(values[2], values[3])
    parts = [p for p in (main, match and f"match {match}") if p]
    return ", ".join(parts) or "none posted"


def grid_sql_params(moment: Moment) -> dict[str, datetime]:
    """The grid query's parameters for ``moment``."""
    return {
        "s0": moment.shift.start,
        "s1": moment.shift.end,
        "d0": moment.day.start,
        "d1": moment.day.end,
    }


def grid_rows(
    found: list[tuple[Any, ...]], casino: Casino, silent_after: float, moment: Moment
) -> list[dict[str, Any]]:
    """The grid's lines from :data:`GRID_SQL`'s rows: display text and sort keys."""
    hours = max((min(moment.now, moment.shift.end) - moment.shift.start).total_seconds(), 60)
    out = []
    for row in found:
        table, stored, last_seen, quarantined, limits = row[:5]
        rounds, hands, handle, win, faults, win_day, alerts = (int(v or 0) for v in row[5:])
        status = stored if isinstance(stored, dict) else {}
        silent = last_seen is None or (moment.now - last_seen).total_seconds() > silent_after
        fault = status.get("fault") if isinstance(status.get("fault"), dict) else None
        devices = _mapping(status.get("devices"))
        down = [f"{d} {s}" for d, s in sorted(devices.items()) if s != "connected"]
        flag = 2 if fault or quarantined else 1 if silent else 0
        out.append(
            {
                "table": table,
                "pit": casino.pit_of(table) or "",
                "state": str(status.get("state") or ""),
                "round": status.get("round") if type(status.get("round")) is int else None,
                "fault": f"{fault.get('code')} ({fault.get('state')})" if fault else "",
                "quarantined": quarantined or "",
                "devices": ", ".join(down) or "all ok",
                "seen": casino.clock(last_seen) if last_seen else "never",
                "silent": silent,
                "flag": flag,
                "limits": limits_text(limits),
                "rounds_h": per_hour(rounds, hours / 3600),
                "hands_h": per_hour(hands, hours / 3600),
                "handle": cash(handle),
                "handle_cents": handle,
                "win": cash(win),
                "win_cents": win,
                "hold": hold_text(win, handle),
                "faults": faults,
                "win_day": cash(win_day),
                "win_day_cents": win_day,
                "alerts": alerts,
            }
        )
    return out


ALERTS_SQL: Final = """
SELECT a.id, a.table_id, a.kind, a.message, a.raised, k.user_name, k.acknowledged
FROM alert a LEFT JOIN alert_ack k ON k.alert_id = a.id
WHERE a.cleared IS NULL ORDER BY a.raised DESC LIMIT %s
"""
SILENT_SQL: Final = "SELECT table_id, last_seen FROM floor_table ORDER BY table_id"


def alert_rows(
    found: list[tuple[Any, ...]],
    tables: list[tuple[Any, ...]],
    casino: Casino,
    silent_after: float,
    now: datetime,
) -> list[dict[str, Any]]:
    """Open alerts (newest first, with who acknowledged each and when) and a ``silent``
    line for each table not heard from in ``silent_after`` seconds."""
    out: list[dict[str, Any]] = [
        {
            "id": alert_id,
            "table": table,
            "kind": kind,
            "message": message,
            "raised": casino.clock(raised),
            "ack": f"acknowledged by {who} at {casino.clock(when)}" if who else "",
        }
        for alert_id, table, kind, message, raised, who, when in found
    ]
    for table, last_seen in tables:
        if last_seen is None or (now - last_seen).total_seconds() > silent_after:
            seen = casino.clock(last_seen) if last_seen else "never"
            out.append(
                {
                    "id": None,
                    "table": table,
                    "kind": "silent",
                    "message": f"station silent since {seen}",
                    "raised": seen,
                    "ack": "",
                }
            )
    return out


async def snapshot(
    conn: AsyncConn, casino: Casino, silent_after: float, now: datetime
) -> dict[str, Any]:
    """The grid and the alerts for the live page (three queries on ``conn``)."""
    moment = Moment.of(casino, now)
    grid = await (await conn.execute(GRID_SQL, grid_sql_params(moment))).fetchall()
    found = await (await conn.execute(ALERTS_SQL, (ALERTS_SHOWN,))).fetchall()
    tables = await (await conn.execute(SILENT_SQL)).fetchall()
    return {
        "shift": moment.shift.name,
        "day": moment.day.name,
        "tables": grid_rows(grid, casino, silent_after, moment),
        "alerts": alert_rows(found, tables, casino, silent_after, now),
    }


# --- a table's page ------------------------------------------------------------------------

# The statements are named constants (as GRID_SQL): they run on PostgreSQL in
# tests/test_floor_monitor.py; what is done with their rows is tested without it.
DETAIL_SQL: Final = (
    "SELECT status, last_seen, quarantined, limits, anchor_row, sealed_row"
    " FROM floor_table WHERE table_id = %s"
)
STARTED_SQL: Final = (
    "SELECT ts, data FROM journal_row WHERE table_id = %s AND kind = 'station_started'"
    " ORDER BY row_id DESC LIMIT 1"
)
DEVICES_SQL: Final = (
    "SELECT ts, data FROM journal_row WHERE table_id = %s AND kind = 'device'"
    " ORDER BY row_id DESC LIMIT 64"
)
ROUNDS_SQL: Final = (
    "SELECT round, ended, status, win_main + win_match + win_insurance,"
    " handle_main + handle_match + handle_insurance, outcomes FROM round_stat"
    " WHERE table_id = %s ORDER BY round DESC LIMIT %s"
)


async def table_detail(conn: AsyncConn, casino: Casino, table: str) -> dict[str, Any] | None:
    """A table's live line, its start, its devices' serials and firmware; None if unknown."""
    cursor = await conn.execute(DETAIL_SQL, (table,))
    found = await cursor.fetchone()
    if found is None:
        return None
    status, last_seen, quarantined, limits, anchor, sealed = found
    status = status if isinstance(status, dict) else {}
    started = await (await conn.execute(STARTED_SQL, (table,))).fetchone()
    start: dict[str, Any] = {}
    if started is not None:
        data = _json_object(started[1])
        start = {
            "at": _journal_time(casino, started[0]),
            "table_id": _text(data.get("table_id")),
            "version": _text(data.get("version")),
            "profile": _text(data.get("profile")),
            "decks": _text(data.get("decks")),
            "sealed": "yes" if data.get("sealed") is True else "no",
        }
    devices: dict[str, dict[str, str]] = {}
    cursor = await conn.execute(DEVICES_SQL, (table,))
    for ts, text in await cursor.fetchall():
        data = _json_object(text)
        name = _text(data.get("device"))
        if name and name not in devices:
            devices[name] = {
                "device": name,
                "status": _text(data.get("status")),
                "serial": _text(data.get("serial")),
                "firmware": _text(data.get("firmware")),
                "reason": _text(data.get("reason")),
                "at": _journal_time(casino, ts),
            }
    fault = status.get("fault") if isinstance(status.get("fault"), dict) else None
    return {
        "table": table,
        "pit": casino.pit_of(table) or "",
        "state": _text(status.get("state")),
        "round": _text(status.get("round")),
        "fault": f"{fault.get('code')} ({fault.get('state')})" if fault else "",
        "live_devices": {str(k): str(v) for k, v in _mapping(status.get("devices")).items()},
        "seen": casino.format(last_seen) if last_seen else "never",
        "quarantined": quarantined or "",
        "limits": limits_text(limits),
        "anchor": anchor,
        "sealed": sealed,
        "start": start,
        "devices": sorted(devices.values(), key=lambda d: d["device"]),
    }


async def recent_rounds(
    conn: AsyncConn, casino: Casino, table: str, limit: int = 50
) -> list[dict[str, Any]]:
    """The table's last ended rounds, newest first, with their figures."""
    cursor = await conn.execute(ROUNDS_SQL, (table, limit))
    return [
        {
            "round": r,
            "ended": casino.format(ended),
            "status": status,
            "win": cash(win, signed=True),
            "handle": cash(handle),
            "outcomes": ", ".join(o.replace("_", " ") for o in outcomes),
        }
        for r, ended, status, win, handle, outcomes in await cursor.fetchall()
    ]


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    """A station-sent value as plain text for a page (escaped by the template)."""
    return "" if value is None else str(value)


def _journal_time(casino: Casino, ts: str, *, ms: bool = False) -> str:
    moment = journal_moment(ts)
    return casino.format(moment, ms=ms) if moment else ts


def journal_moment(ts: str) -> datetime | None:
    """A journal ``ts`` (``2026-11-30T09:15:12.123456Z``) as a datetime, None if malformed."""
    try:
        moment = datetime.fromisoformat(ts)  # Python 3.11 reads the "Z" itself
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None
