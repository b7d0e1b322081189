"""The compact storage of a journal row (storage format 2, measured, not yet the writer's):
the row's logical columns as fewer bytes, each given back *exactly*.

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

Figures (``bench/journal_layouts.py``, a simulated busy table): the data of a round, 7,534
bytes as text, is about 1,130 bytes with the dictionaries built from sample rows by
:func:`build_dictionary`; about 8 us a row to encode and 1 us to decode on the machine of
docs/performance.md.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Final

from controller.journal.format import (
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
        inflater = zlib.decompressobj(WINDOW_BITS, self._zdict)
        try:
            raw = inflater.decompress(stored, DATA_LIMIT + 1)
        except zlib.error as err:
            raise JournalCorruptError(
                f"row {row_id}: stored data does not inflate ({err})"
            ) from None
        if not inflater.eof or inflater.unused_data or inflater.unconsumed_tail:
            raise JournalCorruptError(f"row {row_id}: stored data is cut short or has extra bytes")
        if len(raw) > DATA_LIMIT or not raw.isascii():
            raise JournalCorruptError(f"row {row_id}: stored data is not a journal row's text")
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
