"""What a start proves without the verification key (docs/journal.md, "What a start
proves"), tried as an insider with the journal file but not the key file would: the
daemon's own start (``controller.service.daemon.open_journal``) on a sealed journal that
three starts wrote, after each kind of tampering.

Every tampering here keeps the chain whole where the insider can (hashes recomputed, the
head record rewritten, the triggers made again and SQLite's schema cookie put back), so
that only what the start checks can catch it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from journal_tamper_support import (
    BOTH_FORMATS,
    Rows,
    append_chained,
    behind_the_triggers,
    chained,
    change_rows,
    raw_rows,
    read_rows,
    schema_cookie,
    trigger_targets,
)

from controller.journal.checkpoint import checkpoint_data
from controller.journal.format import GENESIS_HASH, canonical_json, head_path, head_record
from controller.journal.seal import SealingState, VerificationKey, new_sealing, save_state
from controller.journal.storage import RawRow, storage_of
from controller.journal.store import Journal
from controller.journal.verify import VerifyCase, verify
from controller.service.daemon import StartError, open_journal

TABLE = "T1"
__all__ = ["behind_the_triggers", "read_rows", "schema_cookie"]  # used by other tests


def start(path: Path, key_file: Path, rounds: range) -> None:
    """One start of the station (its check, checkpoint and seal) that plays ``rounds``."""
    journal = open_journal(path, key_file)
    try:
        journal.append("station_started", {"table_id": TABLE})  # sealed with the start
        for round_no in rounds:
            journal.append("round_started", {"round": round_no, "seats": []}, round_no)
            journal.append("card", {"seat": 1, "role": "initial", "card": "7S"}, round_no)
            journal.append("settlement", {"seat": 1, "net_cents": 500}, round_no)
            journal.append("round_completed", {"reshuffle": False}, round_no)  # and a seal
    finally:
        journal.close()


@pytest.fixture
def station(tmp_path: Path) -> tuple[Path, Path, VerificationKey]:
    """A journal three starts wrote (two rounds each), its key file and verification key."""
    state, key = new_sealing(TABLE)
    key_file = tmp_path / "sealing-key"
    save_state(key_file, state)
    path = tmp_path / "journal.sqlite3"
    for first in (1, 3, 5):
        start(path, key_file, range(first, first + 2))
    assert verify(path, key=key).case is VerifyCase.INTACT
    return path, key_file, key


def forge(path: Path, change: Callable[[Rows], Rows], *, checkpoints: bool = True) -> None:
    """The insider's rewrite: change rows, renumber them, recompute every hash; each
    checkpoint row made to name its new row and hash (``checkpoints``) as a start without a
    key would write it, and left out otherwise; a matching head record."""
    cookie = schema_cookie(path)
    rows = [row for row in change(read_rows(path)) if checkpoints or row[2] != "verified"]
    forged: list[RawRow] = []
    prev = GENESIS_HASH
    for new_id, (_, ts, kind, round_no, stored) in enumerate(rows, start=1):
        data = stored
        if kind == "verified":
            data = canonical_json(checkpoint_data(new_id, ts, prev, schema=cookie, sealing=None))
        (row,) = chained([(new_id, ts, kind, round_no, data)], prev, new_id)
        forged.append(row)
        prev = row[6]
    change_rows(path, lambda _: forged)
    head_path(path).write_bytes(head_record(len(rows), prev))


def append_row(path: Path, kind: str, data: Callable[[int, str, str], dict[str, object]]) -> None:
    """Append one row at the end, chained, with a head record to match."""
    append_chained(path, kind, data, "2026-12-01T10:00:00.000000Z")


def refused(path: Path, key_file: Path) -> str:
    with pytest.raises(StartError) as caught:
        open_journal(path, key_file)
    message = str(caught.value)
    assert "\n" not in message
    return message


def settlement_ids(path: Path) -> list[int]:
    return [row[0] for row in read_rows(path) if row[2] == "settlement"]


def update_a_settlement(path: Path, row_id: int) -> None:
    """Row ``row_id``'s 500 made 900 in place, its hash kept."""
    change_rows(
        path,
        lambda rows: [
            (i, ts, k, r, d.replace("500", "900") if i == row_id else d, p, h)
            for i, ts, k, r, d, p, h in rows
        ],
    )


# --- the checkpoint ------------------------------------------------------------------------


@pytest.mark.parametrize("mac", ["none", "random", "moved"])
def test_a_checkpoint_appended_by_an_insider_is_refused(
    station: tuple[Path, Path, VerificationKey], mac: str
) -> None:
    """A settlement after the last start's checkpoint is changed in place, and a checkpoint
    appended after it so that the next start would not hash that row: unsealed, sealed with
    a key of the insider's own, or a real checkpoint's MAC carried to the new place."""
    path, key_file, _ = station
    last = settlement_ids(path)[-1]
    update_a_settlement(path, last)
    real = [row for row in read_rows(path) if row[2] == "verified"][-1]
    cookie = schema_cookie(path)

    def forged(row_id: int, ts: str, prev_hash: str) -> dict[str, object]:
        if mac == "none":
            return checkpoint_data(row_id, ts, prev_hash, schema=cookie, sealing=None)
        if mac == "random":
            other = SealingState(TABLE, 0, os.urandom(32))
            return checkpoint_data(row_id, ts, prev_hash, schema=cookie, sealing=other)
        return {**json.loads(real[4]), "through": row_id - 1, "hash": prev_hash}

    append_row(path, "verified", forged)
    assert "checkpoint" in refused(path, key_file)


@pytest.mark.parametrize("checkpoints", [True, False], ids=["checkpoints-rewritten", "stripped"])
def test_a_journal_rewritten_without_the_key_is_refused(
    station: tuple[Path, Path, VerificationKey], checkpoints: bool
) -> None:
    """The insider rewrites the chain (a settlement changed, every hash after it made
    again), and either writes each checkpoint again as an unsealing station would or
    leaves them out: the key the station holds has sealed since it wrote its checkpoint."""
    path, key_file, key = station
    target = settlement_ids(path)[0]

    def change(rows: Rows) -> Rows:
        return [
            (i, ts, kind, r, data.replace("500", "900") if i == target else data)
            for i, ts, kind, r, data in rows
        ]

    forge(path, change, checkpoints=checkpoints)
    assert verify(path).ok  # the chain is whole: only the seals and checkpoints tell
    assert "checkpoint" in refused(path, key_file)
    assert verify(path, key=key).case is VerifyCase.SEAL


def test_a_round_cut_out_before_the_checkpoint_is_refused(
    station: tuple[Path, Path, VerificationKey],
) -> None:
    """Round 2's four rows deleted, the ids left with a gap before the last checkpoint. Each
    start wrote 13 rows (checkpoint, start, seal; two rounds of four rows and a seal)."""
    path, key_file, _ = station
    change_rows(path, lambda rows: [row for row in rows if row[3] != 2])
    message = refused(path, key_file)
    assert message.endswith(
        "removed: 4 of rows 1..39 are missing (the ids skip); `journal verify` names the first"
    ), message


def test_an_update_behind_dropped_triggers_makes_the_start_walk_every_row(
    station: tuple[Path, Path, VerificationKey],
) -> None:
    """Round 1's settlement (long before the last checkpoint) changed behind dropped and
    remade triggers: SQLite's schema cookie moved, so the start hashes every row."""
    path, key_file, _ = station
    first = settlement_ids(path)[0]
    cookie = schema_cookie(path)
    update_a_settlement(path, first)  # puts the schema cookie back: moved again below
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA schema_version = {cookie + 1}")
    conn.close()
    assert f"altered: row {first}: content does not match its hash" in refused(path, key_file)


def test_an_untouched_journal_starts_hashing_only_the_rows_after_its_checkpoint(
    station: tuple[Path, Path, VerificationKey],
) -> None:
    path, key_file, _ = station
    checkpoint = [row[0] for row in read_rows(path) if row[2] == "verified"][-1]
    report = verify(path, since_checkpoint=True)
    assert report.ok and report.message.startswith(f"intact: rows {checkpoint}.."), report.message
    start(path, key_file, range(7, 8))
    assert verify(path, key=station[2]).case is VerifyCase.INTACT


# --- the key file -------------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
def test_a_key_file_of_another_chain_at_the_right_epoch_is_refused(
    station: tuple[Path, Path, VerificationKey], version: int
) -> None:
    """A random key at the epoch the journal expects (a state file of today's format, or
    one written by hand in the format of version 1)."""
    path, key_file, _ = station
    epoch = SealingState.from_json(key_file.read_text()).epoch
    other = SealingState(TABLE, epoch, os.urandom(32))
    if version == 2:
        save_state(key_file, other)
    else:
        key_file.write_text(
            canonical_json({"version": 1, "table": TABLE, "epoch": epoch, "key": other.key.hex()})
        )
    assert "not this journal's" in refused(path, key_file)


def test_a_leftover_key_temporary_is_removed_at_start(
    station: tuple[Path, Path, VerificationKey],
) -> None:
    """A station killed between writing the next key and its rename leaves
    ``.sealing-key.PID.tmp`` (the next epoch's key): the start removes it, and only it."""
    path, key_file, key = station
    leftover = key_file.with_name(f".{key_file.name}.4242.tmp")
    leftover.write_text(key_file.read_text())
    kept = [key_file.with_name(f".{key_file.name}.tmp"), key_file.with_name("notes.4242.tmp")]
    for other in kept:
        other.write_text("not a key")
    start(path, key_file, range(7, 8))
    assert not leftover.exists()
    assert all(other.exists() for other in kept)
    assert verify(path, key=key).case is VerifyCase.INTACT


def test_a_copied_key_file_reseals_from_its_epoch_on_and_an_anchor_after_shows_it(
    station: tuple[Path, Path, VerificationKey], tmp_path: Path
) -> None:
    """The window docs/journal.md states: an insider who copied the key file at epoch E
    rewrites rows after the seal of epoch E-1 and seals them again with the copy. The start
    and ``verify --key`` accept it (the key is evolved from E as the station's was); an
    anchor the floor took at a seal after the changed rows shows the journal forked."""
    from controller.journal.anchor import latest_anchor
    from controller.journal.reader import JournalReader

    path, key_file, key = station
    copy = tmp_path / "copied-key"
    copy.write_bytes(key_file.read_bytes())  # taken at the last stop
    start(path, key_file, range(7, 9))
    with JournalReader.open(path) as reader:
        anchor = reader.query(latest_anchor)
    assert anchor is not None
    # Cut back to where the copy was taken (no hash to recompute), then play again.
    cut = [i for i, _, kind, _, _ in read_rows(path) if kind == "verified"][-1] - 1

    kept = [row for row in raw_rows(path) if row[0] <= cut]
    change_rows(path, lambda _: kept)
    head_path(path).write_bytes(head_record(cut, kept[-1][6]))
    save_state(key_file, SealingState.from_json(copy.read_text()))
    start(path, key_file, range(7, 9))  # the insider's version of rounds 7 and 8
    assert verify(path, key=key).case is VerifyCase.INTACT
    assert verify(path, anchor=anchor).case is VerifyCase.FORKED


# --- the triggers ------------------------------------------------------------------------


@pytest.mark.parametrize("storage_format", BOTH_FORMATS)
def test_triggers_of_the_right_name_that_do_nothing_are_found(
    station: tuple[Path, Path, VerificationKey], storage_format: int
) -> None:
    path, key_file, _ = station
    conn = sqlite3.connect(path, isolation_level=None)
    assert storage_of(conn).version == storage_format
    for name, (verb, table) in trigger_targets(conn).items():
        conn.execute(f"DROP TRIGGER {name}")
        conn.execute(f"CREATE TRIGGER {name} BEFORE {verb} ON {table} BEGIN SELECT 1; END")
    conn.close()
    report = verify(path)
    assert report.case is VerifyCase.SCHEMA and "changed" in report.message, report.message
    assert "changed" in refused(path, key_file)


@pytest.mark.parametrize("storage_format", BOTH_FORMATS)
def test_a_trigger_the_journal_never_made_is_found(
    station: tuple[Path, Path, VerificationKey], storage_format: int
) -> None:
    path, _, _ = station
    conn = sqlite3.connect(path, isolation_level=None)
    (_, table) = next(iter(trigger_targets(conn).values()))  # the rows' table
    assert storage_of(conn).version == storage_format
    conn.execute(f"CREATE TRIGGER quiet AFTER INSERT ON {table} BEGIN SELECT 1; END")
    conn.close()
    report = verify(path)
    assert report.case is VerifyCase.SCHEMA and "quiet" in report.message, report.message


# --- verify --key ---------------------------------------------------------------------------


def test_verify_with_the_key_checks_every_sealed_checkpoint(tmp_path: Path) -> None:
    """A checkpoint sealed with a checkpoint key that is not the chain's (the seals good)."""
    state, key = new_sealing(TABLE)
    wrong = SealingState(TABLE, 0, state.key, 0, os.urandom(32))
    key_file = tmp_path / "sealing-key"
    save_state(key_file, wrong)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=key_file) as journal:
        journal.checkpoint()
        journal.append("station_started", {"table_id": TABLE})
    report = verify(path, key=key)
    assert report.case is VerifyCase.SEAL, report.message
    assert report.message.startswith("seal: row 1: checkpoint its MAC does not match"), report


def test_a_rollback_with_its_key_file_is_refused_once_the_floor_acknowledged_more(
    station: tuple[Path, Path, VerificationKey], tmp_path: Path
) -> None:
    """The insider puts back the journal and its key file of an hour ago, together: each
    is consistent with the other, and a start cannot tell from them alone (without a floor
    link it starts: the window docs/journal.md states). With a floor link, the collector's
    last acknowledgement, kept beside the journal, names a row the old copy does not hold:
    the start is refused."""
    from controller.journal.format import head_path as head_of
    from controller.service.outbox import ack_path, save_ack

    path, key_file, _ = station
    saved = tmp_path / "saved"
    saved.mkdir()
    for file in (path, head_of(path), key_file):
        (saved / file.name).write_bytes(file.read_bytes())
    start(path, key_file, range(7, 9))
    last = read_rows(path)[-1]
    digest = raw_rows(path)[-1][6]
    save_ack(ack_path(path), last[0], digest)  # what the collector confirmed
    for file in (path, head_of(path), key_file):
        file.write_bytes((saved / file.name).read_bytes())
    message = refused(path, key_file)
    assert f"the floor acknowledged row {last[0]}, which the journal does not hold" in message
    ack_path(path).unlink()  # no floor link: nothing beside the journal says otherwise
    start(path, key_file, range(7, 8))
