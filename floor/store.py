"""What one ingest transaction writes (``floor.ingest`` decides it): each table's state
while the transaction runs, and the SQL that stores the alerts raised and cleared, rows
merged (``COPY``), rows waiting for a seal, rows held as evidence, refused messages, round
results and the table's line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import psycopg

from controller.journal.compact import micros_from_ts
from controller.journal.format import JournalRecordError, Row
from controller.journal.wire import Ack
from floor.branches import SealedChain
from floor.screen import Refused, net_cents, row_fields

Conn = psycopg.Connection[tuple[Any, ...]]
_COLUMNS = "table_id, row_id, ts, kind, round, data, prev_hash, hash"
#: What the collector stores of a merged row (migration 0012: ``journal_row`` is the view
#: that gives the station's text back): the time as a timestamptz, the hash as its bytes,
#: ``ts_text`` and ``prev_hash`` only when the time or the link would not come back.
_ENTRY_COLUMNS = "table_id, row_id, ts, kind, round, data, hash, net_cents, ts_text, prev_hash"
ROUND_ENDS = ("round_completed", "round_voided")
#: The fields of the table limits a station journals at start (``station_started``).
LIMIT_FIELDS = ("main_min_cents", "main_max_cents", "match_min_cents", "match_max_cents")

# The statements (every one runs in tests/test_floor_ingest.py, test_floor_forgery.py and
# test_floor_compact_rows.py on a real PostgreSQL; what goes into them is decided above
# them and by floor.ingest without a database).
_COPY_ENTRIES_SQL = f"COPY journal_entry ({_ENTRY_COLUMNS}) FROM STDIN"
_COPY_PENDING_SQL = f"COPY pending_row ({_COLUMNS}) FROM STDIN"
_INSERT_SQL = (
    "INSERT INTO {into} (" + _COLUMNS + ") VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
    " ON CONFLICT DO NOTHING"
)
_RESOLVED_SQL = (
    "DELETE FROM pending_row WHERE table_id = %s AND (row_id, hash) IN"
    " (SELECT * FROM unnest(%s::bigint[], %s::text[]))"
)
_LIMITS_SQL = "UPDATE floor_table SET limits = %s WHERE table_id = %s"
_LINE_SQL = (
    "UPDATE floor_table SET anchor_row = %s, anchor_hash = %s, anchor_ts = %s,"
    " quarantined = %s, status = %s, status_ts = %s, last_seen = now(),"
    " seal_epoch = %s, sealed_row = %s, sealed_hash = %s, status_arrived = %s,"
    " station_anchors = %s, clock_skew = %s WHERE table_id = %s"
)
#: The monitors listening show the change at once (delivered at the commit).
_NOTIFY_SQL = "NOTIFY floor_changed"
_CLEAR_SQL = (
    "UPDATE alert SET cleared = clock_timestamp() WHERE table_id = %s AND kind = %s"
    " AND cleared IS NULL"
)
#: One open alert per table and kind: the same trouble again counts up.
_ALERT_SQL = (
    "INSERT INTO alert (table_id, kind, message) VALUES (%s, %s, %s)"
    " ON CONFLICT (table_id, kind) WHERE cleared IS NULL"
    " DO UPDATE SET repeats = alert.repeats + 1, last_raised = clock_timestamp()"
)
_REFUSED_SQL = (
    "INSERT INTO refused_message (table_id, topic, reason, size, digest, payload)"
    " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (table_id, digest) DO UPDATE SET"
    " times = refused_message.times + 1, last_seen = clock_timestamp(),"
    " size = excluded.size"
)
#: The house result is minus the players' net over the round's settled wagers (main
#: hands, Match the Dealer, insurance), as ``simulate``'s tally counts it; each net was
#: checked to be whole cents before its row was merged (floor.screen.row_problem).
_ROUND_SQL = (
    "INSERT INTO round_result (table_id, round, ended, status, house_cents)"
    " SELECT %s, %s, %s, %s, COALESCE(-sum(net_cents), 0)"
    " FROM journal_row WHERE table_id = %s AND round = %s"
    " AND kind IN ('settlement', 'match_settled', 'insurance')"
    " ON CONFLICT DO NOTHING"
)


@dataclass
class TableState:
    """One table's line of ``floor_table`` and what the transaction does to it."""

    table: str
    anchor_row: int
    anchor_hash: str
    anchor_ts: str | None
    quarantined: str | None
    status_ts: str | None
    status: dict[str, Any] | None
    seal_epoch: int
    sealed_row: int
    sealed_hash: str | None
    status_arrived: datetime | None
    station_anchors: list[list[Any]] | None
    clock_skew: float | None
    #: The hash the table's first new row follows (its anchor when the transaction began).
    start_hash: str = ""
    new_rows: list[Row] = field(default_factory=list)
    quarantine: list[Row] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    chain: SealedChain | None = None
    ack: Ack | None = None
    #: Alerts raised ``(kind, text)`` and cleared ``(kind, None)``, in the order decided.
    alert_changes: list[tuple[str, str | None]] = field(default_factory=list)


@dataclass
class Applied:
    """What one transaction did: the acknowledgements to publish, alerts raised, rows
    stored."""

    acks: dict[str, Ack] = field(default_factory=dict)
    alerts: list[tuple[str, str, str]] = field(default_factory=list)
    stored: int = 0


def write(conn: Conn, tables: Iterable[TableState], done: Applied) -> None:
    """Store what the transaction decided for ``tables`` (rows merged, waiting, held as
    evidence or refused; round results; each table's line) and queue the acknowledgements
    in ``done``; the caller commits."""
    tables = list(tables)
    with conn.cursor() as cur:
        for state in tables:
            for kind, text in state.alert_changes:
                _change_alert(cur, state.table, kind, text)
        with cur.copy(_COPY_ENTRIES_SQL) as copy:
            for state in tables:
                before = state.start_hash
                for r in state.new_rows:
                    copy.write_row(entry(state.table, r, before))
                    before = r.hash
                    done.stored += 1
        # A sealing table's rows after its last seal, new in this transaction: the table's
        # waiting rows were all read under its lock, so none is there twice.
        with cur.copy(_COPY_PENDING_SQL) as copy:
            for state in tables:
                for r in state.chain.new_pending if state.chain is not None else ():
                    copy.write_row(_values(state.table, r))
        for state in tables:
            _insert(cur, "quarantine_row", state.table, state.quarantine)
            if state.chain is not None and state.chain.resolved:
                cur.execute(
                    _RESOLVED_SQL,
                    (
                        state.table,
                        [i for i, _ in state.chain.resolved],
                        [h for _, h in state.chain.resolved],
                    ),
                )
            for refused in state.refused:
                _refuse(cur, refused)
            for row in (r for r in state.new_rows if r.kind in ROUND_ENDS):
                _round_result(cur, state.table, row)
            starts = [r for r in state.new_rows if r.kind == "station_started"]
            if starts:
                cur.execute(_LIMITS_SQL, (json.dumps(posted_limits(starts[-1])), state.table))
            cur.execute(_LINE_SQL, line(state))
            if state.ack is not None:
                done.acks[state.table] = state.ack
        cur.execute(_NOTIFY_SQL)


def line(state: TableState) -> tuple[Any, ...]:
    """The parameters of ``_LINE_SQL``: the table's line as the transaction leaves it (the
    status and the station's anchors as JSON, None when there are none)."""
    return (
        state.anchor_row,
        state.anchor_hash,
        state.anchor_ts,
        state.quarantined,
        json.dumps(state.status) if state.status is not None else None,
        state.status_ts,
        state.seal_epoch,
        state.sealed_row,
        state.sealed_hash,
        state.status_arrived,
        json.dumps(state.station_anchors) if state.station_anchors else None,
        state.clock_skew,
        state.table,
    )


def entry(table: str, r: Row, before: str) -> tuple[Any, ...]:
    """The stored columns (``_ENTRY_COLUMNS``) of merged row ``r`` of ``table``, the row
    after the one whose hash is ``before``. The time is stored as a timestamptz when it is
    a journal time (PostgreSQL gives its text back: ``floor_ts_text``), else as it came;
    ``prev_hash`` only when it is not ``before`` (never for a row the chain check let
    through, but nothing is dropped on that belief)."""
    ts: str | None = r.ts
    ts_text: str | None = None
    try:
        micros_from_ts(r.ts)
    except JournalRecordError:
        ts, ts_text = None, r.ts
    prev = None if r.prev_hash == before else bytes.fromhex(r.prev_hash)
    return (
        table, r.id, ts, r.kind, r.round_no, r.data_text, bytes.fromhex(r.hash), net_cents(r),
        ts_text, prev,
    )  # fmt: skip


def _change_alert(
    cur: psycopg.Cursor[tuple[Any, ...]], table: str, kind: str, text: str | None
) -> None:
    if text is None:
        cur.execute(_CLEAR_SQL, (table, kind))
    else:
        cur.execute(_ALERT_SQL, (table, kind, text))


def _values(table: str, r: Row) -> tuple[Any, ...]:
    return (table, r.id, r.ts, r.kind, r.round_no, r.data_text, r.prev_hash, r.hash)


def _insert(cur: psycopg.Cursor[tuple[Any, ...]], into: str, table: str, rows: list[Row]) -> None:
    if rows:
        cur.executemany(_INSERT_SQL.format(into=into), [_values(table, r) for r in rows])


def _refuse(cur: psycopg.Cursor[tuple[Any, ...]], refused: Refused) -> None:
    cur.execute(
        _REFUSED_SQL,
        (
            refused.table,
            refused.topic,
            refused.reason,
            refused.size,
            refused.digest,
            refused.payload,
        ),
    )


def _round_result(cur: psycopg.Cursor[tuple[Any, ...]], table: str, row: Row) -> None:
    cur.execute(
        _ROUND_SQL,
        (
            table,
            row.round_no,
            row.ts,
            "completed" if row.kind == "round_completed" else "voided",
            table,
            row.round_no,
        ),
    )


def posted_limits(row: Row) -> dict[str, int | None]:
    """The table limits a ``station_started`` row posts (NY 5324.12(d)(2)): each field a
    whole number of cents or None. A row from an older station without them, or with
    anything else in their place (the row's hash is checked, its content is the station's),
    posts none."""
    fields = row_fields(row)
    data = fields.get("limits") if fields is not None else None
    if not isinstance(data, dict):
        data = {}
    posted: dict[str, int | None] = {}
    for name in LIMIT_FIELDS:
        value = data.get(name)
        posted[name] = value if type(value) is int and value > 0 else None
    return posted
