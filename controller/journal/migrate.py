"""``journal migrate``: a format-1 journal copied into storage format 2 (docs/journal.md,
"Storage format 2"), proved, and renamed into place.

The rows are the same logical rows, so every hash, seal, checkpoint and anchor carries
across unchanged: the copy is walked as ``journal verify`` walks it, and its last row's id
and hash, its row count and every seal row's id and hash must be the original's before
the copy replaces it. The head record and the sealing key file stay as they are (they name
the same last row and epoch). Until the rename the original is not written (a WAL left
beside it is merged into it first, which changes no row); a full disk, a kill or a failed
proof leaves it as it was and at most a temporary ``.NAME.migrating`` that the next run
removes.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.journal.base import BASE_KEY
from controller.journal.compact import micros_from_ts
from controller.journal.creation import (
    SIDE_SUFFIXES,
    create_database,
    remove_creation_leftovers,
    sync_alone,
    sync_directory,
)
from controller.journal.format import (
    SCHEMA_NOT_UTF8,
    JournalCorruptError,
    JournalError,
    JournalLockedError,
    JournalWriteError,
    head_path,
)
from controller.journal.reader import open_readonly
from controller.journal.report import GOOD_CASES
from controller.journal.seal import SEAL_KIND
from controller.journal.storage import Format2, RawRow, storage_of
from controller.journal.verify import verify

#: The most rows one commit row of a migrated journal holds (a commit row also ends at a
#: seal): about a device event's commit of a busy round.
MIGRATED_COMMIT_ROWS: Final = 32
#: Commit rows inserted a transaction while copying.
_COMMITS_A_TRANSACTION: Final = 512


@dataclass(frozen=True, slots=True)
class Migrated:
    """What a migration proved: the rows, the last row's id and hash, the seals."""

    rows: int
    last_id: int
    last_hash: str
    seals: int


def migrating_path(path: Path) -> Path:
    """Where :func:`migrate_journal` builds the format-2 copy of the journal at ``path``."""
    return path.with_name(f".{path.name}.migrating")


def remove_temporary(copy: Path) -> None:
    """Remove a copy built beside the journal (``journal migrate``'s, ``journal
    rotate``'s) with its side files and its creation's leftovers."""
    remove_creation_leftovers(copy)
    for suffix in ("", *SIDE_SUFFIXES):
        copy.with_name(copy.name + suffix).unlink(missing_ok=True)


def _remove_copy(path: Path) -> None:
    remove_temporary(migrating_path(path))


@contextlib.contextmanager
def writer_lock(path: Path) -> Iterator[None]:
    """The writer's lock on the journal at ``path`` (its head record's ``flock``), held
    while the journal is replaced: the station cannot start meanwhile.

    Raises:
        JournalLockedError: the station (or another writer) has the journal open.
        JournalCorruptError: there is no head record beside it.
    """
    try:
        lock = os.open(head_path(path), os.O_RDWR | os.O_CLOEXEC)
    except OSError as err:
        raise JournalCorruptError(f"{path}: no head record beside it ({err.strerror})") from err
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as err:
            raise JournalLockedError(f"{path} is open for writing by another process") from err
        yield
    finally:
        os.close(lock)  # releases the lock


def _commits(rows: Iterator[RawRow]) -> Iterator[list[RawRow]]:
    """The rows cut into commit rows: at most :data:`MIGRATED_COMMIT_ROWS`, each ending at
    a seal."""
    commit: list[RawRow] = []
    for raw in rows:
        commit.append(raw)
        if raw[2] == SEAL_KIND or len(commit) >= MIGRATED_COMMIT_ROWS:
            yield commit
            commit = []
    if commit:
        yield commit


def _summary(conn: sqlite3.Connection) -> tuple[int, int, str, list[tuple[int, str]]]:
    storage = storage_of(conn)
    last_id, last_hash = storage.tail()
    seals = [(row.id, row.hash) for row in storage.rows(kinds=[SEAL_KIND])]
    return storage.count(), last_id, last_hash, seals


def migrate_journal(path: Path) -> Migrated:
    """Replace the format-1 journal at ``path`` by its format-2 copy (see the module
    docstring). The station must not be running (the writer's lock is taken).

    Raises:
        JournalLockedError: the station (or another writer) has the journal open.
        JournalCorruptError: the journal is already format 2, or does not verify; the copy
            does not prove the same rows (one line each).
        JournalWriteError: the copy could not be written (a full disk); the journal is
            left as it was.
        FileNotFoundError: there is no journal at ``path``.
    """
    if not path.is_file():
        raise FileNotFoundError(f"no journal at {path}")
    with writer_lock(path):
        try:
            _remove_copy(path)
            return _migrate_locked(path)
        except JournalError as err:  # one line, naming the journal once
            raise type(err)(f"{path} is not migrated: {err}") from err
        except (OSError, sqlite3.Error) as err:
            raise JournalWriteError(f"{path} is not migrated: {err}") from err


def _migrate_locked(path: Path) -> Migrated:
    _merge_wal(path)
    conn = open_readonly(path)
    try:
        if storage_of(conn).version != 1:
            raise JournalCorruptError("it is storage format 2 already")
        report = verify(path)
        if report.case not in GOOD_CASES:
            raise JournalCorruptError(report.message)
        before = _summary(conn)
        first = storage_of(conn).row(storage_of(conn).start()[0] + 1)
        copy = migrating_path(path)
        base = micros_from_ts(first.ts) // 1_000_000 * 1_000_000 if first is not None else None
        try:
            create_database(copy, 2, base)
            _copy_rows(conn, copy)
        except BaseException:
            _remove_copy(path)
            raise
    finally:
        conn.close()
    try:
        _prove(path, copy, before)
    except BaseException:
        _remove_copy(path)
        raise
    put_in_place(path, copy)
    rows, last_id, last_hash, seals = before
    return Migrated(rows, last_id, last_hash, len(seals))


def put_in_place(path: Path, copy: Path) -> None:
    """Rename the proved ``copy`` over the journal at ``path``: its WAL closed and the
    copy synced first, the folder synced after; the copy is removed if that fails (the
    journal is then as it was).

    Raises:
        JournalWriteError: the journal was written meanwhile (its WAL is not empty).
        OSError, sqlite3.Error: the file system refused.
    """
    try:
        _settle(copy)
        wal = path.with_name(path.name + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise JournalWriteError("it was written meanwhile")
        os.replace(copy, path)
        sync_directory(path.parent)
    except BaseException:
        remove_temporary(copy)
        raise
    # The old file's readers' side files (an empty WAL, its shared memory): none of the copy's.
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


def _merge_wal(path: Path) -> None:
    """Merge a WAL left beside the journal into it (no row changes), so that nothing of the
    old file's is left beside the copy renamed into place."""
    if not path.with_name(path.name + "-wal").exists():
        return
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.Error as err:
        raise JournalWriteError(f"its WAL could not be merged: {err}") from err
    except UnicodeDecodeError as err:
        raise JournalCorruptError(SCHEMA_NOT_UTF8) from err
    finally:
        conn.close()


def _copy_rows(source: sqlite3.Connection, copy: Path) -> None:
    conn = sqlite3.connect(copy, isolation_level=None)
    try:
        conn.execute("PRAGMA synchronous=FULL")
        target = Format2(conn)
        pending = 0
        conn.execute("BEGIN IMMEDIATE")
        base = storage_of(source).base
        if base is not None:  # a rotated journal: its base carries across as it is
            conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (BASE_KEY, base.to_text()))
        for commit in _commits(storage_of(source).raw_rows(0)):
            target.insert(commit)
            pending += 1
            if pending == _COMMITS_A_TRANSACTION:
                conn.execute("COMMIT")
                conn.execute("BEGIN IMMEDIATE")
                pending = 0
        conn.execute("COMMIT")
    finally:
        with contextlib.suppress(sqlite3.Error):
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        conn.close()


def _settle(copy: Path) -> None:
    """Close the copy's WAL (a read-write connection's close removes the side files the
    proof's read-only connections left) and sync it.

    Raises:
        sqlite3.OperationalError: a side file is left.
    """
    conn = sqlite3.connect(copy, isolation_level=None)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    sync_alone(copy)


def _prove(path: Path, copy: Path, before: tuple[int, int, str, list[tuple[int, str]]]) -> None:
    """The copy verifies and holds the original's rows, last hash and seals."""
    report = verify(copy, head=head_path(path))
    if report.case not in GOOD_CASES:
        raise JournalCorruptError(f"the copy: {report.message}")
    conn = open_readonly(copy)
    try:
        after = _summary(conn)
    finally:
        conn.close()
    if after != before:
        raise JournalCorruptError("the copy's rows, last hash or seals differ")
