"""What the journal's reader gives back (``controller.journal.reader``): the rows a restore
reads and where the last rounds begin, on a journal written by hand, in either storage
format (docs/journal.md, "Storage" and "Resuming after a stop or a crash")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from journal_tamper_support import BOTH_FORMATS, tamper

from controller.journal.format import JournalCorruptError
from controller.journal.reader import JournalReader, open_readonly, select_rows
from controller.journal.store import Journal

#: The journal, row by row: (kind, data, round). Row ids are the places from 1.
ROWS: list[tuple[str, dict[str, object], int | None]] = [
    ("station_started", {}, None),  # 1
    ("state", {"state": "idle"}, None),  # 2
    ("event", {"seat": 1, "spot": "main", "cents": 500}, None),  # 3: an older report
    ("round_started", {"round": 1}, 1),  # 4
    ("burn", {"card": "7S", "reason": "load"}, None),  # 5
    ("round_completed", {"round": 1}, 1),  # 6
    ("event", {"seat": 1, "spot": "main", "cents": 700}, None),  # 7: seat 1's last report
    ("event", {"seat": 2, "spot": "match", "cents": 100}, None),  # 8
    ("state", {"state": "bets"}, None),  # 9: the last state before the shuffle
    ("shuffle_commanded", {"decks": 6}, None),  # 10
    ("state", {"state": "shuffle"}, None),  # 11
    ("event", {"seat": 1, "spot": "main", "cents": 900}, None),  # 12
    ("round_started", {"round": 2}, 2),  # 13
    ("card", {"card": "9H", "seat": 1}, 2),  # 14
]
SPOTS = [(1, "main"), (2, "match"), (3, "main")]


def written(path: Path, storage_format: int) -> Path:
    """The journal of :data:`ROWS` at ``path``, in ``storage_format``."""
    with Journal.open(path) as writer:
        for kind, data, round_no in ROWS:
            writer.append(kind, data, round_no)
    with JournalReader.open(path) as reader:
        assert reader.storage.version == storage_format
    return path


@pytest.mark.parametrize("storage_format", BOTH_FORMATS)
def test_a_restore_reads_from_the_last_shuffle_and_the_rows_before_it_that_still_count(
    tmp_path: Path, storage_format: int
) -> None:
    journal = written(tmp_path / "journal.sqlite3", storage_format)
    with JournalReader.open(journal) as reader:
        # Before the shuffle (row 10): the last state (9), the last round's start (4) and
        # end (6), the last burn (5), each named wager spot's last report (7, 8; seat 3 has
        # none). Then every row from the shuffle on.
        assert [r.id for r in reader.rows_for_restore(SPOTS)] == [4, 5, 6, 7, 8, 9, *range(10, 15)]
        # As if the journal ended at row 12.
        cut = [r.id for r in reader.rows_for_restore(SPOTS, until_id=12)]
        assert cut == [4, 5, 6, 7, 8, 9, 10, 11, 12]
        # Before any shuffle: every row up to the end named.
        assert [r.id for r in reader.rows_for_restore(SPOTS, until_id=9)] == list(range(1, 10))
        assert [r.id for r in reader.rows_for_restore([])][:4] == [4, 5, 6, 9]


def test_a_shuffle_as_the_first_row_leaves_nothing_before_it(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as writer:
        writer.append("shuffle_commanded", {"decks": 6})
        writer.append("state", {"state": "shuffle"})
    with JournalReader.open(path) as reader:
        assert [r.id for r in reader.rows_for_restore(SPOTS)] == [1, 2]


def test_a_state_in_the_row_before_the_shuffle_still_counts(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as writer:
        writer.append("state", {"state": "bets"})
        writer.append("shuffle_commanded", {"decks": 6})
    with JournalReader.open(path) as reader:
        assert [r.id for r in reader.rows_for_restore(SPOTS)] == [1, 2]


@pytest.mark.parametrize("storage_format", BOTH_FORMATS)
def test_the_last_rounds_begin_after_the_last_row_of_an_earlier_round(
    tmp_path: Path, storage_format: int
) -> None:
    journal = written(tmp_path / "journal.sqlite3", storage_format)
    with JournalReader.open(journal) as reader:
        # The last round (2, from row 13) and what led up to it: after round 1's last row (6).
        assert reader.last_rounds_start(1) == 6
        # Round 1 is the first: nothing is before it.
        assert reader.last_rounds_start(2) == 0
        assert reader.last_rounds_start(3) == 0
        assert reader.last_rounds_start(0) == 0
        assert reader.last("round_started").id == 13  # type: ignore[union-attr]
        assert reader.last().id == 14  # type: ignore[union-attr]
        assert reader.last("clean_shutdown") is None


def test_rows_are_selected_by_the_keywords_of_the_storage(tmp_path: Path) -> None:
    journal = written(tmp_path / "journal.sqlite3", 2)
    with JournalReader.open(journal) as reader:
        rows = reader.query(lambda conn: list(select_rows(conn, kinds=["event"], after_id=3)))
    assert [r.id for r in rows] == [7, 8, 12]


def test_a_failed_query_names_the_file_in_one_line(tmp_path: Path) -> None:
    journal = written(tmp_path / "journal.sqlite3", 2)
    refusal = f"^{re.escape(str(journal))}: no such table: missing$"
    with JournalReader.open(journal) as reader, pytest.raises(JournalCorruptError, match=refusal):
        reader.query(lambda conn: conn.execute("SELECT * FROM missing").fetchall())


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_file_damaged_past_its_schema_is_refused_in_one_line_naming_it(
    tmp_path: Path, storage_format: int
) -> None:
    """The back half of the file's pages overwritten (a disk that lost them): the file
    opens and its storage format reads, but every read that reaches the rows stops with the
    file's name and SQLite's words, one line, not a traceback."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=storage_format) as writer:
        for round_no in range(1, 150):
            writer.append("shuffle_commanded", {"decks": 6})
            writer.append("round_started", {"round": round_no, "seats": []}, round_no)
            writer.append("event", {"seat": 1, "spot": "main", "cents": 500}, None)
            writer.append("round_completed", {"note": "x" * 200}, round_no)
    raw = bytearray(path.read_bytes())
    page = 4096
    for offset in range(len(raw) // 2 // page * page, len(raw) - 2 * page, page):
        raw[offset : offset + page] = b"\xff" * page
    path.write_bytes(bytes(raw))
    refusal = f"^{re.escape(str(path))}: database disk image is malformed$"
    reads = {
        "rows": lambda reader: list(reader.rows()),
        "restore": lambda reader: list(reader.rows_for_restore([(1, "main")])),
        "last rounds": lambda reader: reader.last_rounds_start(3),
    }
    for read in reads.values():
        with JournalReader.open(path) as reader:
            assert reader.storage.version == storage_format
            with pytest.raises(JournalCorruptError, match=refusal):
                read(reader)


def test_what_is_not_a_journal_file_is_refused_in_one_line_naming_it(tmp_path: Path) -> None:
    """No file (or a folder) at the path; a file that is not SQLite; a journal whose schema
    text holds a byte that is not UTF-8 (a flipped bit in a trigger's text): each refused
    with the path and what is wrong, and nothing else."""
    with pytest.raises(FileNotFoundError) as caught:
        JournalReader.open(tmp_path / "absent.sqlite3")
    assert str(caught.value) == f"no journal at {tmp_path / 'absent.sqlite3'}"
    with pytest.raises(FileNotFoundError) as caught:
        open_readonly(tmp_path)
    assert str(caught.value) == f"no journal at {tmp_path}"
    text = tmp_path / "notes.sqlite3"
    text.write_bytes(b"not a journal\n" * 100)
    with pytest.raises(JournalCorruptError) as corrupt:
        open_readonly(text)
    assert str(corrupt.value) == f"{text}: file is not a database"
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as writer:
        writer.append("state", {"state": "idle"})
    raw = path.read_bytes()
    at = raw.index(b"BEFORE UPDATE ON journal")
    path.write_bytes(raw[:at] + b"BEF\xffRE" + raw[at + 6 :])
    with pytest.raises(JournalCorruptError) as corrupt:
        open_readonly(path)
    assert str(corrupt.value) == (
        f"{path}: file is not a database: its schema is damaged (text that is not UTF-8)"
    )


def test_a_journal_sqlite_cannot_open_is_refused_in_one_line_naming_it(tmp_path: Path) -> None:
    """A whole journal at a path longer than SQLite opens (its unix layer takes names of
    at most 512 bytes; Linux allows 4096): SQLite's refusal comes from the open itself, and
    reads as the others, the path and SQLite's words."""
    short = tmp_path / "journal.sqlite3"
    with Journal.open(short) as writer:
        writer.append("state", {"state": "idle"})
    folder = tmp_path.joinpath(*["d" * 100] * 6)
    folder.mkdir(parents=True)
    path = short.rename(folder / "journal.sqlite3")
    assert len(str(path)) > 600 and path.is_file()
    with pytest.raises(JournalCorruptError) as corrupt:
        open_readonly(path)
    assert str(corrupt.value) == f"{path}: unable to open database file"


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_read_only_reader_writes_nothing_and_reads_rows_committed_after_it_opened(
    tmp_path: Path, storage_format: int
) -> None:
    """The reader beside the running station: a write through its connection is refused,
    and a row the writer commits after the reader opened is read (WAL readers see each new
    commit)."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=storage_format) as writer:
        writer.append("state", {"state": "idle"})
        with JournalReader.open(path) as reader:
            assert [r.id for r in reader.rows()] == [1]
            # The storage is made once and kept with the connection until the writer commits
            # (making it reads the schema, the codec and the kinds).
            kept = reader.storage
            assert reader.storage is kept
            writer.append("state", {"state": "bets"})
            assert reader.storage is not kept
            assert [r.kind for r in reader.rows()] == ["state", "state"]
            assert reader.last() is not None and reader.last().data == {"state": "bets"}  # type: ignore[union-attr]
            with pytest.raises(JournalCorruptError, match=r"attempt to write a readonly database$"):
                reader.query(lambda conn: conn.execute("CREATE TABLE mine (x)"))
        # Leaving the block closes the connection (close is idempotent).
        with pytest.raises(JournalCorruptError, match="Cannot operate on a closed database"):
            reader.query(lambda conn: conn.execute("SELECT 1"))
        reader.close()


@pytest.mark.journal_format(1)
def test_a_row_whose_text_is_not_utf8_is_read_with_replacement_characters(
    tmp_path: Path,
) -> None:
    """A flipped bit that leaves a row's data not UTF-8 (format 1 stores it as text): the
    reader gives the row back, the bad byte replaced, so that the hash check names it; the
    fetch does not fail."""
    path = written(tmp_path / "journal.sqlite3", 1)
    tamper(path, "UPDATE journal SET data = CAST(x'7b2261223a22ff227d' AS TEXT) WHERE id = 2")
    with JournalReader.open(path) as reader:
        rows = list(reader.rows())
        assert [r.id for r in rows] == list(range(1, 15))
        assert rows[1].data_text == '{"a":"\ufffd"}'
        assert [r.id for r in reader.rows(kinds=["state"])] == [2, 9, 11]
