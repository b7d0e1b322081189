"""The one reader of a journal's rows (``controller/journal/storage.py``, docs/journal.md
"Storage format 2") on small journals written by hand, in both storage formats.

Every query is asked of one journal of sixteen rows whose answers are worked out here
from the list of appends below (never from the reader): each bound on both sides (``after``
exclusive, ``until`` inclusive, ``ts_from`` inclusive, ``ts_to`` exclusive), each limit, the
indexed and the unindexed path of format 2. The hashes are docs/journal.md's chain
(:func:`controller.journal.format.row_hash`), from the genesis hash or from a rotated
journal's base. Fast: each journal is written once per module (a mutation run of the
module reruns this file per mutant).
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from journal_tamper_support import behind_the_triggers, card_indexed_by_a_later_program

from controller.journal import schema
from controller.journal.base import Base
from controller.journal.format import (
    GENESIS_HASH,
    TRIGGER_SQL,
    TRIGGER_SQL_2,
    Row,
    canonical_json,
    format_ts,
    row_hash,
)
from controller.journal.reader import open_readonly
from controller.journal.storage import (
    FETCH_ROWS,
    Format1,
    Format2,
    JournalConnection,
    Storage,
    forget,
    index_entry,
    storage_of,
    storage_version,
)
from controller.journal.store import Journal

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)

#: The appends, commit by commit (a commit of several rows is one batch): kind, data, round.
COMMITS: list[list[tuple[str, dict[str, Any], int | None]]] = [
    [("station_started", {}, None)],  # 1
    [
        ("round_started", {}, 1),  # 2
        ("event", {"seat": 1, "spot": "main", "chips": 500}, 1),  # 3
        ("hole_card_dealt", {"commitment": "c1"}, 1),  # 4
        ("card", {"card": "8S"}, 1),  # 5
    ],
    [("event", {"seat": 2, "spot": "match", "chips": 100}, 1)],  # 6
    [("hole_card_revealed", {"card": "KS"}, 1), ("round_completed", {}, 1)],  # 7, 8
    [
        ("round_started", {}, 2),  # 9
        ("event", {"seat": 1, "spot": "main", "chips": 700}, 2),  # 10
        ("hole_card_dealt", {"commitment": "c2"}, 2),  # 11
        ("burn", {"card": "2C"}, None),  # 12
    ],
    [("round_completed", {}, 2)],  # 13
    [
        ("round_started", {}, 2),  # 14: the same round started again
        ("event", {"seat": 3}, None),  # 15: no spot, so no wager spot's report
        ("x_custom", {"n": 1}, 0),  # 16: round 0, a round all the same
    ],
]
APPENDS = [row for commit in COMMITS for row in commit]
LAST = len(APPENDS)  # 16


def ts(n: int) -> str:
    """The N-th append's time: the clock below gives it the second N past 09:00."""
    return format_ts(START + timedelta(seconds=n))


def seconds_clock() -> Callable[[], datetime]:
    moments = itertools.count(1)
    return lambda: START + timedelta(seconds=next(moments))


def chain(start: tuple[int, str] = (0, GENESIS_HASH)) -> list[Row]:
    """The rows the appends make, after row ``start[0]`` whose hash is ``start[1]``."""
    rows, (row_id, prev) = [], start
    for n, (kind, data, round_no) in enumerate(APPENDS, 1):
        row_id += 1
        text = canonical_json(data)
        digest = row_hash(prev, row_id=row_id, ts=ts(n), kind=kind, round_no=round_no,
                          data_text=text)  # fmt: skip
        rows.append(Row(row_id, ts(n), kind, round_no, text, prev, digest))
        prev = digest
    return rows


ROWS = {row.id: row for row in chain()}


def raw(row: Row) -> tuple[Any, ...]:
    return (row.id, row.ts, row.kind, row.round_no, row.data_text, row.prev_hash, row.hash)


def write(path: Path, storage_format: int) -> None:
    with Journal.open(path, clock=seconds_clock(), storage_format=storage_format) as journal:
        for commit in COMMITS:
            if len(commit) == 1:
                journal.append(*commit[0])
                continue
            with journal.batch():
                for kind, data, round_no in commit:
                    journal.append(kind, data, round_no)


@pytest.fixture(scope="module", params=[1, 2], ids=["format1", "format2"])
def journal_file(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp(f"format{request.param}") / "journal.sqlite3"
    write(path, request.param)
    return path


@pytest.fixture
def storage(journal_file: Path) -> Iterator[Storage]:
    conn = sqlite3.connect(journal_file)
    try:
        yield storage_of(conn)
    finally:
        conn.close()


def ids(rows: Iterator[Row] | Iterator[tuple[Any, ...]]) -> list[int]:
    return [row.id if isinstance(row, Row) else row[0] for row in rows]


def test_each_file_is_read_by_its_formats_reader(journal_file: Path, storage: Storage) -> None:
    expected = Format2 if "format2" in str(journal_file.parent) else Format1
    assert type(storage) is expected
    assert storage.version == (2 if expected is Format2 else 1)


def test_the_raw_rows_are_the_chain_of_the_appends(storage: Storage) -> None:
    assert list(storage.raw_rows(0)) == [raw(ROWS[i]) for i in range(1, LAST + 1)]


@pytest.mark.parametrize(
    ("after", "until", "expected"),
    [
        (3, 7, [4, 5, 6, 7]),  # after exclusive, until inclusive
        (4, 5, [5]),  # a row in the middle of a commit, alone
        (4, 4, []),
        (0, 0, []),
        (1, 100, list(range(2, LAST + 1))),
        (LAST - 1, None, [LAST]),
        (LAST, None, []),
        (8, 9, [9]),  # the first row of a commit
        (7, 8, [8]),  # the last row of a commit
    ],
)
def test_raw_rows_between_two_ids(
    storage: Storage, after: int, until: int | None, expected: list[int]
) -> None:
    found = list(storage.raw_rows(after, until))
    assert found == [raw(ROWS[i]) for i in expected]


ROUND_2 = [9, 10, 11, 13, 14]


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({}, list(range(1, LAST + 1))),
        ({"after_id": 4, "until_id": 9}, [5, 6, 7, 8, 9]),
        ({"until_id": 5, "newest_first": True}, [5, 4, 3, 2, 1]),
        ({"kinds": ["event"]}, [3, 6, 10, 15]),
        ({"kinds": ["event"], "until_id": 9, "newest_first": True}, [6, 3]),
        ({"kinds": ["round_started"]}, [2, 9, 14]),  # a milestone: format 2's index
        ({"kinds": ["round_started", "round_completed"]}, [2, 8, 9, 13, 14]),
        ({"kinds": ("burn", "hole_card_dealt")}, [4, 11, 12]),
        ({"kinds": ["round_started", "card"]}, [2, 5, 9, 14]),  # one not indexed
        ({"kinds": ["round_started"], "after_id": 2, "until_id": 14}, [9, 14]),
        ({"kinds": ["round_started"], "after_id": 1, "until_id": 13}, [2, 9]),
        ({"kinds": ["round_started"], "round_no": 2}, [9, 14]),
        ({"kinds": ["round_started"], "round_no": 0}, []),
        ({"kinds": ["round_started"], "newest_first": True, "limit": 2}, [14, 9]),
        ({"kinds": ["round_started"], "newest_first": True}, [14, 9, 2]),
        ({"kinds": []}, []),
        ({"kinds": ["no_such_kind"]}, []),
        ({"kinds": ["x_custom", "no_such_kind"]}, [16]),
        ({"round_no": 0}, [16]),
        ({"round_no": 1}, [2, 3, 4, 5, 6, 7, 8]),
        ({"round_no": 2}, ROUND_2),
        ({"round_no": 2, "newest_first": True, "limit": 2}, [14, 13]),
        ({"ts_from": ts(5), "ts_to": ts(8)}, [5, 6, 7]),  # from inclusive, to exclusive
        ({"ts_from": ts(15)}, [15, 16]),
        ({"ts_to": ts(2)}, [1]),
        ({"newest_first": True}, list(range(LAST, 0, -1))),
        ({"newest_first": True, "limit": 3}, [16, 15, 14]),
        ({"after_id": 8, "newest_first": True, "limit": 2}, [16, 15]),
        ({"after_id": 12, "newest_first": True}, [16, 15, 14, 13]),
        ({"limit": 1}, [1]),
        ({"limit": 5}, [1, 2, 3, 4, 5]),
        ({"limit": 0}, []),
        ({"limit": -1}, list(range(1, LAST + 1))),  # SQL's LIMIT below 0: no limit
        ({"kinds": ["round_started"], "limit": -1}, [2, 9, 14]),
    ],
)
def test_rows_selected_by_each_filter(
    storage: Storage, filters: dict[str, Any], expected: list[int]
) -> None:
    assert list(storage.rows(**filters)) == [ROWS[i] for i in expected]


def test_a_row_and_its_hash_by_id(storage: Storage) -> None:
    for row_id, row in ROWS.items():
        assert storage.row(row_id) == row
        assert storage.hash_of(row_id) == row.hash
    for row_id in (0, -1, LAST + 1):
        assert storage.row(row_id) is None
        assert storage.hash_of(row_id) is None


def test_the_ends_and_the_count(storage: Storage) -> None:
    assert (storage.first_id(), storage.last_id(), storage.count()) == (1, LAST, LAST)
    assert all(type(n) is int for n in (storage.first_id(), storage.last_id(), storage.count()))
    assert storage.tail() == (LAST, ROWS[LAST].hash)
    assert storage.start() == (0, GENESIS_HASH)
    assert storage.base is None


@pytest.mark.parametrize(
    ("kinds", "until", "expected"),
    [
        ((), None, 16),
        (("event",), None, 15),
        (("event",), 9, 6),
        (("event",), 6, 6),
        (("round_started", "burn"), None, 14),
        (("round_started", "burn"), 13, 12),
        (("burn",), 11, None),
        (("no_such_kind",), None, None),
    ],
)
def test_the_last_row_of_some_kinds(
    storage: Storage, kinds: tuple[str, ...], until: int | None, expected: int | None
) -> None:
    found = storage.last(*kinds, until_id=until)
    assert found == (None if expected is None else ROWS[expected])


@pytest.mark.parametrize(
    ("before", "round_no", "expected"),
    [
        (LAST + 1, 1, 16),  # round 0 is before round 1
        (LAST, 1, None),  # rows 1..15: none of a round below 1 (row 1 has no round)
        (LAST, 2, 8),
        (9, 2, 8),
        (8, 2, 7),
        (3, 2, 2),
        (2, 2, None),
        (LAST + 1, 0, None),
        (LAST + 1, 3, 16),
    ],
)
def test_the_last_row_before_a_round(
    storage: Storage, before: int, round_no: int, expected: int | None
) -> None:
    assert storage.last_row_before_round(before, round_no) == expected


def test_no_row_is_before_no_round(storage: Storage) -> None:
    # As SQL compares with NULL: a round that is None has no round before it.
    assert Storage.last_row_before_round(storage, LAST + 1, None) is None  # type: ignore[arg-type]
    assert storage.last_row_before_round(LAST + 1, None) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("first", "until", "round_no", "expected"),
    [
        (1, LAST, 1, [4, 7]),
        (4, 7, 1, [4, 7]),  # both ends inclusive
        (5, LAST, 1, [7]),
        (4, 6, 1, [4]),
        (1, LAST, 2, [11]),
        (11, 11, 2, [11]),
        (1, 10, 2, []),
        (12, LAST, 2, []),
        (1, LAST, 0, []),
    ],
)
def test_the_hole_card_rows_of_a_round(
    storage: Storage, first: int, until: int, round_no: int, expected: list[int]
) -> None:
    assert list(storage.hole_rows(first, until, round_no)) == [ROWS[i] for i in expected]
    # the base class's reading (a format's own query must agree with it)
    assert list(Storage.hole_rows(storage, first, until, round_no)) == [ROWS[i] for i in expected]


def test_where_each_round_starts(storage: Storage) -> None:
    assert [storage.round_start(n) for n in (0, 1, 2, 3)] == [None, 2, 9, None]
    assert type(storage.round_start(2)) is int
    assert storage.round_starts(0) == []
    assert storage.round_starts(1) == [(14, 2)]
    assert storage.round_starts(2) == [(14, 2), (9, 2)]
    assert storage.round_starts(5) == [(14, 2), (9, 2), (2, 1)]
    assert all(type(i) is int and type(n) is int for i, n in storage.round_starts(5))


@pytest.mark.parametrize(
    ("seat", "spot", "until", "expected"),
    [
        (1, "main", LAST, 10),
        (1, "main", 10, 10),
        (1, "main", 9, 3),
        (1, "main", 2, None),
        (2, "match", LAST, 6),
        (2, "main", LAST, None),
        (1, "match", LAST, None),
        (3, "main", LAST, None),
    ],
)
def test_the_last_report_of_a_wager_spot(
    storage: Storage, seat: int, spot: str, until: int, expected: int | None
) -> None:
    found = storage.last_spot_report(seat, spot, until)
    assert found == (None if expected is None else ROWS[expected])


@pytest.mark.parametrize(
    ("kind", "after", "until", "expected"),
    [
        ("round_completed", 0, LAST, (2, 13)),
        ("round_completed", 8, LAST, (1, 13)),  # after exclusive
        ("round_completed", 7, LAST, (2, 13)),
        ("round_completed", 0, 8, (1, 8)),  # until inclusive
        ("round_completed", 0, 7, (0, None)),
        ("round_completed", 8, 12, (0, None)),
        ("round_started", 2, 14, (2, 14)),
        ("no_such_kind", 0, LAST, (0, None)),
    ],
)
def test_how_many_rows_of_a_milestone_kind_lie_between(
    storage: Storage, kind: str, after: int, until: int, expected: tuple[int, int | None]
) -> None:
    found = storage.seals_between(kind, after, until)
    assert found == expected
    assert type(found[0]) is int


MILESTONE_ENTRIES = [
    (1, "station_started", None, None, None),
    (2, "round_started", 1, None, None),
    (3, "event", None, 1, "main"),
    (4, "hole_card_dealt", 1, None, None),
    (6, "event", None, 2, "match"),
    (7, "hole_card_revealed", 1, None, None),
    (8, "round_completed", 1, None, None),
    (9, "round_started", 2, None, None),
    (10, "event", None, 1, "main"),
    (11, "hole_card_dealt", 2, None, None),
    (12, "burn", None, None, None),
    (13, "round_completed", 2, None, None),
    (14, "round_started", 2, None, None),
]


@pytest.mark.parametrize(
    ("after", "until", "expected"),
    [
        (0, None, MILESTONE_ENTRIES),
        (3, 9, MILESTONE_ENTRIES[3:8]),  # after exclusive, until inclusive
        (14, None, []),
    ],
)
def test_format_2_lists_its_index_entries_format_1_none(
    storage: Storage, after: int, until: int | None, expected: list[tuple[Any, ...]]
) -> None:
    found = list(storage.index_entries(after, until))
    assert found == (expected if storage.version == 2 else [])


@pytest.mark.parametrize(
    ("kind", "data", "expected"),
    [
        ("round_started", None, (7, "round_started", 3, None, None)),
        ("event", {"seat": 2, "spot": "main"}, (7, "event", None, 2, "main")),
        ("event", {"seat": "2", "spot": 1}, (7, "event", None, "2", 1)),
        ("event", {"seat": 2}, None),
        ("event", {"spot": "main"}, None),
        ("event", {"seat": True, "spot": "main"}, None),  # a bool is no seat
        ("event", {"seat": 2, "spot": 1.0}, None),
        ("event", {"seat": 2, "spot": None}, None),
        ("event", [2, "main"], None),
        ("card", {"seat": 2, "spot": "main"}, None),
    ],
)
def test_the_index_entry_of_a_row(kind: str, data: Any, expected: tuple[Any, ...] | None) -> None:
    assert index_entry(7, kind, 3, data) == expected


def test_the_index_entry_of_a_files_own_milestone_kinds() -> None:
    assert index_entry(7, "x_custom", 3, None, ("x_custom",)) == (7, "x_custom", 3, None, None)
    assert index_entry(7, "round_started", 3, None, ("x_custom",)) is None


# -- a rotated journal: its rows begin after the base's row ---------------------------------

BASE = Base(row=5, hash="ab" * 32, segment="journal-1.seg", header="cd" * 32, epoch=0, open=())


@pytest.fixture(scope="module", params=[1, 2], ids=["format1", "format2"])
def rotated_file(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A journal whose base record says rows 1..5 are archived, then the appends."""
    path = tmp_path_factory.mktemp(f"rotated{request.param}") / "journal.sqlite3"
    Journal.open(path, storage_format=request.param).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO meta (key, value) VALUES ('base', ?)", (BASE.to_text(),))
    conn.commit()
    conn.close()
    write(path, request.param)
    return path


def test_a_rotated_journals_rows_go_on_from_its_base(rotated_file: Path) -> None:
    rows = {row.id: row for row in chain((5, BASE.hash))}
    conn = sqlite3.connect(rotated_file)
    try:
        storage = storage_of(conn)
        assert storage.base == BASE
        assert storage.start() == (5, BASE.hash)
        assert list(storage.raw_rows(0)) == [raw(rows[i]) for i in range(6, 6 + LAST)]
        assert list(storage.rows(kinds=["station_started"])) == [rows[6]]
        assert storage.row(6) == rows[6]
        assert (storage.first_id(), storage.last_id(), storage.count()) == (6, 5 + LAST, LAST)
        assert storage.tail() == (5 + LAST, rows[5 + LAST].hash)
        # the base's row is archived: its hash is the base's, the rows before it have none
        assert storage.hash_of(5) == BASE.hash
        assert storage.row(5) is None
        assert storage.hash_of(4) is None
        assert storage.hash_of(6) == rows[6].hash
    finally:
        conn.close()


@pytest.mark.parametrize("storage_format", [1, 2])
def test_an_empty_journal_ends_at_its_start(tmp_path: Path, storage_format: int) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal.open(path, storage_format=storage_format).close()
    conn = sqlite3.connect(path)
    try:
        storage = storage_of(conn)
        assert (storage.first_id(), storage.last_id(), storage.count()) == (None, None, 0)
        assert storage.tail() == (0, GENESIS_HASH)
        assert storage.last() is None
        assert list(storage.raw_rows(0)) == []
        assert list(storage.rows(newest_first=True)) == []
        assert storage.round_start(1) is None
        assert storage.round_starts(3) == []
        conn.execute("INSERT INTO meta (key, value) VALUES ('base', ?)", (BASE.to_text(),))
        forget(conn)
        assert storage_of(conn).tail() == (5, BASE.hash)
    finally:
        conn.close()


# -- which reader a file gets ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("statements", "expected"),
    [
        ([], 1),  # no meta table yet: a file being made
        (["CREATE TABLE meta (key TEXT, value TEXT)"], 1),
        (["CREATE TABLE meta (key TEXT, value TEXT)", "INSERT INTO meta VALUES ('x', '2')"], 1),
        (
            [
                "CREATE TABLE meta (key TEXT, value TEXT)",
                "INSERT INTO meta VALUES ('schema_version', '1')",
            ],
            1,
        ),
        (
            [
                "CREATE TABLE meta (key TEXT, value TEXT)",
                "INSERT INTO meta VALUES ('schema_version', '2')",
            ],
            2,
        ),
        (
            [
                "CREATE TABLE meta (key TEXT, value TEXT)",
                "INSERT INTO meta VALUES ('schema_version', '3')",
            ],
            1,
        ),
    ],
)
def test_the_storage_format_is_the_files_schema_version(
    statements: list[str], expected: int
) -> None:
    conn = sqlite3.connect(":memory:")
    try:
        for statement in statements:
            conn.execute(statement)
        assert storage_version(conn) == expected
    finally:
        conn.close()


def test_a_meta_table_of_another_form_is_not_taken_for_format_1() -> None:
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE TABLE meta (name TEXT)")
        with pytest.raises(sqlite3.OperationalError, match="no such column: value"):
            storage_version(conn)
    finally:
        conn.close()


def test_a_journal_connection_keeps_its_storage_until_forgotten(journal_file: Path) -> None:
    conn = sqlite3.connect(journal_file, factory=JournalConnection)
    other = sqlite3.connect(journal_file)
    try:
        first = storage_of(conn)
        assert storage_of(conn) is first
        forget(conn)
        second = storage_of(conn)
        assert second is not first
        assert storage_of(conn) is second
        forget(other)  # not a JournalConnection: nothing kept, nothing to forget
        assert storage_of(other) is not storage_of(other)
    finally:
        conn.close()
        other.close()


def test_a_readers_storage_is_made_again_once_the_writers_open_indexes_kinds_declared_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``storage_of``'s Storage is kept with the reader's connection while no other
    connection commits; the writer's open that gives a format-2 file made before ``burn``
    was a milestone kind its code (docs/journal.md, "Milestone kinds declared later") is
    such a commit: the reader's next Storage indexes ``burn`` as the file now does."""
    path = tmp_path / "journal.sqlite3"
    with monkeypatch.context() as patch:
        known = tuple(kind for kind in schema.INDEXED_KINDS if kind != "burn")
        patch.setattr(schema, "INDEXED_KINDS", known)
        with Journal.open(path, storage_format=2) as journal:
            journal.append("round_started", {}, 1)  # 1
            journal.append("burn", {"card": "2C"}, 1)  # 2
    conn = open_readonly(path)
    try:
        kept = storage_of(conn)
        assert "burn" not in kept.indexed_kinds and "round_started" in kept.indexed_kinds
        assert storage_of(conn) is kept
        Journal.open(path).close()
        fresh = storage_of(conn)
        assert "burn" in fresh.indexed_kinds
        assert [entry[:2] for entry in fresh.index_entries(0)] == [
            (1, "round_started"),
            (2, "burn"),
        ]
    finally:
        conn.close()


# -- format 1: text that is not UTF-8 ----------------------------------------------------------


def test_format_1_reads_a_row_whose_text_is_not_utf8_with_replacement_characters(
    tmp_path: Path,
) -> None:
    """A damaged row is read (so that the walk names it), and every row after it too."""
    path = tmp_path / "journal.sqlite3"
    write(path, 1)
    conn = sqlite3.connect(path, isolation_level=None)
    for name in TRIGGER_SQL:
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("UPDATE journal SET data = CAST(x'7b22ff227d' AS TEXT) WHERE id = 5")
    conn.close()
    conn = sqlite3.connect(path)
    try:
        found = list(storage_of(conn).raw_rows(0))
        assert [r[0] for r in found] == list(range(1, LAST + 1))
        assert found[4][4] == '{"\ufffd"}'
        assert found[5] == raw(ROWS[6])
        # the connection now reads text with replacement characters: a second read too
        assert [r[0] for r in storage_of(conn).raw_rows(3, 6)] == [4, 5, 6]
    finally:
        conn.close()


def test_format_1_reads_on_after_a_damaged_row_past_its_first_fetch(tmp_path: Path) -> None:
    """The damaged row comes after the first FETCH_ROWS rows (4,096): the read starts again
    after the last row given, so each row comes once, in order, and none is lost."""
    path = tmp_path / "journal.sqlite3"
    count = FETCH_ROWS + 10
    with Journal.open(path, clock=seconds_clock(), storage_format=1) as journal, journal.batch():
        for n in range(count):
            journal.append("card", {"n": n})
    damaged = FETCH_ROWS + 5
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for name in TRIGGER_SQL:
            conn.execute(f"DROP TRIGGER {name}")
        conn.execute(
            "UPDATE journal SET data = CAST(x'7b22ff227d' AS TEXT) WHERE id = ?", (damaged,)
        )
    finally:
        conn.close()
    conn = sqlite3.connect(path)
    try:
        found = list(storage_of(conn).raw_rows(0))
        assert [r[0] for r in found] == list(range(1, count + 1))
        assert found[damaged - 1][4] == '{"\ufffd"}'
        assert found[damaged][4] == canonical_json({"n": damaged})  # row N + 1's n is N
    finally:
        conn.close()


def test_format_1_leaves_the_connection_strict_after_a_read_that_fails_otherwise() -> None:
    """Only text that is not UTF-8 makes the connection read with replacement characters: a
    read that fails for another reason (here, no rows table) is raised as it is, and the
    connection still refuses damaged text."""
    conn = sqlite3.connect(":memory:")
    try:
        storage = Format1(conn)
        with pytest.raises(sqlite3.OperationalError, match="no such table: journal"):
            list(storage.raw_rows(0))
        assert conn.text_factory is str
    finally:
        conn.close()


@pytest.mark.parametrize("storage_format", [1, 2])
def test_what_the_writer_stores_reads_back_with_its_index_entries(
    tmp_path: Path, storage_format: int
) -> None:
    """The rows and format 2's index entries as the writer stores them (``insert``), in a
    journal written by this test (the module's journals are written once, by the first
    test that reads them)."""
    path = tmp_path / "journal.sqlite3"
    write(path, storage_format)
    conn = sqlite3.connect(path)
    try:
        storage = storage_of(conn)
        assert list(storage.raw_rows(0)) == [raw(ROWS[i]) for i in range(1, LAST + 1)]
        entries = list(storage.index_entries(0))
        assert entries == (MILESTONE_ENTRIES if storage_format == 2 else [])
        assert storage.round_starts(5) == [(14, 2), (9, 2), (2, 1)]
        assert storage.last_spot_report(1, "main", LAST) == ROWS[10]
        assert storage.last_spot_report(2, "match", LAST) == ROWS[6]
        assert list(storage.rows(kinds=["hole_card_dealt"], round_no=2)) == [ROWS[11]]
    finally:
        conn.close()
    # a milestone after a row of a commit that has no entry gets its own
    with Journal.open(path) as journal, journal.batch():
        journal.append("card", {"card": "3C"}, 3)
        journal.append("burn", {"card": "4C"}, 3)
    conn = sqlite3.connect(path)
    try:
        storage = storage_of(conn)
        assert [row.id for row in storage.rows(kinds=["burn"])] == [12, LAST + 2]
        entries = list(storage.index_entries(LAST))
        assert entries == ([(LAST + 2, "burn", 3, None, None)] if storage_format == 2 else [])
    finally:
        conn.close()


def test_format_2_gives_a_commits_last_row_the_stored_hash(tmp_path: Path) -> None:
    """docs/journal.md: the commit's last row carries the stored hash (the rows before it
    are chained from the previous commit's), so a changed stored hash shows at that row
    and as the next row's prev_hash."""
    path = tmp_path / "journal.sqlite3"
    write(path, 2)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for name in TRIGGER_SQL_2:
            conn.execute(f"DROP TRIGGER {name}")
        conn.execute("UPDATE journal_commit SET last_hash = zeroblob(32) WHERE first_id = 2")
        found = {raw[0]: raw for raw in storage_of(conn).raw_rows(0)}
    finally:
        conn.close()
    assert found[4] == raw(ROWS[4])  # inside the commit: chained
    assert found[5][6] == "0" * 64  # its last row: the stored hash
    assert found[6][5] == "0" * 64  # the next commit's first row follows it


def test_format_2_reads_two_commits_of_the_same_stored_rows_each_as_its_own(
    tmp_path: Path,
) -> None:
    """Two commits may store the same bytes (the same time, kind and data): each is read
    with its own ids and hashes."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, clock=lambda: START, storage_format=2) as journal:
        for _ in range(3):
            journal.append("card", {"card": "8S"})
    conn = sqlite3.connect(path)
    try:
        bodies = {body for (body,) in conn.execute("SELECT body FROM journal_commit")}
        assert len(bodies) == 1
        found = list(storage_of(conn).raw_rows(0))
    finally:
        conn.close()
    assert [r[0] for r in found] == [1, 2, 3]
    assert [r[5] for r in found[1:]] == [r[6] for r in found[:-1]]
    assert len({r[6] for r in found}) == 3


def test_format_2_indexes_every_kind_its_file_names_even_one_this_program_does_not(
    tmp_path: Path,
) -> None:
    """docs/journal.md "Milestone kinds declared later": a format-2 file's ``journal_kind``
    is the list of the kinds it indexes. In a file made by a later program that indexes a
    kind this one does not (here ``card``), this program's ``card`` rows get their entries
    under the file's code: its lookups by kind and the walk (which expects an entry for each
    row of a kind the file names) find them."""
    path = tmp_path / "journal.sqlite3"
    card_indexed_by_a_later_program(path)
    conn = sqlite3.connect(path)
    try:
        storage = storage_of(conn)
        assert "card" in storage.indexed_kinds
        assert list(storage.index_entries(0)) == [
            (1, "round_started", 1, None, None),
            (2, "card", 1, None, None),
        ]
        assert [row.id for row in storage.rows(kinds=["card"])] == [2]
    finally:
        conn.close()


def test_a_file_that_names_no_round_start_kind_has_no_round_starts(tmp_path: Path) -> None:
    """Every format-2 file this program makes names each milestone kind in
    ``journal_kind``; one whose ``round_started`` was taken out (a forged file) has no
    round starts, and no other kind's entries are taken for them (here a burn in round 1,
    the kind of the first code)."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=2) as journal:
        journal.append("round_started", {"round": 1, "seats": []}, 1)
        journal.append("burn", {"card": "8S"}, 1)
    conn = sqlite3.connect(path)
    try:
        assert storage_of(conn).round_starts(3) == [(1, 1)]
        assert conn.execute("SELECT code FROM journal_kind WHERE kind = 'burn'").fetchone() == (1,)
    finally:
        conn.close()
    behind_the_triggers(
        path, lambda conn: conn.execute("DELETE FROM journal_kind WHERE kind = 'round_started'")
    )
    conn = sqlite3.connect(path)
    try:
        storage = storage_of(conn)
        assert storage.round_start(1) is None
        assert storage.round_starts(3) == []
    finally:
        conn.close()
