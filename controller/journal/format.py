"""The journal's format: its errors, canonical JSON, the chain hash, rows and the head record.

Shared by the writer (``controller.journal.store``), the reader (``controller.journal.reader``)
and ``journal verify``; ``docs/journal.md`` describes the format.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from _json import make_encoder
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from json.encoder import encode_basestring_ascii
from pathlib import Path
from typing import Any, Final

DEFAULT_PATH: Final = Path("/var/lib/dealer-station/journal.sqlite3")
GENESIS_HASH: Final = "0" * 64
SCHEMA_VERSION: Final = 1
HEAD_SUFFIX: Final = "-head"
HEAD_RECORD_SIZE: Final = 128
TS_FORMAT: Final = "%Y-%m-%dT%H:%M:%S.%fZ"
KIND_PATTERN: Final = re.compile(r"[a-z][a-z0-9_]{0,63}")
#: A timestamp as :func:`format_ts` writes it: nothing JSON would escape.
#: SQLite's message about a damaged schema quotes the schema's text; when a flipped byte
#: makes that text not UTF-8, Python's sqlite3 raises UnicodeDecodeError (a ValueError)
#: where it means DatabaseError. What the journal's commands say instead.
SCHEMA_NOT_UTF8: Final = "file is not a database: its schema is damaged (text that is not UTF-8)"
PLAIN_TS: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")
_HEX_DIGEST: Final = re.compile(r"[0-9a-f]{64}")


def _not_json(value: object) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


#: The C encoder ``json.dumps`` itself runs (``JSONEncoder.iterencode``, one-shot), built
#: once: ``JSONEncoder.encode`` builds it again on every call, half the cost of a small
#: record (about 1 us of 2 a row, measured). The same bytes. ``markers`` is None because
#: the C encoder leaves stale entries in a shared one after an error: a circular value
#: ends in RecursionError instead of ValueError.
_C_ENCODER: Final = make_encoder(
    None, _not_json, encode_basestring_ascii, None, ":", ",", True, False, False
)

Clock = Callable[[], datetime]

#: The append-only triggers: name -> the statement SQLite keeps for it in ``sqlite_master``
#: (``controller.journal.schema.SCHEMA`` creates them from this text). ``verify`` and the
#: start check compare each body, whitespace aside: a trigger of the right name that does
#: nothing is a tampered schema, as a missing one is.
TRIGGER_SQL: Final = {
    f"{table}_no_{verb.lower()}": (
        f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table}\n"
        f"BEGIN SELECT RAISE(ABORT, '{what} is append-only: {verb} refused'); END"
    )
    for table, what in (("journal", "the journal"), ("meta", "journal meta"))
    for verb in ("UPDATE", "DELETE")
}
#: Format 2's append-only triggers (as ``format.TRIGGER_SQL`` states format 1's).
TRIGGER_SQL_2: Final = {
    f"{table}_no_{verb.lower()}": (
        f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table}\n"
        f"BEGIN SELECT RAISE(ABORT, '{what} is append-only: {verb} refused'); END"
    )
    for table, what in (
        ("journal_commit", "the journal"),
        ("journal_milestone", "the journal index"),
        ("journal_spot", "the journal index"),
        ("journal_kind", "the journal kinds"),
        ("journal_codec", "the journal codec"),
        ("meta", "journal meta"),
    )
    for verb in ("UPDATE", "DELETE")
}
#: The journal table's triggers (``verify`` names them when they are missing).
APPEND_ONLY_TRIGGERS: Final = ("journal_no_update", "journal_no_delete")
COLUMNS: Final = "id, ts, kind, round, data, prev_hash, hash"


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
        return "".join(_C_ENCODER(value, 0))
    except (TypeError, ValueError, RecursionError) as err:
        raise JournalRecordError(f"not plain JSON: {err}") from err


def row_hash(
    prev_hash: str, *, row_id: int, ts: str, kind: str, round_no: int | None, data_text: str
) -> str:
    """The chain hash of a row: SHA-256 over the previous hash, the header, and the data.

    The header is the canonical JSON array ``[id, ts, kind, round]``; ``data_text`` is the
    row's canonical JSON exactly as stored. ``prev_hash`` has a fixed length and the array
    delimits itself, so no two rows hash the same input.
    """
    if (
        type(row_id) is int
        and (round_no is None or type(round_no) is int)
        and KIND_PATTERN.fullmatch(kind)
        and PLAIN_TS.fullmatch(ts)
    ):
        return plain_row_hash(
            prev_hash, row_id=row_id, ts=ts, kind=kind, round_no=round_no, data_text=data_text
        )
    header = canonical_json([row_id, ts, kind, round_no])
    return hashlib.sha256(f"{prev_hash}{header}{data_text}".encode()).hexdigest()


def plain_row_hash(
    prev_hash: str, *, row_id: int, ts: str, kind: str, round_no: int | None, data_text: str
) -> str:
    """:func:`row_hash` for a header its caller knows to be plain, unchecked: ``row_id`` and
    ``round_no`` ints (or None), ``kind`` matching :data:`KIND_PATTERN`, ``ts`` as
    :func:`format_ts` writes it. The header is then the bytes ``canonical_json`` gives (no
    character in it needs escaping), written directly: the writer runs this for every row.
    """
    header = f'[{row_id},"{ts}","{kind}",{"null" if round_no is None else round_no}]'
    return hashlib.sha256(f"{prev_hash}{header}{data_text}".encode()).hexdigest()


def format_ts(moment: datetime) -> str:
    """A UTC timestamp as the journal stores it: ``2026-11-30T09:15:12.123456Z``, the year
    always in four digits (``0999-...``: docs/journal.md, so that the text sorts as the
    time does and reads back, :data:`PLAIN_TS`). A datetime has no year past 9999.

    Raises:
        OverflowError: ``moment`` in UTC falls outside the years 1..9999.
    """
    if moment.tzinfo is not UTC:
        moment = moment.astimezone(UTC)
    # isoformat is C code and writes every year in four digits; strftime("%Y") writes a
    # year below 1000 with fewer (glibc), and asks the C library, which re-reads the time
    # zone on every call (a third of a journal row's cost on the station thread).
    return moment.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


#: The second :func:`ts_from_ns` formatted last, and its text up to the seconds.
_second: tuple[int, str] = (0, "1970-01-01T00:00:00")


def ts_from_ns(ns: int) -> str:
    """``format_ts`` of the moment ``ns`` nanoseconds after the epoch (from 1970 on), without
    making a datetime: the writer's timestamp with its default clock (about 0.5 us a row
    instead of 2). The text up to the seconds is kept for the next call in the
    same second; ``gmtime`` and ``strftime`` run once a second."""
    global _second  # noqa: PLW0603 - a one-entry cache; a race only formats a second twice
    seconds, micros = divmod(ns // 1000, 1_000_000)
    second, text = _second
    if seconds != second:
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
        _second = (seconds, text)
    return f"{text}.{micros:06d}Z"


def now_ts() -> str:
    """``format_ts(utc_now())``: the system clock's time as the journal stores it."""
    return ts_from_ns(time.time_ns())


def utc_now() -> datetime:
    """The current time in UTC (the journal's default clock)."""
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
        except RecursionError:  # thousands of nested arrays: no record the journal writes
            raise JournalCorruptError(f"row {self.id}: data is nested too deeply") from None
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


def head_record(row_id: int, digest: str) -> bytes:
    """The head record's bytes: ``{"hash":...,"id":N}`` padded with spaces to
    :data:`HEAD_RECORD_SIZE` with a newline at the end."""
    if _HEX_DIGEST.fullmatch(digest):
        # What canonical_json gives for a hex digest (written after every commit).
        text = f'{{"hash":"{digest}","id":{row_id}}}'
    else:  # a hash read from a damaged file: escaped as JSON
        text = canonical_json({"id": row_id, "hash": digest})
    return text.ljust(HEAD_RECORD_SIZE - 1).encode() + b"\n"


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
