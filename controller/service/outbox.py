"""The journal as the outbox to the floor: which rows may leave, which go next, what was
acknowledged. Sans-I/O: rows, acknowledgements and the time go in, decisions come out;
``controller.service.shipper`` does the reading and the publishing.

- A row may leave once every round it belongs to, or that started before it, has ended
  (``round_completed`` or ``round_voided``): no card of a round in play leaves the table.
  That limit is the *horizon*.
- Stop-and-wait: one batch of consecutive rows is in flight at a time, from the row after
  the last acknowledged one. An acknowledgement that covers the batch releases the next; a
  batch not acknowledged within the timeout is sent again (the collector stores rows
  idempotently, so a second copy is harmless). One batch in flight means the collectors
  never see a table's rows out of order, whichever of them takes a message.
- The acknowledgement comes from the collector, after its database commit, never from the
  broker. It is kept in a small file beside the journal (``journal.sqlite3-floor``), not in
  the append-only journal; a lost or stale file only makes the station send rows again.
- The live status (state, round, fault, device health) is read from the same rows: the
  ``prompt``, ``fault``, ``fault_resolved``, ``device`` and ``round_started`` records. It
  never carries a card. It also carries the journal's latest seal (its *anchor*), so the
  floor learns each sealed head as soon as it is written, before its rows may leave.
- The status's time is when the journal was read for its head (``head_as_of``, taken by
  the shipper *before* it reads), never when it is sent: every row committed by that time
  is in the head, which is what the floor's rollback check relies on (a head behind the
  floor's last row, in a status sent after that row was written, is a journal rolled back).
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Final

from controller.journal.format import GENESIS_HASH, JournalCorruptError, Row, format_ts
from controller.journal.reader import open_readonly
from controller.journal.seal import SEAL_KIND, seal_fields
from controller.journal.storage import storage_of
from controller.journal.wire import Ack, Status

ACK_SUFFIX: Final = "-floor"
ROUND_ENDS: Final = frozenset({"round_completed", "round_voided"})


def ack_path(journal: Path) -> Path:
    """Where the last acknowledgement of the journal at ``journal`` is kept."""
    return journal.with_name(journal.name + ACK_SUFFIX)


def load_ack(path: Path) -> tuple[int, str]:
    """The acknowledged ``(row, hash)`` kept at ``path``; ``(0, GENESIS_HASH)`` when the
    file is missing or unreadable (the rows are then simply sent again)."""
    try:
        value = json.loads(path.read_text(encoding="ascii"))
        row, digest = value["row"], value["hash"]
    except (OSError, ValueError, KeyError, TypeError):
        return 0, GENESIS_HASH
    if type(row) is not int or row < 0 or not isinstance(digest, str):
        return 0, GENESIS_HASH
    return row, digest


def ack_beyond(journal: Path) -> str:
    """What the floor's last acknowledgement says of the journal at ``journal``: ``""`` when
    the journal holds the row it names with that hash (or there is none), else one line.
    A collector acknowledges only rows the station had committed and synced: a row it
    acknowledged that the journal lacks, or holds with another hash, means the journal was
    rolled back, cut short or replaced (with its key file too, a start cannot see it
    otherwise). A stale or damaged file names an older row or nothing, never a later one.
    """
    row, digest = load_ack(ack_path(journal))
    if row == 0:
        return ""
    try:
        conn = open_readonly(journal)
    except (OSError, ValueError):
        return ""
    try:
        found = storage_of(conn).hash_of(row)
    except (sqlite3.Error, JournalCorruptError):
        return ""
    finally:
        conn.close()
    if found is None:
        return (
            f"the floor acknowledged row {row}, which the journal does not hold: rolled back,"
            " cut short or replaced; keep the files and call the supervisor"
        )
    if found != digest:
        return (
            f"the floor acknowledged row {row} with another hash: the journal was rewritten or"
            " replaced; keep the files and call the supervisor"
        )
    return ""


def save_ack(path: Path, row: int, digest: str) -> None:
    """Replace the file at ``path`` atomically (write, then rename). Not fsynced: after a
    power cut an older acknowledgement only means rows sent twice, which the collector
    ignores."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps({"row": row, "hash": digest}), encoding="ascii")
    os.replace(temporary, path)


@dataclass
class Batch:
    """Rows ``first..last`` sent at ``sent`` (monotonic seconds)."""

    first: int
    last: int
    sent: float


@dataclass
class Outbox:
    """The shipper's bookkeeping for one journal (see the module docstring)."""

    table: str
    acked: int = 0
    acked_hash: str = GENESIS_HASH
    scanned: int = 0  # the last row seen
    head_hash: str = GENESIS_HASH
    inflight: Batch | None = None
    open_round: tuple[int, int] | None = None  # (round, its first row id)
    last_closed_round: int = -1
    state: str | None = None
    round_no: int | None = None
    fault: dict[str, str] | None = None
    devices: dict[str, str] = field(default_factory=dict)
    anchor: tuple[int, int, str] | None = None  # the latest seal: (row, epoch, hash)
    #: When the journal was last read: every row committed before it has been scanned
    #: (None: never read yet). The status's time.
    head_as_of: datetime | None = None

    @property
    def horizon(self) -> int:
        """The last row that may leave the table now."""
        return self.open_round[1] - 1 if self.open_round else self.scanned

    def scan(self, row: Row) -> None:
        """Take in the next committed row (rows come in id order)."""
        self.scanned, self.head_hash = row.id, row.hash
        kind, number = row.kind, row.round_no
        if number is not None and number > self.last_closed_round and self.open_round is None:
            self.open_round = (number, row.id)
        if kind in ROUND_ENDS and number is not None:
            self.last_closed_round = max(self.last_closed_round, number)
            if self.open_round is not None and self.open_round[0] == number:
                self.open_round = None
        # Status: only these kinds, and only their non-card fields.
        if kind == "prompt":
            self.state = _text(row.data.get("state"))
        elif kind == "round_started":
            self.round_no = number
        elif kind == "fault":
            # The code and the state only: a fault's message may name a card of the
            # round in play (a card out of order), and no card leaves before the round ends.
            data = row.data
            self.fault = {
                "code": _text(data.get("code")) or "?",
                "state": _text(data.get("state")) or "",
            }
        elif kind == "fault_resolved":
            self.fault = None
        elif kind == "device":
            data = row.data
            name, health = _text(data.get("device")), _text(data.get("status"))
            if name and health:
                self.devices[name] = health
        elif kind == "clean_shutdown":
            self.state = "stopped"
        elif kind == SEAL_KIND:
            # The anchor leaves with the next status, at once: the floor compares it with
            # the sealed rows it holds (a history rewritten with a copied key shows).
            fields = seal_fields(row)
            if isinstance(fields, dict):
                self.anchor = (row.id, fields["epoch"], row.hash)

    def next_batch(self, now: float, limit: int) -> tuple[int, int] | None:
        """The rows to send now, ``(first, last)``, or None (one batch in flight, or
        nothing may leave). The batch is then in flight."""
        if self.inflight is not None or self.acked >= self.horizon:
            return None
        first = self.acked + 1
        last = min(self.horizon, self.acked + limit)
        self.inflight = Batch(first, last, now)
        return first, last

    def shorten(self, last: int) -> None:
        """The batch in flight ends at ``last`` after all (the rest made the message too
        large); the rows after it go in the next batch."""
        if self.inflight is not None and self.inflight.first <= last < self.inflight.last:
            self.inflight.last = last

    def expire(self, now: float, timeout: float) -> bool:
        """Drop a batch unacknowledged for ``timeout`` seconds (it goes again); True if so."""
        if self.inflight is not None and now - self.inflight.sent >= timeout:
            self.inflight = None
            return True
        return False

    def reset(self) -> None:
        """Forget the batch in flight (the connection was lost or made again)."""
        self.inflight = None

    def acknowledge(self, ack: Ack) -> bool:
        """Take the collector's acknowledgement, already checked against the journal (its
        row exists here with that hash). True when the kept record should be rewritten."""
        if ack.rewind:
            # The collector lacks rows it once acknowledged (its database was restored):
            # send again from where it stands.
            changed = ack.row != self.acked
            self.acked, self.acked_hash, self.inflight = ack.row, ack.hash, None
            return changed
        if ack.row <= self.acked:
            return False  # a late copy of an older acknowledgement
        self.acked, self.acked_hash = ack.row, ack.hash
        if self.inflight is not None and ack.row >= self.inflight.last:
            self.inflight = None
        return True

    def status(self) -> Status:
        """The live status to publish now, at the time its head was read
        (:attr:`head_as_of`).

        Raises:
            ValueError: the journal was never read (no head to state).
        """
        if self.head_as_of is None:
            raise ValueError("the journal was never read: no head to state")
        return Status(
            table=self.table,
            ts=format_ts(self.head_as_of),
            state=self.state,
            round_no=self.round_no,
            fault=dict(self.fault) if self.fault else None,
            devices=dict(self.devices),
            head=(self.scanned, self.head_hash),
            acked=self.acked,
            anchor=self.anchor,
        )


def _text(value: object) -> str | None:
    return value[:200] if isinstance(value, str) else None
