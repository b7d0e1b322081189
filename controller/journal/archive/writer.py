"""Writing archive segments (``controller.journal.archive``, the format in
``controller.journal.archive.segment``): the rows of a journal not archived yet, walked as
``journal verify`` walks them, then written a segment at a time, each whole or absent."""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from controller.journal.archive.segment import (
    SEGMENT_ROWS,
    ArchiveError,
    Header,
    lines,
    read_header,
    remove_temporaries,
    segment_name,
    segments,
    split_line,
)
from controller.journal.creation import sync_directory
from controller.journal.format import GENESIS_HASH, Row, canonical_json
from controller.journal.reader import open_readonly
from controller.journal.seal import SEAL_KIND

_ROUND_ENDS: Final = ("round_completed", "round_voided")


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
    from controller.journal.storage import storage_of
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
        base = storage_of(conn).base
        if base is not None and after < base.row:
            # A rotated journal whose archived segments were copied off the folder: the
            # rows go on from its base, which carries the epoch and the open hole cards.
            after, prev, epoch = base.row, base.hash, base.epoch
            opened = {r: (i, c) for r, i, c in base.open}
        found = storage_of(conn).hash_of(after)
        if after and found != prev:
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
                written.append(write_segment(folder, header, cut))
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
    """The hole cards still unrevealed at the end of the segment at ``path``.

    Raises:
        ArchiveError: a hole-card row there does not read (the segment is damaged; the
            archive does not walk it: ``journal verify-archive`` names the row).
    """
    left = {r: (i, c) for r, i, c in header.open}
    for raw in lines(path):
        if b'"hole_card_' not in raw[:80]:
            continue
        try:
            kind, round_no, row_id, data = split_line(raw.decode("ascii"))
            if round_no is not None and kind == "hole_card_dealt":
                left[round_no] = (row_id, str(json.loads(data).get("commitment")))
            elif round_no is not None and kind == "hole_card_revealed":
                left.pop(round_no, None)
        except (ValueError, IndexError, AttributeError):
            raise ArchiveError(
                f"{path.name}: a hole-card row does not read: the segment is damaged"
                " (run 'journal verify-archive')"
            ) from None
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


def write_segment(folder: Path, header: Header, rows: list[Row]) -> Path:
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
