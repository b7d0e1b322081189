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
import fcntl
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self

from controller.journal.format import (
    APPEND_ONLY_TRIGGERS,
    COLUMNS,
    DEFAULT_PATH,
    GENESIS_HASH,
    HEAD_RECORD_SIZE,
    KIND_PATTERN,
    SCHEMA_VERSION,
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
    parse_head,
    row_hash,
    utc_now,
)
from controller.journal.reader import JournalReader, open_readonly, select_rows
from controller.journal.verify import VerifyCase, VerifyReport, verify

# The journal's public names, importable from here as one module.
__all__ = [
    "APPEND_ONLY_TRIGGERS",
    "DEFAULT_PATH",
    "GENESIS_HASH",
    "HEAD_RECORD_SIZE",
    "Journal",
    "JournalClosedError",
    "JournalCorruptError",
    "JournalError",
    "JournalLockedError",
    "JournalReader",
    "JournalRecordError",
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

SCHEMA: Final = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '{SCHEMA_VERSION}');
CREATE TABLE IF NOT EXISTS journal (
    id INTEGER PRIMARY KEY,
    ts TEXT NOT NULL,
    kind TEXT NOT NULL,
    round INTEGER,
    data TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS journal_round ON journal (round);
CREATE INDEX IF NOT EXISTS journal_ts ON journal (ts);
CREATE INDEX IF NOT EXISTS journal_kind ON journal (kind);
CREATE TRIGGER IF NOT EXISTS journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only: DELETE refused'); END;
CREATE TRIGGER IF NOT EXISTS meta_no_update BEFORE UPDATE ON meta
BEGIN SELECT RAISE(ABORT, 'journal meta is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS meta_no_delete BEFORE DELETE ON meta
BEGIN SELECT RAISE(ABORT, 'journal meta is append-only: DELETE refused'); END;
"""


class Journal:
    """The station's one writer to the journal. Thread-safe; use :meth:`open`."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        head_fd: int,
        last: tuple[int, str],
        clock: Clock,
    ) -> None:
        self._conn = conn
        self._head_fd = head_fd
        self._last_id, self._last_hash = last
        self._clock = clock
        self._lock = threading.RLock()
        self._closed = False
        self._in_batch = False
        self.path = path

    @classmethod
    def open(cls, path: Path | str, *, clock: Clock = utc_now) -> Journal:
        """Open (or create) the journal at ``path`` for appending.

        Raises:
            JournalLockedError: another process writes this journal.
            JournalTruncatedError: the head record is ahead of the database (rows lost).
            JournalCorruptError: the file is not a journal or is damaged.
            JournalWriteError: the directory or file cannot be written.
        """
        path = Path(path)
        head = head_path(path)
        try:
            created = not head.exists()
            head_fd = os.open(head, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
            if created:  # make the new directory entry itself survive a power cut
                directory = os.open(head.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                try:
                    os.fsync(directory)
                finally:
                    os.close(directory)
        except OSError as err:
            raise JournalWriteError(f"cannot open {head}: {err.strerror}") from err
        try:
            fcntl.flock(head_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as err:
            os.close(head_fd)
            raise JournalLockedError(f"{path} is open for writing by another process") from err
        try:
            conn, last = _open_database(path)
        except BaseException:
            os.close(head_fd)
            raise
        journal = cls(conn, path, head_fd, last, clock)
        try:
            journal._check_head()
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
        """Append one record and commit it to disk before returning its id.

        Raises:
            JournalRecordError: bad ``kind``, ``round_no`` or data that is not plain JSON.
            JournalWriteError: the write failed and nothing was appended; or, when the
                message says so, the row was committed but the head record could not be
                synced (a failing disk either way: stop play).
            JournalClosedError: after :meth:`close`.
        """
        if not isinstance(kind, str) or not KIND_PATTERN.fullmatch(kind):
            raise JournalRecordError(f"bad record kind {kind!r}")
        if round_no is not None and (type(round_no) is not int or round_no < 0):
            raise JournalRecordError(f"bad round number {round_no!r}")
        if not isinstance(data, Mapping):
            raise JournalRecordError(f"record data must be a mapping, not {type(data).__name__}")
        data_text = canonical_json(dict(data))
        with self._lock:
            if self._closed:
                raise JournalClosedError("the journal is closed")
            ts = format_ts(self._clock())
            try:
                # The chain's tail is read inside the write transaction, not trusted from
                # memory: an exception that broke off an earlier append (a signal handler
                # raising between COMMIT and the bookkeeping) cannot fork the chain.
                if not self._in_batch:
                    self._conn.execute("BEGIN IMMEDIATE")
                last = self._conn.execute(
                    "SELECT id, hash FROM journal ORDER BY id DESC LIMIT 1"
                ).fetchone()
                prev_id, prev_hash = last if last else (0, GENESIS_HASH)
                row_id = prev_id + 1
                digest = row_hash(
                    prev_hash,
                    row_id=row_id,
                    ts=ts,
                    kind=kind,
                    round_no=round_no,
                    data_text=data_text,
                )
                self._conn.execute(
                    f"INSERT INTO journal ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (row_id, ts, kind, round_no, data_text, prev_hash, digest),
                )
                if not self._in_batch:
                    self._conn.execute("COMMIT")
            except BaseException as err:
                if self._conn.in_transaction and not self._in_batch:
                    self._conn.execute("ROLLBACK")
                if isinstance(err, sqlite3.Error):
                    raise JournalWriteError(f"journal write failed: {err}") from err
                raise
            self._last_id, self._last_hash = row_id, digest
            if not self._in_batch:
                self._write_head()
        return row_id

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
            if self._in_batch:
                raise JournalRecordError("journal batches do not nest")
            before = self._last_id, self._last_hash
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as err:
                raise JournalWriteError(f"journal write failed: {err}") from err
            self._in_batch = True
            try:
                yield
                self._conn.execute("COMMIT")
            except BaseException as err:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                self._last_id, self._last_hash = before
                if isinstance(err, sqlite3.Error):
                    raise JournalWriteError(f"journal commit failed: {err}") from err
                raise
            finally:
                self._in_batch = False
            self._write_head()

    def rows(self, **filters: Any) -> Iterator[Row]:
        """Committed rows in id order; keyword filters as :func:`select_rows`."""
        with self._lock:
            if self._closed:
                raise JournalClosedError("the journal is closed")
            return iter(list(select_rows(self._conn, **filters)))

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

    def _check_head(self) -> None:
        head = parse_head(os.pread(self._head_fd, HEAD_RECORD_SIZE, 0))
        if head is None:
            return
        head_id, head_hash = head
        if head_id > self._last_id:
            raise JournalTruncatedError(
                f"{self.path}: rows {self._last_id + 1}..{head_id} are missing"
                " (the head record is ahead of the database)"
            )
        stored = self._conn.execute("SELECT hash FROM journal WHERE id = ?", (head_id,)).fetchone()
        if head_id > 0 and (stored is None or stored[0] != head_hash):
            raise JournalCorruptError(f"{self.path}: row {head_id} differs from the head record")

    def _write_head(self, *, sync: bool = False) -> None:
        # One sector, written in place after the commit, so it is never ahead of the rows.
        # Not synced on every append: the page cache already shows it to any copy and it
        # survives a crash of this process; only a power cut can leave it behind the rows,
        # and verify allows a head that lags. Synced at open and close.
        record = canonical_json({"id": self._last_id, "hash": self._last_hash})
        try:
            os.pwrite(self._head_fd, record.ljust(HEAD_RECORD_SIZE - 1).encode() + b"\n", 0)
            if sync:
                os.fdatasync(self._head_fd)
        except OSError as err:
            raise JournalWriteError(
                f"row {self._last_id} is committed, but the head record could not be"
                f" written: {err.strerror}"
            ) from err


def _open_database(path: Path) -> tuple[sqlite3.Connection, tuple[int, str]]:
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as err:
        raise JournalWriteError(f"cannot open {path}: {err}") from err
    try:
        (mode,) = conn.execute("PRAGMA journal_mode=WAL").fetchone()
        if mode != "wal":
            raise JournalWriteError(f"{path}: SQLite refused WAL mode ({mode})")
        conn.execute("PRAGMA synchronous=FULL")
        # After each checkpoint the WAL shrinks back to this size instead of staying large.
        conn.execute("PRAGMA journal_size_limit=8388608")
        conn.execute("BEGIN IMMEDIATE")
        for statement in SCHEMA.split(";\n"):
            if statement.strip():
                conn.execute(statement)
        conn.execute("COMMIT")
        (version,) = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if version != str(SCHEMA_VERSION):
            raise JournalCorruptError(f"{path}: journal schema version {version} is not supported")
        last = conn.execute("SELECT id, hash FROM journal ORDER BY id DESC LIMIT 1").fetchone()
    except sqlite3.DatabaseError as err:
        conn.close()
        raise JournalCorruptError(f"{path}: {err}") from err
    except JournalError:
        conn.close()
        raise
    return conn, (last[0], last[1]) if last else (0, GENESIS_HASH)
