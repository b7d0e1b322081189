"""``journal rotate``: the live journal cut after its archive, so that it stays small
(docs/journal.md, "Rotation").

The rows ``1..K`` that the archive holds and no live reader needs are left out of a new
file that holds the rows after K and a base record (``controller.journal.base``) naming
K, its hash, the archive segment that ends at K, the seal epoch and the hole cards open
there. The new file is built under a temporary name (``.NAME.rotating``), proved (it
verifies from its base against the journal's head record, holds the same rows after K,
the same last hash and seals, and its base links to the archive's segment), synced and
renamed over the journal, as ``journal migrate`` does. Until the rename the journal is not
written (a WAL left beside it is merged first, which changes no row): a kill, a full disk
or a failed proof leaves it as it was and at most the temporary, which the next run
removes. The station must be stopped: the writer's lock is taken.

**The cut point K** is the last row of an archive segment (the newest one that fits), at
most the last archived row, and before everything a reader still needs live
(:func:`cut_limit`): the rows a restore reads (from the last shuffle on, and the few older
rows it reads: the last state, round start and end, burn and wager spot reports), the
rows the floor has not acknowledged, the last checkpoint's row (a start walks from it),
the last seal (the writer's open checks the key's epoch against it), and the last
:data:`RECALL_ROUNDS` rounds that ``journal recall`` shows by default. Hole cards not
revealed at K are carried by the base (``open``), as a segment's header carries them.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from controller.journal.archive.check import verify_segment
from controller.journal.archive.link import header_digest
from controller.journal.archive.segment import (
    NAME,
    ArchiveError,
    Header,
    read_header,
    segments,
)
from controller.journal.base import BASE_KEY, Base
from controller.journal.compact import micros_from_ts
from controller.journal.creation import (
    create_database,
)
from controller.journal.format import (
    JournalCorruptError,
    JournalError,
    JournalWriteError,
    head_path,
)
from controller.journal.migrate import (
    MIGRATED_COMMIT_ROWS,
    _merge_wal,
    put_in_place,
    remove_temporary,
    writer_lock,
)
from controller.journal.reader import JournalReader, open_readonly
from controller.journal.report import GOOD_CASES
from controller.journal.seal import SEAL_KIND, SealingState
from controller.journal.storage import Format1, Format2, RawRow, Storage, storage_of
from controller.journal.verify import verify

#: ``journal recall`` shows the last 10 rounds by default: they stay in the live file.
RECALL_ROUNDS: Final = 10
_ROWS_A_TRANSACTION: Final = 16384
_ROUND_ENDS: Final = ("round_completed", "round_voided")


class NothingToRotateError(JournalError):
    """No archived row may be cut yet (one line: what holds the cut back)."""


@dataclass(frozen=True, slots=True)
class Rotated:
    """What a rotation did: the base written, the rows left live, the rows cut."""

    base: Base
    live_rows: int
    cut_rows: int


def rotating_path(path: Path) -> Path:
    """Where :func:`rotate_journal` builds the new file of the journal at ``path``."""
    return path.with_name(f".{path.name}.rotating")


def _remove_copy(path: Path) -> None:
    remove_temporary(rotating_path(path))


def cut_limit(
    conn: sqlite3.Connection,
    path: Path,
    *,
    wager_spots: Iterable[tuple[int, str]],
    floor_acked: int | None,
) -> tuple[int, str]:
    """The largest K that leaves every live reader's rows in the file, and the reader that
    holds it there (see the module docstring). ``floor_acked``: the last row the floor
    acknowledged (None: the station has no floor link)."""
    storage = storage_of(conn)
    last = storage.last_id() or 0
    limits: list[tuple[int, str]] = [(last, "the last row")]
    reader = JournalReader(conn, path)
    window = list(reader.rows_for_restore(wager_spots))
    # A round's end before the last round start read changes nothing the restore finds
    # (the start opens the round again): it may go (``controller.table.recovery``).
    started = max((r.id for r in window if r.kind == "round_started"), default=0)
    needed = [r.id for r in window if r.kind not in _ROUND_ENDS or r.id > started]
    if needed:
        limits.append((min(needed) - 1, f"the restore reads from row {min(needed)}"))
    if floor_acked is not None:
        limits.append((floor_acked, f"the floor acknowledged rows up to {floor_acked}"))
    from controller.journal.checkpoint import CHECKPOINT_KIND, checkpoint_fields

    checkpoint = storage.last(CHECKPOINT_KIND)
    if checkpoint is not None:
        fields = checkpoint_fields(checkpoint)
        through = checkpoint.id - 1 if isinstance(fields, str) else fields["through"]
        limits.append((through, f"the start walks from the checkpoint in row {checkpoint.id}"))
    seal = storage.last(SEAL_KIND)
    limits.append(
        (seal.id - 1, f"the last seal is row {seal.id}") if seal else (0, "no seal in the file")
    )
    recall = reader.last_rounds_start(RECALL_ROUNDS)
    limits.append((recall, f"recall's last {RECALL_ROUNDS} rounds begin after row {recall}"))
    return min(limits)


def _choose_segment(folder: Path, after: int, limit: int) -> Path | None:
    """The newest segment in ``folder`` that ends after row ``after`` and at or before
    ``limit``."""
    chosen = None
    for found in segments(folder):
        match = NAME.fullmatch(found.name)
        assert match is not None
        if after < int(match[2]) <= limit:
            chosen = found
    return chosen


def _prove_segments(folder: Path, storage: Storage, after: int, end: Path) -> Header:
    """The segments from the one that ends at row ``after`` (the base's own segment; from
    the first one when the journal was never rotated) up to ``end`` check alone and
    linked, and the last one's head is the journal's hash of its last row: the archive
    holds the rows to cut, and each header's epochs and open hole cards (which no row's
    hash covers, and the new base takes from ``end``'s) go on from the base's segment.

    Raises:
        JournalCorruptError: they do not (one line).
    """
    from controller.journal.archive.check import _joined

    # The base's own segment is in: ``journal verify --archive`` checked it against the
    # base, and the link from it is what holds the next one's header to the base.
    wanted = [
        p
        for p in segments(folder)
        if p.name <= end.name and int(NAME.fullmatch(p.name)[2]) >= after  # type: ignore[index]
    ]
    results = [verify_segment(p) for p in wanted]
    report = _joined(results, None)
    if not report.ok:
        raise JournalCorruptError(f"the archive does not check: {report.message}")
    first, header = results[0].header, results[-1].header
    # Each one read: the report is good.
    assert first is not None
    assert header is not None
    if first.first > after + 1:
        raise JournalCorruptError(
            f"rows {after + 1}..{first.first - 1} are in no segment in {folder}"
        )
    if storage.hash_of(header.last) != header.head:
        raise JournalCorruptError(
            f"{end.name}: its last row is not the journal's row {header.last}: another journal?"
        )
    return header


def _open_at_end(path: Path) -> tuple[tuple[int, int, str], ...]:
    result = verify_segment(path)
    return tuple((r, i, c) for r, (i, c) in sorted(result.left_open.items()))


def _plan(
    conn: sqlite3.Connection,
    path: Path,
    archive: Path,
    *,
    wager_spots: Iterable[tuple[int, str]],
    floor_acked: int | None,
) -> Path | str:
    """The segment a rotation would cut after, or why there is none."""
    after = storage_of(conn).start()[0]
    limit, why = cut_limit(conn, path, wager_spots=wager_spots, floor_acked=floor_acked)
    chosen = _choose_segment(archive, after, limit)
    if chosen is None:
        return (
            f"nothing to rotate in {path}: no segment of {archive} ends after row {after}"
            f" and at or before row {limit} ({why})"
        )
    return chosen


def plan_cut(
    conn: sqlite3.Connection,
    path: Path,
    archive: Path,
    *,
    wager_spots: Iterable[tuple[int, str]],
    floor_acked: int | None,
) -> int | str:
    """The row a rotation would cut up to now (read-only: the segment's rows are not
    proved here, only its header read against its name), or why nothing would be cut (one
    line): a file named like a segment that is none would fail the rotation's proof."""
    chosen = _plan(conn, path, archive, wager_spots=wager_spots, floor_acked=floor_acked)
    if isinstance(chosen, str):
        return chosen
    match = NAME.fullmatch(chosen.name)
    assert match is not None
    try:
        header = read_header(chosen)
    except ArchiveError as err:
        return f"the archive's segment there does not read: {err} (journal verify-archive)"
    except OSError as err:
        return f"the archive's segment {chosen.name} cannot be read: {err.strerror or err}"
    if (header.first, header.last) != (int(match[1]), int(match[2])):
        return (
            f"the archive's segment {chosen.name} holds rows {header.first}..{header.last},"
            " not its name's (journal verify-archive)"
        )
    return int(match[2])


def _sealed(storage: Storage) -> bool:
    """The journal's last checkpoint is sealed (its station holds a sealing state)."""
    from controller.journal.checkpoint import CHECKPOINT_KIND

    found = storage.last(CHECKPOINT_KIND)
    return found is not None and '"mac"' in found.data_text


def rotate_journal(
    path: Path,
    archive: Path,
    *,
    wager_spots: Iterable[tuple[int, str]],
    floor_acked: int | None,
    sealing: SealingState | None = None,
) -> Rotated:
    """Cut the journal at ``path`` after the newest segment of ``archive`` that no live
    reader needs (see the module docstring). The station must not be running.

    Raises:
        NothingToRotateError: no segment ends where a cut is allowed (one line: why).
        JournalLockedError: the station (or another writer) has the journal open.
        JournalCorruptError: the journal or the archive does not verify; the new file does
            not prove the same rows (one line each).
        JournalWriteError: the new file could not be written (a full disk); the journal is
            left as it was.
        FileNotFoundError: there is no journal at ``path``.
    """
    if not path.is_file():
        raise FileNotFoundError(f"no journal at {path}")
    with writer_lock(path):
        try:
            _remove_copy(path)
            return _rotate_locked(path, archive, list(wager_spots), floor_acked, sealing)
        except NothingToRotateError:
            raise
        except JournalError as err:  # one line, naming the journal once
            raise type(err)(f"{path} is not rotated: {err}") from err
        except (OSError, sqlite3.Error) as err:
            raise JournalWriteError(f"{path} is not rotated: {err}") from err


def _rotate_locked(
    path: Path,
    archive: Path,
    spots: list[tuple[int, str]],
    floor_acked: int | None,
    sealing: SealingState | None,
) -> Rotated:
    _merge_wal(path)
    report = verify(path, archive=archive)
    if report.case not in GOOD_CASES:
        raise JournalCorruptError(report.message)
    conn = open_readonly(path)
    try:
        storage = storage_of(conn)
        after = storage.start()[0]
        if sealing is None and _sealed(storage):
            raise JournalCorruptError(
                "it is sealed: the base must be sealed with the station's key (give --config"
                " or --sealing-key)"
            )
        chosen = _plan(conn, path, archive, wager_spots=spots, floor_acked=floor_acked)
        if isinstance(chosen, str):
            raise NothingToRotateError(chosen)
        header = _prove_segments(archive, storage, after, chosen)
        base = _base(header, chosen, sealing)
        before = _summary(storage, header.last)
        copy = rotating_path(path)
        first = storage.row(header.last + 1)
        try:
            ts_base = micros_from_ts(first.ts) // 1_000_000 * 1_000_000 if first else None
            create_database(copy, storage.version, ts_base)
            _copy_rows(storage, copy, base)
        except BaseException:
            _remove_copy(path)
            raise
    finally:
        conn.close()
    try:
        _prove(path, copy, archive, before)
    except BaseException:
        _remove_copy(path)
        raise
    put_in_place(path, copy)
    return Rotated(base, before[0], header.last - after)


def _base(header: Header, segment: Path, sealing: SealingState | None) -> Base:
    from controller.journal.checkpoint import checkpoint_mac

    base = Base(
        header.last,
        header.head,
        segment.name,
        header_digest(segment),
        header.seals[0] + header.seals[1],
        _open_at_end(segment),
    )
    if sealing is None:
        return base
    keyed = replace(base, key_epoch=sealing.checkpoint_since)
    mac = checkpoint_mac(sealing.checkpoint_key, keyed.message(sealing.table))
    return replace(keyed, mac=mac)


def _summary(storage: Storage, after: int) -> tuple[int, int, str]:
    """The rows after row ``after``, the last row's id and its hash."""
    last_id, last_hash = storage.tail()
    return last_id - after, last_id, last_hash


def _copy_rows(source: Storage, copy: Path, base: Base) -> None:
    conn = sqlite3.connect(copy, isolation_level=None)
    try:
        # The temporary is built in rollback-journal mode (nothing else reads it: a kill
        # leaves a temporary the next run removes): its rows are written once, not once to
        # the WAL and again at its merge (half the card writes), and it is WAL again
        # before the proof.
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (BASE_KEY, base.to_text()))
        target: Storage = Format2(conn) if source.version == 2 else Format1(conn)
        batch: list[RawRow] = []
        pending = 0
        for raw in source.raw_rows(base.row):
            batch.append(raw)
            if source.version == 1 and len(batch) < 4096:
                continue
            if source.version == 2 and raw[2] != SEAL_KIND and len(batch) < MIGRATED_COMMIT_ROWS:
                continue
            target.insert(batch)
            pending += len(batch)
            batch = []
            if pending >= _ROWS_A_TRANSACTION:
                conn.execute("COMMIT")
                conn.execute("BEGIN IMMEDIATE")
                pending = 0
        if batch:
            target.insert(batch)
        conn.execute("COMMIT")
        (mode,) = conn.execute("PRAGMA journal_mode=WAL").fetchone()
        if mode != "wal":
            raise sqlite3.OperationalError(f"SQLite refused WAL mode ({mode})")
    finally:
        with contextlib.suppress(sqlite3.Error):
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        conn.close()


def _prove(path: Path, copy: Path, archive: Path, before: tuple[int, int, str]) -> None:
    """The new file verifies from its base (linked to the archive) and holds the journal's
    rows after it: as many, to the same last id and hash. With its chain walked whole from
    the base's hash (the journal's hash of that row, proved against the archive), the same
    last hash is the same rows, seals included. Compared here, not left to the verify: the
    head record names the last row committed before it was written, which a station
    stopped between a commit and its head record leaves behind the journal's end."""
    report = verify(copy, head=head_path(path), archive=archive)
    if report.case not in GOOD_CASES:
        raise JournalCorruptError(f"the new file: {report.message}")
    conn = open_readonly(copy)
    try:
        storage = storage_of(conn)
        base = storage.base
        assert base is not None
        after = _summary(storage, base.row)
    finally:
        conn.close()
    if after != before:
        raise JournalCorruptError("the new file's rows or last hash differ")
