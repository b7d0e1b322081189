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

from controller.journal.format import SCHEMA_VERSION, TRIGGER_SQL, TRIGGER_SQL_2
from controller.journal.kinds import INDEXED_KINDS, INDEXES, stale_indexes
from controller.journal.storage import Format2, forget

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


#: The function the ``journal`` view of a format-2 file calls: no program defines it, so
#: code that reads only format 1 fails its first read of the file in one line, ``no such
#: function: format_2_needs_a_newer_program``, instead of reading it as empty.
REFUSAL_FUNCTION: Final = "format_2_needs_a_newer_program"

# Storage format 2 (docs/journal.md, "Storage format 2"): a commit a row, the milestones'
# and the wager spots' index, the file's own codec. STRICT: a column holds its type only.
SCHEMA_2: Final = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '2');
CREATE TABLE IF NOT EXISTS journal_codec (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    ts_base INTEGER NOT NULL,
    dictionary BLOB NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS journal_commit (
    first_id INTEGER PRIMARY KEY,
    last_id INTEGER NOT NULL,
    last_hash BLOB NOT NULL,
    body BLOB NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS journal_commit_count ON journal_commit (last_id);
CREATE TABLE IF NOT EXISTS journal_kind (
    code INTEGER PRIMARY KEY,
    kind TEXT NOT NULL UNIQUE
) STRICT;
CREATE TABLE IF NOT EXISTS journal_milestone (
    id INTEGER PRIMARY KEY,
    kind INTEGER NOT NULL,
    round INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS journal_milestone_kind ON journal_milestone (kind);
CREATE TABLE IF NOT EXISTS journal_spot (
    id INTEGER PRIMARY KEY,
    seat ANY NOT NULL,
    spot ANY NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS journal_spot_seat ON journal_spot (seat, spot);
CREATE VIEW IF NOT EXISTS journal (id, ts, kind, round, data, prev_hash, hash) AS
    SELECT {REFUSAL_FUNCTION}(), NULL, NULL, NULL, NULL, NULL, NULL FROM journal_commit;
""" + "\n".join(
    sql.replace("CREATE TRIGGER", "CREATE TRIGGER IF NOT EXISTS", 1) + ";"
    for sql in TRIGGER_SQL_2.values()
)


def apply_schema(conn: sqlite3.Connection, version: int = SCHEMA_VERSION) -> None:
    """Run :data:`SCHEMA`'s statements (:data:`SCHEMA_2`'s for ``version`` 2) on ``conn``
    (inside the caller's transaction): each only where its table, index or trigger is not
    there yet."""
    for statement in (SCHEMA_2 if version == 2 else SCHEMA).split(";\n"):
        if statement.strip():
            conn.execute(statement)


def start_format_2(conn: sqlite3.Connection, dictionary: bytes, ts_base: int) -> None:
    """Give a new format-2 file its codec (inside the caller's transaction): the commit
    dictionary and the time base its rows' times are stored after; the codes of the
    milestone kinds (``kinds.INDEXED_KINDS``), and the index of round starts by round (a
    partial index names its kind's code)."""
    conn.execute(
        "INSERT INTO journal_codec (id, ts_base, dictionary) VALUES (1, ?, ?)",
        (ts_base, dictionary),
    )
    conn.executemany(
        "INSERT INTO journal_kind (code, kind) VALUES (?, ?)",
        list(enumerate(INDEXED_KINDS, start=1)),
    )
    code = INDEXED_KINDS.index("round_started") + 1
    conn.execute(
        f"CREATE INDEX journal_milestone_round ON journal_milestone (round) WHERE kind = {code}"
    )


def index_new_kinds(conn: sqlite3.Connection) -> list[str]:
    """Run when the writer opens a format-2 journal (inside its transaction): give each
    milestone kind (``kinds.INDEXED_KINDS``) the file has no code for (a kind declared
    after the file was made) the next code, and index its earlier rows in
    ``journal_milestone``, in the caller's transaction (format 1 rebuilds its index of
    milestones at open the same way: ``migrate``). Reads every row once when there is a
    new kind, nothing otherwise. Returns the kinds added.

    A reader of the file before that (``verify`` of a copy) takes the file's kinds as the
    indexed ones (``storage.Storage.indexed_kinds``): rows of a kind it has no code for
    have no entry and are found by reading the commits."""
    known = {kind: code for code, kind in conn.execute("SELECT code, kind FROM journal_kind")}
    new = [kind for kind in INDEXED_KINDS if kind not in known]
    if not new:
        return []
    first = max(known.values(), default=0) + 1
    codes = {kind: first + n for n, kind in enumerate(new)}
    conn.executemany(
        "INSERT INTO journal_kind (code, kind) VALUES (?, ?)", [(c, k) for k, c in codes.items()]
    )
    entries = [
        (row_id, codes[kind], round_no)
        for row_id, _ts, kind, round_no, _data, _prev, _hash in Format2(conn).raw_rows(0)
        if kind in codes
    ]
    conn.executemany("INSERT INTO journal_milestone (id, kind, round) VALUES (?, ?, ?)", entries)
    forget(conn)
    return new
