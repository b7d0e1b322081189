"""The start's checks called directly (``controller.journal.startcheck``; docs/journal.md,
"What a start proves" and "Rotation"), on small journals the station's own journal writes:
the commitment a reveal after the checkpoint opens (dealt before it, or carried by a rotated
journal's base), and the base's MAC the start checks before it trusts the rows after it.

The commitments are ``SHA-256("CARD|NONCE")`` (docs/protocol.md, "The hole card"), made by
``controller.table.holecard``; each test builds its own journal (a second or two).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from journal_tamper_support import behind_the_triggers, tamper

from controller.journal.archive import archive
from controller.journal.base import Base
from controller.journal.reader import open_readonly
from controller.journal.rotate import rotate_journal
from controller.journal.seal import load_state, new_sealing, save_state
from controller.journal.startcheck import CommitmentLookup, StartTrust, WalkStart, gap, walk_start
from controller.journal.storage import storage_of
from controller.journal.store import Journal
from controller.rules.cards import parse_card
from controller.table.holecard import commit_hole_card

TABLE = "T1"


@contextmanager
def reading(path: Path) -> Iterator[sqlite3.Connection]:
    conn = open_readonly(path)
    try:
        yield conn
    finally:
        conn.close()


@dataclass(frozen=True)
class Rotated:
    path: Path
    key_file: Path
    base: Base
    commitment: str
    nonce: str


def rotated(tmp_path: Path, storage_format: int) -> Rotated:
    """Round 1 voided with its hole card unrevealed (the shoe gives the card back later),
    then 29 short rounds, a checkpoint after each; archived in segments of at least 20 rows
    and rotated: the base carries round 1's commitment (``open``)."""
    state, _ = new_sealing(TABLE)
    key_file = tmp_path / "sealing-key"
    save_state(key_file, state)
    path = tmp_path / "journal.sqlite3"
    commitment, nonce = commit_hole_card(parse_card("5D"))
    with Journal.open(path, sealing=key_file, storage_format=storage_format) as journal:
        journal.checkpoint()
        journal.append("round_started", {"round": 1, "seats": []}, 1)
        journal.append("hole_card_dealt", {"commitment": commitment, "sealed_by": "shoe"}, 1)
        journal.append("round_voided", {"reason": "test"}, 1)
        for round_no in range(2, 31):
            journal.append("shuffle_commanded", {"decks": 6})
            journal.append("round_started", {"round": round_no, "seats": []}, round_no)
            journal.append("round_completed", {"reshuffle": False}, round_no)
            journal.checkpoint()
    folder = tmp_path / "archive"
    archive(path, folder, table=TABLE, segment_rows=20)
    done = rotate_journal(
        path, folder, wager_spots=(), floor_acked=None, sealing=load_state(key_file)
    )
    return Rotated(path, key_file, done.base, commitment, nonce)


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_hole_card_carried_by_the_base_is_the_commitment_a_later_reveal_opens(
    tmp_path: Path, storage_format: int
) -> None:
    """Round 1's round start and hole card lie in the archive: the lookup for round 1 gives
    the base's entry, row and commitment; once the card is revealed in the live file, a walk
    beginning after the reveal finds none open."""
    journal = rotated(tmp_path, storage_format)
    ((round_no, dealt_row, commitment),) = journal.base.open
    assert (round_no, commitment) == (1, journal.commitment)
    assert dealt_row < journal.base.row
    with reading(journal.path) as conn:
        last = CommitmentLookup(conn, 10**9)
        assert last(1) == (dealt_row, journal.commitment)
        assert last(2) is None  # a round the base carries nothing for
        assert last(None) is None
    with Journal.open(journal.path, sealing=journal.key_file) as writer:
        writer.append("hole_card_revealed", {"card": "5D", "nonce": journal.nonce}, 1)
        revealed = writer.last_id
    with reading(journal.path) as conn:
        assert CommitmentLookup(conn, revealed - 1)(1) == (dealt_row, journal.commitment)
        assert CommitmentLookup(conn, revealed)(1) is None


def test_a_hole_card_dealt_before_the_walk_is_looked_up_in_its_round_alone(
    tmp_path: Path,
) -> None:
    """Round 3's card dealt, round 4's dealt and revealed, round 3's given back after: the
    lookup for round 3 with the walk beginning after round 4 is round 3's row, not round 4's;
    a walk beginning before the deal finds none; a second deal in the round (a card replaced)
    is the one open."""
    path = tmp_path / "journal.sqlite3"
    card_3, nonce_3 = commit_hole_card(parse_card("KD"))
    card_4, nonce_4 = commit_hole_card(parse_card("9S"))
    again_3, _ = commit_hole_card(parse_card("QH"))
    with Journal.open(path) as journal:
        journal.append("round_started", {"round": 3, "seats": []}, 3)
        journal.append("hole_card_dealt", {"commitment": card_3, "sealed_by": "shoe"}, 3)
        dealt_3 = journal.last_id
        journal.append("round_voided", {"reason": "test"}, 3)
        journal.append("round_started", {"round": 4, "seats": []}, 4)
        journal.append("hole_card_dealt", {"commitment": card_4, "sealed_by": "shoe"}, 4)
        journal.append("hole_card_revealed", {"card": "9S", "nonce": nonce_4}, 4)
        journal.append("round_completed", {"reshuffle": False}, 4)
        after_4 = journal.last_id
        journal.append("hole_card_dealt", {"commitment": again_3, "sealed_by": "shoe"}, 3)
        dealt_again = journal.last_id
    with reading(path) as conn:
        assert CommitmentLookup(conn, after_4)(3) == (dealt_3, card_3)
        assert CommitmentLookup(conn, after_4)(4) is None  # revealed before the walk
        assert CommitmentLookup(conn, dealt_3 - 1)(3) is None
        assert CommitmentLookup(conn, dealt_3)(3) == (dealt_3, card_3)
        assert CommitmentLookup(conn, dealt_again)(3) == (dealt_again, again_3)
    del nonce_3


@pytest.mark.parametrize("storage_format", [1, 2])
def test_the_base_is_checked_under_the_start_keys_before_its_rows_are_trusted(
    tmp_path: Path, storage_format: int
) -> None:
    """A rotated journal's base sealed with the station's checkpoint key: taken with that
    key; refused under another key whether or not a sealed checkpoint is required, naming
    the row after the base; and taken as it stands by a station that does not seal."""
    journal = rotated(tmp_path, storage_format)
    state = load_state(journal.key_file)
    good = StartTrust.of(state)
    other = StartTrust(TABLE, new_sealing(TABLE)[0].checkpoint_key, False)
    with reading(journal.path) as conn:
        taken = walk_start(conn, good)
        assert isinstance(taken, WalkStart) and taken.after > journal.base.row
        assert isinstance(walk_start(conn, None), WalkStart)
        for trust in (other, StartTrust(TABLE, other.key, True)):
            assert walk_start(conn, trust) == (
                "checkpoint",
                "checkpoint: the base record's MAC does not match: rows cut from the front by"
                " someone without the key file, or a sealing key file that is not this"
                " journal's",
                journal.base.row + 1,
            )


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_base_without_its_mac_is_refused_only_where_a_sealed_checkpoint_is_required(
    tmp_path: Path, storage_format: int
) -> None:
    """The base's MAC taken off: a start whose key has not sealed since it took its
    checkpoint key up takes the base as it takes an unsealed checkpoint; one whose key has
    must not (someone without the key file could have cut the rows)."""
    journal = rotated(tmp_path, storage_format)
    unsealed = replace(journal.base, mac=None, key_epoch=None).to_text()
    behind_the_triggers(
        journal.path,
        lambda conn: conn.execute("UPDATE meta SET value = ? WHERE key = 'base'", (unsealed,)),
    )
    key = load_state(journal.key_file).checkpoint_key
    with reading(journal.path) as conn:
        assert isinstance(walk_start(conn, StartTrust(TABLE, key, False)), WalkStart)
        assert walk_start(conn, StartTrust(TABLE, key, True)) == (
            "checkpoint",
            "checkpoint: the base record is not sealed: rows cut from the front by someone"
            " without the key file, or a sealing key file that is not this journal's",
            journal.base.row + 1,
        )


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_row_the_base_says_is_archived_still_in_the_file_is_altered(
    tmp_path: Path, storage_format: int
) -> None:
    """docs/journal.md, "Rotation": the file holds the rows after its base alone. A row
    put back at the base's own row, or before it, is named; the rows after the base alone
    are no fault."""
    journal = rotated(tmp_path, storage_format)
    cut = journal.base.row
    with reading(journal.path) as conn:
        assert gap(conn) is None
    for put_back in (cut, cut - 5):
        tamper(
            journal.path,
            f"INSERT INTO journal SELECT {put_back}, ts, kind, round, data, prev_hash, hash"
            f" FROM journal WHERE id = {cut + 1}",
        )
        with reading(journal.path) as conn:
            assert gap(conn) == (
                "altered",
                f"altered: row {put_back}: in the file, but its base record says rows"
                f" 1..{cut} are archived",
                put_back,
            )


@pytest.mark.parametrize("storage_format", [1, 2])
def test_rows_cut_out_of_a_rotated_journal_are_counted_from_its_base(
    tmp_path: Path, storage_format: int
) -> None:
    """Two rows deleted after the base: the count says how many of the rows after the base
    are missing (not counting the archived ones)."""
    journal = rotated(tmp_path, storage_format)
    cut = journal.base.row
    tamper(journal.path, f"DELETE FROM journal WHERE id IN ({cut + 2}, {cut + 4})")
    with reading(journal.path) as conn:
        end = storage_of(conn).last_id()
        assert end is not None and end > cut + 4
        assert gap(conn) == (
            "removed",
            f"removed: 2 of rows {cut + 1}..{end} are missing (the ids skip);"
            " `journal verify` names the first",
            None,
        )
