"""``dealer-station journal rotate --archive DIR``: cut the live journal after its archive
(``controller.journal.rotate``, docs/journal.md "Rotation"), the station stopped.

With ``--config`` the sealing state and the floor link come from station.toml: the base is
sealed with the station's checkpoint key, and a station with a ``[floor]`` section keeps
every row its collector has not acknowledged (none acknowledged yet: nothing is cut). With
``--journal`` only, ``--sealing-key`` names the state (a journal that seals cannot be
rotated without it: the next start would refuse an unsealed base) and an acknowledgement
file beside the journal is honoured when there is one.

``--check`` (read-only, safe while the station runs) only says whether a rotation would cut
rows now and exits 0 if it would, 1 if not: the nightly unit's condition. ``--idle
MINUTES`` (with ``--check``) also needs the table idle: no round open, and the last row at
least that old. Exit status: 0 rotated, or nothing to rotate; 1 the journal or the archive
does not check, or the new file could not be written (the journal is left as it was); 2 a
usage error; 75 the station is running (try again when it is stopped).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from controller.cli.journal_verify import one_line

EXIT_LOCKED = 75  # EX_TEMPFAIL: the station holds the journal


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    add_location: Callable[[argparse.ArgumentParser], None],
) -> None:
    """``journal rotate``."""
    from controller.cli.journal_verify import _folder

    rotate = sub.add_parser(
        "rotate",
        help="cut the live journal after the archive in DIR (the station stopped)",
    )
    rotate.add_argument("--archive", type=_folder, required=True, metavar="DIR")
    rotate.add_argument("--sealing-key", type=Path, metavar="FILE", help="the sealing state")
    rotate.add_argument(
        "--check", action="store_true", help="only say whether rows would be cut (read-only)"
    )
    rotate.add_argument("--idle", type=_minutes, metavar="MINUTES", help="with --check")
    add_location(rotate)


def _minutes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of minutes: {text!r}") from None
    if not 0 <= value <= 24 * 60:
        raise argparse.ArgumentTypeError(f"minutes must be 0..1440, not {value}")
    return value


def run_rotate(path: Path, args: argparse.Namespace) -> int:
    """Run ``journal rotate``; see the module docstring for the exit status."""
    from controller.journal.format import JournalError, JournalLockedError
    from controller.journal.rotate import NothingToRotateError, rotate_journal
    from controller.journal.seal import SealError, load_state
    from controller.service.config_schema import ConfigError
    from controller.service.daemon import WAGER_SPOTS

    def say(text: str, code: int) -> int:
        print(f"journal rotate: {one_line(text)}", file=sys.stdout if code == 0 else sys.stderr)
        return code

    if not args.archive.is_dir():
        return say(f"{args.archive}: not a directory", 2)
    try:
        sealing_path, floor = _station(args)
    except ConfigError as err:
        return say(str(err), 2)
    acked = _acked(path, floor)
    if args.check:
        return _check(path, args, acked)
    try:
        sealing = load_state(sealing_path) if sealing_path is not None else None
    except OSError as err:
        return say(f"the sealing state {sealing_path}: {err.strerror or err}", 2)
    except SealError as err:
        return say(f"the sealing state {sealing_path}: {err}", 2)
    try:
        done = rotate_journal(
            path, args.archive, wager_spots=WAGER_SPOTS, floor_acked=acked, sealing=sealing
        )
    except FileNotFoundError as err:
        return say(str(err), 2)
    except NothingToRotateError as err:
        return say(str(err), 0)
    except JournalLockedError as err:
        return say(f"{err}: stop the station first", EXIT_LOCKED)
    except JournalError as err:
        return say(str(err), 1)
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return say(
        f"rotated {path} at {stamp}: rows 1..{done.base.row} archived (segment"
        f" {done.base.segment}), {done.cut_rows} rows cut, {done.live_rows} rows live",
        0,
    )


def _station(args: argparse.Namespace) -> tuple[Path | None, bool | None]:
    """The sealing state's path and whether the station has a floor link (None: unknown,
    ``--journal`` only).

    Raises:
        ConfigError: ``--config`` names a bad file.
    """
    if args.config is not None and args.journal is None:
        from controller.service.config import load_config

        config = load_config(args.config)
        key = args.sealing_key or config.journal.sealing_key
        return (key if key.exists() else None), config.floor is not None
    return args.sealing_key, None


def _acked(path: Path, floor: bool | None) -> int | None:
    """The last row the floor acknowledged, or None when the station ships nothing."""
    from controller.service.outbox import ack_path, load_ack

    if floor is False or (floor is None and not ack_path(path).exists()):
        return None
    return load_ack(ack_path(path))[0]


def _check(path: Path, args: argparse.Namespace, acked: int | None) -> int:
    """``--check``: 0 when a rotation would cut rows now (and the table is idle), else 1."""
    from controller.journal.compact import micros_from_ts
    from controller.journal.format import JournalError
    from controller.journal.reader import JournalReader
    from controller.journal.rotate import plan_cut
    from controller.service.daemon import WAGER_SPOTS

    try:
        with JournalReader.open(path) as reader:
            plan = reader.query(
                lambda conn: plan_cut(
                    conn, path, args.archive, wager_spots=WAGER_SPOTS, floor_acked=acked
                )
            )
            last = reader.last()
            started = reader.last("round_started", "round_completed", "round_voided")
    except (FileNotFoundError, JournalError) as err:
        print(f"journal rotate: {one_line(str(err))}", file=sys.stderr)
        return 1
    if isinstance(plan, str):
        print(f"journal rotate: {one_line(plan)}")
        return 1
    if args.idle is not None and last is not None:
        age = (datetime.now(UTC).timestamp() * 1e6 - micros_from_ts(last.ts)) / 60e6
        if started is not None and started.kind == "round_started":
            print(f"journal rotate: round {started.round_no} is open: not now")
            return 1
        if age < args.idle:
            print(f"journal rotate: the last row is {age:.0f} minutes old: the table is busy")
            return 1
    print(f"journal rotate: would cut rows up to {plan} (segment ending there)")
    return 0
