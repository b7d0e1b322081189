"""The walk along the hash chain that ``journal verify`` and the start make: every row's
hash, the link to the row before, canonical data, seals and sealed checkpoints (with the
verification key) and hole-card commitments; and the same walk split over the cores.

A walk reads rows as SQLite gives them (tuples, a few thousand at a time) and parses the
data of every row once (canonical JSON is checked on each), but builds a :class:`Row`
only for the few kinds it checks further (seals, checkpoints). Memory stays flat: nothing
is kept per row, only the hole cards dealt and not yet revealed.

**Both cores.** :func:`walk_parallel` cuts the rows into one range a worker process: each
range begins with the ``prev_hash`` its first row stores and the count of seals before it
(from the index of milestones), walks alone, and the ranges are joined in order: each one's
last hash must be the next one's first ``prev_hash`` (else that row was rewritten, as a
single walk would say). The first failure in row order is the one reported.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import select
import sqlite3
import struct
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from controller.journal.checkpoint import (
    CHECKPOINT_KIND,
    check_checkpoint_mac,
    checkpoint_fields,
)
from controller.journal.format import (
    COLUMNS,
    KIND_PATTERN,
    PLAIN_TS,
    JournalCorruptError,
    JournalRecordError,
    Row,
    canonical_json,
    row_hash,
)
from controller.journal.reader import open_readonly
from controller.journal.report import VerifyCase, VerifyReport
from controller.journal.seal import SEAL_KIND, VerificationKey, check_seal
from controller.journal.startcheck import CommitmentLookup
from controller.table.holecard import check_commitment

#: A row as SQLite gives it: (id, ts, kind, round, data, prev_hash, hash).
RawRow = tuple[Any, Any, Any, Any, Any, Any, Any]
#: Before a walk that begins after row 1: a round's hole-card commitment made before it.
Lookup = Callable[[int | None], tuple[int, str] | None]
#: Called with the number of rows walked since the last call.
Progress = Callable[[int], None]
#: Rows fetched from SQLite at a time, and between two progress calls.
FETCH_ROWS: Final = 4096
PROGRESS_ROWS: Final = 1 << 16
#: A walk of fewer rows than this is not worth starting worker processes for.
PARALLEL_MIN_ROWS: Final = 200_000
_HOLE_KINDS: Final = frozenset({"hole_card_dealt", "hole_card_revealed"})
#: json's C scanner itself: ``json.loads`` wraps it in two whitespace matches a row, which
#: canonical text never has (a quarter of the parse).
_SCAN: Final[Callable[[str, int], tuple[Any, int]]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


@dataclass
class Chain:
    """What a walk found: counts, where it ended, and the first failure."""

    start: int = 0  # the walk began after this row
    rows: int = 0
    last_id: int = 0
    first_prev: str = ""  # the prev_hash the walk began with
    last_hash: str = ""  # the hash of the last row walked (first_prev when none)
    commitments: int = 0
    seals: int = 0  # seals before the walk's end (those before its start included)
    sealed_through: int = 0  # the last seal row (0: none)
    sealed_hash: str = ""  # that seal row's hash, when the walk met it
    checkpoints: int = 0
    pages: str = ""  # what SQLite's page check found, when it ran beside a parallel walk
    looked_up: set[int | None] = field(default_factory=set)
    failure: VerifyReport | None = None
    commitment_failure: VerifyReport | None = None


def raw_rows(
    conn: sqlite3.Connection, after_id: int, until_id: int | None = None
) -> Iterator[RawRow]:
    """Rows after ``after_id`` (up to ``until_id``) in id order, as tuples. Text that is
    not UTF-8 (damaged bytes) is read again with replacement characters, so that the walk
    names the row instead of the fetch failing."""
    last = after_id
    end = (1 << 62) if until_id is None else until_id
    while True:
        try:
            cursor = conn.execute(
                f"SELECT {COLUMNS} FROM journal WHERE id > ? AND id <= ? ORDER BY id", (last, end)
            )
            while chunk := cursor.fetchmany(FETCH_ROWS):
                yield from chunk
                last = chunk[-1][0]
            return
        except sqlite3.OperationalError as err:
            if "decode" not in str(err) or conn.text_factory is not str:
                raise
            conn.text_factory = lambda raw: raw.decode("utf-8", "replace")


def _hash(row: RawRow) -> str:
    """The chain hash of a row's columns as stored (``format.row_hash``), or ``""`` when
    the columns cannot be hashed at all (types SQLite should never give)."""
    row_id, ts, kind, round_no, data_text, prev, _digest = row
    if (
        type(row_id) is int
        and type(kind) is str
        and type(ts) is str
        and type(data_text) is str
        and type(prev) is str
        and (round_no is None or type(round_no) is int)
        and KIND_PATTERN.fullmatch(kind)
        and PLAIN_TS.fullmatch(ts)
    ):
        header = f'[{row_id},"{ts}","{kind}",{"null" if round_no is None else round_no}]'
        return hashlib.sha256(f"{prev}{header}{data_text}".encode()).hexdigest()
    try:
        return row_hash(
            str(prev), row_id=row_id, ts=ts, kind=kind, round_no=round_no, data_text=data_text
        )
    except (JournalRecordError, TypeError, UnicodeEncodeError):
        return ""


def walk(
    rows: Iterable[RawRow],
    start: int,
    prev_hash: str,
    key: VerificationKey | None = None,
    lookup: Lookup | None = None,
    *,
    seals: int = 0,
    sealed_through: int = 0,
    progress: Progress | None = None,
) -> Chain:
    """Walk ``rows`` (the rows after ``start``, whose hash is ``prev_hash``); with ``key``
    check each seal (``seals`` of them came before ``start``, the last at row
    ``sealed_through``) and sealed checkpoint; ``lookup`` finds the commitments dealt
    before ``start``. Stops at the first failure (``Chain.failure``); a hole-card problem
    is noted (``Chain.commitment_failure``) and the walk goes on."""
    chain = Chain(
        start=start,
        last_id=start,
        first_prev=prev_hash,
        last_hash=prev_hash,
        seals=seals,
        sealed_through=sealed_through,
    )
    pending: dict[int | None, tuple[int, str]] = {}  # round -> (row id, commitment)
    scan = _SCAN
    since_progress = 0

    def fail(case: VerifyCase, row: int, what: str) -> Chain:
        chain.failure = VerifyReport(case, f"{case.value}: row {row}: {what}", chain.rows, row)
        return chain

    for raw in rows:
        row_id, ts, kind, round_no, data_text, stored_prev, digest = raw
        expected = chain.last_id + 1
        if row_id != expected:
            return fail(VerifyCase.REMOVED, expected, f"missing (rows {expected}..{row_id - 1})")
        if _hash(raw) != digest:
            return fail(VerifyCase.ALTERED, row_id, "content does not match its hash")
        if stored_prev != prev_hash:
            return fail(
                VerifyCase.ALTERED,
                row_id - 1,
                f"rewritten (its hash no longer matches row {row_id}'s prev_hash)",
            )
        try:
            data, end = scan(data_text, 0)
        except (StopIteration, ValueError, TypeError):
            data, end = None, 0
        if end != len(data_text):
            data = None  # text after the value (or none at all): not canonical either
        if type(data) is not dict:
            return fail(VerifyCase.ALTERED, row_id, "data is not a JSON object")
        try:
            canonical = canonical_json(data) == data_text
        except JournalRecordError:  # NaN or the like: never written by the station
            canonical = False
        if not canonical or not KIND_PATTERN.fullmatch(kind):
            return fail(VerifyCase.ALTERED, row_id, "not written by the station (not canonical)")
        if key is not None and kind in (SEAL_KIND, CHECKPOINT_KIND):
            row = Row(row_id, ts, kind, round_no, data_text, stored_prev, digest)
            if kind == SEAL_KIND:
                reason = check_seal(row, key, expected_epoch=chain.seals)
                if reason:
                    first = chain.sealed_through + 1
                    return fail(
                        VerifyCase.SEAL, row_id, f"{reason} (it seals rows {first}..{row_id - 1})"
                    )
                chain.seals += 1
                chain.sealed_through, chain.sealed_hash = row_id, digest
            else:
                reason = _check_checkpoint(row, key, chain.seals)
                if reason:
                    return fail(VerifyCase.SEAL, row_id, f"checkpoint {reason}")
                chain.checkpoints += "mac" in data
        chain.rows += 1
        chain.last_id = row_id
        prev_hash = chain.last_hash = digest
        if kind in _HOLE_KINDS and chain.commitment_failure is None:
            _check_hole_card(chain, pending, lookup, (row_id, kind, round_no), data)
        since_progress += 1
        if progress is not None and since_progress == PROGRESS_ROWS:
            progress(since_progress)
            since_progress = 0
    if progress is not None and since_progress:
        progress(since_progress)
    return chain


def _check_checkpoint(row: Row, key: VerificationKey, seals: int) -> str:
    """Why a checkpoint row does not check out with the verification key, or ``""``. Its
    checkpoint key was taken up at an epoch already sealed, or the one to come."""
    fields = checkpoint_fields(row)
    if isinstance(fields, str):
        return fields
    if "mac" not in fields:
        return ""  # written before checkpoints were sealed, or by a station without a key
    if fields["key_epoch"] > seals:
        return f"names key epoch {fields['key_epoch']}, past the {seals} seals before it"
    return check_checkpoint_mac(row, fields, key.table, key.checkpoint_key(fields["key_epoch"]))


def _check_hole_card(
    chain: Chain,
    pending: dict[int | None, tuple[int, str]],
    lookup: Lookup | None,
    row: tuple[int, str, int | None],
    data: dict[str, object],
) -> None:
    row_id, kind, round_no = row
    if kind == "hole_card_dealt":
        pending[round_no] = (row_id, str(data.get("commitment")))
        return
    dealt = pending.pop(round_no, None)
    if dealt is None and lookup is not None and round_no not in chain.looked_up:
        # Dealt before the walk began; looked up once (a second reveal has none).
        chain.looked_up.add(round_no)
        dealt = lookup(round_no)
    if dealt is None:
        what = "hole card revealed without a commitment"
    elif check_commitment(dealt[1], str(data.get("card")), str(data.get("nonce"))):
        chain.commitments += 1
        return
    else:
        what = f"revealed hole card does not match the commitment in row {dealt[0]}"
    chain.commitment_failure = VerifyReport(
        VerifyCase.COMMITMENT, f"commitment: row {row_id}: {what}", 0, row_id
    )


# --- over the cores ----------------------------------------------------------------------

#: In a worker: the pipe its progress goes to (8 bytes a report, written whole: a pipe takes
#: up to PIPE_BUF bytes in one piece).
_progress_fd = -1
_REPORT: Final = struct.Struct("<q")


def _share(fd: int) -> None:
    global _progress_fd  # noqa: PLW0603 - the worker process's end of the progress pipe
    _progress_fd = fd


def _count(rows: int) -> None:
    os.write(_progress_fd, _REPORT.pack(rows))


def _walk_range(
    path: Path, bounds: tuple[int, int], key: VerificationKey | None, sealed: tuple[int, int]
) -> Chain:
    """In a worker: walk rows ``after + 1 .. until`` (``bounds``) of the journal at ``path``,
    from the ``prev_hash`` the first of them stores (the join checks it); ``sealed``: the
    seals before it and the last one's row."""
    (after, until), (seals, sealed_row) = bounds, sealed
    try:
        conn = open_readonly(path)
    except JournalCorruptError as err:  # the parent reports a damaged file as corrupt
        raise sqlite3.DatabaseError(str(err)) from err
    try:
        found = conn.execute("SELECT prev_hash FROM journal WHERE id = ?", (after + 1,)).fetchone()
        prev = str(found[0]) if found else ""
        lookup = CommitmentLookup(conn, after) if after > 0 else None
        rows = raw_rows(conn, after, until)
        return walk(
            rows, after, prev, key, lookup, seals=seals, sealed_through=sealed_row, progress=_count
        )
    finally:
        conn.close()


def page_check(path: Path, pragma: str) -> str:
    """What SQLite's ``integrity_check`` or ``quick_check`` (``pragma``) finds wrong with
    the file at ``path``, or ``""``."""
    try:
        conn = open_readonly(path)
        try:
            problems = [row[0] for row in conn.execute(f"PRAGMA {pragma}")]
        finally:
            conn.close()
    except (sqlite3.DatabaseError, OSError, ValueError) as err:
        problems = [str(err)]
    return "" if problems == ["ok"] else str(problems[0])


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def walk_parallel(
    conn: sqlite3.Connection,
    path: Path,
    *,
    start: int,
    prev_hash: str,
    last: int,
    key: VerificationKey | None,
    workers: int,
    progress: Progress | None = None,
    sealed: tuple[int, int, str] = (0, 0, ""),
    pages: str | None = None,
) -> Chain:
    """Walk rows ``start + 1 .. last`` as :func:`walk` does, over ``workers`` processes
    (one range each, see the module docstring); ``conn`` reads the seals before each
    range's start; ``sealed``: the seals before ``start``, the last one's row and hash.
    ``pages``: SQLite's page check to run beside the walk, in a process of its own (a
    thread would be forked into the workers in the middle of SQLite's locks)."""
    step = -(-(last - start) // workers)
    bounds = [(a, min(a + step, last)) for a in range(start, last, step)]
    context = multiprocessing.get_context("fork")
    starts: list[tuple[int, int]] = [sealed[:2]]
    for after, _until in bounds[1:]:
        # The seals of the ranges before, by the index of milestones (a year: ~0.1 s).
        count, through = conn.execute(
            f"SELECT count(*), max(id) FROM journal WHERE kind = '{SEAL_KIND}' AND id > ?"
            " AND id <= ?",
            (start, after),
        ).fetchone()
        starts.append((sealed[0] + count, through or sealed[1]))
    read_end, write_end = os.pipe()
    try:
        with ProcessPoolExecutor(
            len(bounds) + (pages is not None),
            mp_context=context,
            initializer=_share,
            initargs=(write_end,),
        ) as pool:
            checked = pool.submit(page_check, path, pages) if pages is not None else None
            futures = [
                pool.submit(_walk_range, path, bound, key, starts[i])
                for i, bound in enumerate(bounds)
            ]
            pending = b""
            while not all(f.done() for f in futures) or (checked and not checked.done()):
                # The workers' progress as it comes (a quarter second at most between looks
                # at the futures).
                ready, _, _ = select.select([read_end], [], [], 0.25)
                if ready:
                    pending += os.read(read_end, 1 << 16)
                    whole = len(pending) - len(pending) % _REPORT.size
                    done = sum(n for (n,) in _REPORT.iter_unpack(pending[:whole]))
                    pending = pending[whole:]
                    if progress is not None and done:
                        progress(done)
            chains = [f.result() for f in futures]
            problem = checked.result() if checked is not None else ""
    finally:
        os.close(read_end)
        os.close(write_end)
    joined = _join(chains, start, prev_hash, sealed)
    joined.pages = problem
    return joined


def _join(chains: list[Chain], start: int, prev_hash: str, sealed: tuple[int, int, str]) -> Chain:
    """The ranges' chains as one: the first failure in row order, the links between them."""
    joined = Chain(
        start=start,
        last_id=start,
        first_prev=prev_hash,
        last_hash=prev_hash,
        seals=sealed[0],
        sealed_through=sealed[1],
        sealed_hash=sealed[2],
    )
    for part in chains:
        if part.failure is None and part.first_prev != joined.last_hash:
            part.failure = VerifyReport(
                VerifyCase.ALTERED,
                f"altered: row {part.start}: rewritten (its hash no longer matches row"
                f" {part.start + 1}'s prev_hash)",
                0,
                part.start,
            )
        if part.failure is not None:
            joined.failure = replace(part.failure, rows=joined.rows + part.failure.rows)
            return joined
        joined.rows += part.rows
        joined.commitments += part.commitments
        joined.checkpoints += part.checkpoints
        joined.seals = part.seals
        if part.sealed_through > joined.sealed_through:
            joined.sealed_through, joined.sealed_hash = part.sealed_through, part.sealed_hash
        joined.last_id, joined.last_hash = part.last_id, part.last_hash
        if joined.commitment_failure is None:
            joined.commitment_failure = part.commitment_failure
    return joined
