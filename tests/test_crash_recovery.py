"""Kill the station (SIGKILL) at random points over many simulated rounds and
restart it; after each restart the journal verifies, no committed row is missing or
changed, and the table's state is the one the journal says.

The station is ``tests/crash_table.py``: the real daemon code (``build_station`` and the
station's main loop with its journal checks and restore) and the real drivers against the
device doubles, driven by the simulated dealer, in its own process so a SIGKILL is real.
"""

from __future__ import annotations

import os
import random
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from daemon_support import journal_dir
from recovery_support import expected_state, state_the_rows_say

from controller.journal.seal import VerificationKey
from controller.journal.store import JournalReader, Row
from controller.journal.verify import GOOD_CASES, verify
from controller.table.faults import FaultCode
from controller.table.prompts import State
from controller.table.recovery import read_journal

STATION = Path(__file__).resolve().parent / "crash_table.py"
KILLS = 12
LINE_TIMEOUT = 30.0  # a restart takes about a second; this is only a hang guard
HOLD_TIMEOUT = 60.0  # a round is about 10 views, and the dealer makes a fault when asked


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Path]:
    with journal_dir(tmp_path) as path:
        yield path / "journal.sqlite3"


def start(tmp_path: Path, journal: Path, seed: int, rounds: int) -> subprocess.Popen[str]:
    env = dict(os.environ, TMPDIR=str(tmp_path))  # a killed rig leaves its ptys there
    with (tmp_path / "station.log").open("a") as log:
        child = subprocess.Popen(
            [sys.executable, str(STATION), str(journal), str(seed), str(rounds)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env=env,
        )
    _LOGS[child.pid] = tmp_path / "station.log"
    return child


#: Each station's log (its stderr): a station that falls silent is asked for its threads'
#: stacks (SIGUSR1, faulthandler in tests/crash_table.py), and the failure shows them.
_LOGS: dict[int, Path] = {}


def stacks_of(child: subprocess.Popen[str]) -> str:
    """The end of a silent station's log, once it has written its threads' stacks there."""
    log = _LOGS[child.pid]
    size = log.stat().st_size
    child.send_signal(signal.SIGUSR1)
    deadline = time.monotonic() + 5.0
    while log.stat().st_size == size and time.monotonic() < deadline:
        time.sleep(0.05)  # the dump is asynchronous: the log grows when it is written
    return log.read_text(errors="replace")[-6000:]


#: What each station's output held past its last whole line (its pipe is read with
#: os.read: a buffered readline could keep a line the station printed last, while select
#: waits for more that a held station never sends).
_PARTIAL: dict[int, bytes] = {}


def read_lines(child: subprocess.Popen[str], count: int) -> list[str]:
    """``count`` lines of the station's output (one per view the dealer acts on)."""
    assert child.stdout is not None
    fd = child.stdout.fileno()
    lines: list[str] = []
    pending = _PARTIAL.pop(fd, b"")
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            while b"\n" in pending and len(lines) < count:
                line, pending = pending.split(b"\n", 1)
                lines.append(line.decode() + "\n")
            if len(lines) >= count:
                _PARTIAL[fd] = pending
                return lines
            if not selector.select(timeout=LINE_TIMEOUT):
                raise TimeoutError(
                    f"the station said nothing for {LINE_TIMEOUT} s; its log ends:\n"
                    + stacks_of(child)
                )
            data = os.read(fd, 65536)
            if not data:
                raise AssertionError(f"the station ended early with {child.wait()}")
            pending += data


def committed(journal: Path) -> list[Row]:
    with JournalReader.open(journal) as reader:
        return list(reader.rows())


def freeze(child: subprocess.Popen[str]) -> None:
    """SIGSTOP the station and wait until it is stopped (the signal is asynchronous)."""
    if Path(f"/proc/{child.pid}/stat").read_text().split(")")[-1].split()[0] == "T":
        return  # already frozen: a second SIGSTOP would report nothing to wait for
    child.send_signal(signal.SIGSTOP)
    _, status = os.waitpid(child.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status)


def thaw(child: subprocess.Popen[str]) -> None:
    """SIGCONT the station and wait until it runs again."""
    child.send_signal(signal.SIGCONT)
    _, status = os.waitpid(child.pid, os.WCONTINUED)
    assert os.WIFCONTINUED(status)


def kill(child: subprocess.Popen[str], journal: Path) -> list[Row]:
    """SIGKILL the station; the rows it had committed when it stopped."""
    freeze(child)  # what a reader sees committed now, the station had committed
    rows = committed(journal)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    assert child.stdout is not None and child.stdin is not None
    _PARTIAL.pop(child.stdout.fileno(), None)
    child.stdout.close()
    child.stdin.close()
    return rows


def stop_at(child: subprocess.Popen[str], journal: Path, wanted: str) -> None:
    """Have the station stop where ``wanted`` says, between rounds (``betting``) or in an
    active fault (``fault``): it holds the dealer at the next such view, where the station
    is idle with every event handled (tests/crash_table.py). Left frozen."""
    assert child.stdin is not None
    child.stdin.write(wanted + "\n")
    child.stdin.flush()
    deadline = time.monotonic() + HOLD_TIMEOUT
    while True:
        (line,) = read_lines(child, 1)
        if line.split()[0] == "held":
            break
        if time.monotonic() > deadline:  # a hang guard: the lines before are a backlog
            raise AssertionError(f"no {wanted} view held in {HOLD_TIMEOUT} s")
    freeze(child)
    rec = read_journal(committed(journal))
    if wanted == "fault":
        assert rec.state is State.FAULT and rec.fault is not None
    else:
        assert rec.state is State.BETTING and not rec.open_round


def check_restart(before: list[Row], after: list[Row]) -> None:
    """The rows a restart wrote say the state the journal before it says."""
    rec = read_journal(before)
    new = after[len(before) :]
    recovered = next(r for r in new if r.kind == "recovered")
    state = expected_state(rec)
    assert state is state_the_rows_say(before)
    assert recovered.data == {"state": state.value, "round": rec.round_no}
    faults = [r.data["code"] for r in new[: new.index(recovered)] if r.kind == "fault"]
    if rec.open_round:
        assert faults == [FaultCode.RECOVERED_MID_ROUND.value]
    else:
        assert faults == []  # an active fault stays as it was: no new one
    if rec.fault is not None and not rec.open_round:
        assert state is State.FAULT


def test_killed_at_random_points_and_restarted(tmp_path: Path, journal: Path) -> None:
    rng = random.Random(6)
    started = time.monotonic()
    before: list[Row] = []
    found: list[State] = []
    for kill_no in range(KILLS):
        child = start(tmp_path, journal, seed=kill_no, rounds=1_000_000)
        try:
            read_lines(child, 1)  # up: restored, devices connected
            after_start = committed(journal)
            check_restart(before, after_start)
            found.append(expected_state(read_journal(before)))
            read_lines(child, rng.randint(0, 250))
            # Every third kill waits for a table between rounds or one in a fault.
            if kill_no % 3 == 1:
                stop_at(child, journal, "betting")
            elif kill_no % 3 == 2:
                stop_at(child, journal, "fault")
        finally:
            rows = kill(child, journal)
        report = verify(journal)
        assert report.case in GOOD_CASES, report.message
        after = committed(journal)
        # No committed row is missing or changed, byte for byte. (A commit that the
        # SIGSTOP caught half done, its WAL frames written but not yet shown to readers,
        # may add the rows of one event.)
        assert after[: len(rows)] == rows
        assert len({r.round_no for r in after[len(rows) :]}) <= 1
        before = after
    # The restarts found the table between rounds, inside a round, and in a fault.
    assert State.BETTING in found and State.FAULT in found
    # Play goes on after the last kill: three more rounds, then a clean stop.
    rounds_done = read_journal(before).round_no
    child = start(tmp_path, journal, seed=KILLS, rounds=rounds_done + 3)
    try:
        assert child.wait(timeout=60) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        assert child.stdout is not None
        child.stdout.close()
    check_restart(before, committed(journal))
    assert verify(journal).ok
    # Killed at random points, seals included: every seal still proves its rows.
    key_text = journal.with_name(journal.name + "-verification-key").read_text()
    sealed = verify(journal, key=VerificationKey.from_text(key_text))
    assert sealed.ok, sealed.message
    rows = committed(journal)
    assert [r.kind for r in rows[-2:]] == ["clean_shutdown", "seal"]
    assert read_journal(rows).round_no == rounds_done + 3
    assert sum(r.kind == "round_completed" for r in rows) > KILLS
    # Every round ends exactly once, completed or (found open at a restart) voided.
    opened = [r.data["round"] for r in rows if r.kind == "round_started"]
    ended = [r.round_no for r in rows if r.kind in ("round_completed", "round_voided")]
    assert sorted(opened) == sorted(ended) == list(range(1, rounds_done + 4))
    print(f"{KILLS} kills, {rounds_done + 3} rounds, {time.monotonic() - started:.1f} s")
