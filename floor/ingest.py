"""Writing what stations send into PostgreSQL: the chain check, idempotent rows, anchors,
quarantine and alerts. One call of :meth:`Ingest.apply` is one database transaction.

Per table, under a row lock on its ``floor_table`` line (so several collectors never
interleave one table):

- a row at or below the anchor was stored before: its hash must equal the stored one
  (a copy sent again is ignored; another hash is a *fork*);
- the row after the anchor must carry the anchor's hash as ``prev_hash`` (else a fork),
  its own hash must be the journal's hash of its content (else the chain is broken), and
  what it says must be something the floor can take (:func:`floor.screen.row_problem`:
  a journal time, whole cents, its own table's name);
- a row further on means rows are missing in between: nothing is stored and the station
  is asked to send again from the anchor (a *rewind* acknowledgement).

A table whose verification key the floor holds is merged only up to its last checked seal
(:mod:`floor.branches`); the rows after it wait in ``pending_row``. A table without a key
is merged row by row as above; one that forks, breaks its chain or sends what the floor
cannot take raises an alert and is *quarantined*: its rows from then on go to
``quarantine_row``, never merged (``dealer-station floor release`` ends it). The
acknowledgement always names the last row held from that station, so it keeps shipping.

Statuses are kept in the order they *arrive* (the collector's clock): a station clock
stepped back, or a time far ahead, never freezes a table's status. The station's time is
shown clamped to the collector's clock plus ``clock_tolerance``, and a larger skew raises
a ``clock`` alert until it is back within the tolerance.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any

import psycopg

from controller.journal.format import GENESIS_HASH, TS_FORMAT, Row
from controller.journal.seal import SEAL_KIND, check_row_hash, seal_fields
from controller.journal.wire import Ack, Status
from floor.branches import SealedChain
from floor.screen import (
    JOURNAL_TS,
    Message,
    Refused,
    Rows,
    StatusReport,
    net_cents,
    row_fields,
    row_problem,
)
from floor.seals import NO_SEALS, TableSeals

__all__ = ["Applied", "Ingest", "Message", "Rows", "StatusReport", "posted_limits"]

Conn = psycopg.Connection[tuple[Any, ...]]
_COLUMNS = "table_id, row_id, ts, kind, round, data, prev_hash, hash"
ROUND_ENDS = ("round_completed", "round_voided")
#: The fields of the table limits a station journals at start (``station_started``).
LIMIT_FIELDS = ("main_min_cents", "main_max_cents", "match_min_cents", "match_max_cents")
#: Sealed heads a station reported, kept until the floor holds their rows.
ANCHORS_KEPT = 16


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
    status_arrived: datetime | None
    station_anchors: list[list[Any]] | None
    clock_skew: float | None
    new_rows: list[Row] = field(default_factory=list)
    quarantine: list[Row] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    chain: SealedChain | None = None
    ack: Ack | None = None


@dataclass
class Applied:
    """What one transaction did: the acknowledgements to publish, alerts raised, rows
    stored."""

    acks: dict[str, Ack] = field(default_factory=dict)
    alerts: list[tuple[str, str, str]] = field(default_factory=list)
    stored: int = 0


class Ingest:
    """Applies messages to the database on one connection (see the module docstring)."""

    def __init__(
        self, conn: Conn, seals: TableSeals = NO_SEALS, *, clock_tolerance: float = 120.0
    ) -> None:
        self.conn = conn
        self.seals = seals
        self.clock_tolerance = clock_tolerance

    def apply(self, messages: Sequence[Message | Status]) -> Applied:
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
                if isinstance(message, Rows):
                    if state.chain is not None:
                        state.chain.take(message.rows)
                    else:
                        self._rows(state, message.rows, done)
                elif isinstance(message, Refused):
                    state.refused.append(message)
                else:
                    report = message
                    if isinstance(report, Status):  # from a caller without an arrival time
                        report = StatusReport(report, datetime.now(UTC).timestamp())
                    self._status(state, report, done)
            for state in tables.values():
                self._settle(state, done)
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
                " status, seal_epoch, sealed_row, sealed_hash, status_arrived, station_anchors,"
                " clock_skew FROM floor_table WHERE table_id = ANY(%s) ORDER BY table_id"
                " FOR UPDATE",
                (ordered,),
            )
            tables = {r[0]: _Table(*r) for r in cur.fetchall()}
            sealing = [n for n in ordered if self.seals.sealed(n)]
            pending: dict[str, dict[str, Row]] = {n: {} for n in sealing}
            if sealing:
                cur.execute(
                    "SELECT table_id, row_id, ts, kind, round, data, prev_hash, hash"
                    " FROM pending_row WHERE table_id = ANY(%s)",
                    (sealing,),
                )
                for name, *columns in cur.fetchall():
                    row = Row(*columns)
                    pending[name][row.hash] = row
        for name in sealing:
            state = tables[name]
            state.chain = SealedChain(
                name,
                state.anchor_row,
                state.anchor_hash,
                state.seal_epoch,
                pending[name],
                self.seals,
                partial(self._stored_hashes, name),
                partial(self._in_evidence, name),
            )
        return tables

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
        problem = row_problem(state.table, row)
        if problem is not None:
            return problem
        if row.kind == SEAL_KIND:
            fields = seal_fields(row)
            if isinstance(fields, dict):
                state.seal_epoch = fields["epoch"] + 1
                state.sealed_row, state.sealed_hash = row.id, row.hash
        return None

    def _quarantine(self, state: _Table, rows: Sequence[Row]) -> None:
        state.quarantine.extend(rows)
        if rows:
            state.ack = Ack(rows[-1].id, rows[-1].hash)

    def _settle(self, state: _Table, done: Applied) -> None:
        """Take what a sealing table's chain decided, refused messages, and check the
        station's reported anchor against what is now merged."""
        chain = state.chain
        if chain is not None:
            state.new_rows.extend(chain.merged)
            state.quarantine.extend(chain.evidence)
            for kind, text in chain.alerts:
                self._alert(state.table, kind, text, done)
            if chain.quarantine and not state.quarantined:
                state.quarantined = chain.quarantine
            if chain.ack is not None:
                state.ack = chain.ack
            if chain.merged:
                last = chain.merged[-1]
                state.anchor_row, state.anchor_hash, state.anchor_ts = last.id, last.hash, last.ts
                state.seal_epoch = chain.epoch
                state.sealed_row, state.sealed_hash = last.id, last.hash
        for refused in state.refused:
            self._alert(state.table, refused.kind, refused.reason, done)
            if refused.poisoned:
                self._raise(state, done, None, f"refused: {refused.reason}")
        self._check_anchors(state, done)

    def _check_anchors(self, state: _Table, done: Applied) -> None:
        """Check each sealed head the station reported that the floor now holds: the
        floor's row there must be that seal (else the station's sealed history is not the
        floor's: a rewritten or replaced journal)."""
        waiting = []
        merged = {r.id: r.hash for r in state.new_rows}
        for row_id, epoch, digest in state.station_anchors or []:
            if row_id > state.anchor_row:
                waiting.append([row_id, epoch, digest])
                continue
            ours = merged.get(row_id)
            if ours is None:
                ours = self._stored_hashes(state.table, row_id, row_id).get(row_id)
            if ours != digest:
                text = (
                    f"forked: the station's sealed row {row_id} (epoch {epoch}) is not the"
                    " floor's: its journal was rewritten or replaced"
                )
                self._raise(state, done, "rollback", text)
        state.station_anchors = waiting or None

    def _status(self, state: _Table, report: StatusReport, done: Applied) -> None:
        status, arrived = report.status, report.arrived
        if state.status_arrived is not None and arrived <= state.status_arrived.timestamp():
            return  # an older status, taken by another collector after a newer one
        head_id, head_hash = status.head
        anchor_ts = state.anchor_ts
        if (
            not state.quarantined
            and head_id < state.anchor_row
            and anchor_ts is not None
            # Sent after the station committed the anchor row (both times the station's).
            and status.ts > anchor_ts
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
            self._clear(state.table, "fault")
            if status.fault:
                text = f"fault {status.fault['code']} in {status.fault['state']}"
                self._alert(state.table, "fault", text, done)
        shown_ts = self._clock(state, status.ts, arrived, done)
        if status.anchor is not None:
            anchors = state.station_anchors or []
            for row_id, epoch, digest in anchors:
                if row_id == status.anchor[0] and digest != status.anchor[2]:
                    # Two sealed rows at one place, both said to be this station's.
                    text = f"forked: two different seals reported at row {row_id} (epoch {epoch})"
                    self._raise(state, done, "rollback", text)
            if list(status.anchor) not in anchors:
                # The last few not yet checked (a station sends one per seal).
                state.station_anchors = [*anchors, list(status.anchor)][-ANCHORS_KEPT:]
        state.status_arrived = datetime.fromtimestamp(arrived, UTC)
        state.status_ts = shown_ts
        state.status = {
            "state": status.state,
            "round": status.round_no,
            "fault": status.fault,
            "devices": status.devices,
            "head": list(status.head),
            "acked": status.acked,
            "ts": shown_ts,
            "station_ts": status.ts,
        }

    def _clock(self, state: _Table, ts: str, arrived: float, done: Applied) -> str:
        """The status time to show: the station's, clamped to the collector's clock plus the
        tolerance; records the skew and raises or clears the ``clock`` alert."""
        tolerance = self.clock_tolerance
        station = _parse_ts(ts)
        if station is None:
            state.clock_skew = None
            self._alert(state.table, "clock", f"the station's time {ts!r} is unreadable", done)
            return _format_ts(arrived)
        skew = station - arrived
        state.clock_skew = skew
        if abs(skew) > tolerance:
            text = f"the station's clock is {skew:+.0f} s from the collector's"
            self._alert(state.table, "clock", text, done)
        else:
            self._clear(state.table, "clock")
        return ts if skew <= tolerance else _format_ts(arrived + tolerance)

    def _raise(self, state: _Table, done: Applied, kind: str | None, text: str) -> None:
        if state.quarantined is None:
            state.quarantined = text
        if kind is not None:
            self._alert(state.table, kind, text, done)

    def _alert(self, table: str, kind: str, text: str, done: Applied) -> None:
        # One open alert per table and kind: the same trouble again counts up.
        self.conn.execute(
            "INSERT INTO alert (table_id, kind, message) VALUES (%s, %s, %s)"
            " ON CONFLICT (table_id, kind) WHERE cleared IS NULL"
            " DO UPDATE SET repeats = alert.repeats + 1, last_raised = clock_timestamp()",
            (table, kind, text),
        )
        done.alerts.append((table, kind, text))

    def _clear(self, table: str, kind: str) -> None:
        self.conn.execute(
            "UPDATE alert SET cleared = clock_timestamp() WHERE table_id = %s AND kind = %s"
            " AND cleared IS NULL",
            (table, kind),
        )

    def _stored_hashes(self, table: str, first: int, last: int) -> dict[int, str]:
        rows = self.conn.execute(
            "SELECT row_id, hash FROM journal_row WHERE table_id = %s AND row_id BETWEEN %s AND %s",
            (table, first, last),
        ).fetchall()
        return {row_id: digest for row_id, digest in rows}

    def _in_evidence(self, table: str, row_id: int, digest: str) -> bool:
        found = self.conn.execute(
            "SELECT 1 FROM quarantine_row WHERE table_id = %s AND row_id = %s AND hash = %s",
            (table, row_id, digest),
        ).fetchone()
        return found is not None

    # --- writing --------------------------------------------------------------------

    def _write(self, tables: Iterable[_Table], done: Applied) -> None:
        tables = list(tables)
        with self.conn.cursor() as cur:
            with cur.copy(f"COPY journal_row ({_COLUMNS}, net_cents) FROM STDIN") as copy:
                for state in tables:
                    for r in state.new_rows:
                        copy.write_row((*_values(state.table, r), net_cents(r)))
                        done.stored += 1
            for state in tables:
                _insert(cur, "quarantine_row", state.table, state.quarantine)
                if state.chain is not None:
                    _insert(cur, "pending_row", state.table, state.chain.new_pending)
                    if state.chain.resolved:
                        cur.execute(
                            "DELETE FROM pending_row WHERE table_id = %s AND (row_id, hash) IN"
                            " (SELECT * FROM unnest(%s::bigint[], %s::text[]))",
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
                    cur.execute(
                        "UPDATE floor_table SET limits = %s WHERE table_id = %s",
                        (json.dumps(posted_limits(starts[-1])), state.table),
                    )
                cur.execute(
                    "UPDATE floor_table SET anchor_row = %s, anchor_hash = %s, anchor_ts = %s,"
                    " quarantined = %s, status = %s, status_ts = %s, last_seen = now(),"
                    " seal_epoch = %s, sealed_row = %s, sealed_hash = %s, status_arrived = %s,"
                    " station_anchors = %s, clock_skew = %s WHERE table_id = %s",
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
                        state.status_arrived,
                        json.dumps(state.station_anchors) if state.station_anchors else None,
                        state.clock_skew,
                        state.table,
                    ),
                )
                if state.ack is not None:
                    done.acks[state.table] = state.ack
            # The monitors listening show the change at once (delivered at the commit).
            cur.execute("NOTIFY floor_changed")


def _values(table: str, r: Row) -> tuple[Any, ...]:
    return (table, r.id, r.ts, r.kind, r.round_no, r.data_text, r.prev_hash, r.hash)


def _insert(cur: psycopg.Cursor[tuple[Any, ...]], into: str, table: str, rows: list[Row]) -> None:
    if rows:
        cur.executemany(
            f"INSERT INTO {into} ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT DO NOTHING",
            [_values(table, r) for r in rows],
        )


def _refuse(cur: psycopg.Cursor[tuple[Any, ...]], refused: Refused) -> None:
    cur.execute(
        "INSERT INTO refused_message (table_id, topic, reason, size, digest, payload)"
        " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (table_id, digest) DO UPDATE SET"
        " times = refused_message.times + 1, last_seen = clock_timestamp(),"
        " size = excluded.size",
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
    # The house result is minus the players' net over the round's settled wagers (main
    # hands, Match the Dealer, insurance), as `simulate`'s tally counts it; each net was
    # checked to be whole cents before its row was merged (floor.screen.row_problem).
    cur.execute(
        "INSERT INTO round_result (table_id, round, ended, status, house_cents)"
        " SELECT %s, %s, %s, %s, COALESCE(-sum(net_cents), 0)"
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


def _parse_ts(text: str) -> float | None:
    if not JOURNAL_TS.fullmatch(text):
        return None
    try:
        return datetime.strptime(text, TS_FORMAT).replace(tzinfo=UTC).timestamp()
    except ValueError:  # 2026-02-30
        return None


def _format_ts(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime(TS_FORMAT)
