"""Sealed archive segments (controller/journal/archive.py): each verifiable alone, linked to
the next, every seal and hole card checked; what a changed, removed or forged segment
meets."""

from __future__ import annotations

import hashlib
import itertools
import shutil
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cli.main import main
from controller.journal.archive import (
    ArchiveError,
    Header,
    archive,
    lines,
    read_header,
    segments,
    verify_archive,
    verify_segment,
)
from controller.journal.seal import VerificationKey, new_sealing, save_state
from controller.journal.store import Journal
from controller.rules.cards import parse_card
from controller.table.holecard import commit_hole_card

SEGMENT = 60  # rows a segment at least, in these tests


def play(journal: Journal, first: int, rounds: int, *, void_at: int | None = None) -> None:
    """Rounds of 7 rows and their seal; round ``void_at`` is voided with its hole card
    still with the shoe, which gives it back in the next round."""
    late: tuple[int, str] | None = None
    for round_no in range(first, first + rounds):
        with journal.batch():
            journal.append("round_started", {"round": round_no, "seats": []}, round_no)
            commitment, nonce = commit_hole_card(parse_card("5D"))
            journal.append("hole_card_dealt", {"commitment": commitment}, round_no)
            journal.append("card", {"card": "7S", "hand": 1, "role": "hit", "seat": 1}, round_no)
        if late is not None:
            journal.append("hole_card_revealed", {"card": "5D", "nonce": late[1]}, late[0])
            late = None
        if round_no == void_at:
            journal.append("round_voided", {"reason": "test"}, round_no)
            late = (round_no, nonce)
            continue
        journal.append("hole_card_revealed", {"card": "5D", "nonce": nonce}, round_no)
        journal.append("state", {"state": "settling"}, round_no)
        journal.append("round_completed", {"reshuffle": False}, round_no)


@pytest.fixture
def sealed(tmp_path: Path) -> tuple[Path, VerificationKey]:
    state, key = new_sealing("T1")
    save_state(tmp_path / "sealing-key", state)
    with Journal.open(tmp_path / "journal.sqlite3", sealing=tmp_path / "sealing-key") as journal:
        journal.checkpoint()
        play(journal, 1, 40, void_at=9)  # the voided round's card comes back in round 10
    return tmp_path / "journal.sqlite3", key


def archived(sealed: tuple[Path, VerificationKey], tmp_path: Path) -> Path:
    folder = tmp_path / "archive"
    assert archive(sealed[0], folder, table="T1", segment_rows=SEGMENT)
    return folder


def test_an_archive_verifies_segment_by_segment_and_linked(
    sealed: tuple[Path, VerificationKey], tmp_path: Path
) -> None:
    folder = archived(sealed, tmp_path)
    paths = segments(folder)
    assert len(paths) >= 3
    headers = [read_header(p) for p in paths]
    assert headers[0].first == 1
    for before, after in itertools.pairwise(headers):
        assert after.first == before.last + 1 and after.prev == before.head
    for path in paths:
        alone = verify_segment(path, sealed[1])
        assert not alone.problem, alone.problem
    one = verify_archive(folder, sealed[1], workers=1)
    assert one.ok, one.message
    assert verify_archive(folder, sealed[1], workers=3).message == one.message
    assert one.message.startswith(f"intact: {len(paths)} segments, rows 1..{headers[-1].last}")
    assert "seals good (epochs 0.." in one.message and ", 1 sealed checkpoints good" in one.message
    assert verify_archive(folder).ok


def test_every_sealed_checkpoint_of_a_segment_is_counted(tmp_path: Path) -> None:
    state, key = new_sealing("T1")
    save_state(tmp_path / "sealing-key", state)
    with Journal.open(tmp_path / "journal.sqlite3", sealing=tmp_path / "sealing-key") as journal:
        journal.checkpoint()
        play(journal, 1, 2)
        journal.checkpoint()
        play(journal, 3, 2)
        journal.checkpoint()
        play(journal, 5, 8)
    folder = tmp_path / "archive"
    assert archive(tmp_path / "journal.sqlite3", folder, table="T1", segment_rows=40)
    report = verify_archive(folder, key)
    assert report.ok and report.message.endswith(", 3 sealed checkpoints good"), report.message


def test_a_voided_rounds_late_card_is_checked_across_segments(
    sealed: tuple[Path, VerificationKey], tmp_path: Path
) -> None:
    """Round 9 voided, its card revealed in round 10: when a segment ends between the
    two, the next one's header carries the commitment, and the linked check holds it to
    what the segment before left open."""
    folder = tmp_path / "archive"
    # Cut right after the void: round 9's rows end at its seal, row ~8 * 8 + 5.
    archive(sealed[0], folder, table="T1", segment_rows=60)
    opened = [read_header(p).open for p in segments(folder)]
    assert any(o and o[0][0] == 9 for o in opened)
    assert verify_archive(folder, sealed[1]).ok


def test_archiving_goes_on_from_the_last_segment(
    sealed: tuple[Path, VerificationKey], tmp_path: Path
) -> None:
    path, key = sealed
    folder = archived(sealed, tmp_path)
    before = segments(folder)
    assert archive(path, folder, table="T1", segment_rows=SEGMENT) == []  # nothing new enough
    with Journal.open(path, sealing=path.with_name("sealing-key")) as journal:
        play(journal, 41, 20)
    added = archive(path, folder, table="T1", segment_rows=SEGMENT)
    assert added and segments(folder)[: len(before)] == before
    assert read_header(added[0]).prev == read_header(before[-1]).head
    assert verify_archive(folder, key).ok


def test_an_archive_of_another_journal_is_refused(
    sealed: tuple[Path, VerificationKey], tmp_path: Path
) -> None:
    folder = archived(sealed, tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    save_state(other / "sealing-key", new_sealing("T1")[0])
    with Journal.open(other / "journal.sqlite3", sealing=other / "sealing-key") as journal:
        play(journal, 1, 40)
    with pytest.raises(ArchiveError, match="not the archive's last row"):
        archive(other / "journal.sqlite3", folder, table="T1", segment_rows=SEGMENT)


def test_a_journal_whose_rows_do_not_check_is_not_archived(
    sealed: tuple[Path, VerificationKey], tmp_path: Path
) -> None:
    from journal_tamper_support import tamper

    tamper(sealed[0], 'UPDATE journal SET data = \'{"card":"KS"}\' WHERE id = 20')
    folder = tmp_path / "archive"
    with pytest.raises(ArchiveError, match="altered: row 20"):
        archive(sealed[0], folder, table="T1", segment_rows=SEGMENT)
    assert segments(folder) == []


def rewrite(path: Path, change_line: object = None, change_header: object = None) -> None:
    """Write the segment at ``path`` again with a line or the header changed."""
    header = read_header(path)
    rows = [line.decode() for line in lines(path)]
    if change_line is not None:
        rows = change_line(rows)  # type: ignore[operator]
    if change_header is not None:
        header = change_header(header)  # type: ignore[operator]
    body = zlib.compress("".join(r + "\n" for r in rows).encode())
    path.write_bytes(header.to_line() + body)


def _with_head(header: Header, head: str) -> Header:
    return Header(
        header.table, header.first, header.last, header.rows, header.prev, head,
        header.seals, header.open,
    )  # fmt: skip


def test_what_a_changed_segment_meets(sealed: tuple[Path, VerificationKey], tmp_path: Path) -> None:
    key = sealed[1]
    folder = archived(sealed, tmp_path)
    second = segments(folder)[1]
    saved = tmp_path / "saved"
    shutil.copy(second, saved)

    # A row's data changed: the chain no longer reaches the header's head.
    rewrite(second, lambda rows: [r.replace('"7S"', '"KS"', 1) for r in rows])
    report = verify_archive(folder)
    assert not report.ok and "its hash is not the header's head" in report.message

    # ... and the header's head made to fit: without the key it holds; the seal does not.
    shutil.copy(saved, second)
    from controller.journal.store import row_hash  # noqa: F401 - the formula the walk uses

    header = read_header(second)
    rows = [line.decode() for line in lines(second)]
    rows = [r.replace('"7S"', '"KS"', 1) for r in rows]
    prev = header.prev
    for row in rows:
        prev = hashlib.sha256(f"{prev}{row}".encode()).hexdigest()
    rewrite(second, lambda _: rows, lambda h: _with_head(h, prev))
    assert verify_segment(second).problem == ""
    report = verify_archive(folder, key)
    assert not report.ok and "seal" in report.message and "does not seal" in report.message

    # A row taken out: named by its id.
    shutil.copy(saved, second)
    first = read_header(second).first
    rewrite(second, lambda rows: [rows[0], *rows[2:]])
    report = verify_archive(folder)
    assert not report.ok and f"row {first + 1}: missing or moved" in report.message


def test_a_segment_missing_from_the_middle_or_damaged_bytes(
    sealed: tuple[Path, VerificationKey], tmp_path: Path
) -> None:
    folder = archived(sealed, tmp_path)
    paths = segments(folder)
    raw = paths[1].read_bytes()
    paths[1].unlink()
    report = verify_archive(folder)
    assert not report.ok and report.message.startswith("removed: rows ")
    cut = len(raw) - 7
    paths[1].write_bytes(raw[:cut])
    assert "cut short" in verify_archive(folder).message
    damaged = bytearray(raw)
    damaged[-20] ^= 0xFF
    paths[1].write_bytes(bytes(damaged))
    assert not verify_archive(folder).ok


def test_a_forged_link_or_open_card_between_segments_is_found(
    sealed: tuple[Path, VerificationKey], tmp_path: Path
) -> None:
    key = sealed[1]
    folder = archived(sealed, tmp_path)
    second = segments(folder)[1]

    rows = [line.decode() for line in lines(second)]
    head = "1" * 64
    for row in rows:
        head = hashlib.sha256(f"{head}{row}".encode()).hexdigest()

    def forged_prev(h: Header) -> Header:
        """Another row before the segment, the chain from it made to fit the header."""
        return Header(h.table, h.first, h.last, h.rows, "1" * 64, head, h.seals, h.open)

    rewrite(second, change_header=forged_prev)
    assert verify_segment(second).problem == ""  # whole in itself, without the key
    assert "does not go on from" in verify_archive(folder).message
    assert "does not seal the row before it" in verify_segment(second, key).problem

    def forged_open(h: Header) -> Header:
        extra = (*h.open, (99, 1, "0" * 64))  # a card never dealt, said to be open
        return Header(h.table, h.first, h.last, h.rows, h.prev, h.head, h.seals, extra)

    shutil.rmtree(folder)
    folder = archived(sealed, tmp_path)
    rewrite(segments(folder)[1], change_header=forged_open)
    assert "open hole cards" in verify_archive(folder, key).message


def test_the_cli_archives_and_verifies(
    sealed: tuple[Path, VerificationKey], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "archive"
    # Fewer rows than a real segment: nothing is written yet.
    assert main(["journal", "archive", "--journal", str(sealed[0]), "--to", str(folder)]) == 0
    assert "no new segment" in capsys.readouterr().out
    assert main(["journal", "verify-archive", str(folder)]) == 1
    assert capsys.readouterr().err.startswith("missing: no archive segment")
    archived(sealed, tmp_path)
    key = sealed[1].to_text()
    assert main(["journal", "verify-archive", str(folder), "--key", key, "--workers", "2"]) == 0
    assert capsys.readouterr().out.startswith("intact: ")
    missing = tmp_path / "none.sqlite3"
    assert main(["journal", "archive", "--journal", str(missing), "--to", str(folder)]) == 2


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_header_line_parses_or_is_refused_in_one_line(raw: bytes) -> None:
    try:
        Header.parse(raw)
    except ArchiveError as err:
        assert "\n" not in str(err)


@settings(max_examples=100, deadline=None)
@given(body=st.binary(max_size=400))
def test_any_segment_file_is_reported_never_raised(
    tmp_path_factory: pytest.TempPathFactory, body: bytes
) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "000000000001-000000000003.dsa"
    header = Header("T1", 1, 3, 3, "0" * 64, "0" * 64, (0, 0), ())
    path.write_bytes(header.to_line() + body)
    result = verify_segment(path)
    assert result.problem
    assert not verify_archive(folder).ok
