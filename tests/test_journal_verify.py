"""``verify`` tells intact, interrupted, truncated, removed, altered and corrupt apart."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from journal_tamper_support import BOTH_FORMATS, raw_rows, storage_version, tamper

from controller.journal.storage import storage_of
from controller.journal.store import Journal, canonical_json, head_path, row_hash
from controller.journal.verify import VerifyCase, read_wal_state, verify
from controller.rules.cards import parse_card
from controller.table.holecard import commit_hole_card


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


def write_rounds(journal: Journal, rounds: int, first: int = 1) -> None:
    """A few records per round, hole card committed and revealed."""
    for round_no in range(first, first + rounds):
        journal.append("round_started", {"round": round_no, "seats": []}, round_no)
        journal.append("card", {"seat": 1, "hand": 0, "role": "initial", "card": "7S"}, round_no)
        commitment, nonce = commit_hole_card(parse_card("5D"))
        journal.append("hole_card_dealt", {"commitment": commitment}, round_no)
        journal.append("hole_card_revealed", {"card": "5D", "nonce": nonce}, round_no)
        journal.append("round_completed", {"reshuffle": False}, round_no)


@pytest.fixture(scope="module")
def template_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "journal.sqlite3"
    with Journal.open(path) as journal:
        write_rounds(journal, 20)  # 100 rows
    return path


@pytest.fixture
def closed_journal(journal_path: Path, template_journal: Path) -> Path:
    """A copy of a closed 100-row journal (closed: no -wal file to copy)."""
    shutil.copy(template_journal, journal_path)
    shutil.copy(head_path(template_journal), head_path(journal_path))
    return journal_path


def test_an_intact_journal(closed_journal: Path) -> None:
    report = verify(closed_journal)
    assert report.case is VerifyCase.INTACT and report.ok
    assert report.rows == 100 and report.commitments_checked == 20
    assert report.message.startswith("intact: 100 rows")


def test_a_tail_check_walks_the_last_rounds_only(closed_journal: Path) -> None:
    report = verify(closed_journal, tail=8)  # rows 93..100 lie in round 19 (rows 91..95)
    assert report.case is VerifyCase.INTACT and report.rows == 10
    assert report.message.startswith("intact: rows 91..100,") and report.commitments_checked == 2
    assert verify(closed_journal, tail=1000).message.startswith("intact: 100 rows")
    tamper(closed_journal, """UPDATE journal SET data = '{"card":"AS"}' WHERE id = 37""")
    assert verify(closed_journal, tail=10).ok  # outside the window
    report = verify(closed_journal, tail=70)
    assert report.case is VerifyCase.ALTERED and report.first_bad_row == 37


def test_a_tail_check_sees_rows_removed_at_its_start(closed_journal: Path) -> None:
    tamper(closed_journal, "DELETE FROM journal WHERE id = 90")
    report = verify(closed_journal, tail=10)
    assert report.case is VerifyCase.REMOVED and report.first_bad_row == 90


def test_a_tail_check_sees_the_row_after_its_start_removed(closed_journal: Path) -> None:
    """The tail of 10 begins after row 90; row 91 (the first it walks, round 19's first) is
    gone: the walk from row 90 finds it missing."""
    tamper(closed_journal, "DELETE FROM journal WHERE id = 91")
    report = verify(closed_journal, tail=10)
    assert report.case is VerifyCase.REMOVED and report.first_bad_row == 91


@pytest.mark.parametrize(
    ("tail", "walked", "rows", "commitments"),
    [
        (10, "10 rows", 10, 2),  # from the start
        (9, "10 rows", 10, 2),  # after row 1, which is round 1's first: from the start again
        (6, "10 rows", 10, 2),  # after row 4, in round 1 (rows 1..5)
        (5, "rows 6..10", 5, 1),  # after row 5: round 2 begins at row 6
    ],
)
def test_a_tail_check_that_begins_in_the_first_round_walks_from_the_first_row(
    journal_path: Path, tail: int, walked: str, rows: int, commitments: int
) -> None:
    """Rounds 1 (rows 1..5) and 2 (rows 6..10): a tail beginning in round 1 walks from
    the genesis hash, every row counted; one beginning at round 2 walks round 2 alone."""
    with Journal.open(journal_path) as journal:
        write_rounds(journal, 2)
    report = verify(journal_path, tail=tail)
    assert report.case is VerifyCase.INTACT and report.rows == rows, report.message
    assert report.message.startswith(
        f"intact: {walked}, chain and {commitments} hole-card commitments good;"
    )


def test_an_empty_journal_is_intact(journal_path: Path) -> None:
    Journal.open(journal_path).close()
    assert verify(journal_path).case is VerifyCase.INTACT


def test_no_file(tmp_path: Path) -> None:
    report = verify(tmp_path / "absent.sqlite3")
    assert report.case is VerifyCase.MISSING and not report.ok


def test_rows_lost_at_the_end_are_truncation(journal_path: Path, tmp_path: Path) -> None:
    # The common accident: a copy of the database taken without its -wal file.
    with Journal.open(journal_path) as journal:
        write_rounds(journal, 4)
        journal._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        write_rounds(journal, 2, first=5)
        copy = tmp_path / "copy.sqlite3"
        shutil.copy(journal_path, copy)
        shutil.copy(head_path(journal_path), head_path(copy))
    report = verify(copy)
    assert report.case is VerifyCase.TRUNCATED and not report.ok
    assert report.first_bad_row == 21
    assert "rows 21..30 are missing" in report.message


def test_a_copy_with_nothing_checkpointed_is_truncation(journal_path: Path, tmp_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        write_rounds(journal, 1)
        copy = tmp_path / "copy.sqlite3"
        shutil.copy(journal_path, copy)
        shutil.copy(head_path(journal_path), head_path(copy))
    report = verify(copy)
    assert report.case is VerifyCase.TRUNCATED and "rows 1..5" in report.message


def test_a_database_that_never_held_a_journal_is_corrupt_not_truncated(tmp_path: Path) -> None:
    # Another program's SQLite file given as the journal, with no head record beside it:
    # nothing says rows were ever written, so nothing is called missing.
    other = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    conn.commit()
    conn.close()
    report = verify(other)
    assert report.case is VerifyCase.CORRUPT
    assert report.message == f"corrupt: {other} holds no journal table"


def test_trailing_rows_deleted_behind_the_triggers_are_truncation(closed_journal: Path) -> None:
    tamper(closed_journal, "DELETE FROM journal WHERE id > 97")
    report = verify(closed_journal)
    assert report.case is VerifyCase.TRUNCATED and report.first_bad_row == 98


def test_a_row_removed_in_the_middle(closed_journal: Path) -> None:
    tamper(closed_journal, "DELETE FROM journal WHERE id IN (41, 42)")
    report = verify(closed_journal)
    assert report.case is VerifyCase.REMOVED and report.first_bad_row == 41
    assert report.message == "removed: row 41: missing (rows 41..42)"


def test_a_row_altered_behind_the_triggers(closed_journal: Path) -> None:
    tamper(closed_journal, """UPDATE journal SET data = '{"card":"AS"}' WHERE id = 37""")
    report = verify(closed_journal)
    assert report.case is VerifyCase.ALTERED and report.first_bad_row == 37
    assert report.message == "altered: row 37: content does not match its hash"


def test_a_row_altered_with_its_hash_recomputed(closed_journal: Path) -> None:
    (_, ts, kind, round_no, _, prev, _) = raw_rows(closed_journal)[11]
    data = canonical_json({"seat": 1, "hand": 0, "role": "initial", "card": "AS"})
    digest = row_hash(prev, row_id=12, ts=ts, kind=kind, round_no=round_no, data_text=data)
    tamper(closed_journal, f"UPDATE journal SET data = '{data}', hash = '{digest}' WHERE id = 12")
    report = verify(closed_journal)
    # Format 1: row 13's stored prev_hash names the old row 12. Format 2 stores no
    # prev_hash: row 13's hash, chained from the new one, no longer matches.
    bad = 12 if storage_version(closed_journal) == 1 else 13
    assert report.case is VerifyCase.ALTERED and report.first_bad_row == bad


@pytest.mark.parametrize("storage_format", BOTH_FORMATS)
def test_removed_triggers_are_a_schema_finding(journal_path: Path, storage_format: int) -> None:
    with Journal.open(journal_path) as journal:
        write_rounds(journal, 1)
    conn = sqlite3.connect(journal_path)
    name = storage_of(conn).main_triggers[1]  # the rows' table's DELETE trigger
    assert name == ("journal_no_delete" if storage_format == 1 else "journal_commit_no_delete")
    conn.execute(f"DROP TRIGGER {name}")
    conn.close()
    report = verify(journal_path)
    assert report.case is VerifyCase.SCHEMA and name in report.message


def test_a_reveal_that_does_not_match_its_commitment(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        write_rounds(journal, 2)
        commitment, nonce = commit_hole_card(parse_card("5D"))
        journal.append("hole_card_dealt", {"commitment": commitment}, 3)
        bad = journal.append("hole_card_revealed", {"card": "KD", "nonce": nonce}, 3)
    report = verify(journal_path)
    assert report.case is VerifyCase.COMMITMENT and report.first_bad_row == bad
    assert report.rows == bad and f"commitment in row {bad - 1}" in report.message


def test_a_reveal_without_a_commitment(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        bad = journal.append("hole_card_revealed", {"card": "KD", "nonce": "00"}, 1)
    report = verify(journal_path)
    assert report.case is VerifyCase.COMMITMENT and report.first_bad_row == bad


def test_a_lost_head_record(closed_journal: Path) -> None:
    head_path(closed_journal).unlink()
    report = verify(closed_journal)
    assert report.case is VerifyCase.HEAD_MISSING and not report.ok


def test_a_file_that_is_no_database(journal_path: Path) -> None:
    journal_path.write_bytes(os.urandom(8192))
    report = verify(journal_path)
    assert report.case is VerifyCase.CORRUPT and "not a database" in report.message


def test_a_physically_truncated_file_is_corrupt(closed_journal: Path) -> None:
    size = closed_journal.stat().st_size
    os.truncate(closed_journal, size // 2 // 4096 * 4096)
    report = verify(closed_journal)
    assert report.case is VerifyCase.CORRUPT and not report.ok


def overwrite(path: Path, offset: int, data: bytes) -> None:
    with path.open("r+b") as file:
        file.seek(offset)
        file.write(data)


@pytest.mark.parametrize("offset", [0, 100, 4096 * 2])
def test_corrupt_structure_bytes(closed_journal: Path, offset: int) -> None:
    overwrite(closed_journal, offset, b"\xff\x13\x37\x00" * 4)
    assert verify(closed_journal).case is VerifyCase.CORRUPT


def test_corrupt_bytes_inside_a_row_name_the_row(closed_journal: Path) -> None:
    # Flip the bytes of the last row's hash where it sits in the file (format 1: its hex
    # text; format 2: the 32 bytes of its commit's last_hash).
    last_hash = raw_rows(closed_journal)[99][6]
    stored = (
        last_hash.encode() if storage_version(closed_journal) == 1 else bytes.fromhex(last_hash)
    )
    raw = closed_journal.read_bytes()
    overwrite(closed_journal, raw.rindex(stored) + 10, b"\xff\xfe")
    report = verify(closed_journal)
    assert report.case is VerifyCase.ALTERED and report.first_bad_row == 100


# --- a writer killed mid-transaction ------------------------------------------------------

WRITER = """
import os
import sys
from controller.journal.format import canonical_json
from controller.journal.store import Journal
journal = Journal.open(sys.argv[1])
mode = sys.argv[2]
if mode == "uncommitted":
    for n in range(20):
        journal.append("event", {"type": "test", "n": n})
    conn = journal._conn
    conn.execute("PRAGMA cache_size = 1")  # spill the open transaction's pages into the WAL
    conn.execute("BEGIN IMMEDIATE")
    for n in range(300):  # through the file's storage (either format), never committed
        data = canonical_json({"type": "test", "pad": os.urandom(1000).hex()})  # no repeats
        ts = "2026-12-01T10:00:00.000000Z"
        journal._storage.insert([(1000 + n, ts, "event", None, data, "1" * 64, "2" * 64)])
    print("ready", flush=True)
    sys.stdin.read()
else:
    n = 0
    while True:
        n += 1
        row = journal.append("card", {"seat": n % 7 + 1, "card": "7S", "pad": "p" * (n % 300)}, n)
        print(row, flush=True)
"""


class Writer:
    """A journal writer in a child process; collects the lines it prints on a thread."""

    def __init__(self, path: Path, mode: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), mode],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._changed:
                self.lines.append(line.strip())
                self._changed.notify_all()

    def wait_for_lines(self, count: int, timeout: float = 120.0) -> None:
        """Wait until the child printed ``count`` lines; fail instead of hanging. The bound
        is generous: a child started at `nice -n 19` on two cores shared with a mutation
        run (load 20) took more than 30 s to print its first line."""
        with self._changed:
            stalled = not self._changed.wait_for(lambda: len(self.lines) >= count, timeout)
        if stalled:
            self.kill()
            pytest.fail(f"writer stalled after {len(self.lines)} lines")

    def kill(self) -> list[str]:
        """SIGKILL the child; every line it printed before dying."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self._reader.join(timeout=10)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.process.stdout.close()
        return self.lines


def test_a_writer_killed_inside_a_transaction_loses_no_committed_row(journal_path: Path) -> None:
    writer = Writer(journal_path, "uncommitted")
    writer.wait_for_lines(1)
    wal = journal_path.with_name(journal_path.name + "-wal")
    assert read_wal_state(wal).interrupted  # the open transaction's pages are in the WAL
    assert writer.kill() == ["ready"]
    report = verify(journal_path)
    assert report.case is VerifyCase.INTERRUPTED and report.ok
    assert report.rows == 20
    # The station reopens it and carries on; the discarded transaction is gone.
    with Journal.open(journal_path) as journal:
        assert journal.append("station_started", {}) == 21
    assert verify(journal_path).case is VerifyCase.INTACT


@pytest.mark.parametrize("seed", range(5))
def test_a_writer_killed_at_a_random_moment_loses_no_committed_row(
    journal_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    for _ in range(2):  # kill, restart, kill again on the same file
        writer = Writer(journal_path, "loop")
        writer.wait_for_lines(rng.randint(1, 60))
        acknowledged = writer.kill()
        report = verify(journal_path)
        assert report.ok, report.message
        with Journal.open(journal_path) as journal:
            present = {row.id for row in journal.rows()}
        assert {int(line) for line in acknowledged} <= present
