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

#: Kinds a round writes several times each (most of its rows): left out of the index of
#: kinds, so that a commit adds no page to it for them (issue 15). The last of one is a
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
CREATE INDEX IF NOT EXISTS journal_milestone ON journal (kind) WHERE {_MILESTONE_WHERE};
-- The last report of each wager spot, found without reading the whole journal at a start.
CREATE INDEX IF NOT EXISTS journal_wager_spot ON journal
    (json_extract(data, '$.seat'), json_extract(data, '$.spot'), id) WHERE kind = 'event';
{_TRIGGERS}
"""
#: Run after :data:`SCHEMA` when the writer opens a journal: a journal made before issue 15
#: indexed every row by kind (``journal_kind``); ``journal_milestone`` replaces it. An
#: index is derived data: no row, hash or seal changes, and older code opening the
#: journal makes its index again.
MIGRATION: Final = "DROP INDEX IF EXISTS journal_kind"


def apply_schema(conn: sqlite3.Connection) -> None:
    """Run :data:`SCHEMA`'s statements on ``conn`` (inside the caller's transaction): each
    only where its table, index or trigger is not there yet."""
    for statement in SCHEMA.split(";\n"):
        if statement.strip():
            conn.execute(statement)
