"""Writing archive segments (``controller/journal/archive/writer.py``, docs/journal.md
"Archive"): a segment is whole or absent after a power cut at any moment of its writing,
so its file is synced whole under a temporary name before the rename, and the folder after
it. One small sealed journal, archived in segments of at least 20 rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from fsync_support import spy

from controller.journal.archive import archive, read_header, segments
from controller.journal.seal import new_sealing, save_state
from controller.journal.store import Journal

TABLE = "T1"


def play(journal: Journal, rounds: int) -> None:
    """Rounds of four rows, each followed by its seal (docs/journal.md, "seal")."""
    for round_no in range(1, rounds + 1):
        journal.append("round_started", {"round": round_no, "seats": []}, round_no)
        journal.append("card", {"card": "7S", "hand": 1, "role": "hit", "seat": 1}, round_no)
        journal.append("state", {"state": "settling"}, round_no)
        journal.append("round_completed", {"reshuffle": False}, round_no)


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    state, _key = new_sealing(TABLE)
    save_state(tmp_path / "sealing-key", state)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        play(journal, 10)  # rows 1..50: segments 1-20 and 21-40, rows 41..50 wait
    return path


def test_each_segment_is_synced_whole_before_its_rename_and_the_folder_after(
    journal_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "archive"
    folder.mkdir()
    events = spy(monkeypatch)
    written = archive(journal_path, folder, table=TABLE, segment_rows=20)
    assert len(written) >= 2
    for path in written:
        content = path.read_bytes()
        renamed = events.index(("replace", str(path), b""))
        synced = [i for i, e in enumerate(events) if e[0] == "fsync" and e[2] == content]
        folder_synced = [i for i, e in enumerate(events) if e[:2] == ("fsync", str(folder))]
        assert synced and synced[0] < renamed, events
        assert folder_synced and folder_synced[-1] > renamed, events
        # the synced file was the temporary, not the segment's own name
        assert all(Path(events[i][1]).name.startswith(f".{path.name}.") for i in synced)
    assert sorted(p.name for p in folder.iterdir()) == [p.name for p in segments(folder)]
    assert read_header(written[0]).first == 1
