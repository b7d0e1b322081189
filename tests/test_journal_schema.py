"""The journal's SQLite schema (``controller.journal.schema``; docs/journal.md, "The file"
and "Storage format 2"): what a new file of each format holds, the codes of format 2's
milestone kinds and its partial index of round starts, the refusal a format-1 reader meets,
and a milestone kind declared after a format-2 file was made, indexed at the writer's next
open. Format 1's indexes replaced at an open: tests/test_journal_kinds.py."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from test_journal_format2 import tamper  # the append-only triggers dropped and made again

from controller.journal import schema
from controller.journal.format import (
    TRIGGER_SQL,
    TRIGGER_SQL_2,
    JournalCorruptError,
)
from controller.journal.kinds import INDEXED_KINDS, INDEXES
from controller.journal.reader import JournalReader, open_readonly
from controller.journal.schema import apply_schema, index_new_kinds, start_format_2
from controller.journal.storage import JournalConnection, storage_of
from controller.journal.store import Journal
from controller.journal.verify import VerifyCase, verify


def fixed_clock() -> Callable[[], datetime]:
    moments = itertools.count()
    start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    return lambda: start + timedelta(milliseconds=1.5 * next(moments))


def names(conn: sqlite3.Connection, kind: str) -> set[str]:
    query = "SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%'"
    return {name for (name,) in conn.execute(query, (kind,))}


def new_file(version: int) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("BEGIN")
    apply_schema(conn, version)
    conn.execute("COMMIT")
    return conn


def test_a_format_1_file_holds_the_journal_table_its_indexes_and_triggers() -> None:
    conn = new_file(1)
    assert names(conn, "table") == {"meta", "journal"}
    assert names(conn, "index") == set(INDEXES)
    assert names(conn, "trigger") == set(TRIGGER_SQL)
    assert names(conn, "view") == set()
    assert conn.execute("SELECT key, value FROM meta").fetchall() == [("schema_version", "1")]
    columns = [row[1] for row in conn.execute("PRAGMA table_info(journal)")]
    assert columns == ["id", "ts", "kind", "round", "data", "prev_hash", "hash"]
    # the default is format 1 (the writer of a file with no version yet)
    default = sqlite3.connect(":memory:")
    apply_schema(default)
    assert names(default, "table") == {"meta", "journal"}


def test_a_format_2_file_holds_its_tables_indexes_triggers_and_the_refusing_view() -> None:
    """docs/journal.md, "The file" of format 2: a format-1 reader's first read of
    ``journal`` fails in one line naming the function no program defines."""
    conn = new_file(2)
    assert names(conn, "table") == {
        "meta",
        "journal_codec",
        "journal_commit",
        "journal_kind",
        "journal_milestone",
        "journal_spot",
    }
    assert names(conn, "index") == {
        "journal_commit_count",
        "journal_milestone_kind",
        "journal_spot_seat",
    }
    assert names(conn, "trigger") == set(TRIGGER_SQL_2)
    assert names(conn, "view") == {"journal"}
    assert conn.execute("SELECT key, value FROM meta").fetchall() == [("schema_version", "2")]
    conn.execute("INSERT INTO journal_commit VALUES (1, 1, x'00', x'00')")
    with pytest.raises(sqlite3.OperationalError) as refused:
        conn.execute("SELECT * FROM journal").fetchall()
    assert str(refused.value) == "no such function: format_2_needs_a_newer_program"


@pytest.mark.parametrize("version", [1, 2])
def test_the_schema_applied_again_changes_nothing(version: int) -> None:
    conn = new_file(version)
    before = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    apply_schema(conn, version)
    after = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    assert after == before
    assert conn.execute("SELECT count(*) FROM meta").fetchone() == (1,)


def test_a_new_format_2_file_numbers_its_milestone_kinds_and_indexes_round_starts() -> None:
    """Each milestone kind a code, 1 up in the order of ``INDEXED_KINDS`` (the fixture of
    tests/data/journal-format2 has those codes: a file made today is the same file), and
    the partial index of round starts names round_started's code."""
    conn = new_file(2)
    conn.execute("BEGIN")
    start_format_2(conn, b"dictionary", 1_700_000_000_000_000)
    conn.execute("COMMIT")
    assert conn.execute("SELECT id, ts_base, dictionary FROM journal_codec").fetchall() == [
        (1, 1_700_000_000_000_000, b"dictionary")
    ]
    codes = dict(conn.execute("SELECT kind, code FROM journal_kind"))
    assert sorted(codes.values()) == list(range(1, len(INDEXED_KINDS) + 1))
    assert [kind for kind, _ in sorted(codes.items(), key=lambda kc: kc[1])] == list(INDEXED_KINDS)
    (sql,) = conn.execute(
        "SELECT sql FROM sqlite_master WHERE name = 'journal_milestone_round'"
    ).fetchone()
    assert sql == (
        "CREATE INDEX journal_milestone_round ON journal_milestone (round)"
        f" WHERE kind = {codes['round_started']}"
    )
    # a file's kinds all known: nothing to add
    assert index_new_kinds(conn) == []


# -- a milestone kind declared after the file was made -----------------------------------------

#: Two milestone kinds the writer of the test's file does not know.
LATER_KINDS = ("burn", "shuffle_commanded")


def _kinds_table(path: Path) -> dict[str, int]:
    conn = open_readonly(path)
    try:
        return {kind: code for code, kind in conn.execute("SELECT code, kind FROM journal_kind")}
    finally:
        conn.close()


def _milestones(path: Path) -> list[tuple[int, int, int | None]]:
    conn = open_readonly(path)
    try:
        return list(conn.execute("SELECT id, kind, round FROM journal_milestone ORDER BY id"))
    finally:
        conn.close()


@pytest.fixture
def without_later_kinds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A format-2 journal made and written by a program whose milestone kinds lacked
    :data:`LATER_KINDS`: rows 3 (burn, round 1), 5 (shuffle_commanded) and 8 (burn,
    round 2) have no code and no index entry."""
    path = tmp_path / "journal.sqlite3"
    with monkeypatch.context() as patch:
        known = tuple(kind for kind in schema.INDEXED_KINDS if kind not in LATER_KINDS)
        patch.setattr(schema, "INDEXED_KINDS", known)
        with Journal.open(path, clock=fixed_clock(), storage_format=2) as journal:
            journal.append("station_started", {})  # 1
            with journal.batch():
                journal.append("round_started", {}, 1)  # 2
                journal.append("burn", {"card": "2C"}, 1)  # 3
                journal.append("card", {"card": "8S"}, 1)  # 4
            journal.append("shuffle_commanded", {})  # 5
            journal.append("round_completed", {"reshuffle": False}, 1)  # 6
            with journal.batch():
                journal.append("round_started", {}, 2)  # 7
                journal.append("burn", {"card": "3C"}, 2)  # 8
    return path


def test_a_milestone_kind_declared_later_is_indexed_at_the_writers_next_open(
    without_later_kinds: Path,
) -> None:
    path = without_later_kinds
    before = _kinds_table(path)
    assert not set(LATER_KINDS) & set(before)
    assert [row_id for row_id, _, _ in _milestones(path)] == [1, 2, 6, 7]
    # Read before the new program's writer opens it: the file's kinds are the indexed ones.
    assert verify(path).case is VerifyCase.INTACT
    reader = JournalReader.open(path)
    try:
        kept = reader.storage
        assert kept.indexed_kinds == frozenset(before)
        burns = [row.id for row in reader.storage.rows(kinds=["burn"])]
        assert burns == [3, 8]
        with Journal.open(path):  # the writer's open indexes the kinds it lacks
            pass
        # The reader's connection saw the writer commit: its Storage is made again.
        assert reader.storage is not kept
        assert reader.storage.indexed_kinds >= set(LATER_KINDS)
        assert [row.id for row in reader.storage.rows(kinds=list(LATER_KINDS))] == [3, 5, 8]
    finally:
        reader.close()
    after = _kinds_table(path)
    top = max(before.values())
    assert {after["burn"], after["shuffle_commanded"]} == {top + 1, top + 2}
    assert {kind: after[kind] for kind in before} == before  # the old codes stay
    burn, shuffle = after["burn"], after["shuffle_commanded"]
    assert [m for m in _milestones(path) if m[1] in (burn, shuffle)] == [
        (3, burn, 1),
        (5, shuffle, None),
        (8, burn, 2),
    ]
    assert verify(path).case is VerifyCase.INTACT
    with Journal.open(path) as journal:  # nothing more to add
        journal.append("burn", {"card": "4C"}, 2)  # 9
    assert [m[0] for m in _milestones(path) if m[1] == burn] == [3, 8, 9]
    assert _kinds_table(path) == after


def test_the_kinds_added_at_open_and_their_entries_are_one_transaction(
    without_later_kinds: Path,
) -> None:
    """A commit that does not decode stops the indexing: the open fails in one line and
    the file keeps its kinds and entries as they were."""
    path = without_later_kinds
    damaged = "UPDATE journal_commit SET body = x'00ff00ff' WHERE first_id = 7"
    tamper(path, damaged)
    before = (_kinds_table(path), _milestones(path))
    with pytest.raises(JournalCorruptError, match="row 7: "):
        Journal.open(path)
    assert (_kinds_table(path), _milestones(path)) == before


def test_the_kinds_added_are_returned_and_the_connections_storage_made_again(
    without_later_kinds: Path,
) -> None:
    """A connection keeps its Storage (its indexed kinds) while no other connection
    commits: the kinds added on it must be seen by its next read (``storage.forget``)."""
    conn = sqlite3.connect(without_later_kinds, isolation_level=None, factory=JournalConnection)
    try:
        assert not set(LATER_KINDS) & storage_of(conn).indexed_kinds
        conn.execute("BEGIN IMMEDIATE")
        assert index_new_kinds(conn) == sorted(LATER_KINDS)  # in INDEXED_KINDS' order
        conn.execute("COMMIT")
        assert storage_of(conn).indexed_kinds == frozenset(INDEXED_KINDS)
        burns = [row.id for row in storage_of(conn).rows(kinds=["burn"])]
        assert burns == [3, 8]
    finally:
        conn.close()


def test_row_1_of_a_kind_declared_later_is_indexed_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "journal.sqlite3"
    with monkeypatch.context() as patch:
        known = tuple(kind for kind in INDEXED_KINDS if kind != "station_started")
        patch.setattr(schema, "INDEXED_KINDS", known)
        with Journal.open(path, clock=fixed_clock(), storage_format=2) as journal:
            journal.append("station_started", {})  # 1
            journal.append("round_started", {}, 1)  # 2
    with Journal.open(path, clock=fixed_clock()):
        pass
    code = _kinds_table(path)["station_started"]
    assert code == len(INDEXED_KINDS)  # the next code after the file's own
    assert [m for m in _milestones(path) if m[1] == code] == [(1, code, None)]
    assert verify(path).case is VerifyCase.INTACT


def test_a_format_2_file_with_no_kind_codes_numbers_them_from_1(tmp_path: Path) -> None:
    """The kinds' table emptied behind its triggers (no milestone row yet): the writer's
    open gives every kind the next code from none, 1, as a new file has them."""
    path = tmp_path / "journal.sqlite3"
    Journal.open(path, storage_format=2).close()
    made = _kinds_table(path)
    tamper(path, "DELETE FROM journal_kind")
    assert _kinds_table(path) == {}
    with Journal.open(path, clock=fixed_clock()) as journal:
        journal.append("round_started", {}, 1)
    assert _kinds_table(path) == made
    assert _milestones(path) == [(1, made["round_started"], 1)]
    assert verify(path).case is VerifyCase.INTACT
