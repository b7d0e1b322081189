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

import binascii
import contextlib
import hashlib
import json
import os
import re
import zlib
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Final

from controller.journal.creation import sync_directory
from controller.journal.format import GENESIS_HASH, JournalError, Row, canonical_json
from controller.journal.reader import open_readonly
from controller.journal.seal import SEAL_KIND, VerificationKey, check_seal
from controller.table.holecard import check_commitment

FORMAT: Final = "dealer-station segment v1"
SUFFIX: Final = ".dsa"
NAME: Final = re.compile(r"([0-9]{12})-([0-9]{12})\.dsa")
#: A segment is cut at the first round-end seal after this many rows (a busy table's day
#: is about 126,000 rows).
SEGMENT_ROWS: Final = 125_000
#: A header line is at most this long (``open`` holds a few voided rounds at most).
HEADER_MAX: Final = 64 * 1024
_READ: Final = 1 << 20
_ROUND_ENDS: Final = ("round_completed", "round_voided")
_CHECKED: Final = frozenset({b"seal", b"verified", b"hole_card_dealt", b"hole_card_revealed"})
#: ``"2026-11-30T09:15:12.123456Z"`` in a row line's header: a plain ts in its quotes (the
#: comma after it follows).
_TS_FIELD: Final = 30
#: The first letters of the kinds a walk checks further (``_CHECKED``).
_FIRST_LETTERS: Final = frozenset(b"svh")
_COMMA: Final = ord(",")


class ArchiveError(JournalError, ValueError):
    """A segment that is not one, or an archive that cannot be written."""


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
                raise ArchiveError(f"not a {FORMAT} segment")
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


def read_header(path: Path) -> Header:
    """The header of the segment at ``path``.

    Raises:
        ArchiveError: it is not a segment.
        OSError: it cannot be read.
    """
    with path.open("rb") as f:
        line = f.readline(HEADER_MAX + 1)
    if not line.endswith(b"\n"):
        raise ArchiveError(f"{path.name}: no segment header")
    return Header.parse(line)


def lines(path: Path) -> Iterator[bytes]:
    """The row lines of the segment at ``path`` (ASCII bytes), streamed: constant memory.

    Raises:
        ArchiveError: the compressed rows are damaged.
    """
    inflate = zlib.decompressobj()
    rest = b""
    with path.open("rb") as f:
        f.readline(HEADER_MAX + 1)
        try:
            while chunk := f.read(_READ):
                parts = (rest + inflate.decompress(chunk)).split(b"\n")
                rest = parts.pop()
                yield from parts
            tail = inflate.flush()
        except zlib.error as err:
            raise ArchiveError(f"{path.name}: the rows are damaged ({err})") from None
        if not inflate.eof:
            raise ArchiveError(f"{path.name}: the rows are cut short")
    parts = (rest + tail).split(b"\n")
    if parts.pop() != b"":
        raise ArchiveError(f"{path.name}: the last row is cut short")
    yield from parts


# --- writing ------------------------------------------------------------------------------


def _line(row: Row) -> str:
    return canonical_json([row.id, row.ts, row.kind, row.round_no]) + row.data_text


def archive(
    journal: Path, folder: Path, *, table: str, segment_rows: int = SEGMENT_ROWS
) -> list[Path]:
    """Write the journal's rows not archived yet into segments in ``folder``, each of at
    least ``segment_rows`` rows ending at a round's seal; rows after the last such seal
    wait for a later run. The rows are checked as ``journal verify`` walks them (canonical
    data, chain, link to the last segment) before anything is written. Returns the new
    segments.

    Raises:
        ArchiveError: the journal does not go on from the archive, or a row does not check.
        OSError: the folder cannot be written (a segment is whole or absent).
    """
    from controller.journal.startcheck import CommitmentLookup
    from controller.journal.walk import raw_rows, walk

    folder.mkdir(parents=True, exist_ok=True)
    remove_temporaries(folder)
    existing = segments(folder)
    last = read_header(existing[-1]) if existing else None
    after, prev = (last.last, last.head) if last else (0, GENESIS_HASH)
    epoch = last.seals[0] + last.seals[1] if last else 0
    opened = _open_after(existing[-1], last) if last else {}
    conn = open_readonly(journal)
    written: list[Path] = []
    try:
        found = conn.execute("SELECT hash FROM journal WHERE id = ?", (after,)).fetchone()
        if after and (found is None or found[0] != prev):
            raise ArchiveError(
                f"row {after} of the journal is not the archive's last row: another journal?"
            )
        cut: list[Row] = []
        before = ""  # the kind of the row before
        for raw in raw_rows(conn, after):
            row = Row(*raw)
            cut.append(row)
            if row.kind == SEAL_KIND and before in _ROUND_ENDS and len(cut) >= segment_rows:
                start = cut[0].id - 1
                lookup = CommitmentLookup(conn, start) if start > 0 else None
                chain = walk(_raws(cut), start, prev, lookup=lookup)
                if chain.failure is not None:
                    raise ArchiveError(f"not archived: {chain.failure.message}")
                header, opened_after = _header(table, cut, prev, epoch, opened)
                written.append(_write(folder, header, cut))
                prev, epoch, opened = header.head, epoch + header.seals[1], opened_after
                cut = []
            before = row.kind
    finally:
        conn.close()
    return written


def _raws(rows: list[Row]) -> Iterator[tuple[Any, ...]]:
    for r in rows:
        yield (r.id, r.ts, r.kind, r.round_no, r.data_text, r.prev_hash, r.hash)


def _open_after(path: Path, header: Header) -> dict[int, tuple[int, str]]:
    """The hole cards still unrevealed at the end of the segment at ``path``."""
    left = {r: (i, c) for r, i, c in header.open}
    for raw in lines(path):
        if b'"hole_card_' not in raw[:80]:
            continue
        kind, round_no, row_id, data = _split(raw.decode("ascii", "replace"))
        if round_no is not None and kind == "hole_card_dealt":
            left[round_no] = (row_id, str(json.loads(data).get("commitment")))
        elif round_no is not None and kind == "hole_card_revealed":
            left.pop(round_no, None)
    return left


def _header(
    table: str, rows: list[Row], prev: str, epoch: int, opened: dict[int, tuple[int, str]]
) -> tuple[Header, dict[int, tuple[int, str]]]:
    left = dict(opened)
    seals = 0
    for row in rows:
        if row.kind == SEAL_KIND:
            seals += 1
        elif row.kind == "hole_card_dealt" and row.round_no is not None:
            left[row.round_no] = (row.id, str(row.data.get("commitment")))
        elif row.kind == "hole_card_revealed" and row.round_no is not None:
            left.pop(row.round_no, None)
    header = Header(
        table,
        rows[0].id,
        rows[-1].id,
        len(rows),
        prev,
        rows[-1].hash,
        (epoch, seals),
        tuple((r, i, c) for r, (i, c) in sorted(opened.items())),
    )
    return header, left


def _write(folder: Path, header: Header, rows: list[Row]) -> Path:
    """Write one segment whole: a temporary file, synced, renamed, the folder synced."""
    path = folder / segment_name(header.first, header.last)
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
    deflate = zlib.compressobj(9)
    try:
        with tmp.open("wb") as f:
            f.write(header.to_line())
            for start in range(0, len(rows), 4096):
                text = "".join(_line(r) + "\n" for r in rows[start : start + 4096])
                f.write(deflate.compress(text.encode("ascii")))
            f.write(deflate.flush())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    sync_directory(folder)
    return path


# --- verifying ----------------------------------------------------------------------------


def _split(line: str) -> tuple[str, int | None, int, str]:
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


@dataclass
class SegmentResult:
    """What the walk of one segment found."""

    name: str
    header: Header | None = None
    rows: int = 0
    seals: int = 0
    checkpoints: int = 0
    commitments: int = 0
    problem: str = ""
    #: Hole cards still unrevealed at the end (round -> (row, commitment)).
    left_open: dict[int, tuple[int, str]] = field(default_factory=dict)


def verify_segment(path: Path, key: VerificationKey | None = None) -> SegmentResult:
    """Walk one segment alone (see the module docstring); never raises for a bad file."""
    result = SegmentResult(path.name)
    try:
        result.header = header = read_header(path)
        _walk_segment(path, header, key, result)
    except (ArchiveError, OSError) as err:
        result.problem = result.problem or str(err)
    return result


def _walk_segment(
    path: Path, header: Header, key: VerificationKey | None, result: SegmentResult
) -> None:
    # The hot loop of a year's check (46 million rows): bytes throughout, one hash and a
    # byte or two looked at a row; a row is parsed only when its kind is checked further
    # (seals, checkpoints, hole cards). The ids are not read here: a row removed, added or
    # moved changes the chain, which the next seal's head (with the key) or the header's
    # head (without) catches, and a second walk (:func:`_first_gap`) names the row.
    sha256, hexlify = hashlib.sha256, binascii.hexlify
    prev = header.prev.encode("ascii", "replace")
    pending = {r: (i, c) for r, i, c in header.open}
    epoch, rows, last_seal = header.seals[0], 0, 0
    for line in lines(path):
        digest = hexlify(sha256(prev + line).digest())
        at = line.find(b",") + _TS_FIELD  # the comma after a plain ts
        try:
            letter, plain = line[at + 2], line[at] == _COMMA  # the kind's first letter
        except IndexError:
            letter, plain = 0, False
        if letter in _FIRST_LETTERS or not plain:
            kind = line[at + 2 : line.find(b'"', at + 2)] if plain else b"?"
            if kind in _CHECKED or not plain:
                row_id = header.first + rows
                problem = _check_row(
                    line.decode("ascii", "replace"),
                    (prev.decode(), digest.decode()),
                    key=key,
                    epoch=epoch,
                    pending=pending,
                    result=result,
                )
                if problem:
                    result.problem = _first_gap(path, header) or f"row {row_id}: {problem}"
                    return
                if kind == b"seal" or (not plain and _split(line.decode())[0] == SEAL_KIND):
                    epoch += 1
                    last_seal = row_id
        prev = digest
        rows += 1
    result.rows = rows
    if rows != header.rows or prev.decode() != header.head:
        result.problem = _first_gap(path, header) or (
            f"row {header.last}: its hash is not the header's head"
            if rows == header.rows
            else f"{rows} rows where the header names {header.rows}"
        )
    elif epoch - header.seals[0] != header.seals[1]:
        result.problem = f"{epoch - header.seals[0]} seals where the header names {header.seals[1]}"
    elif key is not None and last_seal != header.last:
        result.problem = f"row {header.last}: the segment does not end at a seal"
    result.left_open = pending


def _first_gap(path: Path, header: Header) -> str:
    """After a failed walk: the first line whose id is not the next one, or ``""``."""
    expected = header.first
    for line in lines(path):
        if not line.startswith(b"[%d," % expected):
            shown = line[1 : line.find(b",")].decode("ascii", "replace")
            return f"row {expected}: missing or moved (the line there is row {shown})"
        expected += 1
    if expected <= header.last:
        return f"rows {expected}..{header.last} are missing at the end"
    return ""


def _check_row(
    line: str,
    hashes: tuple[str, str],
    *,
    key: VerificationKey | None,
    epoch: int,
    pending: dict[int, tuple[int, str]],
    result: SegmentResult,
) -> str:
    """Why a seal, checkpoint or hole-card row of a segment does not check, or ``""``;
    ``hashes``: the row before's and this one's."""
    prev, digest = hashes
    try:
        kind, round_no, row_id, data_text = _split(line)
        header = json.loads(line[: len(line) - len(data_text)])
    except (ValueError, IndexError):
        return "the row's header is unreadable"
    if kind not in {k.decode() for k in _CHECKED}:
        return ""  # a ts of another form: an ordinary row after all
    row = Row(row_id, header[1], kind, round_no, data_text, prev, digest)
    if kind == SEAL_KIND:
        result.seals += 1
        return check_seal(row, key, expected_epoch=epoch) if key is not None else ""
    if kind == "verified":
        if key is None:
            return ""
        from controller.journal.walk import _check_checkpoint

        reason = _check_checkpoint(row, key, epoch)
        result.checkpoints += not reason and '"mac"' in data_text
        return f"checkpoint {reason}" if reason else ""
    data = json.loads(data_text)
    if kind == "hole_card_dealt":
        if round_no is not None:
            pending[round_no] = (row_id, str(data.get("commitment")))
        return ""
    dealt = pending.pop(round_no, None) if round_no is not None else None
    if dealt is None:
        return "hole card revealed without a commitment"
    if not check_commitment(dealt[1], str(data.get("card")), str(data.get("nonce"))):
        return f"revealed hole card does not match the commitment in row {dealt[0]}"
    result.commitments += 1
    return ""


@dataclass(frozen=True, slots=True)
class ArchiveReport:
    """The outcome of :func:`verify_archive`; ``message`` is the line the command prints."""

    ok: bool
    message: str
    rows: int = 0
    segments: int = 0


#: In a worker: the verification key, kept across its segments so that each epoch key is
#: derived once (segments go to the workers in row order; a key derived afresh for each
#: segment would repeat a year's key evolution hundreds of times).
_worker_key: VerificationKey | None = None


def _keep_key(key: VerificationKey | None) -> None:
    global _worker_key  # noqa: PLW0603 - the worker process's copy of the key
    _worker_key = key


def _verify_in_worker(path: Path) -> SegmentResult:
    return verify_segment(path, _worker_key)


def verify_archive(
    folder: Path,
    key: VerificationKey | None = None,
    *,
    workers: int = 1,
) -> ArchiveReport:
    """Verify every segment in ``folder`` (over ``workers`` processes) and their links."""
    paths = segments(folder)
    if not paths:
        return ArchiveReport(False, f"missing: no archive segment in {folder}")
    if workers > 1 and len(paths) > 1:
        with ProcessPoolExecutor(
            min(workers, len(paths)),
            mp_context=get_context("fork"),
            initializer=_keep_key,
            initargs=(key,),
        ) as pool:
            results = list(pool.map(_verify_in_worker, paths))
    else:
        results = [verify_segment(p, key) for p in paths]
    return _joined(results, key)


def _joined(results: list[SegmentResult], key: VerificationKey | None) -> ArchiveReport:
    rows = seals = checkpoints = commitments = 0
    before: SegmentResult | None = None
    for result in results:
        header = result.header
        if result.problem or header is None:
            return ArchiveReport(False, f"altered: {result.name}: {result.problem}", rows)
        if before is not None and before.header is not None:
            was = before.header
            if header.first != was.last + 1:
                return ArchiveReport(
                    False, f"removed: rows {was.last + 1}..{header.first - 1} are in no segment"
                )
            if header.prev != was.head:
                return ArchiveReport(
                    False, f"altered: {result.name} does not go on from {before.name}", rows
                )
            if header.seals[0] != was.seals[0] + was.seals[1]:
                return ArchiveReport(False, f"seal: {result.name}: its epochs do not go on", rows)
            opened = {r: (i, c) for r, i, c in header.open}
            if opened != before.left_open:
                return ArchiveReport(
                    False, f"altered: {result.name}: its open hole cards are not those left", rows
                )
        elif header.first == 1 and (header.prev != GENESIS_HASH or header.seals[0] != 0):
            return ArchiveReport(False, f"altered: {result.name}: row 1 has a row before it")
        rows += result.rows
        seals += result.seals
        checkpoints += result.checkpoints
        commitments += result.commitments
        before = result
    first, last = results[0].header, results[-1].header
    assert first is not None and last is not None
    text = (
        f"intact: {len(results)} segments, rows {first.first}..{last.last}, chain and"
        f" {commitments} hole-card commitments good; "
    )
    if key is None:
        text += "seals not checked (no --key)"
    else:
        text += f"{seals} seals good (epochs {first.seals[0]}..{first.seals[0] + seals - 1})"
        text += f", {checkpoints} sealed checkpoints good" if checkpoints else ""
    if first.first > 1:
        text += f"; rows 1..{first.first - 1} are in no segment here (archived elsewhere?)"
    return ArchiveReport(True, text, rows, len(results))


def remove_temporaries(folder: Path) -> None:
    """Remove what a run killed before its rename left (``.NAME.PID.tmp``)."""
    for leftover in folder.glob(f".*{SUFFIX}.*.tmp"):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
