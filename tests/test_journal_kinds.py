"""The journal's kinds and indexes come from one declaration (``controller.journal.kinds``):
the record vocabulary table of docs/journal.md is the declaration's, both ways, and a
journal made with other indexes gets the declared ones at the writer's next open."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_journal_compat import indexes

from controller.journal.format import KIND_PATTERN
from controller.journal.kinds import (
    BY_NAME,
    FREQUENT_KINDS,
    INDEXED_KINDS,
    INDEXES,
    KINDS,
    MILESTONE_NAME,
    KindSpec,
    stale_indexes,
    vocabulary_table,
)
from controller.journal.store import Journal
from controller.journal.verify import verify

DOC = Path(__file__).resolve().parents[1] / "docs" / "journal.md"


def doc_table() -> str:
    """The table under "## Record vocabulary" in docs/journal.md, as written."""
    section = DOC.read_text().split("## Record vocabulary", 1)[1]
    start = section.index("| kind |")
    return section[start : section.index("\n\n", start) + 1]


def test_the_documented_vocabulary_is_the_declared_one() -> None:
    """Line for line: a kind declared and not documented, documented and not declared, or
    with other fields or another text in either place fails (regenerate the table with
    ``python -m controller.journal.kinds``)."""
    assert doc_table() == vocabulary_table()


def test_a_kind_added_to_either_side_alone_is_seen() -> None:
    table = doc_table()
    extra = KindSpec("chip_tray", "seat, cents", "the chip tray reports its total")
    assert table + f"| `{extra.name}` | `{extra.fields}` | {extra.when} |\n" != vocabulary_table()
    assert table.replace("| `peek` |", "| `peeked` |") != vocabulary_table()


def test_each_kind_is_declared_once_with_a_good_name_and_one_index_class() -> None:
    names = [spec.name for spec in KINDS]
    assert len(names) == len(set(names)) == len(BY_NAME)
    assert all(KIND_PATTERN.fullmatch(name) for name in names)
    assert set(INDEXED_KINDS).isdisjoint(FREQUENT_KINDS)
    assert set(INDEXED_KINDS) | set(FREQUENT_KINDS) == set(names)


def test_fields_are_read_as_the_document_writes_them() -> None:
    spec = BY_NAME["device"]
    assert spec.required == {"device", "status"}
    assert spec.optional == {"serial", "firmware", "reason", "count"}
    assert spec.open_ended
    assert not BY_NAME["card"].open_ended
    assert BY_NAME["shoe_loaded"].required == frozenset()


def test_the_milestone_index_covers_exactly_the_indexed_kinds() -> None:
    sql = INDEXES[MILESTONE_NAME]
    for kind in INDEXED_KINDS:
        assert f"kind = '{kind}'" in sql
    for kind in FREQUENT_KINDS:
        assert f"kind = '{kind}'" not in sql


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
