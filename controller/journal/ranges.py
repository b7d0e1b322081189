"""The walk of ``controller.journal.walk`` over the cores: the rows cut into one range a
worker process, each range begun with the ``prev_hash`` its first row stores and the count
of seals before it (from the index of milestones), walked alone, then joined in order: each
one's last hash must be the next one's first ``prev_hash`` (else that row was rewritten,
as a single walk would say). The first failure in row order is the one reported. SQLite's
page check can run beside them, in a process of its own.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import select
import sqlite3
import struct
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Final

from controller.journal.format import JournalCorruptError
from controller.journal.reader import open_readonly
from controller.journal.report import VerifyCase, VerifyReport
from controller.journal.seal import SEAL_KIND, VerificationKey
from controller.journal.startcheck import CommitmentLookup
from controller.journal.storage import storage_of
from controller.journal.walk import Chain, Progress, index_of, raw_rows, walk

#: A walk of fewer rows than this is not worth starting worker processes for.
PARALLEL_MIN_ROWS: Final = 200_000

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
        found = storage_of(conn).row(after + 1)
        prev = str(found.prev_hash) if found else ""
        lookup = CommitmentLookup(conn, after) if after > 0 else None
        rows = raw_rows(conn, after, until)
        return walk(
            rows,
            after,
            prev,
            key,
            lookup,
            seals=seals,
            sealed_through=sealed_row,
            progress=_count,
            index=index_of(conn, after, until),
        )
    finally:
        conn.close()


def page_check(path: Path, pragma: str) -> str:
    """What SQLite's ``integrity_check`` or ``quick_check`` (``pragma``) finds wrong with
    the file at ``path`` first, on one line, or ``""``."""
    try:
        conn = open_readonly(path)
        try:
            problems = [row[0] for row in conn.execute(f"PRAGMA {pragma}")]
        finally:
            conn.close()
    except (sqlite3.DatabaseError, OSError, ValueError) as err:
        problems = [str(err)]
    if problems == ["ok"]:
        return ""
    # SQLite's first problem may span lines ("*** in database main ***\nPage 305: ..."):
    # one line of them, for the one line verify prints.
    return "; ".join(line.strip() for line in str(problems[0]).splitlines() if line.strip())


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
    storage = storage_of(conn)
    for after, _until in bounds[1:]:
        # The seals of the ranges before, by the index of milestones (a year: ~0.1 s).
        count, through = storage.seals_between(SEAL_KIND, start, after)
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
                    pending = _reported(pending + os.read(read_end, 1 << 16), progress)
            chains = [f.result() for f in futures]
            problem = checked.result() if checked is not None else ""
            # Each worker wrote its progress before its result came back: what the loop had
            # not read when the last one came is in the pipe.
            os.set_blocking(read_end, False)
            with contextlib.suppress(BlockingIOError):
                while more := os.read(read_end, 1 << 16):
                    pending = _reported(pending + more, progress)
    finally:
        os.close(read_end)
        os.close(write_end)
    joined = _join(chains, start, prev_hash, sealed)
    joined.pages = problem
    return joined


def _reported(pending: bytes, progress: Progress | None) -> bytes:
    """Give ``progress`` the rows of the whole reports in ``pending``; return the rest (a
    report is never split: each is written whole)."""
    whole = len(pending) - len(pending) % _REPORT.size
    done = sum(n for (n,) in _REPORT.iter_unpack(pending[:whole]))
    if progress is not None and done:
        progress(done)
    return pending[whole:]


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
