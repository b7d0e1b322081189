"""Writing what stations send into PostgreSQL: the chain check, idempotent rows, anchors,
quarantine and alerts. One call of :meth:`Ingest.apply` is one database transaction.

Per table, under a row lock on its ``floor_table`` line (so several collectors never
interleave one table):

- a row at or below the anchor was stored before: its hash must equal the stored one
  (a copy sent again is ignored; another hash is a *fork*);
- the row after the anchor must carry the anchor's hash as ``prev_hash`` (else a fork) and
  its own hash must be the journal's hash of its content (:func:`row_hash`; else the chain
  is broken), and its seal must check where the table seals (:mod:`floor.seals`);
- a row further on means rows are missing in between: nothing is stored and the station
  is asked to send again from the anchor (a *rewind* acknowledgement).

A station whose status shows it behind its anchor (rolled back or truncated) or with a
different row at the same place (forked), or whose rows fail the checks, raises an alert
and is *quarantined*: its rows from then on go to ``quarantine_row``, never merged. The
acknowledgement always names the last row held from that station, so it keeps shipping.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg

from controller.journal.format import GENESIS_HASH, JournalCorruptError, Row
from controller.journal.seal import SEAL_KIND, check_row_hash, seal_fields
from controller.journal.wire import Ack, Status
from floor.seals import SealCheck, no_seals

Conn = psycopg.Connection[tuple[Any, ...]]
_COLUMNS = "table_id, row_id, ts, kind, round, data, prev_hash, hash"
ROUND_ENDS = ("round_completed", "round_voided")
#: The fields of the table limits a station journals at start (``station_started``).
LIMIT_FIELDS = ("main_min_cents", "main_max_cents", "match_min_cents", "match_max_cents")


@dataclass(frozen=True, slots=True)
class Rows:
    """A ``rows`` message: consecutive rows of one table."""

    table: str
    rows: Sequence[Row]


Message = Rows | Status


@dataclass
class _Table:
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
    new_rows: list[Row] = field(default_factory=list)
    quarantine: list[Row] = field(default_factory=list)
    ack: Ack | None = None
    seen: bool = False


@dataclass
class Applied:
    """What one transaction did: the acknowledgements to publish, alerts raised, rows
    stored."""

    acks: dict[str, Ack] = field(default_factory=dict)
    alerts: list[tuple[str, str, str]] = field(default_factory=list)
    stored: int = 0


class Ingest:
    """Applies messages to the database on one connection (see the module docstring)."""

    def __init__(self, conn: Conn, seals: SealCheck = no_seals) -> None:
        self.conn = conn
        self.seals = seals

    def apply(self, messages: Sequence[Message]) -> Applied:
        """Apply ``messages`` in one transaction and commit.

        Raises:
            psycopg.Error: the database failed; nothing was applied (nothing is
                acknowledged, so the stations send the rows again).
        """
        done = Applied()
        with self.conn.transaction():
            tables = self._lock({m.table for m in messages})
            for message in messages:
                state = tables[message.table]
                state.seen = True
                if isinstance(message, Rows):
                    self._rows(state, message.rows, done)
                else:
                    self._status(state, message, done)
            self._write(tables.values(), done)
        return done

    # --- per table ------------------------------------------------------------------

    def _lock(self, names: set[str]) -> dict[str, _Table]:
        ordered = sorted(names)  # one lock order for every collector: no deadlock
        with self.conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO floor_table (table_id) VALUES (%s) ON CONFLICT DO NOTHING",
                [(n,) for n in ordered],
            )
            cur.execute(
                "SELECT table_id, anchor_row, anchor_hash, anchor_ts, quarantined, status_ts,"
                " status, seal_epoch, sealed_row, sealed_hash FROM floor_table"
                " WHERE table_id = ANY(%s) ORDER BY table_id FOR UPDATE",
                (ordered,),
            )
            return {r[0]: _Table(*r) for r in cur.fetchall()}

    def _rows(self, state: _Table, rows: Sequence[Row], done: Applied) -> None:
        if state.quarantined:
            self._quarantine(state, rows)
            return
        overlap = [r for r in rows if r.id <= state.anchor_row]
        if overlap:
            stored = self._stored_hashes(state.table, overlap[0].id, overlap[-1].id)
            pending = {r.id: r.hash for r in state.new_rows}
            for row in overlap:
                known = stored.get(row.id, pending.get(row.id))
                if known != row.hash:
                    self._raise(
                        state, done, "rollback", f"forked: row {row.id} differs from the floor's"
                    )
                    self._quarantine(state, [r for r in rows if r.id >= row.id])
                    return
        for row in rows:
            if row.id <= state.anchor_row:
                continue
            if row.id != state.anchor_row + 1:
                # Rows missing in between: ask for them again from the anchor.
                state.ack = Ack(state.anchor_row, state.anchor_hash, rewind=True)
                return
            problem = self._check(state, row)
            if problem is not None:
                kind, text = problem
                self._raise(state, done, kind, text)
                self._quarantine(state, [r for r in rows if r.id >= row.id])
                return
            state.new_rows.append(row)
            state.anchor_row, state.anchor_hash, state.anchor_ts = row.id, row.hash, row.ts
        # The message's last row, now held: the anchor itself when the rows reached past
        # it, else a row the station certainly has (a copy sent again after a lost ack).
        if rows:
            state.ack = Ack(rows[-1].id, rows[-1].hash)

    def _check(self, state: _Table, row: Row) -> tuple[str, str] | None:
        if row.prev_hash != state.anchor_hash:
            return "rollback", f"forked: row {row.id} does not follow the floor's row {row.id - 1}"
        if not check_row_hash(row):
            return "chain", f"chain broken: row {row.id} does not match its hash"
        if row.kind == SEAL_KIND:
            seal_problem = self.seals(state.table, row, state.seal_epoch)
            if seal_problem is not None:
                return "seal", f"seal: row {row.id}: {seal_problem}"
            fields = seal_fields(row)
            if isinstance(fields, dict):
                state.seal_epoch = fields["epoch"] + 1
                state.sealed_row, state.sealed_hash = row.id, row.hash
        return None

    def _quarantine(self, state: _Table, rows: Sequence[Row]) -> None:
        state.quarantine.extend(rows)
        if rows:
            state.ack = Ack(rows[-1].id, rows[-1].hash)

    def _status(self, state: _Table, status: Status, done: Applied) -> None:
        if state.status_ts is not None and status.ts <= state.status_ts:
            return  # an older status, taken by another collector after a newer one
        head_id, head_hash = status.head
        anchor_ts = state.anchor_ts
        if (
            not state.quarantined
            and head_id < state.anchor_row
            and anchor_ts is not None
            and status.ts > anchor_ts  # sent after the station committed the anchor row
        ):
            stored = self._stored_hashes(state.table, head_id, head_id).get(
                head_id, GENESIS_HASH if head_id == 0 else None
            )
            what = "rolled back or truncated" if stored == head_hash else "forked"
            self._raise(
                state,
                done,
                "rollback",
                f"{what}: the station's last row is {head_id}, the floor holds {state.anchor_row}",
            )
        old_fault = (state.status or {}).get("fault")
        if status.fault != old_fault:
            if old_fault:
                self.conn.execute(
                    "UPDATE alert SET cleared = clock_timestamp() WHERE table_id = %s"
                    " AND kind = 'fault' AND cleared IS NULL",
                    (state.table,),
                )
            if status.fault:
                text = f"fault {status.fault['code']} in {status.fault['state']}"
                self._alert(state.table, "fault", text, done)
        state.status_ts = status.ts
        state.status = {
            "state": status.state,
            "round": status.round_no,
            "fault": status.fault,
            "devices": status.devices,
            "head": list(status.head),
            "acked": status.acked,
            "ts": status.ts,
        }

    def _raise(self, state: _Table, done: Applied, kind: str, text: str) -> None:
        if state.quarantined is None:
            state.quarantined = text
        self._alert(state.table, kind, text, done)

    def _alert(self, table: str, kind: str, text: str, done: Applied) -> None:
        self.conn.execute(
            "INSERT INTO alert (table_id, kind, message) VALUES (%s, %s, %s)", (table, kind, text)
        )
        done.alerts.append((table, kind, text))

    def _stored_hashes(self, table: str, first: int, last: int) -> dict[int, str]:
        rows = self.conn.execute(
            "SELECT row_id, hash FROM journal_row WHERE table_id = %s AND row_id BETWEEN %s AND %s",
            (table, first, last),
        ).fetchall()
        return {row_id: digest for row_id, digest in rows}

    # --- writing --------------------------------------------------------------------

    def _write(self, tables: Sequence[_Table] | Any, done: Applied) -> None:
        with self.conn.cursor() as cur:
            with cur.copy(f"COPY journal_row ({_COLUMNS}) FROM STDIN") as copy:
                for state in tables:
                    for r in state.new_rows:
                        copy.write_row(_values(state.table, r))
                        done.stored += 1
            for state in tables:
                if state.quarantine:
                    cur.executemany(
                        f"INSERT INTO quarantine_row ({_COLUMNS}) VALUES"
                        " (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                        [_values(state.table, r) for r in state.quarantine],
                    )
                ended = [r for r in state.new_rows if r.kind in ROUND_ENDS]
                for row in ended:
                    self._round_result(cur, state.table, row)
                starts = [r for r in state.new_rows if r.kind == "station_started"]
                if starts:
                    cur.execute(
                        "UPDATE floor_table SET limits = %s WHERE table_id = %s",
                        (json.dumps(posted_limits(starts[-1])), state.table),
                    )
                cur.execute(
                    "UPDATE floor_table SET anchor_row = %s, anchor_hash = %s, anchor_ts = %s,"
                    " quarantined = %s, status = %s, status_ts = %s, last_seen = now(),"
                    " seal_epoch = %s, sealed_row = %s, sealed_hash = %s WHERE table_id = %s",
                    (
                        state.anchor_row,
                        state.anchor_hash,
                        state.anchor_ts,
                        state.quarantined,
                        json.dumps(state.status) if state.status is not None else None,
                        state.status_ts,
                        state.seal_epoch,
                        state.sealed_row,
                        state.sealed_hash,
                        state.table,
                    ),
                )
                if state.ack is not None:
                    done.acks[state.table] = state.ack
            # The monitors listening show the change at once (delivered at the commit).
            cur.execute("NOTIFY floor_changed")

    def _round_result(self, cur: psycopg.Cursor[tuple[Any, ...]], table: str, row: Row) -> None:
        # The house result is minus the players' net over the round's settled wagers
        # (main hands, Match the Dealer, insurance), as `simulate`'s tally counts it.
        cur.execute(
            "INSERT INTO round_result (table_id, round, ended, status, house_cents)"
            " SELECT %s, %s, %s, %s, COALESCE(-sum((data::jsonb->>'net_cents')::bigint), 0)"
            " FROM journal_row WHERE table_id = %s AND round = %s"
            " AND kind IN ('settlement', 'match_settled', 'insurance')"
            " ON CONFLICT DO NOTHING",
            (
                table,
                row.round_no,
                row.ts,
                "completed" if row.kind == "round_completed" else "voided",
                table,
                row.round_no,
            ),
        )


def _values(table: str, r: Row) -> tuple[Any, ...]:
    return (table, r.id, r.ts, r.kind, r.round_no, r.data_text, r.prev_hash, r.hash)


def posted_limits(row: Row) -> dict[str, int | None]:
    """The table limits a ``station_started`` row posts (NY 5324.12(d)(2)): each field a
    whole number of cents or None. A row from an older station without them, or with
    anything else in their place (the row's hash is checked, its content is the station's),
    posts none."""
    try:
        fields: Any = row.data
    except JournalCorruptError:  # not a JSON object
        fields = None
    data = fields.get("limits") if isinstance(fields, dict) else None
    if not isinstance(data, dict):
        data = {}
    posted: dict[str, int | None] = {}
    for name in LIMIT_FIELDS:
        value = data.get(name)
        posted[name] = value if type(value) is int and value > 0 else None
    return posted
