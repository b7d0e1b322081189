"""``dealer-station simulate``: the whole station against the device doubles, on a laptop.

Real daemon code, real drivers and transports (pseudo-terminals, a pyusb backend, mock
GPIO pins), a simulated dealer who follows the panel, players who follow basic strategy.
On a terminal a live view shows the panel, the seats, the dealer's up card (the hole card
as a back until the reveal), the shoe and the last journal rows; otherwise one line per
round. A summary ends the run; ``dealer-station journal recall`` works on its journal.
"""

from __future__ import annotations

import argparse
import errno
import os
import shutil
import sqlite3
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from controller.journal.format import JournalError
from controller.rules.profiles import PROFILES
from controller.service.config import TABLE_ID
from controller.service.daemon import StartError
from controller.simulation.runner import (
    SimulatedTable,
    SimulationResult,
    SimulationSettings,
    SimulationStuckError,
    verification_key_path,
)
from controller.simulation.split import DoublesProcessDiedError, SplitTable
from controller.table.prompts import State
from controller.table.view import TableView
from drivers.hal import LedMode
from drivers.simulated.c_firmware import FirmwareError

LAMP_STYLE = {LedMode.STEADY: "bold green", LedMode.BLINK: "bold yellow blink"}


@dataclass
class Tally:
    """House result per wager type, in cents where known and in stakes otherwise."""

    rounds: int = 0
    voided: int = 0
    hands: int = 0
    wagered: dict[str, Decimal] = field(default_factory=dict)
    units: str = "$"
    player_net: dict[str, Decimal] = field(default_factory=dict)
    bonuses: int = 0
    super_bonuses: int = 0
    faults: int = 0
    resolved: int = 0
    reshuffles: int = 0

    def add_wager(self, kind: str, cents: int | None) -> None:
        """Count an initial wager: its amount where sensed, else one wager unit."""
        if cents is None:
            self.units = "wager units"
        amount = Decimal(1) if cents is None else Decimal(cents) / 100
        self.wagered[kind] = self.wagered.get(kind, Decimal(0)) + amount

    def add_payment(self, data: dict[str, Any]) -> None:
        """Count one settled wager."""
        kind = data["wager"]
        net = (
            Decimal(data["net_cents"]) / 100
            if data.get("net_cents") is not None
            else Decimal(data.get("net_stakes", "0"))
        )
        self.player_net[kind] = self.player_net.get(kind, Decimal(0)) + net
        if data.get("bonus"):
            self.bonuses += 1
        if data.get("super_bonus"):
            self.super_bonuses += 1


def tally_journal(path: Path) -> Tally:
    """Read the simulation's journal back and total it."""
    from controller.journal.reader import JournalReader

    tally = Tally()
    with JournalReader.open(path) as reader:
        for row in reader.rows():
            kind, data = row.kind, row.data
            if kind == "round_completed":
                tally.rounds += 1
            elif kind == "round_voided":
                tally.voided += 1
            elif kind == "round_started":
                for seat in data["seats"]:
                    tally.add_wager("main", seat.get("wager_cents"))
                    if seat.get("match_cents") != 0:
                        tally.add_wager("match", seat.get("match_cents"))
            elif kind in ("settlement", "match_settled", "insurance"):
                if data["wager"] == "main":
                    tally.hands += 1
                tally.add_payment(data)
            elif kind == "fault":
                tally.faults += 1
            elif kind == "fault_resolved":
                tally.resolved += 1
            elif kind == "shuffle_commanded":
                tally.reshuffles += 1
    return tally


def summary_lines(
    tally: Tally, result: SimulationResult, settings: SimulationSettings
) -> list[str]:
    """The end-of-run summary, one fact per line."""
    lines = [
        f"profile {settings.profile}, {settings.decks} decks, {settings.seats} seats, "
        f"seed {settings.seed}",
        f"rounds: {tally.rounds} completed, {tally.voided} voided in {result.seconds:.1f} s "
        f"({tally.rounds / max(result.seconds, 1e-9):.1f} rounds/s); hands: {tally.hands}",
    ]
    for kind, net in sorted(tally.player_net.items()):
        wagered = tally.wagered.get(kind, Decimal(0))
        edge = (
            f", house edge {-net / wagered * 100:+.2f}% of {wagered:.2f} wagered" if wagered else ""
        )
        house = -net
        shown = (
            f"{'+' if house >= 0 else '-'}${abs(house):,.2f}"
            if tally.units == "$"
            else f"{house:+.2f} wager units"
        )
        lines.append(f"house result on {kind}: {shown}{edge}")
    lines += [
        f"bonuses paid: {tally.bonuses}; super bonuses: {tally.super_bonuses}",
        f"faults: {len(result.faults_injected)} injected, {tally.faults} raised, "
        f"{tally.resolved} resolved by the supervisor",
        f"reshuffles: {tally.reshuffles}",
        f"journal: {settings.journal} (dealer-station journal recall --journal {settings.journal})",
        f"sealed: dealer-station journal verify --key @{verification_key_path(settings.journal)}"
        f" --journal {settings.journal}",
    ]
    return lines


class LiveView:
    """The terminal view (rich), refreshed from the dealer's thread."""

    def __init__(self, settings: SimulationSettings) -> None:
        from rich.console import Console
        from rich.live import Live
        from rich.progress import BarColumn, Progress, TextColumn

        self.settings = settings
        self.console = Console()
        self.progress = Progress(
            TextColumn("rounds"), BarColumn(), TextColumn("{task.completed}/{task.total}")
        )
        self.task = self.progress.add_task("rounds", total=settings.rounds)
        self.live = Live(console=self.console, refresh_per_second=8, transient=False)
        self.table: SimulatedTable | SplitTable | None = None
        self._last = 0.0
        self._last_row = 0
        self._tail: deque[str] = deque(maxlen=6)

    def __enter__(self) -> LiveView:
        self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.__exit__(None, None, None)

    def update(self, view: TableView) -> None:
        """Redraw (at most 8 times a second)."""
        now = time.monotonic()
        self.progress.update(self.task, completed=min(view.round_no, self.settings.rounds))
        if now - self._last < 0.12 and view.state is not State.FAULT:
            return
        self._last = now
        self.live.update(self._render(view))

    def _render(self, view: TableView) -> Any:
        from rich.console import Group
        from rich.panel import Panel
        from rich.table import Table
        from rich.text import Text

        lamps = Text()
        for led, mode in view.lamps:
            lamps.append(f" {led.value} ", style=LAMP_STYLE.get(mode, ""))
        seats = Table("seat", "hand", "cards", "total", "status", expand=True)
        for hand in view.hands:
            mark = "▶" if (hand.seat, hand.hand) == (view.acting_seat, view.acting_hand) else ""
            seats.add_row(
                f"{mark}{hand.seat}",
                str(hand.hand),
                " ".join(hand.cards),
                str(hand.total),
                hand.status + (" (doubled)" if hand.doubled else ""),
            )
        dealer = " ".join(view.dealer_cards[:1]) + (" 🂠" if view.hole_face_down else "")
        dealer += " " + " ".join(view.dealer_cards[1:])
        shoe = ""
        # The split table's shoe is in the other process: its count is not shown.
        if isinstance(self.table, SimulatedTable) and hasattr(self.table, "rig"):
            shoe = f"shoe: {self.table.rig.shoe.remaining} cards left"
        header = Text(f"round {view.round_no}  state {view.state.value}  {view.prompt}")
        if view.fault:
            header.append(f"\nFAULT {view.fault}", style="bold red")
        journal = "\n".join(self._journal_tail())
        return Group(
            Panel(header, title="dealer station (simulated)"),
            Panel(lamps, title="panel lamps"),
            Panel(Text(f"dealer: {dealer}   {shoe}"), title="dealer"),
            seats,
            Panel(journal or "-", title="last journal rows"),
            self.progress,
        )

    def _journal_tail(self) -> list[str]:
        from controller.journal.reader import JournalReader
        from controller.journal.store import JournalError

        try:  # only the rows added since the last refresh
            with JournalReader.open(self.settings.journal) as reader:
                for row in reader.rows(after_id=self._last_row):
                    self._last_row = row.id
                    if row.kind not in ("prompt", "state", "button"):
                        self._tail.append(f"{row.id:>6} {row.kind} {row.data_text[:70]}")
        except (OSError, JournalError):
            pass  # not created yet, or mid-checkpoint: the next refresh reads it
        return list(self._tail)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``dealer-station simulate``."""
    parser.add_argument("--profile", choices=list(PROFILES), default="PA")
    parser.add_argument("--decks", type=int, choices=[6, 8], default=6)
    parser.add_argument("--seats", type=int, choices=range(1, 8), default=7, metavar="1..7")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--faults",
        type=float,
        default=0.0,
        metavar="RATE",
        help="chance per dealer step of an injected device fault (0..1)",
    )
    parser.add_argument("--journal", type=Path, default=Path("simulation.sqlite3"))
    parser.add_argument(
        "--table-id",
        default="SIM-1",
        help="the table's id in the journal (station.toml's table_id; default SIM-1)",
    )
    parser.add_argument(
        "--speed",
        choices=["fast", "real"],
        default="fast",
        help="fast: no pacing; real: paced for a person watching",
    )
    parser.add_argument("--plain", action="store_true", help="no live view, even on a terminal")
    parser.add_argument(
        "--split",
        action="store_true",
        help="the device doubles and the dealer in a process of their own (as real devices are)",
    )
    parser.add_argument(
        "--firmware",
        choices=["host", "qemu"],
        default=None,
        help="the shoe and panel board as the C reference firmware: its host builds, or its"
        " Cortex-M images on QEMU mps2-an385 boards (make -C firmware host|arm; docs/firmware.md)",
    )


def run(args: argparse.Namespace) -> int:
    """Run the simulation and print the summary."""
    if not TABLE_ID.fullmatch(args.table_id):
        print(
            f"dealer-station simulate: --table-id {args.table_id!r}: use 1-32 letters,"
            " digits, '.', '_', '-'",
            file=sys.stderr,
        )
        return 2
    if args.rounds < 1 or not 0 <= args.faults <= 1:
        print(
            "dealer-station simulate: --rounds must be >= 1 and --faults in 0..1", file=sys.stderr
        )
        return 2
    problem = _journal_problem(args.journal)
    if problem is not None:
        print(f"dealer-station simulate: {problem}", file=sys.stderr)
        return 2
    settings = SimulationSettings(
        profile=args.profile,
        decks=args.decks,
        seats=args.seats,
        rounds=args.rounds,
        seed=args.seed,
        faults=args.faults,
        journal=args.journal,
        delay=0.25 if args.speed == "real" else 0.0,
        table_id=args.table_id,
        firmware=args.firmware,
    )
    if args.firmware is not None and args.split:
        print(
            "dealer-station simulate: --firmware runs in-process: not with --split", file=sys.stderr
        )
        return 2
    _quiet_logs()
    live = sys.stdout.isatty() and not args.plain
    try:
        if live:
            with LiveView(settings) as view:
                table = _table(settings, view.update, split=args.split)
                view.table = table
                result = table.run()
        else:
            result = _table(settings, _plain_progress(settings), split=args.split).run()
    except SimulationStuckError as err:
        print(f"dealer-station simulate: the station stopped answering: {err}", file=sys.stderr)
        return 1
    except DoublesProcessDiedError as err:
        print(f"dealer-station simulate: {err}", file=sys.stderr)
        return 1
    except FirmwareError as err:  # --firmware: not built, no QEMU, a board that stopped
        print(f"dealer-station simulate: the C firmware: {err}", file=sys.stderr)
        return 1
    except StartError as err:
        print(f"dealer-station simulate: {_with_room(settings.journal, err)}", file=sys.stderr)
        return 2
    except (JournalError, OSError) as err:
        message = f"the journal {settings.journal} could not be written: {err}"
        line = _with_room(settings.journal, err, message)
        print(f"dealer-station simulate: {line}", file=sys.stderr)
        return 1
    for line in summary_lines(tally_journal(settings.journal), result, settings):
        print(line)
    return 0


def _table(
    settings: SimulationSettings, on_view: Callable[[TableView], None], *, split: bool
) -> SimulatedTable | SplitTable:
    """The in-process table, or the split one (``--split``), whose dealer is in another
    process: there the views shown are those the station's observer hands over."""
    if not split:
        return SimulatedTable(settings, on_view=on_view)

    def observe(_event: object, view: TableView | None, _idle: bool) -> None:
        if view is not None:
            on_view(view)

    return SplitTable(settings, observer=observe)


def disk_full(err: BaseException | None) -> bool:
    """Whether ``err``, or an error it was raised from, is a disk out of room: ENOSPC from
    the file system (the sealing key's file) or SQLITE_FULL from SQLite (the journal)."""
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        # getattr: an error SQLite did not raise (made in Python) has no code.
        if getattr(err, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
            return True
        if isinstance(err, OSError) and err.errno == errno.ENOSPC:
            return True
        err = err.__cause__ or err.__context__
    return False


def _with_room(journal: Path, err: BaseException, text: object = None) -> str:
    """``text`` (``err`` when none) on one line, with the room left on the journal's disk
    when ``err`` is a full disk (never for a word in a path: a journal under /srv/full/)."""
    line = str(err if text is None else text)
    if not disk_full(err):
        return line
    try:
        free = shutil.disk_usage(journal.resolve().parent).free
    except OSError:
        return line
    said = "" if "disk is full" in line else "the disk is full: "
    return f"{line} ({said}{free:,} bytes free on its disk)"


def _journal_problem(path: Path) -> str | None:
    """Why ``--journal`` cannot be a new journal, or None."""
    text = str(path)
    # Shown as typed where it is printable, quoted and escaped where not (one line).
    shown = text if text.isprintable() else repr(text)
    if not text.strip() or "\0" in text:
        return f"--journal {text!r} is not a usable path"
    try:
        if path.exists() or path.is_symlink():
            return f"{shown} exists; choose a new --journal"
        parent = path.parent
        if not parent.is_dir():
            return f"--journal {shown}: no such directory"
        if not os.access(parent, os.W_OK):
            return f"--journal {shown}: its directory is not writable"
    except OSError as err:  # a name too long, a loop of links...
        return f"--journal {shown}: {err.strerror or err}"
    return None


def _plain_progress(settings: SimulationSettings) -> Any:
    seen = {"round": 0}

    def on_view(view: TableView) -> None:
        if view.state is State.SETTLING and view.round_no != seen["round"]:
            seen["round"] = view.round_no
            if view.round_no % max(1, settings.rounds // 10) == 0:
                print(f"round {view.round_no}/{settings.rounds}", flush=True)

    return on_view


def _quiet_logs() -> None:
    from controller.service.logs import configure_logging

    # The live view is the output; only errors go to stderr.
    configure_logging(level="error", form="console", stream=sys.stderr)
