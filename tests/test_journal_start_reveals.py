"""A hole card dealt before a start's checkpoint and revealed after it (docs/journal.md,
"What a start proves"): a station stopped with a round open, whose shoe kept the hole card,
reveals it after the next start. The next start's walk begins at the checkpoint, so the
commitment it checks the reveal against lies before the walk: it is looked up, and must be
that round's card still unrevealed at the checkpoint.

The rows are written by the station's own start and journal (``open_journal``); the
commitment is ``SHA-256("CARD|NONCE")`` (docs/protocol.md, "The hole card"), worked here with
``controller.rules.commitment``, the one definition the shoe and the station share.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from journal_tamper_support import read_rows
from test_journal_start import refused

from controller.journal.seal import new_sealing, save_state
from controller.journal.verify import VerifyCase, verify
from controller.rules.commitment import hole_card_commitment
from controller.service.daemon import open_journal

TABLE = "T1"
NONCE_1 = "11" * 16
NONCE_2 = "22" * 16
Row = tuple[str, dict[str, object], int | None]


def dealt(card: str, nonce: str, round_no: int) -> Row:
    commitment = hole_card_commitment(card, nonce)
    return "hole_card_dealt", {"commitment": commitment, "sealed_by": "shoe"}, round_no


def revealed(card: str, nonce: str, round_no: int) -> Row:
    return "hole_card_revealed", {"card": card, "nonce": nonce}, round_no


def one_start(path: Path, key_file: Path, rows: list[Row]) -> None:
    """A start of the station (its check, checkpoint and seal) that journals ``rows``."""
    journal = open_journal(path, key_file)
    try:
        journal.append("station_started", {"table_id": TABLE})
        for kind, data, round_no in rows:
            journal.append(kind, data, round_no)
    finally:
        journal.close()


def row_id(path: Path, kind: str, nth: int = 0) -> int:
    return [row[0] for row in read_rows(path) if row[2] == kind][nth]


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    state, _ = new_sealing(TABLE)
    path = tmp_path / "sealing-key"
    save_state(path, state)
    return path


def open_round(round_no: int) -> list[Row]:
    return [("round_started", {"round": round_no, "seats": []}, round_no)]


def test_a_reveal_after_a_restart_opens_the_commitment_dealt_before_it(
    tmp_path: Path, key_file: Path
) -> None:
    """Round 2 is dealt, the station stops; after the next start the shoe reveals the card:
    the start after that checks the reveal against the commitment before its checkpoint."""
    path = tmp_path / "journal.sqlite3"
    one_start(path, key_file, [*open_round(1), dealt("9S", NONCE_2, 1), revealed("9S", NONCE_2, 1)])
    one_start(path, key_file, [*open_round(2), dealt("KD", NONCE_1, 2)])
    one_start(path, key_file, [revealed("KD", NONCE_1, 2), ("round_completed", {}, 2)])
    report = verify(path, since_checkpoint=True)
    assert report.case is VerifyCase.INTACT, report.message
    assert report.commitments_checked == 1, report.message
    one_start(path, key_file, [])  # and the station starts


@pytest.mark.parametrize(
    ("card", "nonce"), [("QD", NONCE_1), ("KD", NONCE_2)], ids=["other-card", "other-nonce"]
)
def test_a_reveal_after_a_restart_that_does_not_open_the_commitment_is_refused(
    tmp_path: Path, key_file: Path, card: str, nonce: str
) -> None:
    path = tmp_path / "journal.sqlite3"
    one_start(path, key_file, [*open_round(2), dealt("KD", NONCE_1, 2)])
    one_start(path, key_file, [revealed(card, nonce, 2)])
    reveal, commitment = row_id(path, "hole_card_revealed"), row_id(path, "hole_card_dealt")
    assert refused(path, key_file).endswith(
        f"commitment: row {reveal}: revealed hole card does not match the commitment in"
        f" row {commitment}"
    )


def test_a_hole_card_revealed_again_after_a_restart_is_refused(
    tmp_path: Path, key_file: Path
) -> None:
    """Round 2's card is revealed before the stop and again after the next start: the
    second reveal has no commitment left to open (a card is turned over once)."""
    path = tmp_path / "journal.sqlite3"
    one_start(path, key_file, [*open_round(2), dealt("KD", NONCE_1, 2), revealed("KD", NONCE_1, 2)])
    one_start(path, key_file, [revealed("KD", NONCE_1, 2)])
    second = row_id(path, "hole_card_revealed", 1)
    assert refused(path, key_file).endswith(
        f"commitment: row {second}: hole card revealed without a commitment"
    )


def test_a_reveal_after_a_restart_in_a_round_never_dealt_a_hole_card_is_refused(
    tmp_path: Path, key_file: Path
) -> None:
    """Round 3 never had a hole card; round 2's commitment (before the checkpoint) is no
    round 3's."""
    path = tmp_path / "journal.sqlite3"
    one_start(path, key_file, [*open_round(2), dealt("KD", NONCE_1, 2), *open_round(3)])
    one_start(path, key_file, [revealed("KD", NONCE_1, 3)])
    reveal = row_id(path, "hole_card_revealed")
    assert refused(path, key_file).endswith(
        f"commitment: row {reveal}: hole card revealed without a commitment"
    )


def test_the_commitment_looked_up_is_the_rounds_last_one_still_unrevealed(
    tmp_path: Path,
) -> None:
    """Round 2 was voided with its card in the shoe (commitment 1, never revealed) and its
    card given back; the round's next hole card (commitment 2) is what the later reveal
    opens. A reveal of the first card after the restart is refused, and one of the second
    is taken."""
    for card, nonce, good in (("KD", NONCE_1, False), ("9S", NONCE_2, True)):
        path = tmp_path / f"journal-{card}.sqlite3"
        state, _ = new_sealing(TABLE)
        key_file = tmp_path / f"sealing-key-{card}"
        save_state(key_file, state)
        one_start(
            path, key_file, [*open_round(2), dealt("KD", NONCE_1, 2), dealt("9S", NONCE_2, 2)]
        )
        one_start(path, key_file, [revealed(card, nonce, 2)])
        report = verify(path, since_checkpoint=True)
        assert report.ok is good, report.message
        if not good:
            assert report.message.endswith(
                f"does not match the commitment in row {row_id(path, 'hole_card_dealt', 1)}"
            ), report.message


def test_a_reveal_before_the_checkpoint_is_no_concern_of_the_walk_after_it(
    tmp_path: Path, key_file: Path
) -> None:
    """A reveal after the checkpoint of a round dealt in the walk itself is paired within
    the walk; one before the checkpoint was checked by an earlier start."""
    path = tmp_path / "journal.sqlite3"
    one_start(path, key_file, [*open_round(1), dealt("9S", NONCE_2, 1), revealed("9S", NONCE_2, 1)])
    one_start(path, key_file, [*open_round(2), dealt("KD", NONCE_1, 2), revealed("KD", NONCE_1, 2)])
    report = verify(path, since_checkpoint=True)
    assert report.case is VerifyCase.INTACT and report.commitments_checked == 1, report.message


def test_a_hole_card_revealed_twice_in_one_walk_is_reported(tmp_path: Path, key_file: Path) -> None:
    """Both reveals after the same checkpoint, and in a whole walk: the second has no
    commitment left to open, whether or not its card is the first's."""
    path = tmp_path / "journal.sqlite3"
    one_start(
        path,
        key_file,
        [
            *open_round(2),
            dealt("KD", NONCE_1, 2),
            revealed("KD", NONCE_1, 2),
            revealed("KD", NONCE_1, 2),
        ],
    )
    second = row_id(path, "hole_card_revealed", 1)
    expected = f"commitment: row {second}: hole card revealed without a commitment"
    for report in (verify(path), verify(path, since_checkpoint=True)):
        assert report.case is VerifyCase.COMMITMENT and report.message == expected, report
    assert refused(path, key_file).endswith(expected)


def test_a_hole_card_dealt_before_the_checkpoint_and_revealed_twice_after_it_is_reported(
    tmp_path: Path, key_file: Path
) -> None:
    """The commitment before the checkpoint is looked up once: the first reveal opens it,
    the second has none left."""
    path = tmp_path / "journal.sqlite3"
    one_start(path, key_file, [*open_round(2), dealt("KD", NONCE_1, 2)])
    one_start(path, key_file, [revealed("KD", NONCE_1, 2), revealed("KD", NONCE_1, 2)])
    second = row_id(path, "hole_card_revealed", 1)
    assert refused(path, key_file).endswith(
        f"commitment: row {second}: hole card revealed without a commitment"
    )


def test_a_tail_walk_begins_at_the_first_row_of_the_round_it_falls_in(tmp_path: Path) -> None:
    """``journal verify --tail N`` walks about the last N rows, moved back to the start of
    the round the first of them belongs to, so that each reveal meets its commitment: for
    every N, the walk begins where the rounds say (worked from the rows' round column)."""
    from controller.journal.store import Journal

    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("station_started", {"table_id": TABLE})
        for round_no, (card, nonce) in enumerate((("KD", NONCE_1), ("9S", NONCE_2)), start=1):
            for kind, data, r in [
                *open_round(round_no),
                dealt(card, nonce, round_no),
                ("card", {"role": "up", "card": "5C"}, round_no),
                revealed(card, nonce, round_no),
                ("round_completed", {"reshuffle": False}, round_no),
            ]:
                journal.append(kind, data, r)
        journal.append("station_stopped", {})
    rounds = {row[0]: row[3] for row in read_rows(path)}
    last = max(rounds)
    for tail in range(1, last + 2):
        start = max(0, last - tail)
        first_round = rounds.get(start + 1)
        if start > 0 and first_round is not None:
            start = min(start, min(i for i, r in rounds.items() if r == first_round) - 1)
        report = verify(path, tail=tail)
        walked = f"intact: {last} rows" if start == 0 else f"intact: rows {start + 1}..{last}"
        assert report.case is VerifyCase.INTACT and report.message.startswith(walked + ","), (
            tail,
            report.message,
        )
        reveals = sum(1 for i in range(start + 1, last + 1) if i in (5, 10))
        assert report.commitments_checked == reveals, (tail, report.message)


def test_a_round_dealt_again_after_a_reveal_is_checked_against_its_later_commitment(
    tmp_path: Path, key_file: Path
) -> None:
    """Round 2's first hole card was dealt and turned; the round was dealt a hole card again
    (a round played over after a fault) before the stop: the reveal after the restart opens
    the later commitment."""
    path = tmp_path / "journal.sqlite3"
    one_start(
        path,
        key_file,
        [
            *open_round(2),
            dealt("9S", NONCE_2, 2),
            revealed("9S", NONCE_2, 2),
            dealt("KD", NONCE_1, 2),
        ],
    )
    one_start(path, key_file, [revealed("KD", NONCE_1, 2)])
    report = verify(path, since_checkpoint=True)
    assert report.case is VerifyCase.INTACT and report.commitments_checked == 1, report.message
