"""A journal batch is one object from its start to its end (``controller.journal.store``):
hypothesis runs any sequence of single appends and batches, some broken off by an
exception in the block, some read inside, and the journal holds exactly the rows of the
appends and of the batches that ended, once each, in one unbroken chain."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.journal.format import head_path
from controller.journal.store import Journal, JournalRecordError
from controller.journal.verify import verify


class BrokenOffError(Exception):
    """Raised inside a batch's block: none of its rows may stay."""


_SINGLE = st.tuples(st.just("single"), st.integers(1, 3), st.none(), st.booleans())
_BATCH = st.tuples(
    st.just("batch"),
    st.integers(0, 5),
    st.one_of(st.none(), st.integers(0, 5)),  # broken off after this many rows
    st.booleans(),  # the block reads the journal before it ends
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(_SINGLE, _BATCH), max_size=12))
def test_the_journal_holds_the_rows_of_every_batch_that_ended_and_no_other(
    steps: list[tuple[str, int, int | None, bool]],
) -> None:
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as d:
        path = Path(d) / "journal.sqlite3"
        expected: list[str] = []
        with Journal.open(path) as journal:
            for number, (how, count, broken_at, peek) in enumerate(steps):
                names = [f"{number}.{n}" for n in range(count)]
                if how == "single":
                    for name in names:
                        journal.append("event", {"type": "step", "name": name})
                    expected += names
                    continue
                try:
                    with journal.batch():
                        for n, name in enumerate(names):
                            if broken_at == n:
                                raise BrokenOffError
                            journal.append("event", {"type": "step", "name": name})
                        if peek:
                            seen = [r.data["name"] for r in journal.rows(kinds=("event",))]
                            assert seen == expected + names
                        if broken_at is not None and broken_at >= count:
                            raise BrokenOffError
                except BrokenOffError:
                    continue
                expected += names
            written = [r.data["name"] for r in journal.rows(kinds=("event",))]
            assert written == expected
            assert journal.last_id == len(expected)
        assert verify(path).ok


def test_a_batch_in_a_batch_is_refused_and_the_outer_one_still_commits(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        with journal.batch():
            journal.append("event", {"type": "outer"})
            with pytest.raises(JournalRecordError, match="do not nest"), journal.batch():
                pass
            journal.append("event", {"type": "outer"})
        assert [r.data["type"] for r in journal.rows()] == ["outer", "outer"]


def test_a_journal_names_the_file_it_writes(tmp_path: Path) -> None:
    """The station's reader of its own journal (the daemon's restore) opens the file the
    writer names."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(str(path)) as journal:
        assert journal.path == path


def test_the_head_record_is_synced_at_open_and_close_and_not_at_each_append(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/journal.md: the head record is rewritten after every commit and "synced at
    open and close. It is not synced on every append": the open syncs it, three appends and
    a batch of two do not (the rows' own commit is SQLite's sync), the close syncs it once.
    A sync is told by the file it syncs (its inode)."""
    path = tmp_path / "journal.sqlite3"
    Journal.open(path).close()
    head = head_path(path).stat().st_ino
    synced: list[int] = []
    real = os.fdatasync

    def recorded(fd: int) -> None:
        synced.append(os.fstat(fd).st_ino)
        real(fd)

    monkeypatch.setattr("os.fdatasync", recorded)
    journal = Journal.open(path)
    assert synced.count(head) == 1
    synced.clear()
    for state in ("idle", "bets", "deal"):
        journal.append("state", {"state": state})
    with journal.batch():
        journal.append("state", {"state": "idle"})
        journal.append("state", {"state": "bets"})
    assert head not in synced
    journal.close()
    assert synced.count(head) == 1


def test_a_head_record_that_cannot_be_synced_at_close_still_releases_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The head record may lag the rows (docs/journal.md): a disk error syncing it at close
    is no failure of the close, which still closes the file and so releases the writer's
    lock for the next writer."""
    path = tmp_path / "journal.sqlite3"
    journal = Journal.open(path)
    journal.append("state", {"state": "idle"})

    def failing(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr("os.fdatasync", failing)
    journal.close()
    monkeypatch.undo()
    with Journal.open(path) as again:
        assert again.last_id == journal.last_id
