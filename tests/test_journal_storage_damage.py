"""What the reader of a format-2 file (``controller/journal/storage.py``, docs/journal.md
"Storage format 2") says of a file damaged behind its triggers: each stored value out of
form is refused as ``JournalCorruptError`` naming the row, in one line, never a traceback
of SQLite's or Python's. (The tables are STRICT: SQLite itself refuses a value of another
type, so only values of the right type and the wrong size or order are tried here.)"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_journal_format2 import tamper  # the append-only triggers dropped and made again

from controller.journal.format import JournalCorruptError
from controller.journal.storage import Format2, storage_of
from controller.journal.store import Journal


@pytest.fixture
def format_2(tmp_path: Path) -> Path:
    """Rows 1 (a commit alone), 2..4 (one commit: a round's start, a card, its end)."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=2) as journal:
        journal.append("station_started", {})
        with journal.batch():
            journal.append("round_started", {}, 1)
            journal.append("card", {"card": "8S"}, 1)
            journal.append("round_completed", {"reshuffle": False}, 1)
    return path


def read_all(path: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        list(storage_of(conn).raw_rows(0))
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        (
            "UPDATE journal_commit SET last_hash = x'00' WHERE first_id = 2",
            "row 2: the stored commit is damaged",
        ),
        (
            "UPDATE journal_commit SET last_hash = zeroblob(33) WHERE first_id = 2",
            "row 2: the stored commit is damaged",
        ),
        (
            "UPDATE journal_commit SET last_id = 1 WHERE first_id = 2",
            "row 2: the stored commit's last id is damaged",
        ),
        (
            "UPDATE journal_commit SET last_id = 3 WHERE first_id = 2",
            "row 2: the stored commit holds 3 rows, its ids say 2",
        ),
    ],
)
def test_a_stored_commit_out_of_form_is_refused_naming_its_first_row(
    format_2: Path, statement: str, message: str
) -> None:
    tamper(format_2, statement)
    with pytest.raises(JournalCorruptError) as refused:
        read_all(format_2)
    assert str(refused.value) == message


def test_a_commit_whose_last_id_equals_its_first_holds_one_row(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=2) as journal:
        journal.append("station_started", {})
    conn = sqlite3.connect(path)
    try:
        assert [raw[0] for raw in storage_of(conn).raw_rows(0)] == [1]
    finally:
        conn.close()


#: A codec table made again without its types (a forged file): each value of another type.
_UNTYPED = (
    "CREATE TABLE codec_copy AS SELECT * FROM journal_codec",
    "DROP TABLE journal_codec",
    "CREATE TABLE journal_codec (id INTEGER PRIMARY KEY, ts_base, dictionary)",
)


@pytest.mark.parametrize(
    "statements",
    [
        ("DELETE FROM journal_codec",),
        (*_UNTYPED, "INSERT INTO journal_codec SELECT id, 'x', dictionary FROM codec_copy"),
        (*_UNTYPED, "INSERT INTO journal_codec SELECT id, ts_base, 'words' FROM codec_copy"),
    ],
    ids=["missing", "time-base-text", "dictionary-text"],
)
def test_a_codec_missing_or_out_of_form_is_refused(
    format_2: Path, statements: tuple[str, ...]
) -> None:
    tamper(format_2, *statements)
    with pytest.raises(JournalCorruptError) as refused:
        read_all(format_2)
    assert str(refused.value) == "the journal's codec (journal_codec) is missing or damaged"


def test_a_milestone_whose_row_is_gone_is_refused_naming_it(format_2: Path) -> None:
    tamper(
        format_2,
        "INSERT INTO journal_milestone (id, kind, round) VALUES (9, (SELECT code FROM"
        " journal_kind WHERE kind = 'round_completed'), 1)",
    )
    conn = sqlite3.connect(format_2)
    try:
        storage = storage_of(conn)
        assert isinstance(storage, Format2)
        with pytest.raises(JournalCorruptError) as refused:
            list(storage.rows(kinds=("round_completed",)))
        assert str(refused.value) == "row 9: indexed, but not in the journal"
    finally:
        conn.close()


@pytest.mark.parametrize("storage_format", [1, 2])
def test_the_first_row_of_a_file_and_of_an_empty_one(tmp_path: Path, storage_format: int) -> None:
    """``first_id``: where a rotated journal's rows must begin (after its base; the start
    check and verify refuse a row at or before it): None for a file without rows."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=storage_format) as journal:
        conn = sqlite3.connect(path)
        try:
            assert storage_of(conn).first_id() is None
            journal.append("station_started", {})
            journal.append("clean_shutdown", {})
            assert storage_of(conn).first_id() == 1
            assert type(storage_of(conn).first_id()) is int
            milestones = [(1, "station_started", None, None, None)]
            milestones.append((2, "clean_shutdown", None, None, None))
            # format 1's indexes are SQLite's own: it lists no entries of its own
            assert list(storage_of(conn).index_entries(0)) == (
                [] if storage_format == 1 else milestones
            )
        finally:
            conn.close()
