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
    SCHEMA_VERSION,
    JournalCorruptError,
    JournalError,
    JournalLockedError,
    JournalTruncatedError,
    JournalWriteError,
    head_path,
    parse_head,
)
from controller.journal.reader import open_readonly
from controller.journal.seal import SEAL_KIND, SealError, SealingState, load_state, save_state

#: Kinds a round writes several times each (most of its rows): left out of the index of
#: kinds, so that a commit adds no page to it for them (journal_milestone). The last of one is a
#: few rows back; a listing of one reads the table either way.
FREQUENT_KINDS: Final = (
    "button",
    "card",
    "decision",
    "event",
    "match_settled",
    "prompt",
    "seat_result",
    "settlement",
    "state",
    "wager_added",
    "wager_collected",
    "wager_paid",
    "wager_taken",
)
#: Every other kind of the vocabulary (docs/journal.md): written about once a round or
#: less, and looked up by kind (the last seal, start check, shuffle, burn, round start and
#: end...). ``journal_milestone`` finds each without reading back through the rows. A kind
#: added to the vocabulary later is found by reading back until a new index lists it: an
#: existing file keeps the index it was given (``IF NOT EXISTS``), so a longer list needs
#: an index of a new name, the old one dropped in :data:`MIGRATION`
#: (``tests/test_journal_indexes.py`` wants every documented kind in one list or the other).
INDEXED_KINDS: Final = (
    "burn",
    "burn_disclosed",
    "button_ignored",
    "clean_shutdown",
    "cover_card",
    "dealer_change",
    "decision_refused",
    "device",
    "fault",
    "fault_resolved",
    "hand_shuffle_done",
    "hole_card_dealt",
    "hole_card_rejected",
    "hole_card_reveal_answer",
    "hole_card_reveal_requested",
    "hole_card_revealed",
    "insurance",
    "insurance_taken",
    "peek",
    "peek_requested",
    "recovered",
    "resolution_refused",
    "round_completed",
    "round_started",
    "round_voided",
    "seal",
    "shoe_empty",
    "shoe_loaded",
    "shuffle_commanded",
    "shuffle_done",
    "station_started",
    "supervisor_key",
    "verified",
    "wager_refused",
)
# OR-ed equalities, not IN: SQLite uses a partial index for ``kind = ?`` only when that
# term is one of the index's OR-ed terms.
_MILESTONE_WHERE: Final = " OR ".join(f"kind = '{kind}'" for kind in INDEXED_KINDS)

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
CREATE INDEX IF NOT EXISTS journal_round ON journal (round);
CREATE INDEX IF NOT EXISTS journal_ts ON journal (ts);
-- The rows of the kinds a round writes about once or less (INDEXED_KINDS), by kind.
CREATE INDEX IF NOT EXISTS journal_milestone ON journal (kind) WHERE {_MILESTONE_WHERE};
-- The last report of each wager spot, found without reading the whole journal at a start.
CREATE INDEX IF NOT EXISTS journal_wager_spot ON journal
    (json_extract(data, '$.seat'), json_extract(data, '$.spot'), id) WHERE kind = 'event';
CREATE TRIGGER IF NOT EXISTS journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only: DELETE refused'); END;
CREATE TRIGGER IF NOT EXISTS meta_no_update BEFORE UPDATE ON meta
BEGIN SELECT RAISE(ABORT, 'journal meta is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS meta_no_delete BEFORE DELETE ON meta
BEGIN SELECT RAISE(ABORT, 'journal meta is append-only: DELETE refused'); END;
"""
#: Run after :data:`SCHEMA` when the writer opens a journal: a journal made by an older
#: writer indexed every row by kind (``journal_kind``); ``journal_milestone`` replaces it. An
#: index is derived data: no row, hash or seal changes, and older code opening the
#: journal makes its index again.
MIGRATION: Final = "DROP INDEX IF EXISTS journal_kind"


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


def create_database(path: Path) -> None:
    """Make a new, empty journal at ``path`` atomically: built under a temporary name,
    synced, then renamed into place (and the directory synced), so that a full disk or a
    power cut leaves either no journal or a whole one.

    Raises:
        JournalWriteError: the file system refused (the temporary file is removed).
    """
    tmp = path.with_name(f".{path.name}.creating")
    leftovers = [tmp.with_name(tmp.name + suffix) for suffix in ("", "-wal", "-shm", "-journal")]
    try:
        for leftover in leftovers:
            leftover.unlink(missing_ok=True)
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("BEGIN IMMEDIATE")
            for statement in SCHEMA.split(";\n"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("COMMIT")
        finally:
            conn.close()  # checkpoints the WAL into the file and removes it
        fd = os.open(tmp, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        sync_directory(path.parent)
    except (OSError, sqlite3.Error) as err:
        for leftover in leftovers:
            with contextlib.suppress(OSError):
                leftover.unlink(missing_ok=True)
        raise JournalWriteError(f"cannot create {path}: {err}") from err


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
        conn.execute(MIGRATION)
        conn.execute("COMMIT")
        (version,) = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if version != str(SCHEMA_VERSION):
            raise JournalCorruptError(f"{path}: journal schema version {version} is not supported")
        last = conn.execute("SELECT id, hash FROM journal ORDER BY id DESC LIMIT 1").fetchone()
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
    try:
        state = load_state(state_path)
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
    if last_epoch == state.epoch:
        state = state.evolved()
        try:
            save_state(state_path, state)
        except OSError as err:
            raise JournalSealError(f"cannot evolve the sealing key: {err.strerror}") from err
    elif last_epoch < state.epoch - 1:
        raise JournalSealError(
            f"the journal is behind its sealing key: the seals of epochs {last_epoch + 1}.."
            f"{state.epoch - 1} are missing (rows removed at the end, or an older copy)"
        )
    elif last_epoch > state.epoch:
        raise JournalSealError(
            f"the sealing key (epoch {state.epoch}) is older than the journal's last seal"
            f" (epoch {last_epoch}): a restored key file?"
        )
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
