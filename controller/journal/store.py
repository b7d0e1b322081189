"""The audit journal: an append-only, hash-chained SQLite log of everything the station does.

Write-ahead: :meth:`Journal.append` returns only once the row is committed (WAL mode,
``synchronous=FULL``), and the station acts only after that, so the journal is the truth
after a crash or a power cut. Each row carries ``hash = sha256(prev_hash + header + data)``
(see :func:`row_hash`), so changing, inserting or removing a row breaks the chain.
Triggers refuse UPDATE and DELETE. A *head record* beside the database
(``journal.sqlite3-head``: the last row's id and hash, rewritten after each commit) shows rows
missing at the end, e.g. a copy taken without its ``-wal`` file; its advisory lock also
keeps a second writer out. The record vocabulary is in ``docs/journal.md``.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self

from controller.journal.checkpoint import (
    CHECKPOINT_KIND,
    CHECKPOINT_ROWS,
    checkpoint_data,
    last_checkpoint,
)
from controller.journal.format import (
    APPEND_ONLY_TRIGGERS,
    COLUMNS,
    DEFAULT_PATH,
    GENESIS_HASH,
    HEAD_RECORD_SIZE,
    KIND_PATTERN,
    Clock,
    JournalClosedError,
    JournalCorruptError,
    JournalError,
    JournalLockedError,
    JournalRecordError,
    JournalTruncatedError,
    JournalWriteError,
    Row,
    canonical_json,
    format_ts,
    head_path,
    head_record,
    now_ts,
    parse_head,
    plain_row_hash,
    row_hash,
    utc_now,
)
from controller.journal.opening import JournalSealError, check_head, open_files
from controller.journal.reader import JournalReader, open_readonly, select_rows
from controller.journal.seal import SEAL_KIND, SealingState
from controller.journal.sealer import SEAL_IDLE_SECONDS, Sealer
from controller.journal.storage import storage_of
from controller.journal.verify import VerifyCase, VerifyReport, verify

# The journal's public names, importable from here as one module.
__all__ = [
    "APPEND_ONLY_TRIGGERS",
    "COLUMNS",
    "DEFAULT_PATH",
    "GENESIS_HASH",
    "HEAD_RECORD_SIZE",
    "SEAL_IDLE_SECONDS",
    "Journal",
    "JournalClosedError",
    "JournalCorruptError",
    "JournalError",
    "JournalLockedError",
    "JournalReader",
    "JournalRecordError",
    "JournalSealError",
    "JournalTruncatedError",
    "JournalWriteError",
    "Row",
    "VerifyCase",
    "VerifyReport",
    "canonical_json",
    "format_ts",
    "head_path",
    "open_readonly",
    "parse_head",
    "row_hash",
    "select_rows",
    "verify",
]

#: Kinds after which the journal seals at once: a round's end, the start (after the check)
#: and the stop. Between them the station seals after :data:`SEAL_IDLE_SECONDS`.
SEAL_AFTER: Final = frozenset(
    {"round_completed", "round_voided", "station_started", "clean_shutdown"}
)

DataMaker = Callable[[int, str, str], str]  # (row id, ts, prev_hash) -> data text
#: At most this many record kinds are remembered as checked (the vocabulary has ~50).
_KINDS_REMEMBERED: Final = 256


@dataclass(slots=True)
class _Batch:
    """An open batch (:meth:`Journal.batch`): the chain's tail before it, its rows not
    inserted yet, and whether one of its rows was broken off (then it rolls back)."""

    before: tuple[int, str]
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    broken: bool = False


class Journal:
    """The station's one writer to the journal. Thread-safe; use :meth:`open`."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        head_fd: int,
        last: tuple[int, str],
        clock: Clock,
        *,
        sealing: tuple[Path, SealingState, int] | None = None,
    ) -> None:
        self._conn = conn
        self._head_fd = head_fd
        self._last_id, self._last_hash = last
        #: True while ``_last_id``/``_last_hash`` are known to be the database's last row:
        #: cleared before every transaction, set once a commit's bookkeeping is done (see
        #: :meth:`_begin`).
        self._tail_known = False
        # The default clock's time formatted without a datetime (format.now_ts).
        self._timestamp: Callable[[], str] = (
            now_ts if clock is utc_now else lambda: format_ts(clock())
        )
        self._lock = threading.RLock()
        self._closed = False
        self._batch: _Batch | None = None  # the open batch (:meth:`batch`)
        self._kinds: set[str] = set()  # record kinds already checked
        self.path = path
        self._storage = storage_of(conn)
        self._sealer = Sealer(*sealing) if sealing else None
        #: The id of the last checkpoint row (committed, or in the open batch).
        self._checkpointed = 0
        #: True when :meth:`open` found a half-made, empty journal and made it again.
        self.replaced_half_made = False

    @classmethod
    def open(
        cls,
        path: Path | str,
        *,
        clock: Clock = utc_now,
        sealing: Path | None = None,
        storage_format: int | None = None,
    ) -> Journal:
        """Open (or create) the journal at ``path`` for appending; with ``sealing`` (the
        sealing state file made by ``journal setup-keys``) it seals as it goes.
        ``storage_format``: of a journal created now (``creation.DEFAULT_FORMAT`` when
        None); a journal keeps the format it has.

        Raises:
            JournalSealError: the sealing state does not fit the journal (seals missing at
                the end: truncated or rolled back; or a state older than the journal).
            JournalLockedError: another process writes this journal.
            JournalTruncatedError: the head record is ahead of the database (rows lost).
            JournalCorruptError: the file is not a journal or is damaged.
            JournalWriteError: the directory or file cannot be written.
        """
        path = Path(path)
        head_fd, conn, last, sealed, replaced = open_files(path, sealing, storage_format)
        journal = cls(conn, path, head_fd, last, clock, sealing=sealed)
        journal._tail_known = True  # open_files read it, and nobody else writes
        journal._checkpointed = last_checkpoint(conn)
        journal.replaced_half_made = replaced
        try:
            check_head(path, conn, head_fd, journal.last_id)
            journal._write_head(sync=True)
        except BaseException:
            journal.close()
            raise
        return journal

    @property
    def last_id(self) -> int:
        """The id of the last committed row (0 for an empty journal)."""
        return self._last_id

    def append(self, kind: str, data: Mapping[str, Any], round_no: int | None = None) -> int:
        """Append one record and commit it to disk before returning its id. With a sealing
        state, a record of a kind in :data:`SEAL_AFTER` is followed by a seal row in the
        same transaction (``controller.journal.seal``).

        Raises:
            JournalRecordError: bad ``kind``, ``round_no`` or data that is not plain JSON.
            JournalWriteError: the write failed and nothing was appended; or, when the
                message says so, the row was committed but the head record could not be
                synced (a failing disk either way: stop play).
            JournalClosedError: after :meth:`close`.
        """
        if type(kind) is not str or kind not in self._kinds:
            kind = self._checked_kind(kind)
        if round_no is not None and (type(round_no) is not int or round_no < 0):
            raise JournalRecordError(f"bad round number {round_no!r}")
        if type(data) is not dict:
            if not isinstance(data, Mapping):
                raise JournalRecordError(
                    f"record data must be a mapping, not {type(data).__name__}"
                )
            data = dict(data)
        data_text = canonical_json(data)
        with self._lock:
            row_id = self._write(kind, round_no, data_text)
            if kind in SEAL_AFTER:
                self._checkpoint_if_due()
                if self._sealer is not None:
                    self._write(SEAL_KIND, None, self._sealer.seal_data)
        return row_id

    def _checked_kind(self, kind: object) -> str:
        """``kind`` as a plain ``str`` once it is a good record kind (remembered)."""
        if not isinstance(kind, str) or not KIND_PATTERN.fullmatch(kind):
            raise JournalRecordError(f"bad record kind {kind!r}")
        if kind in (SEAL_KIND, CHECKPOINT_KIND):
            raise JournalRecordError(f"{kind} rows are written by the journal itself")
        kind = str.__str__(kind)  # a str subclass's own text, not its __format__
        if len(self._kinds) < _KINDS_REMEMBERED:
            self._kinds.add(kind)
        return kind

    def seal(self) -> bool:
        """Seal the rows not sealed yet, now; False when there is nothing to seal (or no
        sealing state). Inside a batch the seal is committed with the batch."""
        with self._lock:
            if self._sealer is None or self._last_id == self._sealer.sealed_through:
                return False
            self._write(SEAL_KIND, None, self._sealer.seal_data)
            return True

    def checkpoint(self) -> int:
        """Write a checkpoint row: rows 1..``last_id`` are checked, so that a later start
        hashes only the rows after it (``controller.journal.checkpoint``; sealed with the
        checkpoint key when the journal seals). Returns its id.

        Raises:
            JournalWriteError, JournalClosedError: as :meth:`append`.
        """
        sealing = None if self._sealer is None else self._sealer.state

        def data(row_id: int, ts: str, prev_hash: str) -> str:
            (schema,) = self._conn.execute("PRAGMA schema_version").fetchone()
            return canonical_json(
                checkpoint_data(row_id, ts, prev_hash, schema=schema, sealing=sealing)
            )

        with self._lock:
            row_id = self._write(CHECKPOINT_KIND, None, data)
            self._checkpointed = row_id
            return row_id

    def _checkpoint_if_due(self) -> None:
        """A checkpoint once :data:`CHECKPOINT_ROWS` rows followed the last (lock held)."""
        if self._last_id - self._checkpointed >= CHECKPOINT_ROWS:
            self.checkpoint()

    def seal_if_due(self, now: float | None = None) -> bool:
        """Seal when rows have waited :data:`SEAL_IDLE_SECONDS` (monotonic ``now``) unsealed."""
        now = time.monotonic() if now is None else now
        with self._lock:
            if self._batch is not None or self._sealer is None or not self._sealer.due(now):
                return False
            if self._last_id != self._sealer.sealed_through:
                self._checkpoint_if_due()  # rows between rounds count too (a long fault)
            return self.seal()

    @property
    def last_hash(self) -> str:
        """The hash of the last committed row (the genesis hash for an empty journal)."""
        return self._last_hash

    @property
    def sealed_through(self) -> int:
        """The id of the last row covered by a committed seal (0: none)."""
        return 0 if self._sealer is None else self._sealer.sealed_through

    @property
    def epoch(self) -> int | None:
        """The sealing epoch whose key the station holds now (None: not sealing)."""
        return None if self._sealer is None else self._sealer.state.epoch

    def _begin(self) -> None:
        """BEGIN IMMEDIATE, with ``_last_id``/``_last_hash`` the database's last row.

        The tail is read inside the write transaction only when the last transaction did
        not finish its bookkeeping: an exception that broke off a write between its COMMIT
        and the update of the tail held here (a signal handler raising) leaves
        ``_tail_known`` false, so the chain cannot fork (and a seal committed then has its
        key evolved now: no epoch seals twice). Otherwise the tail held here is
        the database's (one writer: the head record's lock), and the read is saved (one
        query per transaction, bench/journal_round.py).
        """
        known, self._tail_known = self._tail_known, False
        self._conn.execute("BEGIN IMMEDIATE")
        if not known:
            self._last_id, self._last_hash = self._read_tail()
            if self._sealer is not None:
                self._sealer.catch_up(self._last_seal())

    def _write(self, kind: str, round_no: int | None, data: str | DataMaker) -> int:
        """Insert one row (in its own transaction unless a batch is open); call with the
        lock. ``data``: the row's data text, or a function that makes it (a seal's)."""
        if self._closed:
            raise JournalClosedError("the journal is closed")
        batch = self._batch
        if batch is not None and batch.broken:
            # A row of this batch was broken off: the chain held in memory may be behind
            # the transaction, so nothing more goes in; the batch rolls back.
            raise JournalWriteError("an earlier row of this batch failed; it is rolled back")
        ts = self._timestamp()
        try:
            if batch is None:
                self._begin()
            # In a batch the tail was settled when it began (see _begin); each row of the
            # batch follows the one before.
            row_id = self._last_id + 1
            prev_hash = self._last_hash
            data_text = data if isinstance(data, str) else data(row_id, ts, prev_hash)
            # kind and round_no were checked by append (or are the seal's), ts is
            # format_ts's: the header is plain.
            digest = plain_row_hash(
                prev_hash, row_id=row_id, ts=ts, kind=kind, round_no=round_no, data_text=data_text
            )
            row = (row_id, ts, kind, round_no, data_text, prev_hash, digest)
            if batch is not None:
                # Inserted with the batch's other rows, in one call, before its COMMIT
                # (one call instead of ~4 a round's event: bench/journal_round.py).
                batch.rows.append(row)
            else:
                self._storage.insert([row])
                self._conn.execute("COMMIT")
        except BaseException as err:
            if batch is not None:
                batch.broken = True
            else:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                if self._sealer is not None:
                    self._sealer.discard()
            if isinstance(err, sqlite3.Error):
                raise JournalWriteError(f"journal write failed: {err}") from err
            raise
        self._last_id, self._last_hash = row_id, digest
        if batch is None:
            self._tail_known = True
            self._committed()
        return row_id

    def _insert_batch_rows(self, batch: _Batch) -> None:
        """Insert the open batch's rows (inside its transaction; lock held)."""
        if batch.rows:
            self._storage.insert(batch.rows)
            batch.rows.clear()

    def _read_tail(self) -> tuple[int, str]:
        """The last row's id and hash as the database holds them (inside a transaction)."""
        return self._storage.tail()

    def _last_seal(self) -> tuple[int, int] | None:
        """The last seal row's id and epoch (inside a transaction), or None."""
        found = self._storage.last(SEAL_KIND)
        epoch = None if found is None else found.data.get("epoch")
        return None if found is None or type(epoch) is not int else (found.id, epoch)

    def _committed(self) -> None:
        """After a commit: the head record, and the sealing key moved on past a new seal."""
        self._write_head()
        if self._sealer is not None:
            self._sealer.committed()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group the appends made inside into one transaction (group commit).

        The rows are committed to disk, with the head record, when the block ends; the
        station handles one event per batch and acts on it only after that. If the block
        raises, none of its rows is kept. Batches do not nest.

        Raises:
            JournalWriteError: the commit failed; none of the block's rows was kept.
        """
        with self._lock:
            if self._closed:
                raise JournalClosedError("the journal is closed")
            if self._batch is not None:
                raise JournalRecordError("journal batches do not nest")
            try:
                self._begin()
            except BaseException as err:  # a signal too: no transaction is left open
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                if isinstance(err, sqlite3.Error):
                    raise JournalWriteError(f"journal write failed: {err}") from err
                raise
            # A new object each batch: nothing of the last one carries over.
            batch = self._batch = _Batch((self._last_id, self._last_hash))
            checkpointed = self._checkpointed
            try:
                yield
                if batch.broken:
                    raise JournalWriteError("a row of this batch failed; none of it was kept")
                self._insert_batch_rows(batch)
                self._conn.execute("COMMIT")
            except BaseException as err:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                # The tail before the batch; _tail_known stays false (see _begin).
                self._last_id, self._last_hash = batch.before
                self._checkpointed = checkpointed
                if self._sealer is not None:
                    self._sealer.discard()
                if isinstance(err, sqlite3.Error):
                    raise JournalWriteError(f"journal commit failed: {err}") from err
                raise
            finally:
                self._batch = None
            self._tail_known = True
            self._committed()

    def rows(self, **filters: Any) -> Iterator[Row]:
        """Committed rows in id order; keyword filters as :func:`select_rows`."""
        with self._lock:
            if self._closed:
                raise JournalClosedError("the journal is closed")
            if self._batch is not None and not self._batch.broken:
                self._insert_batch_rows(self._batch)  # the batch's own rows are seen inside it
            return iter(list(self._storage.rows(**filters)))

    def close(self) -> None:
        """Checkpoint and close; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._conn.close()
            with contextlib.suppress(OSError):  # a lagging head is allowed
                os.fdatasync(self._head_fd)
            os.close(self._head_fd)  # releases the writer's lock

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _write_head(self, *, sync: bool = False) -> None:
        # One sector, written in place after the commit, so it is never ahead of the rows.
        # Not synced on every append: the page cache already shows it to any copy and it
        # survives a crash of this process; only a power cut can leave it behind the rows,
        # and verify allows a head that lags. Synced at open and close.
        try:
            os.pwrite(self._head_fd, head_record(self._last_id, self._last_hash), 0)
            if sync:
                os.fdatasync(self._head_fd)
        except OSError as err:
            raise JournalWriteError(
                f"row {self._last_id} is committed, but the head record could not be"
                f" written: {err.strerror}"
            ) from err
