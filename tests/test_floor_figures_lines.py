"""The pit view's figures as a supervisor reads them, without a database (beside
``tests/test_floor_figures_rules.py``): each figure's text from the sums (handle, win, hold,
rates per hour, average wager, seats, bonuses), the hours of a period so far, the lines of
the view (the floor, then each pit and its tables, tables without a round at zero) and the
charts' series per quarter hour. The SQL's sums run on a real PostgreSQL in the console's
tests; here a connection hands back the rows the query would (hand-worked examples).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from floor.casino import Casino, Period
from floor.figures import (
    FIGURES_SQL,
    NO_PIT,
    Figures,
    Line,
    _only,
    elapsed_hours,
    figure_names,
    period_figures,
    series,
)

START = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)
SHIFT = Period("day", START, START + timedelta(hours=8))
CASINO = Casino(pits={"A": ("T1", "T2"), "B": ("T3",)})
PIT_CLAUSE = "(%(pit)s::text IS NULL OR p.pit IS NOT DISTINCT FROM %(pit)s)"


class Answers:
    """Stands in for the async connection: hands back ``rows`` and keeps what was asked."""

    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self.rows = rows
        self.asked: list[tuple[str, dict[str, Any]]] = []

    async def execute(self, query: str, params: dict[str, Any]) -> Answers:
        self.asked.append((query, params))
        return self

    async def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows


BUSY = Figures(
    rounds=40, voids=1, seats=100, hands=120, unknown_wagers=2,
    handle_main=600_000, handle_match=50_000, handle_insurance=10_000,
    win_main=30_000, win_match=-5_000, win_insurance=2_500,
    bonuses=3, bonus_cents=4_500, super_bonuses=1, super_bonus_cents=100_000, faults=2,
)  # fmt: skip


def test_a_busy_tables_figures_as_the_page_shows_them() -> None:
    """Two hours in: $6,600 wagered ($6,000 main, $500 Match the Dealer, $100 insurance),
    the house $275 up (4.2% hold), 20 rounds and 60 hands an hour, $50 a hand, 2.5 seats."""
    assert BUSY.handle == 660_000 and BUSY.win == 27_500
    assert BUSY.shown(2.0) == {
        "handle": "$6,600.00",
        "handle_main": "$6,000.00",
        "handle_match": "$500.00",
        "win": "$275.00",
        "hold": "4.2%",
        "rounds": "40",
        "rounds_h": "20.0",
        "hands_h": "60.0",
        "average": "$50.00",
        "seats": "2.5",
        "bonuses": "3 ($45.00)",
        "super_bonuses": "1 ($1,000.00)",
        "faults": "2",
        "voids": "1",
        "unknown": "2",
    }


def test_no_play_shows_dashes_not_a_division_by_zero() -> None:
    shown = Figures().shown(0.0)
    assert (shown["hold"], shown["average"], shown["seats"]) == ("\u2013",) * 3
    assert (shown["rounds_h"], shown["hands_h"], shown["win"]) == ("0.0", "0.0", "$0.00")


def test_one_round_and_one_hand_are_figures_of_their_own() -> None:
    """The average wager is whole cents rounded down; one round, one hand is enough."""
    one = Figures(rounds=1, seats=3, hands=1, handle_main=1_001, win_main=-2_000)
    shown = one.shown(1.0)
    assert (shown["average"], shown["seats"], shown["win"]) == ("$10.01", "3.0", "-$20.00")
    two = Figures(rounds=2, seats=3, hands=2, handle_main=1_001)
    assert (two.shown(1.0)["average"], two.shown(1.0)["seats"]) == ("$5.00", "1.5")


def test_the_hours_of_a_period_so_far() -> None:
    assert elapsed_hours(SHIFT, START + timedelta(hours=2, minutes=30)) == 2.5
    assert elapsed_hours(SHIFT, START - timedelta(hours=1)) == 0.0  # not begun
    assert elapsed_hours(SHIFT, START) == 0.0
    assert elapsed_hours(SHIFT, SHIFT.end) == 8.0
    assert elapsed_hours(SHIFT, SHIFT.end + timedelta(hours=5)) == 8.0  # over: all of it


def test_a_pit_is_read_through_its_tables() -> None:
    assert _only(CASINO, None) is None  # the floor: every table
    assert _only(CASINO, NO_PIT) is None  # the tables of no pit: the query's own clause
    assert _only(CASINO, "A") == ["T1", "T2"]
    assert _only(CASINO, "Z") == []  # a pit not configured holds no table


def _sums(**figures: int) -> tuple[int | None, ...]:
    whole = Figures(**figures)
    return tuple(getattr(whole, name) or None for name in figure_names())  # zero as NULL


def _lines(pit: str | None = None, known: tuple[str, ...] = ()) -> tuple[list[Line], Answers]:
    conn = Answers(
        [
            ("A", "T1", 0, *_sums(rounds=4, hands=6)),
            ("A", None, 1, *_sums(rounds=4, hands=6)),
            (None, "T9", 0, *_sums(rounds=1, hands=2)),
            (None, None, 1, *_sums(rounds=1, hands=2)),
            (None, None, 3, *_sums(rounds=5, hands=8)),
        ]
    )
    now = START + timedelta(hours=1)
    lines = asyncio.run(
        period_figures(conn, CASINO, SHIFT, now, pit=pit, known_tables=known)  # type: ignore[arg-type]
    )
    return lines, conn


def test_the_floor_comes_first_then_each_pit_and_its_tables() -> None:
    """Pits in the configured order, then the tables of no pit; a table without a round in
    the period (configured, or known to the floor) shows zeros."""
    lines, conn = _lines(known=("T8",))
    assert [(line.pit, line.table, line.figures.rounds) for line in lines] == [
        ("", "", 5),
        ("A", "", 4),
        ("A", "T1", 4),
        ("A", "T2", 0),
        ("B", "", 0),
        ("B", "T3", 0),
        (NO_PIT, "", 1),
        (NO_PIT, "T8", 0),
        (NO_PIT, "T9", 1),
    ]
    assert lines[0].shown == Figures(rounds=5, hands=8).shown(1.0)
    assert lines[0].shown["hands_h"] == "8.0"  # an hour into the shift
    assert [line.shown["hands_h"] for line in lines[1:4]] == ["6.0", "6.0", "0.0"]
    ((query, params),) = conn.asked
    assert query == FIGURES_SQL
    assert params == {
        "tables": ["T1", "T2", "T3"],
        "pits": ["A", "A", "B"],
        "start": SHIFT.start,
        "end": SHIFT.end,
        "pit": None,
        "only": None,
    }


def test_one_pits_view_holds_that_pit_alone() -> None:
    lines, conn = _lines(pit="A", known=("T8",))
    assert [(line.pit, line.table) for line in lines if line.pit != NO_PIT] == [
        ("", ""),
        ("A", ""),
        ("A", "T1"),
        ("A", "T2"),
    ]  # B's tables are not set out at zero in A's view
    ((query, params),) = conn.asked
    assert (params["pit"], params["only"]) == ("A", ["T1", "T2"])
    assert PIT_CLAUSE in query


def test_the_view_of_the_tables_in_no_pit() -> None:
    lines, conn = _lines(pit=NO_PIT, known=("T8",))
    assert [(line.pit, line.table) for line in lines][-3:] == [
        (NO_PIT, ""),
        (NO_PIT, "T8"),
        (NO_PIT, "T9"),
    ]
    assert ("A", "T2") not in [(line.pit, line.table) for line in lines]
    ((query, params),) = conn.asked
    assert (params["pit"], params["only"]) == (None, None)
    assert PIT_CLAUSE not in query and "WHERE p.pit IS NULL\n" in query


def test_a_period_without_a_round_shows_the_floor_and_its_tables_at_zero() -> None:
    conn = Answers([])
    lines = asyncio.run(period_figures(conn, CASINO, SHIFT, START))  # type: ignore[arg-type]
    assert [(line.pit, line.table, line.shown["rounds"]) for line in lines] == [
        ("", "", "0"),
        ("A", "", "0"),
        ("A", "T1", "0"),
        ("A", "T2", "0"),
        ("B", "", "0"),
        ("B", "T3", "0"),
    ]


def _series(
    now: datetime, *, by: str = "pit", pit: str | None = None, table: str | None = None
) -> tuple[dict[str, Any], Answers]:
    quarter = timedelta(minutes=15)
    conn = Answers(
        [
            ("A", START, 10, 500),
            ("B", START + quarter, 3, 100),
            ("A", START + 2 * quarter, 5, -200),
            ("A", START + 4 * quarter, 9, 9),  # after now: not drawn
        ]
    )
    drawn = asyncio.run(
        series(conn, CASINO, SHIFT, now, by=by, pit=pit, table=table)  # type: ignore[arg-type]
    )
    return drawn, conn


def test_the_charts_draw_each_quarter_hour_so_far() -> None:
    """40 minutes in: three quarter hours; a quarter hour's hands times four is its rate an
    hour; the win is the running total."""
    drawn, conn = _series(START + timedelta(minutes=40))
    start = int(START.timestamp())
    assert drawn == {
        "zone": "UTC",
        "x": [start, start + 900, start + 1800],
        "names": ["A", "B"],
        "hands_per_hour": [[40, 0, 20], [0, 12, 0]],
        "win_cents": [[500, 500, 300], [0, 100, 100]],
    }
    ((query, params),) = conn.asked
    assert "SELECT coalesce(p.pit, %(no_pit)s), t.quarter" in query and PIT_CLAUSE in query
    assert (params["start"], params["end"]) == (SHIFT.start, SHIFT.end)
    assert (params["pit"], params["table"], params["no_pit"], params["only"]) == (
        None, None, NO_PIT, None,
    )  # fmt: skip


def test_a_chart_before_its_period_has_its_first_quarter_hour() -> None:
    drawn, _ = _series(START - timedelta(hours=1))
    assert drawn["x"] == [int(START.timestamp())]
    assert drawn["hands_per_hour"] == [[40], [0]]


def test_a_chart_at_a_quarter_hours_start_holds_the_quarter_hours_before() -> None:
    drawn, _ = _series(START + timedelta(minutes=30))
    assert len(drawn["x"]) == 2


def test_a_chart_by_table_of_one_pit_and_of_no_pit() -> None:
    _, conn = _series(START + timedelta(hours=1), by="table", pit="A", table="T1")
    ((query, params),) = conn.asked
    assert "SELECT t.table_id, t.quarter" in query and "coalesce" not in query
    assert (params["pit"], params["table"], params["only"]) == ("A", "T1", ["T1", "T2"])
    _, conn = _series(START + timedelta(hours=1), pit=NO_PIT)
    ((query, params),) = conn.asked
    assert params["pit"] is None and PIT_CLAUSE not in query and "WHERE p.pit IS NULL\n" in query
