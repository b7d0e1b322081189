"""The segment file format itself (``controller/journal/archive/segment.py``; docs/journal.md,
"Archive"): its header line, its name, its row lines and what a folder of segments holds,
on segments written by hand here (a few rows each, no journal), so that each rule is stated
on the smallest file that shows it.

The journal-built archives and their verification are ``tests/test_journal_archive.py``'s;
hostile folders and files through the command line are ``tests/test_journal_archive_cli.py``'s.
"""

from __future__ import annotations

import json
import os
import stat
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path, PosixPath

import pytest

from controller.journal.archive.segment import (
    _READ,
    FORMAT,
    HEADER_MAX,
    LINE_MAX,
    ArchiveError,
    Header,
    SegmentFileError,
    _kind_of,
    lines,
    read_header,
    remove_temporaries,
    segment_name,
    segments,
    split_line,
)

HASH = "0" * 64


def write_segment(path: Path, body: bytes, *, rows: int = 2) -> Path:
    """A segment file at ``path``: a header naming rows ``1..rows``, then ``body``'s
    bytes compressed as one zlib stream (the rows' hashes are not this file's concern)."""
    header = Header("T1", 1, rows, rows, HASH, HASH, (0, 0), ())
    path.write_bytes(header.to_line() + zlib.compress(body))
    return path


# -- the header line -----------------------------------------------------------------------


def header_text(**changed: object) -> bytes:
    """A header line of rows 1..3 with ``changed`` fields, as JSON (not canonical)."""
    fields: dict[str, object] = {
        "format": FORMAT, "table": "T1", "first": 1, "last": 3, "rows": 3,
        "prev": HASH, "head": "1" * 64, "seals": [0, 2], "open": [[9, 70, "c" * 64]],
    }  # fmt: skip
    fields.update(changed)
    return json.dumps(fields).encode() + b"\n"


def test_the_header_line_is_the_documented_canonical_json_and_reads_back() -> None:
    header = Header("T1", 61, 120, 60, "a" * 64, "b" * 64, (3, 4), ((9, 70, "c" * 64),))
    line = header.to_line()
    assert line == (
        b'{"first":61,"format":"dealer-station segment v1","head":"' + b"b" * 64
        + b'","last":120,"open":[[9,70,"' + b"c" * 64 + b'"]],"prev":"' + b"a" * 64
        + b'","rows":60,"seals":[3,4],"table":"T1"}\n'
    )  # fmt: skip
    assert Header.parse(line) == header


@pytest.mark.parametrize(
    ("first", "last", "rows", "good"),
    [
        (1, 1, 1, True),  # one row
        (0, 3, 4, False),  # row 0 is no row
        (-1, 3, 5, False),
        (4, 3, 0, False),  # last before first
        (2, 5, 4, True),
        (2, 5, 3, False),  # the count does not fit first..last
        (2, 5, 5, False),
    ],
)
def test_a_header_names_rows_first_to_last_and_their_count(
    first: int, last: int, rows: int, good: bool
) -> None:
    line = header_text(first=first, last=last, rows=rows)
    if good:
        assert (Header.parse(line).first, Header.parse(line).rows) == (first, rows)
    else:
        with pytest.raises(ArchiveError, match=r"^the segment's header names no rows$"):
            Header.parse(line)


@pytest.mark.parametrize(
    "line",
    [
        b"[]\n",
        b"not json\n",
        header_text(seals=[0]),
        header_text(seals=5),
        header_text(open=[[1, 2]]),
        header_text(first="one"),
        b'{"format":"dealer-station segment v1"}\n',
        b"\xff\xfe\n",
    ],
)
def test_a_header_out_of_form_is_unreadable_in_one_line(line: bytes) -> None:
    with pytest.raises(ArchiveError, match=r"^the segment's header is unreadable$") as caught:
        Header.parse(line)
    assert not isinstance(caught.value, SegmentFileError)


def test_a_header_of_another_format_is_refused_by_name_its_name_cut_short() -> None:
    """docs/journal.md, "Earlier formats": a segment of another format is never read as v1;
    its format is shown up to 80 characters."""
    with pytest.raises(SegmentFileError) as caught:
        Header.parse(header_text(format="x" * 79 + "yz"))
    assert str(caught.value) == (
        f"its format is {'x' * 79 + 'y'!r}: this program reads {FORMAT!r} segments only"
    )


def test_a_header_line_may_be_as_long_as_its_limit_and_not_longer(tmp_path: Path) -> None:
    body = zlib.compress(b"row\n")
    line = header_text(first=1, last=1, rows=1)
    path = tmp_path / "000000000001-000000000001.dsa"
    longest = line[:-1] + b" " * (HEADER_MAX - len(line)) + b"\n"
    assert len(longest) == HEADER_MAX
    path.write_bytes(longest + body)
    assert read_header(path).rows == 1
    assert list(lines(path)) == [b"row"]
    # HEADER_MAX bytes and its end: the first read takes HEADER_MAX + 1 bytes.
    path.write_bytes(longest[:-1] + b" \n" + body)
    assert read_header(path).rows == 1
    assert list(lines(path)) == [b"row"]
    path.write_bytes(longest[:-1] + b"  \n" + body)
    with pytest.raises(ArchiveError, match=r"^000000000001-000000000001\.dsa: no segment header$"):
        read_header(path)
    # The rows alone are not read past a header that long either: its rest is no rows.
    with pytest.raises(ArchiveError, match="the rows are damaged"):
        list(lines(path))


def test_a_header_of_another_format_is_named_with_its_file(tmp_path: Path) -> None:
    path = tmp_path / "000000000001-000000000003.dsa"
    path.write_bytes(header_text(format="v0"))
    with pytest.raises(SegmentFileError) as caught:
        read_header(path)
    assert str(caught.value) == (
        f"{path.name}: its format is 'v0': this program reads {FORMAT!r} segments only"
    )


# -- names and folders ----------------------------------------------------------------------


def test_a_segments_name_is_its_first_and_last_row_in_twelve_digits() -> None:
    assert segment_name(1, 125_000) == "000000000001-000000125000.dsa"
    assert segment_name(999_999_999_999, 999_999_999_999) == "999999999999-999999999999.dsa"


def test_the_segments_of_a_folder_are_its_segment_names_in_row_order(tmp_path: Path) -> None:
    names = ["000000000061-000000000120.dsa", "000000000001-000000000060.dsa"]
    others = [
        "1-60.dsa",
        ".000000000121-000000000180.dsa.77.tmp",
        "000000000121-000000000180.dsa.bak",
        "x000000000121-000000000180.dsa",
        "000000000121-000000000180.DSA",
    ]
    for name in names + others:
        (tmp_path / name).write_bytes(b"")
    assert [p.name for p in segments(tmp_path)] == sorted(names)
    assert segments(tmp_path / "none") == []
    assert segments(tmp_path / names[0]) == []  # a file is no folder


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


def test_a_row_line_may_be_as_long_as_its_limit_and_not_longer(tmp_path: Path) -> None:
    """docs/journal.md: a row line longer than 16 MiB is refused (memory stays bounded)."""
    path = write_segment(tmp_path / "000000000001-000000000002.dsa", b"a" * LINE_MAX + b"\nb\n")
    assert [len(line) for line in lines(path)] == [LINE_MAX, 1]
    write_segment(path, b"a" * (LINE_MAX + 1) + b"\nb\n")
    with pytest.raises(ArchiveError) as caught:
        list(lines(path))
    assert str(caught.value) == f"{path.name}: a row line longer than {LINE_MAX} bytes"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda body: body[:-3], "the rows are cut short"),
        (lambda body: body + b"\0", "bytes after the rows"),
        (lambda body: body + zlib.compress(b"x\n"), "bytes after the rows"),
        (lambda body: body[:2] + b"\xff" * 8 + body[10:], "the rows are damaged"),
    ],
)
def test_rows_cut_short_damaged_or_followed_by_other_bytes_are_refused(
    tmp_path: Path, change: Callable[[bytes], bytes], problem: str
) -> None:
    path = tmp_path / "000000000001-000000000003.dsa"
    header = Header("T1", 1, 3, 3, HASH, HASH, (0, 0), ())
    body = zlib.compress(b"row 1\nrow 2\nrow 3\n" * 50)
    path.write_bytes(header.to_line() + change(body))
    with pytest.raises(ArchiveError) as caught:
        list(lines(path))
    assert str(caught.value).startswith(f"{path.name}: {problem}"), caught.value


def test_a_last_row_without_its_line_end_is_cut_short(tmp_path: Path) -> None:
    path = write_segment(tmp_path / "000000000001-000000000002.dsa", b"row 1\nrow 2")
    with pytest.raises(ArchiveError) as caught:
        list(lines(path))
    assert str(caught.value) == f"{path.name}: the last row is cut short"


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_an_entry_that_is_no_file_is_named_not_waited_on(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "000000000001-000000000003.dsa"
    if kind == "directory":
        path.mkdir()
    else:
        os.mkfifo(path)  # opened for reading without O_NONBLOCK, it would wait for a writer
    named = {"directory": "a directory", "fifo": "a FIFO"}[kind]
    with pytest.raises(SegmentFileError) as caught:
        read_header(path)
    assert str(caught.value) == f"{path.name}: {named}, not a segment file"


def test_a_segment_is_read_through_a_symlink_to_it(tmp_path: Path) -> None:
    real = write_segment(tmp_path / "real", b"row 1\nrow 2\n")
    link = tmp_path / "000000000001-000000000002.dsa"
    link.symlink_to(real)
    assert read_header(link).last == 2
    assert list(lines(link)) == [b"row 1", b"row 2"]


# -- memory: bounded by the line limit whatever the file holds ------------------------------


def peak_memory(read: Callable[[], object]) -> int:
    """The most memory Python held while ``read`` ran (it may raise ArchiveError)."""
    tracemalloc.start()
    try:
        with pytest.raises(ArchiveError):
            read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_zlib_bomb_is_inflated_a_read_at_a_time_and_refused_at_the_line_limit(
    tmp_path: Path,
) -> None:
    """``lines``: a hostile segment (a zlib bomb) cannot fill the memory. 40 MiB of one line
    in a compressed 180 KiB: refused once the line passes 16 MiB, never inflated whole
    (what a read's compressed bytes hold past a MiB is inflated a MiB at a time too)."""
    header = Header("T1", 1, 1, 1, HASH, HASH, (0, 0), ())
    deflate = zlib.compressobj(1)
    body = b"".join(deflate.compress(b"a" * _READ) for _ in range(40)) + deflate.flush()
    assert len(body) < _READ  # one read of the file holds it whole
    path = tmp_path / segment_name(1, 1)
    path.write_bytes(header.to_line() + body)
    assert peak_memory(lambda: list(lines(path))) < 3 * LINE_MAX


def test_bytes_after_the_rows_are_refused_without_being_read_whole(tmp_path: Path) -> None:
    """The file is read a MiB at a time, and what follows the rows' end is looked at one
    byte deep: 40 MiB after them are refused without being held, whether the rows end
    inside a read or exactly where one ends."""
    header = Header("T1", 1, 1, 1, HASH, HASH, (0, 0), ())
    junk = b"\0" * (40 << 20)
    stored = len(zlib.compress(b"a" * _READ, 0)) - _READ  # a stored stream's own bytes
    rows = b"a" * (_READ - stored)
    assert len(zlib.compress(rows, 0)) == _READ  # the rows end where the first read does
    for body in (zlib.compress(b"a\n"), zlib.compress(rows, 0)):
        path = tmp_path / segment_name(1, 1)
        path.write_bytes(header.to_line() + body + junk)
        assert peak_memory(lambda: list(lines(path))) < 8 << 20  # noqa: B023 - run here
        with pytest.raises(ArchiveError) as caught:
            list(lines(path))
        assert str(caught.value) == f"{path.name}: bytes after the rows"
