"""The record kinds are declared once (``controller.journal.kinds``): docs/journal.md's
vocabulary table is made from the declaration, and so is the journal's index of kinds, which
a writer makes again on a journal whose index names other kinds (a kind added since)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.journal import kinds as kinds_module
from controller.journal.kinds import FREQUENT_KINDS, INDEXED_KINDS, KINDS, RecordKind
from controller.journal.reader import JournalReader
from controller.journal.schema import MILESTONE_INDEX
from controller.journal.store import Journal
from controller.journal.verify import verify
from controller.journal.vocabulary import DOC, main, markdown_table, render


def test_docs_journal_shows_the_declared_kinds() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert render(text) == text, "python -m controller.journal.vocabulary --write"
    assert main([str(DOC)]) == 0


def test_a_kind_declared_but_not_on_the_page_is_a_difference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "journal.md"
    page.write_text(DOC.read_text(encoding="utf-8"), encoding="utf-8")
    added = RecordKind("chip_tray", "total_cents", "the chip tray counted the dealer's tray")
    monkeypatch.setattr("controller.journal.vocabulary.KINDS", (*KINDS, added))
    assert main([str(page)]) == 1
    assert "+| `chip_tray` | `total_cents` | the chip tray counted" in capsys.readouterr().out
    assert main([str(page), "--write"]) == 0
    assert main([str(page)]) == 0
    assert "| `chip_tray` | `total_cents` |" in page.read_text(encoding="utf-8")


def test_a_row_on_the_page_that_no_kind_declares_is_a_difference(tmp_path: Path) -> None:
    page = tmp_path / "journal.md"
    text = DOC.read_text(encoding="utf-8")
    page.write_text(
        text.replace("| `shoe_empty` | |", "| `shoe_gone` | | vanished |\n| `shoe_empty` | |"),
        encoding="utf-8",
    )
    assert main([str(page)]) == 1


def test_a_page_without_the_table_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "journal.md"
    page.write_text("# A journal\n\nno table here\n", encoding="utf-8")
    assert main([str(page)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "<!-- kinds: begin -->" in err


@given(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200),
)
def test_render_replaces_the_block_and_keeps_the_rest(before: str, inside: str, after: str) -> None:
    marker = "<!-- kinds: begin -->"
    text = f"{before}\n{marker}\n{inside}\n<!-- kinds: end -->{after}"
    if before.count(marker) or inside.count("<!-- kinds: end -->"):
        return  # a page with two blocks: the first is the table
    made = render(text)
    assert made == f"{before}\n{marker}\n{markdown_table()}\n<!-- kinds: end -->{after}"
    assert render(made) == made


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_any_page_is_rendered_or_refused_with_a_value_error(text: str) -> None:
    try:
        made = render(text)
    except ValueError as err:
        assert "kinds: begin" in str(err)
    else:
        assert markdown_table() in made


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


def test_the_module_says_where_the_page_is() -> None:
    assert kinds_module.__doc__ is not None and "docs/journal.md" in kinds_module.__doc__
