"""The shoe's count in the journal (``controller.table.shoe_count``): the rows the table
writes for numbered draws, and the count recovery reads back from them.

Expected counts are worked by hand from docs/protocol.md, "Draw numbers": draws are numbered
from 1 after each load; a number already delivered that carries another card is still
delivered (the count stays at the highest number); a number past the next is a gap.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from controller.table.shoe_count import COUNT_KIND, DRAW_KINDS, ShoeCount

Row = tuple[str, dict[str, Any]]


class Writer:
    """The table's side: journals each row and follows it with its count, as
    ``TableState`` does."""

    def __init__(self) -> None:
        self.count = ShoeCount()
        self.rows: list[Row] = []

    def write(self, kind: str, data: dict[str, Any] | None = None) -> None:
        row = (kind, data or {})
        self.rows.append(row)
        self.count.read(*row)

    def count_row(self, data: dict[str, Any] | None) -> None:
        if data is not None:
            self.write(COUNT_KIND, data)

    def load(self, load: int | None) -> None:
        self.write("shoe_loaded")
        self.count_row(self.count.after_load(load))

    def draw(self, draw: int | None, kind: str = "card") -> None:
        if draw is not None:
            self.count_row(self.count.before_draw(draw))
        self.write(kind, {"role": "hit", "card": "7S"})

    def empty(self, draws: int | None) -> None:
        self.count_row(self.count.before_empty(draws))
        self.write("shoe_empty")


def read_back(rows: list[Row]) -> ShoeCount:
    count = ShoeCount()
    for kind, data in rows:
        count.read(kind, data)
    return count


def count_rows(rows: list[Row]) -> list[dict[str, Any]]:
    return [data for kind, data in rows if kind == COUNT_KIND]


def test_draws_in_sequence_cost_one_count_row_a_load() -> None:
    w = Writer()
    w.load(7)
    w.draw(1, "burn")
    for n, kind in enumerate(("card", "card", "hole_card_dealt", "cover_card", "card"), 2):
        w.draw(n, kind)
    w.empty(6)
    assert count_rows(w.rows) == [{"load": 7, "last": 0}]
    count = read_back(w.rows)
    assert (count.load, count.last, count.empty) == (7, 6, True)


def test_a_gap_and_a_draw_reported_again_as_another_set_the_count() -> None:
    w = Writer()
    w.load(1)
    w.draw(1)
    w.draw(2)
    w.draw(5)  # draws 3 and 4 lost: the count jumps
    w.draw(3)  # draw 3 reported as a card it was not: delivered, the count stays at 5
    w.draw(6)
    assert count_rows(w.rows) == [
        {"load": 1, "last": 0},
        {"load": 1, "last": 4},
        {"load": 1, "last": 4},
    ]
    assert read_back(w.rows).last == 6


def test_an_empty_shoe_whose_number_is_not_the_count_sets_it() -> None:
    w = Writer()
    w.load(2)
    w.draw(1)
    w.empty(3)  # two draws lost before the empty report
    assert count_rows(w.rows)[-1] == {"load": 2, "last": 3}
    count = read_back(w.rows)
    assert (count.last, count.empty) == (3, True)
    w.load(3)  # a new batch: not empty, counted from its own load
    count = read_back(w.rows)
    assert (count.load, count.last, count.empty) == (3, 0, False)


def test_a_station_with_no_count_takes_the_first_number_it_hears() -> None:
    # A journal from before the count, or a station started mid-shoe: no load is known.
    w = Writer()
    w.draw(41)
    w.draw(42)
    assert count_rows(w.rows) == [{"load": None, "last": 40}]
    count = read_back(w.rows)
    assert (count.load, count.last) == (None, 42)


def test_a_shoe_that_numbers_nothing_writes_no_count_and_has_none() -> None:
    w = Writer()
    w.load(None)
    w.draw(None)
    w.draw(None, "burn")
    w.empty(None)
    assert count_rows(w.rows) == []
    count = read_back(w.rows)
    assert (count.load, count.last, count.empty) == (None, None, True)


def test_an_unreadable_card_counts_its_draw_as_the_shoe_did() -> None:
    # Draw 2's number could not be read: its rejected row counts one, so draw 3 is next.
    w = Writer()
    w.load(1)
    w.draw(1)
    w.draw(None)
    w.draw(3)
    assert count_rows(w.rows) == [{"load": 1, "last": 0}]
    assert read_back(w.rows).last == 3


def test_rows_that_are_no_draw_leave_the_count_alone() -> None:
    count = ShoeCount(load=1, last=4)
    for kind in ("hole_card_revealed", "round_started", "state", "fault", "shuffle_commanded"):
        count.read(kind, {"card": "7S"})
    assert (count.load, count.last) == (1, 4)
    for kind in sorted(DRAW_KINDS):
        count.read(kind, {})
    assert count.last == 4 + len(DRAW_KINDS)


ops = st.one_of(
    st.tuples(st.just("load"), st.one_of(st.none(), st.integers(0, 0xFFFF))),
    st.tuples(st.just("draw"), st.one_of(st.none(), st.integers(1, 400))),
    st.tuples(st.just("empty"), st.one_of(st.none(), st.integers(0, 400))),
)


@given(st.lists(ops, max_size=60))
def test_the_count_read_back_is_the_tables_and_the_highest_number_heard(
    script: list[tuple[str, int | None]],
) -> None:
    w = Writer()
    for op, number in script:
        before = w.count.last
        getattr(w, op)(number)
        if op == "draw" and number is not None:
            # After a numbered draw: that number, or the higher one the count held.
            assert w.count.last == (number if before is None else max(before, number))
        if op == "load":
            assert (w.count.load, w.count.last) == (
                (number, 0) if number is not None else (None, None)
            )
        # Recovery, reading the rows back, always has the table's count.
        assert read_back(w.rows) == w.count
