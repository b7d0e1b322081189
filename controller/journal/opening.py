"""Opening a journal file for writing: the schema, SQLite's settings, atomic creation, and
the check of the head record and of the sealing state against the journal's last row and
seal.

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

from controller.journal.format import (
    GENESIS_HASH,
    HEAD_RECORD_SIZE,
    HEAD_SUFFIX,
    SCHEMA_VERSION,
    TRIGGER_SQL,
    JournalCorruptError,
    JournalError,
    JournalLockedError,
    JournalTruncatedError,
    JournalWriteError,
    head_path,
    parse_head,
)
from controller.journal.kinds import INDEXES, stale_indexes
from controller.journal.reader import open_readonly
from controller.journal.seal import (
    SEAL_KIND,
    SealError,
    SealingState,
    read_state_text,
    remove_stale_temporaries,
    save_state,
)

# The append-only triggers, as format.TRIGGER_SQL states them (verify compares the bodies).
_TRIGGERS: Final = "\n".join(
    sql.replace("CREATE TRIGGER", "CREATE TRIGGER IF NOT EXISTS", 1) + ";"
    for sql in TRIGGER_SQL.values()
)

_INDEXES: Final = "\n".join(f"{sql};" for sql in INDEXES.values())

SCHEMA: Final = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '{SCHEMA_VERSION}');
CREATE TABLE IF NOT EXISTS journal (
    id INTEGER PRIMARY KEY,
    ts TEXT NOT NULL,
    kind TEXT NOT NULL,
    round INTEGER,
    data TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
) STRICT;
{_INDEXES}
{_TRIGGERS}
"""


def migrate(conn: sqlite3.Connection) -> None:
    """Run after :data:`SCHEMA` when the writer opens a journal (inside its transaction):
    drop every index ``controller.journal.kinds.INDEXES`` does not declare (one an earlier
    list of kinds or an earlier program made). An index is derived data: no row, hash or
    seal changes, and older code opening the journal makes its own indexes again."""
    names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")]
    for name in stale_indexes(names):
        conn.execute(f"DROP INDEX {name}")


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


def create_database(path: Path) -> None:
    """Make a new, empty journal at ``path`` atomically: built under a temporary name in
    rollback-journal mode (each commit is in the file itself when it returns; a WAL could
    be left unmerged by a checkpoint that failed quietly at close) and switched to WAL
    only then, checked (:func:`_check_created`), synced, then renamed into place (and the
    directory synced). A full disk or a power cut leaves
    either no journal or a whole one, and never the temporary files.

    Raises:
        JournalWriteError: the file system refused (the temporary files are removed).
    """
    tmp = creating_path(path)
    try:
        remove_creation_leftovers(path)
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=DELETE")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("BEGIN IMMEDIATE")
            for statement in SCHEMA.split(";\n"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("COMMIT")
            _check_created(conn)
            # WAL from the start (a header change, written in rollback mode): the rename
            # gives the writer the mode it opens with, with nothing to convert in place.
            (mode,) = conn.execute("PRAGMA journal_mode=WAL").fetchone()
            if mode != "wal":
                raise sqlite3.OperationalError(f"SQLite refused WAL mode ({mode})")
        finally:
            conn.close()  # removes the (empty) WAL
        if any(tmp.with_name(tmp.name + suffix).exists() for suffix in SIDE_SUFFIXES):
            raise sqlite3.OperationalError("the new journal left a side file behind")
        fd = os.open(tmp, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        sync_directory(path.parent)
    except (OSError, sqlite3.Error) as err:
        with contextlib.suppress(OSError):
            remove_creation_leftovers(path)
        raise JournalWriteError(f"cannot create {path}: {err}") from err


def _check_created(conn: sqlite3.Connection) -> None:
    """The new database (committed in rollback mode on ``conn``) is whole: SQLite's
    integrity check passes and it has the journal's tables and triggers.

    Raises:
        sqlite3.DatabaseError: it is not.
    """
    problems = [row[0] for row in conn.execute("PRAGMA integrity_check")]
    names = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    if problems != ["ok"] or not {"journal", "meta", *TRIGGER_SQL} <= names:
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


def open_database(path: Path) -> tuple[sqlite3.Connection, tuple[int, str]]:
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
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
        for statement in SCHEMA.split(";\n"):
            if statement.strip():
                conn.execute(statement)
        migrate(conn)
        conn.execute("COMMIT")
        (version,) = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if version != str(SCHEMA_VERSION):
            raise JournalCorruptError(f"{path}: journal schema version {version} is not supported")
        last = conn.execute("SELECT id, hash FROM journal ORDER BY id DESC LIMIT 1").fetchone()
    except sqlite3.OperationalError as err:  # a full disk, an I/O error: not the file's fault
        conn.close()
        raise JournalWriteError(f"cannot open {path}: {err}") from err
    except sqlite3.DatabaseError as err:
        conn.close()
        raise JournalCorruptError(f"{path}: {err}") from err
    except JournalError:
        conn.close()
        raise
    return conn, (last[0], last[1]) if last else (0, GENESIS_HASH)


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
    stored = conn.execute("SELECT hash FROM journal WHERE id = ?", (head_id,)).fetchone()
    if head_id > 0 and (stored is None or stored[0] != head_hash):
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
    found = conn.execute(
        "SELECT id, data FROM journal WHERE kind = ? ORDER BY id DESC LIMIT 1", (SEAL_KIND,)
    ).fetchone()
    last_epoch, through, table = -1, 0, state.table
    if found is not None:
        try:
            data = json.loads(found[1])
            last_epoch, table, through = int(data["epoch"]), str(data["table"]), found[0]
        except (ValueError, KeyError, TypeError) as err:
            raise JournalSealError(f"row {found[0]}: the last seal is unreadable") from err
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
    path: Path, sealing: Path | None
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
            create_database(path)
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
