"""Surveillance's search (``floor.search``) without a server: a form read into criteria or
refused in one line naming the field, the criteria as the export link sends them again,
the SQL's conditions and what each carries, and the lines and CSV made from the rows
PostgreSQL gives (written here by hand; the queries run on PostgreSQL in
tests/test_floor_console.py). Every expected value is worked by hand.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from floor.casino import Casino, Period
from floor.search import (
    EXPORTED,
    RESULT_COLUMNS,
    SHOWN,
    Criteria,
    SearchError,
    card_pattern,
    export_csv,
    parse_criteria,
    parse_local,
    parse_period,
    search,
)

NEW_YORK = Casino("America/New_York", pits={"Pit 1": ("T1", "T2"), "Pit 2": ("T3",)})
UTC_CASINO = Casino()
NOW = datetime(2026, 12, 2, 15, 0, tzinfo=UTC)  # 10:00 EST
DAY = NEW_YORK.gaming_day(NOW)  # 2026-12-02 06:00 EST = 11:00 UTC, to the next day's


def utc(day: int, hour: int, minute: int = 0, month: int = 12) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=UTC)


def criteria(**form: str) -> Criteria:
    return parse_criteria(form, NEW_YORK, NOW, DAY)


def refusal(**form: str) -> str:
    with pytest.raises(SearchError) as refused:
        criteria(**form)
    return str(refused.value)


# --- cards -----------------------------------------------------------------------------------


def test_a_card_sequence_is_upper_case_and_a_rank_alone_takes_any_suit() -> None:
    assert card_pattern("7s 7S,7") == ("7S 7S 7", "(^| )7S 7S 7[SHDC]( |$)")
    assert card_pattern("a k q j 2 9") == (
        "A K Q J 2 9",
        "(^| )A[SHDC] K[SHDC] Q[SHDC] J[SHDC] 2[SHDC] 9[SHDC]( |$)",
    )
    assert card_pattern("2h 9d jc") == ("2H 9D JC", "(^| )2H 9D JC( |$)")
    assert card_pattern("") is None
    assert card_pattern(" , ,") is None


def test_a_sequence_holds_at_most_twelve_cards() -> None:
    twelve = " ".join(["7"] * 12)
    assert card_pattern(twelve) is not None
    with pytest.raises(SearchError, match=r"^cards: at most 12 cards in a sequence$"):
        card_pattern(twelve + " 7")


@pytest.mark.parametrize("token", ["10", "10S", "1", "T", "7X", "7SS", "S7", "AA"])
def test_no_ten_and_nothing_but_a_spanish_card_or_rank(token: str) -> None:
    with pytest.raises(SearchError) as refused:
        card_pattern("7S " + token)
    assert str(refused.value) == (
        f"cards: {token!r} is not a card of a Spanish deck (A 2-9 J Q K, S H D C)"
    )


def test_a_long_bad_token_is_quoted_to_eight_characters() -> None:
    with pytest.raises(SearchError) as refused:
        card_pattern("abcdefghijkl")
    assert str(refused.value).startswith("cards: 'ABCDEFGH' is not a card")


# --- dates and the period --------------------------------------------------------------------


def test_a_date_is_read_on_the_casinos_clock_to_the_minute() -> None:
    assert parse_local("2026-12-02T10:07", NEW_YORK, "from") == utc(2, 15, 7)
    assert parse_local(" 2026-07-02T10:07:59 ", NEW_YORK, "to") == utc(2, 14, 7, month=7)
    with pytest.raises(SearchError) as refused:
        parse_local("yesterday at noon, roughly", NEW_YORK, "to")
    assert str(refused.value) == (
        "to: 'yesterday at noon, r' is not a date and time (YYYY-MM-DDTHH:MM)"
    )


def test_a_bad_start_or_end_is_named_in_its_refusal() -> None:
    assert refusal(**{"from": "soon"}) == "from: 'soon' is not a date and time (YYYY-MM-DDTHH:MM)"
    assert refusal(to="later") == "to: 'later' is not a date and time (YYYY-MM-DDTHH:MM)"


def test_a_form_with_a_start_alone_searches_until_now() -> None:
    found = criteria(**{"from": "2026-12-02T08:00"})
    assert (found.period.start, found.period.end) == (utc(2, 13), NOW)


def test_no_dates_is_the_default_period() -> None:
    default = Period("the default", utc(1, 0), utc(2, 0))
    assert parse_period({}, NEW_YORK, NOW, default) is default
    assert parse_period({"from": " ", "to": ""}, NEW_YORK, NOW, default) is default


def test_a_start_alone_ends_now_and_an_end_alone_starts_at_the_default() -> None:
    default = Period("the default", utc(2, 11), utc(3, 11))
    started = parse_period({"from": "2026-12-02T08:00"}, NEW_YORK, NOW, default)
    assert (started.start, started.end) == (utc(2, 13), NOW)
    ended = parse_period({"to": "2026-12-02T09:00"}, NEW_YORK, NOW, default)
    assert (ended.start, ended.end) == (utc(2, 11), utc(2, 14))


def test_zone_utc_reads_the_dates_in_utc_and_the_period_is_widened_to_quarter_hours() -> None:
    form = {"from": "2026-12-02T08:07", "to": "2026-12-02T09:01", "zone": "utc"}
    period = parse_period(form, NEW_YORK, NOW, DAY)
    assert (period.start, period.end) == (utc(2, 8), utc(2, 9, 15))
    assert period.name == "2026-12-02 03:00 EST to 2026-12-02 04:15 EST"
    local = parse_period({**form, "zone": "casino"}, NEW_YORK, NOW, DAY)
    assert (local.start, local.end) == (utc(2, 13), utc(2, 14, 15))


def test_the_end_must_come_after_the_start() -> None:
    for end in ("2026-12-02T08:00", "2026-12-02T07:59"):
        with pytest.raises(SearchError, match=r"^to: the end comes before the start$"):
            parse_period({"from": "2026-12-02T08:00", "to": end}, NEW_YORK, NOW, DAY)
    one = parse_period({"from": "2026-12-02T08:00", "to": "2026-12-02T08:01"}, UTC_CASINO, NOW, DAY)
    assert (one.start, one.end) == (utc(2, 8), utc(2, 8, 15))


def test_at_most_ninety_two_days_at_once() -> None:
    start = datetime(2026, 9, 1, 0, 0)
    for days, refused in ((92, False), (93, True)):
        end = start + timedelta(days=days)
        form = {"from": start.strftime("%Y-%m-%dT%H:%M"), "to": end.strftime("%Y-%m-%dT%H:%M")}
        if refused:
            with pytest.raises(SearchError, match=r"^from/to: at most 92 days at once$"):
                parse_period(form, UTC_CASINO, NOW, DAY)
        else:
            assert parse_period(form, UTC_CASINO, NOW, DAY).hours == 92 * 24
    over = {"from": "2026-09-01T00:00", "to": "2026-12-02T00:01"}
    with pytest.raises(SearchError, match="92 days"):
        parse_period(over, UTC_CASINO, NOW, DAY)


# --- criteria --------------------------------------------------------------------------------


def test_an_empty_form_is_the_whole_default_period_and_nothing_else() -> None:
    assert criteria() == Criteria(DAY)


def test_each_criterion_read_from_the_form() -> None:
    found = criteria(
        table=" T1 ", pit="Pit 2", won="$1,250.5", lost=" 12 ", outcome="super_bonus",
        fault="on", cards="7s 7 7",
    )  # fmt: skip
    assert found == Criteria(DAY, "T1", "Pit 2", 125050, 1200, "super_bonus", True, "7S 7 7")


@pytest.mark.parametrize(
    ("text", "cents"),
    [("500", 50000), ("12.50", 1250), ("12.5", 1250), ("0.05", 5), ("$7", 700),
     ("1,000,000", 100000000), ("99999999999.99", 9999999999999), ("0", 0)],
)  # fmt: skip
def test_an_amount_is_dollars_and_cents(text: str, cents: int) -> None:
    assert criteria(won=text).won_cents == cents
    assert criteria(lost=text).lost_cents == cents


@pytest.mark.parametrize("text", ["12.345", "-5", "5 dollars", "1e3", ".5", "100000000000"])
def test_anything_else_is_no_amount(text: str) -> None:
    assert refusal(won=text) == (f"won: {text!r} is not an amount in dollars (e.g. 500 or 12.50)")
    assert refusal(lost="$" + text).startswith(f"lost: {text!r} is not an amount")


def test_leading_dollar_signs_are_left_out_of_an_amount_and_nothing_else() -> None:
    assert criteria(won=" $$5 ").won_cents == 500
    for text in ("X5", "5$", "US5"):
        assert refusal(won=text) == (
            f"won: {text!r} is not an amount in dollars (e.g. 500 or 12.50)"
        )


def test_a_long_amount_is_quoted_to_twenty_characters() -> None:
    assert refusal(won="x" * 30) == (
        f"won: {'x' * 20!r} is not an amount in dollars (e.g. 500 or 12.50)"
    )


@pytest.mark.parametrize("fault", ["yes", "on", "1"])
def test_a_fault_is_asked_for_by_yes_on_or_1(fault: str) -> None:
    assert criteria(fault=fault).fault is True


@pytest.mark.parametrize("fault", ["", "no", "true", "YES", "0"])
def test_anything_else_asks_for_no_fault(fault: str) -> None:
    assert criteria(fault=fault).fault is False


def test_a_table_is_a_table_name_of_one_to_thirty_two_characters() -> None:
    assert criteria(table="T" + "x" * 31).table == "T" + "x" * 31
    assert criteria(table="  ").table is None
    for bad in ("T" + "x" * 32, "-T1", "T 1", "T1;"):
        assert refusal(table=bad) == "table: not a table name", bad


def test_a_pit_must_be_one_of_the_casinos() -> None:
    assert criteria(pit=" Pit 1 ").pit == "Pit 1"
    assert criteria(pit="").pit is None
    assert refusal(pit="Pit 3") == "pit: no such pit"


def test_an_outcome_must_be_one_of_the_nine() -> None:
    for outcome in ("blackjack", "bonus", "super_bonus", "surrender", "rescue", "split",
                    "double", "insurance", "void"):  # fmt: skip
        assert criteria(outcome=outcome).outcome == outcome
    assert criteria(outcome=" ").outcome is None
    assert refusal(outcome="push") == (
        "outcome: one of blackjack, bonus, super_bonus, surrender, rescue, split, double,"
        " insurance, void"
    )


def test_a_bad_field_is_refused_whatever_comes_after_it() -> None:
    assert refusal(cards="10", won="5").startswith("cards:")
    assert refusal(won="x", lost="5").startswith("won:")
    assert refusal(lost="x", won="5").startswith("lost:")


# --- the export link -------------------------------------------------------------------------


def test_the_criteria_as_the_export_link_sends_them() -> None:
    found = criteria(
        **{"from": "2026-12-02T08:07", "to": "2026-12-02T09:00"},
        table="T1", pit="Pit 1", won="5.05", lost="1000", outcome="void", fault="yes",
        cards="a 7s",
    )  # fmt: skip
    assert found.query_string() == {
        "from": "2026-12-02T13:00",
        "to": "2026-12-02T14:00",
        "zone": "utc",
        "table": "T1",
        "pit": "Pit 1",
        "won": "5.05",
        "lost": "1000.00",
        "outcome": "void",
        "cards": "A 7S",
        "fault": "yes",
    }
    # Read back, the link asks for the same search.
    assert parse_criteria(found.query_string(), NEW_YORK, NOW, DAY) == found


def test_the_link_leaves_out_what_was_not_asked() -> None:
    assert criteria().query_string() == {
        "from": "2026-12-02T11:00", "to": "2026-12-03T11:00", "zone": "utc",
    }  # fmt: skip
    assert criteria(won="0").query_string()["won"] == "0.00"


# --- the reads, from rows written by hand ----------------------------------------------------


class Scripted:
    """A connection answering one query with the rows given; it keeps what it was asked."""

    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self.rows = rows
        self.asked: list[tuple[str, dict[str, Any]]] = []

    async def execute(self, query: str, params: dict[str, Any]) -> Scripted:
        self.asked.append((query, params))
        return self

    async def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows


def scripted(rows: list[tuple[Any, ...]]) -> Any:
    """A :class:`Scripted` where the code asks for a psycopg connection."""
    return Scripted(rows)


def test_a_search_asks_for_each_criterion_newest_first_at_most_five_hundred() -> None:
    conn = scripted([])
    asked = criteria(
        table="T1", pit="Pit 1", won="5", lost="7.50", outcome="split", fault="1", cards="7 7s",
    )  # fmt: skip
    assert asyncio.run(search(conn, NEW_YORK, asked)) == []
    ((query, params),) = conn.asked
    assert query == (
        f"SELECT {RESULT_COLUMNS} FROM round_stat s WHERE s.ended >= %(start)s"
        " AND s.ended < %(end)s AND s.table_id = %(table)s"
        " AND s.table_id = ANY(%(pit_tables)s) AND s.best_seat_cents >= %(won)s"
        " AND s.worst_seat_cents <= -%(lost)s AND %(outcome)s = ANY(s.outcomes)"
        " AND s.faults > 0 AND s.cards ~ %(cards)s"
        " ORDER BY s.ended DESC, s.table_id LIMIT %(limit)s"
    )
    assert params == {
        "start": DAY.start, "end": DAY.end, "table": "T1", "pit_tables": ["T1", "T2"],
        "won": 500, "lost": 750, "outcome": "split", "cards": "(^| )7[SHDC] 7S( |$)",
        "limit": 500,
    }  # fmt: skip
    assert SHOWN == 500


def test_a_search_with_no_criterion_asks_for_the_period_alone() -> None:
    conn = scripted([])
    asyncio.run(search(conn, NEW_YORK, criteria()))
    ((query, params),) = conn.asked
    assert " WHERE s.ended >= %(start)s AND s.ended < %(end)s ORDER BY" in query
    assert params == {"start": DAY.start, "end": DAY.end, "limit": 500}


def test_an_amount_of_zero_is_still_a_criterion() -> None:
    conn = scripted([])
    asyncio.run(search(conn, NEW_YORK, criteria(won="0", lost="0")))
    ((query, params),) = conn.asked
    assert "s.best_seat_cents >= %(won)s" in query and params["won"] == 0
    assert "s.worst_seat_cents <= -%(lost)s" in query and params["lost"] == 0


ENDED = datetime(2026, 12, 2, 15, 4, 5, 852000, tzinfo=UTC)
STARTED = datetime(2026, 12, 2, 15, 3, 1, 7000, tzinfo=UTC)


def test_a_found_round_in_words() -> None:
    row: tuple[Any, ...] = ("T1", 42, "completed", STARTED, ENDED, 2500, -1000, 1500, -500,
           ["super_bonus", "split"], "7S 7S 7S", 100, 130)  # fmt: skip
    found = asyncio.run(search(scripted([row]), NEW_YORK, criteria()))
    assert found == [
        {
            "table": "T1",
            "round": 42,
            "status": "completed",
            "ended": "2026-12-02 10:04:05 EST",
            "handle": "$25.00",
            "win": "-$10.00",
            "best": "+$15.00",
            "worst": "-$5.00",
            "outcomes": "super bonus, split",
            "cards": "7S 7S 7S",
            "first_row": 100,
            "end_row": 130,
        }
    ]


def test_a_house_win_and_a_worst_seat_that_won_are_shown_with_their_plus_sign() -> None:
    row: tuple[Any, ...] = (
        "T1",
        3,
        "completed",
        STARTED,
        ENDED,
        2500,
        1250,
        -300,
        75,
        [],
        "",
        1,
        9,
    )
    (found,) = asyncio.run(search(scripted([row]), NEW_YORK, criteria()))
    assert (found["win"], found["best"], found["worst"]) == ("+$12.50", "-$3.00", "+$0.75")


def test_a_round_without_seats_shows_no_best_or_worst() -> None:
    row: tuple[Any, ...] = ("T1", 1, "voided", None, ENDED, 0, 0, None, None, [], "", 5, 9)
    (found,) = asyncio.run(search(scripted([row]), NEW_YORK, criteria()))
    assert (found["best"], found["worst"], found["outcomes"], found["win"]) == ("", "", "", "$0.00")


def test_the_export_asks_oldest_first_with_each_rounds_rows_and_seal() -> None:
    conn = scripted([])
    text = asyncio.run(export_csv(conn, NEW_YORK, criteria(table="T1")))
    assert text == (
        "table,round,status,started,ended,handle_cents,house_win_cents,best_seat_cents,"
        "worst_seat_cents,outcomes,cards,first_row,end_row,end_row_hash,seal_row,"
        "seal_row_hash\r\n"
    )
    ((query, params),) = conn.asked
    assert (
        query.split()
        == (
            f"SELECT {RESULT_COLUMNS}, e.hash, seal.row_id, seal.hash FROM round_stat s"
            " JOIN journal_row e ON e.table_id = s.table_id AND e.row_id = s.end_row"
            " LEFT JOIN LATERAL ( SELECT j.row_id, j.hash FROM journal_row j"
            " WHERE j.table_id = s.table_id AND j.kind = 'seal' AND j.row_id > s.end_row"
            " ORDER BY j.row_id LIMIT 1 ) seal ON true"
            " WHERE s.ended >= %(start)s AND s.ended < %(end)s AND s.table_id = %(table)s"
            " ORDER BY s.ended, s.table_id LIMIT %(limit)s"
        ).split()
    )
    assert params == {"start": DAY.start, "end": DAY.end, "table": "T1", "limit": 50_000}
    assert EXPORTED == 50_000


def test_the_export_of_a_pit_asks_for_the_pits_tables() -> None:
    conn = scripted([])
    asyncio.run(export_csv(conn, NEW_YORK, criteria(pit="Pit 1")))
    ((query, params),) = conn.asked
    assert "AND s.table_id = ANY(%(pit_tables)s) ORDER BY" in " ".join(query.split())
    assert params["pit_tables"] == ["T1", "T2"]


def test_an_exported_round_to_the_millisecond_with_its_hashes() -> None:
    rows = [
        ("T1", 42, "completed", STARTED, ENDED, 2500, -1000, 1500, -500,
         ["bonus", "split"], "7S 7S 7S", 100, 130, "ab" * 32, 131, "cd" * 32),
        ("=T2", 7, "voided", None, ENDED, 0, 0, None, None, [], "", 5, 9, "ef" * 32, None,
         None),
    ]  # fmt: skip
    text = asyncio.run(export_csv(scripted(rows), NEW_YORK, criteria()))
    lines = text.split("\r\n")
    assert lines[1] == (
        "T1,42,completed,2026-12-02 10:03:01.007 EST,2026-12-02 10:04:05.852 EST,2500,-1000,"
        f"1500,-500,bonus split,7S 7S 7S,100,130,{'ab' * 32},131,{'cd' * 32}"
    )
    assert lines[2] == (f"'=T2,7,voided,,2026-12-02 10:04:05.852 EST,0,0,,,,,5,9,{'ef' * 32},,")
    assert lines[3:] == [""]


@pytest.mark.parametrize(
    ("cell", "written"),
    [("=1+1", "'=1+1"), ("+1", "'+1"), ("-1", "'-1"), ("@SUM(A1)", "'@SUM(A1)"),
     ("T=1", "T=1"), ("", "")],
)  # fmt: skip
def test_a_cell_that_could_start_a_formula_is_quoted(cell: str, written: str) -> None:
    row: tuple[Any, ...] = (
        "T1",
        1,
        "completed",
        None,
        ENDED,
        0,
        0,
        None,
        None,
        [],
        cell,
        1,
        2,
        "h",
        None,
        None,
    )
    text = asyncio.run(export_csv(scripted([row]), UTC_CASINO, criteria()))
    assert text.split("\r\n")[1].split(",")[10] == written
