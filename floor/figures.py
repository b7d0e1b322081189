"""The pit view's figures: per table, per pit and for the floor, over a period, computed
in PostgreSQL from the per-quarter-hour sums the database keeps (``table_quarter``,
migration 0010), and the series its charts draw.

For a period (a shift, a gaming day, or a chosen span widened to whole quarter hours):

- handle: what was wagered, in cents: the main wagers with every double and split, Match
  the Dealer, insurance (a voided round's returned wagers are no handle);
- win: the house's result, minus the players' net of every settled wager (main hands,
  super bonus shares, Match the Dealer, insurance); hold: win over handle;
- rounds and hands (a seat's first hand and each split) per hour of the period so far;
- average wager: main handle over hands; seats in play: seats with a wager per round;
- bonuses (hands paid at bonus odds) and super bonuses (NY 5324.12(b)(6), (7)) with what
  they paid; faults (every fault row) and voids.

Pits are the ``[casino.pits]`` of ``floor.toml``; the per-pit and floor lines are the
``GROUPING SETS`` of the same query, so they are sums of the same numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, Final

from floor.casino import QUARTER, Casino, Period
from floor.queries import AsyncConn, cash, hold_text, per_hour

COUNTS: Final = (
    "rounds",
    "voids",
    "seats",
    "hands",
    "unknown_wagers",
    "handle_main",
    "handle_match",
    "handle_insurance",
    "win_main",
    "win_match",
    "win_insurance",
    "bonuses",
    "bonus_cents",
    "super_bonuses",
    "super_bonus_cents",
    "faults",
)
_SUMS: Final = ", ".join(f"sum(q.{c})::bigint AS {c}" for c in COUNTS)
_TOTALS: Final = ", ".join(f"sum(t.{c})::bigint" for c in COUNTS)
# Each table's sums first (one line a table), then the pits and the floor over those: the
# GROUPING SETS sort a line a table, not a line a quarter hour.
FIGURES_SQL: Final = f"""
WITH t AS (
    SELECT q.table_id, {_SUMS} FROM table_quarter q
    WHERE q.quarter >= %(start)s AND q.quarter < %(end)s
        AND (%(only)s::text[] IS NULL OR q.table_id = ANY(%(only)s))
    GROUP BY q.table_id
)
SELECT p.pit, t.table_id, GROUPING(p.pit, t.table_id), {_TOTALS}
FROM t LEFT JOIN unnest(%(tables)s::text[], %(pits)s::text[]) AS p(table_id, pit)
    ON p.table_id = t.table_id
WHERE (%(pit)s::text IS NULL OR p.pit IS NOT DISTINCT FROM %(pit)s)
GROUP BY GROUPING SETS ((p.pit, t.table_id), (p.pit), ())
"""
SERIES_SQL: Final = """
WITH t AS (
    SELECT q.table_id, q.quarter, q.hands, q.win_main + q.win_match + q.win_insurance AS win
    FROM table_quarter q
    WHERE q.quarter >= %(start)s AND q.quarter < %(end)s
        AND (%(only)s::text[] IS NULL OR q.table_id = ANY(%(only)s))
        AND (%(table)s::text IS NULL OR q.table_id = %(table)s)
)
SELECT {key}, t.quarter, sum(t.hands)::bigint, sum(t.win)::bigint
FROM t LEFT JOIN unnest(%(tables)s::text[], %(pits)s::text[]) AS p(table_id, pit)
    ON p.table_id = t.table_id
WHERE (%(pit)s::text IS NULL OR p.pit IS NOT DISTINCT FROM %(pit)s)
GROUP BY 1, 2 ORDER BY 2
"""
NO_PIT: Final = "(no pit)"


@dataclass(frozen=True, slots=True)
class Figures:
    """The sums of one table, pit or floor over a period (cents and counts)."""

    rounds: int = 0
    voids: int = 0
    seats: int = 0
    hands: int = 0
    unknown_wagers: int = 0
    handle_main: int = 0
    handle_match: int = 0
    handle_insurance: int = 0
    win_main: int = 0
    win_match: int = 0
    win_insurance: int = 0
    bonuses: int = 0
    bonus_cents: int = 0
    super_bonuses: int = 0
    super_bonus_cents: int = 0
    faults: int = 0

    @property
    def handle(self) -> int:
        """Everything wagered."""
        return self.handle_main + self.handle_match + self.handle_insurance

    @property
    def win(self) -> int:
        """The house's result."""
        return self.win_main + self.win_match + self.win_insurance

    def shown(self, hours: float) -> dict[str, str]:
        """The figures as the page shows them, ``hours`` being the period so far."""
        return {
            "handle": cash(self.handle),
            "handle_main": cash(self.handle_main),
            "handle_match": cash(self.handle_match),
            "win": cash(self.win),
            "hold": hold_text(self.win, self.handle),
            "rounds": str(self.rounds),
            "rounds_h": f"{per_hour(self.rounds, hours):.1f}",
            "hands_h": f"{per_hour(self.hands, hours):.1f}",
            "average": cash(self.handle_main // self.hands) if self.hands else "\u2013",
            "seats": f"{self.seats / self.rounds:.1f}" if self.rounds else "\u2013",
            "bonuses": f"{self.bonuses} ({cash(self.bonus_cents)})",
            "super_bonuses": f"{self.super_bonuses} ({cash(self.super_bonus_cents)})",
            "faults": str(self.faults),
            "voids": str(self.voids),
            "unknown": str(self.unknown_wagers),
        }


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the pit view: a table, a pit (``table`` empty) or the floor (both)."""

    pit: str
    table: str
    figures: Figures
    shown: dict[str, str]


def _pit_arrays(casino: Casino) -> dict[str, list[str]]:
    tables = [t for ts in casino.pits.values() for t in ts]
    pits = [p for p, ts in casino.pits.items() for _t in ts]
    return {"tables": tables, "pits": pits}


def _only(casino: Casino, pit: str | None) -> list[str] | None:
    """A configured pit's tables (read through the table's index), else None (every table)."""
    if pit is None or pit == NO_PIT:
        return None
    return list(casino.pits.get(pit, ()))


def elapsed_hours(period: Period, now: datetime) -> float:
    """The hours of ``period`` gone by at ``now`` (the whole period once it is over)."""
    end = min(now, period.end)
    return max((end - period.start).total_seconds(), 0.0) / 3600


async def period_figures(
    conn: AsyncConn,
    casino: Casino,
    period: Period,
    now: datetime,
    *,
    pit: str | None = None,
    known_tables: Sequence[str] = (),
) -> list[Line]:
    """Lines for every table (of ``pit``, or all), each pit and the floor: floor first,
    then each pit followed by its tables. Tables without a round in the period (those of
    ``known_tables`` and the configured pits) show zeros."""
    pit_filter = None if pit == NO_PIT else pit
    params: dict[str, Any] = {
        **_pit_arrays(casino),
        "start": period.start,
        "end": period.end,
        "pit": pit_filter,
        "only": _only(casino, pit),
    }
    query = FIGURES_SQL
    if pit == NO_PIT:
        query = query.replace(
            "(%(pit)s::text IS NULL OR p.pit IS NOT DISTINCT FROM %(pit)s)", "p.pit IS NULL"
        )
    cursor = await conn.execute(query, params)
    tables: dict[tuple[str, str], Figures] = {}
    pits: dict[str, Figures] = {}
    floor = Figures()
    for pit_name, table, grouping, *sums in await cursor.fetchall():
        figures = Figures(*(int(v or 0) for v in sums))
        name = pit_name or NO_PIT
        if grouping == 0:
            tables[(name, table)] = figures
        elif grouping == 1:
            pits[name] = figures
        else:
            floor = figures
    for table in {*known_tables, *(t for ts in casino.pits.values() for t in ts)}:
        name = casino.pit_of(table) or NO_PIT
        if pit is None or name == pit:
            tables.setdefault((name, table), Figures())
            pits.setdefault(name, Figures())
    hours = elapsed_hours(period, now)
    lines = [Line("", "", floor, floor.shown(hours))]
    order = [p for p in casino.pits if p in pits] + sorted(p for p in pits if p not in casino.pits)
    by_pit: dict[str, list[tuple[str, Figures]]] = {name: [] for name in order}
    for (owner, table), figures in sorted(tables.items()):
        by_pit.setdefault(owner, []).append((table, figures))
    for name in order:
        lines.append(Line(name, "", pits[name], pits[name].shown(hours)))
        lines += [Line(name, table, f, f.shown(hours)) for table, f in by_pit[name]]
    return lines


async def series(
    conn: AsyncConn,
    casino: Casino,
    period: Period,
    now: datetime,
    *,
    by: str,
    pit: str | None = None,
    table: str | None = None,
) -> dict[str, Any]:
    """The charts' data: one point per quarter hour of ``period`` up to ``now``; for each
    pit (``by="pit"``) or table (``by="table"``): hands per hour in that quarter hour and
    the win so far (cents), as uPlot takes them (``x``: UNIX seconds)."""
    key = "coalesce(p.pit, %(no_pit)s)" if by == "pit" else "t.table_id"
    params: dict[str, Any] = {
        **_pit_arrays(casino),
        "start": period.start,
        "end": period.end,
        "pit": None if pit in (None, NO_PIT) else pit,
        "table": table,
        "no_pit": NO_PIT,
        "only": _only(casino, pit),
    }
    query = SERIES_SQL.format(key=key)
    if pit == NO_PIT:
        query = query.replace(
            "(%(pit)s::text IS NULL OR p.pit IS NOT DISTINCT FROM %(pit)s)", "p.pit IS NULL"
        )
    cursor = await conn.execute(query, params)
    found = await cursor.fetchall()
    last = min(now, period.end)
    quarters: list[datetime] = []
    moment = period.start
    while moment < last or not quarters:
        quarters.append(moment)
        moment += QUARTER
    index = {q: i for i, q in enumerate(quarters)}
    names = sorted({str(r[0]) for r in found})
    hands = {n: [0] * len(quarters) for n in names}
    wins = {n: [0] * len(quarters) for n in names}
    for name, quarter, hand_count, win in found:
        at = index.get(quarter)
        if at is not None:
            hands[str(name)][at] += int(hand_count) * 4  # a quarter hour's hands, per hour
            wins[str(name)][at] += int(win)
    cumulative = {}
    for name in names:
        total, points = 0, []
        for value in wins[name]:
            total += value
            points.append(total)
        cumulative[name] = points
    return {
        "zone": casino.time_zone,
        "x": [int(q.timestamp()) for q in quarters],
        "names": names,
        "hands_per_hour": [hands[n] for n in names],
        "win_cents": [cumulative[n] for n in names],
    }


def figure_names() -> tuple[str, ...]:
    """The fields of :class:`Figures`, in column order (for the page and the tests)."""
    return tuple(f.name for f in fields(Figures))
