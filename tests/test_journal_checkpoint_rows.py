"""A checkpoint row that is not what the journal writes, and a head record that does not
match the last row (docs/journal.md, "What a start proves"): the start refuses either in one
line that names the row and what is wrong with it, and ``journal verify --key`` does the
same for every checkpoint it walks over.

Each row here is appended by an insider with the journal file and not the key file: chained,
the head record rewritten, the triggers made again and SQLite's schema cookie put back
(``tests/test_journal_start.py``'s helpers), so only the checkpoint's own check can see it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from journal_tamper_support import append_chained, chained, change_rows, read_rows, schema_cookie
from test_journal_start import refused, start

from controller.journal.format import GENESIS_HASH, canonical_json, head_path, head_record
from controller.journal.seal import VerificationKey, new_sealing, save_state
from controller.journal.storage import storage_of
from controller.journal.verify import VerifyCase, verify

TABLE = "T1"
TS = "2026-12-01T10:00:00.000000Z"
Data = Callable[[int, str, int], object]


@pytest.fixture
def station(tmp_path: Path) -> tuple[Path, Path, VerificationKey]:
    """A journal two starts wrote (a round each), its key file and verification key."""
    state, key = new_sealing(TABLE)
    key_file = tmp_path / "sealing-key"
    save_state(key_file, state)
    path = tmp_path / "journal.sqlite3"
    start(path, key_file, range(1, 2))
    start(path, key_file, range(2, 3))
    return path, key_file, key


def append_checkpoint(path: Path, data: Data, round_no: int | None = None) -> int:
    """Append a ``verified`` row whose data is ``data(row id, previous hash, schema cookie)``
    (any JSON value), chained and with a head record to match; its id."""
    cookie = schema_cookie(path)
    return append_chained(
        path, "verified", lambda i, _ts, prev: data(i, prev, cookie), TS, round_no
    )


def fields(row_id: int, prev: str, cookie: int, **more: object) -> dict[str, object]:
    """A checkpoint's fields as an unsealing station writes them, changed by ``more``."""
    return {"through": row_id - 1, "hash": prev, "schema": cookie, **more}


FIELDS = "fields are not through, hash, schema (key_epoch, mac)"


@pytest.mark.parametrize(
    ("data", "round_no", "reason"),
    [
        (lambda i, p, c: [i - 1, p], None, "data is not a JSON object"),
        (lambda i, p, c: fields(i, p, c, note="mine"), None, FIELDS),
        (lambda i, p, c: {"through": i - 1}, None, FIELDS),
        (lambda i, p, c: fields(i, p, c, through=str(i - 1)), None, "through is not int"),
        (lambda i, p, c: fields(i, p, c, schema=float(c) + 0.5), None, "schema is not int"),
        (fields, 2, "a checkpoint belongs to no round"),
        (lambda i, p, c: fields(i, p, c, through=i - 2), None, "does not check the row before it"),
    ],
    ids=["not-an-object", "extra-field", "missing-fields", "text-id", "odd-schema", "round", "gap"],
)
def test_a_malformed_checkpoint_is_refused_naming_the_row_and_the_fault(
    station: tuple[Path, Path, VerificationKey], data: Data, round_no: int | None, reason: str
) -> None:
    path, key_file, key = station
    row_id = append_checkpoint(path, data, round_no)
    message = refused(path, key_file)
    assert message.endswith(f"failed verification: altered: row {row_id}: checkpoint {reason}"), (
        message
    )
    report = verify(path, key=key)
    assert report.first_bad_row == row_id
    if isinstance(data(row_id, "", 0), dict):
        assert report.case is VerifyCase.SEAL, report.message
        assert report.message == f"seal: row {row_id}: checkpoint {reason}", report.message
    else:  # the walk refuses any row whose data is no object, a checkpoint or not
        assert report.message == f"altered: row {row_id}: data is not a JSON object"


@pytest.mark.parametrize(
    "mac", ["0" * 64, "\ud800" * 8, "é" * 64], ids=["zeros", "lone-surrogate", "non-ascii"]
)
def test_a_checkpoint_with_a_mac_not_made_with_the_key_is_refused_in_one_line(
    station: tuple[Path, Path, VerificationKey], mac: str
) -> None:
    """Whatever text stands in the MAC (one JSON may carry: a lone surrogate as ``\\ud800``
    included), the start and ``verify --key`` say the MAC does not match, never a traceback."""
    path, key_file, key = station
    epoch_taken = 1  # any epoch already sealed
    row_id = append_checkpoint(
        path, lambda i, p, c: fields(i, p, c, key_epoch=epoch_taken, mac=mac)
    )
    message = refused(path, key_file)
    assert f"checkpoint: row {row_id}: its MAC does not match the checkpoint key" in message
    report = verify(path, key=key)
    assert report.case is VerifyCase.SEAL
    assert report.message.startswith(
        f"seal: row {row_id}: checkpoint its MAC does not match the checkpoint key"
    ), report.message


def test_a_checkpoint_the_station_wrote_is_taken_as_it_stands(
    station: tuple[Path, Path, VerificationKey],
) -> None:
    """The other side: the journal as the station left it starts, and each of its sealed
    checkpoints checks out with the key."""
    path, key_file, key = station
    start(path, key_file, range(3, 4))
    report = verify(path, key=key)
    assert report.case is VerifyCase.INTACT, report.message
    assert "3 sealed checkpoints good" in report.message, report.message


#: A row as read back: (id, ts, kind, round, data).
StoredRow = tuple[int, str, str, int | None, str]


def rechain(path: Path, change: Callable[[StoredRow], StoredRow]) -> None:
    """The insider's rewrite: each row passed through ``change`` (ids kept), every hash made
    again and a head record to match; a checkpoint's data stays as the station wrote it
    unless ``change`` alters it (so its MAC still holds)."""
    rows = chained([change(row) for row in read_rows(path)], GENESIS_HASH, 1)
    change_rows(path, lambda _: rows)
    head_path(path).write_bytes(head_record(len(rows), rows[-1][6]))


def rehash_after_changing(path: Path, row_id: int) -> None:
    """Row ``row_id`` rewritten (its table or its seats changed), the chain made again."""

    def change(row: StoredRow) -> StoredRow:
        i, ts, kind, round_no, data = row
        if i == row_id:
            data = data.replace("T1", "T9").replace("[]", "[1]")
        return i, ts, kind, round_no, data

    rechain(path, change)


def checkpoint_ids(path: Path) -> list[int]:
    return [row[0] for row in read_rows(path) if row[2] == "verified"]


def test_a_row_rewritten_before_the_checkpoint_is_refused_by_the_hash_the_checkpoint_names(
    station: tuple[Path, Path, VerificationKey],
) -> None:
    """The row the last checkpoint names, and the chain after it, made again: the chain is
    whole and the checkpoint's MAC holds, but the hash it names is not the row's any more."""
    path, key_file, _ = station
    last = checkpoint_ids(path)[-1]
    rehash_after_changing(path, last - 1)
    assert verify(path).ok  # the chain alone does not tell
    assert refused(path, key_file).endswith(
        f"failed verification: altered: row {last - 1} differs from the checkpoint in row {last}"
    )


def test_the_first_row_rewritten_under_a_checkpoint_that_names_it_is_refused(
    tmp_path: Path,
) -> None:
    """A checkpoint at row 2 names row 1 (a journal the station opened, wrote one row in and
    checkpointed): row 1 rewritten is refused as well."""
    from controller.journal.store import Journal

    state, _ = new_sealing(TABLE)
    key_file = tmp_path / "sealing-key"
    save_state(key_file, state)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=key_file) as journal:
        journal.append("round_started", {"round": 1, "seats": []}, 1)
        assert journal.checkpoint() == 2
    rehash_after_changing(path, 1)
    assert refused(path, key_file).endswith("altered: row 1 differs from the checkpoint in row 2")


def test_triggers_made_again_make_the_start_walk_every_row_and_say_so(
    station: tuple[Path, Path, VerificationKey],
) -> None:
    """A trigger dropped and made again as it was (SQLite's schema cookie moves on): nothing
    changed, and the start, no longer able to take its checkpoint's word, walks every row
    and says why in its report."""
    path, key_file, _ = station
    last = checkpoint_ids(path)[-1]
    conn = sqlite3.connect(path, isolation_level=None)
    storage = storage_of(conn)
    name = storage.main_triggers[0]
    conn.execute(f"DROP TRIGGER {name}")
    conn.execute(storage.triggers[name])
    conn.close()
    report = verify(path, since_checkpoint=True)
    assert report.case is VerifyCase.INTACT, report.message
    note = f"the schema changed since the checkpoint in row {last}: every row walked"
    assert report.notes == (note,)
    assert report.message.startswith(f"intact: {report.rows} rows,") and report.message.endswith(
        "; " + note
    )
    assert (
        report.rows == len(read_rows(path)) > last
    )  # every row, those before the checkpoint included
    start(path, key_file, range(3, 4))


def _schema_faults(table: str, update: str, delete: str) -> list[Any]:
    """The schema faults of a file whose rows' table is ``table``, its append-only triggers
    ``update`` and ``delete``, and what the start and verify name for each."""
    cases = [
        (
            [f"DROP TRIGGER {update}", f"DROP TRIGGER {delete}"],
            f"append-only triggers removed ({update}, {delete})",
            "journal-removed",
        ),
        (
            ["DROP TRIGGER meta_no_update", "DROP TRIGGER meta_no_delete"],
            "append-only triggers removed (meta_no_update, meta_no_delete)",
            "meta-removed",
        ),
        (
            [f"DROP TRIGGER {delete}", "DROP TRIGGER meta_no_delete"],
            f"append-only triggers removed ({delete}, meta_no_delete)",
            "one-of-each",
        ),
        (
            [
                f"DROP TRIGGER {delete}",
                f"CREATE TRIGGER {delete} BEFORE DELETE ON {table} BEGIN SELECT 1; END",
                "DROP TRIGGER meta_no_update",
                "CREATE TRIGGER meta_no_update BEFORE UPDATE ON meta BEGIN SELECT 1; END",
            ],
            f"append-only triggers changed ({delete}, meta_no_update): they may not refuse",
            "changed",
        ),
        (
            [
                f"CREATE TRIGGER quiet AFTER INSERT ON {table} BEGIN SELECT 1; END",
                "CREATE TRIGGER a_quiet AFTER INSERT ON meta BEGIN SELECT 1; END",
            ],
            "triggers the journal never made (a_quiet, quiet)",
            "extra",
        ),
    ]
    storage_format = 2 if table == "journal_commit" else 1
    return [
        pytest.param(
            storage_format,
            change,
            problem,
            marks=pytest.mark.journal_format(storage_format),
            id=f"format-{storage_format}-{name}",
        )
        for change, problem, name in cases
    ]


@pytest.mark.parametrize(
    ("storage_format", "change", "problem"),
    _schema_faults("journal", "journal_no_update", "journal_no_delete")
    + _schema_faults("journal_commit", "journal_commit_no_update", "journal_commit_no_delete"),
)
def test_the_schema_fault_names_every_trigger_concerned(
    station: tuple[Path, Path, VerificationKey],
    storage_format: int,
    change: list[str],
    problem: str,
) -> None:
    path, key_file, _ = station
    conn = sqlite3.connect(path, isolation_level=None)
    assert storage_of(conn).version == storage_format
    for statement in change:
        conn.execute(statement)
    conn.close()
    report = verify(path)
    assert report.case is VerifyCase.SCHEMA
    assert report.message.startswith(f"schema: {problem}; the chain of "), report.message
    assert problem in refused(path, key_file)


def test_a_journal_from_before_checkpoints_starts_with_the_key_file_taken_up_from_version_1(
    tmp_path: Path,
) -> None:
    """A journal an older station sealed without checkpoints, and its key file in the format
    of version 1 (no checkpoint key): the key is taken up at its epoch and has sealed nothing
    since, so no checkpoint is owed and the start goes on (and writes the first)."""
    from controller.journal.seal import SealingState
    from controller.journal.store import Journal

    state, key = new_sealing(TABLE)
    key_file = tmp_path / "sealing-key"
    save_state(key_file, state)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=key_file) as journal:
        journal.append("station_started", {"table_id": TABLE})
        journal.append("round_started", {"round": 1, "seats": []}, 1)
        journal.append("round_completed", {"reshuffle": False}, 1)  # sealed: epoch 1
    assert checkpoint_ids(path) == []
    now = SealingState.from_json(key_file.read_text())
    assert now.epoch > 0
    key_file.write_text(
        canonical_json({"version": 1, "table": TABLE, "epoch": now.epoch, "key": now.key.hex()})
    )
    start(path, key_file, range(2, 3))
    assert verify(path, key=key).case is VerifyCase.INTACT


# --- the head record -----------------------------------------------------------------------


def test_a_head_record_naming_the_last_row_with_another_hash_is_refused(
    station: tuple[Path, Path, VerificationKey],
) -> None:
    """The head record (docs/journal.md) names the last row and its hash: the right row
    with another hash means the row was rewritten after the head record was written (or
    the head record replaced), and the journal is not taken as intact."""
    path, key_file, key = station
    last = read_rows(path)[-1][0]
    head_path(path).write_bytes(head_record(last, "f" * 64))
    expected = f"altered: row {last} differs from the head record"
    for report in (verify(path), verify(path, key=key), verify(path, since_checkpoint=True)):
        assert (report.case, report.message, report.first_bad_row) == (
            VerifyCase.ALTERED,
            expected,
            last,
        )
    assert refused(path, key_file).endswith(expected)


def test_a_checkpoint_naming_a_key_epoch_past_the_seals_before_it_is_refused(
    station: tuple[Path, Path, VerificationKey],
) -> None:
    """A station takes its checkpoint key up at an epoch already sealed, or the one to come
    (docs/journal.md): a checkpoint that names a later epoch was not written by it."""
    path, _, key = station
    seals = sum(row[2] == "seal" for row in read_rows(path))
    row_id = append_checkpoint(
        path, lambda i, p, c: fields(i, p, c, key_epoch=seals + 1, mac="0" * 64)
    )
    report = verify(path, key=key)
    assert report.message == (
        f"seal: row {row_id}: checkpoint names key epoch {seals + 1}, past the {seals} seals"
        " before it"
    ), report.message


def test_a_checkpoint_naming_the_epoch_to_come_is_checked_by_its_mac(
    station: tuple[Path, Path, VerificationKey],
) -> None:
    """The other side of the range: the epoch to come (as many as the seals before it) is
    allowed, and the checkpoint then stands or falls by its MAC."""
    path, _, key = station
    seals = sum(row[2] == "seal" for row in read_rows(path))
    row_id = append_checkpoint(path, lambda i, p, c: fields(i, p, c, key_epoch=seals, mac="0" * 64))
    report = verify(path, key=key)
    assert report.message == (
        f"seal: row {row_id}: checkpoint its MAC does not match the checkpoint key"
    ), report.message


def test_an_unsealed_checkpoint_after_the_key_has_sealed_is_refused_saying_so(
    station: tuple[Path, Path, VerificationKey],
) -> None:
    """A checkpoint as a station without a key writes it, appended by the insider: the key
    the station holds has sealed since it took its checkpoint key up, so the checkpoint
    must be sealed, and the one line says what may have happened."""
    path, key_file, _ = station
    row_id = append_checkpoint(path, fields)
    assert refused(path, key_file).endswith(
        f"failed verification: checkpoint: row {row_id}: it is not sealed: a checkpoint the"
        " station did not write, or a sealing key file that is not this journal's"
    )


def test_a_journal_without_a_checkpoint_whose_key_has_sealed_is_refused_saying_so(
    station: tuple[Path, Path, VerificationKey],
) -> None:
    """The chain made again without its checkpoint rows (renumbered, every hash recomputed):
    the key file has sealed since it took its checkpoint key up, so a checkpoint is owed."""
    from test_journal_start import forge

    path, key_file, _ = station
    forge(path, lambda rows: rows, checkpoints=False)
    assert checkpoint_ids(path) == []
    assert refused(path, key_file).endswith(
        "failed verification: checkpoint: the journal holds no checkpoint, but its sealing key"
        " has sealed since it made one: rows rewritten without the key?"
    )
