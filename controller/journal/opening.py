"""Opening a journal file for writing: the schema, SQLite's settings, atomic creation, and
the check of the sealing state against the journal's last seal.

Used by :class:`controller.journal.store.Journal` only.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Final

from controller.journal.format import (
    GENESIS_HASH,
    SCHEMA_VERSION,
    JournalCorruptError,
    JournalError,
    JournalWriteError,
)
from controller.journal.seal import SEAL_KIND, SealError, SealingState, load_state, save_state

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
CREATE INDEX IF NOT EXISTS journal_kind ON journal (kind);
CREATE TRIGGER IF NOT EXISTS journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only: DELETE refused'); END;
CREATE TRIGGER IF NOT EXISTS meta_no_update BEFORE UPDATE ON meta
BEGIN SELECT RAISE(ABORT, 'journal meta is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS meta_no_delete BEFORE DELETE ON meta
BEGIN SELECT RAISE(ABORT, 'journal meta is append-only: DELETE refused'); END;
"""


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
