"""The journal writer: committed, append-only, hash-chained, one writer at a time."""

from __future__ import annotations

import secrets
import sqlite3
import tempfile
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.journal.format import KIND_PATTERN
from controller.journal.seal import load_state, new_sealing, save_state
from controller.journal.store import (
    GENESIS_HASH,
    Journal,
    JournalClosedError,
    JournalCorruptError,
    JournalLockedError,
    JournalReader,
    JournalRecordError,
    JournalTruncatedError,
    JournalWriteError,
    canonical_json,
    head_path,
    parse_head,
    row_hash,
)
from controller.journal.verify import VerifyCase, verify


def fixed_clock() -> datetime:
    return datetime(2026, 11, 30, 9, 0, 0, 123456, tzinfo=UTC)


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


def test_append_commits_rows_with_a_hash_chain(journal_path: Path) -> None:
    with Journal.open(journal_path, clock=fixed_clock) as journal:
        assert journal.append("station_started", {"table_id": "T1", "decks": 6}) == 1
        assert journal.append("card", {"seat": 1, "card": "7S"}, round_no=4) == 2
        # Committed before append returns: a separate reader sees the row at once.
        with JournalReader.open(journal_path) as reader:
            rows = list(reader.rows())
    assert [r.id for r in rows] == [1, 2]
    first, second = rows
    assert first.ts == "2026-11-30T09:00:00.123456Z"
    assert first.data_text == '{"decks":6,"table_id":"T1"}'
    assert first.prev_hash == GENESIS_HASH
    assert first.hash == row_hash(
        GENESIS_HASH,
        row_id=1,
        ts=first.ts,
        kind="station_started",
        round_no=None,
        data_text=first.data_text,
    )
    assert second.prev_hash == first.hash and second.round_no == 4
    assert second.data == {"seat": 1, "card": "7S"}


def test_the_journal_runs_in_wal_mode_with_full_sync(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        conn = journal._conn
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL


def test_reopening_continues_the_chain(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        journal.append("station_started", {})
    with Journal.open(journal_path) as journal:
        assert journal.last_id == 1
        assert journal.append("clean_shutdown", {}) == 2
        assert [r.kind for r in journal.rows()] == ["station_started", "clean_shutdown"]
    assert verify(journal_path).case is VerifyCase.INTACT


def _each_format(storage_format: int, *statements: str) -> list[Any]:
    return [
        pytest.param(
            s, marks=pytest.mark.journal_format(storage_format), id=f"format-{storage_format}-{s}"
        )
        for s in statements
    ]


@pytest.mark.parametrize(
    "statement",
    _each_format(
        1, "UPDATE journal SET data = '{}' WHERE id = 1", "DELETE FROM journal WHERE id = 1"
    )
    + _each_format(
        2,
        "UPDATE journal_commit SET body = x'00' WHERE first_id = 1",
        "DELETE FROM journal_commit WHERE first_id = 1",
        "UPDATE journal_milestone SET round = 7 WHERE id = 1",
        "DELETE FROM journal_milestone WHERE id = 1",
        "DELETE FROM journal_kind",
        "UPDATE journal_codec SET dictionary = x'20'",
    ),
)
def test_rows_cannot_be_updated_or_deleted(journal_path: Path, statement: str) -> None:
    with Journal.open(journal_path) as journal:
        journal.append("station_started", {})
        conn = sqlite3.connect(journal_path)
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute(statement)
        conn.close()
    assert verify(journal_path).case is VerifyCase.INTACT


@pytest.mark.parametrize(
    ("kind", "data", "round_no"),
    [
        ("Card", {}, None),
        ("", {}, None),
        ("card", {}, -1),
        ("card", {}, True),
        ("card", {"cards": {"7S"}}, None),
        ("card", {"odds": float("nan")}, None),
        ("card", {"raw": b"\x01"}, None),
        ("card", ["not", "a", "mapping"], None),
    ],
)
def test_bad_records_are_refused(
    journal_path: Path, kind: str, data: object, round_no: object
) -> None:
    with Journal.open(journal_path) as journal:
        with pytest.raises(JournalRecordError):
            journal.append(kind, data, round_no)  # type: ignore[arg-type]
        assert journal.last_id == 0


@pytest.mark.parametrize("storage_format", [1, 2])
@pytest.mark.parametrize("kind", ["Card", "", "1card", "card-dealt", "card ", "c" * 65, 7, None])
def test_a_kind_out_of_form_is_refused_in_either_format(
    journal_path: Path, storage_format: int, kind: object
) -> None:
    """docs/journal.md: a kind is ``[a-z][a-z0-9_]*``, at most 64 characters (format 1
    stores any text it is given, so the writer's check is all there is)."""
    with Journal.open(journal_path, storage_format=storage_format) as journal:
        with pytest.raises(JournalRecordError) as refused:
            journal.append(kind, {})  # type: ignore[arg-type]
        assert str(refused.value) == f"bad record kind {kind!r}"
        assert journal.last_id == 0
        assert journal.append("c" * 64, {}) == 1


def test_record_data_that_is_no_mapping_is_refused_naming_its_type(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        for data, named in ((["a"], "list"), ("text", "str"), (None, "NoneType")):
            with pytest.raises(JournalRecordError) as refused:
                journal.append("card", data)  # type: ignore[arg-type]
            assert str(refused.value) == f"record data must be a mapping, not {named}"
        assert journal.last_id == 0


def test_a_mapping_that_is_no_dict_is_written_as_its_items(journal_path: Path) -> None:
    from collections import OrderedDict
    from types import MappingProxyType

    with Journal.open(journal_path) as journal:
        journal.append("card", MappingProxyType({"seat": 2, "card": "7S"}), 1)
        journal.append("card", OrderedDict([("seat", 3), ("card", "8S")]), 1)
        assert [r.data_text for r in journal.rows()] == [
            '{"card":"7S","seat":2}',
            '{"card":"8S","seat":3}',
        ]


@pytest.mark.parametrize("storage_format", [1, 2])
@pytest.mark.parametrize("round_no", [-1, True, False, 1.0, 2.5, "3", [1]])
def test_a_round_number_that_is_no_natural_integer_is_refused_in_either_format(
    journal_path: Path, storage_format: int, round_no: object
) -> None:
    """docs/journal.md: ``round`` is an integer or NULL. Format 1 stores what it is given,
    so the writer's own check is all that stands between a ``True`` and a row of round 1."""
    with Journal.open(journal_path, storage_format=storage_format) as journal:
        with pytest.raises(JournalRecordError, match=r"^bad round number "):
            journal.append("card", {}, round_no)  # type: ignore[arg-type]
        assert journal.last_id == 0
        assert journal.append("card", {}, 0) == 1  # round 0 is a round


def test_one_writer_at_a_time(journal_path: Path) -> None:
    with Journal.open(journal_path), pytest.raises(JournalLockedError):
        Journal.open(journal_path)
    Journal.open(journal_path).close()  # the lock goes with close


def test_use_after_close_is_an_error(journal_path: Path) -> None:
    journal = Journal.open(journal_path)
    journal.close()
    journal.close()
    with pytest.raises(JournalClosedError, match=r"^the journal is closed$"):
        journal.append("clean_shutdown", {})
    with pytest.raises(JournalClosedError, match=r"^the journal is closed$"):
        journal.rows()
    with pytest.raises(JournalClosedError, match=r"^the journal is closed$"):
        journal.checkpoint()
    with pytest.raises(JournalClosedError, match=r"^the journal is closed$"), journal.batch():
        pass


def test_a_file_that_is_no_database_is_refused(journal_path: Path) -> None:
    journal_path.write_bytes(b"this is not an SQLite database" * 100)
    with pytest.raises(JournalCorruptError):
        Journal.open(journal_path)
    # The lock is released after a failed open.
    journal_path.unlink()
    Journal.open(journal_path).close()


def test_a_directory_that_does_not_exist_is_a_write_error(tmp_path: Path) -> None:
    with pytest.raises(JournalWriteError):
        Journal.open(tmp_path / "absent" / "journal.sqlite3")


def test_opening_a_journal_that_lost_rows_is_refused(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        journal.append("station_started", {})
    head = head_path(journal_path)
    head.write_text(canonical_json({"id": 5, "hash": "ab" * 32}))
    with pytest.raises(JournalTruncatedError, match=r"rows 2\.\.5"):
        Journal.open(journal_path)
    head.write_text(canonical_json({"id": 1, "hash": "ab" * 32}))
    with pytest.raises(JournalCorruptError, match="row 1 differs"):
        Journal.open(journal_path)


def test_the_head_record_follows_every_append(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        for _ in range(3):
            journal.append("prompt", {"state": "bets", "lamps": {}})
        rows = list(journal.rows())
        assert parse_head(head_path(journal_path).read_bytes()) == (3, rows[-1].hash)


def test_appends_from_many_threads_keep_one_chain(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:

        def writer(seat: int) -> None:
            for n in range(25):
                journal.append("event", {"type": "test", "seat": seat, "n": n})

        threads = [threading.Thread(target=writer, args=(s,)) for s in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert journal.last_id == 100
    report = verify(journal_path)
    assert report.case is VerifyCase.INTACT and report.rows == 100


def test_rows_filters(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        for n in range(6):
            journal.append("card" if n % 2 else "decision", {"n": n}, round_no=1)
        assert [r.id for r in journal.rows(kinds=["card"])] == [2, 4, 6]
        assert [r.id for r in journal.rows(after_id=2, until_id=4)] == [3, 4]


def test_a_full_disk_appends_nothing(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        journal.append("station_started", {})
        (pages,) = journal._conn.execute("PRAGMA page_count").fetchone()
        journal._conn.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full
        with pytest.raises(JournalWriteError, match="journal write failed"):
            # Random text: format 2 deflates what repeats into a few bytes.
            journal.append("event", {"type": "big", "blob": secrets.token_hex(100_000)})
        assert journal.last_id == 1
    assert verify(journal_path).rows == 1


def test_a_failing_head_record_is_reported(
    journal_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Journal.open(journal_path) as journal:

        def failing(fd: int, data: bytes, offset: int) -> int:
            raise OSError(5, "Input/output error")

        monkeypatch.setattr("controller.journal.store.os.pwrite", failing)
        with pytest.raises(JournalWriteError, match="row 1 is committed"):
            journal.append("station_started", {})
        monkeypatch.undo()
        assert journal.append("clean_shutdown", {}) == 2
    assert verify(journal_path).case is VerifyCase.INTACT


def test_an_append_broken_off_by_an_exception_leaves_a_usable_journal(
    journal_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupt(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # e.g. a signal handler that raises

    with Journal.open(journal_path) as journal:
        journal.append("station_started", {})
        # Broken off after COMMIT, before the bookkeeping: the row stands.
        with monkeypatch.context() as patch:
            patch.setattr(journal, "_write_head", interrupt)
            with pytest.raises(KeyboardInterrupt):
                journal.append("event", {"type": "x"})
        assert journal.append("clean_shutdown", {}) == 3
        # Broken off inside the transaction: rolled back, not left open.
        with monkeypatch.context() as patch:
            patch.setattr("controller.journal.store.plain_row_hash", interrupt)
            with pytest.raises(KeyboardInterrupt):
                journal.append("event", {"type": "y"})
        assert not journal._conn.in_transaction
        assert journal.append("clean_shutdown", {}) == 4
        # SQLite refusing the write inside the transaction: the same.
        journal._conn.execute("PRAGMA query_only = 1")
        with pytest.raises(JournalWriteError):
            journal.append("event", {"type": "z"})
        journal._conn.execute("PRAGMA query_only = 0")
        assert journal.append("clean_shutdown", {}) == 5
    assert verify(journal_path).case is VerifyCase.INTACT


class CommitThenInterrupt:
    """The journal's own SQLite connection, raising KeyboardInterrupt right after a COMMIT
    returns: a signal handler raising at the one point where the rows are on disk and the
    journal's record of its last row has not caught up. Every statement it runs is kept."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.armed = False
        self.statements: list[str] = []
        conn.set_trace_callback(self.statements.append)

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        cursor = self.conn.execute(sql, *args)
        if sql == "COMMIT" and self.armed:
            self.armed = False
            raise KeyboardInterrupt
        return cursor

    def __getattr__(self, name: str) -> object:
        return getattr(self.conn, name)

    tail_reads = 0  # how often the journal read its tail from the file (either format)

    def count_tail_reads(self, journal: Journal) -> None:
        read = journal._read_tail

        def counted() -> tuple[int, str]:
            self.tail_reads += 1
            return read()

        journal._read_tail = counted  # type: ignore[method-assign]


@pytest.mark.parametrize("in_batch", [True, False], ids=["batch", "single append"])
def test_a_write_broken_off_right_after_its_commit_does_not_fork_the_chain(
    journal_path: Path, in_batch: bool
) -> None:
    """The tail is not read in every transaction: it is read again only
    when the last write did not finish its bookkeeping, as here, so the next row follows
    the committed ones instead of forking the chain from the tail held in memory."""
    with Journal.open(journal_path) as journal:
        conn = CommitThenInterrupt(journal._conn)
        journal._conn = conn  # type: ignore[assignment]
        conn.count_tail_reads(journal)
        with journal.batch():
            journal.append("card", {"card": "7S"}, 1)
        journal.append("state", {"state": "dealing"}, 1)
        assert conn.tail_reads == 0  # bookkeeping done: the tail held in memory is good
        conn.armed = True
        with pytest.raises(KeyboardInterrupt):
            if in_batch:
                with journal.batch():
                    journal.append("card", {"card": "8S"}, 1)
                    journal.append("card", {"card": "9S"}, 1)
            else:
                journal.append("card", {"card": "8S"}, 1)
        committed = 4 if in_batch else 3
        with JournalReader.open(journal_path) as reader:
            assert [row.id for row in reader.rows()] == list(range(1, committed + 1))
        with journal.batch():
            assert journal.append("card", {"card": "JS"}, 1) == committed + 1
        assert conn.tail_reads == 1  # read once, after the broken-off write
        assert journal.append("round_completed", {"reshuffle": False}, 1) == committed + 2
        assert conn.tail_reads == 1
    report = verify(journal_path)
    assert report.case is VerifyCase.INTACT, report.message
    assert report.rows == committed + 2


class OddKind(str):
    """A str subclass that formats as something else: the row must hold its own text."""

    __slots__ = ()

    def __format__(self, spec: str) -> str:
        return "forged"

    def __str__(self) -> str:
        return "forged"


@settings(max_examples=60, deadline=None)
@given(
    kinds=st.lists(
        st.one_of(st.text(max_size=70), st.from_regex(r"[a-z][a-z0-9_]{0,70}")), max_size=6
    )
)
def test_any_kind_is_written_as_its_own_text_or_refused(kinds: list[str]) -> None:
    """The writer remembers the kinds it checked: a refused kind stays refused,
    a good one is written as its plain text, str subclasses included, and the chain holds."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "journal.sqlite3"
        written: list[str] = []
        with Journal.open(path) as journal:
            for kind in [*kinds, *kinds, *(OddKind(k) for k in kinds)]:
                good = bool(KIND_PATTERN.fullmatch(kind)) and kind != "seal"
                if good:
                    with journal.batch():
                        journal.append(kind, {"n": len(written)}, 1)
                    written.append(str.__str__(kind))
                else:
                    with pytest.raises(JournalRecordError):
                        journal.append(kind, {}, 1)
            assert [row.kind for row in journal.rows()] == written
        assert verify(path).ok


def test_a_batch_broken_off_as_it_begins_leaves_no_transaction_open(journal_path: Path) -> None:
    """A signal between BEGIN and the batch's start (here: while the tail is read again)."""
    with Journal.open(journal_path) as journal:
        conn = CommitThenInterrupt(journal._conn)
        journal._conn = conn  # type: ignore[assignment]
        conn.armed = True
        with pytest.raises(KeyboardInterrupt):
            journal.append("card", {"card": "7S"}, 1)  # committed; its bookkeeping broken off
        journal._read_tail = lambda: (_ for _ in ()).throw(KeyboardInterrupt)  # type: ignore[method-assign]
        with pytest.raises(KeyboardInterrupt), journal.batch():
            pass
        assert not journal._conn.in_transaction
        del journal._read_tail
        with journal.batch():
            assert journal.append("card", {"card": "8S"}, 1) == 2
    assert verify(journal_path).case is VerifyCase.INTACT


def test_a_seal_committed_before_a_broken_off_bookkeeping_does_not_seal_twice(
    tmp_path: Path,
) -> None:
    """The seal's commit went through, its key's evolution was broken off: the next write
    reads the tail again and evolves the key then, so the next seal is of the next epoch."""
    path, key_file = tmp_path / "journal.sqlite3", tmp_path / "sealing-key"
    state, key = new_sealing("T1")
    save_state(key_file, state)
    with Journal.open(path, sealing=key_file) as journal:
        conn = CommitThenInterrupt(journal._conn)
        journal._conn = conn  # type: ignore[assignment]
        conn.armed = True
        with pytest.raises(KeyboardInterrupt), journal.batch():
            journal.append("card", {"card": "7S"}, 1)
            journal.append("round_completed", {"reshuffle": False}, 1)  # and seal epoch 0
        with journal.batch():
            journal.append("card", {"card": "8S"}, 2)
            journal.append("round_completed", {"reshuffle": False}, 2)  # seal epoch 1
        assert journal.epoch == 2
    assert load_state(key_file).epoch == 2
    report = verify(path, key=key)
    assert report.case is VerifyCase.INTACT, report.message


@pytest.mark.parametrize("forged_epoch", ["1.0", "true", '"1"'])
def test_a_seal_row_whose_epoch_is_no_integer_never_moves_the_key_on(
    tmp_path: Path, forged_epoch: str
) -> None:
    """The tail read again after a batch rolled back ends at a seal row whose ``epoch`` is
    no integer (a row another process inserted while the station writes; docs/journal.md:
    a seal's epoch is the number of its key): it is no seal of the key held, whatever it
    compares equal to, so the key stays as it is."""
    path, key_file = tmp_path / "journal.sqlite3", tmp_path / "sealing-key"
    save_state(key_file, new_sealing("T1")[0])
    with Journal.open(path, sealing=key_file, storage_format=1) as journal:
        journal.append("round_completed", {"reshuffle": False}, 1)  # row 1, seal epoch 0 (2)
        assert journal.epoch == 1
        other = sqlite3.connect(path)
        with other:
            other.execute(
                "INSERT INTO journal (id, ts, kind, round, data, prev_hash, hash)"
                " VALUES (3, ?, 'seal', NULL, ?, ?, ?)",
                (
                    "2026-12-02T00:00:00.000000Z",
                    f'{{"epoch":{forged_epoch}}}',
                    journal.last_hash,
                    "0" * 64,
                ),
            )
        other.close()
        with pytest.raises(KeyError), journal.batch():  # rolled back: the tail is read again
            raise KeyError
        journal.append("card", {"card": "7S"}, 2)
        assert journal.epoch == 1
    assert load_state(key_file).epoch == 1
