"""Making a journal file: atomic creation (built aside, checked, renamed into place), the
journal's own files (what nothing else may be written over), and what a creation cut
short leaves (a half-made journal, the temporary's files), removed at the next open.

Used by ``controller.journal.opening`` under the writer's lock; ``journal_files`` also by
the configuration's and the command line's checks.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path
from typing import Final

from controller.journal.dictionaries import commit_dictionary
from controller.journal.format import (
    HEAD_RECORD_SIZE,
    HEAD_SUFFIX,
    TRIGGER_SQL,
    TRIGGER_SQL_2,
    JournalCorruptError,
    JournalWriteError,
    parse_head,
)
from controller.journal.reader import open_readonly
from controller.journal.schema import apply_schema, start_format_2


def is_half_made(path: Path, head: Path) -> bool:
    """True for a journal whose creation was cut short (a full disk, a power cut, before
    creation was atomic): an empty file, or an SQLite file without the journal's tables,
    beside a head record that names no row. It holds no record and may be made again."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return False
    raw = head.read_bytes()[:HEAD_RECORD_SIZE] if head.is_file() else b""
    named = parse_head(raw) if raw.strip() else None
    if named is not None and named[0] > 0:
        return False
    if size == 0:
        return True
    try:
        conn = open_readonly(path)
    except (JournalCorruptError, FileNotFoundError):
        return False
    try:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError:
        return False
    finally:
        conn.close()
    return not {"journal", "meta"} <= tables


#: The page size of a new journal. Each commit writes whole WAL frames of the pages it
#: changed (the table's last leaf page, an index's): with 1 KiB pages instead of SQLite's
#: 4 KiB a busy table's round writes about 256 KB instead of 406 KB to the card, for a file
#: 8% larger (bench/journal_layouts.py, docs/performance.md). A journal made before keeps
#: the page size it has (SQLite changes it only in an empty file or by a VACUUM).
PAGE_SIZE: Final = 1024
#: The page size of a new format-2 journal (docs/journal.md, "Storage format 2"): with 4
#: KiB pages its file is 8% smaller and a round writes twice as many bytes.
PAGE_SIZE_2: Final = 1024

#: The storage format of a new journal (docs/journal.md, "Storage format 2"): format 2,
#: "a commit a row" (4,285 bytes a round against format 1's 37,504).
#: ``Journal.open(storage_format=1)`` still makes format 1, and a journal keeps the format
#: it has (every older station's is format 1; ``journal migrate`` makes it format 2).
DEFAULT_FORMAT = 2

#: The SQLite side files a database may have beside it.
SIDE_SUFFIXES: Final = ("-wal", "-shm", "-journal")


def creating_path(path: Path) -> Path:
    """Where :func:`create_database` builds the journal at ``path`` before the rename."""
    return path.with_name(f".{path.name}.creating")


def journal_files(path: Path) -> tuple[Path, ...]:
    """Every file that belongs to the journal at ``path``: the database, its SQLite side
    files, the head record, and the temporaries of its creation. Nothing else may be
    written over any of them (a key file, a log)."""
    tmp = creating_path(path)
    return (
        path,
        *(path.with_name(path.name + suffix) for suffix in (*SIDE_SUFFIXES, HEAD_SUFFIX)),
        tmp,
        *(tmp.with_name(tmp.name + suffix) for suffix in SIDE_SUFFIXES),
    )


def remove_creation_leftovers(path: Path) -> None:
    """Remove what a creation of the journal at ``path`` cut short left (the temporary
    database and its side files). Call it under the writer's lock.

    Raises:
        OSError: one could not be removed.
    """
    tmp = creating_path(path)
    for leftover in (tmp, *(tmp.with_name(tmp.name + suffix) for suffix in SIDE_SUFFIXES)):
        leftover.unlink(missing_ok=True)


def create_database(path: Path, version: int | None = None, ts_base: int | None = None) -> None:
    """Make a new, empty journal at ``path`` atomically: built under a temporary name in
    rollback-journal mode (each commit is in the file itself when it returns; a WAL could
    be left unmerged by a checkpoint that failed quietly at close) and switched to WAL
    only then, checked (:func:`_check_created`), synced, then renamed into place (and the
    directory synced). A full disk or a power cut leaves
    either no journal or a whole one, and never the temporary files. ``version``: the
    storage format (:data:`DEFAULT_FORMAT` when None); ``ts_base``: format 2's time base in
    microseconds since 1970 (now when None).

    Raises:
        JournalWriteError: the file system refused (the temporary files are removed).
    """
    tmp = creating_path(path)
    version = DEFAULT_FORMAT if version is None else version
    try:
        remove_creation_leftovers(path)
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=DELETE")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute(f"PRAGMA page_size={PAGE_SIZE_2 if version == 2 else PAGE_SIZE}")
            conn.execute("BEGIN IMMEDIATE")
            apply_schema(conn, version)
            if version == 2:
                base = time.time_ns() // 1_000_000_000 * 1_000_000 if ts_base is None else ts_base
                start_format_2(conn, commit_dictionary(), base)
            conn.execute("COMMIT")
            _check_created(conn, version)
            # WAL from the start (a header change, written in rollback mode): the rename
            # gives the writer the mode it opens with, with nothing to convert in place.
            (mode,) = conn.execute("PRAGMA journal_mode=WAL").fetchone()
            if mode != "wal":
                raise sqlite3.OperationalError(f"SQLite refused WAL mode ({mode})")
        finally:
            conn.close()  # removes the (empty) WAL
        sync_alone(tmp)
        os.replace(tmp, path)
        sync_directory(path.parent)
    except (OSError, sqlite3.Error) as err:
        with contextlib.suppress(OSError):
            remove_creation_leftovers(path)
        raise JournalWriteError(f"cannot create {path}: {err}") from err


def sync_alone(path: Path) -> None:
    """Sync the closed database at ``path`` to disk once no SQLite side file is left
    beside it (what it holds is all in the file: it may be renamed into place).

    Raises:
        sqlite3.OperationalError: a side file is left.
        OSError: the sync failed.
    """
    if any(path.with_name(path.name + suffix).exists() for suffix in SIDE_SUFFIXES):
        raise sqlite3.OperationalError(f"{path.name} left a side file behind")
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _check_created(conn: sqlite3.Connection, version: int) -> None:
    """The new database (committed in rollback mode on ``conn``) is whole: SQLite's
    integrity check passes and it has the journal's tables and triggers.

    Raises:
        sqlite3.DatabaseError: it is not.
    """
    problems = [row[0] for row in conn.execute("PRAGMA integrity_check")]
    names = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    triggers = TRIGGER_SQL_2 if version == 2 else TRIGGER_SQL
    if problems != ["ok"] or not {"journal", "meta", *triggers} <= names:
        raise sqlite3.DatabaseError("the new journal does not check out")


def remove_half_made(path: Path) -> None:
    """Remove a half-made journal (:func:`is_half_made`) and its SQLite side files."""
    for suffix in ("-wal", "-shm", "-journal", ""):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


def sync_directory(directory: Path) -> None:
    """fsync a directory, so that a new or renamed entry in it survives a power cut."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
