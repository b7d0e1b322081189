"""The journal's index of kinds covers only the kinds a round writes about once or less
(``journal_milestone``): a commit of a round's ordinary rows adds no page to it,
and every lookup by kind the station and its tools make still finds its row through it.

Format 1's indexes and query plans (every test here makes format-1 journals); format 2's
index tables and plans: ``test_journal_format2.py``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_journal_vocabulary import documented

from controller.journal.anchor import latest_anchor
from controller.journal.kinds import FREQUENT_KINDS, INDEXED_KINDS, INDEXES, MILESTONE_NAME
from controller.journal.reader import JournalReader
from controller.journal.seal import new_sealing, save_state
from controller.journal.store import Journal
from controller.journal.verify import verify
from controller.service.daemon import WAGER_SPOTS

pytestmark = pytest.mark.journal_format(1)


def test_every_documented_kind_is_either_indexed_or_frequent() -> None:
    assert not set(INDEXED_KINDS) & set(FREQUENT_KINDS)
    assert set(INDEXED_KINDS) | set(FREQUENT_KINDS) == set(documented())


def plan(path: Path, statement: str) -> str:
    conn = sqlite3.connect(path)
    try:
        return " / ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {statement}"))
    finally:
        conn.close()


def indexes(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        found = conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        )
        return {name for (name,) in found}
    finally:
        conn.close()


@pytest.fixture
def sealed_journal(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A sealed journal of a few shoes: milestones among many ordinary rows."""
    yield sealed_shoes(tmp_path)


def sealed_shoes(tmp_path: Path, storage_format: int | None = None) -> tuple[Path, Path]:
    """A sealed journal of a few shoes (``storage_format``: the default when None) and its
    key file."""
    path, key_file = tmp_path / "journal.sqlite3", tmp_path / "sealing-key"
    save_state(key_file, new_sealing("T1")[0])
    with Journal.open(path, sealing=key_file, storage_format=storage_format) as journal:
        journal.checkpoint()
        journal.append("station_started", {"table_id": "T1"})
        for round_no in range(1, 31):
            if round_no % 10 == 1:
                journal.append("shuffle_commanded", {"decks": 6})
                journal.append("burn", {"card": "5C", "reason": "load"})
            with journal.batch():
                journal.append("event", {"type": "seat_wager", "seat": 1, "spot": "main"})
                journal.append("round_started", {"round": round_no, "seats": []}, round_no)
                for n in range(20):
                    journal.append("card", {"card": "7S", "n": n}, round_no)
                    journal.append("state", {"state": "dealing"}, round_no)
            journal.append("round_completed", {"reshuffle": False}, round_no)
    return path, key_file


def traced_statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every statement any new SQLite connection runs from now on (bound values shown)."""
    statements: list[str] = []
    connect = sqlite3.connect

    def tracing(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(sqlite3, "connect", tracing)
    return statements


def a_starts_statements(
    path: Path,
    key_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    also: Callable[[JournalReader], bool],
) -> list[str]:
    """Every statement what a start reads runs (the verified checkpoint, the last seal, the
    restore's last shuffle, burn, round start and end, a wager spot's report), the anchor
    and ``also`` (true when it found what it looked for)."""
    statements = traced_statements(monkeypatch)
    assert verify(path, since_checkpoint=True).ok
    Journal.open(path, sealing=key_file).close()
    with JournalReader.open(path) as reader:
        list(reader.rows_for_restore(WAGER_SPOTS))
        assert reader.query(latest_anchor) is not None
        assert also(reader)
    monkeypatch.undo()
    return statements


def test_the_lookups_by_kind_at_a_start_use_the_index(
    sealed_journal: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a start reads (the verified checkpoint, the last seal, the restore's last
    shuffle, burn, round start and end), the anchor and the first seal: each by the index."""
    path, key_file = sealed_journal
    statements = a_starts_statements(
        path,
        key_file,
        monkeypatch,
        lambda reader: next(reader.rows(kinds=("seal",), limit=1)).kind == "seal",
    )
    by_kind = [s for s in statements if s.startswith("SELECT") and "kind = '" in s]
    looked_up = {kind for kind in INDEXED_KINDS for s in by_kind if f"kind = '{kind}'" in s}
    assert {"verified", "seal", "shuffle_commanded", "burn", "round_started"} <= looked_up
    assert {"round_completed", "round_voided"} <= looked_up
    for statement in by_kind:
        if any(f"kind = '{kind}'" in statement for kind in INDEXED_KINDS):
            assert MILESTONE_NAME in plan(path, statement), statement


@pytest.mark.parametrize("kind", INDEXED_KINDS)
def test_the_last_row_of_any_indexed_kind_is_found_by_the_index(
    sealed_journal: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    path, _ = sealed_journal
    statements = traced_statements(monkeypatch)
    with JournalReader.open(path) as reader:
        reader.last(kind)
        list(reader.rows(kinds=(kind, "seal"), newest_first=True, limit=1))
    monkeypatch.undo()
    selects = [s for s in statements if s.startswith("SELECT") and "kind" in s]
    assert len(selects) == 2
    for statement in selects:
        assert MILESTONE_NAME in plan(path, statement), statement


def test_a_frequent_kind_is_found_by_reading_back(sealed_journal: tuple[Path, Path]) -> None:
    path, _ = sealed_journal
    with JournalReader.open(path) as reader:
        last_state = reader.last("state")
        assert last_state is not None and last_state.kind == "state"
        cards = list(reader.rows(kinds=("card",)))
        assert len(cards) == 30 * 20
        assert [row.id for row in reader.rows(kinds=())] == []


def test_a_new_journal_has_the_index_of_milestones_and_none_of_every_row(
    sealed_journal: tuple[Path, Path],
) -> None:
    path, _ = sealed_journal
    assert indexes(path) == set(INDEXES)


@pytest.mark.parametrize(
    ("where", "params"),
    [
        ("kind = ?", ("seal",)),
        ("kind = ? AND id <= ?", ("shuffle_commanded", 10**9)),
        ("id > ? AND id <= ? AND (kind = ?)", (0, 10**9, "round_voided")),
        ("id > ? AND (kind = ? OR kind = ?)", (0, "burn", "round_started")),
    ],
)
def test_a_bound_kind_uses_the_index_too(
    sealed_journal: tuple[Path, Path], where: str, params: tuple[object, ...]
) -> None:
    """The station's queries bind the kind: SQLite plans with the bound value (a statement
    whose plan depends on it is prepared again when it is bound), so the index serves."""
    path, _ = sealed_journal
    conn = sqlite3.connect(path)
    try:
        query = f"SELECT id FROM journal WHERE {where} ORDER BY id DESC LIMIT 1"
        found = " / ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {query}", params))
        assert MILESTONE_NAME in found, found
        assert conn.execute(query, params).fetchone() is not None or "round_voided" in params
    finally:
        conn.close()


def test_the_starts_count_of_rows_reads_the_small_index(
    sealed_journal: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start counts every row (a gap in the ids): through ``journal_count``, never the
    table's pages (a year's table is gigabytes)."""
    path, _ = sealed_journal
    statements = traced_statements(monkeypatch)
    assert verify(path, since_checkpoint=True).ok
    monkeypatch.undo()
    counts = [s for s in statements if "count(*) FROM journal" in s]
    assert counts
    for statement in counts:
        assert "USING COVERING INDEX journal_count" in plan(path, statement), statement
