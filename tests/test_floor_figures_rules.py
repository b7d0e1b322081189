"""The pit view's figures (``floor.figures``) without a server: handle, win, hold, the
per-hour rates, the average wager and seats, the elapsed hours of a period, and how the
lines and the charts' series are put together from the rows the database gives.

The SQL itself runs on a real PostgreSQL in tests/test_floor_figures.py; here a recording
connection hands back rows written by hand as PostgreSQL's ``GROUPING SETS`` gives them
(``GROUPING(p.pit, t.table_id)``: 0 a table, 1 a pit, 3 the floor), so that a mutant costs
a second. Every expected figure is worked by hand.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from floor.casino import Casino, Period
from floor.figures import (
    COUNTS,
    NO_PIT,
    Figures,
    _only,
    _pit_arrays,
    elapsed_hours,
    figure_names,
    period_figures,
    series,
)

DASH = "\u2013"
CASINO = Casino("America/New_York", pits={"P1": ("T1", "T2"), "P2": ("T3",)})
PERIOD = Period("day shift 2026-12-01", datetime(2026, 12, 1, 11, tzinfo=UTC),
                datetime(2026, 12, 1, 19, tzinfo=UTC))  # fmt: skip


def at(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 12, 1, hour, minute, tzinfo=UTC)


# --- one line's figures ----------------------------------------------------------------------

BUSY = Figures(
    rounds=40,
    voids=1,
    seats=100,
    hands=120,
    unknown_wagers=2,
    handle_main=600_000,
    handle_match=50_000,
    handle_insurance=10_000,
    win_main=45_000,
    win_match=12_000,
    win_insurance=-3_000,
    bonuses=3,
    bonus_cents=15_000,
    super_bonuses=1,
    super_bonus_cents=500_000,
    faults=2,
)


def test_handle_and_win_are_the_sums_of_every_wager() -> None:
    assert BUSY.handle == 660_000  # 6000 + 500 + 100 dollars
    assert BUSY.win == 54_000  # 450 + 120 - 30 dollars
    assert Figures(handle_insurance=7).handle == 7 and Figures(win_insurance=-7).win == -7
    assert Figures(handle_match=5).handle == 5 and Figures(win_match=5).win == 5


def test_the_figures_as_the_page_shows_them() -> None:
    assert BUSY.shown(2.5) == {
        "handle": "$6,600.00",
        "handle_main": "$6,000.00",
        "handle_match": "$500.00",
        "win": "$540.00",
        "hold": "8.2%",  # 54000 / 660000 = 8.18 %
        "rounds": "40",
        "rounds_h": "16.0",  # 40 rounds in 2.5 hours
        "hands_h": "48.0",
        "average": "$50.00",  # 600000 cents over 120 hands
        "seats": "2.5",  # 100 seats over 40 rounds
        "bonuses": "3 ($150.00)",
        "super_bonuses": "1 ($5,000.00)",
        "faults": "2",
        "voids": "1",
        "unknown": "2",
    }


def test_nothing_played_shows_dashes_not_a_division_by_zero() -> None:
    shown = Figures().shown(0.0)
    assert (shown["hold"], shown["average"], shown["seats"]) == (DASH, DASH, DASH)
    assert (shown["handle"], shown["win"], shown["rounds_h"], shown["hands_h"]) == (
        "$0.00",
        "$0.00",
        "0.0",
        "0.0",
    )
    assert (shown["bonuses"], shown["super_bonuses"]) == ("0 ($0.00)", "0 ($0.00)")


def test_the_average_wager_is_whole_cents_and_a_loss_is_negative() -> None:
    odd = Figures(rounds=3, seats=4, hands=2, handle_main=1001, win_main=-2500)
    shown = odd.shown(1.0)
    assert shown["average"] == "$5.00"  # 1001 // 2 = 500 cents
    assert shown["seats"] == "1.3"  # 4 / 3
    assert (shown["win"], shown["hold"]) == ("-$25.00", "-249.8%")  # -2500 / 1001
    one = Figures(rounds=1, hands=1, handle_main=1).shown(1.0)
    assert (one["average"], one["seats"], one["hold"]) == ("$0.01", "0.0", "0.0%")


def test_a_rate_over_less_than_a_minute_counts_a_minute() -> None:
    shown = Figures(rounds=1, hands=3).shown(0.0)
    assert (shown["rounds_h"], shown["hands_h"]) == ("60.0", "180.0")


def test_the_names_are_the_columns_in_order() -> None:
    assert figure_names() == COUNTS
    assert Figures(*range(16)) == Figures(**dict(zip(COUNTS, range(16), strict=True)))


# --- a period's elapsed hours ----------------------------------------------------------------


def test_the_hours_gone_by_of_a_period() -> None:
    assert elapsed_hours(PERIOD, at(13, 30)) == 2.5
    assert elapsed_hours(PERIOD, at(11)) == 0.0  # its first instant
    assert elapsed_hours(PERIOD, at(10)) == 0.0  # not begun: none, not negative
    assert elapsed_hours(PERIOD, at(19)) == 8.0  # its end
    assert elapsed_hours(PERIOD, at(23)) == 8.0  # over: the whole period
    assert elapsed_hours(PERIOD, at(18, 59) + timedelta(seconds=24)) == 7.99


# --- pits ------------------------------------------------------------------------------------


def test_the_pits_as_two_parallel_arrays_for_the_query() -> None:
    assert _pit_arrays(CASINO) == {"tables": ["T1", "T2", "T3"], "pits": ["P1", "P1", "P2"]}
    assert _pit_arrays(Casino()) == {"tables": [], "pits": []}
    assert _only(CASINO, None) is None and _only(CASINO, NO_PIT) is None
    assert _only(CASINO, "P1") == ["T1", "T2"] and _only(CASINO, "P9") == []


# --- lines and series from the database's rows -----------------------------------------------


class Recording:
    """A connection that answers every query with the rows given, and keeps what it was asked."""

    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self.rows = rows
        self.asked: list[tuple[str, dict[str, Any]]] = []

    async def execute(self, query: str, params: dict[str, Any]) -> Recording:
        self.asked.append((query, params))
        return self

    async def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows


def sums(rounds: int, handle: int, win: int) -> tuple[Any, ...]:
    """A row's sixteen sums: ``rounds``, a main handle and win; PostgreSQL's NULL for faults."""
    values: list[Any] = [0] * 16
    values[0], values[5], values[8], values[15] = rounds, handle, win, None
    return tuple(values)


ROWS = [
    ("P1", "T1", 0, *sums(10, 10_000, 1_000)),
    ("P1", None, 1, *sums(10, 10_000, 1_000)),
    (None, "T9", 0, *sums(4, 2_000, -500)),
    (None, None, 1, *sums(4, 2_000, -500)),
    (None, None, 3, *sums(14, 12_000, 500)),
]


def lines_of(rows: list[tuple[Any, ...]], **kwargs: Any) -> tuple[list[Any], Recording]:
    conn = Recording(rows)
    found = asyncio.run(period_figures(conn, CASINO, PERIOD, at(13, 30), **kwargs))  # type: ignore[arg-type]
    return found, conn


def test_the_floor_then_each_pit_then_its_tables() -> None:
    found, conn = lines_of(ROWS, known_tables=["T8", "T1"])
    assert [(line.pit, line.table) for line in found] == [
        ("", ""),
        ("P1", ""),
        ("P1", "T1"),
        ("P1", "T2"),  # configured, no round: zeros
        ("P2", ""),
        ("P2", "T3"),
        (NO_PIT, ""),
        (NO_PIT, "T8"),  # known, no round: zeros
        (NO_PIT, "T9"),
    ]
    floor, p1, t1, t2, p2, t3, no_pit, t8, t9 = found
    assert (floor.figures.rounds, floor.figures.win, floor.figures.faults) == (14, 500, 0)
    assert floor.shown["rounds_h"] == "5.6"  # 14 rounds in the 2.5 hours so far
    assert floor.shown["hold"] == "4.2%"  # 500 / 12000
    assert p1.figures == t1.figures == Figures(rounds=10, handle_main=10_000, win_main=1_000)
    assert t2.figures == p2.figures == t3.figures == t8.figures == Figures()
    assert no_pit.figures == t9.figures == Figures(rounds=4, handle_main=2_000, win_main=-500)
    assert t9.shown["win"] == "-$5.00" and t2.shown["hold"] == DASH
    assert (p1.shown["win"], p1.shown["rounds_h"], p1.shown["hold"]) == ("$10.00", "4.0", "10.0%")
    assert (no_pit.shown["win"], p2.shown["handle"]) == ("-$5.00", "$0.00")
    (query, params) = conn.asked[0]
    assert "(%(pit)s::text IS NULL OR p.pit IS NOT DISTINCT FROM %(pit)s)" in query
    assert params == {
        "tables": ["T1", "T2", "T3"],
        "pits": ["P1", "P1", "P2"],
        "start": PERIOD.start,
        "end": PERIOD.end,
        "pit": None,
        "only": None,
    }


def test_no_rows_is_a_floor_of_zeros_with_the_configured_pits() -> None:
    found, _conn = lines_of([])
    assert [(line.pit, line.table) for line in found] == [
        ("", ""),
        ("P1", ""),
        ("P1", "T1"),
        ("P1", "T2"),
        ("P2", ""),
        ("P2", "T3"),
    ]
    assert all(line.figures == Figures() for line in found)
    bare = asyncio.run(period_figures(Recording([]), Casino(), PERIOD, at(12)))  # type: ignore[arg-type]
    assert [(line.pit, line.table, line.figures) for line in bare] == [("", "", Figures())]


def test_one_pit_asks_for_its_tables_and_shows_only_them() -> None:
    rows = [ROWS[0], ROWS[1], ("P1", None, 3, *sums(10, 10_000, 1_000))]
    found, conn = lines_of(rows, pit="P1", known_tables=["T8"])
    assert [(line.pit, line.table) for line in found] == [
        ("", ""),
        ("P1", ""),
        ("P1", "T1"),
        ("P1", "T2"),
    ]
    query, params = conn.asked[0]
    assert (params["pit"], params["only"]) == ("P1", ["T1", "T2"])
    assert "p.pit IS NOT DISTINCT FROM %(pit)s" in query


def test_the_tables_in_no_pit() -> None:
    rows = [ROWS[2], ROWS[3], (None, None, 3, *sums(4, 2_000, -500))]
    found, conn = lines_of(rows, pit=NO_PIT, known_tables=["T8", "T1"])
    assert [(line.pit, line.table) for line in found] == [
        ("", ""),
        (NO_PIT, ""),
        (NO_PIT, "T8"),
        (NO_PIT, "T9"),
    ]
    query, params = conn.asked[0]
    assert (params["pit"], params["only"]) == (None, None)
    assert "WHERE p.pit IS NULL\n" in query and "IS NOT DISTINCT FROM" not in query


def series_of(
    rows: list[tuple[Any, ...]], now: datetime, **kwargs: Any
) -> tuple[dict[str, Any], Recording]:
    conn = Recording(rows)
    period = Period("p", at(10), at(12))
    found = asyncio.run(series(conn, CASINO, period, now, **kwargs))  # type: ignore[arg-type]
    return found, conn


def test_a_series_per_quarter_hour_so_far() -> None:
    rows = [
        ("P1", at(10), 5, 100),
        ("T9", at(10, 15), 1, 10),
        ("P1", at(10, 30), 2, -50),
        ("P1", at(11), 9, 9),  # a quarter hour not yet shown: left out
    ]
    found, conn = series_of(rows, at(10, 40), by="pit")
    assert found == {
        "zone": "America/New_York",
        "x": [int(at(10).timestamp()), int(at(10, 15).timestamp()), int(at(10, 30).timestamp())],
        "names": ["P1", "T9"],
        "hands_per_hour": [[20, 0, 8], [0, 4, 0]],  # a quarter hour's hands times four
        "win_cents": [[100, 100, 50], [0, 10, 10]],  # the win so far
    }
    assert int(at(10).timestamp()) == 1796119200  # 2026-12-01 10:00 UTC in UNIX seconds
    query, params = conn.asked[0]
    assert (
        query.startswith("\nWITH t AS") and "SELECT coalesce(p.pit, %(no_pit)s), t.quarter" in query
    )
    assert params == {
        "tables": ["T1", "T2", "T3"],
        "pits": ["P1", "P1", "P2"],
        "start": at(10),
        "end": at(12),
        "pit": None,
        "table": None,
        "no_pit": NO_PIT,
        "only": None,
    }


def test_a_series_covers_at_least_one_quarter_and_at_most_the_period() -> None:
    before, _conn = series_of([], at(9), by="pit")
    assert before["x"] == [int(at(10).timestamp())] and before["names"] == []
    on_a_quarter, _conn = series_of([], at(10, 30), by="pit")
    assert len(on_a_quarter["x"]) == 2  # 10:00 and 10:15; 10:30 has not begun
    after, _conn = series_of([("T1", at(11, 45), 1, 1)], at(23), by="table")
    assert len(after["x"]) == 8 and after["x"][-1] == int(at(11, 45).timestamp())
    assert after["hands_per_hour"] == [[0] * 7 + [4]] and after["win_cents"] == [[0] * 7 + [1]]


def test_a_series_by_table_of_one_pit_or_no_pit() -> None:
    _found, conn = series_of([], at(11), by="table", pit="P1", table="T1")
    query, params = conn.asked[0]
    assert "SELECT t.table_id, t.quarter" in query
    assert (params["pit"], params["only"], params["table"]) == ("P1", ["T1", "T2"], "T1")
    assert "IS NOT DISTINCT FROM" in query
    _found, conn = series_of([], at(11), by="table", pit=NO_PIT)
    query, params = conn.asked[0]
    assert (params["pit"], params["only"]) == (None, None)
    assert "WHERE p.pit IS NULL\n" in query and "IS NOT DISTINCT FROM" not in query


def test_a_series_adds_rows_of_one_name_and_quarter() -> None:
    rows = [("P1", at(10), 1, 5), ("P1", at(10), 2, 7)]
    found, _conn = series_of(rows, at(10, 10), by="pit")
    assert found["hands_per_hour"] == [[12]] and found["win_cents"] == [[12]]
