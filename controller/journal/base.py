"""The base record of a rotated journal (docs/journal.md, "Rotation"): rows ``1..row`` are
in the archive, the live file holds the rows after it.

A rotated file's ``meta`` table (append-only, like the rows) holds one ``base`` entry, a
canonical JSON object:

* ``row`` (K) and ``hash``: the last row cut and its chain hash, the ``prev_hash`` of row
  K + 1, so the chain goes on from it;
* ``segment`` and ``header``: the archive segment whose last row is K (its file name and
  the sha256 of its header line), so that ``journal verify --archive DIR`` finds it and
  checks the link;
* ``epoch``: the epoch of the first seal after K (the seals in rows 1..K);
* ``open``: ``[[round, row, commitment], ...]``, the hole cards dealt up to K and not
  revealed by then (as a segment's header carries them);
* with a sealing state, ``key_epoch`` and ``mac = HMAC-SHA256(checkpoint key,
  canonical_json(["dealer-station base v1", table, row, hash, segment, header, epoch, open,
  key_epoch]))``: a base written by anyone without the key file is refused at the start
  and by ``journal verify --key``.

This module only reads and writes the record; the rotation is in
``controller.journal.rotate``, and every reader of rows takes the base from
:func:`base_of`.
"""

from __future__ import annotations

import hmac as std_hmac
import json
import sqlite3
from dataclasses import dataclass
from typing import Any, Final

from controller.journal.format import GENESIS_HASH, JournalCorruptError, canonical_json

BASE_KEY: Final = "base"
BASE_DOMAIN: Final = "dealer-station base v1"
_HEX: Final = frozenset("0123456789abcdef")


@dataclass(frozen=True, slots=True)
class Base:
    """A rotated journal's base record (see the module docstring)."""

    row: int
    hash: str
    segment: str
    header: str
    epoch: int
    open: tuple[tuple[int, int, str], ...]
    key_epoch: int | None = None
    mac: str | None = None

    def message(self, table: str) -> bytes:
        """The bytes the base's MAC covers."""
        return canonical_json(
            [
                BASE_DOMAIN,
                table,
                self.row,
                self.hash,
                self.segment,
                self.header,
                self.epoch,
                [list(o) for o in self.open],
                self.key_epoch,
            ]
        ).encode()

    def to_text(self) -> str:
        """The ``meta`` value: canonical JSON."""
        fields: dict[str, Any] = {
            "row": self.row,
            "hash": self.hash,
            "segment": self.segment,
            "header": self.header,
            "epoch": self.epoch,
            "open": [list(o) for o in self.open],
        }
        if self.mac is not None:
            fields["key_epoch"] = self.key_epoch
            fields["mac"] = self.mac
        return canonical_json(fields)

    @classmethod
    def parse(cls, text: object) -> Base:
        """Raises JournalCorruptError: not a base record."""
        try:
            value = json.loads(str(text))
            opened = tuple((int(r), int(i), str(c)) for r, i, c in value["open"])
            base = cls(
                value["row"],
                value["hash"],
                value["segment"],
                value["header"],
                value["epoch"],
                opened,
                value.get("key_epoch"),
                value.get("mac"),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise JournalCorruptError(f"the base record is unreadable ({err})") from None
        ints = (base.row, base.epoch) + (() if base.mac is None else (base.key_epoch,))
        if (
            any(type(n) is not int or n < 0 for n in ints)
            or base.row < 1
            or not _is_hash(base.hash)
            or not _is_hash(base.header)
            or type(base.segment) is not str
            or (base.mac is not None and not _is_hash(base.mac))
            or canonical_json(value) != str(text)
        ):
            raise JournalCorruptError("the base record is unreadable (a field out of form)")
        return base

    def check_mac(self, table: str, key: bytes) -> str:
        """Why the base's MAC is not good under checkpoint key ``key``, or ``""``."""
        from controller.journal.checkpoint import checkpoint_mac

        if self.mac is None:
            return "the base record is not sealed"
        if not std_hmac.compare_digest(checkpoint_mac(key, self.message(table)), self.mac):
            return "the base record's MAC does not match"
        return ""


def _is_hash(value: object) -> bool:
    return type(value) is str and len(value) == 64 and set(value) <= _HEX


def base_of(conn: sqlite3.Connection) -> Base | None:
    """The base record of the journal open on ``conn`` (None: it was never rotated).

    Raises:
        JournalCorruptError: a base record that does not read.
    """
    try:
        found = conn.execute("SELECT value FROM meta WHERE key = ?", (BASE_KEY,)).fetchone()
    except sqlite3.OperationalError as err:
        if "no such table" not in str(err):
            raise
        return None
    return None if found is None else Base.parse(found[0])


def start_of(conn: sqlite3.Connection) -> tuple[int, str]:
    """Where the file's rows begin: after row K with hash ``hash`` (0 and the genesis hash
    when the journal was never rotated)."""
    base = base_of(conn)
    return (0, GENESIS_HASH) if base is None else (base.row, base.hash)
