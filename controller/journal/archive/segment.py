"""Sealed archive segments: a journal's rows kept compressed, a segment verifiable alone
and linked to the next, so that a year of a busy table is a few hundred small files that
``journal verify-archive`` proves in about a minute (docs/journal.md, "Archive").

A segment holds consecutive rows ``first..last`` and ends at the seal that follows a
round's end (every row in it is sealed). Its file, ``FIRST-LAST.dsa`` (ids in 12 digits):

* one header line, canonical JSON: ``format`` (:data:`FORMAT`), ``table``, ``first``,
  ``last``, ``rows``, ``prev`` (the hash of row ``first - 1``: the link to the segment
  before; 64 zeros for row 1), ``head`` (the hash of row ``last``), ``seals`` (the first
  seal's epoch and the number of seals), ``open`` (the hole cards dealt before ``first``
  and not revealed yet, ``[[round, row, commitment], ...]``: a voided round's card the
  shoe may give back later);
* then one zlib stream of the rows, one line each: ``canonical_json([id, ts, kind,
  round]) + data`` -- exactly what the row's chain hash covers after ``prev_hash``, so a
  row's hash is ``sha256(prev_hash + line)`` and nothing is re-encoded to check it.

Verifying a segment alone walks its lines from ``prev``: ids in sequence, each hash, the
last one equal to ``head``; with the verification key each seal (its epoch in sequence
from ``seals``) and sealed checkpoint, so a forged ``prev`` or header fails at the first
seal; each hole-card reveal against its commitment (in the segment or in ``open``).
Segments in order must link: ``last + 1`` is the next ``first``, ``head`` its ``prev``, the
epochs run on, and the next ``open`` is what this one left open. The rows' canonical form
is checked when the segment is made (the writer walks them as ``journal verify`` does).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

from controller.journal.format import JournalError, canonical_json

FORMAT: Final = "dealer-station segment v1"
SUFFIX: Final = ".dsa"
NAME: Final = re.compile(r"([0-9]{12})-([0-9]{12})\.dsa")
#: A segment is cut at the first round-end seal after this many rows (a busy table's day
#: is about 126,000 rows).
SEGMENT_ROWS: Final = 125_000
#: A header line is at most this long (``open`` holds a few voided rounds at most).
HEADER_MAX: Final = 64 * 1024
#: A row line is at most this long (a busy table's rows are a few hundred bytes): a line
#: without its end is refused there, and the rows are inflated ``_READ`` bytes at a time,
#: so a hostile segment (a zlib bomb, a file of one line) cannot fill the memory.
LINE_MAX: Final = 16 << 20
_READ: Final = 1 << 20


class ArchiveError(JournalError, ValueError):
    """A segment that is not one, or an archive that cannot be written."""


class SegmentFileError(ArchiveError):
    """A segment's name on a directory, a FIFO, a device or a socket, or a segment of a
    format this program does not read."""


@dataclass(frozen=True, slots=True)
class Header:
    """A segment's header line (see the module docstring)."""

    table: str
    first: int
    last: int
    rows: int
    prev: str
    head: str
    seals: tuple[int, int]  # first epoch, count
    open: tuple[tuple[int, int, str], ...]  # (round, row, commitment)

    def to_line(self) -> bytes:
        fields = {
            "format": FORMAT,
            "table": self.table,
            "first": self.first,
            "last": self.last,
            "rows": self.rows,
            "prev": self.prev,
            "head": self.head,
            "seals": list(self.seals),
            "open": [list(o) for o in self.open],
        }
        return canonical_json(fields).encode() + b"\n"

    @classmethod
    def parse(cls, line: bytes) -> Header:
        """Raises ArchiveError: not a segment header."""
        try:
            value = json.loads(line)
            if value["format"] != FORMAT:
                raise SegmentFileError(
                    f"its format is {str(value['format'])[:80]!r}: this program reads"
                    f" {FORMAT!r} segments only"
                )
            seals = tuple(value["seals"])
            opened = tuple((int(r), int(i), str(c)) for r, i, c in value["open"])
            header = cls(
                str(value["table"]),
                int(value["first"]),
                int(value["last"]),
                int(value["rows"]),
                str(value["prev"]),
                str(value["head"]),
                (int(seals[0]), int(seals[1])),
                opened,
            )
        except ArchiveError:
            raise
        except (ValueError, KeyError, TypeError, IndexError, UnicodeDecodeError):
            raise ArchiveError("the segment's header is unreadable") from None
        if not 0 < header.first <= header.last or header.rows != header.last - header.first + 1:
            raise ArchiveError("the segment's header names no rows")
        return header


def segment_name(first: int, last: int) -> str:
    """The file name of the segment of rows ``first..last``."""
    return f"{first:012d}-{last:012d}{SUFFIX}"


def segments(folder: Path) -> list[Path]:
    """The segment files in ``folder``, in row order."""
    found = [p for p in folder.iterdir() if NAME.fullmatch(p.name)] if folder.is_dir() else []
    return sorted(found, key=lambda p: p.name)


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def open_segment(path: Path) -> BinaryIO:
    """``path`` opened for reading, a regular file (a symlink to one is followed): never a
    FIFO, a device or a directory, which would block the walk or feed it without end.

    Raises:
        SegmentFileError: it is not a regular file.
        OSError: it cannot be opened.
    """
    # O_NONBLOCK: opening a FIFO for reading would wait for a writer.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise SegmentFileError(f"{path.name}: {_kind_of(mode)}, not a segment file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_header(path: Path) -> Header:
    """The header of the segment at ``path``.

    Raises:
        ArchiveError: it is not a segment (the message begins with the file's name).
        OSError: it cannot be read.
    """
    with open_segment(path) as f:
        line = f.readline(HEADER_MAX + 1)
    if not line.endswith(b"\n"):
        raise ArchiveError(f"{path.name}: no segment header")
    try:
        return Header.parse(line)
    except ArchiveError as err:  # each refusal names the file (SegmentFileError stays one)
        raise type(err)(f"{path.name}: {err}") from None


def lines(path: Path) -> Iterator[bytes]:
    """The row lines of the segment at ``path`` (ASCII bytes), streamed: memory bounded by
    :data:`LINE_MAX` whatever the file holds.

    Raises:
        ArchiveError: the compressed rows are damaged, or not a segment's.
        OSError: it cannot be read.
    """
    inflate = zlib.decompressobj()
    line = bytearray()  # the row line begun and not yet ended: one growing buffer, never
    # copied whole per read (a copy per read made a long line's peak memory the sum of its
    # sizes under glibc's growing mmap threshold)

    def bounded() -> None:
        if len(line) > LINE_MAX:
            raise ArchiveError(f"{path.name}: a row line longer than {LINE_MAX} bytes")

    def ended(data: bytes) -> Iterator[bytes]:
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            if line:
                # A line begun in an earlier read: held to the limit with its end too (a
                # line within one read is shorter than a read).
                line.extend(memoryview(data)[start:end])
                bounded()
                yield bytes(line)
                line.clear()
            else:
                yield data[start:end]
            start = end + 1
        line.extend(memoryview(data)[start:])
        bounded()

    with open_segment(path) as f:
        f.readline(HEADER_MAX + 1)
        try:
            while not inflate.eof:
                if inflate.unconsumed_tail:
                    data = inflate.decompress(inflate.unconsumed_tail, _READ)
                elif chunk := f.read(_READ):
                    data = inflate.decompress(chunk, _READ)
                else:
                    break
                yield from ended(data)
            tail = inflate.flush()
        except zlib.error as err:
            raise ArchiveError(f"{path.name}: the rows are damaged ({err})") from None
        if not inflate.eof:
            raise ArchiveError(f"{path.name}: the rows are cut short")
        if inflate.unused_data or f.read(1):
            raise ArchiveError(f"{path.name}: bytes after the rows")
    yield from ended(tail)
    if line:
        raise ArchiveError(f"{path.name}: the last row is cut short")


def split_line(line: str) -> tuple[str, int | None, int, str]:
    """``(kind, round, id, data)`` of a row line (canonical header: no comma inside)."""
    id_part, _ts, kind_part, rest = line.split(",", 3)
    end = rest.index("]")
    round_text = rest[:end]
    return (
        kind_part[1:-1],
        None if round_text == "null" else int(round_text),
        int(id_part[1:]),
        rest[end + 1 :],
    )


def remove_temporaries(folder: Path) -> None:
    """Remove what a run killed before its rename left (``.NAME.PID.tmp``)."""
    for leftover in folder.glob(f".*{SUFFIX}.*.tmp"):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
