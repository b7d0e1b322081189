"""The clock without a real-time clock (controller/service/clock.py): its state and every step
journalled, and a step back never reordering the journal.

Expected values are worked by hand: a step is the change of wall minus monotonic, reported
once it reaches 50 ms either way (docs/journal.md, ``clock``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from structlog.testing import capture_logs

from controller.cli.main import main
from controller.journal.reader import JournalReader
from controller.journal.store import Journal
from controller.journal.verify import VerifyCase, verify
from controller.service.clock import (
    STEP_NS,
    ClockChange,
    ClockReading,
    ClockWatch,
    read_clocks,
    watching_clock,
)

SECOND = 1_000_000_000


def reading(offset_ns: int, synchronized: bool = False, at: int = 100 * SECOND) -> ClockReading:
    return ClockReading(wall_ns=at + offset_ns, monotonic_ns=at, synchronized=synchronized)


def test_the_same_offset_and_state_is_no_change() -> None:
    watch = ClockWatch(reading(5 * SECOND))
    # Time passes on both clocks alike: no step.
    assert watch.observe(reading(5 * SECOND, at=900 * SECOND)) is None


@pytest.mark.parametrize("sign", [1, -1])
def test_a_step_of_50_ms_is_one_and_just_under_is_not(sign: int) -> None:
    watch = ClockWatch(reading(0))
    assert watch.observe(reading(sign * (STEP_NS - 1))) is None
    assert watch.observe(reading(sign * STEP_NS)) == ClockChange(False, sign * 50_000)


def test_small_drifts_add_up_to_a_step() -> None:
    watch = ClockWatch(reading(0))
    assert watch.observe(reading(30_000_000)) is None
    assert watch.observe(reading(60_000_000)) == ClockChange(False, 60_000)
    # The next step counts from the offset just reported.
    assert watch.observe(reading(100_000_000)) is None
    assert watch.observe(reading(10_000_000)) == ClockChange(False, -50_000)


def test_ntp_answering_a_pi_that_booted_a_year_behind() -> None:
    """The Pi booted with the clock of its last shutdown; NTP steps it forward and marks it
    synchronised, in one reading or in two."""
    year = 365 * 24 * 3600 * SECOND
    together = ClockWatch(reading(-year))
    assert together.observe(reading(0, synchronized=True)) == ClockChange(True, year // 1000)
    apart = ClockWatch(reading(-year))
    assert apart.observe(reading(0)) == ClockChange(False, year // 1000)
    assert apart.observe(reading(0, synchronized=True)) == ClockChange(True, 0)
    # Losing synchronisation is reported too.
    assert apart.observe(reading(0, synchronized=False)) == ClockChange(False, 0)


@given(
    st.integers(-(10**18), 10**18),
    st.lists(st.tuples(st.integers(-(10**15), 10**15), st.booleans()), max_size=40),
)
def test_the_reported_steps_add_up_to_the_clock_s_whole_change(
    start: int, moves: list[tuple[int, bool]]
) -> None:
    """Whatever the clock does, the steps journalled add up to where it went, within one
    step's threshold (plus a microsecond of rounding per row), and the last state reported
    is the clock's."""
    watch = ClockWatch(reading(start))
    offset, synced, reported_us, last_synced = start, False, 0, False
    changes = 0
    for move, synchronized in moves:
        offset += move
        synced = synchronized
        change = watch.observe(reading(offset, synced))
        if change is not None:
            changes += 1
            reported_us += change.step_us
            last_synced = change.synchronized
            assert change.step_us == 0 or abs(change.step_us) >= STEP_NS // 1000
    assert abs((offset - start) - reported_us * 1000) < STEP_NS + 1000 * (changes + 1)
    if changes:
        assert last_synced == synced


def test_read_clocks_reads_the_sync_flag(tmp_path: Path) -> None:
    flag = tmp_path / "synchronized"
    assert read_clocks(flag).synchronized is False
    flag.touch()
    now = read_clocks(flag)
    assert now.synchronized is True
    assert abs(now.wall_ns - datetime.now(UTC).timestamp() * SECOND) < 5 * SECOND


class ScriptedClocks:
    """Readings handed out in order; ``done`` is set once the last one was read twice (the
    watch has seen it and polled again: every change before it is journalled)."""

    def __init__(self, readings: list[ClockReading]) -> None:
        self.readings = readings
        self.done = threading.Event()
        self._last_reads = 0

    def __call__(self) -> ClockReading:
        if len(self.readings) > 1:
            return self.readings.pop(0)
        self._last_reads += 1
        if self._last_reads >= 2:
            self.done.set()
        return self.readings[0]


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    opened = Journal.open(tmp_path / "journal.sqlite3")
    yield opened
    opened.close()


def test_the_watch_journals_the_start_and_each_change(journal: Journal) -> None:
    hour = 3600 * SECOND
    clocks = ScriptedClocks([
        reading(-hour),  # the start: an hour behind, not synchronised
        reading(-hour),
        reading(0, synchronized=True),  # NTP answers: one hour forward
        reading(0, synchronized=True),
        reading(-2 * SECOND, synchronized=True),  # stepped back 2 s
    ])  # fmt: skip
    with watching_clock(journal, read=clocks, interval=0.001):
        assert clocks.done.wait(10)
    rows = [r.data for r in journal.rows(kinds=("clock",))]
    assert rows == [
        {"synchronized": False, "step_us": 0},
        {"synchronized": True, "step_us": 3_600_000_000},
        {"synchronized": True, "step_us": -2_000_000},
    ]


def test_a_journal_write_that_fails_stops_the_watch_and_not_the_caller(journal: Journal) -> None:
    polling, closed = threading.Event(), threading.Event()

    def read() -> ClockReading:
        if not journal.last_id:  # the start's row is not written yet
            return reading(0)
        polling.set()
        assert closed.wait(10)
        return reading(SECOND)  # a step, whose row cannot be written

    with capture_logs() as logs, watching_clock(journal, read=read, interval=0.001):
        assert polling.wait(10)
        journal.close()  # the station's own next write fails the same way and stops it
        closed.set()
    # The block ended (the thread was joined) without an exception, and said why it stopped.
    assert [e["event"] for e in logs if e["log_level"] == "critical"] == [
        "clock: journal write failed; no longer watching"
    ]
    with JournalReader.open(journal.path) as reader:
        assert [r.data for r in reader.rows(kinds=("clock",))] == [
            {"synchronized": False, "step_us": 0}
        ]


class SteppingClock:
    """The journal's wall clock: a microsecond a row; the test steps ``now`` itself."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(microseconds=1)
        return self.now


def play_round(journal: Journal, number: int) -> None:
    journal.append("round_started", {"round": number, "seats": []}, round_no=number)
    journal.append("card", {"role": "up", "card": "7S", "seat": None, "hand": None}, number)
    journal.append("round_completed", {"reshuffle": False}, round_no=number)


def test_a_step_back_never_reorders_the_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """NTP pulls a clock that ran an hour ahead back: the rows after carry earlier times
    than the rows before, and the journal stays in the order it was written (ids, chain),
    verifies intact, and recalls and exports round 1 before round 2."""
    path = tmp_path / "journal.sqlite3"
    clock = SteppingClock(datetime(2026, 6, 1, 13, 0, tzinfo=UTC))
    journal = Journal.open(path, clock=clock)
    play_round(journal, 1)
    clock.now -= timedelta(hours=1)
    journal.append("clock", ClockChange(True, -3_600_000_000).record())
    play_round(journal, 2)
    journal.close()
    assert verify(path).case is VerifyCase.INTACT
    with JournalReader.open(path) as reader:
        rows = list(reader.rows())
    ids = [r.id for r in rows]
    assert ids == sorted(ids) == list(range(1, len(rows) + 1))
    step = next(i for i, r in enumerate(rows) if r.kind == "clock")
    assert rows[step].ts < rows[step - 1].ts  # the step back is there, in ts only
    assert main(["journal", "recall", "--journal", str(path), "--json"]) == 0
    recalled = json.loads(capsys.readouterr().out)
    assert [r["round"] for r in recalled["rounds"]] == [1, 2]
    assert main(["journal", "export", "--journal", str(path), "--from", "2026-06-01"]) == 0
    exported = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e["id"] for e in exported] == ids


def test_the_monotonic_reading_is_taken_around_the_wall_clocks(tmp_path: Path) -> None:
    """The monotonic time of a reading is the mean of the two taken around the wall
    clock's: within the call, in whole nanoseconds."""
    import time

    before = time.monotonic_ns()
    now = read_clocks(tmp_path / "synchronized")
    after = time.monotonic_ns()
    assert type(now.monotonic_ns) is int
    assert before <= now.monotonic_ns <= after


def test_each_clock_row_is_logged_a_warning_unless_synchronised_and_unmoved(
    journal: Journal,
) -> None:
    """The operator's log says the same as the row: a synchronised clock that did not
    step is news (info); a clock not synchronised, or a step, is a warning."""
    hour = 3600 * SECOND
    clocks = ScriptedClocks([
        reading(-hour),  # not synchronised, no step
        reading(0),  # a step, still not synchronised
        reading(0, synchronized=True),  # synchronised, no step
        reading(2 * SECOND, synchronized=True),  # a step, synchronised
    ])  # fmt: skip
    with capture_logs() as logs, watching_clock(journal, read=clocks, interval=0.001):
        assert clocks.done.wait(10)
    clock_logs = [
        (e["log_level"], e["synchronized"], e["step_us"]) for e in logs if e.get("event") == "clock"
    ]
    assert clock_logs == [
        ("warning", False, 0),
        ("warning", False, 3_600_000_000),
        ("info", True, 0),
        ("warning", True, 2_000_000),
    ]
