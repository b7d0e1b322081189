"""Anchors (``controller.journal.anchor``, docs/journal.md "Anchors"): the text form, the
anchor a journal gives, and what ``check_anchor`` says of a journal, on small sealed
journals written by the station's own journal (milliseconds each): every part of an anchor
that differs from the seal it names makes the journal ``forked``, and a journal that ends
before it ``behind``.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from journal_tamper_support import change_rows, raw_rows
from test_journal_seal import rotated

from controller.journal.anchor import Anchor, check_anchor, latest_anchor
from controller.journal.format import JournalCorruptError
from controller.journal.reader import JournalReader
from controller.journal.seal import new_sealing, save_state
from controller.journal.store import Journal

TABLE = "T1"
HASH = "0123456789abcdef" * 4


def write_round(journal: Journal, round_no: int) -> None:
    journal.append("round_started", {"round": round_no, "seats": []}, round_no)
    journal.append("card", {"seat": 1, "hand": 1, "role": "initial", "card": "7S"}, round_no)
    journal.append("round_completed", {"reshuffle": False}, round_no)  # sealed after


def sealed_journal(tmp_path: Path, rounds: int) -> Path:
    """``rounds`` rounds of 3 rows, each followed by its seal: seals at rows 4, 8, ...,
    epochs 0, 1, ..."""
    state, _ = new_sealing(TABLE)
    state_path = tmp_path / "sealing-key"
    save_state(state_path, state)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=state_path) as journal:
        for round_no in range(1, rounds + 1):
            write_round(journal, round_no)
    return path


def hash_of(path: Path, row_id: int) -> str:
    (digest,) = [row[6] for row in raw_rows(path) if row[0] == row_id]
    return str(digest)


def checked(path: Path, anchor: Anchor, last_id: int) -> tuple[str, str, int] | None:
    conn = sqlite3.connect(path)
    try:
        return check_anchor(conn, anchor, last_id)
    finally:
        conn.close()


def test_the_text_form_is_table_row_epoch_hash_joined_by_colons() -> None:
    assert str(Anchor("T7", 25, 4, HASH)) == f"T7:25:4:{HASH}"
    assert Anchor.parse(f"T7:25:4:{HASH}") == Anchor("T7", 25, 4, HASH)


def test_an_anchor_pasted_with_spaces_and_newlines_round_is_read() -> None:
    assert Anchor.parse(f"  T1:0:0:{HASH}\r\n") == Anchor(TABLE, 0, 0, HASH)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"T1:25:{HASH}", "not an anchor (expected TABLE:ROW:EPOCH:HASH)"),
        (f"T1:25:4:5:{HASH}", "not an anchor (expected TABLE:ROW:EPOCH:HASH)"),
        (f"T1:-1:4:{HASH}", "anchor: row and epoch must be numbers"),
        (f"T1:25:-4:{HASH}", "anchor: row and epoch must be numbers"),
        (f"T1:25:4x:{HASH}", "anchor: row and epoch must be numbers"),
        (f"T1:1{'0' * 18}:4:{HASH}", "anchor: row and epoch must be numbers"),
        (f"T1:25:1{'0' * 18}:{HASH}", "anchor: row and epoch must be numbers"),
        (f"T1:25:4:{HASH}0", "anchor: the hash must be 64 hex digits"),
        (f"T1:25:4:{HASH[:-1]}", "anchor: the hash must be 64 hex digits"),
        (f"T1:25:4:{HASH[:-1]}g", "anchor: the hash must be 64 hex digits"),
        (f"T1:25:4:{HASH[:-1]}X", "anchor: the hash must be 64 hex digits"),
        (f"T1:25:4:{HASH[:-1]}A", "anchor: the hash must be 64 hex digits"),  # lower case only
    ],
)
def test_a_malformed_anchor_is_refused_saying_what_is_wrong(text: str, message: str) -> None:
    """Both sides of each limit: 18 digits are read (below), 19 are not; 64 hex digits in
    lower case, not 63 or 65."""
    with pytest.raises(ValueError) as caught:
        Anchor.parse(text)
    assert str(caught.value) == f"{message}: {text!r}"


def test_the_longest_numbers_an_anchor_takes_are_18_digits() -> None:
    big = int("9" * 18)
    assert Anchor.parse(f"T1:{big}:{big}:{HASH}") == Anchor(TABLE, big, big, HASH)


def test_a_journal_without_a_seal_has_no_anchor(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        write_round(journal, 1)
    with JournalReader.open(path) as reader:
        assert reader.query(latest_anchor) is None


def test_the_anchor_is_the_last_seal_its_row_epoch_and_hash(tmp_path: Path) -> None:
    path = sealed_journal(tmp_path, 3)
    with JournalReader.open(path) as reader:
        anchor = reader.query(latest_anchor)
    assert anchor == Anchor(TABLE, 12, 2, hash_of(path, 12))


def test_a_last_seal_with_malformed_fields_gives_no_anchor_but_one_line(tmp_path: Path) -> None:
    path = sealed_journal(tmp_path, 2)
    change_rows(
        path, lambda rows: [(*r[:4], '{"epoch":1}', *r[5:]) if r[0] == 8 else r for r in rows]
    )
    with JournalReader.open(path) as reader, pytest.raises(JournalCorruptError) as caught:
        reader.query(latest_anchor)
    assert str(caught.value) == "row 8: seal fields are not epoch, head, mac, row, table"


def test_a_journal_holding_the_anchors_seal_matches_at_its_last_row(tmp_path: Path) -> None:
    path = sealed_journal(tmp_path, 3)
    assert checked(path, Anchor(TABLE, 12, 2, hash_of(path, 12)), 12) is None
    assert checked(path, Anchor(TABLE, 8, 1, hash_of(path, 8)), 12) is None


def test_a_journal_ending_before_the_anchors_seal_is_behind(tmp_path: Path) -> None:
    """A journal of 12 rows against an anchor at row 13: behind, from row 13 (the first row
    it no longer holds); at row 12 it is not behind (above)."""
    path = sealed_journal(tmp_path, 3)
    anchor = Anchor(TABLE, 13, 3, HASH)
    assert checked(path, anchor, 12) == (
        "behind",
        "behind: the journal ends at row 12, before the anchor's seal at row 13 (epoch 3):"
        " rows removed or an older copy",
        13,
    )


def forked(row: int, epoch: int, table: str = TABLE) -> tuple[str, str, int]:
    return (
        "forked",
        f"forked: row {row} is not the anchor's seal (table {table}, epoch {epoch}):"
        " the journal was rewritten or replaced",
        row,
    )


def test_an_anchor_differing_from_the_seal_in_any_part_is_forked(tmp_path: Path) -> None:
    path = sealed_journal(tmp_path, 3)
    good = Anchor(TABLE, 8, 1, hash_of(path, 8))
    assert checked(path, replace(good, table="T2"), 12) == forked(8, 1, "T2")
    assert checked(path, replace(good, epoch=2), 12) == forked(8, 2)
    assert checked(path, replace(good, hash=HASH), 12) == forked(8, 1)


def test_an_anchor_at_a_row_that_is_no_seal_or_no_row_is_forked(tmp_path: Path) -> None:
    path = sealed_journal(tmp_path, 3)
    assert checked(path, Anchor(TABLE, 7, 1, hash_of(path, 7)), 12) == forked(7, 1)
    assert checked(path, Anchor(TABLE, 0, 0, HASH), 12) == forked(0, 0)


def test_an_anchor_at_a_seal_whose_fields_are_malformed_is_forked(tmp_path: Path) -> None:
    path = sealed_journal(tmp_path, 3)
    digest = hash_of(path, 8)
    change_rows(
        path, lambda rows: [(*r[:4], '{"epoch":1}', *r[5:]) if r[0] == 8 else r for r in rows]
    )
    assert checked(path, Anchor(TABLE, 8, 1, digest), 12) == forked(8, 1)


def test_an_anchor_at_a_rotated_journals_base_matches_by_the_bases_hash_alone(
    tmp_path: Path,
) -> None:
    """docs/journal.md, "Rotation": the base's row is archived and the base carries its
    hash: an anchor at the base with that hash matches; with another hash it is forked."""
    path, _, base = rotated(tmp_path)
    with JournalReader.open(path) as reader:
        last = reader.last()
    assert last is not None and last.id > base.row
    at_base = Anchor(TABLE, base.row, base.epoch - 1, base.hash)
    assert checked(path, at_base, last.id) is None
    assert checked(path, replace(at_base, hash=HASH), last.id) == forked(base.row, base.epoch - 1)
