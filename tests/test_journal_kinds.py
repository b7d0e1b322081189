"""The record kinds are declared once (``controller.journal.kinds``): docs/journal.md's
vocabulary table is made from the declaration, and so is the journal's index of kinds, which
a writer makes again on a journal whose index names other kinds (a kind added since)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.cli.diagram import BEGIN, DOCS, END, embed, generated
from controller.cli.main import main
from controller.journal import kinds as kinds_module
from controller.journal.kinds import (
    FREQUENT_KINDS,
    INDEXED_KINDS,
    KINDS,
    RecordKind,
    markdown_table,
)
from controller.journal.reader import JournalReader
from controller.journal.schema import MILESTONE_INDEX
from controller.journal.store import Journal
from controller.journal.verify import verify

ROOT = Path(__file__).resolve().parents[1]


def page_block(text: str) -> str:
    return text[text.index(BEGIN) + len(BEGIN) : text.index(END)]


def test_docs_journal_shows_the_declared_kinds() -> None:
    text = (ROOT / DOCS["journal"]).read_text(encoding="utf-8")
    assert page_block(text) == "\n" + generated("journal") == "\n" + markdown_table()
    assert "| `shoe_empty` | | the shoe reports it is empty |" in text


def test_a_kind_declared_but_not_on_the_page_is_a_difference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = (ROOT / DOCS["journal"]).read_text(encoding="utf-8")
    added = RecordKind("chip_tray", "total_cents", "the chip tray counted the dealer's tray")
    monkeypatch.setattr(kinds_module, "KINDS", (*KINDS, added))
    assert page_block(text) != "\n" + markdown_table()
    made = embed(text, markdown_table())
    assert "| `chip_tray` | `total_cents` | the chip tray counted" in made
    assert embed(made, markdown_table()) == made


def test_a_row_on_the_page_that_no_kind_declares_is_a_difference() -> None:
    text = (ROOT / DOCS["journal"]).read_text(encoding="utf-8")
    changed = text.replace("| `shoe_empty` | |", "| `shoe_gone` | | vanished |\n| `shoe_empty` | |")
    assert page_block(changed) != "\n" + generated("journal")


def test_update_docs_on_pages_without_their_blocks_says_so_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "docs").mkdir()
    for path in DOCS.values():
        (tmp_path / path).write_text("# A page\n\nno block here\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["diagram", "--update-docs"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dealer-station diagram: docs/")


_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200)


@given(_TEXT, _TEXT, _TEXT)
def test_the_vocabulary_replaces_the_block_and_keeps_the_rest(
    before: str, inside: str, after: str
) -> None:
    if BEGIN in before or END in before or END in inside:
        return  # a page with two blocks: the first is the generated one
    text = f"{before}{BEGIN}{inside}{END}{after}"
    made = embed(text, markdown_table())
    assert made == f"{before}{BEGIN}\n{markdown_table()}{END}{after}"
    assert embed(made, markdown_table()) == made


def test_each_kind_is_declared_once_and_either_frequent_or_indexed() -> None:
    names = [kind.name for kind in KINDS]
    assert len(names) == len(set(names))
    assert set(FREQUENT_KINDS) | set(INDEXED_KINDS) == set(names)
    assert not set(FREQUENT_KINDS) & set(INDEXED_KINDS)
    # A round's ordinary rows (docs/journal.md "Storage"): never in the index.
    assert {"card", "state", "prompt", "event", "button", "decision"} <= set(FREQUENT_KINDS)
    assert {"seal", "verified", "round_started", "round_completed"} <= set(INDEXED_KINDS)


def _index_sql(path: Path) -> str | None:
    conn = sqlite3.connect(path)
    try:
        row = conn.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'journal_milestone'"
        ).fetchone()
        return None if row is None else str(row[0])
    finally:
        conn.close()


def _cookie(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA schema_version").fetchone()[0])
    finally:
        conn.close()


def _rows(path: Path) -> list[tuple[int, str]]:
    with JournalReader.open(path) as reader:
        return [(row.id, row.hash) for row in reader.rows()]


def _journal(path: Path) -> None:
    with Journal.open(path) as journal:
        journal.append("station_started", {"table_id": "T1"})
        journal.append("shuffle_commanded", {"decks": 6})
        journal.append("round_started", {"round": 1, "seats": []}, 1)
        journal.append("card", {"card": "7S"}, 1)
        journal.append("round_completed", {"reshuffle": False}, 1)


def test_a_journal_indexed_for_fewer_kinds_gets_the_declared_index_at_open(
    tmp_path: Path,
) -> None:
    """A journal made before ``round_completed`` was declared: its index lacks the kind.
    The writer's open makes the index again; no row changes and the chain verifies."""
    path = tmp_path / "journal.sqlite3"
    _journal(path)
    older = MILESTONE_INDEX.replace(" OR kind = 'round_completed'", "")
    assert older != MILESTONE_INDEX
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP INDEX journal_milestone")
    conn.execute(older)
    conn.close()
    before = _rows(path)
    Journal.open(path).close()
    assert _index_sql(path) == MILESTONE_INDEX
    assert _rows(path) == before
    assert verify(path).ok
    conn = sqlite3.connect(path)
    try:
        query = "SELECT id FROM journal WHERE kind = 'round_completed' ORDER BY id DESC LIMIT 1"
        plan = " / ".join(r[3] for r in conn.execute(f"EXPLAIN QUERY PLAN {query}"))
    finally:
        conn.close()
    assert "journal_milestone" in plan


def test_a_journal_with_the_declared_index_is_opened_without_touching_its_schema(
    tmp_path: Path,
) -> None:
    """Making the index again moves SQLite's schema cookie, and a start whose checkpoint
    names another cookie walks every row: an open must not do it for nothing."""
    path = tmp_path / "journal.sqlite3"
    _journal(path)
    cookie = _cookie(path)
    for _ in range(3):
        Journal.open(path).close()
    assert _cookie(path) == cookie
    assert _index_sql(path) == MILESTONE_INDEX
