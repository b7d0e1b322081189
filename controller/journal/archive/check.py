"""Verifying archive segments (``controller.journal.archive``): each alone, then their
links, over the cores (the format: ``controller.journal.archive.segment``)."""

from __future__ import annotations

import binascii
import hashlib
import json
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Final

from controller.journal.archive.segment import (
    ArchiveError,
    Header,
    SegmentFileError,
    lines,
    read_header,
    segments,
    split_line,
)
from controller.journal.format import GENESIS_HASH, Row
from controller.journal.seal import SEAL_KIND, VerificationKey, check_seal
from controller.table.holecard import check_commitment

_CHECKED: Final = frozenset({b"seal", b"verified", b"hole_card_dealt", b"hole_card_revealed"})
#: A row line's header as the writer begins it, ``[id,"YYYY-MM-DDTHH:MM:SS.ffffffZ","kind"``
#: (group 1: the kind). A line of any other form (a forged ts with a comma or a quote in it,
#: spaces, an escape) is read whole by :func:`_check_row`: a checked row never passes for an
#: ordinary one. One C call a row (a year's check walks 46 million).
_PLAIN: Final = re.compile(
    rb'\[[0-9]{1,19},"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z","([a-z_]*)"'
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
    #: The report's case when ``problem`` is set: ``altered`` (its bytes do not check) or
    #: ``corrupt`` (it cannot be read, or it is no file).
    case: str = "altered"
    #: Hole cards still unrevealed at the end (round -> (row, commitment)).
    left_open: dict[int, tuple[int, str]] = field(default_factory=dict)


def verify_segment(path: Path, key: VerificationKey | None = None) -> SegmentResult:
    """Walk one segment alone (see the module docstring); never raises for a bad file."""
    result = SegmentResult(path.name)
    try:
        result.header = header = read_header(path)
        _walk_segment(path, header, key, result)
    except SegmentFileError as err:
        result.case, result.problem = "corrupt", str(err).removeprefix(f"{path.name}: ")
    except ArchiveError as err:
        result.problem = result.problem or str(err).removeprefix(f"{path.name}: ")
    except OSError as err:
        result.case, result.problem = "corrupt", f"cannot be read ({err.strerror})"
    return result


def _walk_segment(
    path: Path, header: Header, key: VerificationKey | None, result: SegmentResult
) -> None:
    # The hot loop of a year's check (46 million rows): bytes throughout, one hash and one
    # match of the header's form a row; a row is parsed only when its kind is checked further
    # (seals, checkpoints, hole cards). The ids are not read here: a row removed, added or
    # moved changes the chain, which the next seal's head (with the key) or the header's
    # head (without) catches, and a second walk (:func:`_first_gap`) names the row.
    sha256, hexlify, match = hashlib.sha256, binascii.hexlify, _PLAIN.match
    prev = header.prev.encode("ascii", "replace")
    pending = {r: (i, c) for r, i, c in header.open}
    epoch, rows, last_seal = header.seals[0], 0, 0
    for line in lines(path):
        digest = hexlify(sha256(prev + line).digest())
        plain = match(line)
        if plain is None or plain[1] in _CHECKED:
            kind = plain[1] if plain else b"?"
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
            if kind == b"seal" or (not plain and split_line(line.decode())[0] == SEAL_KIND):
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
        kind, round_no, row_id, data_text = split_line(line)
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
        from controller.journal.walk import checkpoint_problem

        reason = checkpoint_problem(row, key, epoch)
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
            return ArchiveReport(False, f"{result.case}: {result.name}: {result.problem}", rows)
        # The seals cover the rows, not the header's table name: held to the key's and
        # to the other segments'.
        table = key.table if key is not None else results[0].header and results[0].header.table
        if header.table != table:
            return ArchiveReport(
                False, f"altered: {result.name}: a segment of table {header.table!r}, not"
                f" {table!r}" + (" (the key's)" if key is not None else ""), rows
            )  # fmt: skip
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
