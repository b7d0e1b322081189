"""Tampering with a journal file as an insider with the file (and not the key) would, in
either storage format (docs/journal.md, "Storage format 2"): the rows are read and stored
again through the program's own storage (``controller.journal.storage``), behind the
file's append-only triggers, which are made again afterwards with SQLite's schema cookie
put back (what a start looks at), so that only what the start or ``verify`` checks can
catch the change.

Rows stored again by :func:`replace_rows` are one commit each in format 2 (each keeps the
hash given with it), a row each in format 1.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from controller.journal.format import canonical_json, head_path, head_record, row_hash
from controller.journal.reader import open_readonly
from controller.journal.storage import RawRow, storage_of
from controller.journal.store import Journal

#: A row as the tests change it: (id, ts, kind, round, data text).
Rows = list[tuple[int, str, str, int | None, str]]
#: Every table of a format-2 file that holds rows or their index entries.
_FORMAT_2_TABLES = ("journal_commit", "journal_milestone", "journal_spot")


def raw_rows(path: Path) -> list[RawRow]:
    """Every row of the journal at ``path``: (id, ts, kind, round, data, prev_hash, hash)."""
    conn = sqlite3.connect(path)
    try:
        return list(storage_of(conn).raw_rows(0))
    finally:
        conn.close()


def storage_version(path: Path) -> int:
    """The storage format of the journal at ``path``."""
    conn = sqlite3.connect(path)
    try:
        return storage_of(conn).version
    finally:
        conn.close()


def read_rows(path: Path) -> Rows:
    """Every row of the journal at ``path``: (id, ts, kind, round, data text)."""
    return [(i, ts, kind, r, data) for i, ts, kind, r, data, _, _ in raw_rows(path)]


def schema_cookie(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA schema_version").fetchone()[0])
    finally:
        conn.close()


def behind_the_triggers(path: Path, work: Callable[[sqlite3.Connection], None]) -> None:
    """Drop the file's append-only triggers, do ``work``, make them again and put the
    schema cookie back where it was (the insider who knows what the start looks at)."""
    cookie = schema_cookie(path)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        triggers = storage_of(conn).triggers
        for name in triggers:
            conn.execute(f"DROP TRIGGER {name}")
        work(conn)
        for sql in triggers.values():
            conn.execute(sql)
        conn.execute(f"PRAGMA schema_version = {cookie}")
    finally:
        conn.close()


def replace_rows(conn: sqlite3.Connection, rows: Iterable[RawRow]) -> None:
    """Remove every row (and index entry) of the file open on ``conn`` and store ``rows``
    instead, each with the hashes given (call it behind the triggers)."""
    storage = storage_of(conn)
    for table in _FORMAT_2_TABLES if storage.version == 2 else ("journal",):
        conn.execute(f"DELETE FROM {table}")
    for row in rows:
        storage.insert([row])


def change_rows(path: Path, change: Callable[[list[RawRow]], Iterable[RawRow]]) -> None:
    """Store the rows ``change`` makes of the file's rows instead of them, the hashes as it
    gives them (a row changed in place keeps its old hash), behind the triggers."""
    rows = raw_rows(path)
    behind_the_triggers(path, lambda conn: replace_rows(conn, list(change(rows))))


def chained(rows: Rows, prev: str, first_id: int) -> list[RawRow]:
    """``rows`` numbered from ``first_id`` with every hash computed after ``prev``."""
    out: list[RawRow] = []
    for new_id, (_, ts, kind, round_no, data) in enumerate(rows, start=first_id):
        digest = row_hash(prev, row_id=new_id, ts=ts, kind=kind, round_no=round_no, data_text=data)
        out.append((new_id, ts, kind, round_no, data, prev, digest))
        prev = digest
    return out


def append_chained(
    path: Path,
    kind: str,
    data: Callable[[int, str, str], object],
    ts: str,
    round_no: int | None = None,
) -> int:
    """Append one row of ``kind`` (and ``round_no``) at the end, chained to the last row,
    with a head record to match (the insider's append); ``data(row id, ts, previous
    hash)`` is any JSON value. Its id."""
    appended: list[int] = []

    def work(conn: sqlite3.Connection) -> None:
        storage = storage_of(conn)
        last_id, last_hash = storage.tail()
        text = canonical_json(data(last_id + 1, ts, last_hash))
        (row,) = chained([(0, ts, kind, round_no, text)], last_hash, last_id + 1)
        storage.insert([row])
        head_path(path).write_bytes(head_record(row[0], row[6]))
        appended.append(row[0])

    behind_the_triggers(path, work)
    return appended[0]


def trigger_targets(conn: sqlite3.Connection) -> dict[str, tuple[str, str]]:
    """The append-only triggers the file open on ``conn`` must have: name -> (the
    statement it refuses, its table)."""
    targets = {}
    for name, sql in storage_of(conn).triggers.items():
        verb, _, table = sql.split(" BEFORE ", 1)[1].split("\n", 1)[0].split(" ")
        targets[name] = (verb, table)
    return targets


#: A test's parameter over both storage formats: each makes its journals in its format.
BOTH_FORMATS = [
    pytest.param(n, marks=pytest.mark.journal_format(n), id=f"format-{n}") for n in (1, 2)
]


def damage_first_page(path: Path, where: str) -> None:
    """Overwrite the header of the first page of the table or index ``where`` (a condition on
    ``sqlite_master``) selects: the file opens, its schema reads, and reading through that
    b-tree fails as SQLite's damaged-file error."""
    conn = sqlite3.connect(path)
    try:
        (root,) = conn.execute(f"SELECT rootpage FROM sqlite_master WHERE {where}").fetchone()
        (size,) = conn.execute("PRAGMA page_size").fetchone()
    finally:
        conn.close()
    with path.open("r+b") as file:
        file.seek((root - 1) * size)
        file.write(b"\xff" * 12)


def tamper(path: Path, *statements: str) -> None:
    """Run ``statements``, written for format 1's ``journal`` table (id, ts, kind, round,
    data, prev_hash, hash), on the rows of the journal at ``path`` whatever its format,
    behind its triggers: on the table itself in format 1; in format 2 on a copy of the rows
    in such a table, whose rows are then stored instead of the file's (format 2 stores no
    ``prev_hash``: a change of it alone is lost)."""

    def work(conn: sqlite3.Connection) -> None:
        if storage_of(conn).version == 1:
            for statement in statements:
                conn.execute(statement)
            return
        scratch = sqlite3.connect(":memory:")
        try:
            scratch.execute(
                "CREATE TABLE journal (id INTEGER PRIMARY KEY, ts, kind, round, data,"
                " prev_hash, hash)"
            )
            scratch.executemany(
                "INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, ?)", storage_of(conn).raw_rows(0)
            )
            for statement in statements:
                scratch.execute(statement)
            rows = scratch.execute("SELECT * FROM journal ORDER BY id").fetchall()
        finally:
            scratch.close()
        replace_rows(conn, rows)

    behind_the_triggers(path, work)


def index_out_of_step(path: Path) -> None:
    """A table and an index whose entries no longer match its rows (the index's definition
    rewritten in ``sqlite_master``): damage SQLite's ``integrity_check`` reports, and its
    ``quick_check`` and the journal's chain never read."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("CREATE TABLE extra(a, b)")
        conn.execute("CREATE INDEX extra_a ON extra(a)")
        conn.executemany("INSERT INTO extra VALUES (?, ?)", [(1, 2), (3, 4)])
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute(
            "UPDATE sqlite_master SET sql = 'CREATE INDEX extra_a ON extra(b)'"
            " WHERE name = 'extra_a'"
        )
    finally:
        conn.close()


def stored_hash(path: Path, row: int) -> str:
    """The hash the journal at ``path`` stores for ``row`` (which must exist)."""
    conn = open_readonly(path)
    try:
        digest = storage_of(conn).hash_of(row)
    finally:
        conn.close()
    assert digest is not None
    return digest


def card_indexed_by_a_later_program(path: Path) -> None:
    """A new format-2 journal at ``path`` whose ``journal_kind`` also names ``card`` (as a
    later program's file may: docs/journal.md, "Milestone kinds declared later"), with a
    round started and one card dealt in it by this program."""
    Journal.open(path, storage_format=2).close()
    conn = sqlite3.connect(path)
    (top,) = conn.execute("SELECT max(code) FROM journal_kind").fetchone()
    conn.execute("INSERT INTO journal_kind (code, kind) VALUES (?, 'card')", (top + 1,))
    conn.commit()
    conn.close()
    with Journal.open(path) as journal, journal.batch():
        journal.append("round_started", {}, 1)
        journal.append("card", {"card": "8S"}, 1)
