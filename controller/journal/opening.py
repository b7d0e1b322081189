"""Opening a journal file for writing: SQLite's settings and the schema
(``controller.journal.schema``), creation when there is none (``controller.journal.creation``),
and the check of the head record and of the sealing state against the journal's last row
and seal.

Used by :class:`controller.journal.store.Journal` only.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
from pathlib import Path
from typing import Final

from controller.journal.creation import (
    create_database,
    is_half_made,
    remove_creation_leftovers,
    remove_half_made,
    sync_directory,
)
from controller.journal.format import (
    HEAD_RECORD_SIZE,
    SCHEMA_NOT_UTF8,
    SCHEMA_VERSION,
    JournalCorruptError,
    JournalError,
    JournalLockedError,
    JournalTruncatedError,
    JournalWriteError,
    head_path,
    parse_head,
)
from controller.journal.schema import apply_schema, index_new_kinds, migrate
from controller.journal.seal import (
    SEAL_KIND,
    SealError,
    SealingState,
    read_state_text,
    remove_stale_temporaries,
    save_state,
)
from controller.journal.storage import JournalConnection, storage_of


def open_database(path: Path) -> tuple[sqlite3.Connection, tuple[int, str]]:
    try:
        conn = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, factory=JournalConnection
        )
    except sqlite3.Error as err:
        raise JournalWriteError(f"cannot open {path}: {err}") from err
    try:
        (mode,) = conn.execute("PRAGMA journal_mode=WAL").fetchone()
        if mode != "wal":
            raise JournalWriteError(f"{path}: SQLite refused WAL mode ({mode})")
        conn.execute("PRAGMA synchronous=FULL")
        # After each checkpoint the WAL shrinks back to this size instead of staying large.
        conn.execute("PRAGMA journal_size_limit=8388608")
        conn.execute("BEGIN IMMEDIATE")
        # The version first: a file of another storage format (a newer program's, e.g.
        # docs/journal.md "Storage format 2") is refused before the schema or an index of
        # this one is added to it.
        version = _check_version(path, conn)
        apply_schema(conn, version)
        if version == 1:
            migrate(conn)
        else:
            index_new_kinds(conn)
        conn.execute("COMMIT")
        _check_version(path, conn)
        last = storage_of(conn).tail()
    except sqlite3.OperationalError as err:  # a full disk, an I/O error: not the file's fault
        conn.close()
        raise JournalWriteError(f"cannot open {path}: {err}") from err
    except sqlite3.DatabaseError as err:
        conn.close()
        raise JournalCorruptError(f"{path}: {err}") from err
    except UnicodeDecodeError as err:
        conn.close()
        raise JournalCorruptError(f"{path}: {SCHEMA_NOT_UTF8}") from err
    except JournalError:
        conn.close()
        raise
    return conn, last


#: The storage formats this program reads and writes (docs/journal.md, "Storage format 2").
VERSIONS: Final = ("1", "2")


def _check_version(path: Path, conn: sqlite3.Connection) -> int:
    """The journal's storage format; a ``schema_version`` this program does not write is
    refused (1 before the file has its ``meta`` table and version: the schema gives them).

    Raises:
        JournalCorruptError: one line naming the version.
    """
    has_meta = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if has_meta is None:
        return SCHEMA_VERSION
    found = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if found is not None and found[0] not in VERSIONS:
        raise JournalCorruptError(
            f"{path}: journal schema version {found[0]} is not supported (this program"
            f" writes versions {', '.join(VERSIONS)})"
        )
    return SCHEMA_VERSION if found is None else int(found[0])


def check_head(path: Path, conn: sqlite3.Connection, head_fd: int, last_id: int) -> None:
    """Check the head record against the database's last row ``last_id``.

    Raises:
        JournalTruncatedError: the head record names rows the database does not hold.
        JournalCorruptError: the row it names differs from it.
    """
    head = parse_head(os.pread(head_fd, HEAD_RECORD_SIZE, 0))
    if head is None:
        return
    head_id, head_hash = head
    if head_id > last_id:
        raise JournalTruncatedError(
            f"{path}: rows {last_id + 1}..{head_id} are missing"
            " (the head record is ahead of the database)"
        )
    stored = storage_of(conn).hash_of(head_id)
    if head_id > 0 and stored != head_hash:
        raise JournalCorruptError(f"{path}: row {head_id} differs from the head record")


class JournalSealError(JournalError):
    """The sealing state and the journal disagree: the station must not seal on."""


def check_sealing(conn: sqlite3.Connection, state_path: Path) -> tuple[Path, SealingState, int]:
    """The sealing state at ``state_path``, checked against the journal's last seal, with
    the id of the last sealed row. A state one epoch ahead of the last seal is the normal
    case; a state at the last seal's epoch means the station stopped between the seal and
    the key's evolution, which is finished now."""
    if state_path.is_symlink():
        # Its replacement would replace the link and leave the old key where it points.
        raise JournalSealError(f"sealing state {state_path} is a symlink: name the file itself")
    remove_stale_temporaries(state_path)
    try:
        text = read_state_text(state_path)
        state = SealingState.from_json(text)
    except (OSError, SealError) as err:
        raise JournalSealError(f"sealing state {state_path}: {err}") from err
    found = storage_of(conn).last(SEAL_KIND)
    last_epoch, through, table = -1, 0, state.table
    if found is not None:
        try:
            data = json.loads(found.data_text)
            last_epoch, table, through = int(data["epoch"]), str(data["table"]), found.id
        except (ValueError, KeyError, TypeError) as err:
            raise JournalSealError(f"row {found.id}: the last seal is unreadable") from err
    if table != state.table:
        raise JournalSealError(f"the journal is sealed for table {table}, the key is {state.table}")
    if last_epoch < state.epoch - 1:
        raise JournalSealError(
            f"the journal is behind its sealing key: the seals of epochs {last_epoch + 1}.."
            f"{state.epoch - 1} are missing (rows removed at the end, or an older copy)"
        )
    if last_epoch > state.epoch:
        raise JournalSealError(
            f"the sealing key (epoch {state.epoch}) is older than the journal's last seal"
            f" (epoch {last_epoch}): a restored key file?"
        )
    evolve = last_epoch == state.epoch
    if evolve or text != state.to_json() + "\n":
        # At the last seal's epoch: the key is evolved now. Of an earlier version: written
        # again in today's, with the checkpoint key it was given.
        state = state.evolved() if evolve else state
        try:
            save_state(state_path, state)
        except OSError as err:
            raise JournalSealError(f"cannot write the sealing key: {err.strerror}") from err
    return state_path, state, through


def open_files(
    path: Path, sealing: Path | None, storage_format: int | None = None
) -> tuple[int, sqlite3.Connection, tuple[int, str], tuple[Path, SealingState, int] | None, bool]:
    """Open the head record (locked: one writer), then the database (made again when
    half-made, created atomically when absent), then check the sealing state. Returns the
    head's file descriptor, the connection, the last row (id, hash), the sealing state and
    whether a half-made journal was replaced; on error everything opened is closed.

    Raises:
        JournalLockedError, JournalCorruptError, JournalWriteError, JournalSealError: as
        :meth:`controller.journal.store.Journal.open` says.
    """
    head = head_path(path)
    try:
        created = not head.exists()
        head_fd = os.open(head, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
        if created:  # make the new directory entry itself survive a power cut
            sync_directory(head.parent)
    except OSError as err:
        raise JournalWriteError(f"cannot open {head}: {err.strerror}") from err
    try:
        fcntl.flock(head_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as err:
        os.close(head_fd)
        raise JournalLockedError(f"{path} is open for writing by another process") from err
    replaced = False
    try:
        # Under the writer's lock: nobody else creates or removes the file meanwhile.
        with contextlib.suppress(OSError):  # what cannot go now fails the creation below
            remove_creation_leftovers(path)
        if is_half_made(path, head):
            remove_half_made(path)
            replaced = True
        if not path.exists():
            create_database(path, storage_format)
        conn, last = open_database(path)
    except BaseException:
        os.close(head_fd)
        raise
    try:
        sealed = check_sealing(conn, sealing) if sealing is not None else None
    except BaseException:
        conn.close()
        os.close(head_fd)
        raise
    return head_fd, conn, last, sealed, replaced
