"""``journal migrate`` (``controller/journal/migrate.py``; docs/journal.md, "Storage format
2") on small journals made in the test: the commit rows cut as documented (at most 32 rows,
each ending at a seal), what the migration proves and returns, the file left in place, the
WAL left beside the journal merged first, and each refusal in one line. Fast cases beside
the fixtures' migrations, the kills and the full disk of tests/test_journal_format2.py.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from controller.journal import migrate as migrate_module
from controller.journal.base import Base
from controller.journal.compact import micros_from_ts
from controller.journal.format import (
    SCHEMA_NOT_UTF8,
    TRIGGER_SQL,
    JournalCorruptError,
    JournalError,
    JournalLockedError,
    JournalWriteError,
    Row,
    head_path,
    row_hash,
)
from controller.journal.migrate import Migrated, migrate_journal, migrating_path
from controller.journal.reader import open_readonly
from controller.journal.seal import new_sealing, save_state
from controller.journal.storage import Format1, Format2, storage_of
from controller.journal.store import Journal
from controller.journal.verify import VerifyCase, verify


def raw(n: int, kind: str) -> tuple[Any, ...]:
    return (n, "2026-12-01T09:00:00.000000Z", kind, None, "{}", "0" * 64, "0" * 64)


@pytest.mark.parametrize(
    ("kinds", "sizes"),
    [
        ([], []),
        (["event"], [1]),
        (["event"] * 31, [31]),
        (["event"] * 32, [32]),  # at most 32 rows a commit row
        (["event"] * 33, [32, 1]),
        (["event"] * 70, [32, 32, 6]),
        (["event"] * 4 + ["seal"] + ["event"] * 3, [5, 3]),  # each ending at a seal
        (["seal"], [1]),
        (["seal", "seal", "event"], [1, 1, 1]),
        (["event"] * 31 + ["seal", "event"], [32, 1]),
        (["event"] * 32 + ["seal"], [32, 1]),
    ],
)
def test_the_rows_are_cut_into_commit_rows_of_at_most_32_each_ending_at_a_seal(
    kinds: list[str], sizes: list[int]
) -> None:
    rows = [raw(n, kind) for n, kind in enumerate(kinds, 1)]
    commits = list(migrate_module._commits(iter(rows)))
    assert [len(c) for c in commits] == sizes
    assert [r for c in commits for r in c] == rows


#: The first row's time: its second is not the migration's (nor the journal's creation's).
FIRST = datetime(2026, 12, 1, 9, 0, 1, 250000, tzinfo=UTC)


def sealed_journal(folder: Path) -> Path:
    """A format-1 journal of 45 rows, sealed as it goes: the station's start (sealed at
    once), a round of 40 rows (a seal after its end), a checkpoint; row N at FIRST + N - 1
    seconds."""
    state, _key = new_sealing("T1")
    save_state(folder / "sealing-key", state)
    path = folder / "journal.sqlite3"
    moments = iter(range(1, 1000))
    clock = lambda: FIRST + timedelta(seconds=next(moments) - 1)  # noqa: E731
    with Journal.open(
        path, clock=clock, sealing=folder / "sealing-key", storage_format=1
    ) as journal:
        journal.append("station_started", {})  # row 1, its seal row 2
        with journal.batch():
            journal.append("round_started", {}, 1)  # row 3
            for n in range(38):
                journal.append("card", {"n": n}, 1)  # rows 4..41
            journal.append("round_completed", {}, 1)  # row 42, its seal row 43
        journal.checkpoint()  # row 44
        journal.append("event", {"seat": 1, "spot": "main", "chips": 500})  # row 45
    return path


def files(folder: Path) -> dict[str, bytes]:
    """The folder's files but a reader's side files (its shared memory, an empty WAL)."""
    return {
        p.name: p.read_bytes()
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.endswith("-shm") and not (p.name.endswith("-wal") and
        p.stat().st_size == 0)
    }  # fmt: skip


def rows_of(path: Path) -> list[Row]:
    conn = open_readonly(path)
    try:
        return list(storage_of(conn).rows())
    finally:
        conn.close()


def test_a_journal_is_migrated_to_format_2_with_the_same_rows(tmp_path: Path) -> None:
    path = sealed_journal(tmp_path)
    rows = rows_of(path)
    assert [r.id for r in rows if r.kind == "seal"] == [2, 43]
    head = head_path(path).read_bytes()
    done = migrate_journal(path)
    assert done == Migrated(rows=45, last_id=45, last_hash=rows[-1].hash, seals=2)
    assert rows_of(path) == rows
    conn = open_readonly(path)
    try:
        assert isinstance(storage_of(conn), Format2)
        cuts = conn.execute("SELECT first_id, last_id FROM journal_commit ORDER BY 1").fetchall()
        # rows 1..2 end at a seal; 3..34 are 32 rows; 35..43 end at a seal; 44..45 the rest
        assert cuts == [(1, 2), (3, 34), (35, 43), (44, 45)]
        (ts_base,) = conn.execute("SELECT ts_base FROM journal_codec").fetchone()
        # the copy's time base: the second of its first row (a new file's: its creation's)
        assert rows[0].ts == "2026-12-01T09:00:01.250000Z"
        assert ts_base == micros_from_ts("2026-12-01T09:00:01.000000Z")
    finally:
        conn.close()
    assert head_path(path).read_bytes() == head  # the same last row: the head stays
    assert sorted(files(tmp_path)) == ["journal.sqlite3", "journal.sqlite3-head", "sealing-key"]
    assert verify(path).case is VerifyCase.INTACT
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        journal.append("station_started", {})  # the station goes on from the copy
    assert verify(path).case is VerifyCase.INTACT


def test_an_empty_journal_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal.open(path, storage_format=1).close()
    assert migrate_journal(path) == Migrated(rows=0, last_id=0, last_hash="0" * 64, seals=0)
    assert rows_of(path) == []
    conn = open_readonly(path)
    try:
        assert isinstance(storage_of(conn), Format2)
    finally:
        conn.close()


def test_the_copy_is_committed_every_so_many_commit_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Commit rows are copied a transaction of ``_COMMITS_A_TRANSACTION`` at a time (two
    here, so that a transaction ends inside the copy): every row is in the copy."""
    monkeypatch.setattr(migrate_module, "_COMMITS_A_TRANSACTION", 2)
    path = sealed_journal(tmp_path)
    rows = rows_of(path)
    assert migrate_journal(path).rows == 45
    assert rows_of(path) == rows


def test_a_wal_left_beside_the_journal_is_merged_first(tmp_path: Path) -> None:
    """A journal copied while its station ran (or left by a kill) has rows in its WAL:
    they are merged into it first, and migrated with the rest."""
    made = tmp_path / "made"
    made.mkdir()
    path = tmp_path / "journal.sqlite3"
    with Journal.open(made / "journal.sqlite3", storage_format=1) as journal:
        journal.append("station_started", {})
        journal.append("event", {"n": 2})
        for name in ("journal.sqlite3", "journal.sqlite3-wal", "journal.sqlite3-head"):
            shutil.copyfile(made / name, tmp_path / name)
    assert (tmp_path / "journal.sqlite3-wal").stat().st_size > 0
    rows = rows_of(made / "journal.sqlite3")
    assert migrate_journal(path).rows == 2
    assert not (tmp_path / "journal.sqlite3-wal").exists()
    assert rows_of(path) == rows


def test_a_rotated_journals_base_carries_across(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal.open(path, storage_format=1).close()
    base = Base(row=5, hash="ab" * 32, segment="journal-1.seg", header="cd" * 32, epoch=0, open=())
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO meta (key, value) VALUES ('base', ?)", (base.to_text(),))
    conn.commit()
    conn.close()
    with Journal.open(path) as journal:
        journal.append("station_started", {})  # row 6
    rows = rows_of(path)
    assert [r.id for r in rows] == [6]
    assert migrate_journal(path) == Migrated(1, 6, rows[0].hash, 0)
    conn = open_readonly(path)
    try:
        storage = storage_of(conn)
        assert isinstance(storage, Format2)
        assert storage.base == base
        assert list(storage.rows()) == rows
    finally:
        conn.close()


# -- refusals: each one line, the journal left as it was ----------------------------------


def test_no_journal_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with pytest.raises(FileNotFoundError) as caught:
        migrate_journal(path)
    assert str(caught.value) == f"no journal at {path}"


def test_a_journal_without_its_head_record_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal.open(path, storage_format=1).close()
    head_path(path).unlink()
    with pytest.raises(JournalCorruptError) as caught:
        migrate_journal(path)
    assert str(caught.value) == f"{path}: no head record beside it (No such file or directory)"


def test_a_journal_open_for_writing_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=1) as journal:
        journal.append("station_started", {})
        with pytest.raises(JournalLockedError) as caught:
            migrate_journal(path)
        assert str(caught.value) == f"{path} is open for writing by another process"
    # the lock was the writer's alone: once it closed, the journal migrates
    assert migrate_journal(path).rows == 1


def test_the_lock_is_given_back_after_a_refusal(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal.open(path, storage_format=2).close()
    for _ in range(2):
        with pytest.raises(JournalCorruptError):
            migrate_journal(path)
    with Journal.open(path) as journal:  # the writer's lock is free
        journal.append("station_started", {})


def test_a_format_2_journal_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=2) as journal:
        journal.append("station_started", {})
    before = files(tmp_path)
    with pytest.raises(JournalCorruptError) as caught:
        migrate_journal(path)
    assert type(caught.value) is JournalCorruptError
    assert str(caught.value) == f"{path} is not migrated: it is storage format 2 already"
    assert files(tmp_path) == before


def test_a_journal_that_does_not_verify_is_refused(tmp_path: Path) -> None:
    path = sealed_journal(tmp_path)
    conn = sqlite3.connect(path, isolation_level=None)
    for name in TRIGGER_SQL:
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("""UPDATE journal SET data = '{"n":99}' WHERE id = 10""")
    conn.close()
    before = files(tmp_path)
    with pytest.raises(JournalCorruptError) as caught:
        migrate_journal(path)
    assert str(caught.value) == (
        f"{path} is not migrated: altered: row 10: content does not match its hash"
    )
    assert files(tmp_path) == before
    conn = open_readonly(path)
    try:
        assert isinstance(storage_of(conn), Format1)
    finally:
        conn.close()


def test_a_copy_left_by_an_earlier_run_is_removed_first(tmp_path: Path) -> None:
    path = sealed_journal(tmp_path)
    left = migrating_path(path)
    assert left == tmp_path / ".journal.sqlite3.migrating"
    for suffix in ("", "-wal", "-journal"):
        Path(f"{left}{suffix}").write_bytes(b"left by a kill")
    assert migrate_journal(path).rows == 45
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "journal.sqlite3",
        "journal.sqlite3-head",
        "sealing-key",
    ]  # and none of the old file's side files


def test_a_copy_that_cannot_be_written_is_refused_and_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copy's insert fails as on a full disk: one line, the journal as it was, no copy."""
    path = sealed_journal(tmp_path)
    before = files(tmp_path)

    def full(self: Format2, rows: list[Any]) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Format2, "insert", full)
    with pytest.raises(Exception) as caught:
        migrate_journal(path)
    assert str(caught.value) == f"{path} is not migrated: database or disk is full"
    assert files(tmp_path) == before
    assert not os.path.exists(migrating_path(path))


def test_a_copy_that_does_not_verify_is_refused_and_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy that lost a row (a fault of the copying: row 34, the last of the second
    commit row) does not verify against the journal's head: the journal stays."""
    path = sealed_journal(tmp_path)
    before = files(tmp_path)
    commits = migrate_module._commits

    def dropping(rows: Iterator[Any]) -> Iterator[list[Any]]:
        for number, commit in enumerate(commits(rows)):
            yield commit[:-1] if number == 1 else commit

    monkeypatch.setattr(migrate_module, "_commits", dropping)
    with pytest.raises(JournalCorruptError) as caught:
        migrate_journal(path)
    assert str(caught.value) == (
        f"{path} is not migrated: the copy: removed: row 34: missing (rows 34..34)"
    )
    assert files(tmp_path) == before
    assert not migrating_path(path).exists()


def test_a_copy_that_verifies_with_other_rows_is_refused_and_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy with a row more, chained as the station would (a head record may lag, so it
    verifies), does not hold the journal's rows: the journal stays."""
    path = sealed_journal(tmp_path)
    before = files(tmp_path)
    commits = migrate_module._commits

    def adding(rows: Iterator[Any]) -> Iterator[list[Any]]:
        last: tuple[Any, ...] = ()
        for commit in commits(rows):
            last = commit[-1]
            yield commit
        row_id, ts, data = last[0] + 1, last[1], '{"n":46}'
        digest = row_hash(last[6], row_id=row_id, ts=ts, kind="event", round_no=None,
                          data_text=data)  # fmt: skip
        yield [(row_id, ts, "event", None, data, last[6], digest)]

    monkeypatch.setattr(migrate_module, "_commits", adding)
    with pytest.raises(JournalCorruptError) as caught:
        migrate_journal(path)
    assert str(caught.value) == (
        f"{path} is not migrated: the copy's rows, last hash or seals differ"
    )
    assert files(tmp_path) == before
    assert not migrating_path(path).exists()


@pytest.mark.parametrize(
    ("sql", "kind", "why"),
    [
        # a table's statement cut short: SQLite refuses the schema
        (
            "435245415445205441424c452078202876",  # CREATE TABLE x (v
            JournalWriteError,
            "its WAL could not be merged: malformed database schema (x) - incomplete input",
        ),
        # a byte that is not UTF-8 after it: SQLite's message cannot be read as text
        ("435245415445205441424c4520782028762920ff", JournalCorruptError, SCHEMA_NOT_UTF8),
    ],
    ids=["malformed", "not-utf8"],
)
def test_a_journal_whose_wal_cannot_be_merged_is_refused_in_one_line(
    tmp_path: Path, sql: str, kind: type[JournalError], why: str
) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=1) as journal:
        journal.append("station_started", {})
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE x (v)")
    conn.execute("PRAGMA writable_schema=ON")
    conn.execute(f"UPDATE sqlite_master SET sql = CAST(x'{sql}' AS TEXT) WHERE name = 'x'")
    conn.close()
    Path(f"{path}-wal").write_bytes(b"")  # an idle reader's WAL: merged first
    before = files(tmp_path)
    with pytest.raises(JournalError) as caught:
        migrate_journal(path)
    assert type(caught.value) is kind
    assert str(caught.value) == f"{path} is not migrated: {why}"
    assert files(tmp_path) == before
