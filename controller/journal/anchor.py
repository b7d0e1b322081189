"""Anchors: the latest sealed head of a table's journal, taken off the station to catch a
journal that is later cut back (behind the anchor) or replaced (forked from it).

``journal anchor`` prints one; ``journal verify --anchor A`` checks the journal against it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from controller.journal.format import JournalCorruptError
from controller.journal.seal import SEAL_KIND, seal_fields
from controller.journal.storage import storage_of


@dataclass(frozen=True, slots=True)
class Anchor:
    """The latest sealed head of a table's journal: ``TABLE:ROW:EPOCH:HASH`` as text, where
    ``ROW`` is the seal row's id and ``HASH`` that row's hash (``journal anchor``)."""

    table: str
    row: int
    epoch: int
    hash: str

    def __str__(self) -> str:
        return f"{self.table}:{self.row}:{self.epoch}:{self.hash}"

    @classmethod
    def parse(cls, text: str) -> Anchor:
        """Parse the text form.

        Raises:
            ValueError: not an anchor.
        """
        parts = text.strip().split(":")
        if len(parts) != 4:
            raise ValueError(f"not an anchor (expected TABLE:ROW:EPOCH:HASH): {text!r}")
        table, row, epoch, digest = parts
        if not (row.isdigit() and epoch.isdigit() and len(row) < 19 and len(epoch) < 19):
            raise ValueError(f"anchor: row and epoch must be numbers: {text!r}")
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ValueError(f"anchor: the hash must be 64 hex digits: {text!r}")
        return cls(table, int(row), int(epoch), digest)


def latest_anchor(conn: sqlite3.Connection) -> Anchor | None:
    """The anchor of the journal's last seal row, or None when nothing is sealed."""
    row = storage_of(conn).last(SEAL_KIND)
    if row is None:
        return None
    fields = seal_fields(row)
    if isinstance(fields, str):
        raise JournalCorruptError(f"row {row.id}: seal {fields}")
    return Anchor(fields["table"], row.id, fields["epoch"], row.hash)


def check_anchor(
    conn: sqlite3.Connection, anchor: Anchor, last_id: int
) -> tuple[str, str, int] | None:
    """None when the journal (last row ``last_id``) holds the anchor's seal; else the case
    (``"behind"`` or ``"forked"``), the message and the first row concerned."""
    if anchor.row > last_id:
        return (
            "behind",
            f"behind: the journal ends at row {last_id}, before the anchor's seal at row"
            f" {anchor.row} (epoch {anchor.epoch}): rows removed or an older copy",
            last_id + 1,
        )
    storage = storage_of(conn)
    base = storage.base
    if base is not None and (anchor.row, anchor.hash) == (base.row, base.hash):
        return None  # a rotated journal's base row (archived): the base carries its hash
    row = storage.row(anchor.row)
    fields = seal_fields(row) if row is not None and row.kind == SEAL_KIND else None
    if (
        row is None
        or not isinstance(fields, dict)
        or (fields["table"], fields["epoch"], row.hash) != (anchor.table, anchor.epoch, anchor.hash)
    ):
        return (
            "forked",
            f"forked: row {anchor.row} is not the anchor's seal (table {anchor.table},"
            f" epoch {anchor.epoch}): the journal was rewritten or replaced",
            anchor.row,
        )
    return None
