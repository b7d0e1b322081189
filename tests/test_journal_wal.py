"""The scan of the ``-wal`` file beside a journal (``controller.journal.wal``), on
hand-made files: the uncommitted frames after the last commit frame of the current WAL
generation, and a frame cut short, are an interrupted write that SQLite discards
(docs/journal.md; ``verify`` reports it as ``interrupted``). The scan reads only a WAL
header SQLite itself would recover from: SQLite's WAL format (sqlite.org/walformat.html)
has two magic numbers (0x377F0682, 0x377F0683), a 32-byte header, 24-byte frame headers
and pages of 512 bytes or more."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from controller.journal.wal import WalState, read_wal_state

PAGE = 512


def wal_file(
    path: Path,
    frames: list[tuple[int, tuple[int, int]]],
    tail: bytes = b"",
    *,
    magic: int = 0x377F0682,
    page: int = PAGE,
) -> Path:
    """A WAL with salts (1, 2) and ``frames`` of (commit size, salts) of ``page`` bytes;
    checksums zero."""
    header = struct.pack(">IIIIIIII", magic, 3007000, page, 0, 1, 2, 0, 0)
    body = b"".join(
        struct.pack(">IIIIII", n + 1, commit, salts[0], salts[1], 0, 0) + bytes(page)
        for n, (commit, salts) in enumerate(frames)
    )
    path.write_bytes(header + body + tail)
    return path


@pytest.mark.parametrize(
    ("frames", "tail", "pending", "torn"),
    [
        ([(3, (1, 2))], b"", 0, False),  # one committed transaction
        ([(0, (1, 2)), (3, (1, 2))], b"", 0, False),  # two frames, the last commits
        ([(3, (1, 2)), (0, (1, 2)), (0, (1, 2))], b"", 2, False),  # then two uncommitted
        # a frame cut short by the crash: its header made it, half its page did not
        ([(3, (1, 2))], struct.pack(">IIIIII", 9, 0, 1, 2, 0, 0) + bytes(PAGE // 2), 0, True),
        ([(3, (1, 2)), (0, (7, 7))], b"", 0, False),  # a stale frame of an older WAL
    ],
    ids=["committed", "two-frame-commit", "uncommitted", "torn", "stale"],
)
def test_wal_scan(
    tmp_path: Path,
    frames: list[tuple[int, tuple[int, int]]],
    tail: bytes,
    pending: int,
    torn: bool,
) -> None:
    state = read_wal_state(wal_file(tmp_path / "j-wal", frames, tail))
    assert (state.uncommitted_frames, state.torn_frame) == (pending, torn)
    assert state.interrupted == (pending > 0 or torn)


#: One committed transaction, then two frames of one that never committed.
UNCOMMITTED: list[tuple[int, tuple[int, int]]] = [(3, (1, 2)), (0, (1, 2)), (0, (1, 2))]


@pytest.mark.parametrize(
    ("magic", "page", "read"),
    [
        (0x377F0682, 512, True),  # little-endian checksums; SQLite's smallest page
        (0x377F0683, 512, True),  # big-endian checksums
        (0x377F0682, 4096, True),
        (0x377F0682, 511, False),  # below SQLite's smallest page: not a WAL header
        (0x377F0682, 256, False),
        (0x377F0684, 512, False),  # neither magic number
        (0x00000000, 4096, False),
    ],
)
def test_wal_scan_reads_only_a_wal_header_sqlite_would(
    tmp_path: Path, magic: int, page: int, read: bool
) -> None:
    """SQLite recovers a WAL only under a header with one of its two magic numbers and a
    page size of at least 512 bytes (else it reads the WAL as empty): the scan counts the
    uncommitted frames under such a header alone, and none under any other."""
    state = read_wal_state(wal_file(tmp_path / "j-wal", UNCOMMITTED, magic=magic, page=page))
    assert (state.uncommitted_frames, state.torn_frame) == ((2, False) if read else (0, False))


def test_wal_scan_of_a_frame_header_without_its_page_is_a_torn_frame(tmp_path: Path) -> None:
    """A crash after a frame's 24-byte header and before any of its page: a torn frame
    (docs/journal.md: an interrupted write), as when half its page made it."""
    header_only = struct.pack(">IIIIII", 9, 0, 1, 2, 0, 0)
    state = read_wal_state(wal_file(tmp_path / "j-wal", [(3, (1, 2))], header_only))
    assert (state.uncommitted_frames, state.torn_frame) == (0, True)
    # One byte short of a frame header: no frame began, nothing is torn.
    state = read_wal_state(wal_file(tmp_path / "k-wal", [(3, (1, 2))], header_only[:-1]))
    assert (state.uncommitted_frames, state.torn_frame) == (0, False)


def test_wal_scan_counts_the_uncommitted_frames_before_a_torn_one(tmp_path: Path) -> None:
    torn = struct.pack(">IIIIII", 9, 0, 1, 2, 0, 0) + bytes(PAGE - 1)
    state = read_wal_state(wal_file(tmp_path / "j-wal", UNCOMMITTED, torn))
    assert (state.uncommitted_frames, state.torn_frame) == (2, True)


def test_wal_scan_of_a_header_alone(tmp_path: Path) -> None:
    """A WAL of its 32-byte header and no frame (SQLite's state after a reset)."""
    state = read_wal_state(wal_file(tmp_path / "j-wal", []))
    assert (state.uncommitted_frames, state.torn_frame) == (0, False)


def test_wal_scan_of_no_wal_or_garbage(tmp_path: Path) -> None:
    """No WAL, or one shorter than its header: no frame, none torn (the state's fields are
    what they say: a count and a bool, as for a WAL read whole)."""
    nothing = WalState(0, torn_frame=False)
    assert read_wal_state(tmp_path / "absent-wal") == nothing
    short = tmp_path / "short-wal"
    for size in (0, 2, 31):
        short.write_bytes(wal_file(tmp_path / "whole-wal", UNCOMMITTED).read_bytes()[:size])
        assert read_wal_state(short) == nothing
    garbage = tmp_path / "garbage-wal"
    garbage.write_bytes(os.urandom(4096))
    assert not read_wal_state(garbage).interrupted
