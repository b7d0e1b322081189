"""The ``-wal`` file beside the journal: whether a crash left a transaction half-written.

``journal verify`` reads the WAL's frame headers itself (salts only; SQLite checks the
checksums): frames of the current WAL generation after the last commit frame belong to a
transaction that never committed, which SQLite discards.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Final

WAL_MAGIC: Final = (0x377F0682, 0x377F0683)
WAL_HEADER: Final = struct.Struct(">IIIIIIII")
WAL_FRAME_HEADER: Final = struct.Struct(">IIIIII")


@dataclass(frozen=True, slots=True)
class WalState:
    """What the ``-wal`` file holds beyond the last committed transaction."""

    uncommitted_frames: int
    torn_frame: bool

    @property
    def interrupted(self) -> bool:
        """True when a transaction was written in part and never committed."""
        return self.uncommitted_frames > 0 or self.torn_frame


def read_wal_state(wal: Path) -> WalState:
    """Scan the WAL's frame headers (salts only; SQLite checks the checksums itself)."""
    try:
        raw = wal.read_bytes()
    except FileNotFoundError:
        return WalState(0, torn_frame=False)
    if len(raw) < WAL_HEADER.size:
        return WalState(0, torn_frame=False)
    magic, _version, page_size, _seq, salt1, salt2, _c1, _c2 = WAL_HEADER.unpack_from(raw)
    if magic not in WAL_MAGIC or page_size < 512:
        return WalState(0, torn_frame=False)
    frame_size = WAL_FRAME_HEADER.size + page_size
    offset, pending = WAL_HEADER.size, 0
    while offset + WAL_FRAME_HEADER.size <= len(raw):
        _page, commit_size, f_salt1, f_salt2, _c1, _c2 = WAL_FRAME_HEADER.unpack_from(raw, offset)
        if (f_salt1, f_salt2) != (salt1, salt2):
            break  # frames of an earlier WAL generation: not part of this log
        if offset + frame_size > len(raw):
            return WalState(pending, torn_frame=True)
        pending = 0 if commit_size else pending + 1
        offset += frame_size
    return WalState(pending, torn_frame=False)
