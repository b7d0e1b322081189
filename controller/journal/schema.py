"""The journal's SQLite schema: the tables, the append-only triggers (as
``controller.journal.format.TRIGGER_SQL`` states them), the indexes, and the migration the
writer runs at every open.

Used by the opening of a journal (``controller.journal.opening``) and its creation
(``controller.journal.creation``).
"""

from __future__ import annotations

import sqlite3
from typing import Final

from controller.journal.format import SCHEMA_VERSION, TRIGGER_SQL
from controller.journal.kinds import FREQUENT_KINDS, INDEXED_KINDS

# OR-ed equalities, not IN: SQLite uses a partial index for ``kind = ?`` only when that
# term is one of the index's OR-ed terms.
_MILESTONE_WHERE: Final = " OR ".join(f"kind = '{kind}'" for kind in INDEXED_KINDS)
#: The index of the kinds a round writes about once or less (``controller.journal.kinds``),
#: as SQLite keeps its statement in ``sqlite_master``.
MILESTONE_INDEX: Final = (
    f"CREATE INDEX journal_milestone ON journal (kind) WHERE {_MILESTONE_WHERE}"
)

# The append-only triggers, as format.TRIGGER_SQL states them (verify compares the bodies).
_TRIGGERS: Final = "\n".join(
    sql.replace("CREATE TRIGGER", "CREATE TRIGGER IF NOT EXISTS", 1) + ";"
    for sql in TRIGGER_SQL.values()
)

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
{MILESTONE_INDEX.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1)};
-- The last report of each wager spot, found without reading the whole journal at a start.
CREATE INDEX IF NOT EXISTS journal_wager_spot ON journal
    (json_extract(data, '$.seat'), json_extract(data, '$.spot'), id) WHERE kind = 'event';
{_TRIGGERS}
"""
#: Run after :data:`SCHEMA` when the writer opens a journal: a journal made by an older
#: writer indexed every row by kind (``journal_kind``); ``journal_milestone`` replaces it. An
#: index is derived data: no row, hash or seal changes, and older code opening the
#: journal makes its index again.
MIGRATION: Final = "DROP INDEX IF EXISTS journal_kind"

__all__ = ["FREQUENT_KINDS", "INDEXED_KINDS", "MIGRATION", "SCHEMA", "apply_schema"]


def apply_schema(conn: sqlite3.Connection) -> None:
    """Run :data:`SCHEMA`'s statements on ``conn`` (inside the caller's transaction): each
    only where its table, index or trigger is not there yet."""
    for statement in SCHEMA.split(";\n"):
        if statement.strip():
            conn.execute(statement)


def refresh_indexes(conn: sqlite3.Connection) -> bool:
    """Make ``journal_milestone`` again where it indexes other kinds than
    ``controller.journal.kinds`` declares now (a journal made before a kind was added), and
    run :data:`MIGRATION` (inside the caller's transaction, after :func:`apply_schema`).
    The index is derived data: no row, hash or seal changes; SQLite's schema cookie moves,
    so the next start walks every row once. True when the index was made again."""
    conn.execute(MIGRATION)
    row = conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'journal_milestone'"
    ).fetchone()
    if row is not None and row[0] == MILESTONE_INDEX:
        return False
    conn.execute("DROP INDEX IF EXISTS journal_milestone")
    conn.execute(MILESTONE_INDEX)
    return True
