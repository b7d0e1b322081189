"""``dealer-station simulate`` on a full disk says so, whichever write ran out of room: the
journal's (SQLite's SQLITE_FULL) or the sealing key's file (ENOSPC); an error that is not a
full disk is never given the note, whatever words the journal's path holds.

The errors are real ones: SQLite refusing a page past ``max_page_count``, and a write to
/dev/full (the kernel's ENOSPC). tests/test_journal_storage.py runs the whole command on a
real small tmpfs.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from controller.cli.simulate import _with_room, disk_full
from controller.journal.format import JournalWriteError


def sqlite_full() -> sqlite3.Error:
    """SQLite's own "database or disk is full": a page past the file's ``max_page_count``."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (x BLOB)")
    db.execute("PRAGMA max_page_count = 2")
    try:
        for _ in range(100):
            db.execute("INSERT INTO t VALUES (zeroblob(4096))")
    except sqlite3.Error as err:
        return err
    finally:
        db.close()
    raise AssertionError("SQLite took 100 pages past max_page_count")


def no_space() -> OSError:
    """The kernel's ENOSPC: a write to /dev/full."""
    try:
        with open("/dev/full", "wb", buffering=0) as full:
            full.write(b"key")
    except OSError as err:
        return err
    raise AssertionError("/dev/full took a write")


def raised_from(cause: BaseException, message: str) -> JournalWriteError:
    try:
        raise JournalWriteError(message) from cause
    except JournalWriteError as err:
        return err


def test_a_full_disk_is_known_by_its_error_not_its_words() -> None:
    full = sqlite_full()
    assert full.sqlite_errorcode == sqlite3.SQLITE_FULL
    assert disk_full(full)
    assert disk_full(raised_from(full, "journal write failed"))
    assert disk_full(no_space())
    assert disk_full(raised_from(no_space(), "row 658 sealed, but the sealing key could not be"))
    # Not a full disk: another I/O error, a constraint, a message that says "full".
    assert not disk_full(OSError(errno.EIO, "Input/output error"))
    assert not disk_full(raised_from(OSError(errno.EACCES, "denied"), "the disk is full"))
    assert not disk_full(sqlite3.IntegrityError("UNIQUE constraint failed"))
    assert not disk_full(None)


@pytest.mark.parametrize(
    ("cause", "said"),
    [(sqlite_full, "database or disk is full (0"), (no_space, "(the disk is full: 0")],
)
def test_the_line_of_a_full_disk_names_it_once_with_the_room_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cause: object, said: str
) -> None:
    """SQLite's own words already say the disk is full; ENOSPC's ("No space left on
    device") get them added. The room is the disk's (0 bytes here)."""
    assert callable(cause)
    err = raised_from(cause(), f"journal write failed: {cause()}")
    monkeypatch.setattr(
        "controller.cli.simulate.shutil.disk_usage", lambda _path: type("U", (), {"free": 0})()
    )
    line = _with_room(tmp_path / "j.sqlite3", err, f"the journal could not be written: {err}")
    assert line.count("disk is full") == 1, line
    assert said in line and line.endswith(" bytes free on its disk)"), line
    assert "\n" not in line


def test_a_path_that_says_full_adds_nothing_to_another_error(tmp_path: Path) -> None:
    """A journal under a folder named "full" that fails for another reason keeps its line."""
    journal = tmp_path / "full" / "j.sqlite3"
    err = raised_from(OSError(errno.EIO, "Input/output error"), f"cannot open {journal}")
    assert _with_room(journal, err, f"the journal {journal} could not be written: {err}") == (
        f"the journal {journal} could not be written: cannot open {journal}"
    )
