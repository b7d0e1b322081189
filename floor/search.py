"""Searching rounds across tables and time, for surveillance, and the CSV export.

A search reads ``round_stat`` (one line per ended round, kept by the database from the
journal rows, migration 0010) within a period, by any of: table, pit, a player's win or
loss of at least an amount (a seat's net for the round), an outcome (blackjack, bonus,
super bonus, surrender, rescue, split, double, insurance, void), a fault in the round,
and a card sequence as the cards left the shoe (``7S 7S 7S``; a rank alone, ``7 7 7``,
takes any suit). Results link to the round's recall.

The export names, for each round, its first and last journal rows, the last row's hash,
and the seal row that follows it with its hash: with the table's verification key anyone
can check an export against the sealed record (``dealer-station journal verify``).

:func:`parse_criteria` turns the query string into :class:`Criteria` or raises
:class:`SearchError` with a one-line reason: the input is a person's, or anyone's.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from floor.casino import Casino, Period
from floor.queries import AsyncConn, cash

OUTCOMES: Final = (
    "blackjack",
    "bonus",
    "super_bonus",
    "surrender",
    "rescue",
    "split",
    "double",
    "insurance",
    "void",
)
CARD_TOKEN: Final = re.compile(r"(A|[2-9]|J|Q|K)([SHDC]?)")
TABLE_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
SHOWN: Final = 500
EXPORTED: Final = 50_000
MAX_DAYS: Final = 92


class SearchError(ValueError):
    """A search the console cannot run; ``str()`` is one line saying why."""


@dataclass(frozen=True, slots=True)
class Criteria:
    """What to look for (module docstring); ``period`` is always set."""

    period: Period
    table: str | None = None
    pit: str | None = None
    won_cents: int | None = None  # a seat won at least this much
    lost_cents: int | None = None  # a seat lost at least this much
    outcome: str | None = None
    fault: bool = False
    cards: str | None = None  # the sequence as typed, normalised

    def query_string(self) -> dict[str, str]:
        """The criteria as the form sends them (for the export link)."""
        out = {
            "from": self.period.start.strftime("%Y-%m-%dT%H:%M"),
            "to": self.period.end.strftime("%Y-%m-%dT%H:%M"),
            "zone": "utc",
        }
        for name, value in (
            ("table", self.table),
            ("pit", self.pit),
            ("won", None if self.won_cents is None else _dollars(self.won_cents)),
            ("lost", None if self.lost_cents is None else _dollars(self.lost_cents)),
            ("outcome", self.outcome),
            ("cards", self.cards),
        ):
            if value:
                out[name] = value
        if self.fault:
            out["fault"] = "yes"
        return out


def _dollars(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def _amount(text: str, name: str) -> int | None:
    text = text.strip().lstrip("$").replace(",", "")
    if not text:
        return None
    match = re.fullmatch(r"(\d{1,11})(?:\.(\d{1,2}))?", text)
    if match is None:
        raise SearchError(f"{name}: {text[:20]!r} is not an amount in dollars (e.g. 500 or 12.50)")
    # At most 11 digits of dollars: the largest amount is $99,999,999,999.99.
    return int(match[1]) * 100 + int((match[2] or "0").ljust(2, "0"))


def card_pattern(text: str) -> tuple[str, str] | None:
    """``(normalised, regex)`` of a card sequence such as ``7S 7S 7s`` or ``7 7 7``.

    Raises:
        SearchError: a token that is no Spanish card or rank (a 10 is none), or more than 12.
    """
    tokens = text.upper().replace(",", " ").split()
    if not tokens:
        return None
    if len(tokens) > 12:
        raise SearchError("cards: at most 12 cards in a sequence")
    parts = []
    for token in tokens:
        match = CARD_TOKEN.fullmatch(token)
        if match is None:
            raise SearchError(
                f"cards: {token[:8]!r} is not a card of a Spanish deck (A 2-9 J Q K, S H D C)"
            )
        parts.append(match[1] + (match[2] or "[SHDC]"))
    return " ".join(tokens), "(^| )" + " ".join(parts) + "( |$)"


def parse_local(text: str, casino: Casino, name: str) -> datetime:
    """A ``YYYY-MM-DDTHH:MM`` of the casino's wall clock as an aware datetime."""
    try:
        moment = datetime.strptime(text.strip()[:16], "%Y-%m-%dT%H:%M")
    except ValueError:
        raise SearchError(
            f"{name}: {text[:20]!r} is not a date and time (YYYY-MM-DDTHH:MM)"
        ) from None
    return moment.replace(tzinfo=casino.zone)


def parse_period(form: Mapping[str, str], casino: Casino, now: datetime, default: Period) -> Period:
    """The period of a form: ``from`` and ``to`` on the casino's clock (``zone=utc``: UTC),
    widened to whole quarter hours; ``default`` when neither is given.

    Raises:
        SearchError: a bad date, an end before the start, or more than 92 days.
    """
    start_text, end_text = form.get("from", "").strip(), form.get("to", "").strip()
    if not start_text and not end_text:
        return default
    utc = form.get("zone") == "utc"
    zoned = Casino("UTC") if utc else casino
    start = parse_local(start_text, zoned, "from") if start_text else default.start
    end = parse_local(end_text, zoned, "to") if end_text else now
    if end <= start:
        raise SearchError("to: the end comes before the start")
    if end - start > timedelta(days=MAX_DAYS):
        raise SearchError(f"from/to: at most {MAX_DAYS} days at once")
    return casino.period(start, end)


def parse_criteria(
    form: Mapping[str, str], casino: Casino, now: datetime, default: Period
) -> Criteria:
    """The search a form asks for (module docstring).

    Raises:
        SearchError: one line naming the field that is wrong.
    """
    period = parse_period(form, casino, now, default)
    table = form.get("table", "").strip() or None
    if table is not None and not TABLE_NAME.fullmatch(table):
        raise SearchError("table: not a table name")
    pit = form.get("pit", "").strip() or None
    if pit is not None and pit not in casino.pits:
        raise SearchError("pit: no such pit")
    outcome = form.get("outcome", "").strip() or None
    if outcome is not None and outcome not in OUTCOMES:
        raise SearchError(f"outcome: one of {', '.join(OUTCOMES)}")
    cards = card_pattern(form.get("cards", ""))
    return Criteria(
        period,
        table,
        pit,
        _amount(form.get("won", ""), "won"),
        _amount(form.get("lost", ""), "lost"),
        outcome,
        form.get("fault", "") in ("yes", "on", "1"),
        cards[0] if cards else None,
    )


def _where(criteria: Criteria, casino: Casino) -> tuple[str, dict[str, Any]]:
    clauses = ["s.ended >= %(start)s", "s.ended < %(end)s"]
    params: dict[str, Any] = {"start": criteria.period.start, "end": criteria.period.end}
    if criteria.table:
        clauses.append("s.table_id = %(table)s")
        params["table"] = criteria.table
    if criteria.pit:
        clauses.append("s.table_id = ANY(%(pit_tables)s)")
        params["pit_tables"] = list(casino.pits.get(criteria.pit, ()))
    if criteria.won_cents is not None:
        clauses.append("s.best_seat_cents >= %(won)s")
        params["won"] = criteria.won_cents
    if criteria.lost_cents is not None:
        clauses.append("s.worst_seat_cents <= -%(lost)s")
        params["lost"] = criteria.lost_cents
    if criteria.outcome:
        clauses.append("%(outcome)s = ANY(s.outcomes)")
        params["outcome"] = criteria.outcome
    if criteria.fault:
        clauses.append("s.faults > 0")
    if criteria.cards:
        pattern = card_pattern(criteria.cards)
        assert pattern is not None
        clauses.append("s.cards ~ %(cards)s")
        params["cards"] = pattern[1]
    return " AND ".join(clauses), params


RESULT_COLUMNS: Final = (
    "s.table_id, s.round, s.status, s.started, s.ended, s.handle_main + s.handle_match"
    " + s.handle_insurance, s.win_main + s.win_match + s.win_insurance, s.best_seat_cents,"
    " s.worst_seat_cents, s.outcomes, s.cards, s.first_row, s.end_row"
)


async def search(conn: AsyncConn, casino: Casino, criteria: Criteria) -> list[dict[str, Any]]:
    """The rounds found, newest first (at most :data:`SHOWN`)."""
    where, params = _where(criteria, casino)
    cursor = await conn.execute(
        f"SELECT {RESULT_COLUMNS} FROM round_stat s WHERE {where}"
        " ORDER BY s.ended DESC, s.table_id LIMIT %(limit)s",
        {**params, "limit": SHOWN},
    )
    return [_shown(casino, row) for row in await cursor.fetchall()]


def _shown(casino: Casino, row: tuple[Any, ...]) -> dict[str, Any]:
    table, round_no, status, _started, ended, handle, win, best, worst, outcomes, cards = row[:11]
    return {
        "table": table,
        "round": round_no,
        "status": status,
        "ended": casino.format(ended),
        "handle": cash(handle),
        "win": cash(win, signed=True),
        "best": cash(best, signed=True) if best is not None else "",
        "worst": cash(worst, signed=True) if worst is not None else "",
        "outcomes": ", ".join(o.replace("_", " ") for o in outcomes),
        "cards": cards,
        "first_row": row[11],
        "end_row": row[12],
    }


EXPORT_SQL: Final = """
SELECT {columns}, e.hash, seal.row_id, seal.hash
FROM round_stat s
JOIN journal_row e ON e.table_id = s.table_id AND e.row_id = s.end_row
LEFT JOIN LATERAL (
    SELECT j.row_id, j.hash FROM journal_row j
    WHERE j.table_id = s.table_id AND j.kind = 'seal' AND j.row_id > s.end_row
    ORDER BY j.row_id LIMIT 1
) seal ON true
WHERE {where}
ORDER BY s.ended, s.table_id LIMIT %(limit)s
"""
EXPORT_HEADER: Final = (
    "table",
    "round",
    "status",
    "started",
    "ended",
    "handle_cents",
    "house_win_cents",
    "best_seat_cents",
    "worst_seat_cents",
    "outcomes",
    "cards",
    "first_row",
    "end_row",
    "end_row_hash",
    "seal_row",
    "seal_row_hash",
)


async def export_csv(conn: AsyncConn, casino: Casino, criteria: Criteria) -> str:
    """The rounds found as CSV (oldest first, at most :data:`EXPORTED`), with the journal's
    row ids and hashes; times to the millisecond on the casino's clock. A cell that could
    start a spreadsheet formula (``=``, ``+``, ``-``, ``@``) is prefixed with ``'``."""
    where, params = _where(criteria, casino)
    cursor = await conn.execute(
        EXPORT_SQL.format(columns=RESULT_COLUMNS, where=where), {**params, "limit": EXPORTED}
    )
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(EXPORT_HEADER)
    for row in await cursor.fetchall():
        (table, round_no, status, started, ended, handle, win, best, worst, outcomes, cards,
         first, end, end_hash, seal_row, seal_hash) = row  # fmt: skip
        writer.writerow(
            [
                _cell(table),
                round_no,
                status,
                casino.format(started, ms=True) if started else "",
                casino.format(ended, ms=True),
                handle,
                win,
                best,  # None (no seat) is an empty cell, as csv writes None
                worst,
                " ".join(outcomes),
                _cell(cards),
                first,
                end,
                end_hash,
                seal_row,  # None: no seal after the round yet
                seal_hash,
            ]
        )
    return out.getvalue()


def _cell(text: str) -> str:
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text
