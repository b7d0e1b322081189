"""A rotated journal read whole again through its archive (docs/journal.md, "Reading it"):
``controller.journal.archive.history`` and ``journal recall|export --archive``.

The oracle is the journal before its rotation: every row, every recalled round and every
exported line read through the archive after the cut must be what the whole journal gave
(ids, data and hashes). Then what a damaged, incomplete or foreign archive meets: one line,
nothing shown from a segment that does not prove.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from journal_tamper_support import tamper
from table_support import JournalRow
from test_journal_rotate import (  # the rotation's helpers: a busy sealed journal, archived
    CHECKPOINT_EVERY,
    SEGMENT,
    TABLE,
    all_rows,
    rotated,
    rows_of,
    written,
)

from controller.cli.main import main
from controller.journal.archive import ArchiveError, archive, lines, read_header, segments
from controller.journal.archive.history import Header, History, Segment, _headers, _row, find_round
from controller.journal.base import Base
from controller.journal.format import JournalCorruptError, canonical_json
from controller.journal.reader import JournalReader
from controller.journal.recall import recall
from controller.journal.seal import VerificationKey, new_sealing
from controller.journal.store import Journal


@dataclass(frozen=True)
class Cut:
    """A busy sealed journal archived in small segments and rotated, with what the whole
    journal gave before the cut: every row, every round recalled, each round by number."""

    path: Path
    key: VerificationKey
    folder: Path
    base: Base
    before: list[tuple[Any, ...]]
    everything: dict[str, Any]
    by_number: dict[int, Any]


@pytest.fixture(scope="module", params=[1, 2], ids=["format1", "format2"])
def cut(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Cut:
    """Written, archived and rotated once per storage format; the tests only read it (a test
    that damages the archive damages a copy)."""
    home = tmp_path_factory.mktemp(f"cut{request.param}")
    path, key = written(home, rows_of(30, 7), int(request.param), checkpoint_every=CHECKPOINT_EVERY)
    folder = home / "archive"
    assert archive(path, folder, table=TABLE, segment_rows=SEGMENT)
    before, everything, by_number = _whole(path)
    base = rotated(path, folder)
    return Cut(path, key, folder, base, before, everything, by_number)


def _tuples(rows: Any) -> list[tuple[Any, ...]]:
    return [(r.id, r.ts, r.kind, r.round_no, r.data_text, r.prev_hash, r.hash) for r in rows]


def _whole(path: Path) -> tuple[list[tuple[Any, ...]], dict[str, Any], dict[int, Any]]:
    """Before the cut: every row, every round recalled, each round by its number."""
    rows = all_rows(path)
    with JournalReader.open(path) as reader:
        everything = recall(reader, 10_000)
        by_number = {r["round"]: find_round(reader, r["round"]) for r in everything["rounds"]}
    return rows, everything, by_number


def test_every_row_reads_back_through_the_archive_hash_for_hash(cut: Cut) -> None:
    path, key, folder, base, before = cut.path, cut.key, cut.folder, cut.base, cut.before
    assert all_rows(path)[0][0] == base.row + 1  # the live file no longer holds row 1
    with JournalReader.open(path) as reader:
        history = History.open(reader, folder, key)
        assert _tuples(history.rows()) == before
        # From any row on: the archive's part, the live part, and across the seam.
        for after in (0, 1, base.row - 1, base.row, base.row + 1, before[-1][0]):
            assert _tuples(history.rows(after_id=after)) == before[after:]
        # Without the key the chain is still proved (not the seals).
        assert _tuples(History.open(reader, folder).rows()) == before


def test_an_export_range_is_the_same_rows_before_and_after_the_cut(cut: Cut) -> None:
    path, folder, base, before = cut.path, cut.folder, cut.base, cut.before
    times = sorted({row[1] for row in before})
    # Ranges ending in the archive, starting in it and ending live, and wholly live.
    cuts = [times[0], times[len(times) // 4], before[base.row - 1][1], before[base.row][1]]
    cuts += [times[-1]]
    with JournalReader.open(path) as reader:
        history = History.open(reader, folder)
        for ts_from in cuts:
            for ts_to in cuts:
                if ts_from < ts_to:
                    expected = [r for r in before if ts_from <= r[1] < ts_to]  # to: exclusive
                    got = _tuples(history.rows(ts_from=ts_from, ts_to=ts_to))
                    assert got == expected, (ts_from, ts_to)


def test_recall_of_any_number_of_rounds_is_the_whole_journals(cut: Cut) -> None:
    path, key, folder, everything = cut.path, cut.key, cut.folder, cut.everything
    total = len(everything["rounds"])
    with JournalReader.open(path) as reader:
        live = len(recall(reader, 10_000)["rounds"])
        assert 0 < live < total  # the cut moved rounds into the archive
        history = History.open(reader, folder, key)
        for count in (1, live - 1, live, live + 1, total - 1, total, total + 5):
            got = history.recall(count)
            assert got["rounds"] == everything["rounds"][-count:], count
            assert got["after"] == everything["after"]


def test_each_round_by_its_number_before_and_after_the_cut(cut: Cut) -> None:
    path, key, folder = cut.path, cut.key, cut.folder
    everything, by_number = cut.everything, cut.by_number
    numbers = sorted(by_number)
    assert numbers == list(range(numbers[0], numbers[-1] + 1))
    # Each round as the whole recall shows it (what happened before it included).
    for entry in everything["rounds"]:
        assert by_number[entry["round"]] == entry
    with JournalReader.open(path) as reader:
        history = History.open(reader, folder, key)
        for number in numbers:
            assert history.round(number) == by_number[number], number
        # Both sides of the rounds held: none before the first, none after the last.
        assert history.round(numbers[0] - 1) is None
        assert history.round(numbers[-1] + 1) is None
        # The live file alone no longer holds the first rounds.
        assert find_round(reader, numbers[0]) is None
        assert find_round(reader, numbers[-1]) == by_number[numbers[-1]]


# -- what a damaged, incomplete or foreign archive meets ---------------------------------------


def _open_fails(path: Path, folder: Path, key: VerificationKey | None = None) -> str:
    with JournalReader.open(path) as reader, pytest.raises(ArchiveError) as caught:
        History.open(reader, folder, key)
    text = str(caught.value)
    assert "\n" not in text
    return text


def test_an_archive_that_does_not_link_is_refused_before_a_row_is_read(
    cut: Cut, tmp_path: Path
) -> None:
    path, folder, base = cut.path, cut.folder, cut.base
    names = [p.name for p in segments(folder)]
    assert len(names) >= 3
    assert _open_fails(path, tmp_path / "nowhere").startswith("missing: no archive segment")
    # A segment taken from the middle: the rows it held are in no segment.
    gap = tmp_path / "gap"
    shutil.copytree(folder, gap)
    middle = read_header(gap / names[1])
    (gap / names[1]).unlink()
    assert (
        _open_fails(path, gap) == f"removed: rows {middle.first}..{middle.last} are in no segment"
    )
    # The base's own segment gone: the journal does not go on from what is left.
    last = tmp_path / "last"
    shutil.copytree(folder, last)
    (last / base.segment).unlink()
    assert _open_fails(path, last).startswith("removed: ")
    # Segments after the base's gone: the base's own still links (the archive ends there).
    if base.segment != names[-1]:
        shorter = tmp_path / "shorter"
        shutil.copytree(folder, shorter)
        for name in names[names.index(base.segment) + 1 :]:
            (shorter / name).unlink()
        with JournalReader.open(path) as reader:
            assert History.open(reader, shorter).archived_to == base.row
    # Another table's archive (its own chain, its own rows).
    other_path, _ = written(tmp_path / "other", rows_of(12, 8), 2)
    other = tmp_path / "other-archive"
    assert archive(other_path, other, table="T9", segment_rows=150)
    assert _open_fails(path, other).split(":")[0] in {"altered", "removed"}


def test_a_changed_byte_in_a_segment_is_found_when_its_rows_are_read(
    cut: Cut, tmp_path: Path
) -> None:
    path, key, folder = cut.path, cut.key, tmp_path / "archive"
    shutil.copytree(cut.folder, folder)
    first = segments(folder)[0]
    raw = bytearray(first.read_bytes())
    raw[-40] ^= 0x01  # in the compressed rows
    first.write_bytes(bytes(raw))
    with JournalReader.open(path) as reader:
        history = History.open(reader, folder, key)  # the headers still link
        with pytest.raises(ArchiveError) as caught:
            list(history.rows())
        assert str(caught.value).startswith(f"altered: {first.name}: ")
        assert "\n" not in str(caught.value)
        # Nothing from that segment came out before the refusal.
        shown = []
        with pytest.raises(ArchiveError):
            shown.extend(history.rows())
        assert shown == []


def test_a_key_of_another_table_proves_no_seal(cut: Cut) -> None:
    path, folder = cut.path, cut.folder
    _, other_key = new_sealing(TABLE)
    assert _open_fails(path, folder, other_key).startswith("seal: ")


# -- the command line ---------------------------------------------------------------------------


def test_recall_and_export_with_the_archive_on_the_command_line(
    cut: Cut, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path, key, folder, by_number = cut.path, cut.key, cut.folder, cut.by_number
    j = ["--journal", str(path)]
    # What the commands printed of the whole journal, from the rows and rounds it held.
    whole_recall = json.dumps(cut.everything, indent=2) + "\n"
    whole_export = "".join(
        canonical_json(
            {"id": r[0], "ts": r[1], "kind": r[2], "round": r[3], "data": json.loads(r[4]),
             "prev_hash": r[5], "hash": r[6]}
        ) + "\n"
        for r in cut.before
    )  # fmt: skip
    a = ["--archive", str(folder), "--key", key.to_text()]
    assert main(["journal", "recall", "10000", "--json", *a, *j]) == 0
    out = capsys.readouterr()
    assert out.out == whole_recall and out.err == ""  # nothing "in the archive" to say
    assert main(["journal", "export", *a, *j]) == 0
    assert capsys.readouterr().out == whole_export
    output = tmp_path / "rows.jsonl"
    assert main(["journal", "export", "--output", str(output), "--archive", str(folder), *j]) == 0
    assert output.read_text(encoding="ascii") == whole_export
    # One round by its number, from the archive and from the live file.
    first, last = min(by_number), max(by_number)
    for number in (first, last):
        assert main(["journal", "recall", "--round", str(number), "--json", *a, *j]) == 0
        shown = json.loads(capsys.readouterr().out)
        assert shown == {"rounds": [by_number[number]], "after": []}
    # Without the archive, an archived round is not found: one line, exit 1.
    assert main(["journal", "recall", "--round", str(first), *j]) == 1
    err = capsys.readouterr().err
    assert f"round {first} is not in the journal" in err and "--archive" in err
    assert err.count("\n") == 1
    assert main(["journal", "recall", "--round", str(last + 1), *a, *j]) == 1
    assert f"round {last + 1} is in neither" in capsys.readouterr().err
    # Text as well as JSON.
    assert main(["journal", "recall", "--round", str(first), *a, *j]) == 0
    assert f"Round {first}" in capsys.readouterr().out


def test_a_bad_archive_on_the_command_line_is_one_line_and_exit_1(
    cut: Cut, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = cut.path
    j = ["--journal", str(path)]
    capsys.readouterr()
    for command in (["recall", "100"], ["export"], ["recall", "--round", "1"]):
        assert main(["journal", *command, "--archive", str(tmp_path / "none"), *j]) == 2
        assert capsys.readouterr().err.count("\n") == 1
        empty = tmp_path / "empty"
        empty.mkdir(exist_ok=True)
        assert main(["journal", *command, "--archive", str(empty), *j]) == 1
        err = capsys.readouterr().err
        assert "missing: no archive segment" in err and err.count("\n") == 1
    # --key without --archive: the key proves the archive's seals, nothing else here.
    _, key = new_sealing(TABLE)
    assert main(["journal", "export", "--key", key.to_text(), *j]) == 2
    assert "--key needs --archive" in capsys.readouterr().err


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, VerificationKey, Path]:
    """A short sealed journal (format 2) and its archive, written once for the module."""
    folder = tmp_path_factory.mktemp("small")
    path, key = written(folder, rows_of(12, 3), 2, checkpoint_every=120)
    archived = folder / "archive"
    assert archive(path, archived, table=TABLE, segment_rows=150)
    return path, key, archived


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(number=st.integers(), spot=st.integers(min_value=0), flip=st.integers(0, 7))
def test_any_round_number_or_damaged_byte_is_an_answer_or_one_line(
    small: tuple[Path, VerificationKey, Path],
    tmp_path_factory: pytest.TempPathFactory,
    number: int,
    spot: int,
    flip: int,
) -> None:
    path, key, archived = small
    folder = tmp_path_factory.mktemp("flipped") / "archive"
    shutil.copytree(archived, folder)
    first = segments(folder)[0]
    raw = bytearray(first.read_bytes())
    raw[spot % len(raw)] ^= 1 << flip
    first.write_bytes(bytes(raw))
    with JournalReader.open(path) as reader:
        try:
            history = History.open(reader, folder, key)
            found = history.round(number)
        except ArchiveError as err:
            assert "\n" not in str(err)
        else:
            assert found is None or found["round"] == number


def test_a_round_number_is_one_to_a_billion_on_the_command_line(
    small: tuple[Path, VerificationKey, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _key, _archived = small
    j = ["--journal", str(path)]
    for refused in ("0", "-1", "1000000001", "x", "1.5", ""):
        with pytest.raises(SystemExit) as caught:
            main(["journal", "recall", "--round", refused, *j])
        assert caught.value.code == 2, refused
        err = capsys.readouterr().err
        assert "--round" in err and err.rstrip("\n").count("\n") <= 1, err
    for taken in ("1", "1000000000"):  # both ends: an answer or "not in the journal"
        assert main(["journal", "recall", "--round", taken, *j]) in {0, 1}
        out = capsys.readouterr()
        assert out.out.startswith("Round 1") if taken == "1" else "not in the journal" in out.err


def test_recall_of_the_rounds_the_live_file_holds_reads_no_segment(
    cut: Cut, tmp_path: Path
) -> None:
    """``History.recall``: the live file's rounds alone when it holds as many as asked (a
    segment is read only for rounds it does not hold), so a damaged segment after the
    base does not stop that recall; one more round reads the archive, and is refused."""
    path, key, folder = cut.path, cut.key, tmp_path / "archive"
    shutil.copytree(cut.folder, folder)
    last = segments(folder)[-1]
    assert last.name != cut.base.segment  # the base's own is walked at open
    raw = bytearray(last.read_bytes())
    raw[-40] ^= 0x01  # in the compressed rows; the header still links
    last.write_bytes(bytes(raw))
    with JournalReader.open(path) as reader:
        held = len(recall(reader, 10_000)["rounds"])
        history = History.open(reader, folder, key)
        assert history.recall(held) == {
            "rounds": cut.everything["rounds"][-held:],
            "after": cut.everything["after"],
        }
        with pytest.raises(ArchiveError) as caught:
            history.recall(held + 1)
        # A flipped bit in the deflate stream makes it invalid ("damaged") or end early
        # ("cut short"), as the rows around it fall (keys and times differ each run).
        message = str(caught.value)
        assert (
            f"{last.name}: the rows are damaged" in message
            or f"{last.name}: the rows are cut short" in message
        ), message
        assert "\n" not in message


def test_a_segment_holding_no_rounds_row_is_passed_over_then_refused_when_read(
    cut: Cut, tmp_path: Path
) -> None:
    """Finding a round's segment reads the headers of the segments' rows unproved: one
    whose rows name no round (forged under a header that still links) is passed over,
    and refused in one line when the round's rows are read through it."""
    path, key, folder = cut.path, cut.key, tmp_path / "archive"
    shutil.copytree(cut.folder, folder)
    last = segments(folder)[-1]
    header = read_header(last)
    body = "".join(
        canonical_json([row_id, "2026-11-30T09:15:12.123456Z", "state", None]) + "{}\n"
        for row_id in range(header.first, header.last + 1)
    )
    last.write_bytes(header.to_line() + zlib.compress(body.encode()))
    first_round = min(cut.by_number)
    with JournalReader.open(path) as reader:
        history = History.open(reader, folder, key)
        with pytest.raises(ArchiveError) as caught:
            history.round(max(cut.by_number) + 1)
        assert str(caught.value).startswith(f"altered: {last.name}: ")
        assert history.round(first_round) == cut.by_number[first_round]


def test_recall_reads_the_archive_back_only_to_the_segment_the_rounds_begin_in(
    cut: Cut, tmp_path: Path
) -> None:
    """The archive's rounds are read from its end, segment by segment, back to the one
    the oldest round asked for starts in: a damaged segment before it does not stop that
    recall (its rows are not read), and a recall that reaches it is refused."""
    path, key, folder = cut.path, cut.key, tmp_path / "archive"
    shutil.copytree(cut.folder, folder)
    names = segments(folder)
    starts = [sum(b'"round_started"' in line for line in lines(p)) for p in names]
    archived_to = read_header(names[-1]).last
    with JournalReader.open(path) as reader:
        held = len(recall(reader, 10_000)["rounds"])
    beyond = sum(1 for row in all_rows(path) if row[2] == "round_started" and row[0] > archived_to)
    count, wanted, at = held + 1, held + 1 - beyond, len(names)
    while wanted > 0:  # the segments from the end that hold the rounds asked for
        at -= 1
        wanted -= starts[at]
    count = beyond + sum(starts[at:])  # as many as those segments begin: none to spare
    before = names[at - 1]
    assert at > 0 and before.name != cut.base.segment
    raw = bytearray(before.read_bytes())
    raw[-40] ^= 0x01
    before.write_bytes(bytes(raw))
    with JournalReader.open(path) as reader:
        history = History.open(reader, folder, key)
        assert history.recall(count)["rounds"] == cut.everything["rounds"][-count:]
        with pytest.raises(ArchiveError) as caught:
            history.recall(len(cut.everything["rounds"]))
        assert before.name in str(caught.value)


# -- a short journal written by hand: a round a segment, rounds live beyond the archive -------

ARCHIVED_ROUNDS = 6  # rounds 1..6 archived, a segment each (a segment ends at a round's seal)
LIVE_ROUNDS = 12  # rounds 7..18 written after the archive: recall's last 10 must stay live


def _round_rows(number: int) -> list[JournalRow]:
    """A round as the journal holds it: its burn between rounds, then its own rows (the
    round's end is followed by the journal's seal)."""
    return [
        JournalRow("burn", {"card": f"{number % 9 + 1}H", "reason": "first"}, None),
        JournalRow(
            "round_started",
            {"seats": [{"seat": 1, "wager_cents": 500 * number, "match_cents": 0}]},
            number,
        ),
        JournalRow("card", {"role": "player", "seat": 1, "hand": 0, "card": "KS"}, number),
        JournalRow("round_completed", {"reshuffle": False}, number),
    ]


@dataclass(frozen=True)
class ByHand:
    """The hand-written journal rotated after its archive, with the whole journal's recall
    from before the cut."""

    path: Path
    key: VerificationKey
    folder: Path
    base: Base
    everything: dict[str, Any]


@pytest.fixture(scope="module")
def by_hand_made(tmp_path_factory: pytest.TempPathFactory) -> ByHand:
    home = tmp_path_factory.mktemp("by-hand")
    rows = [row for n in range(1, ARCHIVED_ROUNDS + 1) for row in _round_rows(n)]
    path, key = written(home, rows, 1)
    folder = home / "archive"
    assert len(archive(path, folder, table=TABLE, segment_rows=1)) == ARCHIVED_ROUNDS
    with Journal.open(path, sealing=home / "sealing-key") as journal:
        # A checkpoint and a new shoe after the archive: the start walks from the one and
        # the restore reads from the other, so the cut can be at the archive's end.
        journal.checkpoint()
        journal.append("shuffle_commanded", {"shoe": 2}, None)
        journal.append("shuffle_done", {"shoe": 2}, None)
        for number in range(ARCHIVED_ROUNDS + 1, ARCHIVED_ROUNDS + LIVE_ROUNDS + 1):
            for row in _round_rows(number):
                journal.append(row.kind, row.data, row.round_no)
    with JournalReader.open(path) as reader:
        everything = recall(reader, 10_000)
    base = rotated(path, folder)
    return ByHand(path, key, folder, base, everything)


@pytest.fixture
def by_hand(by_hand_made: ByHand, tmp_path: Path) -> ByHand:
    """A copy of the hand-written journal and its archive for one test to damage."""
    shutil.copytree(by_hand_made.path.parent, tmp_path, dirs_exist_ok=True)
    made = by_hand_made
    path, folder = tmp_path / made.path.name, tmp_path / made.folder.name
    return ByHand(path, made.key, folder, made.base, made.everything)


def _damage(segment: Path) -> None:
    raw = bytearray(segment.read_bytes())
    raw[-10] ^= 0x01  # in the compressed rows; the header still links
    segment.write_bytes(bytes(raw))


def test_recall_counts_the_rounds_live_past_the_archive_and_reads_back_no_further(
    by_hand: ByHand,
) -> None:
    """The rounds the live file holds past the archive's end count once each toward those
    asked for; the archive is read back from its end only as far as the segment the
    oldest round asked for begins in, from that segment's first row (its round's burn)."""
    path, key, folder, everything = by_hand.path, by_hand.key, by_hand.folder, by_hand.everything
    names = segments(folder)
    # The cut keeps round 6's burn (the restore's last burn before the new shoe): the base
    # is at the end of round 5's segment, and the live file holds round 6 (in the archive)
    # and rounds 7..18 (past its end).
    assert len(names) == ARCHIVED_ROUNDS and by_hand.base.segment == names[4].name
    total = ARCHIVED_ROUNDS + LIVE_ROUNDS
    assert [r["round"] for r in everything["rounds"]] == list(range(1, total + 1))
    with JournalReader.open(path) as reader:
        assert len(recall(reader, 10_000)["rounds"]) == LIVE_ROUNDS + 1
        history = History.open(reader, folder, key)
        for count in range(1, total + 2):
            assert history.recall(count)["rounds"] == everything["rounds"][-count:], count
    # Two rounds besides those past the archive: 5 and 6, segments 5 and 6 (the live file
    # holds round 6 but not 5); segment 4 (round 4's) is damaged.
    _damage(names[3])
    with JournalReader.open(path) as reader:
        history = History.open(reader, folder, key)
        got = history.recall(LIVE_ROUNDS + 2)
        assert got == {"rounds": everything["rounds"][-(LIVE_ROUNDS + 2) :], "after": []}
        oldest = got["rounds"][0]
        assert oldest["round"] == 5 and oldest["seats"][0]["wager_cents"] == 2500
        assert [(b["kind"], b["card"]) for b in oldest["before"]] == [("burn", "6H")]
        with pytest.raises(ArchiveError) as caught:
            history.recall(LIVE_ROUNDS + 3)  # round 4 is in the damaged segment
        assert names[3].name in str(caught.value)


def test_a_round_in_the_archive_is_read_from_its_segments_first_row_and_no_earlier(
    by_hand: ByHand,
) -> None:
    """A round found in the archive is rebuilt from the first row of the segment holding
    it (the burn before it included), without reading the segment before."""
    path, key, folder, everything = by_hand.path, by_hand.key, by_hand.folder, by_hand.everything
    names = segments(folder)
    _damage(names[3])  # round 4's segment
    with JournalReader.open(path) as reader:
        history = History.open(reader, folder, key)
        shown = history.round(5)  # in the archive alone, its segment's first round
        assert shown == everything["rounds"][4]
        assert shown is not None and [b["card"] for b in shown["before"]] == ["6H"]
        assert shown["seats"][0]["wager_cents"] == 2500
        with pytest.raises(ArchiveError) as caught:
            history.round(4)
        assert names[3].name in str(caught.value)


def test_a_live_round_is_read_from_the_round_before_it_and_no_earlier(by_hand: ByHand) -> None:
    """A round the live file holds is rebuilt from the row after the last row of the round
    before it: a damaged row there or earlier is not read; the round's burn is."""
    path, everything = by_hand.path, by_hand.everything
    with JournalReader.open(path) as reader:
        ends = {r.round_no: r.id for r in reader.rows() if r.kind == "round_completed"}
        burns = [r.id for r in reader.rows() if r.kind == "burn"]
    burn_12 = next(i for i in burns if ends[11] < i < ends[12])
    tamper(path, f"UPDATE journal SET data = 'not json' WHERE id IN ({ends[10]}, {ends[11]})")
    with JournalReader.open(path) as reader:
        assert find_round(reader, 12) == everything["rounds"][11]
        with pytest.raises(JournalCorruptError):
            find_round(reader, 11)  # its own last row
    tamper(path, f"UPDATE journal SET data = 'not json' WHERE id = {burn_12}")
    with JournalReader.open(path) as reader, pytest.raises(JournalCorruptError):
        find_round(reader, 12)


def test_a_round_start_whose_line_is_not_ascii_still_counts_where_recall_reads_back_to(
    by_hand: ByHand,
) -> None:
    """Finding where recall reads back to counts the round starts in each segment's lines
    unproved: a line damaged with a byte that is not ASCII still counts as its round's
    start, so the read goes back no further than that segment, whose walk then refuses it
    (it is named, not a damaged segment before it)."""
    path, folder = by_hand.path, by_hand.folder
    names = segments(folder)
    fourth = names[3]  # round 4's segment (the base's own, round 5's, is walked at open)
    header = read_header(fourth)
    body = b"".join(
        line.replace(b'"seats":', b'"s\xe9ats":') + b"\n" for line in lines(fourth)
    )  # round 4's start, its header [id, ts, kind, round] intact
    assert body.count(b"\xe9") == 1
    fourth.write_bytes(header.to_line() + zlib.compress(body))
    _damage(names[2])
    with JournalReader.open(path) as reader:
        history = History.open(reader, folder)
        with pytest.raises(ArchiveError) as caught:
            history.recall(LIVE_ROUNDS + 3)  # rounds 4, 5 and 6 besides
        assert str(caught.value).startswith(f"altered: {fourth.name}: ")


def test_the_round_locator_reads_each_lines_header_and_passes_over_what_does_not_read(
    by_hand: ByHand,
) -> None:
    """``_headers``: each row line's ``[id, ts, kind, round]``, unproved; a line whose
    header is no JSON, or JSON that is not a list of four, is passed over (the rest of the
    segment still read), and a byte that is not ASCII in a line's data does not hide it."""
    segment = segments(by_hand.folder)[0]
    header = read_header(segment)
    ts = "2026-11-30T09:15:12.123456Z"
    body = [
        b"{not json",
        b'17{"a":1}',
        b'["x"]{}',
        b'[3,"' + ts.encode() + b'","round_started",1]{"s\xe9ats":[]}',
        b'[4,"' + ts.encode() + b'","card",1]{}',
    ]
    segment.write_bytes(header.to_line() + zlib.compress(b"\n".join(body) + b"\n"))
    assert list(_headers(Segment(segment, header))) == [
        [3, ts, "round_started", 1],
        [4, ts, "card", 1],
    ]


def test_a_row_line_that_is_not_ascii_reads_as_a_row_with_a_replacement_character() -> None:
    """``_row``: a segment's line as the journal's row, its hash ``sha256(prev + line)``
    over the bytes as they are; a byte that is not ASCII shows as U+FFFD in its text (only
    a forged chain holds one: the journal writes ASCII), never an exception of its own."""
    prev = "ab" * 32
    line = b'[7,"2026-11-30T09:15:12.123456Z","burn",null]{"card":"\xe9"}'
    row = _row(line, prev)
    assert (row.id, row.ts, row.kind, row.round_no) == (
        7,
        "2026-11-30T09:15:12.123456Z",
        "burn",
        None,
    )
    assert row.data_text == '{"card":"\ufffd"}'
    assert row.prev_hash == prev
    assert row.hash == hashlib.sha256(prev.encode() + line).hexdigest()


def test_a_row_line_whose_header_is_not_id_ts_kind_round_is_refused_in_one_line() -> None:
    """``_row``: a line read back must begin with ``[id, ts, kind, round]``: an integer id
    (not a boolean), a text time and kind, a round that is an integer or null; each field
    out of form alone is refused (one line), and the form itself reads."""
    prev = "cd" * 32
    ts = '"2026-11-30T09:15:12.123456Z"'
    good = f'[7,{ts},"burn",null]{{}}'
    assert _row(good.encode(), prev).id == 7
    assert _row(f'[7,{ts},"card",3]{{}}'.encode(), prev).round_no == 3
    refused = [
        f'["7",{ts},"burn",null]{{}}',  # the id as text
        f'[7.0,{ts},"burn",null]{{}}',  # not an integer
        f'[true,{ts},"burn",null]{{}}',  # a boolean is no id
        '[7,5,"burn",null]{}',  # the time not text
        f"[7,{ts},null,null]{{}}",  # no kind
        f'[7,{ts},"burn","3"]{{}}',  # the round as text
        f'[7,{ts},"burn"]{{}}',  # three fields
        f'[7,{ts},"burn",null,1]{{}}',  # five
        '{"id":7}',  # no list
        "not json",
    ]
    for line in refused:
        with pytest.raises(ArchiveError) as caught:
            _row(line.encode(), prev)
        assert str(caught.value) == "a row line after cdcdcdcdcdcd... is not a journal row", line


def test_a_range_from_a_time_past_the_archive_reads_only_the_live_rows_from_it(
    by_hand: ByHand,
) -> None:
    """``ts_from`` holds for the live file's rows past the archive too: a range that begins
    after the archive's end gives the live rows from that time on and nothing before."""
    path, folder = by_hand.path, by_hand.folder
    whole = all_rows(path)  # the live file: rows 27.. (round 6 on)
    with JournalReader.open(path) as reader:
        history = History.open(reader, folder)
        past = [row for row in whole if row[0] > history.archived_to]
        ts_from, ts_to = past[10][1], past[-5][1]
        assert _tuples(history.rows(ts_from=ts_from)) == [r for r in past if r[1] >= ts_from]
        assert _tuples(history.rows(ts_from=ts_from, ts_to=ts_to)) == [
            r for r in past if ts_from <= r[1] < ts_to
        ]


def test_each_segment_read_proves_its_seals_with_the_key_given(tmp_path: Path) -> None:
    """With a key, every segment whose rows are read has its seals proved, not only the
    one a rotated journal's base names: a journal not rotated opens (the headers link to
    its rows) with another table's key, and its first row read (a sealed checkpoint) is refused."""
    rows = [row for n in range(1, 4) for row in _round_rows(n)]
    path, key = written(tmp_path, rows, 1)
    folder = tmp_path / "archive"
    assert len(archive(path, folder, table=TABLE, segment_rows=1)) == 3
    _, other = new_sealing(TABLE)
    with JournalReader.open(path) as reader:
        assert [r.id for r in History.open(reader, folder, key).rows()] == list(
            range(1, len(all_rows(path)) + 1)
        )
        history = History.open(reader, folder, other)  # no base: no seal checked at open
        with pytest.raises(ArchiveError) as caught:
            next(history.rows())
        first = segments(folder)[0].name
        # Row 1, the journal's first checkpoint, is sealed with the key's checkpoint key.
        assert str(caught.value).startswith(f"altered: {first}: row 1: checkpoint ")
        assert "does not match the checkpoint key" in str(caught.value)


def _with_header(segment: Path, header: Header) -> None:
    """The segment at ``segment`` with its header line replaced (its rows as they were)."""
    raw = segment.read_bytes()
    segment.write_bytes(header.to_line() + raw[raw.index(b"\n") + 1 :])


def test_segments_that_do_not_go_on_or_do_not_read_are_refused_at_open(by_hand: ByHand) -> None:
    """At open, each segment's header must read and go on from the one before: its
    ``prev`` the head before it and the same table, each alone; a header that does not
    read, or a segment that cannot be read, is refused as corrupt (one line each)."""
    path, folder = by_hand.path, by_hand.folder
    names = segments(folder)
    second, third = names[1], names[2]
    header = read_header(third)
    with JournalReader.open(path) as reader:
        assert History.open(reader, folder).archived_to == read_header(names[-1]).last
    _with_header(third, replace(header, prev="0" * 64))  # the same table, another prev
    assert _open_fails(path, folder) == f"altered: {third.name} does not go on from {second.name}"
    _with_header(third, replace(header, table="T9"))  # the same prev, another table
    assert _open_fails(path, folder) == f"altered: {third.name} does not go on from {second.name}"
    third.write_bytes(b"not a header\n")
    assert _open_fails(path, folder) == f"corrupt: {third.name}: the segment's header is unreadable"
    third.unlink()
    third.symlink_to(folder / "gone")  # named like a segment, and nothing there
    assert _open_fails(path, folder) == (
        f"corrupt: {third.name}: cannot be read (No such file or directory)"
    )


def test_the_bases_segment_and_the_archives_end_are_checked_at_open(by_hand: ByHand) -> None:
    """At open, besides the headers' links: the rotated journal's base must name its
    segment's header as it is (an epoch of seals changed there is refused), and the
    archive's last segment must end at a row the live journal holds with the same hash."""
    path, folder = by_hand.path, by_hand.folder
    names = segments(folder)
    fifth, last = names[4], names[-1]  # the base's own, and the archive's end
    assert by_hand.base.segment == fifth.name
    header = read_header(fifth)
    _with_header(fifth, replace(header, seals=(header.seals[0] + 1, header.seals[1])))
    text = _open_fails(path, folder)
    assert text.startswith("altered: ") and fifth.name in text
    _with_header(fifth, header)
    ending = read_header(last)
    _with_header(last, replace(ending, head="0" * 64))
    text = _open_fails(path, folder)
    assert text.split(":")[0] in {"altered", "removed"} and last.name in text
