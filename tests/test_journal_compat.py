"""Today's writer writes what the fixture's writer wrote, byte for byte, and goes on from
journals earlier writers wrote.

``tests/data/journal-checkpoints/`` was written by ``tests/journal_compat_support.py`` at
a3b7df6 (fixed clock, fixed sealing key): rows with seals (one inside a batch), a sealed
checkpoint, batches and single appends, non-ASCII data, a NULL round. The same script on
main at 1ac22a8 wrote ``tests/data/journal-1ac22a8/`` (a checkpoint without a MAC, a
sealing state of version 1): a station starts on it, takes its key up and seals on.
``tests/data/journal-kinds/`` is today's writer's (the indexes ``controller.journal.kinds``
declares: the schema cookie in its checkpoint differs from ``journal-checkpoints``).
``tests/data/journal-format2/`` is the same script's journal in storage format 2, written
when new journals became format 2 (docs/journal.md, "Storage format 2").
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from journal_compat_support import verification_key, write_script
from journal_tamper_support import raw_rows

from controller.journal.kinds import INDEXES
from controller.journal.reader import open_readonly
from controller.journal.store import Journal, head_path
from controller.journal.verify import VerifyCase, verify

FIXTURE = Path(__file__).parent / "data" / "journal-1ac22a8"
FORMAT_2 = Path(__file__).parent / "data" / "journal-format2"
CHECKPOINTS = Path(__file__).parent / "data" / "journal-checkpoints"
CURRENT = Path(__file__).parent / "data" / "journal-kinds"


def stored_rows(path: Path) -> list[tuple[object, ...]]:
    """Every row with its hashes, from either storage format."""
    return list(raw_rows(path))


def indexes(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        found = conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql NOT NULL")
        return {name for (name,) in found}
    finally:
        conn.close()


def fixture_copy(folder: Path, fixture: Path = FIXTURE) -> Path:
    """The fixture's files copied to ``folder`` (a reader may leave -shm files beside them)."""
    for name in ("journal.sqlite3", "journal.sqlite3-head", "sealing-key"):
        shutil.copy(fixture / name, folder / name)
    return folder / "journal.sqlite3"


def test_the_fixture_verifies_with_its_key(tmp_path: Path) -> None:
    path = fixture_copy(tmp_path)
    report = verify(path, key=verification_key())
    assert report.case is VerifyCase.INTACT, report.message
    assert report.rows == len(stored_rows(path)) == 31


@pytest.mark.journal_format(1)  # the fixture is format 1: its checkpoint names its schema
def test_todays_writer_writes_the_bytes_the_fixtures_writer_wrote(tmp_path: Path) -> None:
    """Same calls, same clock, same key: the same rows, head record and sealing state."""
    path = write_script(tmp_path / "now")
    fixture = fixture_copy(tmp_path, CURRENT)
    assert stored_rows(path) == stored_rows(fixture)
    assert head_path(path).read_bytes() == (CURRENT / "journal.sqlite3-head").read_bytes()
    assert (tmp_path / "now" / "sealing-key").read_bytes() == (CURRENT / "sealing-key").read_bytes()
    report = verify(fixture, key=verification_key())
    assert report.case is VerifyCase.INTACT, report.message
    assert "1 sealed checkpoints good" in report.message


def _commits(path: Path) -> list[tuple[object, ...]]:
    conn = open_readonly(path)
    try:
        found = conn.execute("SELECT first_id, last_id, last_hash FROM journal_commit ORDER BY 1")
        return found.fetchall()
    finally:
        conn.close()


@pytest.mark.journal_format(2)
def test_todays_writer_writes_the_rows_and_commits_the_format_2_fixtures_writer_wrote(
    tmp_path: Path,
) -> None:
    """Same calls, same clock, same key, in format 2: the same rows, commits (their ids and
    last hashes), head record and sealing state (the stored bytes differ by the file's own
    time base, the moment it was made)."""
    path = write_script(tmp_path / "now")
    fixture = fixture_copy(tmp_path, FORMAT_2)
    assert stored_rows(path) == stored_rows(fixture)
    assert _commits(path) == _commits(fixture) and len(_commits(path)) > 1
    assert head_path(path).read_bytes() == (FORMAT_2 / "journal.sqlite3-head").read_bytes()
    assert (tmp_path / "now" / "sealing-key").read_bytes() == (
        FORMAT_2 / "sealing-key"
    ).read_bytes()
    report = verify(fixture, key=verification_key())
    assert report.case is VerifyCase.INTACT, report.message
    assert "1 sealed checkpoints good" in report.message


def test_the_checkpoint_writers_journal_verifies_grows_and_takes_the_declared_indexes(
    tmp_path: Path,
) -> None:
    """The journal the writer of a3b7df6 wrote (indexes by time and by round, the milestone
    index of its first name): the same rows verify with the key, the writer goes on from
    its tail, and its open replaces the indexes with the declared ones."""
    path = fixture_copy(tmp_path, CHECKPOINTS)
    before = stored_rows(path)
    assert {"journal_ts", "journal_round", "journal_milestone"} <= indexes(path)
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        journal.append("round_completed", {"reshuffle": False}, 9)
    after = stored_rows(path)
    assert after[: len(before)] == before
    assert [row[2] for row in after[len(before) :]] == ["round_completed", "seal"]
    assert indexes(path) == set(INDEXES)
    report = verify(path, key=verification_key())
    assert report.case is VerifyCase.INTACT, report.message


def test_a_station_starts_on_the_earlier_writers_journal_and_key(tmp_path: Path) -> None:
    """The first start takes the version 1 key up (its checkpoint key derived from the key
    it holds), seals its checkpoint with it, and every later start checks that one."""
    from controller.journal.seal import load_state
    from controller.service.daemon import open_journal

    path = fixture_copy(tmp_path)
    before = stored_rows(path)
    key_file = tmp_path / "sealing-key"
    assert '"version":1' in key_file.read_text()
    for _ in range(2):
        journal = open_journal(path, key_file)
        journal.append("station_started", {"table_id": "T1"})
        journal.close()
    state = load_state(key_file)
    assert '"version":2' in key_file.read_text()
    assert state.checkpoint_epoch == 6  # the epoch the first start held
    after = stored_rows(path)
    assert after[: len(before)] == before
    assert [row[2] for row in after[len(before) :]] == ["verified", "station_started", "seal"] * 2
    report = verify(path, key=verification_key())
    assert report.case is VerifyCase.INTACT, report.message
    assert "2 sealed checkpoints good" in report.message


def test_a_journal_the_earlier_writer_wrote_opens_verifies_and_grows(tmp_path: Path) -> None:
    path = fixture_copy(tmp_path)
    before = stored_rows(path)
    assert "journal_kind" in indexes(path)  # every row by kind, in the older writer
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        assert (journal.last_id, journal.last_hash) == (before[-1][0], before[-1][6])
        with journal.batch():
            journal.append("card", {"role": "initial", "card": "KD", "seat": 1, "hand": 1}, 3)
            journal.append("round_completed", {"reshuffle": False}, 3)  # and its seal
        journal.append("clean_shutdown", {"events": 1})
    after = stored_rows(path)
    assert after[: len(before)] == before
    assert [row[2] for row in after[len(before) :]] == [
        "card",
        "round_completed",
        "seal",
        "clean_shutdown",
        "seal",
    ]
    assert after[len(before)][5] == before[-1][6]  # chained onto the earlier writer's tail
    report = verify(path, key=verification_key())
    assert report.case is VerifyCase.INTACT, report.message
    # The writer's open replaced the indexes of every row (by kind, time, round) with those
    # kinds.INDEXES declares.
    assert indexes(path) == set(INDEXES)
    # It keeps the page size it was made with (4 KiB then; a new journal's are 1 KiB).
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA page_size").fetchone() == (4096,)
    finally:
        conn.close()
