"""The record kinds are declared once (``controller.journal.kinds``): docs/journal.md's
vocabulary table is made from the declaration, and so are the journal's indexes: a journal
made with other indexes (an earlier list of kinds, an earlier program) gets the declared
ones at the writer's next open, and an open that finds them leaves the schema alone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from journal_tamper_support import BOTH_FORMATS, schema_cookie
from test_journal_compat import indexes

from controller.cli.diagram import BEGIN, DOCS, END, embed, generated
from controller.cli.main import main
from controller.journal import kinds as kinds_module
from controller.journal.kinds import (
    FREQUENT_KINDS,
    INDEXED_KINDS,
    INDEXES,
    KINDS,
    MILESTONE_NAME,
    RecordKind,
    markdown_table,
    stale_indexes,
)
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


def test_the_milestone_index_covers_exactly_the_indexed_kinds() -> None:
    sql = INDEXES[MILESTONE_NAME]
    for kind in INDEXED_KINDS:
        assert f"kind = '{kind}'" in sql
    for kind in FREQUENT_KINDS:
        assert f"kind = '{kind}'" not in sql


# Format 1's indexes on its ``journal`` table (format 2's milestone kinds declared later:
# test_journal_schema.py, test_a_milestone_kind_declared_later_is_indexed_at_the_...).
@pytest.mark.journal_format(1)
@pytest.mark.parametrize(
    "old",
    [
        "CREATE INDEX journal_kind ON journal (kind)",
        "CREATE INDEX journal_ts ON journal (ts)",
        "CREATE INDEX journal_round ON journal (round)",
        "CREATE INDEX journal_milestone ON journal (kind) WHERE kind = 'seal'",
        "CREATE INDEX journal_milestone_00000000 ON journal (kind) WHERE kind = 'seal'",
    ],
)
def test_an_index_of_another_declaration_is_replaced_at_the_next_open(
    tmp_path: Path, old: str
) -> None:
    """A journal whose indexes an earlier program or an earlier list of kinds made: the
    writer's open drops what is not declared and makes what is; no row changes."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("round_started", {"round": 1, "seats": []}, 1)
    conn = sqlite3.connect(path)
    conn.execute(old)
    conn.execute(f"DROP INDEX {MILESTONE_NAME}")
    conn.commit()
    conn.close()
    assert MILESTONE_NAME not in indexes(path)
    assert stale_indexes(sorted(indexes(path))) == [old.split()[2]]
    with Journal.open(path) as journal:
        journal.append("round_completed", {"reshuffle": False}, 1)
    assert indexes(path) == set(INDEXES)
    assert verify(path).ok


def test_sqlites_own_indexes_are_never_stale() -> None:
    assert stale_indexes(["sqlite_autoindex_meta_1", MILESTONE_NAME]) == []


#: The indexes of a format-2 file (docs/journal.md, "Storage format 2").
FORMAT_2_INDEXES = {
    "journal_commit_count",
    "journal_milestone_kind",
    "journal_milestone_round",
    "journal_spot_seat",
}


@pytest.mark.parametrize("storage_format", BOTH_FORMATS)
def test_a_journal_with_the_declared_indexes_is_opened_without_touching_its_schema(
    tmp_path: Path, storage_format: int
) -> None:
    """Making an index moves SQLite's schema cookie, and a start whose checkpoint names
    another cookie walks every row: an open must not do it for nothing."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("round_started", {"round": 1, "seats": []}, 1)
    cookie = schema_cookie(path)
    for _ in range(3):
        Journal.open(path).close()
    assert schema_cookie(path) == cookie
    assert indexes(path) == (set(INDEXES) if storage_format == 1 else FORMAT_2_INDEXES)
