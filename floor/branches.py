"""A sealing table's rows between seals: held, never trusted, until a seal covers them.

A station's broker password lets whoever holds it send rows that chain perfectly (the
chain hash has no key); only a seal (``controller.journal.seal``: a MAC under the epoch's
key, which the station evolves and forgets) proves rows are the station's. So for a table
whose verification key the floor holds, :class:`SealedChain` keeps:

- the *merged head*: the last checked seal. Everything up to it is in ``journal_row``.
- *pending* rows: rows that chain from the merged head, not covered by a seal yet, on one
  branch or several (a forger's and the station's may both arrive). They wait in
  ``pending_row``; nothing reads them as the table's journal.

When a seal row arrives on a branch and checks out with the epoch due, that branch up to
the seal is merged, in order; every other pending row is moved to ``quarantine_row`` as
evidence with a ``seal`` alert (a branch nobody could seal). A seal that fails is evidence
with a ``seal`` alert, and so is whatever follows it; the rows under it keep waiting (a bad
seal proves nothing about them: anyone can put one on any chain), and the station's own
seal, when it comes, wins. So the branch with valid seals always wins, and rows nobody
sealed never displace sealed ones.

Rows that contradict the merged (sealed) rows are evidence with a ``rollback`` alert; a
seal among them is checked too, and one that checks out (the key of an epoch the floor has
already seen used on another history: a copied key, or a station restored from a backup)
quarantines the table. Rows whose parent the floor lacks ask the station for a resend
from the merged head (a *rewind*), unless the parent is itself evidence.

Pure: the caller (:mod:`floor.ingest`) reads the state, asks the database through two
callbacks, and writes what :attr:`SealedChain.merged`, ``new_pending``, ``resolved`` and
``evidence`` hold when the transaction ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from controller.journal.format import Row
from controller.journal.seal import SEAL_KIND, check_row_hash, seal_fields
from controller.journal.wire import Ack
from floor.screen import row_problem

#: ``check(table, seal_row, epoch_due or None) -> problem or None``.
SealCheck = Callable[[str, Row, int | None], str | None]
#: At most this many rows wait unsealed per table (a station seals after every round, about
#: 105 rows); more go to the evidence with a ``seal`` alert.
PENDING_LIMIT: Final = 20_000


@dataclass
class SealedChain:
    """One sealing table within one transaction (see the module docstring)."""

    table: str
    head_row: int
    head_hash: str
    epoch: int  # the epoch the next seal must carry
    pending: dict[str, Row]  # hash -> row
    check: SealCheck
    merged_hashes: Callable[[int, int], dict[int, str]]  # merged rows' hashes first..last
    in_evidence: Callable[[int, str], bool]  # is (row, hash) in quarantine_row?
    merged: list[Row] = field(default_factory=list)
    new_pending: list[Row] = field(default_factory=list)
    resolved: set[tuple[int, str]] = field(default_factory=set)  # to delete from pending_row
    evidence: list[Row] = field(default_factory=list)
    alerts: list[tuple[str, str]] = field(default_factory=list)
    quarantine: str | None = None
    ack: Ack | None = None

    def __post_init__(self) -> None:
        self._stored = set(self.pending)  # the rows already in pending_row

    def take(self, rows: Sequence[Row]) -> None:
        """Take one message's consecutive rows."""
        if not rows:
            return
        self.ack = Ack(rows[-1].id, rows[-1].hash)
        at = 0
        if rows[0].id <= self.head_row:
            last = min(rows[-1].id, self.head_row)
            merged = self.merged_hashes(rows[0].id, last)
            merged.update((r.id, r.hash) for r in self.merged if rows[0].id <= r.id <= last)
            while at < len(rows) and rows[at].id <= self.head_row:
                row = rows[at]
                if merged.get(row.id) != row.hash:
                    text = f"forked: row {row.id} differs from the floor's sealed row"
                    self._fork(rows[at:], text)
                    return
                at += 1
        previous: Row | None = None
        for index in range(at, len(rows)):
            row = rows[index]
            if previous is not None and row.prev_hash != previous.hash:
                self._evidence(rows[index:], "chain", f"chain broken: row {row.id}")
                return
            previous = row
            if not self._connected(row):
                if row.id == self.head_row + 1:
                    self._fork(rows[index:], f"forked: row {row.id} does not follow the sealed row")
                elif self.in_evidence(row.id - 1, row.prev_hash):
                    self._evidence(rows[index:], None, "")  # more of a branch already held
                else:  # its parent never reached the floor: send again from the merged head
                    self.ack = Ack(self.head_row, self.head_hash, rewind=True)
                return
            if not check_row_hash(row):
                self._evidence(rows[index:], "chain", f"chain broken: row {row.id}")
                return
            problem = row_problem(self.table, row)
            if problem is not None:
                self._evidence(rows[index:], *problem)
                self.quarantine = self.quarantine or problem[1]
                return
            if row.kind == SEAL_KIND:
                if not self._seal(row):
                    self._evidence(rows[index + 1 :], None, "")
                    return
            elif row.hash not in self.pending:
                if len(self.pending) >= PENDING_LIMIT:
                    text = f"more than {PENDING_LIMIT} rows without a seal from row {row.id}"
                    self._evidence(rows[index:], "seal", text)
                    return
                self.pending[row.hash] = row
                self.new_pending.append(row)

    # --- the pieces ----------------------------------------------------------------

    def _connected(self, row: Row) -> bool:
        if row.id == self.head_row + 1:
            return row.prev_hash == self.head_hash
        parent = self.pending.get(row.prev_hash)
        return parent is not None and parent.id == row.id - 1

    def _branch(self, tip: Row) -> list[Row]:
        """The pending rows from the merged head up to ``tip``'s parent, in order."""
        path: list[Row] = []
        digest = tip.prev_hash
        while digest != self.head_hash:
            parent = self.pending[digest]
            path.append(parent)
            digest = parent.prev_hash
        return path[::-1]

    def _seal(self, seal: Row) -> bool:
        problem = self.check(self.table, seal, self.epoch)
        if problem is not None:
            # A bad seal proves nothing about the rows under it (anyone can put one on any
            # chain): they keep waiting for a good one; the bad seal is evidence.
            text = f"seal: row {seal.id}: {problem}"
            self._evidence([seal], "seal", text)
            return False
        branch = self._branch(seal)
        self._drop(branch)
        self.merged.extend([*branch, seal])
        fields = seal_fields(seal)
        assert isinstance(fields, dict)  # the check above read them
        self.head_row, self.head_hash, self.epoch = seal.id, seal.hash, fields["epoch"] + 1
        # Every other waiting row is on a branch that this seal did not cover.
        losers = sorted(self.pending.values(), key=lambda r: r.id)
        if losers:
            self._drop(losers)
            text = (
                f"seal: rows {losers[0].id}-{losers[-1].id} of another branch were never"
                f" sealed; the branch sealed at row {seal.id} was merged"
            )
            self._evidence(losers, "seal", text)
        return True

    def _drop(self, rows: Iterable[Row]) -> None:
        for row in rows:
            if self.pending.pop(row.hash, None) is not None and row.hash in self._stored:
                self.resolved.add((row.id, row.hash))
        kept = set(self.pending)
        self.new_pending = [r for r in self.new_pending if r.hash in kept]

    def _fork(self, rows: Sequence[Row], text: str) -> None:
        self._evidence(rows, "rollback", text)
        # Seals in the evidence are checked too: one that holds is a sealed history other
        # than the floor's (a copied key, a station restored from a backup).
        for row in rows:
            if row.kind != SEAL_KIND or not check_row_hash(row):
                continue
            if self.check(self.table, row, None) is None:
                fields = seal_fields(row)
                epoch = fields["epoch"] if isinstance(fields, dict) else "?"
                sealed = f"forked with a valid seal of epoch {epoch} at row {row.id}"
                self.alerts.append(("rollback", sealed))
                self.quarantine = self.quarantine or sealed
                return

    def _evidence(self, rows: Sequence[Row], kind: str | None, text: str) -> None:
        self.evidence.extend(rows)
        if kind is not None:
            self.alerts.append((kind, text))
