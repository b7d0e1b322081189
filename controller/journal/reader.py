"""Reading the journal: rows by filter, and a read-only view safe beside the running station."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from controller.journal.format import COLUMNS, JournalCorruptError, Row

T = TypeVar("T")


def select_rows(
    conn: sqlite3.Connection,
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
    clauses: list[str] = ["id > ?"]
    params: list[int | str] = [after_id]
    if until_id is not None:
        clauses.append("id <= ?")
        params.append(until_id)
    if kinds is not None:
        # OR-ed equalities, not IN: SQLite takes the partial index of milestones for
        # "kind = ?" only (controller.journal.kinds.INDEXES).
        clauses.append(f"({' OR '.join(['kind = ?'] * len(kinds))})" if kinds else "0")
        params.extend(kinds)
    if round_no is not None:
        clauses.append("round = ?")
        params.append(round_no)
    if ts_from is not None:
        clauses.append("ts >= ?")
        params.append(ts_from)
    if ts_to is not None:
        clauses.append("ts < ?")
        params.append(ts_to)
    query = f"SELECT {COLUMNS} FROM journal WHERE {' AND '.join(clauses)} ORDER BY id"
    query += " DESC" if newest_first else ""
    if limit is not None:
        query += " LIMIT ?"
        params.append(limit)
    for row_id, ts, kind, round_column, data_text, prev_hash, digest in conn.execute(query, params):
        yield Row(row_id, ts, kind, round_column, data_text, prev_hash, digest)


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
    except sqlite3.DatabaseError as err:
        raise JournalCorruptError(f"{path}: {err}") from err
    try:
        # Damaged text must reach the hash check (which names the row), not fail the fetch.
        conn.text_factory = lambda raw: raw.decode("utf-8", "replace")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as err:
        conn.close()
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

    def last(self, *kinds: str) -> Row | None:
        """The newest row of one of ``kinds`` (of any kind when none is named).

        Raises:
            JournalCorruptError: when SQLite finds the file damaged.
        """
        found = list(self.rows(kinds=kinds or None, newest_first=True, limit=1))
        return found[0] if found else None

    def query(self, read: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``read`` on the read-only connection (e.g. ``anchor.latest_anchor``).

        Raises:
            JournalCorruptError: when SQLite finds the file damaged.
        """
        try:
            return read(self._conn)
        except sqlite3.DatabaseError as err:
            raise JournalCorruptError(f"{self.path}: {err}") from err

    def rows_for_restore(
        self, wager_spots: Iterable[tuple[int, str]], until_id: int | None = None
    ) -> Iterator[Row]:
        """The rows a restore needs, in id order (``controller.table.recovery``), without
        reading a year of rows: every row from the last ``shuffle_commanded`` on, after the
        few rows before it that still count: the last state, the last round's start and end
        (its number), the last burn card and the last report of each wager spot in
        ``wager_spots`` (``(seat, spot)``; chips stay on a spot across a shuffle).
        ``until_id``: as if the journal ended at that row.

        Raises:
            JournalCorruptError: when SQLite finds the file damaged.
        """
        try:
            end = (1 << 62) if until_id is None else until_id
            found = self._conn.execute(
                "SELECT id FROM journal WHERE kind = 'shuffle_commanded' AND id <= ?"
                " ORDER BY id DESC LIMIT 1",
                (end,),
            ).fetchone()
            start = found[0] - 1 if found else 0
            earlier: list[Row] = []
            if start > 0:
                for kind in ("state", "round_started", "round_completed", "round_voided", "burn"):
                    earlier += self.rows(kinds=[kind], until_id=start, newest_first=True, limit=1)
                for seat, spot in wager_spots:
                    earlier += [
                        Row(*values)
                        for values in self._conn.execute(
                            f"SELECT {COLUMNS} FROM journal WHERE kind = 'event'"
                            " AND json_extract(data, '$.seat') = ?"
                            " AND json_extract(data, '$.spot') = ? AND id <= ?"
                            " ORDER BY id DESC LIMIT 1",
                            (seat, spot, start),
                        )
                    ]
        except sqlite3.DatabaseError as err:
            raise JournalCorruptError(f"{self.path}: {err}") from err
        yield from sorted(earlier, key=lambda row: row.id)
        yield from self.rows(after_id=start, until_id=until_id)

    def last_rounds_start(self, count: int) -> int:
        """The id after which the last ``count`` rounds (and what led up to them) begin."""
        try:
            # The last rounds' starts through the index of milestones (kinds.INDEXES), then
            # the last row of an earlier round before the first of them, read backwards
            # from it (the round before ends a few rows back).
            found = self._conn.execute(
                "SELECT id, round FROM journal WHERE kind = 'round_started'"
                " ORDER BY id DESC LIMIT ?",
                (count,),
            ).fetchall()
            if count <= 0 or not found:
                return 0
            first_id, first_round = found[-1]
            before = self._conn.execute(
                "SELECT id FROM journal WHERE id < ? AND round < ? ORDER BY id DESC LIMIT 1",
                (first_id, first_round),
            ).fetchone()
        except sqlite3.DatabaseError as err:
            raise JournalCorruptError(f"{self.path}: {err}") from err
        return int(before[0]) if before else 0

    def close(self) -> None:
        """Close the connection; idempotent."""
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
