"""The sealing key file is replaced so that a power cut at any moment leaves one whole state
(docs/journal.md, docs/operations.md): the new state is written to a temporary file and
synced before the rename, the directory synced after it; a write that fails leaves the
previous state and nothing beside it, and a seal whose key cannot evolve says so in one line.

The real calls run; a spy (``tests/fsync_support.py``) notes what each ``fsync`` reached
and in which order.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from fsync_support import Events, spy

from controller.journal.format import JournalWriteError
from controller.journal.seal import SealingState, load_state, new_sealing, save_state
from controller.journal.store import Journal

TABLE = "T1"


def new_key_file(directory: Path) -> tuple[SealingState, Path]:
    """A new table's sealing state (epoch 0), saved as ``directory/sealing-key``."""
    state, _ = new_sealing(TABLE)
    key_file = directory / "sealing-key"
    save_state(key_file, state)
    return state, key_file


def assert_synced_around_the_rename(events: Events, key_file: Path, state: SealingState) -> None:
    whole = state.to_json().encode() + b"\n"
    renamed = events.index(("replace", str(key_file), b""))
    synced_file = [i for i, e in enumerate(events) if e[0] == "fsync" and e[2] == whole]
    synced_dir = [i for i, e in enumerate(events) if e[:2] == ("fsync", str(key_file.parent))]
    assert synced_file and synced_file[0] < renamed, events
    assert synced_dir and synced_dir[-1] > renamed, events


def test_the_state_is_synced_whole_before_its_rename_and_the_directory_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, _ = new_sealing(TABLE)
    key_file = tmp_path / "sealing-key"
    events = spy(monkeypatch)
    save_state(key_file, state)
    assert_synced_around_the_rename(events, key_file, state)
    assert load_state(key_file) == state


def test_each_seal_syncs_the_evolved_key_before_it_replaces_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round completed is sealed: the next epoch's state is on the disk, synced, before
    the old key file's name points at it."""
    state, key_file = new_key_file(tmp_path)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=key_file) as journal:
        journal.append("round_started", {"round": 1, "seats": []}, 1)
        events = spy(monkeypatch)
        journal.append("round_completed", {"reshuffle": False}, 1)
    evolved = load_state(key_file)
    assert evolved == state.evolved()
    assert_synced_around_the_rename(events, key_file, evolved)


@pytest.mark.parametrize("fails", ["write", "fsync", "replace"])
def test_a_state_write_that_fails_leaves_the_previous_state_and_nothing_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    state, key_file = new_key_file(tmp_path)
    before = key_file.read_bytes()

    def broken(*args: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, fails, broken)
    with pytest.raises(OSError, match="No space left on device"):
        save_state(key_file, state.evolved())
    monkeypatch.undo()
    assert key_file.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sealing-key"]


def test_a_seal_whose_key_cannot_evolve_is_a_one_line_write_error_naming_the_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seal row is committed; the key file stays at the old epoch (the next start
    evolves it, ``controller.journal.opening``), and the error says which row is sealed."""
    state, key_file = new_key_file(tmp_path)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=key_file) as journal:
        journal.append("round_started", {"round": 1, "seats": []}, 1)
        journal.append("card", {"seat": 1, "role": "initial", "card": "7S"}, 1)

        def full(*args: object) -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(os, "replace", full)
        with pytest.raises(JournalWriteError) as caught:
            journal.append("round_completed", {"reshuffle": False}, 1)
        monkeypatch.undo()
    # Rows 1-3, and the seal of rows 1..3 in row 4.
    assert str(caught.value) == (
        "row 4 sealed, but the sealing key could not be evolved: No space left on device"
    )
    assert load_state(key_file) == state
