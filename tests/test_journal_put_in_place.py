"""The last step of ``journal migrate`` and ``journal rotate`` (``put_in_place`` in
``controller/journal/migrate.py``; docs/journal.md, "Storage format 2" and "Rotation"): the
proved copy renamed over the journal only while nothing wrote the journal meanwhile, and
the old file's side files gone after it. Plain SQLite files stand in for the journal and
its copy: what is checked is which file ends up where.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.journal.format import JournalWriteError
from controller.journal.migrate import put_in_place


def database(path: Path, value: str) -> Path:
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("CREATE TABLE t (v TEXT)")
        conn.execute("INSERT INTO t VALUES (?)", (value,))
    conn.close()
    return path


def value_of(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        (value,) = conn.execute("SELECT v FROM t").fetchone()
    finally:
        conn.close()
    return str(value)


@pytest.mark.parametrize("side_files", [(), ("-wal",), ("-wal", "-shm"), ("-shm",)])
def test_the_copy_replaces_the_journal_and_the_old_side_files_go(
    tmp_path: Path, side_files: tuple[str, ...]
) -> None:
    journal = database(tmp_path / "journal.sqlite3", "old")
    copy = database(tmp_path / ".journal.sqlite3.migrating", "new")
    for suffix in side_files:
        (tmp_path / f"journal.sqlite3{suffix}").write_bytes(b"")  # an idle reader's, empty
    put_in_place(journal, copy)
    assert value_of(journal) == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.sqlite3"]


@pytest.mark.parametrize("size", [1, 4096])
def test_a_journal_written_meanwhile_is_left_and_the_copy_removed(
    tmp_path: Path, size: int
) -> None:
    """A WAL that is not empty holds rows the copy does not: the journal stays."""
    journal = database(tmp_path / "journal.sqlite3", "old")
    copy = database(tmp_path / ".journal.sqlite3.migrating", "new")
    (tmp_path / "journal.sqlite3-wal").write_bytes(b"w" * size)
    with pytest.raises(JournalWriteError) as caught:
        put_in_place(journal, copy)
    assert str(caught.value) == "it was written meanwhile"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.sqlite3", "journal.sqlite3-wal"]
    assert value_of(journal) == "old"
