"""The journal's SQLite schema: the tables, the append-only triggers (as
``controller.journal.format.TRIGGER_SQL`` states them), the indexes (as
``controller.journal.kinds.INDEXES`` declares them), and the migration the writer runs at
every open.

Used by the opening of a journal (``controller.journal.opening``) and its creation
(``controller.journal.creation``).
"""

from __future__ import annotations

import sqlite3
from typing import Final

from controller.journal.format import SCHEMA_VERSION, TRIGGER_SQL
from controller.journal.kinds import INDEXES, stale_indexes

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


def apply_schema(conn: sqlite3.Connection) -> None:
    """Run :data:`SCHEMA`'s statements on ``conn`` (inside the caller's transaction): each
    only where its table, index or trigger is not there yet."""
    for statement in SCHEMA.split(";\n"):
        if statement.strip():
            conn.execute(statement)
