"""The walk over the cores (``controller.journal.ranges``) on a small sealed journal made in
each test: the ranges cut, begun and joined as one walk would see the rows, a range walked
in this process (the workers are forked: their code is reached here too), SQLite's page
check in one line, and the join of hand-made chains. Fast cases beside the whole journals of
tests/test_journal_verify_walk.py."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_journal_archive import play

from controller.journal import ranges
from controller.journal import walk as walk_module
from controller.journal.format import GENESIS_HASH, TRIGGER_SQL_2
from controller.journal.reader import open_readonly
from controller.journal.report import VerifyCase, VerifyReport
from controller.journal.seal import VerificationKey, new_sealing, save_state
from controller.journal.storage import storage_of
from controller.journal.store import Journal
from controller.journal.walk import Chain
from controller.rules.cards import parse_card
from controller.table.holecard import commit_hole_card

ROUNDS = 6
#: The checkpoint (row 1), then 7 rows a round (`play`): round r is rows 7r-5 .. 7r, its
#: hole card dealt at 7r-4 and revealed at 7r-2, and its seal at 7r+1.
LAST = 1 + 7 * ROUNDS  # 43
SEAL_ROWS = [7 * r + 1 for r in range(1, ROUNDS + 1)]  # 8, 15, ..., 43


def walk_whole(
    conn: sqlite3.Connection,
    path: Path,
    key: VerificationKey | None,
    workers: int,
    **more: Any,
) -> Chain:
    """The walk of the whole test journal (rows 1 to ``LAST`` from the genesis hash) on
    ``workers`` processes; ``more``: ``walk_parallel``'s other arguments."""
    return ranges.walk_parallel(
        conn, path, start=0, prev_hash=GENESIS_HASH, last=LAST, key=key, workers=workers, **more
    )


def sealed_journal(folder: Path, storage_format: int) -> tuple[Path, VerificationKey]:
    state, key = new_sealing("T1")
    save_state(folder / "sealing-key", state)
    path = folder / "journal.sqlite3"
    with Journal.open(
        path, sealing=folder / "sealing-key", storage_format=storage_format
    ) as journal:
        journal.checkpoint()
        play(journal, 1, ROUNDS)
        assert journal.last_id == LAST
    return path, key


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, VerificationKey]]:
    """The journal in each storage format, made once (only ranges' code runs per test)."""
    return {
        storage_format: sealed_journal(tmp_path_factory.mktemp("made"), storage_format)
        for storage_format in (1, 2)
    }


@pytest.fixture(params=[1, 2])
def journal(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    made: dict[int, tuple[Path, VerificationKey]],
) -> tuple[Path, VerificationKey]:
    """A copy of the journal of one storage format, with its key."""
    source, key = made[request.param]
    for name in os.listdir(source.parent):
        shutil.copy(source.parent / name, tmp_path / name)
    return tmp_path / source.name, key


@pytest.fixture
def conn(journal: tuple[Path, VerificationKey]) -> Iterator[sqlite3.Connection]:
    connection = open_readonly(journal[0])
    yield connection
    connection.close()


def hashes(conn: sqlite3.Connection) -> dict[int, str]:
    storage = storage_of(conn)
    found = {0: GENESIS_HASH}
    for row_id in range(1, LAST + 1):
        value = storage.hash_of(row_id)
        assert value is not None
        found[row_id] = value
    return found


def damage_page_2(path: Path) -> None:
    """Page 2's free-space count made wrong (SQLite's page check reports it on two lines)."""
    with sqlite3.connect(path) as merge:  # the WAL merged into the file
        merge.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    merge.close()
    raw = bytearray(path.read_bytes())
    page = int.from_bytes(raw[16:18], "big")
    raw[page + 7] = 0xFF  # page 2's b-tree header: its fragmented free bytes
    path.write_bytes(bytes(raw))


# --- the whole walk over the workers ----------------------------------------------------


@pytest.mark.parametrize("workers", [2, 3, 4, 43])
def test_the_ranges_walk_the_whole_journal_as_one_walk_would(
    journal: tuple[Path, VerificationKey], conn: sqlite3.Connection, workers: int
) -> None:
    """Any number of workers: every row walked once, each seal checked at its epoch (a range
    begun with the wrong count of seals before it fails its first seal), each reveal
    matched with its commitment even when it was dealt in the range before (4 workers: the
    second range begins at round 2's reveal, row 12), the sealed checkpoint counted, and the
    chain ending at the last row and seal; the progress adds up to the rows."""
    path, key = journal
    known = hashes(conn)
    reported: list[int] = []
    chain = walk_whole(conn, path, key, workers, progress=reported.append)
    assert chain.failure is None and chain.commitment_failure is None
    assert (chain.start, chain.rows, chain.last_id, chain.first_prev) == (
        0,
        LAST,
        LAST,
        GENESIS_HASH,
    )
    assert chain.last_hash == known[LAST]
    assert (chain.seals, chain.sealed_through, chain.sealed_hash) == (ROUNDS, LAST, known[LAST])
    assert chain.commitments == ROUNDS
    assert chain.checkpoints == 1  # row 1, sealed with the checkpoint key
    assert chain.pages == ""
    assert sum(reported) == LAST and all(n > 0 for n in reported)


class _LateSelect:
    """``select`` for a loaded machine: the pipe never found ready while the workers run (a
    poll of 10 ms instead of the quarter second's wait)."""

    @staticmethod
    def select(
        rlist: list[int], wlist: list[int], xlist: list[int], timeout: float
    ) -> tuple[list[int], list[int], list[int]]:
        time.sleep(0.01)
        return [], [], []


def test_the_progress_written_before_the_last_result_is_all_given(
    journal: tuple[Path, VerificationKey],
    conn: sqlite3.Connection,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The workers' reports still in the pipe when the last range's chain comes back are
    read then (once, the progress of a walk stopped short of its rows)."""
    path, key = journal
    monkeypatch.setattr(ranges, "select", _LateSelect)
    reported: list[int] = []
    chain = walk_whole(conn, path, key, 3, progress=reported.append)
    assert chain.failure is None and chain.rows == LAST
    assert sum(reported) == LAST and all(n > 0 for n in reported)


def test_the_progress_is_given_while_the_ranges_are_walked_not_only_at_their_end(
    journal: tuple[Path, VerificationKey],
    conn: sqlite3.Connection,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/operations.md: a long check shows its progress as it goes. Each worker here
    reports every row and then waits until the parent has given that report to the
    progress: a parent that read the pipe only once the ranges were done would leave the
    first worker waiting (its wait bounded: then its range fails)."""
    path, key = journal
    given_once = multiprocessing.get_context("fork").Event()
    report = ranges._count

    def report_then_wait(rows: int) -> None:
        report(rows)
        if not given_once.wait(30):
            raise AssertionError("no progress given while the ranges were walked")

    monkeypatch.setattr(walk_module, "PROGRESS_ROWS", 1)  # the workers are forked: theirs too
    monkeypatch.setattr(ranges, "_count", report_then_wait)
    reported: list[int] = []

    def given(rows: int) -> None:
        reported.append(rows)
        given_once.set()

    chain = walk_whole(conn, path, key, 2, progress=given)
    assert chain.failure is None and chain.rows == LAST
    assert sum(reported) == LAST


def test_the_workers_are_forked_whatever_the_default_start_method(
    journal: tuple[Path, VerificationKey], conn: sqlite3.Connection
) -> None:
    """The workers share the parent's progress pipe by its descriptor, which only a forked
    child has: the walk forks them even where the default start method is another (Python
    3.14 makes it ``forkserver`` on Linux; ``spawn`` here)."""
    path, key = journal
    before = multiprocessing.get_start_method(allow_none=True)
    multiprocessing.set_start_method("spawn", force=True)
    try:
        reported: list[int] = []
        chain = walk_whole(conn, path, key, 2, progress=reported.append)
    finally:
        multiprocessing.set_start_method(before, force=True)
    assert chain.failure is None and chain.rows == LAST
    assert sum(reported) == LAST


def test_progress_is_given_whole_reports_and_keeps_a_part_for_later() -> None:
    """A report is 8 bytes (a signed little-endian count of rows): the whole ones read so far
    go to the progress at once (their sum), a part is kept until the rest of it comes."""
    given: list[int] = []
    two = (5).to_bytes(8, "little") + (1000).to_bytes(8, "little")
    assert ranges._reported(two + b"\x07\x00\x00", given.append) == b"\x07\x00\x00"
    assert given == [1005]
    assert ranges._reported(b"\x07\x00\x00" + bytes(5), given.append) == b""
    assert given == [1005, 7]
    assert ranges._reported(b"\x01\x02", given.append) == b"\x01\x02"
    assert ranges._reported(b"", given.append) == b""
    assert given == [1005, 7]  # no report: no call
    assert ranges._reported(two, None) == b""


def test_a_walk_begun_after_a_row_starts_from_its_hash_and_its_seals(
    journal: tuple[Path, VerificationKey], conn: sqlite3.Connection
) -> None:
    """From row 12 (one seal before it, at row 8): the seals before the start and the last
    one's row and hash are carried in, and each range checks its seals at their epochs (the
    second range, rows 24..34, begins after the seals of rows 15 and 22)."""
    path, key = journal
    known = hashes(conn)
    chain = ranges.walk_parallel(
        conn,
        path,
        start=12,
        prev_hash=known[12],
        last=LAST,
        key=key,
        workers=3,
        sealed=(1, 8, known[8]),
    )
    assert chain.failure is None, chain.failure
    assert (chain.start, chain.rows, chain.last_id, chain.first_prev) == (
        12,
        LAST - 12,
        LAST,
        known[12],
    )
    assert (chain.seals, chain.sealed_through, chain.sealed_hash) == (ROUNDS, LAST, known[LAST])
    assert chain.commitments == 4  # rows 19, 26, 33, 40 (round 2's, row 12, is the start)


def test_a_walk_with_no_seal_in_its_rows_keeps_the_seal_it_was_given(
    journal: tuple[Path, VerificationKey], conn: sqlite3.Connection
) -> None:
    """Rows 9..14 hold no seal: the last seal stays the one before the start (row 8)."""
    path, key = journal
    known = hashes(conn)
    chain = ranges.walk_parallel(
        conn,
        path,
        start=8,
        prev_hash=known[8],
        last=14,
        key=key,
        workers=2,
        sealed=(1, 8, known[8]),
    )
    assert chain.failure is None, chain.failure
    assert (chain.rows, chain.last_id, chain.last_hash) == (6, 14, known[14])
    assert (chain.seals, chain.sealed_through, chain.sealed_hash) == (1, 8, known[8])


def test_the_page_check_runs_beside_the_walk_when_asked(
    journal: tuple[Path, VerificationKey], conn: sqlite3.Connection
) -> None:
    path, key = journal
    chain = walk_whole(conn, path, key, 2, pages="integrity_check")
    assert chain.failure is None and chain.rows == LAST and chain.pages == ""


def test_the_page_check_beside_the_walk_reports_a_damaged_page(
    journal: tuple[Path, VerificationKey],
) -> None:
    """SQLite's integrity check run beside the ranges reports what it finds (one line), while
    the rows themselves still walk whole."""
    path, key = journal
    damage_page_2(path)
    conn = open_readonly(path)
    try:
        chain = walk_whole(conn, path, key, 2, pages="integrity_check")
    finally:
        conn.close()
    assert chain.pages == "*** in database main ***; Page 2: free space corruption"


def test_a_wrong_key_fails_the_first_seal_in_the_first_range(
    journal: tuple[Path, VerificationKey], conn: sqlite3.Connection
) -> None:
    """With another table's key the checkpoint at row 1 fails first, whatever range later
    seals fail in: the first failure in row order is reported."""
    path, _ = journal
    other = new_sealing("T1")[1]
    chain = walk_whole(conn, path, other, 3)
    assert chain.failure is not None
    assert chain.failure.case is VerifyCase.SEAL
    assert chain.failure.first_bad_row == 1
    assert chain.failure.rows == 0


# --- one range, walked in this process --------------------------------------------------


@pytest.fixture
def progress_pipe(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """A worker's progress pipe, shared as the pool's initializer shares it; the read end."""
    monkeypatch.setattr(ranges, "_progress_fd", -1)
    read_end, write_end = os.pipe()
    ranges._share(write_end)
    yield read_end
    os.close(read_end)
    os.close(write_end)


def reported(read_end: int) -> int:
    raw = os.read(read_end, 1 << 16)
    assert len(raw) % 8 == 0
    return sum(int.from_bytes(raw[i : i + 8], "little", signed=True) for i in range(0, len(raw), 8))


def test_a_range_begins_at_the_prev_hash_its_first_row_stores(
    journal: tuple[Path, VerificationKey], conn: sqlite3.Connection, progress_pipe: int
) -> None:
    """Rows 12..22 after one seal (row 8): its first row's stored prev_hash (row 11's hash)
    begins it, round 2's reveal (row 12) is matched with the commitment dealt at row 10,
    before the range, and its seals (15, 22) are epochs 1 and 2. Its progress goes to the
    pipe, 8 bytes a report."""
    path, key = journal
    known = hashes(conn)
    chain = ranges._walk_range(path, (11, 22), key, (1, 8))
    assert chain.failure is None and chain.commitment_failure is None
    assert (chain.start, chain.rows, chain.last_id) == (11, 11, 22)
    assert (chain.first_prev, chain.last_hash) == (known[11], known[22])
    assert (chain.seals, chain.sealed_through, chain.sealed_hash) == (3, 22, known[22])
    assert chain.commitments == 2  # rows 12 and 19
    assert reported(progress_pipe) == 11


def test_the_first_range_begins_at_the_genesis_hash(
    journal: tuple[Path, VerificationKey], conn: sqlite3.Connection, progress_pipe: int
) -> None:
    path, key = journal
    known = hashes(conn)
    chain = ranges._walk_range(path, (0, 9), key, (0, 0))
    assert chain.failure is None
    assert (chain.start, chain.rows, chain.last_id) == (0, 9, 9)
    assert (chain.first_prev, chain.last_hash) == (GENESIS_HASH, known[9])
    assert (chain.seals, chain.sealed_through, chain.checkpoints) == (1, 8, 1)
    assert reported(progress_pipe) == 9


def test_a_range_past_the_last_row_begins_with_no_hash(
    journal: tuple[Path, VerificationKey], progress_pipe: int
) -> None:
    path, key = journal
    chain = ranges._walk_range(path, (LAST, LAST + 5), key, (ROUNDS, LAST))
    assert (chain.rows, chain.first_prev, chain.last_hash, chain.failure) == (0, "", "", None)


def test_a_range_told_the_wrong_count_of_seals_before_it_fails_its_first_seal(
    journal: tuple[Path, VerificationKey], progress_pipe: int
) -> None:
    path, key = journal
    chain = ranges._walk_range(path, (11, 22), key, (2, 8))
    assert chain.failure is not None
    assert (chain.failure.case, chain.failure.first_bad_row) == (VerifyCase.SEAL, 15)
    assert "(it seals rows 9..14)" in chain.failure.message


def test_a_damaged_file_in_a_worker_is_a_database_error_naming_it(
    tmp_path: Path, progress_pipe: int
) -> None:
    """The parent reports a file SQLite cannot read as corrupt (sqlite3.DatabaseError)."""
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"not a database at all, " * 100)
    with pytest.raises(sqlite3.DatabaseError) as caught:
        ranges._walk_range(path, (0, 5), None, (0, 0))
    assert str(caught.value) == f"{path}: file is not a database"


def test_a_range_begun_after_row_1_looks_up_the_hole_card_dealt_there(
    tmp_path: Path, progress_pipe: int
) -> None:
    """A range that begins after row 1 (a worker's range of a short walk) finds the
    commitment of a hole card dealt in row 1 and revealed in its own rows."""
    path = tmp_path / "journal.sqlite3"
    commitment, nonce = commit_hole_card(parse_card("5D"))
    with Journal.open(path) as journal:
        journal.append("hole_card_dealt", {"commitment": commitment}, 1)
        journal.append("hole_card_revealed", {"card": "5D", "nonce": nonce}, 1)
    chain = ranges._walk_range(path, (1, 2), None, (0, 0))
    assert (chain.failure, chain.commitment_failure) == (None, None)
    assert (chain.rows, chain.commitments) == (1, 1)


def test_a_range_checks_format_2s_index_entries_of_its_rows(
    tmp_path: Path, progress_pipe: int
) -> None:
    """docs/journal.md: format 2's index entries are checked against the rows they name by
    the walk; a range walked in a worker checks those of its own rows (an entry removed:
    its row reported altered)."""
    path, key = sealed_journal(tmp_path, 2)
    conn = sqlite3.connect(path)
    try:
        for name in TRIGGER_SQL_2:
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        conn.execute("DELETE FROM journal_milestone WHERE id = 16")  # round 3's round_started
        conn.commit()
    finally:
        conn.close()
    chain = ranges._walk_range(path, (11, 22), key, (1, 8))
    assert chain.failure is not None
    assert (chain.failure.case, chain.failure.first_bad_row) == (VerifyCase.ALTERED, 16)
    assert chain.failure.message.startswith("altered: row 16: ")


# --- SQLite's page check ------------------------------------------------------------------


@pytest.mark.parametrize("pragma", ["integrity_check", "quick_check"])
def test_an_undamaged_file_passes_the_page_check(
    journal: tuple[Path, VerificationKey], pragma: str
) -> None:
    assert ranges.page_check(journal[0], pragma) == ""


@pytest.mark.parametrize("pragma", ["integrity_check", "quick_check"])
def test_a_damaged_page_is_reported_on_one_line(
    journal: tuple[Path, VerificationKey], pragma: str
) -> None:
    """SQLite reports a page whose free-space count is wrong on two lines ("*** in database
    main ***", then the page): one line of them, joined by "; "."""
    path = journal[0]
    damage_page_2(path)
    assert (
        ranges.page_check(path, pragma) == "*** in database main ***; Page 2: free space corruption"
    )


def test_a_file_that_is_no_database_is_its_error_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"not a database at all, " * 100)
    assert ranges.page_check(path, "quick_check") == f"{path}: file is not a database"


def test_no_file_is_its_error_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    assert ranges.page_check(path, "quick_check") == f"no journal at {path}"


# --- the cores ------------------------------------------------------------------------------


def test_the_cores_are_those_this_process_may_run_on() -> None:
    assert ranges.cores() == len(os.sched_getaffinity(0))


def test_without_an_affinity_the_cores_are_the_machines(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(_pid: int) -> set[int]:
        raise OSError("no affinity here")

    monkeypatch.setattr(os, "sched_getaffinity", refused)
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert ranges.cores() == 6
    monkeypatch.delattr(os, "sched_getaffinity")
    assert ranges.cores() == 6
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert ranges.cores() == 1


# --- the join of the ranges' chains (made by hand) ----------------------------------------


def part(start: int, last: int, first_prev: str, last_hash: str, **counts: object) -> Chain:
    chain = Chain(
        start=start, last_id=last, rows=last - start, first_prev=first_prev, last_hash=last_hash
    )
    for name, value in counts.items():
        setattr(chain, name, value)
    return chain


def test_linked_ranges_join_into_one_chain() -> None:
    """Counts added, the seals the last range's (each range counts those before it), the last
    seal the latest one met, the last row and hash the last range's, the first hole-card
    problem kept."""
    first_problem = VerifyReport(VerifyCase.COMMITMENT, "first", 0, 4)
    later_problem = VerifyReport(VerifyCase.COMMITMENT, "later", 0, 14)
    chains = [
        part(
            10,
            20,
            "h10",
            "h20",
            commitments=1,
            checkpoints=1,
            seals=3,
            sealed_through=18,
            sealed_hash="h18",
        ),
        part(
            20,
            30,
            "h20",
            "h30",
            commitments=2,
            checkpoints=0,
            seals=3,
            sealed_through=0,
            commitment_failure=first_problem,
        ),
        part(
            30,
            35,
            "h30",
            "h35",
            commitments=4,
            checkpoints=2,
            seals=4,
            sealed_through=33,
            sealed_hash="h33",
            commitment_failure=later_problem,
        ),
    ]
    joined = ranges._join(chains, 10, "h10", (2, 7, "h7"))
    assert joined.failure is None
    assert (joined.start, joined.first_prev) == (10, "h10")
    assert (joined.rows, joined.last_id, joined.last_hash) == (25, 35, "h35")
    assert (joined.commitments, joined.checkpoints) == (7, 3)
    assert (joined.seals, joined.sealed_through, joined.sealed_hash) == (4, 33, "h33")
    assert joined.commitment_failure is first_problem


def test_ranges_with_no_seal_keep_the_seal_before_the_walk() -> None:
    chains = [part(10, 20, "h10", "h20", seals=2), part(20, 30, "h20", "h30", seals=2)]
    joined = ranges._join(chains, 10, "h10", (2, 7, "h7"))
    assert (joined.seals, joined.sealed_through, joined.sealed_hash) == (2, 7, "h7")
    assert joined.commitment_failure is None


def test_no_range_is_the_start() -> None:
    joined = ranges._join([], 10, "h10", (2, 7, "h7"))
    assert (joined.rows, joined.last_id, joined.last_hash, joined.failure) == (0, 10, "h10", None)
    assert (joined.seals, joined.sealed_through, joined.sealed_hash) == (2, 7, "h7")


def test_a_range_not_linked_to_the_one_before_is_its_first_row_rewritten() -> None:
    """Row 20 rewritten and its hash recomputed: the first range ends with the new hash, the
    second begins with the prev_hash row 21 stores: row 20 is reported, after the 10 rows
    walked before it; the ranges after are not looked at."""
    chains = [
        part(10, 20, "h10", "h20'", commitments=1),
        part(20, 30, "h20", "h30"),
        part(30, 40, "other", "h40"),
    ]
    joined = ranges._join(chains, 10, "h10", (0, 0, ""))
    assert joined.failure == VerifyReport(
        VerifyCase.ALTERED,
        "altered: row 20: rewritten (its hash no longer matches row 21's prev_hash)",
        10,
        20,
    )
    assert (joined.rows, joined.last_id, joined.commitments) == (10, 20, 1)


def test_a_first_range_not_linked_to_the_start_is_the_start_rewritten() -> None:
    joined = ranges._join([part(10, 20, "h10'", "h20")], 10, "h10", (0, 0, ""))
    assert joined.failure is not None
    assert (joined.failure.case, joined.failure.first_bad_row, joined.failure.rows) == (
        VerifyCase.ALTERED,
        10,
        0,
    )


def test_a_failure_inside_a_range_counts_the_rows_before_it() -> None:
    """The rows of the ranges before are added to the rows the failing range walked."""
    inside = VerifyReport(VerifyCase.ALTERED, "altered: row 24: content", 3, 24)
    chains = [
        part(10, 20, "h10", "h20"),
        part(20, 23, "h20", "h23", failure=inside),
        part(30, 40, "h30", "h40", failure=VerifyReport(VerifyCase.SEAL, "seal", 2, 33)),
    ]
    joined = ranges._join(chains, 10, "h10", (0, 0, ""))
    assert joined.failure == VerifyReport(VerifyCase.ALTERED, "altered: row 24: content", 13, 24)
    assert joined.rows == 10


def test_a_failed_range_is_reported_even_when_not_linked() -> None:
    """A range that failed is reported as it failed, its link not judged (its last hash is
    where its walk stopped)."""
    inside = VerifyReport(VerifyCase.REMOVED, "removed: row 21", 0, 21)
    joined = ranges._join([part(20, 20, "x", "x", failure=inside)], 20, "h20", (0, 0, ""))
    assert joined.failure == inside
