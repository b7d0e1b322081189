"""The compact storage of journal rows (storage format 2, measured, not yet the writer's):
a row's logical columns as fewer bytes, each given back *exactly*.

A row's chain hash is defined over its logical form (``controller.journal.format.row_hash``:
the previous hash, the header ``[id, ts, kind, round]``, the data's canonical JSON text), so
a row stored compactly hashes as the same row stored as text: seals, checkpoints, anchors,
archive segments and the floor's copies do not change with the storage. This module is the
codec only (sans-I/O: values in, bytes out):

* ``ts``: the text :func:`controller.journal.format.format_ts` writes
  (``2026-11-30T09:15:12.123456Z``) as integer microseconds since the Unix epoch
  (:func:`micros_from_ts`, :func:`ts_from_micros`); a text that would not come back the
  same is refused, so nothing is stored that reads back differently.
* ``data``: the canonical JSON text (ASCII by construction) compressed with raw deflate
  (no zlib header or checksum: the chain hash is the check) primed with a preset
  dictionary of the row's kind (:class:`DataCodec`): the text other rows of that kind
  share (field names, spots, states, lamp names) costs a few bits instead of its bytes.
  The dictionary must be the file's own (a journal keeps its kinds' dictionaries in a
  table, append-only), so that reading never depends on the program's version.
* a whole commit's rows (:class:`CommitCodec`): a line a row, deflated together with one
  dictionary of every kind; the layout that keeps a round in fewer than 4,500 bytes.

Figures (``bench/journal_layouts.py``, a simulated busy table; docs/journal.md, "Storage
format 2"): the data of a round, 7,534 bytes as text, is about 1,130 bytes deflated a row
at a time with the dictionaries :func:`build_dictionary` makes from sample rows; a round
stored a commit a row keeps 2,949 bytes in SQLite. CPU (loaded): 11.6 us a row to encode
and 3.0 to decode a row at a time, 6.3 and 4.0 a commit at a time.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Final

from controller.journal.format import (
    KIND_PATTERN,
    PLAIN_TS,
    JournalCorruptError,
    JournalRecordError,
    ts_from_ns,
)

#: Raw deflate (negative: no header, no checksum) with a 4 KiB window: the dictionary and
#: a row fit in it, and the compressor's state is small (9 us a row to encode instead of
#: 64 us with the 32 KiB default, the same bytes: bench/journal_layouts.py).
WINDOW_BITS: Final = -12
MEMORY_LEVEL: Final = 8
LEVEL: Final = 6
#: The longest dictionary: what the 4 KiB window keeps beside a row of up to 2 KiB.
DICTIONARY_LIMIT: Final = 2048
#: The longest data text a stored row may give back (a decompression bomb is refused
#: before it fills the memory); the journal's largest rows are a few KiB.
DATA_LIMIT: Final = 1 << 20

_EPOCH: Final = datetime(1970, 1, 1)
_MICROSECOND: Final = timedelta(microseconds=1)
_SECOND: Final = timedelta(seconds=1)
#: Microseconds from 1970 to the year 10000 (no journal timestamp reaches it).
_YEAR_10000: Final = (datetime(9999, 12, 31, 23, 59, 59) - _EPOCH) // _MICROSECOND + 1_000_000
#: The second :func:`micros_from_ts` parsed last: its text and its seconds since 1970.
_parsed: tuple[str, int] = ("", 0)


def micros_from_ts(ts: str) -> int:
    """The stored integer of a row's timestamp: microseconds since 1970-01-01T00:00:00Z.

    Raises:
        JournalRecordError: ``ts`` is not a timestamp as the journal writes it, or would
            not read back as the same text.
    """
    global _parsed  # noqa: PLW0603 - a one-entry cache; a race only parses a second twice
    if not PLAIN_TS.fullmatch(ts):
        raise JournalRecordError(f"not a journal timestamp: {ts!r}")
    second, seconds = _parsed
    if ts[:19] != second:
        try:
            moment = datetime.fromisoformat(ts[:19])
        except ValueError as err:  # 2026-02-30, hour 25...
            raise JournalRecordError(f"not a journal timestamp: {ts!r}") from err
        seconds = (moment - _EPOCH) // _SECOND
        _parsed = (ts[:19], seconds)
    # The pattern fixes every digit's place and fromisoformat refuses a day, hour or
    # second the calendar has not: the text reads back as it is (tests/test_journal_compact.py).
    return seconds * 1_000_000 + int(ts[20:26])


def ts_from_micros(micros: int) -> str:
    """The timestamp text of a stored integer (:func:`micros_from_ts`'s inverse).

    Raises:
        JournalCorruptError: the integer is outside the years 1..9999.
    """
    if 0 <= micros < _YEAR_10000:
        # The writer's own formatting, a second's text kept for the next call.
        return ts_from_ns(micros * 1000)
    try:
        moment = _EPOCH + micros * _MICROSECOND
    except OverflowError:
        raise JournalCorruptError(f"stored time {micros} is outside the calendar") from None
    return moment.isoformat(timespec="microseconds") + "Z"


class DataCodec:
    """Encode and decode the data text of rows of one kind, with that kind's dictionary.

    A compressor primed with the dictionary is made once and copied for each row (priming
    costs more than a small row's compression). Thread-safe: nothing shared is changed.
    """

    __slots__ = ("_dictionary", "_primed")

    def __init__(self, dictionary: bytes) -> None:
        if len(dictionary) > DICTIONARY_LIMIT:
            raise ValueError(f"a dictionary holds at most {DICTIONARY_LIMIT} bytes")
        self._dictionary = dictionary
        # zlib refuses an empty preset dictionary; one space primes nothing of note.
        self._primed = zlib.compressobj(
            LEVEL, zlib.DEFLATED, WINDOW_BITS, MEMORY_LEVEL, zlib.Z_DEFAULT_STRATEGY, self._zdict
        )

    @property
    def _zdict(self) -> bytes:
        return self._dictionary or b" "

    @property
    def dictionary(self) -> bytes:
        """The preset dictionary (as the file stores it)."""
        return self._dictionary

    def encode(self, data_text: str) -> bytes:
        """The stored bytes of a row's canonical JSON text.

        Raises:
            JournalRecordError: the text is not ASCII (canonical JSON always is) or longer
                than :data:`DATA_LIMIT`.
        """
        if not data_text.isascii():
            raise JournalRecordError("row data is not canonical JSON (not ASCII)")
        if len(data_text) > DATA_LIMIT:
            raise JournalRecordError(f"row data is longer than {DATA_LIMIT} bytes")
        compressor = self._primed.copy()
        return compressor.compress(data_text.encode("ascii")) + compressor.flush()

    def decode(self, stored: bytes, *, row_id: int = 0) -> str:
        """The canonical JSON text of a row's stored bytes.

        Raises:
            JournalCorruptError: the bytes are not a whole compressed text of this codec
                (damaged, cut short, trailing bytes, another dictionary's output that does
                not inflate, longer than :data:`DATA_LIMIT`, not ASCII): one line naming
                ``row_id``.
        """
        return _inflate(stored, WINDOW_BITS, self._zdict, DATA_LIMIT, f"row {row_id}: stored data")


def _inflate(stored: bytes, window_bits: int, dictionary: bytes, limit: int, what: str) -> str:
    """The ASCII text of a stored value deflated with ``dictionary``, of at most ``limit``
    bytes.

    Raises:
        JournalCorruptError: ``"{what} does not inflate"`` (damaged), ``is cut short or has
            extra bytes``, ``is not a journal row's text`` (too long, not ASCII).
    """
    inflater = zlib.decompressobj(window_bits, dictionary)
    try:
        raw = inflater.decompress(stored, limit + 1)
    except zlib.error as err:
        raise JournalCorruptError(f"{what} does not inflate ({err})") from None
    if not inflater.eof or inflater.unused_data or inflater.unconsumed_tail:
        raise JournalCorruptError(f"{what} is cut short or has extra bytes")
    if len(raw) > limit or not raw.isascii():
        raise JournalCorruptError(f"{what} is not a journal row's text")
    return raw.decode("ascii")


def build_dictionary(samples: Iterable[str], *, limit: int = DICTIONARY_LIMIT) -> bytes:
    """A preset dictionary for one kind from sample data texts of it: the distinct texts,
    the latest last (deflate finds a nearer match cheaper), cut to ``limit`` bytes from
    the end. Deterministic: the same samples give the same bytes.

    Raises:
        JournalRecordError: a sample is not ASCII.
    """
    seen: dict[str, None] = {}
    for text in samples:
        if not text.isascii():
            raise JournalRecordError("a dictionary sample is not canonical JSON (not ASCII)")
        seen.pop(text, None)
        seen[text] = None
    joined = "".join(seen).encode("ascii")
    return joined[-limit:] if limit > 0 else b""


#: A commit's rows are deflated together with the whole 32 KiB window: the dictionary of
#: every kind and a commit's rows fit in it.
COMMIT_WINDOW_BITS: Final = -15
COMMIT_DICTIONARY_LIMIT: Final = 16384
#: The most rows one stored commit may hold (a device event's commit holds a few dozen).
COMMIT_ROWS_LIMIT: Final = 100_000

#: A row as a commit stores it: ``(ts, kind, round, data text)``; its id is the commit's
#: first id plus its place.
StoredRow = tuple[str, str, int | None, str]


class CommitCodec:
    """Encode and decode the rows of one commit as one stored value (the "a commit a row"
    layout of docs/journal.md, "Storage format 2"): a line a row, ``ts,kind,round,data``,
    the time in microseconds after the file's ``ts_base``, the round empty for none,
    deflated together with one dictionary of every kind. Each value reads back exactly, and
    a line written any other way is refused: one stored form a commit."""

    __slots__ = ("_dictionary", "_primed", "ts_base")

    def __init__(self, dictionary: bytes, ts_base: int) -> None:
        if len(dictionary) > COMMIT_DICTIONARY_LIMIT:
            raise ValueError(f"a dictionary holds at most {COMMIT_DICTIONARY_LIMIT} bytes")
        self._dictionary = dictionary or b" "  # zlib refuses an empty one
        self.ts_base = ts_base
        self._primed = zlib.compressobj(
            LEVEL,
            zlib.DEFLATED,
            COMMIT_WINDOW_BITS,
            MEMORY_LEVEL,
            zlib.Z_DEFAULT_STRATEGY,
            self._dictionary,
        )

    def encode(self, rows: list[StoredRow]) -> bytes:
        """The stored value of a commit's rows.

        Raises:
            JournalRecordError: no rows, a timestamp the writer does not write, a bad kind
                or round, data that is not canonical JSON's ASCII on one line.
        """
        if not rows or len(rows) > COMMIT_ROWS_LIMIT:
            raise JournalRecordError(f"a commit holds 1 to {COMMIT_ROWS_LIMIT} rows")
        lines = []
        for ts, kind, round_no, data_text in rows:
            if not KIND_PATTERN.fullmatch(kind):
                raise JournalRecordError(f"bad record kind {kind!r}")
            if round_no is not None and (type(round_no) is not int or round_no < 0):
                raise JournalRecordError(f"bad round number {round_no!r}")
            if not data_text.isascii() or "\n" in data_text or len(data_text) > DATA_LIMIT:
                raise JournalRecordError("row data is not canonical JSON on one line")
            micros = micros_from_ts(ts) - self.ts_base
            lines.append(f"{micros},{kind},{'' if round_no is None else round_no},{data_text}")
        compressor = self._primed.copy()
        return compressor.compress("\n".join(lines).encode("ascii")) + compressor.flush()

    def decode(self, stored: bytes, *, first_id: int) -> list[StoredRow]:
        """The rows of a stored commit whose first row is ``first_id``.

        Raises:
            JournalCorruptError: the value does not inflate whole, or a line is not one
                :meth:`encode` writes: one line naming the row.
        """
        text = _inflate(
            stored,
            COMMIT_WINDOW_BITS,
            self._dictionary,
            COMMIT_ROWS_LIMIT * 64 + DATA_LIMIT,
            f"row {first_id}: stored commit",
        )
        rows: list[StoredRow] = []
        for place, line in enumerate(text.split("\n")):
            rows.append(self._row(line, first_id + place))
        if len(rows) > COMMIT_ROWS_LIMIT:
            raise JournalCorruptError(f"row {first_id}: stored commit holds too many rows")
        return rows

    def _row(self, line: str, row_id: int) -> StoredRow:
        parts = line.split(",", 3)
        if len(parts) != 4:
            raise JournalCorruptError(f"row {row_id}: stored line is not ts,kind,round,data")
        micros, kind, round_text, data_text = parts
        if not _INTEGER.fullmatch(micros) or not KIND_PATTERN.fullmatch(kind):
            raise JournalCorruptError(f"row {row_id}: stored time or kind is malformed")
        if round_text and not _NATURAL.fullmatch(round_text):
            raise JournalCorruptError(f"row {row_id}: stored round is malformed")
        if len(data_text) > DATA_LIMIT:
            raise JournalCorruptError(f"row {row_id}: stored data is too long")
        try:
            ts = ts_from_micros(int(micros) + self.ts_base)
        except JournalCorruptError as err:
            raise JournalCorruptError(f"row {row_id}: {err}") from None
        return ts, kind, int(round_text) if round_text else None, data_text


#: An integer as ``str(int)`` writes it, and a round number (no sign).
_INTEGER: Final = re.compile(r"0|-?[1-9][0-9]{0,19}")
_NATURAL: Final = re.compile(r"0|[1-9][0-9]{0,19}")
