"""Reading the journal: rows by filter, and a read-only view safe beside the running station."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from controller.journal_format import COLUMNS, JournalCorruptError, Row


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
    query = f"SELECT {COLUMNS} FROM journal WHERE {' AND '.join(clauses)}"
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
