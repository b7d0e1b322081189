"""Verifying archive segments without the key (``controller/journal/archive/check.py``;
docs/journal.md, "Archive"): each segment alone (its chain from ``prev``, its rows counted
against its header, its seals counted, each hole-card reveal against its commitment) and
the segments linked (rows, chain, epochs, open hole cards and table run on), on segments
written by hand here, a few rows each, with their real chain hashes.

PA 635a.7(g) and NY 5324.12(c): the hole card is known only by its commitment until it is
revealed; the archive keeps every reveal checkable against it, across segments too.

The seals and sealed checkpoints under the key are checked on journal-built archives in
``tests/test_journal_archive.py``.
"""

from __future__ import annotations

import hashlib
import zlib
from pathlib import Path

import pytest

from controller.journal.archive.check import (
    _keep_key,
    _verify_in_worker,
    verify_archive,
    verify_segment,
)
from controller.journal.archive.segment import Header, segment_name
from controller.journal.archive.writer import archive
from controller.journal.format import GENESIS_HASH, canonical_json
from controller.journal.seal import new_sealing, save_state
from controller.journal.store import Journal
from controller.rules.cards import parse_card
from controller.table.holecard import commit_hole_card

TS = "2026-11-30T09:15:12.123456Z"
Spec = tuple[str, int | None, dict[str, object]]  # kind, round, data


def row_line(row_id: int, kind: str, round_no: int | None, data: dict[str, object]) -> str:
    """The row as a segment holds it: ``canonical_json([id, ts, kind, round]) + data``."""
    return canonical_json([row_id, TS, kind, round_no]) + canonical_json(data)


def chain(prev: str, lines: list[str]) -> str:
    """The hash of the last of ``lines`` after ``prev`` (``sha256(prev_hash + line)``)."""
    for line in lines:
        prev = hashlib.sha256(f"{prev}{line}".encode()).hexdigest()
    return prev


def write(
    folder: Path,
    first: int,
    specs: list[Spec],
    *,
    prev: str = GENESIS_HASH,
    epoch: int = 0,
    opened: tuple[tuple[int, int, str], ...] = (),
    table: str = "T1",
) -> Header:
    """A segment of ``specs`` as rows ``first...`` in ``folder``, its header made to fit."""
    lines = [row_line(first + i, *spec) for i, spec in enumerate(specs)]
    seals = sum(kind == "seal" for kind, _, _ in specs)
    last = first + len(lines) - 1
    header = Header(
        table, first, last, len(lines), prev, chain(prev, lines), (epoch, seals), opened
    )
    write_lines(folder, header, lines)
    return header


def write_lines(folder: Path, header: Header, lines: list[str]) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / segment_name(header.first, header.last)
    body = zlib.compress("".join(line + "\n" for line in lines).encode())
    path.write_bytes(header.to_line() + body)
    return path


def a_round(round_no: int, *, revealed: bool = True) -> list[Spec]:
    """A round's rows: its start, a hole card dealt (and revealed), its end and a seal."""
    commitment, nonce = commit_hole_card(parse_card("5D"))
    specs: list[Spec] = [
        ("round_started", round_no, {"round": round_no, "seats": []}),
        ("hole_card_dealt", round_no, {"commitment": commitment}),
        ("card", round_no, {"card": "7S", "hand": 1, "role": "hit", "seat": 1}),
    ]
    if revealed:
        specs.append(("hole_card_revealed", round_no, {"card": "5D", "nonce": nonce}))
        specs.append(("round_completed", round_no, {"reshuffle": False}))
    else:
        specs.append(("round_voided", round_no, {"reason": "test"}))
    specs.append(("seal", None, {"epoch": 0}))
    return specs


# -- one segment alone ----------------------------------------------------------------------


def test_a_segment_written_by_hand_checks_and_counts_its_rows_seals_and_reveals(
    tmp_path: Path,
) -> None:
    header = write(tmp_path, 1, a_round(1) + a_round(2))
    result = verify_segment(tmp_path / segment_name(1, 12))
    assert (result.problem, result.rows, result.seals, result.commitments) == ("", 12, 2, 2)
    assert result.header == header and result.left_open == {}


def test_a_hole_card_not_revealed_is_left_open_with_its_row_and_commitment(
    tmp_path: Path,
) -> None:
    specs = a_round(1, revealed=False)
    write(tmp_path, 1, specs)
    result = verify_segment(tmp_path / segment_name(1, 5))
    assert result.problem == ""
    assert result.left_open == {1: (2, specs[1][2]["commitment"])}
    assert result.commitments == 0


def test_a_card_revealed_in_a_later_segment_is_checked_against_its_open_commitment(
    tmp_path: Path,
) -> None:
    commitment, nonce = commit_hole_card(parse_card("5D"))
    reveal: list[Spec] = [("hole_card_revealed", 9, {"card": "5D", "nonce": nonce})]
    write(tmp_path, 50, reveal, prev="a" * 64, opened=((9, 40, commitment), (12, 45, "c" * 64)))
    result = verify_segment(tmp_path / segment_name(50, 50))
    assert (result.problem, result.commitments) == ("", 1)
    assert result.left_open == {12: (45, "c" * 64)}  # round 12's card is still out

    other, _ = commit_hole_card(parse_card("5D"))
    write(tmp_path, 50, reveal, prev="a" * 64, opened=((9, 40, other),))
    result = verify_segment(tmp_path / segment_name(50, 50))
    assert result.problem == "row 50: revealed hole card does not match the commitment in row 40"
    assert result.case == "altered"


def test_a_reveal_without_its_commitment_is_named_by_its_row(tmp_path: Path) -> None:
    _, nonce = commit_hole_card(parse_card("5D"))
    specs: list[Spec] = [
        ("round_started", 3, {"round": 3, "seats": []}),
        ("hole_card_revealed", 3, {"card": "5D", "nonce": nonce}),
    ]
    write(tmp_path, 20, specs, prev="a" * 64, opened=((4, 19, "c" * 64),))
    result = verify_segment(tmp_path / segment_name(20, 21))
    assert result.problem == "row 21: hole card revealed without a commitment"
    # ... and a reveal of no round at all.
    write(tmp_path, 20, [("hole_card_revealed", None, {"card": "5D", "nonce": nonce})])
    assert verify_segment(tmp_path / segment_name(20, 20)).problem == (
        "row 20: hole card revealed without a commitment"
    )


def test_a_segment_holding_more_or_fewer_rows_than_its_header_names(tmp_path: Path) -> None:
    specs = a_round(1)
    lines = [row_line(1 + i, *spec) for i, spec in enumerate(specs)]
    header = Header("T1", 1, 6, 6, GENESIS_HASH, chain(GENESIS_HASH, lines), (0, 1), ())
    extra = [*lines, row_line(7, "state", None, {"state": "idle"})]
    path = write_lines(tmp_path, header, extra)
    assert verify_segment(path).problem == "7 rows where the header names 6"
    path = write_lines(tmp_path, header, lines[:-2])
    assert verify_segment(path).problem == "rows 5..6 are missing at the end"
    path = write_lines(tmp_path, header, lines[:-1])
    assert verify_segment(path).problem == "rows 6..6 are missing at the end"
    moved = [lines[0], lines[2], lines[1], *lines[3:]]
    path = write_lines(tmp_path, header, moved)
    assert verify_segment(path).problem == "row 2: missing or moved (the line there is row 3)"


def test_a_header_whose_head_or_seals_do_not_fit_its_rows(tmp_path: Path) -> None:
    header = write(tmp_path, 1, a_round(1))
    path = tmp_path / segment_name(1, 6)
    write_lines(
        tmp_path,
        Header("T1", 1, 6, 6, GENESIS_HASH, "f" * 64, (0, 1), ()),
        [row_line(1 + i, *spec) for i, spec in enumerate(a_round(1))],
    )
    assert verify_segment(path).problem == "row 6: its hash is not the header's head"
    lines = [row_line(1 + i, *spec) for i, spec in enumerate(a_round(1))]
    for seals in ((0, 2), (0, 0)):
        write_lines(
            tmp_path,
            Header("T1", 1, 6, 6, GENESIS_HASH, chain(GENESIS_HASH, lines), seals, ()),
            lines,
        )
        count = seals[1]
        assert verify_segment(path).problem == f"1 seals where the header names {count}"
    # The epochs are counted from the header's first: the count is what matters.
    write_lines(
        tmp_path, Header("T1", 1, 6, 6, GENESIS_HASH, chain(GENESIS_HASH, lines), (7, 1), ()), lines
    )
    assert verify_segment(path).problem == ""
    write_lines(
        tmp_path, Header("T1", 1, 6, 6, GENESIS_HASH, chain(GENESIS_HASH, lines), (7, 2), ()), lines
    )
    assert verify_segment(path).problem == "1 seals where the header names 2"
    assert header.seals == (0, 1)


def test_a_checked_kind_in_a_row_whose_header_is_out_of_form_is_found(tmp_path: Path) -> None:
    """The walk reads a row further when its ts is not the plain form (it cannot find
    the kind where a plain ts puts it)."""
    lines = [
        row_line(1, "state", None, {"state": "idle"}),
        '[2,"2026-11-30",seal,null]{}',  # neither a plain ts nor a quoted kind
    ]
    header = Header("T1", 1, 2, 2, GENESIS_HASH, chain(GENESIS_HASH, lines), (0, 0), ())
    path = write_lines(tmp_path, header, lines)
    assert verify_segment(path).problem == "row 2: the row's header is unreadable"


def test_a_row_of_another_ts_form_is_an_ordinary_row_unless_its_kind_is_checked(
    tmp_path: Path,
) -> None:
    """A ts not of the writer's form (a forged line: every writer writes
    ``YYYY-MM-DDTHH:MM:SS.ffffffZ``) moves the kind: the walk then reads the row's header
    to find it, and checks a seal or a hole card there as anywhere."""
    commitment, nonce = commit_hole_card(parse_card("5D"))
    lines = [
        canonical_json([1, "2026-11-30T09:15:12.1Z", "state", None]) + '{"state":"idle"}',
        canonical_json([2, "2026-11-30T09:15:12.1Z", "hole_card_dealt", 1])
        + canonical_json({"commitment": commitment}),
        canonical_json([3, "2026-11-30T09:15:12.1Z", "hole_card_revealed", 1])
        + canonical_json({"card": "5D", "nonce": nonce}),
        canonical_json([4, "2026-11-30T09:15:12.1Z", "seal", None]) + "{}",
    ]
    header = Header("T1", 1, 4, 4, GENESIS_HASH, chain(GENESIS_HASH, lines), (0, 1), ())
    path = write_lines(tmp_path, header, lines)
    result = verify_segment(path)
    assert (result.problem, result.seals, result.commitments) == ("", 1, 1)


def test_a_segment_that_cannot_be_read_is_corrupt_and_one_that_does_not_check_altered(
    tmp_path: Path,
) -> None:
    (tmp_path / segment_name(1, 3)).mkdir()
    result = verify_segment(tmp_path / segment_name(1, 3))
    assert (result.case, result.problem) == ("corrupt", "a directory, not a segment file")
    (tmp_path / segment_name(4, 6)).symlink_to(tmp_path / "nowhere")
    result = verify_segment(tmp_path / segment_name(4, 6))
    assert (result.case, result.problem) == (
        "corrupt",
        "cannot be read (No such file or directory)",
    )
    (tmp_path / segment_name(7, 9)).write_bytes(b"{}\n")
    result = verify_segment(tmp_path / segment_name(7, 9))
    assert (result.case, result.problem) == ("altered", "the segment's header is unreadable")
    # The problem is said without the file's name (the report's line puts it before).
    (tmp_path / segment_name(10, 12)).write_bytes(b"")
    result = verify_segment(tmp_path / segment_name(10, 12))
    assert (result.case, result.problem) == ("altered", "no segment header")
    header = Header("T1", 13, 15, 3, GENESIS_HASH, "a" * 64, (0, 0), ())
    (tmp_path / segment_name(13, 15)).write_bytes(header.to_line())
    result = verify_segment(tmp_path / segment_name(13, 15))
    assert (result.case, result.problem) == ("altered", "the rows are cut short")


# -- segments linked --------------------------------------------------------------------------


def two_segments(folder: Path, **second: object) -> tuple[Header, Header]:
    """Rounds 1-2 in rows 1..12, round 3 (its card left open) and round 4 in rows 13..23;
    ``second`` changes the second's header."""
    one = write(folder, 1, a_round(1) + a_round(2))
    fields: dict[str, object] = {"prev": one.head, "epoch": 2}
    fields.update(second)
    two = write(folder, 13, a_round(3, revealed=False) + a_round(4), **fields)  # type: ignore[arg-type]
    return one, two


def test_linked_segments_are_intact_and_the_line_says_what_was_checked(tmp_path: Path) -> None:
    two_segments(tmp_path)
    report = verify_archive(tmp_path)
    assert report.ok and (report.rows, report.segments) == (23, 2)
    assert report.message == (
        "intact: 2 segments, rows 1..23, chain and 3 hole-card commitments good;"
        " seals not checked (no --key)"
    )
    assert verify_archive(tmp_path, workers=2).message == report.message


@pytest.mark.parametrize("first", [2, 41])
def test_an_archive_beginning_after_row_1_says_so(tmp_path: Path, first: int) -> None:
    write(tmp_path, first, a_round(7), prev="a" * 64, epoch=5)
    report = verify_archive(tmp_path)
    assert report.ok and report.message == (
        f"intact: 1 segments, rows {first}..{first + 5}, chain and 1 hole-card commitments"
        " good; seals not checked (no --key);"
        f" rows 1..{first - 1} are in no segment here (archived elsewhere?)"
    )


def test_a_first_segment_at_row_1_has_no_row_before_it(tmp_path: Path) -> None:
    for changed in ({"prev": "a" * 64}, {"epoch": 1}):
        write(tmp_path, 1, a_round(1), **changed)
        report = verify_archive(tmp_path)
        assert (report.ok, report.message) == (
            False,
            f"altered: {segment_name(1, 6)}: row 1 has a row before it",
        )


def test_rows_in_no_segment_between_two(tmp_path: Path) -> None:
    one = write(tmp_path, 1, a_round(1))
    write(tmp_path, 8, a_round(2), prev=one.head, epoch=1)
    report = verify_archive(tmp_path)
    assert (report.ok, report.message) == (False, "removed: rows 7..7 are in no segment")


def test_a_segment_that_does_not_go_on_from_the_one_before(tmp_path: Path) -> None:
    two_segments(tmp_path, prev="a" * 64)
    report = verify_archive(tmp_path)
    assert (report.ok, report.message) == (
        False,
        f"altered: {segment_name(13, 23)} does not go on from {segment_name(1, 12)}",
    )
    assert report.rows == 12  # the first segment's, checked before


@pytest.mark.parametrize("epoch", [1, 3])
def test_epochs_that_do_not_go_on(tmp_path: Path, epoch: int) -> None:
    two_segments(tmp_path, epoch=epoch)
    report = verify_archive(tmp_path)
    assert (report.ok, report.message, report.rows) == (
        False,
        f"seal: {segment_name(13, 23)}: its epochs do not go on",
        12,
    )


def test_open_hole_cards_that_are_not_those_the_segment_before_left(tmp_path: Path) -> None:
    """The second segment says round 1's card is still out: the first revealed it."""
    two_segments(tmp_path, opened=((1, 2, "c" * 64),))
    report = verify_archive(tmp_path)
    assert (report.ok, report.message, report.rows) == (
        False,
        f"altered: {segment_name(13, 23)}: its open hole cards are not those left",
        12,
    )


def test_open_hole_cards_carried_across_two_links(tmp_path: Path) -> None:
    one, two = two_segments(tmp_path)
    left = verify_segment(tmp_path / segment_name(13, 23)).left_open
    assert list(left) == [3] and left[3][0] == 14  # round 3's card, dealt in row 14
    write(tmp_path, 24, a_round(5), prev=two.head, epoch=4, opened=((3, 14, left[3][1]),))
    assert verify_archive(tmp_path).ok
    write(tmp_path, 24, a_round(5), prev=two.head, epoch=4, opened=((3, 15, left[3][1]),))
    assert "its open hole cards are not those left" in verify_archive(tmp_path).message
    assert one.last == 12


def test_a_segment_of_another_table(tmp_path: Path) -> None:
    two_segments(tmp_path, table="T2")
    report = verify_archive(tmp_path)
    assert (report.ok, report.message, report.rows) == (
        False,
        f"altered: {segment_name(13, 23)}: a segment of table 'T2', not 'T1'",
        12,
    )


def test_the_first_problem_found_is_reported_with_the_rows_checked_before_it(
    tmp_path: Path,
) -> None:
    two_segments(tmp_path)
    (tmp_path / segment_name(13, 23)).write_bytes(b"{}\n")
    report = verify_archive(tmp_path)
    assert (report.ok, report.message, report.rows) == (
        False,
        f"altered: {segment_name(13, 23)}: the segment's header is unreadable",
        12,
    )


def test_a_folder_without_segments(tmp_path: Path) -> None:
    report = verify_archive(tmp_path)
    assert (report.ok, report.message) == (False, f"missing: no archive segment in {tmp_path}")


# -- with the verification key: what is read before any MAC --------------------------------


def seal_data(row_id: int, head: str, epoch: int) -> dict[str, object]:
    """A seal's fields (its MAC made up: what is checked before the MAC fails first)."""
    return {"epoch": epoch, "head": head, "mac": "0" * 64, "row": row_id - 1, "table": "T1"}


def sealed_segment(folder: Path, epoch_written: int, round_no: int | None) -> Path:
    """Row 1 a state row, row 2 a seal of it (epoch ``epoch_written``, in ``round_no``)."""
    first = row_line(1, "state", None, {"state": "idle"})
    second = row_line(
        2, "seal", round_no, seal_data(2, chain(GENESIS_HASH, [first]), epoch_written)
    )
    lines = [first, second]
    header = Header("T1", 1, 2, 2, GENESIS_HASH, chain(GENESIS_HASH, lines), (0, 1), ())
    return write_lines(folder, header, lines)


def test_with_the_key_a_seals_epoch_and_round_are_checked(tmp_path: Path) -> None:
    """docs/journal.md: each seal's epoch in sequence from the header's first; a seal
    belongs to no round."""
    key = new_sealing("T1")[1]
    path = sealed_segment(tmp_path, 0, None)
    assert verify_segment(path, key).problem == "row 2: MAC of epoch 0 does not match"
    assert verify_segment(path).problem == ""  # without the key the seal is only counted
    path = sealed_segment(tmp_path, 5, None)
    assert verify_segment(path, key).problem == "row 2: epoch 5 where epoch 0 was due"
    path = sealed_segment(tmp_path, 0, 3)
    assert verify_segment(path, key).problem == "row 2: a seal belongs to no round"


def test_with_the_key_a_checkpoint_out_of_form_is_named_and_one_not_sealed_is_not_counted(
    tmp_path: Path,
) -> None:
    key = new_sealing("T1")[1]
    first = row_line(1, "state", None, {"state": "idle"})
    cases: list[tuple[dict[str, object], int | None, str]] = [
        (
            {"hash": "x"},
            None,
            "row 2: checkpoint fields are not through, hash, schema (key_epoch, mac)",
        ),
        ({"hash": "x", "through": 1}, 4, "row 2: checkpoint a checkpoint belongs to no round"),
        ({"hash": "x", "through": 1}, None, "row 2: the segment does not end at a seal"),
    ]
    for data, round_no, problem in cases:
        lines = [first, row_line(2, "verified", round_no, data)]
        header = Header("T1", 1, 2, 2, GENESIS_HASH, chain(GENESIS_HASH, lines), (0, 0), ())
        result = verify_segment(write_lines(tmp_path, header, lines), key)
        assert (result.problem, result.checkpoints) == (problem, 0)


def test_a_worker_checks_its_segments_with_the_key_it_was_given(tmp_path: Path) -> None:
    """``verify-archive --workers N``: each worker process keeps the key (here in this
    process, as a worker's initializer leaves it)."""
    key = new_sealing("T1")[1]
    path = sealed_segment(tmp_path, 0, None)
    try:
        _keep_key(key)
        assert _verify_in_worker(path).problem == "row 2: MAC of epoch 0 does not match"
        _keep_key(None)
        assert _verify_in_worker(path).problem == ""
    finally:
        _keep_key(None)


def test_a_moved_line_whose_id_is_not_ascii_is_shown_replaced(tmp_path: Path) -> None:
    lines = [row_line(1 + i, *spec) for i, spec in enumerate(a_round(1))]
    header = Header("T1", 1, 6, 6, GENESIS_HASH, chain(GENESIS_HASH, lines), (0, 1), ())
    lines[1] = "[\u00ff" + lines[1][2:]  # two bytes in UTF-8, neither ASCII
    path = write_lines(tmp_path, header, lines)
    assert verify_segment(path).problem == (
        "row 2: missing or moved (the line there is row \ufffd\ufffd)"
    )


def test_a_header_whose_prev_is_not_ascii_is_reported_never_raised(tmp_path: Path) -> None:
    lines = [row_line(1 + i, *spec) for i, spec in enumerate(a_round(1))]
    header = Header("T1", 5, 10, 6, "\u00e9" * 64, chain(GENESIS_HASH, lines), (0, 1), ())
    path = write_lines(
        tmp_path, header, [row_line(5 + i, *spec) for i, spec in enumerate(a_round(1))]
    )
    assert verify_segment(path).problem == "row 10: its hash is not the header's head"


def test_a_checked_row_whose_ts_is_forged_to_look_plain_is_read_whole(tmp_path: Path) -> None:
    """The walk reads at once only a header of the writer's form; one that merely has a
    comma where a plain ts's closing quote and comma stand (a ts of 28 bytes or more with a
    comma in it, or spaces before a ts of its own) is read whole, never taken for an
    ordinary row: a reveal there that does not open its commitment is not let through
    (found: both were skipped, and a hole card that matches no commitment passed)."""
    commitment, _ = commit_hole_card(parse_card("5D"))
    _, nonce = commit_hole_card(parse_card("5D"))  # another card's nonce: no match
    dealt = row_line(1, "hole_card_dealt", 1, {"commitment": commitment})
    reveal = canonical_json({"card": "5D", "nonce": nonce})
    forged = [
        canonical_json([2, TS + "x,yz", "hole_card_revealed", 1]) + reveal,
        "[2," + " " * 28 + '",","hole_card_revealed",1]' + reveal,  # JSON: ts ","
    ]
    for line in forged:
        lines = [dealt, line]
        header = Header("T1", 1, 2, 2, GENESIS_HASH, chain(GENESIS_HASH, lines), (0, 0), ())
        problem = verify_segment(write_lines(tmp_path, header, lines)).problem
        assert problem == "row 2: the row's header is unreadable", line
    # The same reveal in the writer's form is read and found not to match.
    lines = [dealt, row_line(2, "hole_card_revealed", 1, {"card": "5D", "nonce": nonce})]
    header = Header("T1", 1, 2, 2, GENESIS_HASH, chain(GENESIS_HASH, lines), (0, 0), ())
    assert verify_segment(write_lines(tmp_path, header, lines)).problem == (
        "row 2: revealed hole card does not match the commitment in row 1"
    )


def test_an_ordinary_row_of_the_writers_form_is_not_read_past_its_kind(tmp_path: Path) -> None:
    """docs/journal.md, "Archive": the rows' canonical form is checked when a segment is
    made; the walk hashes an ordinary row and reads no further than its kind (a year's check
    parses its seals and hole cards only). A row of another form is read whole, and a header
    that does not read is named."""
    lines = [
        row_line(1, "state", None, {"state": "idle"}),
        canonical_json([2, TS, "state"]) + ',"x"]{}',  # its round no round: not read
    ]
    header = Header("T1", 1, 2, 2, GENESIS_HASH, chain(GENESIS_HASH, lines), (0, 0), ())
    assert verify_segment(write_lines(tmp_path, header, lines)).problem == ""
    lines[1] = canonical_json([2, "2026-11-30", "state"]) + ',"x"]{}'
    header = Header("T1", 1, 2, 2, GENESIS_HASH, chain(GENESIS_HASH, lines), (0, 0), ())
    assert verify_segment(write_lines(tmp_path, header, lines)).problem == (
        "row 2: the row's header is unreadable"
    )


def test_with_the_key_a_segment_of_row_1_alone_must_end_at_a_seal(tmp_path: Path) -> None:
    """docs/journal.md: a segment ends at a seal; with the key a segment whose last row
    (here its only row, row 1) is no seal is refused, whatever row it is."""
    key = new_sealing("T1")[1]
    lines = [row_line(1, "state", None, {"state": "idle"})]
    header = Header("T1", 1, 1, 1, GENESIS_HASH, chain(GENESIS_HASH, lines), (0, 0), ())
    path = write_lines(tmp_path, header, lines)
    assert verify_segment(path, key).problem == "row 1: the segment does not end at a seal"
    assert verify_segment(path).problem == ""  # without the key a segment is only counted


def test_with_the_key_a_sealed_archive_without_checkpoints_says_its_seals_alone(
    tmp_path: Path,
) -> None:
    """The line names what was checked: with the key, the seals and their epochs, and the
    sealed checkpoints only when there are some (a journal sealed, never checkpointed)."""
    state, key = new_sealing("T1")
    save_state(tmp_path / "sealing-key", state)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        for round_no in (1, 2):  # each round's four rows, then its seal
            journal.append("round_started", {"round": round_no, "seats": []}, round_no)
            journal.append("card", {"card": "7S", "hand": 1, "role": "hit", "seat": 1}, round_no)
            journal.append("state", {"state": "settling"}, round_no)
            journal.append("round_completed", {"reshuffle": False}, round_no)
    archive(path, tmp_path / "archive", table="T1", segment_rows=1)
    report = verify_archive(tmp_path / "archive", key)
    assert (report.ok, report.message) == (
        True,
        "intact: 2 segments, rows 1..10, chain and 0 hole-card commitments good;"
        " 2 seals good (epochs 0..1)",
    )
