"""``journal verify``'s reports, each whole (docs/journal.md, "`journal verify`": its cases
in the order it looks for them, `--tail`, `--key`, `--anchor`, an operator's proof), on
small journals written per test on tmpfs (``daemon_support.journal_dir``: SQLite's fsyncs
cost nothing there): seconds for the whole file, so that a mutation run of
``controller/journal/verify.py`` can afford it per mutant.

The journal most tests read, worked out by hand (``_sealed``): row 1 the start's sealed
checkpoint; rounds 1..3 of four rows each (round_started, hole_card_dealt,
hole_card_revealed, round_completed) and their seal: rows 2..6, 7..11, 12..16 (seals at
rows 6, 11 and 16, epochs 0..2); row 17 an event after the last seal, not sealed yet.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from daemon_support import journal_dir
from journal_tamper_support import (
    behind_the_triggers,
    damage_first_page,
    index_out_of_step,
    stored_hash,
    tamper,
)
from test_journal_wal import wal_file

from controller.journal import verify as verify_module
from controller.journal.anchor import Anchor
from controller.journal.format import head_path, head_record
from controller.journal.proof import Proof, make_proof
from controller.journal.reader import open_readonly
from controller.journal.report import VerifyCase, VerifyReport
from controller.journal.seal import VerificationKey, load_state, new_sealing, save_state
from controller.journal.startcheck import StartTrust
from controller.journal.storage import storage_of
from controller.journal.store import Journal
from controller.journal.verify import verify
from controller.journal.walk import Chain
from controller.rules.cards import parse_card
from controller.table.holecard import commit_hole_card

TABLE = "T1"
#: The sealed journal's rows (see the module docstring).
LAST = 17
SEALS = (6, 11, 16)
INTERRUPTED_NOTE = "an uncommitted transaction (interrupted write) was discarded"


@dataclass(frozen=True)
class Sealed:
    path: Path
    key: VerificationKey
    state: Path  # the sealing state file


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    with journal_dir(tmp_path) as path:
        yield path


def write_round(journal: Journal, round_no: int, *, card: str = "5D", shown: str = "") -> None:
    """Round ``round_no``'s four rows: its hole card ``card`` committed, then revealed as
    ``shown`` (``card`` unless given)."""
    journal.append("round_started", {"round": round_no, "seats": []}, round_no)
    commitment, nonce = commit_hole_card(parse_card(card))
    journal.append("hole_card_dealt", {"commitment": commitment}, round_no)
    journal.append("hole_card_revealed", {"card": shown or card, "nonce": nonce}, round_no)
    journal.append("round_completed", {"reshuffle": False}, round_no)


def _sealed(folder: Path) -> Sealed:
    state, key = new_sealing(TABLE)
    save_state(folder / "sealing-key", state)
    path = folder / "journal.sqlite3"
    with Journal.open(path, sealing=folder / "sealing-key") as journal:
        journal.checkpoint()
        for round_no in (1, 2, 3):
            write_round(journal, round_no)
        journal.append("event", {"type": "after the last seal"})
    return Sealed(path, key, folder / "sealing-key")


@pytest.fixture
def sealed(folder: Path) -> Sealed:
    return _sealed(folder)


def _plain(folder: Path, rounds: int, name: str = "journal.sqlite3") -> Path:
    """An unsealed journal of ``rounds`` rounds (rows 1..4 round 1, 5..8 round 2, ...)."""
    path = folder / name
    with Journal.open(path) as journal:
        for round_no in range(1, rounds + 1):
            write_round(journal, round_no)
    return path


def _write_head(path: Path, row: int, digest: str) -> None:
    head_path(path).write_bytes(head_record(row, digest))


def _page_damaged(path: Path) -> None:
    """A table of its own whose first page's header is overwritten: damage SQLite's
    ``quick_check`` reads and the chain never does."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("CREATE TABLE extra(a)")
        conn.executemany("INSERT INTO extra VALUES (?)", [("x" * 100,)] * 10)
    finally:
        conn.close()
    damage_first_page(path, "name = 'extra'")


PAGE_PROBLEM = "row 1 missing from index extra_a"


def _seals_line(seals: int, first: int, through: int, checkpoints: int = 1) -> str:
    text = f"{seals} seals good (epochs 0..{seals - 1}, rows {first}..{through})"
    return text + (f", {checkpoints} sealed checkpoints good" if checkpoints else "")


# -- a good journal -----------------------------------------------------------------------


def test_a_good_sealed_journal_is_intact_with_every_count_and_the_last_seal(
    sealed: Sealed,
) -> None:
    """With the key: every row, the 3 commitments, the 3 seals and the sealed checkpoint,
    the row after the last seal named, and the last seal proved for a proof file."""
    report = verify(sealed.path, key=sealed.key)
    assert report == VerifyReport(
        VerifyCase.INTACT,
        f"intact: {LAST} rows, chain and 3 hole-card commitments good; "
        + _seals_line(3, 1, 16)
        + "; rows 17..17 not sealed yet",
        LAST,
        None,
        3,
        (),
        (16, stored_hash(sealed.path, 16), 3),
    )
    assert report.ok


def test_without_the_key_the_seals_are_not_checked_and_nothing_is_proved(sealed: Sealed) -> None:
    assert verify(sealed.path) == VerifyReport(
        VerifyCase.INTACT,
        f"intact: {LAST} rows, chain and 3 hole-card commitments good;"
        " seals not checked (no --key)",
        LAST,
        None,
        3,
    )


def test_a_journal_sealed_to_its_last_row_names_no_rows_unsealed(folder: Path) -> None:
    state, key = new_sealing(TABLE)
    save_state(folder / "sealing-key", state)
    path = folder / "journal.sqlite3"
    with Journal.open(path, sealing=folder / "sealing-key") as journal:
        write_round(journal, 1)  # rows 1..4, its seal row 5
    report = verify(path, key=key)
    assert report.message == (
        "intact: 5 rows, chain and 1 hole-card commitments good;"
        " 1 seals good (epochs 0..0, rows 1..5)"
    )
    assert report.sealed == (5, stored_hash(path, 5), 1)


def test_an_empty_journal_is_intact_with_or_without_a_key_or_head(folder: Path) -> None:
    """No row: nothing lost at the end to see (no head_missing) and nothing a key should
    have sealed (no unsealed)."""
    path = folder / "journal.sqlite3"
    Journal.open(path).close()
    _, key = new_sealing(TABLE)
    head_path(path).unlink()
    assert verify(path) == VerifyReport(
        VerifyCase.INTACT,
        "intact: 0 rows, chain and 0 hole-card commitments good; seals not checked (no --key)",
    )
    report = verify(path, key=key)
    assert report.case is VerifyCase.INTACT and report.sealed is None, report.message
    assert report.message == (
        "intact: 0 rows, chain and 0 hole-card commitments good;"
        " 0 seals good (epochs 0..-1, rows 1..0)"
    )


# -- missing, corrupt, no journal ---------------------------------------------------------


def test_no_file_is_missing(folder: Path) -> None:
    path = folder / "absent.sqlite3"
    assert verify(path) == VerifyReport(VerifyCase.MISSING, f"missing: no journal at {path}")
    (folder / "a-folder").mkdir()
    assert verify(folder / "a-folder").case is VerifyCase.MISSING


def test_a_file_that_is_no_database_is_corrupt_in_one_line(folder: Path) -> None:
    path = folder / "journal.sqlite3"
    path.write_bytes(b"not a database\n" * 100)
    report = verify(path)
    assert report.case is VerifyCase.CORRUPT and report.rows == 0, report.message
    assert report.message.startswith("corrupt: ") and "\n" not in report.message


def _rows_page_damaged(path: Path) -> None:
    """The header of the first page of the table that holds the rows (format 1's
    ``journal``, format 2's ``journal_commit``) overwritten: the file opens (its schema
    reads), and reading the rows fails."""
    damage_first_page(path, "type = 'table' AND name IN ('journal', 'journal_commit')")


@pytest.mark.parametrize("damage", ["cut short", "rows' page"])
@pytest.mark.parametrize("how", ["start", "proof"])
def test_a_damaged_file_that_no_page_check_reads_is_corrupt_as_sqlite_says(
    sealed: Sealed, damage: str, how: str
) -> None:
    """The start's check and a proof's walk run no page check: SQLite's own error, met as
    the file is opened (cut short: its header names pages it no longer has) or as its rows
    are read (a page of them damaged, the schema intact), is the report (``corrupt: PATH:
    error``), never a traceback."""
    proof = _proof(sealed, 6, 1)
    if damage == "cut short":
        os.truncate(sealed.path, 8192)
    else:
        _rows_page_damaged(sealed.path)
        open_readonly(sealed.path).close()  # the schema reads: the rows are what fail
    report = (
        verify(sealed.path, since_checkpoint=True)
        if how == "start"
        else verify(sealed.path, key=sealed.key, since=proof)
    )
    assert report == VerifyReport(
        VerifyCase.CORRUPT, f"corrupt: {sealed.path}: database disk image is malformed"
    )


@pytest.mark.parametrize("head_row", [None, 0])
def test_a_database_without_a_journal_table_is_corrupt(folder: Path, head_row: int | None) -> None:
    """Not a journal (no head record, or one naming no row): corrupt."""
    path = folder / "journal.sqlite3"
    sqlite3.connect(path).close()
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE other(x)")
    conn.commit()
    conn.close()
    if head_row is not None:
        _write_head(path, head_row, "00" * 32)
    assert verify(path) == VerifyReport(
        VerifyCase.CORRUPT, f"corrupt: {path} holds no journal table"
    )


def test_a_damaged_database_without_a_journal_table_is_corrupt_as_sqlite_says(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No row to walk over the cores (the threshold here 1 row): SQLite's page check runs
    first and names the damage."""
    path = folder / "journal.sqlite3"
    _page_damaged(path)
    monkeypatch.setattr(verify_module, "PARALLEL_MIN_ROWS", 1)
    report = verify(path, workers=2)
    assert report.case is VerifyCase.CORRUPT, report.message
    assert report.message.startswith(f"corrupt: {path}: ")
    assert "holds no journal table" not in report.message


def test_a_database_without_its_journal_table_beside_a_head_naming_rows_is_truncated(
    folder: Path,
) -> None:
    """docs/journal.md: a copy taken without its -wal file (the table never checkpointed
    into the database): the head record names row 1, so rows 1..1 are missing."""
    path = folder / "journal.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE other(x)")
    conn.commit()
    conn.close()
    _write_head(path, 1, "ab" * 32)
    assert verify(path) == VerifyReport(
        VerifyCase.TRUNCATED,
        f"truncated: rows 1..1 are missing (no journal table in {path};"
        " was it copied without its -wal file?)",
        0,
        1,
    )


# -- SQLite's page check: integrity_check, quick_check, none --------------------------------


def test_the_full_check_runs_the_integrity_check(sealed: Sealed) -> None:
    index_out_of_step(sealed.path)
    corrupt = VerifyReport(VerifyCase.CORRUPT, f"corrupt: {sealed.path}: {PAGE_PROBLEM}")
    assert verify(sealed.path) == corrupt
    assert verify(sealed.path, key=sealed.key) == corrupt
    assert verify(sealed.path, key=sealed.key, tail=3) == corrupt  # the key walks it all


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("threshold", [LAST, LAST + 1])
def test_the_integrity_check_runs_beside_a_walk_over_the_cores_or_before_one_walk(
    sealed: Sealed, monkeypatch: pytest.MonkeyPatch, workers: int, threshold: int
) -> None:
    """docs/journal.md, "A long walk": SQLite's integrity check runs beside the ranges; a
    shorter walk (or one core) gets it before. The same report either way."""
    index_out_of_step(sealed.path)
    monkeypatch.setattr(verify_module, "PARALLEL_MIN_ROWS", threshold)
    assert verify(sealed.path, workers=workers) == VerifyReport(
        VerifyCase.CORRUPT, f"corrupt: {sealed.path}: {PAGE_PROBLEM}"
    )


def test_the_tail_check_runs_the_quick_check_which_does_not_read_indexes(sealed: Sealed) -> None:
    """docs/journal.md: `--tail N` runs SQLite's `quick_check` instead of
    `integrity_check` (an index out of step with its table is the difference)."""
    index_out_of_step(sealed.path)
    report = verify(sealed.path, tail=3)
    assert report.case is VerifyCase.INTACT, report.message


def test_the_quick_check_runs_with_the_tail(sealed: Sealed) -> None:
    """A page SQLite's quick check reads, and the walk never does, damaged."""
    _page_damaged(sealed.path)
    report = verify(sealed.path, tail=3)
    assert report.case is VerifyCase.CORRUPT, report.message
    assert report.message.startswith(f"corrupt: {sealed.path}: ")


def test_the_start_and_a_proof_skip_the_page_check(sealed: Sealed) -> None:
    """docs/journal.md: the start's check and `--since` skip SQLite's page check."""
    _page_damaged(sealed.path)
    assert verify(sealed.path, since_checkpoint=True).case is VerifyCase.INTACT
    proof = make_proof(sealed.key, 11, stored_hash(sealed.path, 11), 2)
    report = verify(sealed.path, key=sealed.key, since=proof)
    assert report.case is VerifyCase.INTACT, report.message


# -- the head record ----------------------------------------------------------------------


def test_the_head_record_is_read_from_the_path_given(sealed: Sealed, folder: Path) -> None:
    elsewhere = folder / "elsewhere-head"
    head_path(sealed.path).rename(elsewhere)
    assert verify(sealed.path, head=elsewhere).case is VerifyCase.INTACT
    assert verify(sealed.path, head=str(elsewhere)).case is VerifyCase.INTACT
    assert verify(sealed.path).case is VerifyCase.HEAD_MISSING


def test_a_lost_head_record_is_head_missing(sealed: Sealed) -> None:
    head = head_path(sealed.path)
    head.unlink()
    assert verify(sealed.path) == VerifyReport(
        VerifyCase.HEAD_MISSING,
        f"head_missing: no head record at {head}: rows lost at the end would go unseen",
        LAST,
    )
    head.write_bytes(b"")  # an empty one tells nothing either
    assert verify(sealed.path).case is VerifyCase.HEAD_MISSING


def test_only_the_head_records_128_bytes_are_read(sealed: Sealed) -> None:
    """docs/journal.md: the head record is 128 bytes; what follows them is not its."""
    head = head_path(sealed.path)
    head.write_bytes(head.read_bytes()[:128] + b"{not the head}")
    assert verify(sealed.path).case is VerifyCase.INTACT


def test_a_head_record_ahead_of_the_rows_is_truncated(sealed: Sealed) -> None:
    _write_head(sealed.path, LAST + 2, "ab" * 32)
    assert verify(sealed.path) == VerifyReport(
        VerifyCase.TRUNCATED,
        f"truncated: rows {LAST + 1}..{LAST + 2} are missing at the end"
        f" (the head record names row {LAST + 2}, the last row is {LAST})",
        LAST,
        LAST + 1,
    )


def test_a_head_record_naming_the_last_row_with_another_hash_is_altered(sealed: Sealed) -> None:
    _write_head(sealed.path, LAST, "ab" * 32)
    assert verify(sealed.path) == VerifyReport(
        VerifyCase.ALTERED,
        f"altered: row {LAST} differs from the head record",
        LAST,
        LAST,
    )


def test_a_head_record_that_lags_is_allowed_if_its_row_matches(sealed: Sealed) -> None:
    """docs/journal.md: a head that lags is allowed; the row it names must still match."""
    _write_head(sealed.path, 10, stored_hash(sealed.path, 10))
    assert verify(sealed.path).case is VerifyCase.INTACT
    _write_head(sealed.path, 10, stored_hash(sealed.path, 9))
    assert verify(sealed.path) == VerifyReport(
        VerifyCase.ALTERED, "altered: row 10 differs from the head record", LAST, 10
    )


def test_a_head_record_naming_the_row_a_tail_begins_after_is_compared_no_more(
    folder: Path,
) -> None:
    """The tail of rounds 3..4 (rows 9..16) begins after row 8: a head naming row 9 is
    compared with it, one naming row 8 (not walked) is not."""
    path = _plain(folder, 4)
    _write_head(path, 9, "ab" * 32)
    assert verify(path, tail=8).case is VerifyCase.ALTERED
    _write_head(path, 8, "ab" * 32)
    report = verify(path, tail=8)
    assert report.case is VerifyCase.INTACT and report.rows == 8, report.message


# -- the chain, the triggers, the commitments ------------------------------------------------


def test_a_row_changed_behind_the_triggers_is_altered_at_that_row(sealed: Sealed) -> None:
    tamper(sealed.path, """UPDATE journal SET data = '{"type":"changed"}' WHERE id = 17""")
    report = verify(sealed.path)
    assert report.case is VerifyCase.ALTERED and report.first_bad_row == 17, report.message
    assert report.message.startswith("altered: row 17")


def test_a_row_removed_in_the_middle_is_removed_at_that_row(sealed: Sealed) -> None:
    tamper(sealed.path, "DELETE FROM journal WHERE id = 9")
    report = verify(sealed.path)
    assert report.case is VerifyCase.REMOVED and report.first_bad_row == 9, report.message


@pytest.mark.journal_format(2)
def test_an_index_entry_removed_is_its_row_altered(sealed: Sealed) -> None:
    """docs/journal.md, "Storage format 2": the index tables are the program's own; an
    entry removed behind the triggers is that row altered (row 2: round 1's start)."""
    behind_the_triggers(
        sealed.path, lambda conn: conn.execute("DELETE FROM journal_milestone WHERE id = 2")
    )
    assert verify(sealed.path) == VerifyReport(
        VerifyCase.ALTERED,
        "altered: row 2: its entry in the index tables does not match the row"
        " (added, removed or changed)",
        1,  # the row walked before it
        2,
    )


def test_a_dropped_trigger_is_a_schema_finding_over_an_intact_chain(sealed: Sealed) -> None:
    conn = sqlite3.connect(sealed.path, isolation_level=None)
    try:
        name = storage_of(conn).main_triggers[0]
        conn.execute(f"DROP TRIGGER {name}")
    finally:
        conn.close()
    assert verify(sealed.path) == VerifyReport(
        VerifyCase.SCHEMA,
        f"schema: append-only triggers removed ({name}); the chain of {LAST} rows is intact",
        LAST,
    )
    report = verify(sealed.path, tail=7)  # after row 10: row 11 is a seal, in no round
    assert report.message.endswith("; the chain of rows 11..17 is intact"), report.message


def test_a_reveal_that_does_not_open_its_commitment_counts_every_row(folder: Path) -> None:
    """docs/journal.md: `commitment`: `row N`: a reveal does not match its commitment;
    the rest of the chain is walked (its rows counted)."""
    path = folder / "journal.sqlite3"
    with Journal.open(path) as journal:
        write_round(journal, 1, card="5D", shown="6D")  # the reveal: row 3
        write_round(journal, 2)
    report = verify(path)
    assert report.case is VerifyCase.COMMITMENT and report.first_bad_row == 3, report.message
    assert report.rows == 8 and report.message.startswith("commitment: row 3")


def test_an_unsealed_journal_with_the_key_is_unsealed(folder: Path) -> None:
    path = _plain(folder, 2)
    _, key = new_sealing(TABLE)
    assert verify(path, key=key) == VerifyReport(
        VerifyCase.UNSEALED, "unsealed: no seal in 8 rows: the key proves nothing", 8, 1
    )


def test_an_interrupted_write_is_reported_and_the_journal_is_good(folder: Path) -> None:
    """docs/journal.md: `interrupted`: a transaction a crash cut short was left in the WAL
    (one frame of the current generation after the last commit frame)."""
    path = _plain(folder, 1)
    wal_file(path.with_name(path.name + "-wal"), [(0, (1, 2))])
    report = verify(path)
    assert report == VerifyReport(
        VerifyCase.INTERRUPTED,
        "interrupted: 4 rows, chain and 1 hole-card commitments good;"
        f" seals not checked (no --key); {INTERRUPTED_NOTE}",
        4,
        None,
        1,
        (INTERRUPTED_NOTE,),
    )
    assert report.ok


# -- --tail -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tail", "walked", "rows", "commitments"),
    [
        (4, "rows 13..16", 4, 1),  # after row 12: round 4 begins at row 13
        (5, "rows 9..16", 8, 2),  # after row 11, in round 3 (rows 9..12): from its start
        (8, "rows 9..16", 8, 2),  # after row 8: round 3's first row is the first walked
        (12, "rows 5..16", 12, 3),
        (13, "16 rows", 16, 4),  # after row 3, in round 1: from the genesis hash
        (15, "16 rows", 16, 4),  # after row 1, round 1's first: from the genesis hash
        (16, "16 rows", 16, 4),
        (1000, "16 rows", 16, 4),
    ],
)
def test_a_tail_walks_from_the_first_row_of_the_round_it_begins_in(
    folder: Path, tail: int, walked: str, rows: int, commitments: int
) -> None:
    path = _plain(folder, 4)
    report = verify(path, tail=tail)
    assert report == VerifyReport(
        VerifyCase.INTACT,
        f"intact: {walked}, chain and {commitments} hole-card commitments good;"
        " seals not checked (no --key)",
        rows,
        None,
        commitments,
    )


def test_a_tail_after_the_row_before_the_first_round_walks_from_that_row(sealed: Sealed) -> None:
    """The tail of 16 begins after row 1 (the checkpoint, in no round); row 2 begins round
    1: the walk begins after row 1, with its hash."""
    report = verify(sealed.path, tail=LAST - 1)
    assert report.case is VerifyCase.INTACT and report.rows == LAST - 1, report.message
    assert report.message.startswith(f"intact: rows 2..{LAST}, chain and 3 hole-card")


def test_a_tail_longer_than_the_journal_walks_it_from_the_genesis_hash(sealed: Sealed) -> None:
    for tail in (LAST, LAST + 1):
        report = verify(sealed.path, tail=tail)
        assert report.message.startswith(f"intact: {LAST} rows,"), report.message


def test_a_tail_of_an_empty_journal_is_intact(folder: Path) -> None:
    path = folder / "journal.sqlite3"
    Journal.open(path).close()
    for tail in (0, 1, 5):
        assert verify(path, tail=tail).message.startswith("intact: 0 rows,"), tail


def test_a_tail_whose_first_row_is_removed_names_it(folder: Path) -> None:
    """The tail of 8 begins after row 8: row 9, the first it walks, is gone."""
    path = _plain(folder, 4)
    tamper(path, "DELETE FROM journal WHERE id = 9")
    report = verify(path, tail=8)
    assert report.case is VerifyCase.REMOVED and report.first_bad_row == 9, report.message


def test_a_tail_sees_what_it_walks_and_not_what_it_does_not(folder: Path) -> None:
    path = _plain(folder, 4)
    tamper(path, """UPDATE journal SET data = '{"reshuffle":true}' WHERE id = 4""")
    assert verify(path, tail=8).ok
    report = verify(path, tail=13)
    assert report.case is VerifyCase.ALTERED and report.first_bad_row == 4, report.message


def test_a_tail_whose_first_row_is_gone_is_removed_there(folder: Path) -> None:
    """The tail of 8 begins after row 8; row 8 removed, its hash is nowhere to begin the
    walk with."""
    path = _plain(folder, 4)
    tamper(path, "DELETE FROM journal WHERE id = 8")
    assert verify(path, tail=8) == VerifyReport(
        VerifyCase.REMOVED, "removed: row 8: missing", first_bad_row=8
    )


def test_a_tail_is_ignored_with_the_key(sealed: Sealed) -> None:
    """docs/journal.md: `--key` proves every seal: the whole chain is walked."""
    report = verify(sealed.path, key=sealed.key, tail=2)
    assert report.rows == LAST and report.message.startswith(f"intact: {LAST} rows,")


# -- the start's check (since_checkpoint) ---------------------------------------------------


def _sealed_with_a_later_checkpoint(folder: Path) -> Sealed:
    """The sealed journal and a checkpoint at row 18 (through row 17: the start's, when
    the journal is opened again), then round 4: rows 19..22 and its seal at row 23."""
    made = _sealed(folder)
    with Journal.open(made.path, sealing=made.state) as journal:
        journal.checkpoint()
        write_round(journal, 4)
    return made


def test_the_start_walks_from_the_last_checkpoint(folder: Path) -> None:
    made = _sealed_with_a_later_checkpoint(folder)
    trust = StartTrust.of(load_state(made.state))
    # Rows 18..23: the checkpoint, round 4 (one hole card) and its seal; no note.
    assert verify(made.path, since_checkpoint=True, trust=trust) == VerifyReport(
        VerifyCase.INTACT,
        "intact: rows 18..23, chain and 1 hole-card commitments good; seals not checked (no --key)",
        6,
        None,
        1,
        (),
    )
    # A row before the checkpoint changed in place is the full check's to find.
    tamper(made.path, """UPDATE journal SET data = '{"type":"changed"}' WHERE id = 17""")
    assert verify(made.path, since_checkpoint=True, trust=trust).ok
    assert verify(made.path).case is VerifyCase.ALTERED


def test_the_start_walks_every_row_when_the_schema_moved_since_the_checkpoint(
    folder: Path,
) -> None:
    """docs/journal.md, "What a start proves": the schema cookie is the checkpoint's; if
    not, the start walks every row, and says so."""
    made = _sealed_with_a_later_checkpoint(folder)
    conn = sqlite3.connect(made.path)
    conn.execute("CREATE TABLE extra(a)")
    conn.close()
    note = "the schema changed since the checkpoint in row 18: every row walked"
    assert verify(made.path, since_checkpoint=True) == VerifyReport(
        VerifyCase.INTACT,
        f"intact: 23 rows, chain and 4 hole-card commitments good; seals not checked (no --key);"
        f" {note}",
        23,
        None,
        4,
        (note,),
    )


def test_the_start_opens_a_commitment_dealt_before_its_checkpoint(folder: Path) -> None:
    """docs/journal.md, "What a start proves": a reveal after the checkpoint is checked
    against its commitment even when that was dealt before it (a round open at the
    checkpoint: rows 1..2 of round 1, the checkpoint at row 3 through row 2)."""
    path = folder / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("round_started", {"round": 1, "seats": []}, 1)
        commitment, nonce = commit_hole_card(parse_card("5D"))
        journal.append("hole_card_dealt", {"commitment": commitment}, 1)
        journal.checkpoint()
        journal.append("hole_card_revealed", {"card": "5D", "nonce": nonce}, 1)
        journal.append("round_completed", {"reshuffle": False}, 1)
    report = verify(path, since_checkpoint=True)
    assert report.case is VerifyCase.INTACT, report.message
    assert report.message.startswith("intact: rows 3..5, chain and 1 hole-card commitments good")


def test_the_start_counts_the_rows_for_a_gap(sealed: Sealed) -> None:
    tamper(sealed.path, "DELETE FROM journal WHERE id = 3")
    assert verify(sealed.path, since_checkpoint=True) == VerifyReport(
        VerifyCase.REMOVED,
        f"removed: 1 of rows 1..{LAST} are missing (the ids skip); `journal verify` names"
        " the first",
    )


def test_the_start_refuses_a_journal_without_the_checkpoint_it_must_hold(folder: Path) -> None:
    path = _plain(folder, 1)
    state, _ = new_sealing(TABLE)
    trust = StartTrust(TABLE, state.checkpoint_key, True)
    assert verify(path, since_checkpoint=True, trust=trust) == VerifyReport(
        VerifyCase.CHECKPOINT,
        "checkpoint: the journal holds no checkpoint, but its sealing key has sealed since"
        " it made one: rows rewritten without the key?",
    )


def test_the_start_refuses_a_checkpoint_another_key_sealed(sealed: Sealed) -> None:
    other, _ = new_sealing(TABLE)
    report = verify(sealed.path, since_checkpoint=True, trust=StartTrust.of(other))
    assert report.case is VerifyCase.CHECKPOINT and report.rows == 0, report.message
    assert report.first_bad_row == 1


def test_the_start_check_is_the_full_one_with_the_key(sealed: Sealed) -> None:
    tamper(sealed.path, "DELETE FROM journal WHERE id = 3")
    report = verify(sealed.path, key=sealed.key, since_checkpoint=True)
    assert report.case is VerifyCase.REMOVED and report.first_bad_row == 3, report.message


# -- an operator's proof (--since) ------------------------------------------------------------


def _proof(sealed: Sealed, row: int, seals: int) -> Proof:
    return make_proof(sealed.key, row, stored_hash(sealed.path, row), seals)


def test_a_proof_walks_the_rows_after_its_seal_and_proves_the_next_seals(sealed: Sealed) -> None:
    report = verify(sealed.path, key=sealed.key, since=_proof(sealed, 6, 1))
    note = "rows 1..6 proved before (the proof of seal row 6)"
    assert report == VerifyReport(
        VerifyCase.INTACT,
        "intact: rows 7..17, chain and 2 hole-card commitments good;"
        " 2 seals good (epochs 1..2, rows 7..16); rows 17..17 not sealed yet; " + note,
        11,
        None,
        2,
        (note,),
        (16, stored_hash(sealed.path, 16), 3),
    )


def test_a_proof_of_the_last_seal_proves_that_seal_again(sealed: Sealed) -> None:
    """Nothing sealed after the proof's seal: the proof's own seal is the last one proved
    (its row, its hash, the seals through it) for the next proof file."""
    report = verify(sealed.path, key=sealed.key, since=_proof(sealed, 16, 3))
    assert report.case is VerifyCase.INTACT and report.rows == 1, report.message
    assert report.sealed == (16, stored_hash(sealed.path, 16), 3)
    assert report.message.startswith("intact: rows 17..17, chain and 0 hole-card")


def test_a_proof_is_ignored_without_the_key(sealed: Sealed) -> None:
    report = verify(sealed.path, since=_proof(sealed, 6, 1))
    assert report.rows == LAST and report.notes == (), report.message


def test_a_proof_refused_stops_the_check(sealed: Sealed) -> None:
    proof = _proof(sealed, 6, 1)
    forged = Proof(proof.table, 11, stored_hash(sealed.path, 11), proof.seals, proof.mac)
    report = verify(sealed.path, key=sealed.key, since=forged)
    assert report.case is VerifyCase.SEAL and report.message.startswith("seal: the proof file:")


def test_a_change_after_the_proofs_seal_is_found(sealed: Sealed) -> None:
    tamper(sealed.path, """UPDATE journal SET data = '{"type":"changed"}' WHERE id = 17""")
    report = verify(sealed.path, key=sealed.key, since=_proof(sealed, 11, 2))
    assert report.case is VerifyCase.ALTERED and report.first_bad_row == 17, report.message


def forked_report(row: int) -> VerifyReport:
    """What verify reports for a journal that is not the one a proof's seal names."""
    return VerifyReport(
        VerifyCase.FORKED,
        f"forked: row {row} is not the seal the proof names: the journal was rewritten or replaced",
        0,
        row,
    )


def behind_report(last: int, row: int) -> VerifyReport:
    """What verify reports for a journal that ends before a proof's seal."""
    return VerifyReport(
        VerifyCase.BEHIND,
        f"behind: the journal ends at row {last}, before the proof's seal at row {row}: rows"
        " removed or an older copy",
        0,
        last + 1,
    )


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda p, k: Proof(p.table, p.row, p.hash, p.seals, "0" * 64),
            VerifyReport(
                VerifyCase.SEAL, "seal: the proof file: its MAC does not match the verification key"
            ),
        ),
        (
            lambda p, k: Proof("T2", p.row, p.hash, p.seals, p.mac),
            VerifyReport(
                VerifyCase.SEAL,
                "seal: the proof file: the proof is of table 'T2', the key of table 'T1'",
            ),
        ),
        # The seal's row holds another hash: rewritten.
        (lambda p, k: make_proof(k, 11, "2" * 64, 2), forked_report(11)),
        # The row before the seal, with the seal's hash: not the seal.
        (lambda p, k: make_proof(k, 10, p.hash, 2), forked_report(10)),
        # The journal's last row (an event, no seal): the journal holds it, it differs.
        (lambda p, k: make_proof(k, LAST, p.hash, 3), forked_report(LAST)),
        # One past the journal's end: an older copy, the rows after its end in doubt.
        (lambda p, k: make_proof(k, LAST + 1, p.hash, 3), behind_report(LAST, LAST + 1)),
    ],
    ids=["mac", "table", "rewritten", "not-the-seal", "last-row", "behind"],
)
def test_each_refusal_of_a_proof_is_its_whole_report(
    sealed: Sealed, change: Any, expected: VerifyReport
) -> None:
    """docs/journal.md, "An operator's proof": a proof changed or made without the key is
    `seal: the proof file: ...`; `behind` when the journal ends before its seal, `forked`
    when the row differs; each names the first row in doubt."""
    proof = change(_proof(sealed, 11, 2), sealed.key)
    assert verify(sealed.path, key=sealed.key, since=proof) == expected


def test_a_proof_whose_seal_row_is_gone_or_of_an_empty_journal_is_refused(
    sealed: Sealed, folder: Path
) -> None:
    """The seal's row removed (the rows after it kept): forked at that row. A journal with
    no row at all: behind, from row 1, even for a seal at row 1."""
    proof = _proof(sealed, 11, 2)
    tamper(sealed.path, "DELETE FROM journal WHERE id = 11")
    assert verify(sealed.path, key=sealed.key, since=proof) == forked_report(11)
    empty = folder / "empty.sqlite3"
    Journal.open(empty).close()
    assert verify(empty, key=sealed.key, since=proof) == behind_report(0, 11)
    first = make_proof(sealed.key, 1, proof.hash, 1)
    assert verify(empty, key=sealed.key, since=first) == behind_report(0, 1)


# -- anchors ------------------------------------------------------------------------------


def _anchor(sealed: Sealed, row: int, epoch: int) -> Anchor:
    return Anchor(TABLE, row, epoch, stored_hash(sealed.path, row))


def test_an_anchor_the_journal_holds_matches(sealed: Sealed) -> None:
    report = verify(sealed.path, key=sealed.key, anchor=_anchor(sealed, 11, 1))
    assert report.case is VerifyCase.INTACT, report.message
    assert report.message.endswith("; rows 17..17 not sealed yet; anchor row 11 (epoch 1) matches")
    assert verify(sealed.path, anchor=_anchor(sealed, 16, 2)).message.endswith(
        "; seals not checked (no --key); anchor row 16 (epoch 2) matches"
    )


def test_a_journal_behind_its_anchor_is_behind(sealed: Sealed) -> None:
    anchor = Anchor(TABLE, 22, 3, "ab" * 32)
    assert verify(sealed.path, anchor=anchor) == VerifyReport(
        VerifyCase.BEHIND,
        f"behind: the journal ends at row {LAST}, before the anchor's seal at row 22 (epoch 3):"
        " rows removed or an older copy",
        LAST,
        LAST + 1,
    )


def test_a_journal_forked_from_its_anchor_is_forked(sealed: Sealed) -> None:
    anchor = Anchor(TABLE, 11, 1, "ab" * 32)
    assert verify(sealed.path, anchor=anchor) == VerifyReport(
        VerifyCase.FORKED,
        f"forked: row 11 is not the anchor's seal (table {TABLE}, epoch 1): the journal was"
        " rewritten or replaced",
        LAST,
        11,
    )


# -- over the cores -----------------------------------------------------------------------


@pytest.mark.parametrize("workers", [0, 1, 2])
def test_the_walk_over_the_cores_says_what_one_walk_says(
    sealed: Sealed, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """docs/journal.md, "A long walk": word for word the same report (the threshold here
    the journal's own length, so that any number of workers may take it)."""
    one = verify(sealed.path, key=sealed.key, workers=1)
    monkeypatch.setattr(verify_module, "PARALLEL_MIN_ROWS", LAST)
    assert verify(sealed.path, key=sealed.key, workers=workers) == one
    walked: list[int] = []
    verify(sealed.path, key=sealed.key, workers=workers, progress=walked.append)
    assert walked


@pytest.fixture
def ranges(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    """The walks over the cores verify starts (each one's keywords), the real walk run."""
    calls: list[dict[str, object]] = []
    real = verify_module.walk_parallel

    def spy(*args: Any, **kwargs: Any) -> Chain:
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(verify_module, "walk_parallel", spy)
    return calls


@pytest.mark.parametrize(
    "setting",  # (the threshold, the workers, whether the walk goes over the cores)
    [(LAST, 2, True), (LAST, 3, True), (LAST + 1, 2, False), (LAST, 1, False)],
)
def test_a_walk_of_the_threshold_s_rows_goes_over_the_cores_with_the_page_check_beside(
    sealed: Sealed,
    monkeypatch: pytest.MonkeyPatch,
    ranges: list[dict[str, object]],
    setting: tuple[int, int, bool],
) -> None:
    """docs/journal.md, "A long walk": from PARALLEL_MIN_ROWS rows on (set to the
    journal's length here) the walk is cut into one range a worker, and SQLite's
    integrity check runs in a process of its own beside them."""
    threshold, workers, parallel = setting
    monkeypatch.setattr(verify_module, "PARALLEL_MIN_ROWS", threshold)
    assert verify(sealed.path, key=sealed.key, workers=workers).case is VerifyCase.INTACT
    if not parallel:
        assert ranges == []
        return
    ((called),) = ranges
    assert (called["start"], called["last"], called["workers"]) == (0, LAST, workers)
    assert called["pages"] == "integrity_check" and called["key"] is sealed.key


@pytest.mark.parametrize(("threshold", "parallel"), [(LAST - 6, True), (LAST - 5, False)])
def test_the_rows_after_a_proofs_seal_are_what_counts_for_the_cores(
    sealed: Sealed,
    monkeypatch: pytest.MonkeyPatch,
    ranges: list[dict[str, object]],
    threshold: int,
    parallel: bool,
) -> None:
    """After the proof's seal at row 6: 11 rows to walk, no page check (`--since`)."""
    monkeypatch.setattr(verify_module, "PARALLEL_MIN_ROWS", threshold)
    report = verify(sealed.path, key=sealed.key, since=_proof(sealed, 6, 1), workers=2)
    assert report.case is VerifyCase.INTACT and report.rows == LAST - 6, report.message
    assert [(c["start"], c["pages"]) for c in ranges] == ([(6, None)] if parallel else [])


def test_an_empty_journal_is_walked_on_one_core(
    folder: Path, monkeypatch: pytest.MonkeyPatch, ranges: list[dict[str, object]]
) -> None:
    path = folder / "journal.sqlite3"
    Journal.open(path).close()
    monkeypatch.setattr(verify_module, "PARALLEL_MIN_ROWS", 1)
    assert verify(path, workers=2).case is VerifyCase.INTACT
    assert ranges == []


def test_a_change_is_found_over_the_cores(sealed: Sealed, monkeypatch: pytest.MonkeyPatch) -> None:
    tamper(sealed.path, """UPDATE journal SET data = '{"type":"changed"}' WHERE id = 17""")
    one = verify(sealed.path, key=sealed.key, workers=1)
    monkeypatch.setattr(verify_module, "PARALLEL_MIN_ROWS", LAST)
    assert verify(sealed.path, key=sealed.key, workers=2) == one
    assert one.case is VerifyCase.ALTERED and one.first_bad_row == 17


def test_a_copy_of_the_folder_verifies_the_same(sealed: Sealed, folder: Path) -> None:
    """The check reads the file alone (a copy of the journal and its head record, as an
    auditor takes them, says the same)."""
    copy = folder / "copy"
    copy.mkdir()
    for name in (sealed.path.name, head_path(sealed.path).name):
        shutil.copy(folder / name, copy / name)
    assert verify(copy / sealed.path.name, key=sealed.key) == verify(sealed.path, key=sealed.key)
