"""Kill the real daemon at random moments and start it again, many times, with a shoe that
keeps its hole card across the restarts; then check what every start and the journal say.

Run: .venv/bin/python bench/kill_loop.py [--kills N] [--seed S] [--seats N] [--dir DIR]

* The station is ``dealer-station run --config station.toml`` (NY, no card reader, so
  every device is on a serial line), its devices the doubles of ``dealer-station doubles``
  in a process of their own on pseudo-terminals, paired beforehand: the shoe keeps the
  hole card and its nonce through every restart of the station, as a real shoe does.
* The dealer is the simulation's own (``controller.simulation.dealing``), acting through
  the doubles' control socket and kept in step by the daemon's debug log
  (``controller.simulation.remote``); at a restart found inside a round the supervisor
  resumes it (and voids it only when the table refuses the resume).
* Each run of the daemon ends with SIGKILL at a random point of one of three kinds: after
  a random number of its log lines (a few: inside its start; more: inside the handling of
  an event), at a random look of the dealer (the station idle, every event handled), or a
  random time after the dealer's first look (anywhere: inside a commit, between a
  device's report and its acknowledgement).
* After the last kill the station runs a few rounds more and stops with SIGTERM.

Figures: every start that was not killed before it was ready came up (``start_failures``
0), ``verify --key`` of the journal, rounds settled on a hole card that is not the one the
shoe withheld for their own commitment (``wrong_card_rounds`` 0, the shoe's own log the
truth), and ``voids_after_money``: rounds voided after some of their wagers were settled
(those settlements stand; the rest is returned). ``tests/test_kill_loop.py`` runs a short
version with fixed kill points.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from controller.journal.reader import JournalReader
from controller.journal.seal import VerificationKey
from controller.journal.verify import VerifyCase, verify
from controller.rules.commitment import hole_card_commitment
from controller.rules.profiles import get_profile
from controller.simulation.dealing import Dealing
from controller.simulation.pacer import Pacer, SimulationStuckError
from controller.simulation.remote import ControlSide, observe_log_line
from controller.simulation.runner import SimulationSettings, dealing_plan
from controller.table.prompts import State
from controller.table.view import TableView
from drivers.hal import DeviceConnected, WagerSpot
from drivers.pairing import PairedDevice, PairingStore
from drivers.simulated.serve import DEFAULT_SERIALS, KINDS, station_sections
from drivers.simulated.serve_client import ServedDoubles

DEALER_STATION: Final = Path(sys.executable).parent / "dealer-station"
TABLE: Final = "NY-KILL-1"
# Every device of the table is on a serial line (NY, no card reader): KINDS, the served ones.
DECKS: Final = 6
#: The dealer cuts the cover card this far into the batch (a shoe lasts ~20 rounds).
COVER_AT: Final = 200
#: A start that takes longer than this is stuck (a bug), not slow.
START_SECONDS: Final = 60.0
#: The dealer waits this long for the station before she counts herself out of step.
OUT_OF_STEP_SECONDS: Final = 10.0
#: Looks at a betting table without a round starting before the dealer counts herself out
#: of step (the station's wager book and the chips on the spots disagree).
BETTING_LOOKS: Final = 25
#: How long the supervisor goes on turning the key at one and the same fault, the table
#: refusing each resolution, before the loop counts the table stuck in it (a device coming
#: back after a restart takes a few seconds at most; a table that refuses every way out
#: would hold the dealer for ever).
FAULT_SECONDS: Final = 30.0

CONFIG: Final = """\
table_id = "{table}"
profile = "NY"
decks = {decks}

[options]
match_the_dealer = true

[journal]
path = "{dir}/journal.sqlite3"
sealing_key = "{dir}/sealing-key"

[pairing]
directory = "{dir}/pairing"

[logging]
level = "debug"
format = "json"
"""


class QuickPacer(Pacer):
    """The dealer's pacer with a shorter wait: a dealer out of step with the station (her
    view of a round a kill cut short) is counted and the daemon killed, not waited for.
    The first wait is the start's (each device may take its connect timeout)."""

    def wait(self, after_seq: int, timeout: float | None = None) -> tuple[TableView, int]:
        if not after_seq:
            timeout = START_SECONDS
        return super().wait(after_seq, OUT_OF_STEP_SECONDS if timeout is None else timeout)


class Killed(Exception):  # noqa: N818 (a signal to the loop, not an error)
    """The daemon was killed at the dealer's look."""


class DaemonEnded(Exception):  # noqa: N818
    """The daemon's output ended (killed, or it stopped by itself)."""


@dataclass
class Daemon:
    """One run of ``dealer-station run``: its debug log feeds a fresh pacer (a thread)."""

    config: Path
    log: Path
    kill_after_lines: int | None = None  # SIGKILL once it has logged this many lines
    pacer: Pacer = field(default_factory=QuickPacer)
    ready: threading.Event = field(default_factory=threading.Event)
    killed: bool = False
    lines: int = 0

    def __post_init__(self) -> None:
        with self.log.open("ab") as err:
            self.process = subprocess.Popen(
                [str(DEALER_STATION), "run", "--config", str(self.config)],
                stdout=subprocess.PIPE,
                stderr=err,
                stdin=subprocess.DEVNULL,
            )
        self._thread = threading.Thread(target=self._read, name="daemon-log", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        for raw in stdout:
            self.lines += 1
            if self.kill_after_lines is not None and self.lines >= self.kill_after_lines:
                self.kill()
                break
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if isinstance(line, dict) and line.get("event") == "ready":
                self.ready.set()
            observe_log_line(self.pacer, line)
        self.pacer.fail(DaemonEnded(self.process.wait()))

    def kill(self) -> None:
        """SIGKILL (what a power cut is to the process); idempotent."""
        self.killed = True
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)

    def stop(self) -> int:
        """SIGTERM; the exit status."""
        self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(START_SECONDS)
        self._thread.join(START_SECONDS)
        return status

    def end(self) -> int:
        """Wait for the process and the log thread; the exit status."""
        status = self.process.wait(START_SECONDS)
        self._thread.join(START_SECONDS)
        assert self.process.stdout is not None
        self.process.stdout.close()
        return status


@dataclass
class Figures:
    """What the loop counted."""

    kills: Counter[str] = field(default_factory=Counter)
    starts: int = 0
    ready_starts: int = 0
    start_failures: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)
    seconds: float = 0.0


class KillLoop:
    """The station, its doubles and the dealer (see the module docstring)."""

    def __init__(self, folder: Path, seed: int, seats: int) -> None:
        self.folder = folder
        self.serials = dict(DEFAULT_SERIALS)
        self.config = folder / "station.toml"
        self.config.write_text(
            CONFIG.format(table=TABLE, decks=DECKS, dir=folder)
            + station_sections({kind: folder / kind for kind in KINDS}, self.serials)
        )
        self.log = folder / "daemon.err"
        self.figures = Figures()
        keys = {kind: secrets.token_bytes(32) for kind in KINDS}
        store = PairingStore(folder / "pairing")
        for kind in KINDS:  # as `dealer-station pair` leaves them
            store.save(kind, PairedDevice(self.serials[kind], keys[kind]))
        self.doubles = ServedDoubles(
            {kind: f"pty:{folder}/{kind}" for kind in KINDS},
            folder / "control.sock",
            serials=self.serials,
            seed=seed,
            secrets=keys,
        )
        made = subprocess.run(
            [str(DEALER_STATION), "journal", "setup-keys", "--config", str(self.config)],
            capture_output=True,
            text=True,
            check=True,
        )
        key_line = next(line for line in made.stdout.split() if line.startswith("ds1:"))
        self.key = VerificationKey.from_text(key_line)
        settings = SimulationSettings(
            profile="NY", decks=DECKS, seats=seats, rounds=1 << 30, seed=seed, table_id=TABLE
        )
        self.side = ControlSide(self.doubles.client, COVER_AT)
        self.dealing = Dealing(dealing_plan(settings), get_profile("NY"), self.side, Pacer())
        self.dealing.dealer.resume_restarts = True  # "supervisor resume when asked"
        self.resync = False

    def clear_the_spots(self) -> None:
        """Between two runs of the daemon: the dealer takes every chip off every spot, so
        that the station and she know the layout again (the sensors' reports wait in the
        board's backlog for the next start). A kill can cost the station a report: the
        links acknowledge a report once it is on the station's queue, before its row is
        committed (noticed here; see the kill loop's section of docs/performance.md)."""
        dealer = self.dealing.dealer
        for seat in dealer.seats:
            for spot in WagerSpot:
                self.side.place_wager(seat, spot, False, None)
                dealer.chips[seat, spot] = 0
        dealer.wagers_placed = False
        self.resync = False

    def close(self) -> None:
        """Stop the doubles."""
        self.doubles.close()

    # --- one run of the daemon -----------------------------------------------------------

    def run_once(
        self, how: str, count: float = 0, until: Callable[[TableView], bool] | None = None
    ) -> None:
        """Start the daemon and deal until it is killed, then count what happened. ``how``:
        ``line`` (SIGKILL once it has logged ``count`` lines: in its start, or anywhere in
        an event's handling), ``look`` (at the dealer's ``count``-th look: the station idle),
        ``time`` (``count`` seconds after the dealer's first look: anywhere), or ``none``
        (no kill: deal until ``until(view)``, then SIGTERM)."""
        figures = self.figures
        if self.resync:
            self.clear_the_spots()
        figures.starts += 1
        daemon = Daemon(
            self.config, self.log, kill_after_lines=int(count) if how == "line" else None
        )
        self.dealing.pacer = daemon.pacer
        daemon.pacer.expect(*[DeviceConnected] * len(KINDS))
        looks = int(count)
        timer: threading.Timer | None = None

        def on_view(view: TableView) -> None:
            nonlocal looks, timer
            if how == "time" and timer is None:
                timer = threading.Timer(count, daemon.kill)
                timer.start()
            looks -= 1
            if how == "look" and looks <= 0:
                daemon.kill()
                raise Killed
            if until is not None and until(view):
                raise Killed

        betting: list[int] = []  # the round of each consecutive look at a betting table
        faulted: list[Any] = []  # the fault of consecutive looks at a faulted table, since

        def out_of_step(view: TableView) -> None:
            betting[:] = [*betting, view.round_no] if view.state is State.BETTING else []
            if len(betting) > BETTING_LOOKS and betting[0] == betting[-1]:
                raise SimulationStuckError(
                    f"{BETTING_LOOKS} looks at a betting table without a round: the"
                    " station's wager book and the chips disagree"
                )
            if view.state is not State.FAULT or faulted[:1] != [view.fault]:
                faulted[:] = [view.fault, time.monotonic()] if view.state is State.FAULT else []
            elif time.monotonic() - faulted[1] > FAULT_SECONDS:
                raise SimulationStuckError(
                    f"the table held the fault {view.fault!r} in round {view.round_no} for"
                    f" {FAULT_SECONDS:.0f} s of the supervisor's resolutions: {self.refusal()}"
                )

        def look(view: TableView) -> None:
            out_of_step(view)
            on_view(view)

        self.dealing.on_view = look
        try:
            self.dealing.deal()
        except (Killed, DaemonEnded):
            pass
        except SimulationStuckError as err:
            figures.stuck.append(str(err))  # the dealer and the station out of step
            daemon.kill()
            self.resync = True
            how = "out_of_step"
        finally:
            if timer is not None:
                timer.cancel()
        if how == "none":
            status = daemon.stop()
            if status != 0:
                figures.start_failures.append(f"stop: exit {status}")
        else:
            daemon.kill()
        ready = daemon.ready.is_set()
        status = daemon.end()
        figures.ready_starts += ready
        if not daemon.killed and how != "none":
            figures.start_failures.append(f"exit {status}: {last_line(self.log)}")
        elif how != "none":
            figures.kills["start" if not ready else how] += 1

    def run(self, plan: list[tuple[str, float]], rounds_after: int) -> None:
        """Kill as ``plan`` says (``run_once``'s ``how`` and ``count``, in order; it stops
        at the first start that fails), then deal ``rounds_after`` rounds more."""
        started = time.perf_counter()
        for how, count in plan:
            self.run_once(how, count)
            if self.figures.start_failures:
                break
        target = self.round_now() + rounds_after
        for _ in range(5):  # again after a run the dealer ended out of step
            self.run_once("none", until=lambda v: v.state is State.BETTING and v.round_no >= target)
            if self.round_now() >= target:
                break
        self.figures.seconds = time.perf_counter() - started

    def refusal(self) -> str:
        """The journal's last refused resolution, for a stuck table's message."""
        with JournalReader.open(self.folder / "journal.sqlite3") as reader:
            last = reader.last("resolution_refused")
        return "no resolution refused" if last is None else json.dumps(last.data)

    def round_now(self) -> int:
        """The last round the journal started."""
        with JournalReader.open(self.folder / "journal.sqlite3") as reader:
            last = reader.last("round_started")
        return 0 if last is None else int(last.data["round"])

    # --- what the journal says -------------------------------------------------------------

    def check(self) -> dict[str, Any]:
        """The figures, from the loop and the journal."""
        path = self.folder / "journal.sqlite3"
        with JournalReader.open(path) as reader:
            rows = list(reader.rows())
        truth = {c: card for c, card in self.doubles.client.get("shoe", "hole_log")}
        report = verify(path, key=self.key)
        rounds = round_outcomes(rows, truth)
        f = self.figures
        return (
            {
                "kills": sum(f.kills.values()),
                "kills_in_start": f.kills["start"],
                "kills_at_a_log_line": f.kills["line"],
                "kills_at_a_look": f.kills["look"],
                "kills_at_a_time": f.kills["time"],
                "kills_out_of_step": f.kills["out_of_step"],
                "starts": f.starts,
                "starts_ready": f.ready_starts,
                "start_failures": len(f.start_failures),
                "stuck": len(f.stuck),
                "rounds": rounds["started"],
                "rounds_completed": rounds["completed"],
                "rounds_voided": rounds["voided"],
                "voids_after_money": rounds["voids_after_money"],
                "resumed_after_restart": rounds["resumed"],
                "hole_cards_sealed_by_the_station": rounds["station_sealed"],
                "wrong_card_rounds": rounds["wrong_card"],
                "faults": {k[6:]: v for k, v in sorted(rounds.items()) if k.startswith("fault_")},
                "verify_key": report.case.value,
                "rows": len(rows),
                "seconds": round(f.seconds, 1),
            }
            | ({"first_failure": f.start_failures[0]} if f.start_failures else {})
            | ({"first_stuck": f.stuck[0]} if f.stuck else {})
        )


def random_plan(kills: int, rng: random.Random) -> list[tuple[str, float]]:
    """``kills`` kill points: a log line early (in the start) or later (inside play), a
    look of the dealer, or a time after her first look, in turn."""
    plan: list[tuple[str, float]] = []
    for n in range(kills):
        kind = ("line", "look", "time", "line")[n % 4]
        if kind == "line":
            count: float = rng.randint(1, 40) if n % 8 == 0 else rng.randint(40, 600)
        elif kind == "look":
            count = rng.randint(1, 40)
        else:
            count = rng.uniform(0.0, 2.0)
        plan.append((kind, count))
    return plan


@dataclass
class HoleCards:
    """Each round's hole card as the journal tells it, for :func:`round_outcomes`."""

    dealt: dict[int, str] = field(default_factory=dict)  # round -> commitment
    by_station: set[str] = field(default_factory=set)  # commitments the station made
    revealed: dict[int, tuple[int, str, str]] = field(default_factory=dict)  # row, card, nonce
    first_decided: dict[int, int] = field(default_factory=dict)  # round -> settlement row

    def right_card(self, number: int, truth: dict[str, str]) -> bool:
        """Whether round ``number`` was settled on its own hole card (see
        :func:`round_outcomes`)."""
        commitment = self.dealt[number]
        decided = self.first_decided.get(number)
        if number not in self.revealed:
            return decided is None  # nothing settled against the dealer's hand
        row, card, nonce = self.revealed[number]
        if hole_card_commitment(card, nonce) != commitment:
            return False
        # The shoe's own log is the truth for a card it withheld; one it gave in the open
        # was sealed by the station, and only the station's nonce opens its commitment.
        if commitment not in self.by_station and truth.get(commitment) != card:
            return False
        return decided is None or row < decided


def round_outcomes(rows: list[Any], truth: dict[str, str]) -> dict[str, int]:
    """Counts over the journal's rounds. A completed round that dealt a hole card is
    settled on a wrong card unless its own ``hole_card_revealed`` row (same round) opens
    that round's commitment, is the card the shoe withheld under it (the shoe's log;
    a card the shoe gave in the open was sealed by the station), and comes before its first
    settlement the dealer's hand decides."""
    holes = HoleCards()
    counts = Counter[str]()
    for name in ("started", "completed", "voided", "voids_after_money", "resumed"):
        counts[name] = 0
    counts["station_sealed"] = counts["wrong_card"] = 0
    for row in rows:
        number, data = row.round_no, row.data
        if row.kind == "round_started":
            counts["started"] += 1
        elif row.kind == "round_completed":
            counts["completed"] += 1
            if number in holes.dealt and not holes.right_card(number, truth):
                counts["wrong_card"] += 1
                print(f"round {number}: wrong hole card", file=sys.stderr)
        elif row.kind == "round_voided":
            counts["voided"] += 1
            counts["voids_after_money"] += bool(data.get("stand"))
        elif row.kind == "hole_card_dealt" and number is not None:
            holes.dealt[number] = str(data["commitment"])
            if data.get("sealed_by") == "station":
                holes.by_station.add(holes.dealt[number])
                counts["station_sealed"] += 1
        elif row.kind == "hole_card_revealed" and number is not None:
            holes.revealed.setdefault(number, (row.id, str(data["card"]), str(data["nonce"])))
        elif row.kind == "settlement" and number is not None and _against_the_dealer(data):
            holes.first_decided.setdefault(number, row.id)
        elif row.kind == "fault":
            counts[f"fault_{data.get('code')}"] += 1
        elif row.kind == "fault_resolved" and data.get("code") == "recovered_mid_round":
            counts["resumed"] += data.get("resolution") == "resume"
    return dict(counts)


def _against_the_dealer(data: dict[str, Any]) -> bool:
    """A settlement whose outcome the dealer's hand decides: a main wager not surrendered,
    rescued or busted (those are settled before the reveal, on the player's cards alone)."""
    if data.get("wager") != "main" or data.get("outcome") in ("surrender", "rescue"):
        return False
    total = data.get("total")
    return not (isinstance(total, int) and total > 21)


def last_line(path: Path) -> str:
    """The last line of a file (the daemon's one-line refusal)."""
    lines = path.read_text(errors="replace").strip().splitlines()
    return lines[-1] if lines else ""


@contextmanager
def folder(parent: Path | None, *, keep: bool = False) -> Iterator[Path]:
    """A directory under /dev (the configuration takes device paths there only), on tmpfs
    where the machine has /dev/shm, removed afterwards unless ``keep``."""
    base = parent or Path("/dev/shm")
    path = Path(tempfile.mkdtemp(prefix="kill-loop-", dir=base))
    try:
        yield path
    finally:
        if keep:
            print(f"kept {path}")
        else:
            shutil.rmtree(path, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=120)
    parser.add_argument("--rounds-after", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--dir", type=Path, help="parent directory under /dev (default /dev/shm)")
    parser.add_argument("--keep", action="store_true", help="keep the journal and the logs")
    args = parser.parse_args()
    with folder(args.dir, keep=args.keep) as path:
        loop = KillLoop(path, args.seed, args.seats)
        try:
            loop.run(random_plan(args.kills, random.Random(args.seed)), args.rounds_after)
            figures = loop.check()
        finally:
            loop.close()
    print(
        f"kill loop: {figures['kills']} kills of the real daemon ({figures['kills_in_start']}"
        f" in its start; once ready: {figures['kills_at_a_log_line']} at a log line,"
        f" {figures['kills_at_a_look']} at a look of the dealer, {figures['kills_at_a_time']}"
        f" at a random time, {figures['kills_out_of_step']} when the dealer was out of step),"
        f" {figures['starts']} starts"
        f" ({figures['starts_ready']} reached ready), {figures['start_failures']} refused"
    )
    print(
        f"  {figures['rounds']} rounds: {figures['rounds_completed']} completed,"
        f" {figures['rounds_voided']} voided ({figures['voids_after_money']} after some of"
        f" their wagers were settled), {figures['resumed_after_restart']} resumed after a"
        f" restart; {figures['wrong_card_rounds']} settled on a wrong hole card"
        f" ({figures['hole_cards_sealed_by_the_station']} hole cards the shoe gave in the"
        f" open, sealed by the station)"
    )
    faults = ", ".join(f"{code} {n}" for code, n in figures["faults"].items())
    print(f"  faults the supervisor resolved: {faults or 'none'}")
    print(
        f"  journal: {figures['rows']} rows, verify --key: {figures['verify_key']};"
        f" dealer out of step {figures['stuck']} times; {figures['seconds']} s"
    )
    if "first_failure" in figures:
        print(f"  first refused start: {figures['first_failure']}")
    if "first_stuck" in figures:
        print(f"  first time out of step: {figures['first_stuck']}")
    print("FIGURES " + json.dumps(figures))
    good = (
        not figures["start_failures"]
        and figures["verify_key"] == VerifyCase.INTACT.value
        and not figures["wrong_card_rounds"]
    )
    return 0 if good else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
