"""The one reader of a journal file's rows, whatever its storage format (docs/journal.md,
"Storage format 2"): every query of the rows (verify, the walk, the start check,
checkpoints, anchors, the writer's tail, the restore, recall, the archive, the shipper and
the outbox) goes through :func:`storage_of`, and gets the same logical :class:`Row` (and
walk tuples) from either format.

* Format 1: the ``journal`` table, a row a row with its ``prev_hash`` and ``hash``
  (:class:`Format1`).
* Format 2: the ``journal_commit`` table, the rows of a commit as one SQLite row
  (``controller.journal.compact.CommitCodec``) beside the hash of the commit's last row;
  ``journal_milestone``, the milestone rows by kind (a code of ``journal_kind``) and
  round, and ``journal_spot``, the wager spots' reports by seat and spot (the queries
  format 1's indexes serve); ``journal_codec``, the file's own dictionary and time base
  (:class:`Format2`). A row's ``prev_hash`` is the row before's hash; the hash of a row
  inside a commit is chained from the previous commit's stored hash, and the commit's last
  row carries the stored one, so a commit whose rows were changed fails the chain at its
  last row.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from controller.journal.base import Base, base_of
from controller.journal.compact import CommitCodec, StoredRow
from controller.journal.format import (
    COLUMNS,
    GENESIS_HASH,
    TRIGGER_SQL,
    TRIGGER_SQL_2,
    JournalCorruptError,
    Row,
    plain_row_hash,
)
from controller.journal.kinds import INDEXED_KINDS

#: A row as the walk reads it: (id, ts, kind, round, data, prev_hash, hash).
RawRow = tuple[Any, Any, Any, Any, Any, Any, Any]
#: An entry of format 2's index tables, as the walk checks it: (id, kind, round, seat,
#: spot); a milestone has no seat or spot, a wager spot's report no round.
IndexEntry = tuple[int, str, int | None, int | str | None, int | str | None]
#: Rows fetched from SQLite at a time.
FETCH_ROWS: Final = 4096
_END: Final = 1 << 62
_INDEXED: Final = frozenset(INDEXED_KINDS)
#: The kind whose rows with a seat and a spot are indexed by them (a wager spot's report).
SPOT_KIND: Final = "event"


def index_entry(
    row_id: int,
    kind: str,
    round_no: int | None,
    data: Any,
    indexed: Collection[str] = _INDEXED,
) -> IndexEntry | None:
    """The index entry a row has in format 2 (None: it has none): a milestone kind
    (``indexed``: the file's ``journal_kind``, ``kinds.INDEXED_KINDS`` when not given) in
    ``journal_milestone`` by kind and round, an event with a seat and a spot (an integer or
    a text each) in ``journal_spot`` by them. ``data``: the row's parsed data (only read
    for an event)."""
    if kind in indexed:
        return (row_id, kind, round_no, None, None)
    if kind == SPOT_KIND and type(data) is dict:
        seat, spot = data.get("seat"), data.get("spot")
        if type(seat) in (int, str) and type(spot) in (int, str):
            return (row_id, kind, None, seat, spot)
    return None


@dataclass(frozen=True, slots=True)
class Filters:
    """What :meth:`Storage.rows` selects."""

    after_id: int = 0
    until_id: int | None = None
    kinds: Collection[str] | None = None
    round_no: int | None = None
    ts_from: str | None = None
    ts_to: str | None = None
    newest_first: bool = False
    limit: int | None = None


class Storage:
    """The queries of a journal's rows; :func:`storage_of` gives the file's format's."""

    version: int = 0
    #: The append-only triggers the file must have: name -> statement.
    triggers: dict[str, str] = TRIGGER_SQL
    #: The main table's triggers (named when they are missing).
    main_triggers: tuple[str, str] = ("journal_no_update", "journal_no_delete")
    #: The milestone kinds the file indexes by kind (format 2: its ``journal_kind``).
    indexed_kinds: frozenset[str] = _INDEXED

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        #: A rotated journal's base record: rows 1..base.row are archived (None: never
        #: rotated; ``controller.journal.base``).
        self.base: Base | None = base_of(conn)

    def first_id(self) -> int | None:
        """The smallest row id (None: no rows)."""
        raise NotImplementedError

    def start(self) -> tuple[int, str]:
        """Where the file's rows begin: after row K with hash ``hash`` (the base's; 0 and
        the genesis hash when the journal was never rotated)."""
        return (0, GENESIS_HASH) if self.base is None else (self.base.row, self.base.hash)

    # -- the primitives each format gives --------------------------------------------------
    def raw_rows(self, after_id: int, until_id: int | None = None) -> Iterator[RawRow]:
        """Rows after ``after_id`` (up to ``until_id``) in id order, as tuples."""
        raise NotImplementedError

    def rows(
        self,
        *,
        after_id: int = 0,
        until_id: int | None = None,
        kinds: Collection[str] | None = None,
        round_no: int | None = None,
        ts_from: str | None = None,
        ts_to: str | None = None,
        newest_first: bool = False,
        limit: int | None = None,
    ) -> Iterator[Row]:
        """Rows in id order (or newest first), filtered; ``ts_from`` inclusive, ``ts_to``
        exclusive, both as stored text (:func:`controller.journal.format.format_ts`)."""
        return self._select(
            Filters(after_id, until_id, kinds, round_no, ts_from, ts_to, newest_first, limit)
        )

    def _select(self, f: Filters) -> Iterator[Row]:
        """:meth:`rows` of this format."""
        raise NotImplementedError

    def row(self, row_id: int) -> Row | None:
        """Row ``row_id``, or None when there is none."""
        raise NotImplementedError

    def last_id(self) -> int | None:
        """The largest row id (None: no rows)."""
        raise NotImplementedError

    def count(self) -> int:
        """How many rows the file holds (a gap in the ids: fewer than :meth:`last_id`)."""
        raise NotImplementedError

    def index_entries(self, after_id: int, until_id: int | None = None) -> Iterator[IndexEntry]:
        """Format 2's index entries (``journal_milestone``, ``journal_spot``) after
        ``after_id`` in id order (format 1: none, its indexes are SQLite's own)."""
        return iter(())

    def round_start(self, round_no: int) -> int | None:
        """The first ``round_started`` row of round ``round_no``."""
        raise NotImplementedError

    def round_starts(self, count: int) -> list[tuple[int, int]]:
        """The last ``count`` ``round_started`` rows, newest first: (id, round)."""
        raise NotImplementedError

    def last_spot_report(self, seat: int, spot: str, until_id: int) -> Row | None:
        """The last event row of wager spot ``(seat, spot)`` up to ``until_id``."""
        raise NotImplementedError

    def seals_between(self, kind: str, after_id: int, until_id: int) -> tuple[int, int | None]:
        """How many rows of ``kind`` (a milestone kind) lie in ``after_id + 1 ..
        until_id``, and the last one's id."""
        raise NotImplementedError

    def insert(self, rows: list[RawRow]) -> None:
        """Store ``rows`` (id, ts, kind, round, data, prev_hash, hash; chained, in order),
        inside the writer's transaction."""
        raise NotImplementedError

    # -- derived from the primitives -------------------------------------------------------
    def hash_of(self, row_id: int) -> str | None:
        """Row ``row_id``'s hash, or None when there is no such row."""
        found = self.row(row_id)
        return self._base_hash(row_id) if found is None else found.hash

    def _base_hash(self, row_id: int) -> str | None:
        """The hash of row ``row_id`` when it is the base's row (archived), else None."""
        return self.base.hash if self.base is not None and row_id == self.base.row else None

    def tail(self) -> tuple[int, str]:
        """The last row's id and hash (0 and the genesis hash when there is none)."""
        found = self.last()
        return (found.id, found.hash) if found else self.start()

    def last(self, *kinds: str, until_id: int | None = None) -> Row | None:
        """The newest row of one of ``kinds`` (of any kind when none is named)."""
        found = self.rows(kinds=kinds or None, until_id=until_id, newest_first=True, limit=1)
        return next(found, None)

    def last_row_before_round(self, before_id: int, round_no: int) -> int | None:
        """The id of the last row before ``before_id`` of a round before ``round_no``."""
        if round_no is None:  # as SQL compares with NULL: no round is before it
            return None
        for row in self.rows(until_id=before_id - 1, newest_first=True):
            if row.round_no is not None and row.round_no < round_no:
                return row.id
        return None

    def hole_rows(self, first_id: int, until_id: int, round_no: int) -> Iterator[Row]:
        """The hole-card rows of round ``round_no`` in ``first_id .. until_id``."""
        for row in self.rows(after_id=first_id - 1, until_id=until_id, round_no=round_no):
            if row.kind in ("hole_card_dealt", "hole_card_revealed"):
                yield row


class Format1(Storage):
    """The ``journal`` table: a row a row, with its hashes (``controller.journal.schema``)."""

    version = 1

    def raw_rows(self, after_id: int, until_id: int | None = None) -> Iterator[RawRow]:
        # Text that is not UTF-8 (damaged bytes) is read again with replacement characters,
        # so that the walk names the row instead of the fetch failing.
        conn, last = self.conn, after_id
        end = _END if until_id is None else until_id
        while True:
            try:
                cursor = conn.execute(
                    f"SELECT {COLUMNS} FROM journal WHERE id > ? AND id <= ? ORDER BY id",
                    (last, end),
                )
                while chunk := cursor.fetchmany(FETCH_ROWS):
                    yield from chunk
                    last = chunk[-1][0]
                return
            except sqlite3.OperationalError as err:
                if "decode" not in str(err) or conn.text_factory is not str:
                    raise
                conn.text_factory = lambda raw: raw.decode("utf-8", "replace")

    def _select(self, f: Filters) -> Iterator[Row]:
        clauses: list[str] = ["id > ?"]
        params: list[int | str] = [f.after_id]
        if f.until_id is not None:
            clauses.append("id <= ?")
            params.append(f.until_id)
        if f.kinds is not None:
            # OR-ed equalities, not IN: SQLite takes the partial index of milestones for
            # "kind = ?" only (controller.journal.kinds.INDEXES).
            clauses.append(f"({' OR '.join(['kind = ?'] * len(f.kinds))})" if f.kinds else "0")
            params.extend(f.kinds)
        if f.round_no is not None:
            clauses.append("round = ?")
            params.append(f.round_no)
        if f.ts_from is not None:
            clauses.append("ts >= ?")
            params.append(f.ts_from)
        if f.ts_to is not None:
            clauses.append("ts < ?")
            params.append(f.ts_to)
        query = f"SELECT {COLUMNS} FROM journal WHERE {' AND '.join(clauses)} ORDER BY id"
        query += " DESC" if f.newest_first else ""
        if f.limit is not None:
            query += " LIMIT ?"
            params.append(f.limit)
        for values in self.conn.execute(query, params):
            yield Row(*values)

    def row(self, row_id: int) -> Row | None:
        found = self.conn.execute(f"SELECT {COLUMNS} FROM journal WHERE id = ?", (row_id,))
        values = found.fetchone()
        return None if values is None else Row(*values)

    def hash_of(self, row_id: int) -> str | None:
        found = self.conn.execute("SELECT hash FROM journal WHERE id = ?", (row_id,)).fetchone()
        return self._base_hash(row_id) if found is None else found[0]

    def first_id(self) -> int | None:
        (first,) = self.conn.execute("SELECT min(id) FROM journal").fetchone()
        return None if first is None else int(first)

    def tail(self) -> tuple[int, str]:
        last = self.conn.execute("SELECT id, hash FROM journal ORDER BY id DESC LIMIT 1")
        found = last.fetchone()
        return (found[0], found[1]) if found else self.start()

    def last_id(self) -> int | None:
        (last,) = self.conn.execute("SELECT max(id) FROM journal").fetchone()
        return None if last is None else int(last)

    def count(self) -> int:
        # count(*) alone reads the index journal_count (a few bytes a row: about 6 ms on a
        # million rows here; with max(id) in the same statement SQLite would read the table).
        (count,) = self.conn.execute("SELECT count(*) FROM journal").fetchone()
        return int(count)

    def round_start(self, round_no: int) -> int | None:
        # kinds.INDEXES: journal_round_start.
        (found,) = self.conn.execute(
            "SELECT min(id) FROM journal WHERE kind = 'round_started' AND round = ?", (round_no,)
        ).fetchone()
        return None if found is None else int(found)

    def round_starts(self, count: int) -> list[tuple[int, int]]:
        return [
            (int(row_id), round_no)
            for row_id, round_no in self.conn.execute(
                "SELECT id, round FROM journal WHERE kind = 'round_started'"
                " ORDER BY id DESC LIMIT ?",
                (count,),
            )
        ]

    def last_row_before_round(self, before_id: int, round_no: int) -> int | None:
        found = self.conn.execute(
            "SELECT id FROM journal WHERE id < ? AND round < ? ORDER BY id DESC LIMIT 1",
            (before_id, round_no),
        ).fetchone()
        return None if found is None else int(found[0])

    def last_spot_report(self, seat: int, spot: str, until_id: int) -> Row | None:
        # kinds.INDEXES: journal_wager_spot.
        found = self.conn.execute(
            f"SELECT {COLUMNS} FROM journal WHERE kind = '{SPOT_KIND}'"
            " AND json_extract(data, '$.seat') = ?"
            " AND json_extract(data, '$.spot') = ? AND id <= ?"
            " ORDER BY id DESC LIMIT 1",
            (seat, spot, until_id),
        ).fetchone()
        return None if found is None else Row(*found)

    def seals_between(self, kind: str, after_id: int, until_id: int) -> tuple[int, int | None]:
        count, through = self.conn.execute(
            "SELECT count(*), max(id) FROM journal WHERE kind = ? AND id > ? AND id <= ?",
            (kind, after_id, until_id),
        ).fetchone()
        return int(count), through

    def insert(self, rows: list[RawRow]) -> None:
        self.conn.executemany(f"INSERT INTO journal ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)

    def hole_rows(self, first_id: int, until_id: int, round_no: int) -> Iterator[Row]:
        # In id order (``+kind``: not by the index of milestones, which would read every
        # round's).
        for values in self.conn.execute(
            f"SELECT {COLUMNS} FROM journal WHERE id >= ? AND id <= ?"
            " AND round = ? AND (+kind = 'hole_card_dealt' OR +kind = 'hole_card_revealed')"
            " ORDER BY id",
            (first_id, until_id, round_no),
        ):
            yield Row(*values)


@functools.lru_cache(maxsize=8)
def _codec(dictionary: bytes, ts_base: int) -> CommitCodec:
    return CommitCodec(dictionary, ts_base)


#: A stored commit as the queries read it: first id, last id, the last row's hash, the
#: rows, and the previous commit's last hash (None: the first commit).
_COMMIT_COLUMNS: Final = (
    "c.first_id, c.last_id, c.last_hash, c.body, (SELECT p.last_hash FROM journal_commit p"
    " WHERE p.first_id < c.first_id ORDER BY p.first_id DESC LIMIT 1)"
)


class Format2(Storage):
    """A commit a row (``journal_commit``), the index tables (``journal_milestone``,
    ``journal_spot``, ``journal_kind``) and ``journal_codec``
    (``controller.journal.schema.SCHEMA_2``)."""

    version = 2
    triggers = TRIGGER_SQL_2
    main_triggers = ("journal_commit_no_update", "journal_commit_no_delete")

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        found = conn.execute("SELECT dictionary, ts_base FROM journal_codec WHERE id = 1")
        codec = found.fetchone()
        if codec is None or type(codec[0]) is not bytes or type(codec[1]) is not int:
            raise JournalCorruptError("the journal's codec (journal_codec) is missing or damaged")
        self.codec = _codec(codec[0], codec[1])
        self._codes: dict[str, int] = {
            kind: code for code, kind in conn.execute("SELECT code, kind FROM journal_kind")
        }
        self.indexed_kinds = frozenset(self._codes)
        self._round_started = self._codes.get("round_started", -1)
        self._cached: tuple[tuple[Any, ...], bytes, list[RawRow]] | None = None

    # -- commits ---------------------------------------------------------------------------
    def _decode(self, stored: tuple[Any, ...]) -> list[RawRow]:
        first, last, last_hash, body, prev = stored
        if type(body) is not bytes or type(last_hash) is not bytes or len(last_hash) != 32:
            raise JournalCorruptError(f"row {first}: the stored commit is damaged")
        if type(last) is not int or last < first:
            raise JournalCorruptError(f"row {first}: the stored commit's last id is damaged")
        cached = self._cached
        if cached is not None and cached[0] == (first, last, prev) and cached[1] == body:
            return cached[2]
        rows: list[StoredRow] = self.codec.decode(body, first_id=first)
        if len(rows) != last - first + 1:
            raise JournalCorruptError(
                f"row {first}: the stored commit holds {len(rows)} rows, its ids say"
                f" {last - first + 1}"
            )
        prev_hash = self.start()[1] if prev is None else bytes(prev).hex()
        out: list[RawRow] = []
        row_id = first
        for ts, kind, round_no, data_text in rows:
            digest = (
                last_hash.hex()
                if row_id == last
                else plain_row_hash(
                    prev_hash,
                    row_id=row_id,
                    ts=ts,
                    kind=kind,
                    round_no=round_no,
                    data_text=data_text,
                )
            )
            out.append((row_id, ts, kind, round_no, data_text, prev_hash, digest))
            prev_hash = digest
            row_id += 1
        self._cached = ((first, last, prev), body, out)
        return out

    def _commits(
        self, after_id: int, until_id: int | None, *, newest_first: bool = False
    ) -> Iterator[list[RawRow]]:
        """The decoded commits holding rows ``after_id + 1 .. until_id``, in order."""
        (start,) = self.conn.execute(
            "SELECT max(first_id) FROM journal_commit WHERE first_id <= ?", (after_id + 1,)
        ).fetchone()
        end = _END if until_id is None else until_id
        order = "DESC" if newest_first else ""
        cursor = self.conn.execute(
            f"SELECT {_COMMIT_COLUMNS} FROM journal_commit c"
            f" WHERE c.first_id >= ? AND c.first_id <= ? ORDER BY c.first_id {order}",
            (start or 0, end),
        )
        while chunk := cursor.fetchmany(64):
            for stored in chunk:
                yield self._decode(stored)

    def raw_rows(self, after_id: int, until_id: int | None = None) -> Iterator[RawRow]:
        end = _END if until_id is None else until_id
        for commit in self._commits(after_id, until_id):
            for raw in commit:
                if after_id < raw[0] <= end:
                    yield raw

    def row(self, row_id: int) -> Row | None:
        found = self.conn.execute(
            f"SELECT {_COMMIT_COLUMNS} FROM journal_commit c WHERE c.first_id <= ?"
            " ORDER BY c.first_id DESC LIMIT 1",
            (row_id,),
        ).fetchone()
        if found is None or type(found[1]) is not int or found[1] < row_id:
            return None
        commit = self._decode(found)
        return Row(*commit[row_id - commit[0][0]])

    def _select(self, f: Filters) -> Iterator[Row]:
        limit = None if f.limit is None or f.limit < 0 else f.limit  # SQL: no limit below 0
        if limit == 0 or (f.kinds is not None and not f.kinds):
            return
        end = _END if f.until_id is None else f.until_id
        wanted = None if f.kinds is None else frozenset(f.kinds)
        found: Iterable[RawRow]
        if wanted is not None and wanted <= self.indexed_kinds:
            found = self._indexed(wanted, f.after_id, end, f.round_no, f.newest_first)
        else:
            commits = self._commits(f.after_id, f.until_id, newest_first=f.newest_first)
            found = (
                raw
                for commit in commits
                for raw in (reversed(commit) if f.newest_first else commit)
                if f.after_id < raw[0] <= end
            )
        given = 0
        for raw in found:
            if wanted is not None and raw[2] not in wanted:
                continue
            if f.round_no is not None and raw[3] != f.round_no:
                continue
            if (f.ts_from is not None and raw[1] < f.ts_from) or (
                f.ts_to is not None and raw[1] >= f.ts_to
            ):
                continue
            yield Row(*raw)
            given += 1
            if limit is not None and given >= limit:
                return

    def _indexed(
        self,
        kinds: frozenset[str],
        after_id: int,
        end: int,
        round_no: int | None,
        newest_first: bool,
    ) -> Iterator[RawRow]:
        codes = sorted(self._codes[kind] for kind in kinds if kind in self._codes)
        if not codes:
            return
        clauses = f"({' OR '.join(['kind = ?'] * len(codes))}) AND id > ? AND id <= ?"
        params: list[Any] = [*codes, after_id, end]
        if round_no is not None:
            clauses += " AND round = ?"
            params.append(round_no)
        cursor = self.conn.execute(
            f"SELECT id FROM journal_milestone WHERE {clauses}"
            f" ORDER BY id {'DESC' if newest_first else ''}",
            params,
        )
        while chunk := cursor.fetchmany(256):
            for (row_id,) in chunk:
                found = self.row(row_id)
                if found is None:
                    raise JournalCorruptError(f"row {row_id}: indexed, but not in the journal")
                yield (
                    found.id,
                    found.ts,
                    found.kind,
                    found.round_no,
                    found.data_text,
                    found.prev_hash,
                    found.hash,
                )

    def first_id(self) -> int | None:
        (first,) = self.conn.execute("SELECT min(first_id) FROM journal_commit").fetchone()
        return None if first is None else int(first)

    def last_id(self) -> int | None:
        found = self.conn.execute(
            "SELECT last_id FROM journal_commit ORDER BY first_id DESC LIMIT 1"
        ).fetchone()
        return None if found is None else int(found[0])

    def count(self) -> int:
        # Reads the covering index journal_commit_count: a few bytes a commit.
        (count,) = self.conn.execute(
            "SELECT coalesce(sum(last_id - first_id + 1), 0) FROM journal_commit"
        ).fetchone()
        return int(count)

    def index_entries(self, after_id: int, until_id: int | None = None) -> Iterator[IndexEntry]:
        end = _END if until_id is None else until_id
        cursor = self.conn.execute(
            "SELECT m.id, coalesce(k.kind, '?'), m.round, NULL, NULL FROM journal_milestone m"
            " LEFT JOIN journal_kind k ON k.code = m.kind WHERE m.id > ? AND m.id <= ?"
            f" UNION ALL SELECT id, '{SPOT_KIND}', NULL, seat, spot FROM journal_spot"
            " WHERE id > ? AND id <= ? ORDER BY 1",
            (after_id, end, after_id, end),
        )
        while chunk := cursor.fetchmany(FETCH_ROWS):
            yield from chunk

    def round_start(self, round_no: int) -> int | None:
        # The partial index journal_milestone_round names the code as a literal.
        (found,) = self.conn.execute(
            f"SELECT min(id) FROM journal_milestone WHERE kind = {self._round_started}"
            " AND round = ?",
            (round_no,),
        ).fetchone()
        return None if found is None else int(found)

    def round_starts(self, count: int) -> list[tuple[int, int]]:
        return [
            (int(row_id), round_no)
            for row_id, round_no in self.conn.execute(
                "SELECT id, round FROM journal_milestone WHERE kind = ? ORDER BY id DESC LIMIT ?",
                (self._round_started, count),
            )
        ]

    def last_spot_report(self, seat: int, spot: str, until_id: int) -> Row | None:
        found = self.conn.execute(
            "SELECT id FROM journal_spot WHERE seat = ? AND spot = ?"
            " AND id <= ? ORDER BY id DESC LIMIT 1",
            (seat, spot, until_id),
        ).fetchone()
        return None if found is None else self.row(found[0])

    def seals_between(self, kind: str, after_id: int, until_id: int) -> tuple[int, int | None]:
        count, through = self.conn.execute(
            "SELECT count(*), max(id) FROM journal_milestone WHERE kind = ? AND id > ? AND id <= ?",
            (self._codes.get(kind, -1), after_id, until_id),
        ).fetchone()
        return int(count), through

    # -- the writer ------------------------------------------------------------------------
    def insert(self, rows: list[RawRow]) -> None:
        # One commit row with the rows' index entries.
        body = self.codec.encode([(ts, kind, rnd, data) for _, ts, kind, rnd, data, _, _ in rows])
        self.conn.execute(
            "INSERT INTO journal_commit (first_id, last_id, last_hash, body) VALUES (?, ?, ?, ?)",
            (rows[0][0], rows[-1][0], bytes.fromhex(rows[-1][6]), body),
        )
        milestones, spots = [], []
        for row_id, _ts, kind, round_no, data_text, _prev, _hash in rows:
            data = json.loads(data_text) if kind == SPOT_KIND else None
            entry = index_entry(row_id, kind, round_no, data, self._codes)
            if entry is None:
                continue
            if kind == SPOT_KIND:
                spots.append((row_id, entry[3], entry[4]))
            else:
                milestones.append((row_id, self._codes[kind], round_no))
        if milestones:
            self.conn.executemany(
                "INSERT INTO journal_milestone (id, kind, round) VALUES (?, ?, ?)", milestones
            )
        if spots:
            self.conn.executemany(
                "INSERT INTO journal_spot (id, seat, spot) VALUES (?, ?, ?)", spots
            )


def storage_version(conn: sqlite3.Connection) -> int:
    """The file's storage format (its ``schema_version``; 1 when it has none yet)."""
    try:
        found = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.OperationalError as err:
        if "no such table" not in str(err):
            raise
        return 1
    return 2 if found is not None and found[0] == "2" else 1


def storage_of(conn: sqlite3.Connection) -> Storage:
    """The reader of the rows of the journal open on ``conn``, for its format: made once
    per :class:`JournalConnection` (until another connection commits or the schema
    changes), afresh on any other connection.

    Raises:
        JournalCorruptError: a format-2 file's codec is missing or damaged.
        sqlite3.DatabaseError: when SQLite finds the file damaged.
    """
    if not isinstance(conn, JournalConnection):
        return _made(conn)
    stamp = conn.execute(_STAMP).fetchone()
    kept = conn.storage_kept
    if kept is not None and kept[0] == stamp:
        return kept[1]
    storage = _made(conn)
    conn.storage_kept = (stamp, storage)
    return storage


def _made(conn: sqlite3.Connection) -> Storage:
    return Format2(conn) if storage_version(conn) == 2 else Format1(conn)


# -- the Storage kept with its connection ---------------------------------------------------
#: What a kept Storage was read under: SQLite's schema cookie (a table, index or trigger
#: added or dropped) and ``data_version`` (another connection committed: the format, the
#: codec or the kinds a writer's open adds may have changed). A connection's own writes
#: leave ``data_version`` as it is: whoever changes the kinds on it calls :func:`forget`.
_STAMP: Final = "SELECT * FROM pragma_schema_version, pragma_data_version"


class JournalConnection(sqlite3.Connection):
    """A connection to a journal (``sqlite3.connect(..., factory=JournalConnection)``)
    that keeps the :class:`Storage` :func:`storage_of` made for it: each start asks for it
    about ten times, and making one reads ``schema_version``, the codec and the kinds."""

    storage_kept: tuple[Any, Storage] | None = None


def forget(conn: sqlite3.Connection) -> None:
    """Drop the Storage kept for ``conn`` (after this connection changed what it reads)."""
    if isinstance(conn, JournalConnection):
        conn.storage_kept = None
