"""Reading the journal: rows by filter, and a read-only view safe beside the running station."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from controller.journal.format import SCHEMA_NOT_UTF8, JournalCorruptError, Row
from controller.journal.storage import JournalConnection, Storage, storage_of

T = TypeVar("T")


def select_rows(conn: sqlite3.Connection, **filters: Any) -> Iterator[Row]:
    """Rows in id order (or newest first), filtered, from either storage format: keyword
    filters as :meth:`controller.journal.storage.Storage.rows` (``after_id``, ``until_id``,
    ``kinds``, ``round_no``, ``ts_from`` inclusive, ``ts_to`` exclusive, ``newest_first``,
    ``limit``)."""
    return storage_of(conn).rows(**filters)


def open_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection, safe beside the running station (WAL readers never block it).

    Raises:
        FileNotFoundError: when there is no file at ``path``.
        JournalCorruptError: when the file is not an SQLite database (or its schema is
            damaged).
    """
    if not path.is_file():
        raise FileNotFoundError(f"no journal at {path}")
    try:
        conn = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro", uri=True, factory=JournalConnection
        )
    except sqlite3.DatabaseError as err:
        raise JournalCorruptError(f"{path}: {err}") from err
    try:
        # Damaged text must reach the hash check (which names the row), not fail the fetch.
        conn.text_factory = lambda raw: raw.decode("utf-8", "replace")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as err:
        conn.close()
        raise JournalCorruptError(f"{path}: {err}") from err
    except UnicodeDecodeError as err:
        conn.close()
        raise JournalCorruptError(f"{path}: {SCHEMA_NOT_UTF8}") from err
    return conn


class JournalReader:
    """Read-only access to a journal file, for recall, export and verify."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path

    @property
    def storage(self) -> Storage:
        """The reader of the file's rows for its storage format (kept with the connection
        until the writer commits: :func:`controller.journal.storage.storage_of`).

        Raises:
            JournalCorruptError: when SQLite finds the file damaged.
        """
        try:
            return storage_of(self._conn)
        except sqlite3.DatabaseError as err:
            raise JournalCorruptError(f"{self.path}: {err}") from err

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
            yield from self.storage.rows(**filters)
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
        storage = self.storage
        try:
            end = (1 << 62) if until_id is None else until_id
            found = storage.last("shuffle_commanded", until_id=end)
            start = found.id - 1 if found else 0
            earlier: list[Row] = []
            if start > 0:
                for kind in ("state", "round_started", "round_completed", "round_voided", "burn"):
                    earlier += storage.rows(
                        kinds=[kind], until_id=start, newest_first=True, limit=1
                    )
                for seat, spot in wager_spots:
                    report = storage.last_spot_report(seat, spot, start)
                    earlier += [report] if report is not None else []
        except sqlite3.DatabaseError as err:
            raise JournalCorruptError(f"{self.path}: {err}") from err
        yield from sorted(earlier, key=lambda row: row.id)
        yield from self.rows(after_id=start, until_id=until_id)

    def last_rounds_start(self, count: int) -> int:
        """The id after which the last ``count`` rounds (and what led up to them) begin."""
        storage = self.storage
        try:
            # The last rounds' starts through the index of milestones, then the last row of
            # an earlier round before the first of them, read backwards from it (the round
            # before ends a few rows back).
            found = storage.round_starts(count) if count > 0 else []
            if not found:
                return 0
            first_id, first_round = found[-1]
            before = storage.last_row_before_round(first_id, first_round)
        except sqlite3.DatabaseError as err:
            raise JournalCorruptError(f"{self.path}: {err}") from err
        return before or 0

    def close(self) -> None:
        """Close the connection; idempotent."""
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
