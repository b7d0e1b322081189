"""Writing archive segments (``controller/journal/archive/writer.py``, docs/journal.md
"Archive"): a segment is whole or absent after a power cut at any moment of its writing,
so its file is synced whole under a temporary name before the rename, and the folder after
it. One small sealed journal, archived in segments of at least 20 rows."""

from __future__ import annotations

import dataclasses
import zlib
from pathlib import Path

import pytest
from fsync_support import spy

from controller.journal.archive import (
    ArchiveError,
    archive,
    lines,
    read_header,
    segments,
    verify_archive,
)
from controller.journal.seal import new_sealing, save_state
from controller.journal.store import Journal
from controller.rules.cards import parse_card
from controller.table.holecard import commit_hole_card

TABLE = "T1"


def play(journal: Journal, rounds: int, first: int = 1) -> None:
    """Rounds of four rows, each followed by its seal (docs/journal.md, "seal")."""
    for round_no in range(first, first + rounds):
        journal.append("round_started", {"round": round_no, "seats": []}, round_no)
        journal.append("card", {"card": "7S", "hand": 1, "role": "hit", "seat": 1}, round_no)
        journal.append("state", {"state": "settling"}, round_no)
        journal.append("round_completed", {"reshuffle": False}, round_no)


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    state, _key = new_sealing(TABLE)
    save_state(tmp_path / "sealing-key", state)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        play(journal, 10)  # rows 1..50: segments 1-20 and 21-40, rows 41..50 wait
    return path


def test_each_segment_is_synced_whole_before_its_rename_and_the_folder_after(
    journal_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "archive"
    folder.mkdir()
    events = spy(monkeypatch)
    written = archive(journal_path, folder, table=TABLE, segment_rows=20)
    assert len(written) >= 2
    for path in written:
        content = path.read_bytes()
        renamed = events.index(("replace", str(path), b""))
        synced = [i for i, e in enumerate(events) if e[0] == "fsync" and e[2] == content]
        folder_synced = [i for i, e in enumerate(events) if e[:2] == ("fsync", str(folder))]
        assert synced and synced[0] < renamed, events
        assert folder_synced and folder_synced[-1] > renamed, events
        # the synced file was the temporary, not the segment's own name
        assert all(Path(events[i][1]).name.startswith(f".{path.name}.") for i in synced)
    assert sorted(p.name for p in folder.iterdir()) == [p.name for p in segments(folder)]
    assert read_header(written[0]).first == 1


def test_a_segment_ends_at_the_first_round_end_seal_once_it_holds_enough_rows(
    journal_path: Path, tmp_path: Path
) -> None:
    """At least ``segment_rows`` rows, cut at the seal that follows a round's end: with 20,
    row 20 (a seal after round 4's end) closes the first; with 21 the next such seal, 25."""

    def cuts(rows: int) -> list[tuple[int, int]]:
        folder = tmp_path / f"archive-{rows}"
        written = archive(journal_path, folder, table=TABLE, segment_rows=rows)
        return [(read_header(p).first, read_header(p).last) for p in written]

    assert cuts(20) == [(1, 20), (21, 40)]
    assert cuts(21) == [(1, 25), (26, 50)]
    assert cuts(1) == [(n, n + 4) for n in range(1, 50, 5)]


def test_an_idle_seal_ends_no_segment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An idle seal (between rounds, docs/journal.md "seal") follows no round's end: the
    segment goes on to the seal after the next round's end."""
    state, _key = new_sealing(TABLE)
    save_state(tmp_path / "sealing-key", state)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        play(journal, 1)  # rows 1..5
        journal.append("shuffle_commanded", {"decks": 6})  # row 6
        assert journal.seal_if_due(now=10.0**9)  # row 7, the idle seal
        play(journal, 1)  # rows 8..12, the round's seal 12
    written = archive(path, tmp_path / "archive", table=TABLE, segment_rows=6)
    assert [(read_header(p).first, read_header(p).last) for p in written] == [(1, 12)]


def test_archiving_into_a_folder_whose_parents_are_missing_makes_them(
    journal_path: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "usb" / "archive" / "T1"
    written = archive(journal_path, folder, table=TABLE, segment_rows=20)
    assert [p.parent for p in written] == [folder, folder]


def test_a_temporary_left_by_a_run_killed_before_its_rename_is_removed(
    journal_path: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "archive"
    folder.mkdir()
    (folder / ".000000000001-000000000020.dsa.4242.tmp").write_bytes(b"half a segment")
    archive(journal_path, folder, table=TABLE, segment_rows=20)
    assert sorted(p.name for p in folder.iterdir()) == [
        "000000000001-000000000020.dsa",
        "000000000021-000000000040.dsa",
    ]


def test_a_segment_whose_write_fails_leaves_neither_it_nor_its_temporary(
    journal_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A disk that fails the segment's sync: the error reaches the caller and the folder
    holds what it held (a segment is whole or absent)."""
    folder = tmp_path / "archive"
    folder.mkdir()

    def failing_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr("os.fsync", failing_fsync)
    with pytest.raises(OSError, match="Input/output error"):
        archive(journal_path, folder, table=TABLE, segment_rows=20)
    assert list(folder.iterdir()) == []


def hole_card_rounds(
    journal: Journal, rounds: range, late: dict[int, str], voided: set[int]
) -> None:
    """Rounds with a withheld hole card (docs/journal.md: ``hole_card_dealt`` commits to
    it, ``hole_card_revealed`` opens it); a voided round's card stays with the shoe and is
    revealed in the next round. ``late``: round -> nonce of the cards still unrevealed."""
    for round_no in rounds:
        journal.append("round_started", {"round": round_no, "seats": []}, round_no)
        commitment, nonce = commit_hole_card(parse_card("5D"))
        journal.append("hole_card_dealt", {"commitment": commitment}, round_no)
        for earlier, earlier_nonce in sorted(late.items()):
            journal.append("hole_card_revealed", {"card": "5D", "nonce": earlier_nonce}, earlier)
        late.clear()
        if round_no in voided:
            # The void asks the shoe for the card, which does not come: it stays out.
            asked = {"commitment": commitment, "reason": "void"}
            journal.append("hole_card_reveal_requested", asked, round_no)
            answer = {"commitment": commitment, "answered": False, "problem": "timeout"}
            journal.append("hole_card_reveal_answer", answer, round_no)
            journal.append("round_voided", {"reason": "test"}, round_no)
            late[round_no] = nonce
            continue
        journal.append("hole_card_revealed", {"card": "5D", "nonce": nonce}, round_no)
        journal.append("round_completed", {"reshuffle": False}, round_no)


def test_a_later_run_carries_the_cards_the_last_segment_left_unrevealed(tmp_path: Path) -> None:
    """The next segment's header names the hole cards dealt before it and not revealed
    (docs/journal.md, "Archive": ``open``). A later run reads them from the last segment:
    round 3's card is revealed late inside it, round 5's is still out when it ends."""
    state, key = new_sealing(TABLE)
    save_state(tmp_path / "sealing-key", state)
    path, folder = tmp_path / "journal.sqlite3", tmp_path / "archive"
    late: dict[int, str] = {}
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        hole_card_rounds(journal, range(1, 6), late, voided={3, 5})
        (first,) = archive(path, folder, table=TABLE, segment_rows=journal.last_id)
        assert read_header(first).last == journal.last_id
        dealt = {r.round_no: r for r in journal.rows(kinds=("hole_card_dealt",))}
        hole_card_rounds(journal, range(6, 8), late, voided=set())
    written = archive(path, folder, table=TABLE, segment_rows=1)  # rounds 6 and 7
    assert [read_header(p).open for p in written] == [
        ((5, dealt[5].id, dealt[5].data["commitment"]),),
        (),
    ]
    assert verify_archive(folder, key).ok


def test_a_reveal_that_opens_no_card_is_archived_as_it_stands(tmp_path: Path) -> None:
    """A ``hole_card_revealed`` whose round has no card out (never dealt, or revealed
    already) is a hole-card finding of ``verify``, not a broken chain: the archive keeps
    the row as evidence, a later run goes on after it, and ``verify-archive`` reports it."""
    state, key = new_sealing(TABLE)
    save_state(tmp_path / "sealing-key", state)
    path, folder = tmp_path / "journal.sqlite3", tmp_path / "archive"
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        hole_card_rounds(journal, range(1, 3), {}, voided=set())
        journal.append("hole_card_revealed", {"card": "5D", "nonce": "00" * 16}, 2)  # twice
        journal.append("hole_card_revealed", {"card": "5D", "nonce": "00" * 16}, 9)  # never
        hole_card_rounds(journal, range(3, 4), {}, voided=set())
        (first,) = archive(path, folder, table=TABLE, segment_rows=journal.last_id)
        hole_card_rounds(journal, range(4, 5), {}, voided=set())
    (second,) = archive(path, folder, table=TABLE, segment_rows=1)
    assert read_header(second).first == read_header(first).last + 1
    assert read_header(second).open == ()
    report = verify_archive(folder, key)
    assert not report.ok and "commitment" in report.message, report.message


def test_a_segment_of_more_rows_than_one_chunk_holds_each_row_once(tmp_path: Path) -> None:
    """The rows are deflated 4,096 at a time: a segment of more than 4,096 rows holds each
    once, in order, and verifies. (A round's end 2,000 rows after the last checkpoint is
    followed by a checkpoint, then the seal; the segment ends at the next round's seal.)"""
    state, key = new_sealing(TABLE)
    save_state(tmp_path / "sealing-key", state)
    path, folder = tmp_path / "journal.sqlite3", tmp_path / "archive"
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        with journal.batch():
            journal.append("round_started", {"round": 1, "seats": []}, 1)
            for n in range(4096):
                journal.append("button", {"button": "next", "n": n}, 1)
            journal.append("round_completed", {"reshuffle": False}, 1)
        play(journal, 1)
        last = journal.last_id
    (segment,) = archive(path, folder, table=TABLE, segment_rows=1)
    ids = [int(line.split(b",", 1)[0][1:]) for line in lines(segment)]
    assert last > 4096 and ids == list(range(1, last + 1))
    assert verify_archive(folder, key).ok


def test_a_rotated_journal_whose_segments_were_copied_off_goes_on_from_its_base(
    tmp_path: Path,
) -> None:
    """docs/journal.md, "Archive": a rotated journal archived into a folder that holds no
    later segment goes on from its base: the first new segment's ``prev``, first row,
    first epoch and open cards are the base's."""
    from controller.journal.rotate import rotate_journal
    from controller.journal.seal import load_state

    state, _key = new_sealing(TABLE)
    save_state(tmp_path / "sealing-key", state)
    path, first_folder = tmp_path / "journal.sqlite3", tmp_path / "archive"
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        journal.checkpoint()
        for round_no in range(1, 16):  # recall keeps the last 10 rounds: the cut is before
            journal.append("shuffle_commanded", {"decks": 6})  # a restore reads from here
            play(journal, 1, round_no)
            journal.checkpoint()
    archive(path, first_folder, table=TABLE, segment_rows=10)
    base = rotate_journal(
        path,
        first_folder,
        wager_spots=(),
        floor_acked=None,
        sealing=load_state(tmp_path / "sealing-key"),
    ).base
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        play(journal, 2, 16)
    (segment, *_) = archive(path, tmp_path / "copied-off", table=TABLE, segment_rows=1)
    header = read_header(segment)
    assert (header.first, header.prev, header.seals[0], header.open) == (
        base.row + 1,
        base.hash,
        base.epoch,
        base.open,
    )
    # A folder whose last segment ends at the base's row but is another journal's (its
    # head is not the base's hash): refused, not gone on from the base.
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    own = first_folder / base.segment
    _, _, body = own.read_bytes().partition(b"\n")
    other = dataclasses.replace(read_header(own), head="f" * 64)
    (foreign / base.segment).write_bytes(other.to_line() + body)
    with pytest.raises(ArchiveError) as refused:
        archive(path, foreign, table=TABLE, segment_rows=1)
    assert str(refused.value) == (
        f"row {base.row} of the journal is not the archive's last row: another journal?"
    )
    assert segments(foreign) == [foreign / base.segment]


def test_a_last_segment_whose_hole_card_row_does_not_read_is_refused_in_one_line(
    tmp_path: Path,
) -> None:
    """A later run reads the hole cards the folder's last segment left open from its rows,
    which it does not walk: a damaged row there (its data no JSON object, a byte that is no
    ASCII) is refused in one line that says to verify the archive (found: a data that did
    not read escaped as a JSON error, a traceback of ``journal archive``)."""
    state, _key = new_sealing(TABLE)
    save_state(tmp_path / "sealing-key", state)
    path, folder = tmp_path / "journal.sqlite3", tmp_path / "archive"
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        hole_card_rounds(journal, range(1, 3), {}, voided=set())
        (first,) = archive(path, folder, table=TABLE, segment_rows=journal.last_id)
        hole_card_rounds(journal, range(3, 4), {}, voided=set())
    head, _, _ = first.read_bytes().partition(b"\n")
    rows = list(lines(first))
    for old, new in (
        (b'{"commitment":', b'{"commitment"'),  # no JSON
        (b'{"commitment":', b'[{"commitment":'),  # JSON, no object
        (b'{"commitment":"', b'{"commitment":"\xc3\xa9'),  # UTF-8, no ASCII
    ):
        damaged = [r.replace(old, new) if b'"hole_card_dealt"' in r else r for r in rows]
        first.write_bytes(head + b"\n" + zlib.compress(b"".join(r + b"\n" for r in damaged)))
        with pytest.raises(ArchiveError) as refused:
            archive(path, folder, table=TABLE, segment_rows=1)
        assert str(refused.value) == (
            f"{first.name}: a hole-card row does not read: the segment is damaged"
            " (run 'journal verify-archive')"
        ), new
        assert segments(folder) == [first]  # nothing written
    first.write_bytes(head + b"\n" + zlib.compress(b"".join(r + b"\n" for r in rows)))
    (second,) = archive(path, folder, table=TABLE, segment_rows=1)
    assert read_header(second).first == read_header(first).last + 1
