"""The resume point: what the journal says about the table after a stop or a crash."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from controller.journal import Journal, JournalReader
from controller.resume import ResumePoint, resume_point


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


def point(path: Path) -> ResumePoint:
    with JournalReader.open(path) as reader:
        return resume_point(reader)


def start_shoe(journal: Journal) -> None:
    journal.append("station_started", {"version": "0.1.0", "table_id": "T", "decks": 6})
    journal.append("shuffle_done", {"card_count": 288, "per_rank": {}})
    journal.append("shoe_loaded", {})
    journal.append("burn", {"card": "4S", "reason": "load"})


def full_round(journal: Journal, r: int, *, cover: bool = False) -> None:
    journal.append("round_started", {"round": r, "seats": []}, r)
    journal.append("card", {"seat": 1, "hand": 0, "role": "initial", "card": "7S"}, r)
    if cover:
        journal.append("cover_card", {}, r)
    journal.append("round_completed", {"reshuffle": cover}, r)


def test_an_empty_journal(journal_path: Path) -> None:
    Journal.open(journal_path).close()
    p = point(journal_path)
    assert (p.last_row, p.last_round, p.next_round, p.open_round) == (0, 0, 1, None)
    assert not p.clean_shutdown and not p.needs_supervisor and not p.reshuffle_due


def test_between_rounds_after_a_clean_shutdown(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        start_shoe(journal)
        full_round(journal, 1)
        full_round(journal, 2)
        journal.append("dealer_change", {})
        journal.append("clean_shutdown", {})
    p = point(journal_path)
    assert p.last_round == 2 and p.next_round == 3 and p.open_round is None
    assert p.clean_shutdown and not p.needs_supervisor
    assert [r.kind for r in p.since_last_round] == ["dealer_change", "clean_shutdown"]


def test_inside_a_round_after_a_crash(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        start_shoe(journal)
        full_round(journal, 1)
        journal.append("round_started", {"round": 2, "seats": []}, 2)
        journal.append("card", {"seat": 1, "hand": 0, "role": "initial", "card": "9D"}, 2)
        journal.append("card", {"seat": None, "hand": None, "role": "up", "card": "KH"}, 2)
    p = point(journal_path)
    assert p.open_round == 2 and p.needs_supervisor and not p.clean_shutdown
    assert [r.data.get("card") for r in p.open_round_rows] == [None, "9D", "KH"]
    assert p.next_round == 3


def test_a_fault_open_at_power_off_stays_open(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        start_shoe(journal)
        journal.append("fault", {"code": "a", "message": "", "state": "idle"})
        journal.append("fault_resolved", {"resolution": "resume"})
        full_round(journal, 1)
        journal.append("fault", {"code": "shoe_lost", "message": "shoe", "state": "idle"})
    p = point(journal_path)
    assert [f.data["code"] for f in p.open_faults] == ["shoe_lost"]
    assert p.open_round is None and p.needs_supervisor


def test_a_voided_round_is_closed(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        journal.append("round_started", {"round": 1, "seats": []}, 1)
        journal.append("fault", {"code": "ten", "message": "10S", "state": "deal"}, 1)
        journal.append("fault_resolved", {"resolution": "void"}, 1)
        journal.append("round_voided", {"reason": "foreign card"}, 1)
    p = point(journal_path)
    assert p.open_round is None and not p.open_faults and p.last_round == 1


def test_a_reshuffle_is_due_after_the_cover_card(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        start_shoe(journal)
        full_round(journal, 1, cover=True)
        assert point(journal_path).reshuffle_due
        journal.append("shuffle_done", {"card_count": 288, "per_rank": {}})
    assert not point(journal_path).reshuffle_due


SIMULATED_TABLE = """
import sys
from controller.journal import Journal
journal = Journal.open(sys.argv[1])
def ack(row):
    print(row, flush=True)
ack(journal.append("station_started", {"version": "0.1.0", "table_id": "T", "decks": 6}))
round_no = int(sys.argv[2])
while True:
    round_no += 1
    ack(journal.append("round_started", {"round": round_no, "seats": []}, round_no))
    for card in ("7S", "8D", "KH", "2C"):
        ack(journal.append("card", {"seat": 1, "hand": 0, "role": "hit", "card": card}, round_no))
    ack(journal.append("round_completed", {"reshuffle": False}, round_no))
"""


def test_killed_at_random_points_the_resume_point_follows_the_journal(journal_path: Path) -> None:
    rng = random.Random(6)
    last_round = 0
    for _ in range(6):
        child = subprocess.Popen(
            [sys.executable, "-c", SIMULATED_TABLE, str(journal_path), str(last_round)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        wanted = rng.randint(3, 40)
        acked = [int(child.stdout.readline()) for _ in range(wanted)]
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        acked += [int(line) for line in child.stdout.read().split()]
        child.stdout.close()
        with JournalReader.open(journal_path) as reader:
            rows = list(reader.rows())
            p = resume_point(reader)
        assert set(acked) <= {r.id for r in rows}
        # What the rows say, worked out the slow way, is what the resume point says.
        started = [r.round_no for r in rows if r.kind == "round_started"]
        ended = {r.round_no for r in rows if r.kind == "round_completed"}
        assert p.last_round == max(started)
        assert p.open_round == (None if started[-1] in ended else started[-1])
        assert p.last_row == rows[-1].id and not p.clean_shutdown
        last_round = p.last_round
