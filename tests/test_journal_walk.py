"""The walk along the hash chain (``controller.journal.walk``), on small journals made in
the test: fast cases beside the whole-journal ones of tests/test_journal_verify.py and
tests/test_journal_verify_walk.py."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.journal.format import GENESIS_HASH
from controller.journal.seal import new_sealing, save_state
from controller.journal.storage import storage_of
from controller.journal.store import Journal
from controller.journal.verify import verify
from controller.journal.walk import checkpoint_problem, raw_rows, walk


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_checkpoint_written_without_a_key_checks_out_with_the_key_sealed_later(
    tmp_path: Path, storage_format: int
) -> None:
    """docs/journal.md: a checkpoint written before checkpoints were sealed (or by a
    station without a key) holds no MAC: a walk with the verification key takes it as it
    is, and counts no sealed checkpoint for it."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=storage_format) as journal:
        journal.append("station_started", {})
        unsealed = journal.checkpoint()
    state, key = new_sealing("T1")
    save_state(tmp_path / "sealing-key", state)
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        journal.append("station_started", {})
        journal.seal()
        assert journal.sealed_through == journal.last_id  # every row sealed
    conn = sqlite3.connect(path)
    try:
        row = next(r for r in storage_of(conn).rows() if r.id == unsealed)
        assert "mac" not in row.data
        assert checkpoint_problem(row, key, 0) == ""
        chain = walk(raw_rows(conn, 0), 0, GENESIS_HASH, key)
    finally:
        conn.close()
    assert chain.failure is None
    assert chain.seals >= 1 and chain.checkpoints == 0
    report = verify(path, key=key)
    assert report.ok, report.message
