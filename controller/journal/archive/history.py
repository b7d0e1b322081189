"""A rotated journal's whole record read as one run of rows: the archive's segments, then
the live file (docs/journal.md, "Reading it"). What ``journal recall --archive`` and
``journal export --archive`` read, so a round the rotation moved into the archive is
reconstructed and exported as if it had never left the journal.

Nothing is taken on trust from the folder. Before a row is read:

* the segments' headers must run on, each from the one before (rows in sequence, each
  ``prev`` the head of the one before, one table), and the live journal must go on from
  them: the archive's last segment ends at a row the journal holds with the same hash, or
  the journal's base record names its segment (:mod:`controller.journal.archive.link`);
* each segment whose rows are read is walked alone first (:func:`verify_segment`: every
  hash from its ``prev`` to its ``head``, and with the verification key every seal).

A segment's row line is ``canonical_json([id, ts, kind, round]) + data``: the row's hash is
``sha256(prev_hash + line)``, so a row read from the archive is the row the journal held,
hash for hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from controller.journal.archive.check import verify_segment
from controller.journal.archive.link import check_archive_link, check_base
from controller.journal.archive.segment import ArchiveError, Header, lines, read_header, segments
from controller.journal.format import Row
from controller.journal.reader import JournalReader
from controller.journal.recall import rebuild, recall
from controller.journal.seal import VerificationKey

_DECODER = json.JSONDecoder()
Record = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Segment:
    """One segment of the archive, by its header (rows ``header.first .. header.last``)."""

    path: Path
    header: Header


class History:
    """The archive in ``folder`` and the live journal of ``reader`` as one run of rows.

    Raises (at :meth:`open`):
        ArchiveError: the folder holds no segment, a header does not read, the segments do
            not run on, or the journal does not go on from them (one line, which says).
    """

    def __init__(
        self, reader: JournalReader, found: list[Segment], key: VerificationKey | None
    ) -> None:
        self.reader = reader
        self.segments = found
        self.key = key

    @classmethod
    def open(
        cls, reader: JournalReader, folder: Path, key: VerificationKey | None = None
    ) -> History:
        """Check how the archive's segments and the journal link (see the module)."""
        found: list[Segment] = []
        for path in segments(folder):
            try:
                found.append(Segment(path, read_header(path)))
            except OSError as err:
                raise ArchiveError(
                    f"corrupt: {path.name}: cannot be read ({err.strerror})"
                ) from None
            except ArchiveError as err:
                raise ArchiveError(f"corrupt: {err}") from None
        if not found:
            raise ArchiveError(f"missing: no archive segment in {folder}")
        for before, after in pairwise(found):
            was, now = before.header, after.header
            if now.first != was.last + 1:
                raise ArchiveError(
                    f"removed: rows {was.last + 1}..{now.first - 1} are in no segment"
                )
            if now.prev != was.head or now.table != was.table:
                raise ArchiveError(
                    f"altered: {after.path.name} does not go on from {before.path.name}"
                )
        storage = reader.storage
        if storage.base is not None:
            note = check_base(storage.base, key=key, archive=folder)
            if isinstance(note, tuple):
                raise ArchiveError(note[1])
        link = check_archive_link(storage, folder)
        if isinstance(link, tuple):
            raise ArchiveError(link[1])
        if found[-1].header.last < storage.start()[0]:
            raise ArchiveError(
                f"removed: rows {found[-1].header.last + 1}..{storage.start()[0]} are in no"
                f" segment of {folder} and not in the journal"
            )
        return cls(reader, found, key)

    @property
    def archived_to(self) -> int:
        """The last row the archive holds (the live file's rows after it are read live)."""
        return self.segments[-1].header.last

    def segment_rows(self, segment: Segment) -> Iterator[Row]:
        """The rows of one segment, after its walk proved them.

        Raises:
            ArchiveError: the walk found a problem (one line: its case, the file, the row).
        """
        result = verify_segment(segment.path, self.key)
        if result.problem:
            raise ArchiveError(f"{result.case}: {result.name}: {result.problem}")
        prev = segment.header.prev
        for line in lines(segment.path):
            row = _row(line, prev)
            yield row
            prev = row.hash

    def rows(
        self, *, after_id: int = 0, ts_from: str | None = None, ts_to: str | None = None
    ) -> Iterator[Row]:
        """Every row after ``after_id`` in id order, the archive's then the journal's;
        ``ts_from`` inclusive and ``ts_to`` exclusive, as the journal's own filter.

        Raises:
            ArchiveError: a segment read does not prove (see :meth:`segment_rows`).
            JournalCorruptError: SQLite finds the journal damaged.
        """
        for segment in self.segments:
            if segment.header.last <= after_id:
                continue
            for row in self.segment_rows(segment):
                if row.id > after_id and _within(row.ts, ts_from, ts_to):
                    yield row
        yield from self.reader.rows(
            after_id=max(after_id, self.archived_to), ts_from=ts_from, ts_to=ts_to
        )

    def recall(self, count: int) -> Record:
        """The last ``count`` rounds, as :func:`controller.journal.recall.recall` gives them
        from a journal that holds every row: the live file's alone when it holds them."""
        live = self.reader.storage.round_starts(count)
        if len(live) >= count:
            return recall(self.reader, count)
        # Rounds the live file holds beyond the archive, then the archive's from its end.
        wanted = count - sum(1 for row_id, _ in live if row_id > self.archived_to)
        start = self.archived_to
        for segment in reversed(self.segments):
            start = segment.header.first - 1
            wanted -= sum(1 for row in _headers(segment) if row[2] == "round_started")
            if wanted <= 0:
                break
        rebuilt = rebuild(self.rows(after_id=start))
        return {"rounds": rebuilt["rounds"][-count:], "after": rebuilt["after"]}

    def round(self, number: int) -> Record | None:
        """Round ``number`` as recall shows a round (None: neither file holds it)."""
        return find_round(self, number)


def find_round(source: History | JournalReader, number: int) -> Record | None:
    """Round ``number`` rebuilt from the rows before it to its last (the live journal's, or
    the whole history's): what happened between the round before and it, its cards,
    decisions and settlements. None when no row of it is held."""
    reader = source.reader if isinstance(source, History) else source
    first = next(reader.rows(round_no=number, limit=1), None)
    if first is not None:
        start = reader.storage.last_row_before_round(first.id, number)
        rows: Iterator[Row] = reader.rows(after_id=start or reader.storage.start()[0])
    elif isinstance(source, History):
        holding = _segment_holding(source, number)
        if holding is None:
            return None
        rows = source.rows(after_id=holding.header.first - 1)  # proved as read
    else:
        return None
    kept: list[Row] = []
    for row in rows:
        if row.round_no is not None and row.round_no > number:
            break
        kept.append(row)
    rounds: list[Record] = rebuild(kept)["rounds"]
    return next((entry for entry in rounds if entry["round"] == number), None)


def _segment_holding(history: History, number: int) -> Segment | None:
    """The segment whose rounds include ``number``: round numbers only grow, so it is the
    last segment whose first round is at most ``number``. Only a locator: the rows read
    from it are proved by :meth:`History.rows`."""
    for segment in reversed(history.segments):
        first = next((head[3] for head in _headers(segment) if head[3] is not None), None)
        if first is not None and first <= number:
            return segment
    return None


def _headers(segment: Segment) -> Iterator[list[Any]]:
    """Each row line's ``[id, ts, kind, round]`` (unproved: for finding, not for showing);
    a line that does not read is skipped (the proving read names it)."""
    for line in lines(segment.path):
        try:
            head = _DECODER.raw_decode(line.decode("ascii", "replace"))[0]
        except ValueError:
            continue
        if isinstance(head, list) and len(head) == 4:
            yield head


def _within(ts: str, ts_from: str | None, ts_to: str | None) -> bool:
    return (ts_from is None or ts >= ts_from) and (ts_to is None or ts < ts_to)


def _row(line: bytes, prev: str) -> Row:
    """A segment's row line as the journal's row (its hash from ``prev``).

    Raises:
        ArchiveError: the line's header is not ``[id, ts, kind, round]`` (a segment whose
            walk passed holds no such line unless it was forged with its hashes).
    """
    digest = hashlib.sha256(prev.encode("ascii") + line).hexdigest()
    text = line.decode("ascii", "replace")
    try:
        head, end = _DECODER.raw_decode(text)
        row_id, ts, kind, round_no = head
        if not (
            isinstance(row_id, int)
            and not isinstance(row_id, bool)
            and isinstance(ts, str)
            and isinstance(kind, str)
            and (round_no is None or isinstance(round_no, int))
        ):
            raise ValueError
    except (ValueError, TypeError):
        raise ArchiveError(f"a row line after {prev[:12]}... is not a journal row") from None
    return Row(row_id, ts, kind, round_no, text[end:], prev, digest)
