"""The audit journal: an append-only, hash-chained SQLite log of everything the station does.

Write-ahead: :meth:`Journal.append` returns only once the row is committed (WAL mode,
``synchronous=FULL``), and the station acts only after that, so the journal is the truth
after a crash or a power cut. Each row carries ``hash = sha256(prev_hash + header + data)``
(see :func:`row_hash`), so changing, inserting or removing a row breaks the chain.
Triggers refuse UPDATE and DELETE. A *head record* beside the database
(``journal.sqlite3-head``: the last row's id and hash, synced after each append) shows rows
missing at the end, e.g. a copy taken without its ``-wal`` file; its advisory lock also
keeps a second writer out. The record vocabulary is in ``docs/journal.md``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self

DEFAULT_PATH: Final = Path("/var/lib/dealer-station/journal.sqlite3")
GENESIS_HASH: Final = "0" * 64
SCHEMA_VERSION: Final = 1
HEAD_SUFFIX: Final = "-head"
HEAD_RECORD_SIZE: Final = 128
TS_FORMAT: Final = "%Y-%m-%dT%H:%M:%S.%fZ"
KIND_PATTERN: Final = re.compile(r"[a-z][a-z0-9_]{0,63}")

Clock = Callable[[], datetime]

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
CREATE TRIGGER IF NOT EXISTS journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only: DELETE refused'); END;
CREATE TRIGGER IF NOT EXISTS meta_no_update BEFORE UPDATE ON meta
BEGIN SELECT RAISE(ABORT, 'journal meta is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS meta_no_delete BEFORE DELETE ON meta
BEGIN SELECT RAISE(ABORT, 'journal meta is append-only: DELETE refused'); END;
"""

#: Triggers whose absence ``verify`` reports as a tampered schema.
APPEND_ONLY_TRIGGERS: Final = ("journal_no_update", "journal_no_delete")

_COLUMNS: Final = "id, ts, kind, round, data, prev_hash, hash"


class JournalError(Exception):
    """Root of every error the journal raises."""


class JournalRecordError(JournalError, ValueError):
    """A record that cannot be journaled (bad kind, round or data that is not plain JSON)."""


class JournalLockedError(JournalError, BlockingIOError):
    """Another process holds the journal open for writing."""


class JournalCorruptError(JournalError, ValueError):
    """The file is not a journal, or is damaged; ``journal verify`` tells how."""


class JournalTruncatedError(JournalCorruptError):
    """The head record names rows the database no longer holds: committed rows are missing."""


class JournalWriteError(JournalError, OSError):
    """SQLite or the file system refused a write (disk full, I/O error); nothing was appended."""


class JournalClosedError(JournalError, RuntimeError):
    """The journal was used after :meth:`Journal.close`."""


def canonical_json(value: Any) -> str:
    """JSON with sorted keys, no spaces and ASCII only: one text per value, for hashing.

    Raises:
        JournalRecordError: for values JSON cannot carry (sets, bytes, NaN, objects...).
    """
    try:
        return json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
        )
    except (TypeError, ValueError) as err:
        raise JournalRecordError(f"not plain JSON: {err}") from err


def row_hash(
    prev_hash: str, *, row_id: int, ts: str, kind: str, round_no: int | None, data_text: str
) -> str:
    """The chain hash of a row: SHA-256 over the previous hash, the header, and the data.

    The header is the canonical JSON array ``[id, ts, kind, round]``; ``data_text`` is the
    row's canonical JSON exactly as stored. ``prev_hash`` has a fixed length and the array
    delimits itself, so no two rows hash the same input.
    """
    header = canonical_json([row_id, ts, kind, round_no])
    return hashlib.sha256(f"{prev_hash}{header}{data_text}".encode()).hexdigest()


def format_ts(moment: datetime) -> str:
    """A UTC timestamp as the journal stores it: ``2026-11-30T09:15:12.123456Z``."""
    return moment.astimezone(UTC).strftime(TS_FORMAT)


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Row:
    """One journal row as stored; ``data`` is parsed from ``data_text``."""

    id: int
    ts: str
    kind: str
    round_no: int | None
    data_text: str
    prev_hash: str
    hash: str

    @property
    def data(self) -> dict[str, Any]:
        """The record's fields (a fresh dict on every call).

        Raises:
            JournalCorruptError: when the stored text is not a JSON object.
        """
        try:
            value = json.loads(self.data_text)
        except ValueError as err:
            raise JournalCorruptError(f"row {self.id}: data is not JSON") from err
        if not isinstance(value, dict):
            raise JournalCorruptError(f"row {self.id}: data is not a JSON object")
        return value

    def as_json(self) -> dict[str, Any]:
        """The row as one JSON object (the ``journal export`` line)."""
        return {
            "id": self.id,
            "ts": self.ts,
            "kind": self.kind,
            "round": self.round_no,
            "data": self.data,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


def head_path(path: Path) -> Path:
    """Where the head record of the journal at ``path`` lives."""
    return path.with_name(path.name + HEAD_SUFFIX)


def parse_head(raw: bytes) -> tuple[int, str] | None:
    """``(id, hash)`` from a head record's bytes, or None when it is empty or unreadable."""
    try:
        value = json.loads(raw.decode("ascii"))
        row_id, digest = value["id"], value["hash"]
    except (ValueError, KeyError, TypeError):
        return None
    if type(row_id) is not int or not isinstance(digest, str):
        return None
    return row_id, digest


def select_rows(
    conn: sqlite3.Connection,
    *,
    after_id: int = 0,
    until_id: int | None = None,
    kinds: Collection[str] | None = None,
    ts_from: str | None = None,
    ts_to: str | None = None,
) -> Iterator[Row]:
    """Rows in id order, filtered; ``ts_from`` inclusive, ``ts_to`` exclusive (stored text)."""
    clauses, params = ["id > ?"], [after_id]
    if until_id is not None:
        clauses.append("id <= ?")
        params.append(until_id)
    query = f"SELECT {_COLUMNS} FROM journal WHERE {' AND '.join(clauses)}"
    text_params: list[str] = []
    if kinds is not None:
        query += f" AND kind IN ({','.join('?' * len(kinds))})"
        text_params.extend(kinds)
    if ts_from is not None:
        query += " AND ts >= ?"
        text_params.append(ts_from)
    if ts_to is not None:
        query += " AND ts < ?"
        text_params.append(ts_to)
    cursor = conn.execute(query + " ORDER BY id", [*params, *text_params])
    for row_id, ts, kind, round_no, data_text, prev_hash, digest in cursor:
        yield Row(row_id, ts, kind, round_no, data_text, prev_hash, digest)


def open_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection, safe beside the running station (WAL readers never block it).

    Raises:
        FileNotFoundError: when there is no file at ``path``.
        JournalCorruptError: when the file is not an SQLite database.
    """
    if not path.is_file():
        raise FileNotFoundError(f"no journal at {path}")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        # Damaged text must reach the hash check (which names the row), not fail the fetch.
        conn.text_factory = lambda raw: raw.decode("utf-8", "replace")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as err:
        raise JournalCorruptError(f"{path}: {err}") from err
    return conn


class JournalReader:
    """Read-only access to a journal file, for recall, export and verify."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path

    @classmethod
    def open(cls, path: Path | str) -> JournalReader:
        """Open ``path`` read-only (see :func:`open_readonly` for what it raises)."""
        path = Path(path)
        return cls(open_readonly(path), path)

    def rows(self, **filters: Any) -> Iterator[Row]:
        """Rows in id order; keyword filters as :func:`select_rows`.

        Raises:
            JournalCorruptError: when SQLite finds the file damaged.
        """
        try:
            yield from select_rows(self._conn, **filters)
        except sqlite3.DatabaseError as err:
            raise JournalCorruptError(f"{self.path}: {err}") from err

    def last_rounds_start(self, count: int) -> int:
        """The id after which the last ``count`` rounds (and what led up to them) begin."""
        try:
            found = self._conn.execute(
                "SELECT DISTINCT round FROM journal WHERE round IS NOT NULL"
                " ORDER BY round DESC LIMIT ?",
                (count,),
            ).fetchall()
            if not found:
                return 0
            first_round = found[-1][0]
            (before,) = self._conn.execute(
                "SELECT max(id) FROM journal WHERE round IS NOT NULL AND round < ?",
                (first_round,),
            ).fetchone()
        except sqlite3.DatabaseError as err:
            raise JournalCorruptError(f"{self.path}: {err}") from err
        return int(before or 0)

    def close(self) -> None:
        """Close the connection; idempotent."""
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


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
        self._lock = threading.Lock()
        self._closed = False
        self.path = path

    @classmethod
    def open(cls, path: Path | str, *, clock: Clock = _utc_now) -> Journal:
        """Open (or create) the journal at ``path`` for appending.

        Raises:
            JournalLockedError: another process writes this journal.
            JournalTruncatedError: the head record is ahead of the database (rows lost).
            JournalCorruptError: the file is not a journal or is damaged.
            JournalWriteError: the directory or file cannot be written.
        """
        path = Path(path)
        try:
            head_fd = os.open(head_path(path), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
        except OSError as err:
            raise JournalWriteError(f"cannot open {head_path(path)}: {err.strerror}") from err
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
            journal._write_head()
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
            JournalWriteError: the write failed; nothing was appended.
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
            row_id = self._last_id + 1
            ts = format_ts(self._clock())
            digest = row_hash(
                self._last_hash,
                row_id=row_id,
                ts=ts,
                kind=kind,
                round_no=round_no,
                data_text=data_text,
            )
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                self._conn.execute(
                    f"INSERT INTO journal ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (row_id, ts, kind, round_no, data_text, self._last_hash, digest),
                )
                self._conn.execute("COMMIT")
            except sqlite3.Error as err:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise JournalWriteError(f"journal write failed: {err}") from err
            self._last_id, self._last_hash = row_id, digest
            self._write_head()
        return row_id

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

    def _write_head(self) -> None:
        # One sector, written in place: a torn write is not a concern at 128 bytes, and the
        # head may lag the database by one row after a crash (verify allows that).
        record = canonical_json({"id": self._last_id, "hash": self._last_hash})
        try:
            os.pwrite(self._head_fd, record.ljust(HEAD_RECORD_SIZE - 1).encode() + b"\n", 0)
            os.fdatasync(self._head_fd)
        except OSError as err:
            raise JournalWriteError(f"cannot write the head record: {err.strerror}") from err


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
