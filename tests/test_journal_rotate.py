"""Rotation (docs/journal.md, "Rotation"): the live journal cut after its archive, with a
base record; what every reader still finds, what verify and the start prove of a rotated
journal, what a forged base meets, and a rotation killed at each step."""

from __future__ import annotations

import json
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from table_support import JournalRow, ListJournal

from controller.cli.main import main
from controller.journal.anchor import Anchor
from controller.journal.archive import archive, read_header, segments
from controller.journal.base import BASE_KEY, Base
from controller.journal.format import TRIGGER_SQL, TRIGGER_SQL_2
from controller.journal.reader import JournalReader, open_readonly
from controller.journal.recall import recall
from controller.journal.rotate import (
    RECALL_ROUNDS,
    NothingToRotateError,
    rotate_journal,
    rotating_path,
)
from controller.journal.seal import VerificationKey, load_state, new_sealing, save_state
from controller.journal.startcheck import start_trust
from controller.journal.storage import storage_of, storage_version
from controller.journal.store import Journal
from controller.journal.verify import VerifyCase, verify
from controller.rules.cards import parse_card
from controller.rules.profiles import get_profile
from controller.service.daemon import WAGER_SPOTS
from controller.service.outbox import ack_beyond, ack_path, save_ack
from controller.simulation.dealer import random_chooser
from controller.simulation.direct import DirectRig
from controller.table.holecard import commit_hole_card
from controller.table.recovery import read_journal

SEGMENT = 150  # rows a segment at least, in these tests
CHECKPOINT_EVERY = 120  # rows between the checkpoints written here
TABLE = "T1"


def simulated_rows(rounds: int, seed: int) -> list[JournalRow]:
    """A seeded simulated table (PA, three seats, a reshuffle every few rounds): shoes,
    shuffles, burns, wager sensor reports, faults."""
    rng = random.Random(seed)
    journal = ListJournal()
    rig = DirectRig(get_profile("PA"), 6, journal, random_chooser(rng), rng, (1, 2, 3))
    rig.cover_at = 250
    rig.table.begin()
    try:
        rig.play(rounds)
    finally:
        rig.close()
    return journal.rows


_ROWS: dict[tuple[int, int], list[JournalRow]] = {}


def rows_of(rounds: int, seed: int) -> list[JournalRow]:
    if (rounds, seed) not in _ROWS:
        _ROWS[rounds, seed] = simulated_rows(rounds, seed)
    return _ROWS[rounds, seed]


def written(
    folder: Path, rows: list[JournalRow], storage_format: int, *, checkpoint_every: int = 0
) -> tuple[Path, VerificationKey]:
    """``rows`` in a sealed journal of ``storage_format`` in ``folder``, a checkpoint every
    ``checkpoint_every`` rows (the running station's ``CHECKPOINT_ROWS``, scaled down)."""
    folder.mkdir(parents=True, exist_ok=True)
    state, key = new_sealing(TABLE)
    save_state(folder / "sealing-key", state)
    path = folder / "journal.sqlite3"
    with Journal.open(
        path, sealing=folder / "sealing-key", storage_format=storage_format
    ) as journal:
        journal.checkpoint()
        since = 0
        for row in rows:
            journal.append(row.kind, row.data, row.round_no)
            since += 1
            if checkpoint_every and since >= checkpoint_every and row.kind == "round_completed":
                journal.checkpoint()
                since = 0
    return path, key


def sealing(path: Path) -> Any:
    return load_state(path.with_name("sealing-key"))


def rotated(path: Path, folder: Path, **kwargs: Any) -> Base:
    done = rotate_journal(
        path,
        folder,
        wager_spots=kwargs.pop("wager_spots", WAGER_SPOTS),
        floor_acked=kwargs.pop("floor_acked", None),
        sealing=kwargs.pop("sealing", sealing(path)),
    )
    return done.base


def all_rows(path: Path) -> list[tuple[Any, ...]]:
    with JournalReader.open(path) as reader:
        return [
            (r.id, r.ts, r.kind, r.round_no, r.data_text, r.prev_hash, r.hash)
            for r in reader.rows()
        ]


@pytest.fixture(params=[1, 2], ids=["format1", "format2"])
def storage_format(request: pytest.FixtureRequest) -> int:
    return int(request.param)


@pytest.fixture(scope="module")
def busy_made(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, VerificationKey]]:
    """Each storage format's busy journal and archive, made once for the module (writing
    and sealing them is most of a test's time): :func:`busy` copies one for each test."""
    return {}


@pytest.fixture
def busy(
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    storage_format: int,
    busy_made: dict[int, tuple[Path, VerificationKey]],
) -> Iterator[tuple[Path, VerificationKey, Path]]:
    """A sealed journal of several shoes with checkpoints, archived in small segments, in
    the test's own folder."""
    if storage_format not in busy_made:
        made = tmp_path_factory.mktemp(f"busy-format{storage_format}")
        path, key = written(made, rows_of(30, 7), storage_format, checkpoint_every=CHECKPOINT_EVERY)
        assert archive(path, made / "archive", table=TABLE, segment_rows=SEGMENT)
        busy_made[storage_format] = made, key
    made, key = busy_made[storage_format]
    shutil.copytree(made, tmp_path, dirs_exist_ok=True)
    yield tmp_path / "journal.sqlite3", key, tmp_path / "archive"


# -- the cut, and what every reader still finds ----------------------------------------------


def test_a_rotated_journal_keeps_the_rows_after_its_base_and_verifies_from_it(
    busy: tuple[Path, VerificationKey, Path],
) -> None:
    path, key, folder = busy
    before = all_rows(path)
    base = rotated(path, folder)
    after = all_rows(path)
    # Rows 1..K are gone, every row after K is as it was (same ids, data and hashes).
    assert after == before[base.row :]
    assert after[0][0] == base.row + 1 and after[0][5] == base.hash == before[base.row - 1][6]
    # The base names the segment that ends at K.
    assert base.segment in {p.name for p in segments(folder)}
    assert base.segment.endswith(f"-{base.row:012d}.dsa")
    seals_before = sum(1 for r in before[: base.row] if r[2] == "seal")
    assert base.epoch == seals_before
    plain = verify(path)
    assert plain.case is VerifyCase.INTACT, plain.message
    assert f"rows {base.row + 1}..{before[-1][0]}" in plain.message
    assert f"rows 1..{base.row} archived (segment {base.segment}; not checked" in plain.message
    keyed = verify(path, key=key, archive=folder)
    assert keyed.case is VerifyCase.INTACT, keyed.message
    assert f"(epochs {seals_before}.." in keyed.message
    assert "its link checked" in keyed.message
    # The start's check (the checkpoint, the count from the base, the base's MAC).
    start = verify(path, since_checkpoint=True, trust=start_trust(path.with_name("sealing-key")))
    assert start.case is VerifyCase.INTACT, start.message


def test_the_station_starts_on_a_rotated_journal_and_seals_on(
    busy: tuple[Path, VerificationKey, Path],
) -> None:
    path, key, folder = busy
    rotated(path, folder)
    with Journal.open(path, sealing=path.with_name("sealing-key")) as journal:
        journal.checkpoint()
        journal.append("round_started", {"round": 900, "seats": []}, 900)
        journal.append("round_completed", {"reshuffle": False}, 900)  # sealed after it
    report = verify(path, key=key, archive=folder)
    assert report.case is VerifyCase.INTACT, report.message
    # And it archives and rotates again from there.
    archive(path, folder, table=TABLE, segment_rows=1)
    assert verify(path, key=key, archive=folder).ok


def test_the_restore_finds_the_same_table_after_a_rotation(
    busy: tuple[Path, VerificationKey, Path],
) -> None:
    """The shoe in progress (from its shuffle), the open round, the last burn and wager spot
    reports: what a start restores is what it restored before the cut."""
    path, _key, folder = busy
    with JournalReader.open(path) as reader:
        whole = read_journal(reader.rows())
        window = [r.id for r in reader.rows_for_restore(WAGER_SPOTS)]
        shuffle = reader.last("shuffle_commanded")
    base = rotated(path, folder)
    assert shuffle is not None and base.row < shuffle.id
    assert base.row < min(window)
    with JournalReader.open(path) as reader:
        assert read_journal(reader.rows_for_restore(WAGER_SPOTS)) == whole
        assert [r.id for r in reader.rows_for_restore(WAGER_SPOTS)] == window


def test_recall_shows_the_same_last_rounds_after_a_rotation(
    busy: tuple[Path, VerificationKey, Path],
) -> None:
    path, _key, folder = busy
    with JournalReader.open(path) as reader:
        shown = recall(reader, RECALL_ROUNDS)
    rotated(path, folder)
    with JournalReader.open(path) as reader:
        assert recall(reader, RECALL_ROUNDS) == shown


def test_rows_the_floor_has_not_acknowledged_stay(
    busy: tuple[Path, VerificationKey, Path],
) -> None:
    path, _key, folder = busy
    ends = sorted(int(p.name[13:25]) for p in segments(folder))
    acked = ends[0] + 3  # the floor has the first segment and three rows more
    with JournalReader.open(path) as reader:
        digest = reader.storage.hash_of(acked)
    assert digest is not None
    save_ack(ack_path(path), acked, digest)
    base = rotated(path, folder, floor_acked=acked)
    assert base.row == ends[0]  # not the later segments: the floor lacks their rows
    assert ack_beyond(path) == ""  # the start's check of the acknowledgement
    with JournalReader.open(path) as reader:
        assert next(reader.rows(after_id=acked, limit=1)).id == acked + 1
    # A floor that acknowledged nothing yet keeps every row.
    with pytest.raises(NothingToRotateError, match="the floor acknowledged rows up to 0"):
        rotated(path, folder, floor_acked=0)


def test_the_checkpoint_the_start_walks_from_stays(tmp_path: Path, storage_format: int) -> None:
    # One checkpoint, at the start: the cut may not pass it, whatever the archive holds.
    path, _key = written(tmp_path, rows_of(20, 7), storage_format, checkpoint_every=0)
    folder = tmp_path / "archive"
    archive(path, folder, table=TABLE, segment_rows=SEGMENT)
    with pytest.raises(NothingToRotateError, match="the start walks from the checkpoint in row"):
        rotated(path, folder)


def test_a_hole_card_not_revealed_at_the_cut_is_carried_by_the_base(
    tmp_path: Path, storage_format: int
) -> None:
    """A voided round's hole card the shoe gives back long after the cut: its commitment is
    in the base (``open``), and verify and the start check the late reveal against it."""
    state, key = new_sealing(TABLE)
    save_state(tmp_path / "sealing-key", state)
    path = tmp_path / "journal.sqlite3"
    commitment, nonce = commit_hole_card(parse_card("5D"))
    with Journal.open(
        path, sealing=tmp_path / "sealing-key", storage_format=storage_format
    ) as journal:
        journal.checkpoint()
        journal.append("round_started", {"round": 1, "seats": []}, 1)
        journal.append("hole_card_dealt", {"commitment": commitment, "sealed_by": "shoe"}, 1)
        journal.append("round_voided", {"reason": "test"}, 1)
        for r in range(2, 60):
            journal.append("shuffle_commanded", {"decks": 6})
            journal.append("round_started", {"round": r, "seats": []}, r)
            journal.append("round_completed", {"reshuffle": False}, r)
            journal.checkpoint()
    folder = tmp_path / "archive"
    archive(path, folder, table=TABLE, segment_rows=40)
    base = rotated(path, folder)
    assert base.open and base.open[0][0] == 1 and base.open[0][2] == commitment
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        journal.append("hole_card_revealed", {"card": "5D", "nonce": nonce}, 1)
    report = verify(path, key=key, archive=folder)
    assert report.case is VerifyCase.INTACT, report.message
    assert "1 hole-card commitments good" in report.message
    trust = start_trust(tmp_path / "sealing-key")
    assert verify(path, since_checkpoint=True, trust=trust).ok
    # A wrong card against the carried commitment is still found.
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        journal.append("hole_card_revealed", {"card": "6D", "nonce": nonce}, 1)
    assert verify(path, key=key).case is VerifyCase.COMMITMENT


def test_the_archive_goes_on_from_the_base_when_its_segments_were_copied_off(
    busy: tuple[Path, VerificationKey, Path], tmp_path: Path
) -> None:
    path, key, folder = busy
    base = rotated(path, folder)
    with Journal.open(path, sealing=path.with_name("sealing-key")) as journal:
        for n in range(3):
            journal.append("state", {"state": "betting"})
            journal.append("round_completed", {"reshuffle": False}, 900 + n)
    off = tmp_path / "copied-off"
    shutil.move(folder, off)
    fresh = tmp_path / "fresh"
    assert archive(path, fresh, table=TABLE, segment_rows=1)
    first = segments(fresh)[0]
    assert first.name.startswith(f"{base.row + 1:012d}-")
    # The new folder's first segment goes on from the base: its link, epochs, open cards.
    header = read_header(first)
    assert (header.prev, header.seals[0], header.open) == (base.hash, base.epoch, base.open)
    assert main(["journal", "verify-archive", str(fresh), "--key", key.to_text()]) == 0
    assert verify(path, key=key, archive=off).ok  # the base's own segment, copied off


# -- hypothesis: random journals, random cut requests ----------------------------------------


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    rounds=st.integers(4, 24),
    seed=st.integers(0, 3),
    segment_rows=st.integers(20, 200),
    checkpoint_every=st.integers(0, 300),
    acked_at=st.one_of(st.none(), st.floats(0, 1)),
    fmt=st.sampled_from([1, 2]),
)
def test_a_cut_never_passes_a_need_of_a_live_reader(  # noqa: PLR0917 - hypothesis's
    tmp_path_factory: pytest.TempPathFactory,
    rounds: int,
    seed: int,
    segment_rows: int,
    checkpoint_every: int,
    acked_at: float | None,
    fmt: int,
) -> None:
    folder = tmp_path_factory.mktemp("rot")
    path, key = written(folder, rows_of(rounds, seed), fmt, checkpoint_every=checkpoint_every)
    arch = folder / "archive"
    archive(path, arch, table=TABLE, segment_rows=segment_rows)
    before = all_rows(path)
    last = before[-1][0]
    acked = None if acked_at is None else int(acked_at * last)
    # The needs, worked out from the rows the plain way.
    kinds = [r[2] for r in before]
    needs = {"end": last}
    if acked is not None:
        needs["floor"] = acked
    shuffles = [r[0] for r in before if r[2] == "shuffle_commanded"]
    if shuffles:
        needs["shoe"] = shuffles[-1] - 1
        # the last state, round start and end and burn before the shuffle are read too
        started = [r[0] for r in before if r[2] == "round_started" and r[0] < shuffles[-1]]
        for kind in ("state", "round_started", "round_completed", "round_voided", "burn"):
            older = [r[0] for r in before if r[2] == kind and r[0] < shuffles[-1]]
            if kind.startswith("round_") and kind != "round_started" and started:
                older = [i for i in older if i > started[-1]]  # superseded by the start
            if older:
                needs[kind] = older[-1] - 1
    else:
        needs["shoe"] = 0
    checkpoints = [json.loads(r[4])["through"] for r in before if r[2] == "verified"]
    needs["checkpoint"] = checkpoints[-1]
    needs["seal"] = [r[0] for r in before if r[2] == "seal"][-1] - 1
    starts = [(r[0], r[3]) for r in before if r[2] == "round_started"][-RECALL_ROUNDS:]
    if len(starts) >= 1 and kinds:
        first_start, first_round = starts[0]
        earlier = [
            r[0] for r in before if r[0] < first_start and r[3] is not None and r[3] < first_round
        ]
        needs["recall"] = earlier[-1] if earlier else 0
    ends = [int(p.name[13:25]) for p in segments(arch)]
    try:
        base = rotated(path, arch, floor_acked=acked, wager_spots=())
    except NothingToRotateError:
        assert not [e for e in ends if e <= min(needs.values())], needs
        assert all_rows(path) == before
        return
    assert base.row <= min(needs.values()), (base.row, needs)
    assert base.row in ends
    assert max(e for e in ends if e <= min(needs.values())) == base.row
    assert all_rows(path) == before[base.row :]
    assert verify(path, key=key, archive=arch).case is VerifyCase.INTACT


# -- forged bases ---------------------------------------------------------------------------


def _rewrite(path: Path, sql: list[tuple[str, tuple[Any, ...]]]) -> None:
    """Run ``sql`` on the journal behind dropped triggers, and put the triggers back (the
    insider's way)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")]
        for name in names:
            conn.execute(f"DROP TRIGGER {name}")
        for statement, params in sql:
            conn.execute(statement, params)
        triggers = TRIGGER_SQL_2 if storage_version(conn) == 2 else TRIGGER_SQL
        for body in triggers.values():
            conn.execute(body)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def _delete_through(path: Path, row: int) -> list[tuple[str, tuple[Any, ...]]]:
    conn = open_readonly(path)
    try:
        version = storage_of(conn).version
    finally:
        conn.close()
    if version == 1:
        return [("DELETE FROM journal WHERE id <= ?", (row,))]
    return [
        ("DELETE FROM journal_commit WHERE last_id <= ?", (row,)),
        ("DELETE FROM journal_milestone WHERE id <= ?", (row,)),
        ("DELETE FROM journal_spot WHERE id <= ?", (row,)),
    ]


def _commit_end(path: Path, at_least: int) -> int:
    """The last row of the first commit that ends at or after ``at_least`` (that row in
    format 1)."""
    conn = open_readonly(path)
    try:
        if storage_of(conn).version == 1:
            return at_least
        (found,) = conn.execute(
            "SELECT min(last_id) FROM journal_commit WHERE last_id >= ?", (at_least,)
        ).fetchone()
        return int(found)
    finally:
        conn.close()


def test_rows_cut_from_the_front_without_an_archive_are_found(
    busy: tuple[Path, VerificationKey, Path],
) -> None:
    """An insider deletes the first rows behind the triggers and writes a base of their own
    (the right hash, a segment name made up, no MAC: they have no key file)."""
    path, key, folder = busy
    shutil.rmtree(folder)
    k = _commit_end(path, 200)
    with JournalReader.open(path) as reader:
        digest = reader.storage.hash_of(k)
    assert digest is not None
    forged = Base(k, digest, f"000000000001-{k:012d}.dsa", "0" * 64, 10, ())
    _rewrite(
        path,
        [
            *_delete_through(path, k),
            ("INSERT INTO meta VALUES (?, ?)", (BASE_KEY, forged.to_text())),
        ],
    )
    folder.mkdir()
    found = verify(path, archive=folder)
    assert found.case is VerifyCase.REMOVED and "is not in" in found.message, found.message
    assert verify(path, key=key).case is VerifyCase.SEAL
    trust = start_trust(path.with_name("sealing-key"))
    start = verify(path, since_checkpoint=True, trust=trust)
    assert start.case is VerifyCase.CHECKPOINT, start.message
    assert "base record is not sealed" in start.message


def test_a_base_whose_hash_is_not_the_segments_head_is_found(
    busy: tuple[Path, VerificationKey, Path],
) -> None:
    path, _key, folder = busy
    base = rotated(path, folder)
    wrong = replace(base, hash="ab" * 32)
    _rewrite(path, [("UPDATE meta SET value = ? WHERE key = ?", (wrong.to_text(), BASE_KEY))])
    # Even without the archive: row K + 1 does not go on from it.
    assert verify(path).case is VerifyCase.ALTERED
    assert verify(path, archive=folder).case is VerifyCase.ALTERED
    trust = start_trust(path.with_name("sealing-key"))
    assert verify(path, since_checkpoint=True, trust=trust).case is VerifyCase.CHECKPOINT


def test_a_base_moved_forward_is_found(busy: tuple[Path, VerificationKey, Path]) -> None:
    """Rows after the archived ones cut too, the base moved on to their end with its right
    hash: the segment it names does not end there, and its MAC is not the station's."""
    path, key, folder = busy
    base = rotated(path, folder)
    moved = _commit_end(path, base.row + 25)
    with JournalReader.open(path) as reader:
        digest = reader.storage.hash_of(moved)
    assert digest is not None
    forward = replace(base, row=moved, hash=digest)
    _rewrite(
        path,
        [
            *_delete_through(path, moved),
            ("UPDATE meta SET value = ? WHERE key = ?", (forward.to_text(), BASE_KEY)),
        ],
    )
    found = verify(path, archive=folder)
    assert found.case is VerifyCase.ALTERED, found.message
    assert f"does not end at row {moved}" in found.message or "header" in found.message
    assert verify(path, key=key).case is VerifyCase.SEAL
    trust = start_trust(path.with_name("sealing-key"))
    assert verify(path, since_checkpoint=True, trust=trust).case is VerifyCase.CHECKPOINT


def test_a_base_beside_rows_it_says_are_archived_is_found(
    busy: tuple[Path, VerificationKey, Path],
) -> None:
    path, _key, _folder = busy
    k = _commit_end(path, 200)
    with JournalReader.open(path) as reader:
        digest = reader.storage.hash_of(k)
    assert digest is not None
    forged = Base(k, digest, "x.dsa", "0" * 64, 0, ())
    _rewrite(path, [("INSERT INTO meta VALUES (?, ?)", (BASE_KEY, forged.to_text()))])
    found = verify(path)
    assert found.case is VerifyCase.ALTERED and "its base record says" in found.message
    trust = start_trust(path.with_name("sealing-key"))
    assert not verify(path, since_checkpoint=True, trust=trust).ok


def test_an_unreadable_base_is_one_line(busy: tuple[Path, VerificationKey, Path]) -> None:
    path, _key, folder = busy
    rotated(path, folder)
    _rewrite(path, [("UPDATE meta SET value = '{\"row\":' WHERE key = ?", (BASE_KEY,))])
    found = verify(path)
    assert not found.ok and "base record is unreadable" in found.message
    assert "\n" not in found.message


# -- a rotation killed at each step ---------------------------------------------------------

STEPS = ["create_database", "_copy_rows", "_prove", "_settle", "sync_directory"]

_KILLER = """
import os, signal, sys
sys.path[:0] = {paths!r}
import controller.journal.migrate as migrate
import controller.journal.rotate as rotate
from controller.journal.seal import load_state
from controller.service.daemon import WAGER_SPOTS
from pathlib import Path
module = rotate if hasattr(rotate, {step!r}) else migrate  # the rename: migrate's
real = getattr(module, {step!r})
def killed(*args, **kwargs):
    real(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)
setattr(module, {step!r}, killed)
path = Path({path!r})
rotate.rotate_journal(path, Path({folder!r}), wager_spots=WAGER_SPOTS, floor_acked=None,
                      sealing=load_state(path.with_name("sealing-key")))
"""


@pytest.mark.parametrize("step", STEPS)
def test_a_rotation_killed_at_each_step_leaves_a_journal_that_starts(
    busy: tuple[Path, VerificationKey, Path], step: str
) -> None:
    path, key, folder = busy
    before = all_rows(path)
    script = _KILLER.format(
        paths=[str(Path(__file__).parent.parent)], step=step, path=str(path), folder=str(folder)
    )
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    after = all_rows(path)
    # Either the journal as it was, or the rotated one: nothing committed is lost.
    assert after in (before, before[len(before) - len(after) :])
    report = verify(path, key=key, archive=folder)
    assert report.case is VerifyCase.INTACT, report.message
    trust = start_trust(path.with_name("sealing-key"))
    assert verify(path, since_checkpoint=True, trust=trust).ok
    with Journal.open(path, sealing=path.with_name("sealing-key")) as journal:
        journal.append("state", {"state": "betting"})
    # The next run removes what the killed one left and rotates (or finds it done).
    try:
        rotated(path, folder)
    except NothingToRotateError:
        assert step == "sync_directory"
    assert not rotating_path(path).exists()
    assert verify(path, key=key, archive=folder).ok


# -- the command line -----------------------------------------------------------------------


def test_the_command_line(
    busy: tuple[Path, VerificationKey, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path, key, folder = busy
    j = ["--journal", str(path)]
    assert main(["journal", "rotate", "--archive", str(folder / "none"), *j]) == 2
    assert main(["journal", "rotate", "--archive", str(folder), "--check", *j]) == 0
    # A sealed journal is not rotated without its sealing state.
    assert main(["journal", "rotate", "--archive", str(folder), *j]) == 1
    assert "give --config or --sealing-key" in capsys.readouterr().err
    key_file = str(path.with_name("sealing-key"))
    with Journal.open(path, sealing=Path(key_file)):
        code = main(["journal", "rotate", "--archive", str(folder), "--sealing-key", key_file, *j])
        assert code == 75
    capsys.readouterr()
    assert main(["journal", "rotate", "--archive", str(folder), "--sealing-key", key_file, *j]) == 0
    out = capsys.readouterr().out
    assert out.startswith("journal rotate: rotated") and out.count("\n") == 1
    # Nothing more to cut: exit 0, one line saying what holds it.
    assert main(["journal", "rotate", "--archive", str(folder), "--sealing-key", key_file, *j]) == 0
    assert "nothing to rotate" in capsys.readouterr().out
    assert main(["journal", "rotate", "--archive", str(folder), "--check", *j]) == 1
    code = main(["journal", "verify", "--key", key.to_text(), "--archive", str(folder), *j])
    assert code == 0
    assert "its link checked" in capsys.readouterr().out


def test_recall_of_older_rounds_says_they_are_in_the_archive(
    busy: tuple[Path, VerificationKey, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _key, folder = busy
    base = rotated(path, folder)
    capsys.readouterr()
    assert main(["journal", "recall", "10", "--journal", str(path)]) == 0
    assert capsys.readouterr().err == ""  # the default rounds are all live
    assert main(["journal", "recall", "500", "--journal", str(path)]) == 0
    err = capsys.readouterr().err
    assert f"rounds before row {base.row + 1} are in the archive" in err
    assert base.segment in err and err.count("\n") == 1


def test_an_anchor_at_the_base_matches_and_an_older_one_is_left_to_the_archive(
    busy: tuple[Path, VerificationKey, Path],
) -> None:
    path, key, folder = busy
    base = rotated(path, folder)
    at_base = Anchor(TABLE, base.row, base.epoch - 1, base.hash)
    report = verify(path, key=key, anchor=at_base)
    assert report.case is VerifyCase.INTACT and f"anchor row {base.row}" in report.message
    wrong = Anchor(TABLE, base.row, base.epoch - 1, "cd" * 32)
    assert verify(path, anchor=wrong).case is VerifyCase.FORKED
    older = Anchor(TABLE, base.row - 5, 0, "cd" * 32)
    report = verify(path, anchor=older)
    assert report.ok and "is archived" in report.message


def test_the_real_daemon_restarted_after_a_rotation_resumes_the_same_shoe(
    tmp_path: Path,
) -> None:
    """``dealer-station run`` (simulated devices) on a rotated journal: it starts (its
    check from the base, the base's MAC, the sealing state's epoch), restores the shoe in
    progress and the round where the whole journal left them, and stops cleanly; the
    journal then verifies with the key and the archive."""
    from daemon_support import NotifyListener, journal_dir, station_toml
    from test_daemon_service import START_TIMEOUT, running

    table = "PA-S21-07"  # the example configuration's
    with journal_dir(tmp_path) as folder:
        state, key = new_sealing(table)
        save_state(folder / "sealing-key", state)
        path = folder / "journal.sqlite3"
        with Journal.open(path, sealing=folder / "sealing-key", storage_format=2) as journal:
            journal.checkpoint()
            since = 0
            for row in rows_of(30, 7):
                journal.append(row.kind, row.data, row.round_no)
                since += 1
                if since >= CHECKPOINT_EVERY and row.kind == "round_completed":
                    journal.checkpoint()
                    since = 0
        arch = folder / "archive"
        archive(path, arch, table=table, segment_rows=SEGMENT)
        with JournalReader.open(path) as reader:
            whole = read_journal(reader.rows())
        base = rotated(path, arch)
        config = station_toml(tmp_path, path)
        config.write_text(
            config.read_text().replace(
                'sealing_key = "/var/lib/dealer-station/sealing-key"',
                f'sealing_key = "{folder / "sealing-key"}"',
            )
        )
        listener = NotifyListener()
        try:
            with running(tmp_path, config, listener) as child:
                ready = listener.wait_for(lambda m: m.startswith("READY=1"), START_TIMEOUT)
                child.send_signal(signal.SIGTERM)
                assert child.wait(timeout=10.0) == 0
        finally:
            listener.close()
        assert f"round {whole.round_no}" in ready, ready
        with JournalReader.open(path) as reader:
            recovered = reader.last("recovered")
            assert recovered is not None and recovered.id > base.row
            assert recovered.data["round"] == whole.round_no
            assert read_journal(reader.rows_for_restore(WAGER_SPOTS)).drawn == whole.drawn
        report = verify(path, key=key, archive=arch)
        assert report.case is VerifyCase.INTACT, report.message


def test_verify_with_the_archive_checks_the_link_to_its_last_segment(
    busy: tuple[Path, VerificationKey, Path], tmp_path: Path
) -> None:
    """Not rotated yet, or rotated: the journal's row at the archive's last segment's end
    is that segment's head; another table's archive, or a rewritten one, is found."""
    path, key, folder = busy
    last = segments(folder)[-1]
    report = verify(path, key=key, archive=folder)
    assert report.ok and f"the archive's last segment {last.name} links" in report.message
    rotated(path, folder)
    assert f"{last.name} links" in verify(path, archive=folder).message
    other, _other_key = written(tmp_path / "other", rows_of(30, 8), 1, checkpoint_every=100)
    archive(other, tmp_path / "other-archive", table=TABLE, segment_rows=SEGMENT)
    shutil.copy(segments(tmp_path / "other-archive")[-1], folder / "999999999998-999999999999.dsa")
    found = verify(path, archive=folder)
    assert found.case in (VerifyCase.ALTERED, VerifyCase.REMOVED), found.message
