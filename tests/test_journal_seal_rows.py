"""Seal rows only the journal writes, one per epoch, in no round (docs/journal.md, "Sealing"):
what ``journal verify --key`` says of a seal row an insider moved into a round or wrote with a
key of an epoch already used, and the append path that refuses a seal or checkpoint row.

The insider here holds the journal file and, for the second case, a copy of an older key
file (the window docs/journal.md states): the chain is kept whole and the head record
matched, so only the seal's own checks can tell.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from journal_tamper_support import append_chained, read_rows
from test_journal_checkpoint_rows import StoredRow, rechain, station
from test_journal_seal import _hkdf_expand_32

from controller.journal.format import (
    JournalRecordError,
)
from controller.journal.seal import SealingState, VerificationKey
from controller.journal.store import Journal
from controller.journal.verify import VerifyCase, verify

__all__ = ["station"]  # the fixture: a journal two starts wrote, its key file and key
TS = "2026-12-01T10:00:00.000000Z"


def seal_rows(path: Path) -> list[tuple[int, dict[str, object]]]:
    return [(row[0], json.loads(row[4])) for row in read_rows(path) if row[2] == "seal"]


def test_a_seal_moved_into_a_round_is_refused(
    station: tuple[Path, Path, VerificationKey],
) -> None:
    """The last seal's round set to 2 and the chain made again after it: the seal's MAC
    (which covers the table, epoch, row, head and time) still holds."""
    path, _, key = station
    target = seal_rows(path)[-1][0]

    def into_round_2(row: StoredRow) -> StoredRow:
        i, ts, kind, round_no, data = row
        return i, ts, kind, 2 if i == target else round_no, data

    rechain(path, into_round_2)
    assert verify(path).ok  # the chain alone does not tell
    report = verify(path, key=key)
    assert report.case is VerifyCase.SEAL and report.first_bad_row == target
    assert report.message.startswith(f"seal: row {target}: a seal belongs to no round"), report


def test_a_second_seal_of_an_epoch_already_used_is_refused(
    station: tuple[Path, Path, VerificationKey], tmp_path: Path
) -> None:
    """The insider kept the key file of an earlier epoch and seals rows of their own with it
    after the station's last seal: a good MAC, but its epoch came before."""
    path, key_file, key = station
    copy = SealingState.from_json(key_file.read_text())  # the epoch the next seal would use
    used = copy.epoch - 1
    older = SealingState(copy.table, used, key.epoch_key(used))

    append_chained(path, "seal", lambda i, ts, prev: older.seal(i - 1, prev, ts), TS)
    report = verify(path, key=key)
    assert report.case is VerifyCase.SEAL, report.message
    last = seal_rows(path)[-1][0]
    assert report.message.startswith(
        f"seal: row {last}: epoch {used} where epoch {copy.epoch} was due"
    ), report.message


@pytest.mark.parametrize("kind", ["seal", "verified"])
def test_seal_and_checkpoint_rows_cannot_be_appended(tmp_path: Path, kind: str) -> None:
    """Only the journal writes them (sealed with its key, a checkpoint naming the row before
    it): an append of either kind is refused in one line and writes nothing."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("round_started", {"round": 1, "seats": []}, 1)
        with pytest.raises(JournalRecordError) as caught:
            journal.append(kind, {"epoch": 0, "through": 1}, None)
        assert str(caught.value) == f"{kind} rows are written by the journal itself"
        journal.append("round_completed", {"reshuffle": False}, 1)
    kinds = [row[2] for row in read_rows(path)]
    assert kinds == ["round_started", "round_completed"]


@given(st.lists(st.integers(min_value=0, max_value=12), min_size=1, max_size=8))
@settings(max_examples=60, deadline=None)
def test_a_verification_key_gives_each_epochs_documented_key_whatever_order_it_is_asked(
    epochs: list[int],
) -> None:
    """docs/journal.md: k_{e+1} = HKDF-Expand-SHA256(k_e, info="dealer-station seal evolve
    v1", 32). ``verify --key`` asks for epochs in any order (a walk, then a checkpoint's
    earlier epoch); each answer is the chain's key, worked here from k0 one step at a time."""
    k0 = bytes(range(32))
    chain = [k0]
    while len(chain) <= max(epochs):
        chain.append(_hkdf_expand_32(chain[-1], b"dealer-station seal evolve v1"))
    key = VerificationKey("T1", k0)
    for epoch in epochs:
        assert key.epoch_key(epoch) == chain[epoch], epochs
