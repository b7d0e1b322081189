"""Checkpoints while the station runs: a sealed ``verified`` row once CHECKPOINT_ROWS rows
followed the last one, at a round's end (before its seal) or with an idle seal, so that a
start hashes a bounded tail however long the station ran (docs/journal.md, "What a start
proves")."""

from __future__ import annotations

from pathlib import Path

import pytest
from journal_tamper_support import read_rows

from controller.journal.checkpoint import CHECKPOINT_KIND, CHECKPOINT_ROWS
from controller.journal.seal import load_state, new_sealing, save_state
from controller.journal.startcheck import StartTrust
from controller.journal.store import Journal
from controller.journal.verify import VerifyCase, verify

ROUND_ROWS = 48  # a round's rows before its end: cards, prompts, buttons...


def kinds(path: Path) -> list[tuple[int, str]]:
    return [(row[0], row[2]) for row in read_rows(path)]


def play(journal: Journal, first: int, rounds: int) -> None:
    for round_no in range(first, first + rounds):
        with journal.batch():
            journal.append("round_started", {"round": round_no, "seats": []}, round_no)
            for n in range(ROUND_ROWS):
                journal.append("card", {"card": "7S", "n": n}, round_no)
            journal.append("round_completed", {"reshuffle": False}, round_no)


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "sealing-key"
    state, key = new_sealing("T1")
    save_state(path, state)
    (tmp_path / "verification-key").write_text(key.to_text())
    return path


def test_a_running_station_checkpoints_every_few_thousand_rows(
    tmp_path: Path, key_file: Path
) -> None:
    path = tmp_path / "journal.sqlite3"
    rounds = 4 * CHECKPOINT_ROWS // (ROUND_ROWS + 3)  # 3 checkpoints and most of a 4th span
    with Journal.open(path, sealing=key_file) as journal:
        play(journal, 1, rounds)
    rows = kinds(path)
    checkpoints = [row_id for row_id, kind in rows if kind == CHECKPOINT_KIND]
    assert len(checkpoints) == 3
    previous = 0
    for row_id in checkpoints:
        # Never sooner than CHECKPOINT_ROWS rows, never later than a round after that.
        assert CHECKPOINT_ROWS <= row_id - previous <= CHECKPOINT_ROWS + ROUND_ROWS + 4
        # At a round's end, before its seal: the seal covers the checkpoint at once.
        assert [kind for _, kind in rows[row_id - 2 : row_id + 1]] == [
            "round_completed",
            CHECKPOINT_KIND,
            "seal",
        ]
        previous = row_id
    assert len(rows) - checkpoints[-1] < CHECKPOINT_ROWS


def test_a_start_after_a_long_run_hashes_only_the_rows_since_the_last_checkpoint(
    tmp_path: Path, key_file: Path
) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=key_file) as journal:
        play(journal, 1, 2 * CHECKPOINT_ROWS // ROUND_ROWS)
        last = journal.last_id
    checkpoint = max(i for i, kind in kinds(path) if kind == CHECKPOINT_KIND)
    report = verify(path, since_checkpoint=True, trust=StartTrust.of(load_state(key_file)))
    assert report.case is VerifyCase.INTACT, report.message
    assert f"rows {checkpoint}..{last}" in report.message
    assert report.rows == last - checkpoint + 1 <= CHECKPOINT_ROWS
    from controller.journal.seal import VerificationKey

    key = VerificationKey.from_text((tmp_path / "verification-key").read_text())
    full = verify(path, key=key)
    assert full.case is VerifyCase.INTACT, full.message
    assert "2 sealed checkpoints good" in full.message


def test_rows_between_rounds_are_checkpointed_by_the_idle_seal(
    tmp_path: Path, key_file: Path
) -> None:
    """A table that ends no round (a long fault) still gets its checkpoint: with the seal
    due after rows waited unsealed."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=key_file) as journal:
        with journal.batch():
            for n in range(CHECKPOINT_ROWS):
                journal.append("button", {"button": "next", "n": n})
        assert journal.seal_if_due(now=10**9)
    rows = kinds(path)
    assert [kind for _, kind in rows[-2:]] == [CHECKPOINT_KIND, "seal"]
    assert rows[-2][0] == CHECKPOINT_ROWS + 1


def test_fewer_rows_make_no_checkpoint(tmp_path: Path, key_file: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=key_file) as journal:
        with journal.batch():
            for n in range(CHECKPOINT_ROWS - 2):
                journal.append("button", {"button": "next", "n": n})
        journal.append("round_completed", {"reshuffle": False}, 1)
        assert journal.last_id == CHECKPOINT_ROWS  # the round's end and its seal
    assert CHECKPOINT_KIND not in {kind for _, kind in kinds(path)}


def test_a_checkpoint_in_a_batch_that_rolls_back_is_written_again(
    tmp_path: Path, key_file: Path
) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        with journal.batch():
            for n in range(CHECKPOINT_ROWS):
                journal.append("button", {"button": "next", "n": n})
        with pytest.raises(RuntimeError), journal.batch():
            journal.append("round_completed", {"reshuffle": False}, 1)
            raise RuntimeError("the event's handling failed")
        journal.append("round_completed", {"reshuffle": False}, 1)
    assert [kind for _, kind in kinds(path)[-2:]] == ["round_completed", CHECKPOINT_KIND]
    assert verify(path).ok


def test_the_writer_counts_from_the_last_checkpoint_it_finds_at_open(
    tmp_path: Path, key_file: Path
) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=key_file) as journal:
        journal.checkpoint()
        with journal.batch():
            for n in range(CHECKPOINT_ROWS - 10):
                journal.append("button", {"button": "next", "n": n})
    with Journal.open(path, sealing=key_file) as journal:
        journal.append("round_completed", {"reshuffle": False}, 1)
        assert CHECKPOINT_KIND not in {kind for _, kind in kinds(path)[2:]}
        with journal.batch():
            for n in range(10):
                journal.append("button", {"button": "next", "n": n})
        journal.append("round_completed", {"reshuffle": False}, 2)
    assert [kind for _, kind in kinds(path)[-3:]] == ["round_completed", CHECKPOINT_KIND, "seal"]
