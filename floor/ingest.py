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

A status whose head is behind the floor's last row, at a time later than that row's by more
than :data:`COMMIT_WINDOW_SECONDS`, is a station rolled back (or forked): quarantine. A
status within the window is no evidence (the row may have been committed after the station
read its journal for that head).

Statuses are kept in the order they *arrive* (the collector's clock): a station clock
stepped back, or a time far ahead, never freezes a table's status. The station's time is
shown clamped to the collector's clock plus ``clock_tolerance``, and a larger skew raises
a ``clock`` alert until it is back within the tolerance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any, Final

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
    row_problem,
)
from floor.seals import NO_SEALS, TableSeals
from floor.store import LIMIT_FIELDS, Applied, Conn, TableState, posted_limits, write

__all__ = [
    "LIMIT_FIELDS",
    "Applied",
    "Ingest",
    "Message",
    "Rows",
    "StatusReport",
    "Verdicts",
    "posted_limits",
]

#: Sealed heads a station reported, kept until the floor holds their rows.
ANCHORS_KEPT = 16

#: How long after its time a station's row may still be committed, in seconds. A status's
#: head is the journal's as of the status's time (the station reads the time, then the
#: journal), but a row is stamped before its transaction commits: the event's rows, then
#: COMMIT with the WAL's fsync and, about every seven rounds, a checkpoint's fsync of the
#: database file, which on an SD card can stall for a second or more, on a station thread
#: that a loaded Pi may also preempt. So a row stamped just before a status may be
#: committed just after the station read its journal, and another collector may merge it
#: before this status is taken: a status within this window of the floor's last row is no
#: evidence that the station lacks that row. A real rollback is not missed: it takes a
#: restart (minutes), and the station's next status, every ``status_interval_seconds``
#: (5 by default), is past the window.
COMMIT_WINDOW_SECONDS: Final = 5.0

# The statements of one transaction (every one runs in tests/test_floor_ingest.py and
# test_floor_forgery.py on a real PostgreSQL; the verdicts between them need none).
_NEW_TABLE_SQL = "INSERT INTO floor_table (table_id) VALUES (%s) ON CONFLICT DO NOTHING"
_LOCK_SQL = (
    "SELECT table_id, anchor_row, anchor_hash, anchor_ts, quarantined, status_ts, status,"
    " seal_epoch, sealed_row, sealed_hash, status_arrived, station_anchors, clock_skew"
    " FROM floor_table WHERE table_id = ANY(%s) ORDER BY table_id FOR UPDATE"
)
_PENDING_SQL = (
    "SELECT table_id, row_id, ts, kind, round, data, prev_hash, hash"
    " FROM pending_row WHERE table_id = ANY(%s)"
)
_STORED_SQL = (
    "SELECT row_id, encode(hash, 'hex') FROM journal_entry"
    " WHERE table_id = %s AND row_id BETWEEN %s AND %s"
)
_EVIDENCE_SQL = "SELECT 1 FROM quarantine_row WHERE table_id = %s AND row_id = %s AND hash = %s"


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
            verdicts = Verdicts(self._stored_hashes, clock_tolerance=self.clock_tolerance)
            for message in messages:
                verdicts.take(tables[message.table], message, done)
            for state in tables.values():
                verdicts.settle(state, done)
            write(self.conn, tables.values(), done)
        return done

    # --- per table ------------------------------------------------------------------

    def _lock(self, names: set[str]) -> dict[str, TableState]:
        ordered = sorted(names)  # one lock order for every collector: no deadlock
        with self.conn.cursor() as cur:
            cur.executemany(_NEW_TABLE_SQL, [(n,) for n in ordered])
            cur.execute(_LOCK_SQL, (ordered,))
            lines = cur.fetchall()
            sealing = [n for n in ordered if self.seals.sealed(n)]
            waiting: list[tuple[Any, ...]] = []
            if sealing:
                cur.execute(_PENDING_SQL, (sealing,))
                waiting = cur.fetchall()
        return table_states(lines, waiting, self.seals, self._stored_hashes, self._in_evidence)

    def _stored_hashes(self, table: str, first: int, last: int) -> dict[int, str]:
        rows = self.conn.execute(_STORED_SQL, (table, first, last)).fetchall()
        return {row_id: digest for row_id, digest in rows}

    def _in_evidence(self, table: str, row_id: int, digest: str) -> bool:
        found = self.conn.execute(_EVIDENCE_SQL, (table, row_id, digest)).fetchone()
        return found is not None


#: The hashes the floor holds of a table's rows ``first`` to ``last``: ``(table, first,
#: last) -> {row id: hash}``.
StoredHashes = Callable[[str, int, int], dict[int, str]]


def table_states(
    lines: Sequence[Sequence[Any]],
    waiting: Sequence[Sequence[Any]],
    seals: TableSeals,
    stored: StoredHashes,
    in_evidence: Callable[[str, int, str], bool],
) -> dict[str, TableState]:
    """Each locked table's state from its ``floor_table`` line (``_LOCK_SQL``'s columns):
    its first new row follows its anchor; a table whose key ``seals`` holds gets its
    :class:`~floor.branches.SealedChain` from its sealed head over its rows waiting for a
    seal (``waiting``: ``_PENDING_SQL``'s rows, any table's), reading the floor's rows of
    that table only (``stored``, ``in_evidence``)."""
    tables = {line[0]: TableState(*line) for line in lines}
    pending: dict[str, dict[str, Row]] = {n: {} for n in tables if seals.sealed(n)}
    for name, *columns in waiting:
        row = Row(*columns)
        pending[name][row.hash] = row
    for name, state in tables.items():
        state.start_hash = state.anchor_hash
        if name in pending:
            state.chain = SealedChain(
                name,
                state.anchor_row,
                state.anchor_hash,
                state.seal_epoch,
                pending[name],
                seals,
                partial(stored, name),
                partial(in_evidence, name),
            )
    return tables


class Verdicts:
    """The rules of one transaction, without I/O (see the module docstring): what each
    message does to its table's :class:`~floor.store.TableState` (rows merged, waiting,
    quarantined; the anchor, the seal, the status, the acknowledgement) and the alerts it
    raises or clears (``state.alert_changes``, in order, and ``done.alerts``), which
    :func:`floor.store.write` stores. ``stored`` reads what the floor already holds."""

    def __init__(self, stored: StoredHashes, *, clock_tolerance: float = 120.0) -> None:
        self.stored = stored
        self.clock_tolerance = clock_tolerance

    def take(self, state: TableState, message: Message | Status, done: Applied) -> None:
        """Apply one message of ``state``'s table."""
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

    def _rows(self, state: TableState, rows: Sequence[Row], done: Applied) -> None:
        if state.quarantined:
            self._quarantine(state, rows)
            return
        overlap = [r for r in rows if r.id <= state.anchor_row]
        if overlap:
            stored = self.stored(state.table, overlap[0].id, overlap[-1].id)
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

    def _check(self, state: TableState, row: Row) -> tuple[str, str] | None:
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

    def _quarantine(self, state: TableState, rows: Sequence[Row]) -> None:
        state.quarantine.extend(rows)
        if rows:
            state.ack = Ack(rows[-1].id, rows[-1].hash)

    def settle(self, state: TableState, done: Applied) -> None:
        """Take what a sealing table's chain decided, refused messages, and check the
        station's reported anchors against what is now merged (once, after every message
        of the transaction)."""
        chain = state.chain
        if chain is not None:
            state.new_rows.extend(chain.merged)
            state.quarantine.extend(chain.evidence)
            for kind, text in chain.alerts:
                self._alert(state, kind, text, done)
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
            self._alert(state, refused.kind, refused.reason, done)
            if refused.poisoned:
                self._raise(state, done, None, f"refused: {refused.reason}")
        self._check_anchors(state, done)

    def _check_anchors(self, state: TableState, done: Applied) -> None:
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
                ours = self.stored(state.table, row_id, row_id).get(row_id)
            if ours != digest:
                text = (
                    f"forked: the station's sealed row {row_id} (epoch {epoch}) is not the"
                    " floor's: its journal was rewritten or replaced"
                )
                self._raise(state, done, "rollback", text)
        state.station_anchors = waiting or None

    def _status(self, state: TableState, report: StatusReport, done: Applied) -> None:
        status, arrived = report.status, report.arrived
        if state.status_arrived is not None and arrived <= state.status_arrived.timestamp():
            return  # an older status, taken by another collector after a newer one
        head_id, head_hash = status.head
        if (
            not state.quarantined
            and head_id < state.anchor_row
            and _past_commit_window(status.ts, state.anchor_ts)
        ):
            # The floor's row there: merged earlier in this transaction, or stored before.
            ours = next((r.hash for r in state.new_rows if r.id == head_id), None)
            if ours is None:
                ours = self.stored(state.table, head_id, head_id).get(
                    head_id, GENESIS_HASH if head_id == 0 else None
                )
            what = "rolled back or truncated" if ours == head_hash else "forked"
            self._raise(
                state,
                done,
                "rollback",
                f"{what}: the station's last row is {head_id}, the floor holds {state.anchor_row}",
            )
        old_fault = (state.status or {}).get("fault")
        if status.fault != old_fault:
            self._clear(state, "fault")
            if status.fault:
                text = f"fault {status.fault['code']} in {status.fault['state']}"
                self._alert(state, "fault", text, done)
        shown_ts = self._clock(state, status.ts, arrived, done)
        if status.anchor is not None and list(status.anchor) != [
            state.sealed_row,
            state.seal_epoch - 1,
            state.sealed_hash,
        ]:  # (the floor's own sealed head needs no check)
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

    def _clock(self, state: TableState, ts: str, arrived: float, done: Applied) -> str:
        """The status time to show: the station's, clamped to the collector's clock plus the
        tolerance; records the skew and raises or clears the ``clock`` alert."""
        tolerance = self.clock_tolerance
        station = _parse_ts(ts)
        if station is None:
            state.clock_skew = None
            self._alert(state, "clock", f"the station's time {ts!r} is unreadable", done)
            return _format_ts(arrived)
        skew, before = station - arrived, state.clock_skew
        state.clock_skew = skew
        if abs(skew) > tolerance:
            text = f"the station's clock is {skew:+.0f} s from the collector's"
            self._alert(state, "clock", text, done)
        elif before is None or abs(before) > tolerance:  # an alert may be open: close it
            self._clear(state, "clock")
        return ts if skew <= tolerance else _format_ts(arrived + tolerance)

    def _raise(self, state: TableState, done: Applied, kind: str | None, text: str) -> None:
        if state.quarantined is None:
            state.quarantined = text
        if kind is not None:
            self._alert(state, kind, text, done)

    def _alert(self, state: TableState, kind: str, text: str, done: Applied) -> None:
        # One open alert per table and kind (floor.store.write): the same trouble again
        # counts up.
        state.alert_changes.append((kind, text))
        done.alerts.append((state.table, kind, text))

    def _clear(self, state: TableState, kind: str) -> None:
        state.alert_changes.append((kind, None))


def _past_commit_window(status_ts: str, anchor_ts: str | None) -> bool:
    """Is a status at the station's time ``status_ts`` later than the floor's last row, at
    the station's time ``anchor_ts``, by more than :data:`COMMIT_WINDOW_SECONDS`? Only
    then must its head hold that row. A time that cannot be read says nothing (the
    status's raises the ``clock`` alert; a row's is refused as malformed)."""
    status_at = _parse_ts(status_ts)
    anchor_at = None if anchor_ts is None else _parse_ts(anchor_ts)
    if status_at is None or anchor_at is None:
        return False
    return status_at - anchor_at > COMMIT_WINDOW_SECONDS


def _parse_ts(text: str) -> float | None:
    if not JOURNAL_TS.fullmatch(text):
        return None
    try:
        return datetime.strptime(text, TS_FORMAT).replace(tzinfo=UTC).timestamp()
    except ValueError:  # 2026-02-30
        return None


def _format_ts(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime(TS_FORMAT)
