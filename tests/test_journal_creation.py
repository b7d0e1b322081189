"""Making a journal file (``controller.journal.creation``; docs/journal.md, "Durable and
atomic creation" and "Storage format 2"): what is half-made and made again, and what never
is; the journal's own files; the creation's order (synced, renamed, the directory synced);
format 2's time base. Fast: no full disk here (tests/test_journal_storage.py has it)."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from controller.journal import creation
from controller.journal.creation import (
    create_database,
    creating_path,
    is_half_made,
    journal_files,
    sync_alone,
)
from controller.journal.format import (
    JournalTruncatedError,
    JournalWriteError,
    head_path,
    head_record,
)
from controller.journal.store import Journal
from controller.journal.verify import verify


def ts_base(path: Path) -> int:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        (base,) = conn.execute("SELECT ts_base FROM journal_codec").fetchone()
    finally:
        conn.close()
    assert type(base) is int
    return int(base)


def test_the_journals_files_are_the_database_its_side_files_head_and_temporaries() -> None:
    folder = Path("/var/lib/dealer-station")
    assert journal_files(folder / "j.sqlite3") == tuple(
        folder / name
        for name in (
            "j.sqlite3",
            "j.sqlite3-wal",
            "j.sqlite3-shm",
            "j.sqlite3-journal",
            "j.sqlite3-head",
            ".j.sqlite3.creating",
            ".j.sqlite3.creating-wal",
            ".j.sqlite3.creating-shm",
            ".j.sqlite3.creating-journal",
        )
    )


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_journal_opened_and_closed_without_a_row_is_kept(
    tmp_path: Path, storage_format: int
) -> None:
    """A new journal with its tables and no row yet (its head names row 0) is a journal,
    not a half-made one: opened again, it is the same file, not made again."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=storage_format) as journal:
        assert not journal.replaced_half_made
    assert not is_half_made(path, head_path(path))
    inode = path.stat().st_ino
    with Journal.open(path) as journal:
        assert not journal.replaced_half_made
        journal.append("station_started", {})
    assert path.stat().st_ino == inode
    assert verify(path).ok


@pytest.mark.parametrize("head", ["none", "empty", "blank", "row 0", "garbage"])
@pytest.mark.parametrize("half", ["empty file", "no tables", "meta only", "journal only"])
def test_a_half_made_journal_beside_a_head_that_names_no_row_is_made_again(
    tmp_path: Path, head: str, half: str
) -> None:
    path = tmp_path / "journal.sqlite3"
    record = {
        "empty": b"",
        "blank": b" " * 127 + b"\n",
        "row 0": head_record(0, "0" * 64),
        "garbage": b"\xff" * 128,
    }
    if head in record:
        head_path(path).write_bytes(record[head])
    if half == "empty file":
        path.write_bytes(b"")
    else:
        conn = sqlite3.connect(path)
        if half in ("meta only", "journal only"):
            table = half.split(maxsplit=1)[0]
            conn.execute(f"CREATE TABLE {table} (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("PRAGMA user_version = 1")  # an SQLite file with a header
        conn.close()
    assert is_half_made(path, head_path(path))
    with Journal.open(path) as journal:
        assert journal.replaced_half_made
        journal.append("station_started", {})
    assert verify(path).ok


@pytest.mark.parametrize("named", [1, 2, 1000])
def test_an_empty_file_beside_a_head_naming_rows_is_truncated_not_half_made(
    tmp_path: Path, named: int
) -> None:
    """From row 1 on, the head record says rows were written: an empty file beside it lost
    them (docs/journal.md: truncated), and is never made again in its place."""
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"")
    head_path(path).write_bytes(head_record(named, "a" * 64))
    assert not is_half_made(path, head_path(path))
    for _ in range(2):  # and still at the next start: the head record is left as it was
        with pytest.raises(JournalTruncatedError):
            Journal.open(path)
        assert head_path(path).read_bytes() == head_record(named, "a" * 64)


def test_no_file_is_not_half_made(tmp_path: Path) -> None:
    assert not is_half_made(tmp_path / "journal.sqlite3", tmp_path / "journal.sqlite3-head")


def test_a_file_sqlite_cannot_read_is_not_half_made(tmp_path: Path) -> None:
    """A damaged journal is evidence: never replaced (tests/test_journal_storage.py opens
    one), whether SQLite refuses its header or its schema."""
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"not a database at all, but a damaged journal" * 100)
    assert not is_half_made(path, head_path(path))
    header = sqlite3.connect(tmp_path / "real.sqlite3")
    header.execute("CREATE TABLE meta (key TEXT)")
    header.close()
    # SQLite's own header, then a schema page of garbage
    raw = (tmp_path / "real.sqlite3").read_bytes()
    path.write_bytes(raw[:100] + b"\xff" * (len(raw) - 100))
    assert not is_half_made(path, head_path(path))


def test_a_new_format_2_journal_counts_its_times_from_the_whole_second_it_was_made(
    tmp_path: Path,
) -> None:
    """docs/journal.md, "Storage format 2": a row's time is stored in microseconds after
    the file's base, the creation's time in microseconds since 1970, whole seconds."""
    before = time.time_ns() // 1_000_000_000 * 1_000_000
    with Journal.open(tmp_path / "journal.sqlite3", storage_format=2):
        pass
    after = time.time_ns() // 1_000
    base = ts_base(tmp_path / "journal.sqlite3")
    assert before <= base <= after
    assert base % 1_000_000 == 0
    create_database(tmp_path / "given.sqlite3", 2, ts_base=1_700_000_000_000_000)
    assert ts_base(tmp_path / "given.sqlite3") == 1_700_000_000_000_000


def test_the_creation_syncs_the_file_renames_it_then_syncs_the_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/journal.md: built aside, checked, synced, renamed into place, and the
    directory synced, so that a power cut leaves no journal or a whole one. The system
    calls are recorded (the power cut itself cannot be)."""
    path = tmp_path / "journal.sqlite3"
    steps: list[tuple[str, ...]] = []
    fsync, replace = os.fsync, os.replace

    def recorded_fsync(fd: int) -> None:
        target = Path(os.readlink(f"/proc/self/fd/{fd}"))
        steps.append(("fsync", target.name, "dir" if target.is_dir() else "file"))
        fsync(fd)

    def recorded_replace(src: os.PathLike[str], dst: os.PathLike[str]) -> None:
        steps.append(("replace", Path(src).name, Path(dst).name))
        replace(src, dst)

    monkeypatch.setattr(os, "fsync", recorded_fsync)
    monkeypatch.setattr(os, "replace", recorded_replace)
    create_database(path, 2)
    assert steps == [
        ("fsync", ".journal.sqlite3.creating", "file"),
        ("replace", ".journal.sqlite3.creating", "journal.sqlite3"),
        ("fsync", tmp_path.name, "dir"),
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.sqlite3"]
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        conn.close()


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_database_with_a_side_file_left_is_not_synced_for_the_rename(
    tmp_path: Path, suffix: str
) -> None:
    """What a side file holds is not in the database: it must not be renamed into place
    without it."""
    tmp = tmp_path / ".j.creating"
    tmp.write_bytes(b"")
    tmp.with_name(tmp.name + suffix).write_bytes(b"")
    with pytest.raises(sqlite3.OperationalError) as refused:
        sync_alone(tmp)
    assert str(refused.value) == ".j.creating left a side file behind"


def test_the_leftovers_of_a_creation_cut_short_are_removed_at_the_next_open(
    tmp_path: Path,
) -> None:
    path = tmp_path / "journal.sqlite3"
    tmp = creating_path(path)
    leftovers = [tmp, *(tmp.with_name(tmp.name + s) for s in ("-wal", "-shm", "-journal"))]
    for leftover in leftovers:
        leftover.write_bytes(b"half")
    with Journal.open(path) as journal:
        journal.append("station_started", {})
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    assert verify(path).ok


def test_a_creation_the_file_system_refuses_leaves_nothing(tmp_path: Path) -> None:
    """The temporary's name is taken by a folder (nothing the station makes): the creation
    fails in one line naming the journal, and leaves no journal and no temporary file."""
    path = tmp_path / "journal.sqlite3"
    blocked = creating_path(path).with_name(creating_path(path).name + "-journal")
    blocked.mkdir()
    with pytest.raises(JournalWriteError) as refused:
        create_database(path)
    assert str(refused.value).startswith(f"cannot create {path}: ")
    assert "\n" not in str(refused.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == [blocked.name]


def test_a_new_journal_that_does_not_check_out_is_not_renamed_into_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A schema that did not take whole (here: the triggers left out) fails the check
    before the rename: no journal, no temporary."""
    apply_schema = creation.apply_schema

    def without_triggers(conn: sqlite3.Connection, version: int = 1) -> None:
        apply_schema(conn, version)
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
            conn.execute(f"DROP TRIGGER {name}")

    monkeypatch.setattr(creation, "apply_schema", without_triggers)
    path = tmp_path / "journal.sqlite3"
    for version in (1, 2):
        with pytest.raises(JournalWriteError) as refused:
            create_database(path, version)
        assert str(refused.value) == f"cannot create {path}: the new journal does not check out"
        assert list(tmp_path.iterdir()) == []


def test_a_half_made_journal_goes_with_its_sqlite_side_files(tmp_path: Path) -> None:
    """A rollback journal or WAL left beside a half-made file would be played back into
    the new journal made in its place by SQLite: they go with it, and nothing else does
    (the head record stays: it is the writer's lock)."""
    path = tmp_path / "journal.sqlite3"
    kept = [head_path(path), tmp_path / "journal.sqlite3-wal.bak", tmp_path / "other.sqlite3"]
    for name in ("", "-wal", "-shm", "-journal"):
        path.with_name(path.name + name).write_bytes(b"half")
    for other in kept:
        other.write_bytes(b"kept")
    creation.remove_half_made(path)
    assert sorted(tmp_path.iterdir()) == sorted(kept)
    creation.remove_half_made(path)  # nothing left to remove: no error


@pytest.mark.parametrize(("given", "made"), [(None, 2), (1, 1), (2, 2)])
def test_a_new_journal_is_format_2_unless_format_1_is_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: int | None, made: int
) -> None:
    """docs/journal.md, "Storage format 2": a new journal is format 2; format 1 is still
    made when asked for."""
    monkeypatch.setattr(creation, "DEFAULT_FORMAT", 2)  # whatever the run's option
    path = tmp_path / "journal.sqlite3"
    create_database(path, given)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT value FROM meta").fetchall() == [(str(made),)]
    finally:
        conn.close()


@pytest.mark.parametrize("size", [2, 99, 100, 4096])
def test_a_file_of_a_few_bytes_is_damaged_not_half_made(tmp_path: Path, size: int) -> None:
    """Only an empty file, or an SQLite file without the journal's tables, is half-made:
    a few bytes that are no SQLite file are a damaged journal, kept as evidence. (SQLite
    reads a file of one byte as an empty database: half-made, as an empty file is.)"""
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"x" * size)
    assert not is_half_made(path, head_path(path))


def test_a_file_with_the_journals_two_tables_alone_is_not_half_made(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    conn.execute("CREATE TABLE journal (id INTEGER PRIMARY KEY)")
    conn.close()
    assert not is_half_made(path, head_path(path))


def test_sqlite_refusing_wal_mode_fails_the_creation_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file system where SQLite cannot keep a WAL (its answer is the mode it stays in):
    no journal is made. The real connection answers every statement but that one."""

    class RefusingWal(sqlite3.Connection):
        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
            if sql == "PRAGMA journal_mode=WAL":
                return super().execute("SELECT 'delete'")
            return super().execute(sql, *args)  # type: ignore[arg-type]

    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: connect(*a, **k, factory=RefusingWal))
    path = tmp_path / "journal.sqlite3"
    with pytest.raises(JournalWriteError) as refused:
        create_database(path)
    assert str(refused.value) == f"cannot create {path}: SQLite refused WAL mode (delete)"
    assert list(tmp_path.iterdir()) == []
