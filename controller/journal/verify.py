"""``journal verify``: tell an intact journal from a truncated, altered or corrupt one.

The check never changes the journal: it reads the ``-wal`` file's frame headers itself (to see a
transaction that a crash interrupted: harmless, SQLite discards it), runs SQLite's
``integrity_check`` on a read-only connection, walks the hash chain, compares the last row
with the head record, checks the append-only triggers' bodies and every hole-card
commitment against its reveal. With the table's verification key it proves every seal
(``controller.journal.seal``) and every sealed checkpoint (``controller.journal.checkpoint``);
with an anchor taken earlier it refuses a journal that is behind it or forked from it. The
station's start runs it from the last checkpoint (``controller.journal.startcheck``).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from controller.journal.anchor import Anchor, check_anchor
from controller.journal.base import Base
from controller.journal.format import (
    GENESIS_HASH,
    HEAD_RECORD_SIZE,
    JournalCorruptError,
    head_path,
    parse_head,
)
from controller.journal.proof import Proof, check_proof
from controller.journal.ranges import PARALLEL_MIN_ROWS, cores, page_check, walk_parallel
from controller.journal.reader import open_readonly
from controller.journal.report import GOOD_CASES, VerifyCase, VerifyReport
from controller.journal.seal import SEAL_KIND, VerificationKey
from controller.journal.startcheck import (
    CommitmentLookup,
    StartTrust,
    gap,
    trigger_problem,
    walk_start,
)
from controller.journal.storage import storage_of
from controller.journal.wal import WalState, read_wal_state
from controller.journal.walk import Chain, Progress, index_of, raw_rows, walk


def _has_journal(conn: sqlite3.Connection) -> bool:
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'journal'").fetchone()
    return found is not None


__all__ = ["GOOD_CASES", "VerifyCase", "VerifyReport", "verify"]


def _named_row(err: Exception) -> int | None:
    """The row an error's message begins with (``row N: ...``), or None."""
    found = re.match(r"row ([0-9]{1,18}):", str(err))
    return int(found[1]) if found else None


def verify(
    path: Path | str,
    *,
    head: Path | str | None = None,
    tail: int | None = None,
    key: VerificationKey | None = None,
    anchor: Anchor | None = None,
    since_checkpoint: bool = False,
    trust: StartTrust | None = None,
    since: Proof | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    archive: Path | None = None,
) -> VerifyReport:
    """Check the journal at ``path``; never raises for a damaged file, reports it instead.

    ``tail``: walk only about the last ``tail`` rows (from the start of the round they begin
    in) and run SQLite's faster ``quick_check``. ``since_checkpoint``: the station's start
    check (``controller.journal.startcheck``): walk only from the last checkpoint, which
    ``trust`` (the station's checkpoint key) must have sealed, count the rows for a gap in
    the ids, and skip SQLite's page check, which reads the whole file. ``key``: prove every
    seal and sealed checkpoint (the whole chain is walked). ``anchor``: fail on a journal
    behind or forked from it. ``since`` (with ``key``): walk only after the seal an
    operator's proof names (``controller.journal.proof``), without SQLite's page check.
    ``workers``: processes for a long walk (default: one per core; ``controller.journal.walk``).
    ``progress``: called with the rows walked as the walk goes. ``archive``: the archive
    folder; a rotated journal's base record is checked against the segment it names
    (``controller.journal.archive.link.check_base``).
    """
    path = Path(path)
    head_file = Path(head) if head is not None else head_path(path)
    if not path.is_file():
        return VerifyReport(VerifyCase.MISSING, f"missing: no journal at {path}")
    wal = read_wal_state(path.with_name(path.name + "-wal"))
    try:
        conn = open_readonly(path)
    except JournalCorruptError as err:
        return VerifyReport(VerifyCase.CORRUPT, f"corrupt: {err}")
    mode = _Mode(
        None if key else tail,
        since_checkpoint and key is None,
        key,
        anchor,
        trust,
        since if key else None,
        cores() if workers is None else max(workers, 1),
        progress,
        archive,
    )
    try:
        return _verify_open(conn, path, head_file, wal, mode)
    except sqlite3.DatabaseError as err:
        return VerifyReport(VerifyCase.CORRUPT, f"corrupt: {path}: {err}")
    except JournalCorruptError as err:  # a format-2 commit or codec that does not read back
        return VerifyReport(VerifyCase.ALTERED, f"altered: {err}", first_bad_row=_named_row(err))
    finally:
        conn.close()


@dataclass(frozen=True, slots=True)
class _Mode:
    tail: int | None
    checkpoint: bool
    key: VerificationKey | None
    anchor: Anchor | None
    trust: StartTrust | None
    since: Proof | None
    workers: int
    progress: Progress | None
    archive: Path | None = None


def _round_start(conn: sqlite3.Connection, start: int) -> tuple[int, str | None]:
    """Move a walk's start back to the first row of the round it falls in (so each reveal
    meets its commitment), and that row's hash (None: the row is missing)."""
    storage = storage_of(conn)
    if start <= storage.start()[0]:
        return storage.start()  # a rotated journal: nothing before its base
    first = storage.row(start + 1)
    if start > 0 and first is not None and first.round_no is not None:
        # The round's first row is its round_started (the index of round starts).
        found = storage.round_start(first.round_no)
        if found is not None:
            start = min(start, found - 1)
    if start <= 0:
        return 0, GENESIS_HASH
    return start, storage.hash_of(start)


def _verify_open(
    conn: sqlite3.Connection, path: Path, head_file: Path, wal: WalState, mode: _Mode
) -> VerifyReport:
    pragma = (
        None
        if mode.checkpoint or mode.since
        else ("quick_check" if mode.tail is not None else "integrity_check")
    )
    last = storage_of(conn).last_id() if _has_journal(conn) else 0
    beside = pragma == "integrity_check" and mode.workers > 1 and (last or 0) >= PARALLEL_MIN_ROWS
    if pragma is not None and not beside:
        problem = page_check(path, pragma)
        if problem:
            return VerifyReport(VerifyCase.CORRUPT, f"corrupt: {path}: {problem}")
    head_raw = head_file.read_bytes()[:HEAD_RECORD_SIZE] if head_file.is_file() else None
    head = parse_head(head_raw) if head_raw else None
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    if "journal" not in tables:
        if head is not None and head[0] > 0:
            return VerifyReport(
                VerifyCase.TRUNCATED,
                f"truncated: rows 1..{head[0]} are missing (no journal table in {path};"
                " was it copied without its -wal file?)",
                0,
                1,
            )
        return VerifyReport(VerifyCase.CORRUPT, f"corrupt: {path} holds no journal table")
    storage = storage_of(conn)
    start, start_hash = cast(tuple[int, str | None], storage.start())
    base = storage.base
    notes: list[str] = []
    sealed = (0, 0, "")  # seals before the walk's start, the last one's row and hash
    if base is not None:
        found_base = _check_base(conn, base, mode)
        if isinstance(found_base, VerifyReport):
            return _deferred_pages(path, beside) or found_base
        notes.append(found_base)
        sealed = (base.epoch, base.row, base.hash)
    if mode.archive is not None:
        from controller.journal.archive.link import check_archive_link

        linked = check_archive_link(storage, mode.archive)
        if isinstance(linked, tuple):
            unlinked = VerifyReport(VerifyCase(linked[0]), linked[1])
            return _deferred_pages(path, beside) or unlinked
        notes.append(linked)
    if mode.tail is not None:
        last = storage_of(conn).last_id()
        start, start_hash = _round_start(conn, max(0, (last or 0) - mode.tail))
    if mode.checkpoint:
        found = gap(conn) or walk_start(conn, mode.trust)
        if isinstance(found, tuple):
            refused, message, first_row = found
            return VerifyReport(VerifyCase(refused), message, 0, first_row)
        start, start_hash = found.after, found.digest
        notes += [found.note] if found.note else []
    if mode.since is not None and base is not None and mode.since.row <= base.row:
        # The proof's seal was archived since: the walk begins at the base, whose link to
        # the archive (``--archive``) and MAC (with the key) were checked above.
        notes.append(
            f"the proof's seal (row {mode.since.row}) is archived: rows"
            f" {mode.since.row + 1}..{base.row} are the archive's to prove (verify-archive)"
        )
    elif mode.since is not None:
        found_proof = _from_proof(conn, mode.since, mode.key)
        if isinstance(found_proof, VerifyReport):
            return found_proof
        start, start_hash = mode.since.row, mode.since.hash
        sealed = (mode.since.seals, mode.since.row, mode.since.hash)
        notes.append(f"rows 1..{start} proved before (the proof of seal row {start})")
    if start_hash is None:
        return VerifyReport(
            VerifyCase.REMOVED, f"removed: row {start}: missing", first_bad_row=start
        )
    try:
        chain = _walk(
            conn, path, mode, start=start, start_hash=start_hash, sealed=sealed, pages=beside
        )
    except (sqlite3.DatabaseError, JournalCorruptError):
        # A row the walk cannot read (verify reports it), unless the page check finds more.
        damaged = _deferred_pages(path, beside)
        if damaged is not None:
            return damaged
        raise
    if chain.pages:
        return VerifyReport(VerifyCase.CORRUPT, f"corrupt: {path}: {chain.pages}")
    if chain.failure is not None:
        return chain.failure
    if wal.interrupted:
        notes.append("an uncommitted transaction (interrupted write) was discarded")
    count = f"{chain.rows} rows" if start == 0 else f"rows {start + 1}..{chain.last_id}"
    if head is not None:
        head_id, head_hash = head
        if head_id > chain.last_id:
            first = chain.last_id + 1
            return VerifyReport(
                VerifyCase.TRUNCATED,
                f"truncated: rows {first}..{head_id} are missing at the end"
                f" (the head record names row {head_id}, the last row is {chain.last_id})",
                chain.rows,
                first,
            )
        stored = storage_of(conn).hash_of(head_id)
        if head_id > start and stored != head_hash:
            return VerifyReport(
                VerifyCase.ALTERED,
                f"altered: row {head_id} differs from the head record",
                chain.rows,
                head_id,
            )
    archived_anchor = mode.anchor is not None and base is not None and mode.anchor.row < base.row
    if archived_anchor:
        assert mode.anchor is not None and base is not None
        notes.append(
            f"anchor row {mode.anchor.row} is archived (rows 1..{base.row}): not checked here"
        )
    elif mode.anchor is not None:
        failure = check_anchor(conn, mode.anchor, chain.last_id)
        if failure is not None:
            found_case, message, first = failure
            return VerifyReport(VerifyCase(found_case), message, chain.rows, first)
    schema = trigger_problem(conn)
    if schema:
        return VerifyReport(
            VerifyCase.SCHEMA, f"schema: {schema}; the chain of {count} is intact", chain.rows
        )
    if chain.commitment_failure is not None:
        return replace(chain.commitment_failure, rows=chain.rows)
    if chain.rows and head is None:
        return VerifyReport(
            VerifyCase.HEAD_MISSING,
            f"head_missing: no head record at {head_file}: rows lost at the end would go unseen",
            chain.rows,
        )
    if mode.key is not None and chain.rows and chain.seals == 0:
        return VerifyReport(
            VerifyCase.UNSEALED,
            f"unsealed: no seal in {chain.rows} rows: the key proves nothing",
            chain.rows,
            1,
        )
    case = VerifyCase.INTERRUPTED if wal.interrupted else VerifyCase.INTACT
    summary = f"{case.value}: {count}, chain and {chain.commitments} hole-card commitments good"
    summary += "; " + _seal_summary(chain, mode.key, sealed[0])
    if mode.anchor is not None and not archived_anchor:
        summary += f"; anchor row {mode.anchor.row} (epoch {mode.anchor.epoch}) matches"
    for note in notes:
        summary += "; " + note
    proved = (chain.sealed_through, chain.sealed_hash, chain.seals) if chain.seals else None
    return VerifyReport(
        case,
        summary,
        chain.rows,
        None,
        chain.commitments,
        tuple(notes),
        proved if mode.key else None,
    )


def _deferred_pages(path: Path, beside: bool) -> VerifyReport | None:
    """When the walk was to run SQLite's page check beside it (``beside``) and a failure
    came first (before the walk, or a row the walk cannot read): the page check now, so
    that a damaged file is ``corrupt`` however many cores walk it, as before one walk."""
    problem = page_check(path, "integrity_check") if beside else ""
    return VerifyReport(VerifyCase.CORRUPT, f"corrupt: {path}: {problem}") if problem else None


def _seal_summary(chain: Chain, key: VerificationKey | None, before: int) -> str:
    if key is None:
        return "seals not checked (no --key)"
    first_row = chain.start + 1 if before else 1
    text = (
        f"{chain.seals - before} seals good (epochs {before}..{chain.seals - 1},"
        f" rows {first_row}..{chain.sealed_through})"
    )
    if chain.checkpoints:
        text += f", {chain.checkpoints} sealed checkpoints good"
    if chain.last_id > chain.sealed_through:
        text += f"; rows {chain.sealed_through + 1}..{chain.last_id} not sealed yet"
    return text


def _walk(
    conn: sqlite3.Connection,
    path: Path,
    mode: _Mode,
    *,
    start: int,
    start_hash: str,
    sealed: tuple[int, int, str],
    pages: bool,
) -> Chain:
    """The walk after row ``start``: over the cores when it is long and they are there.
    With ``pages``, SQLite's integrity check runs too: beside a walk over the cores, after
    one walked here."""
    last = storage_of(conn).last_id() or 0
    seals, sealed_through, sealed_hash = sealed
    if mode.workers > 1 and (last or 0) - start >= PARALLEL_MIN_ROWS:
        chain = walk_parallel(
            conn,
            path,
            start=start,
            prev_hash=start_hash,
            last=last,
            key=mode.key,
            workers=mode.workers,
            progress=mode.progress,
            sealed=sealed,
            pages="integrity_check" if pages else None,
        )
    else:
        lookup = CommitmentLookup(conn, start) if start > 0 else None
        chain = walk(
            raw_rows(conn, start),
            start,
            start_hash,
            mode.key,
            lookup,
            seals=seals,
            sealed_through=sealed_through,
            progress=mode.progress,
            index=index_of(conn, start),
        )
        chain.sealed_hash = chain.sealed_hash or sealed_hash
        if pages:
            # The journal is long enough for the cores but the rows after a rotated one's
            # base are not: the page check the caller left to the walk runs here.
            chain.pages = page_check(path, "integrity_check")
    return chain


def _check_base(conn: sqlite3.Connection, base: Base, mode: _Mode) -> VerifyReport | str:
    """A rotated journal's base record: no row at or before it in the file, its MAC with
    the key, its link to the archive with ``mode.archive``. The note for the summary, or
    the failure."""
    from controller.journal.archive.link import check_base

    first = storage_of(conn).first_id()
    if first is not None and first <= base.row:
        return VerifyReport(
            VerifyCase.ALTERED,
            f"altered: row {first}: in the file, but its base record says rows 1..{base.row}"
            " are archived",
            first_bad_row=first,
        )
    found = check_base(base, key=mode.key, archive=mode.archive)
    if isinstance(found, tuple):
        case, message = found
        return VerifyReport(VerifyCase(case), message, first_bad_row=base.row + 1)
    return found


def _from_proof(
    conn: sqlite3.Connection, proof: Proof, key: VerificationKey | None
) -> VerifyReport | None:
    """None when the walk may begin at the proof's seal, else why not."""
    assert key is not None  # a proof is only taken with a key (verify's _Mode)
    reason = check_proof(proof, key)
    if reason:
        return VerifyReport(VerifyCase.SEAL, f"seal: the proof file: {reason}")
    last = storage_of(conn).last_id()
    if proof.row > (last or 0):
        return VerifyReport(
            VerifyCase.BEHIND,
            f"behind: the journal ends at row {last or 0}, before the proof's seal at row"
            f" {proof.row}: rows removed or an older copy",
            0,
            (last or 0) + 1,
        )
    found = storage_of(conn).row(proof.row)
    if found is None or (found.kind, found.hash) != (SEAL_KIND, proof.hash):
        return VerifyReport(
            VerifyCase.FORKED,
            f"forked: row {proof.row} is not the seal the proof names: the journal was"
            " rewritten or replaced",
            0,
            proof.row,
        )
    return None
