"""The segment file format itself (``controller/journal/archive/segment.py``; docs/journal.md,
"Archive"): its header line, its name, its row lines and what a folder of segments holds,
on segments written by hand here (a few rows each, no journal), so that each rule is stated
on the smallest file that shows it.

The journal-built archives and their verification are ``tests/test_journal_archive.py``'s;
hostile folders and files through the command line are ``tests/test_journal_archive_cli.py``'s.
"""

from __future__ import annotations

import stat
import zlib
from collections.abc import Iterator
from pathlib import Path, PosixPath

import pytest

from controller.journal.archive.segment import (
    _READ,
    Header,
    _kind_of,
    lines,
    remove_temporaries,
    split_line,
)

HASH = "0" * 64


def write_segment(path: Path, body: bytes, *, rows: int = 2) -> Path:
    """A segment file at ``path``: a header naming rows ``1..rows``, then ``body``'s
    bytes compressed as one zlib stream (the rows' hashes are not this file's concern)."""
    header = Header("T1", 1, rows, rows, HASH, HASH, (0, 0), ())
    path.write_bytes(header.to_line() + zlib.compress(body))
    return path


# -- the row lines --------------------------------------------------------------------------


def test_the_row_lines_are_the_inflated_rows_split_at_each_line_end(tmp_path: Path) -> None:
    path = write_segment(tmp_path / "000000000001-000000000003.dsa", b"\nrow 2\nrow 3\n")
    assert list(lines(path)) == [b"", b"row 2", b"row 3"]


def test_a_row_line_ending_where_a_read_of_inflated_rows_ends_is_read_whole(
    tmp_path: Path,
) -> None:
    """The rows are inflated a MiB (``_READ``) at a time: a line of exactly that length
    has its end at the first byte of the next read, and the next line runs across the
    read after (it is joined whole, nothing lost or doubled at either read's edge)."""
    first, across, last = b"a" * _READ, b"b" * (_READ + 5), b"c" * 10
    body = b"\n".join([first, across, last]) + b"\n"
    path = write_segment(tmp_path / "000000000001-000000000003.dsa", body, rows=3)
    assert list(lines(path)) == [first, across, last]


# -- a row line's parts -------------------------------------------------------------------


def test_a_row_lines_parts_end_at_its_headers_bracket_not_at_one_in_its_data() -> None:
    """``[id, ts, kind, round]`` then the data: a ``]`` inside the data (a list of cards)
    is the data's."""
    line = '[7,"2026-11-30T09:15:12.123456Z","decision",3]{"cards":["5D","7S"],"seat":1}'
    assert split_line(line) == ("decision", 3, 7, '{"cards":["5D","7S"],"seat":1}')
    between = '[8,"2026-11-30T09:15:13.000000Z","shuffle_done",null]{"cards":[]}'
    assert split_line(between) == ("shuffle_done", None, 8, '{"cards":[]}')


# -- entries that are no segment file ------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "named"),
    [
        (stat.S_IFDIR | 0o755, "a directory"),
        (stat.S_IFIFO | 0o600, "a FIFO"),
        (stat.S_IFCHR | 0o600, "a device"),
        (stat.S_IFBLK | 0o600, "a device"),
        (stat.S_IFSOCK | 0o600, "a socket"),
        (stat.S_IFLNK | 0o777, "not a file"),  # fstat never gives it: any kind not named
    ],
)
def test_each_kind_of_entry_that_is_no_file_is_named_in_plain_words(mode: int, named: str) -> None:
    """docs/journal.md: ``corrupt`` names a directory, a FIFO, a device (character or
    block), a socket."""
    assert _kind_of(mode) == named


# -- what a killed run leaves -------------------------------------------------------------


class _Racing(PosixPath):
    """A folder whose leftovers another run removes between their listing and their
    removal here."""

    def glob(self, pattern: str) -> Iterator[Path]:  # type: ignore[override]
        for found in list(super().glob(pattern)):
            found.unlink()
            yield found


def test_a_killed_runs_temporaries_are_removed_and_only_they(tmp_path: Path) -> None:
    leftovers = [tmp_path / ".000000000001-000000000009.dsa.4242.tmp"]
    kept = [tmp_path / "000000000001-000000000009.dsa", tmp_path / "notes.tmp"]
    for path in (*leftovers, *kept):
        path.write_bytes(b"x")
    remove_temporaries(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in kept)


def test_a_temporary_another_run_removed_first_is_no_error(tmp_path: Path) -> None:
    (tmp_path / ".000000000001-000000000009.dsa.4242.tmp").write_bytes(b"x")
    remove_temporaries(_Racing(tmp_path))
    assert list(tmp_path.iterdir()) == []
