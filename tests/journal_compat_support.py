"""A fixed script of journal writes, run by today's writer in ``tests/test_journal_compat.py``
and, once, to make the files in ``tests/data/journal-checkpoints/``: the same calls with the
same clock and sealing key must give the same bytes, so a change to how the writer works
cannot change what it writes.

``tests/data/journal-1ac22a8/`` was made by the same script as it stood on main at 1ac22a8
(its first row appended by hand as ``verified {through, hash}``; a sealing state of
version 1, without a checkpoint key): today's code must still open, check and extend it.

Make the fixture again (only if the format changes on purpose, with a version bump):
``python tests/journal_compat_support.py DIR``.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from controller.journal.seal import SealingState, VerificationKey, save_state
from controller.journal.store import Journal

SECRET = bytes(range(32))
TABLE = "T1"


def verification_key() -> VerificationKey:
    """The fixture's verification key (k0 = 00 01 02 ... 1f)."""
    return VerificationKey(TABLE, SECRET)


class StepClock:
    """A clock that moves on 1.5 ms at every reading (deterministic timestamps)."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(microseconds=1500)
        return self.now


def write_script(folder: Path, clock: StepClock | None = None) -> Path:
    """Write the scripted journal (and its sealing state) in ``folder``; its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path, key_file = folder / "journal.sqlite3", folder / "sealing-key"
    save_state(key_file, SealingState(TABLE, 0, SECRET))
    clock = clock or StepClock(datetime(2026, 11, 30, 9, 15, 12, 123456, tzinfo=UTC))
    with Journal.open(path, clock=clock, sealing=key_file) as journal:
        journal.checkpoint()
        journal.append("station_started", {"version": "1", "table_id": TABLE, "sealed": True})
        for round_no in (1, 2):
            with journal.batch():
                journal.append("event", {"type": "seat_wager", "seat": 3, "spot": "main"})
                journal.append("round_started", {"round": round_no, "seats": []}, round_no)
                journal.append("state", {"state": "dealing"}, round_no)
            with journal.batch():
                for seat in (1, 2, 3):
                    journal.append(
                        "card",
                        {"role": "initial", "card": "7S", "seat": seat, "hand": 1},
                        round_no,
                    )
                journal.append("prompt", {"state": "dealing", "lamps": {"next": "on"}}, round_no)
            journal.append("fault", {"code": "x", "message": "Café \u00e9 \u2603", "state": "s"})
            with journal.batch():
                journal.append(
                    "settlement", {"seat": 1, "net_cents": -500, "odds": "1:1"}, round_no
                )
                journal.append("round_completed", {"reshuffle": False}, round_no)
        with journal.batch():
            journal.append("shuffle_commanded", {"decks": 6})
            journal.seal()  # a seal inside a batch
            journal.append("shoe_loaded", {})
        assert journal.seal()
        journal.append("clean_shutdown", {"events": 12})
    return path


if __name__ == "__main__":
    write_script(Path(sys.argv[1]))
