"""``dealer-station journal recall|verify|export|anchor|setup-keys|migrate|rotate``: the audit
journal.

All but ``setup-keys`` and ``migrate`` open the journal read-only, so they are safe while
the station runs. The journal is found by ``--journal PATH``, else by ``--config FILE``
(its ``journal.path``), else at the default path. ``setup-keys`` makes a table's sealing
state and prints its verification key once. Exit status: 0 good, 1 the journal is damaged
(or verify found a problem), 2 a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli.journal_rotate import add_parser as add_rotate_parser
from controller.cli.journal_verify import _folder as folder_path
from controller.cli.journal_verify import add_archive_parsers, one_line
from controller.cli.journal_verify import add_options as add_verify_options
from controller.journal.store import (
    DEFAULT_PATH,
    JournalCorruptError,
    JournalReader,
    canonical_json,
    format_ts,
)

if TYPE_CHECKING:
    from controller.journal.anchor import Anchor
    from controller.journal.seal import VerificationKey

EXIT_DAMAGED = 1
#: More rounds (or rows) than a table plays in centuries; SQLite's integers end at 2**63.
#: A larger count asks for all of them.
MAX_COUNT = 1_000_000_000
EXIT_USAGE = 2
#: ``--key @FILE`` reads at most this much (a verification key is about 80 characters).
KEY_FILE_MAX_BYTES = 4096


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of rounds: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"the number of rounds must be at least 1, not {value}")
    return min(value, MAX_COUNT)  # any larger number means "all of them"


def parse_moment(text: str, *, end: bool = False) -> datetime:
    """``YYYY-MM-DD`` (the whole day: its start, or with ``end`` the next day's start) or an
    ISO date-time (UTC unless it names an offset).

    Raises:
        argparse.ArgumentTypeError: for anything else.
    """
    try:
        day = date.fromisoformat(text)
    except ValueError:
        pass
    else:
        moment = datetime.combine(day, time(), tzinfo=UTC)
        if end and day == date.max:
            return datetime.max.replace(tzinfo=UTC)  # the end of time: no upper bound
        return moment + timedelta(days=1) if end else moment
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a date: {text!r} (use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS)"
        ) from None
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise argparse.ArgumentTypeError(f"out of range in UTC: {text!r}") from None


def journal_file(text: str) -> Path:
    """``--journal``'s path: a file's (not empty, ``.`` or ``/``, which name no file and
    beside which no head record can be named), without a NUL byte.

    Raises:
        argparse.ArgumentTypeError: for anything else.
    """
    if "\0" in text:
        raise argparse.ArgumentTypeError(f"a NUL byte in the path {text!r}")
    path = Path(text)
    if not path.name:
        raise argparse.ArgumentTypeError(f"not the path of a file: {text!r}")
    return path


def _add_location(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--journal", type=journal_file, help=f"journal file (default {DEFAULT_PATH})"
    )
    parser.add_argument("--config", type=Path, help="station.toml naming the journal")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Sub-subcommands ``recall``, ``verify`` and ``export``."""
    sub = parser.add_subparsers(dest="journal_command", required=True, metavar="ACTION")
    recall = sub.add_parser("recall", help="print the last N rounds (default 10), or one round")
    recall.add_argument("rounds", nargs="?", type=_count, default=10, metavar="N")
    recall.add_argument(
        "--round", dest="round_no", type=_round_number, metavar="R", help="round R alone"
    )
    recall.add_argument("--json", action="store_true", help="JSON instead of text")
    _add_history(recall)
    _add_location(recall)
    verify = sub.add_parser(
        "verify", help="check the hash chain, the file, the hole cards and (with --key) the seals"
    )
    verify.add_argument(
        "--tail",
        type=_count,
        metavar="N",
        help="check only about the last N rows, with SQLite's quick check (ignored with --key)",
    )
    verify.add_argument(
        "--key",
        type=_verification_key,
        metavar="KEY",
        help="the table's verification key (ds1:...), or @FILE holding it: prove every seal",
    )
    verify.add_argument(
        "--anchor",
        type=_anchor,
        metavar="A",
        help="an anchor taken earlier (TABLE:ROW:EPOCH:HASH): fail if behind or forked",
    )
    add_verify_options(verify)
    _add_location(verify)
    add_archive_parsers(sub, _add_location, _verification_key)
    anchor = sub.add_parser("anchor", help="print the latest sealed head (TABLE:ROW:EPOCH:HASH)")
    _add_location(anchor)
    keys = sub.add_parser(
        "setup-keys", help="make the table's sealing state; print its verification key once"
    )
    keys.add_argument("--table", help="the table id (default: table_id of --config)")
    keys.add_argument("--key-file", type=Path, help="where the sealing state goes")
    keys.add_argument("--config", type=Path, help="station.toml naming the table and key file")
    keys.add_argument(
        "--force", action="store_true", help="replace an existing sealing state (new key)"
    )
    add_rotate_parser(sub, _add_location)
    migrate = sub.add_parser(
        "migrate",
        help="copy a format-1 journal into storage format 2, prove it, rename it into place"
        " (the station stopped)",
    )
    _add_location(migrate)
    export = sub.add_parser("export", help="write rows as JSON lines for a date range (UTC)")
    export.add_argument("--from", dest="ts_from", type=parse_moment, metavar="DATE")
    export.add_argument(
        "--to", dest="ts_to", type=lambda t: parse_moment(t, end=True), metavar="DATE"
    )
    export.add_argument("--output", type=Path, help="file to write (default stdout)")
    _add_history(export)
    _add_location(export)


def _add_history(parser: argparse.ArgumentParser) -> None:
    """``--archive DIR [--key KEY]``: read a rotated journal's archived rows too."""
    parser.add_argument(
        "--archive",
        type=folder_path,
        metavar="DIR",
        help="a rotated journal's archive: read its segments' rows too (each proved first)",
    )
    parser.add_argument(
        "--key",
        type=_verification_key,
        metavar="KEY",
        help="with --archive: the table's verification key (ds1:... or @FILE): prove the seals",
    )


def _round_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a round number: {text!r}") from None
    if not 1 <= value <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"a round number is 1 to {MAX_COUNT}, not {value}")
    return value


def _verification_key(text: str) -> VerificationKey:
    from controller.journal.seal import SealError, VerificationKey

    if text.startswith("@"):
        try:
            with Path(text[1:]).open("rb") as file:
                # A key is about 80 characters: a larger "file" (/dev/zero) is refused
                # unread, not read without end.
                raw = file.read(KEY_FILE_MAX_BYTES + 1)
        except (OSError, ValueError) as err:
            reason = err.strerror if isinstance(err, OSError) else str(err)
            raise argparse.ArgumentTypeError(f"{text[1:]}: {reason}") from None
        if len(raw) > KEY_FILE_MAX_BYTES:
            raise argparse.ArgumentTypeError(
                f"{text[1:]}: larger than {KEY_FILE_MAX_BYTES} bytes: not a verification key"
            )
        text = raw.decode("ascii", errors="replace")
    try:
        return VerificationKey.from_text(text)
    except SealError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _anchor(text: str) -> Anchor:
    from controller.journal.anchor import Anchor

    try:
        return Anchor.parse(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def journal_path(args: argparse.Namespace) -> Path:
    """Where the journal is, from ``--journal``, ``--config`` or the default.

    Raises:
        controller.service.config.ConfigError: when ``--config`` names a bad file.
    """
    if args.journal is not None:
        return Path(args.journal)
    if args.config is not None:
        from controller.service.config import load_config

        return load_config(args.config).journal.path
    return DEFAULT_PATH


def run(args: argparse.Namespace) -> int:
    """Run the chosen action; one line on stderr for any error."""
    from controller.service.config_schema import ConfigError

    if args.journal_command == "verify-archive":
        from controller.cli.journal_verify import run_verify_archive

        return run_verify_archive(args)
    try:
        if args.journal_command == "setup-keys":
            from controller.cli.journal_keys import setup_keys

            return setup_keys(args)
        path = journal_path(args)
    except ConfigError as err:
        return refuse(str(err), EXIT_USAGE)
    if args.journal_command == "verify":
        from controller.cli.journal_verify import run_verify

        return run_verify(path, args)
    if args.journal_command == "archive":
        from controller.cli.journal_verify import run_archive

        return run_archive(path, args)
    if args.journal_command == "migrate":
        return _migrate(path)
    if args.journal_command == "rotate":
        from controller.cli.journal_rotate import run_rotate

        return run_rotate(path, args)
    if getattr(args, "key", None) is not None and getattr(args, "archive", None) is None:
        return refuse(
            f"dealer-station journal {args.journal_command}: --key needs --archive (it proves"
            " the archive's seals; 'journal verify --key' proves the journal's)",
            EXIT_USAGE,
        )
    if getattr(args, "archive", None) is not None and not args.archive.is_dir():
        problem = "not a directory" if args.archive.exists() else "no such directory"
        return refuse(
            f"dealer-station journal {args.journal_command}: --archive {args.archive}: {problem}",
            EXIT_USAGE,
        )
    from controller.journal.archive import ArchiveError

    try:
        with JournalReader.open(path) as reader:
            if args.journal_command == "recall":
                return _recall(reader, args)
            if args.journal_command == "anchor":
                return _print_anchor(reader)
            return _export(reader, args)
    except ArchiveError as err:
        return refuse(f"dealer-station journal {args.journal_command}: {err}", EXIT_DAMAGED)
    except FileNotFoundError as err:
        return refuse(f"dealer-station journal: {err}", EXIT_USAGE)
    except JournalCorruptError as err:
        return refuse(f"dealer-station journal: {err} (run 'journal verify')", EXIT_DAMAGED)
    except BrokenPipeError:
        raise  # the reader went away (`| head`): controller.cli.main ends quietly
    except OSError as err:
        return refuse(f"dealer-station journal: {err}", EXIT_USAGE)


def refuse(text: str, code: int) -> int:
    """Print ``text`` on one line of stderr (a newline or a byte that is not UTF-8 in a
    path escaped, :func:`one_line`); return ``code``."""
    print(one_line(text), file=sys.stderr)
    return code


def _migrate(path: Path) -> int:
    from controller.journal.format import JournalError
    from controller.journal.migrate import migrate_journal

    try:
        done = migrate_journal(path)
    except FileNotFoundError as err:
        return refuse(f"dealer-station journal: {err}", EXIT_USAGE)
    except JournalError as err:
        return refuse(f"dealer-station journal: {err}", EXIT_DAMAGED)
    print(
        f"migrated: {one_line(str(path))} is storage format 2: {done.rows} rows, last row"
        f" {done.last_id} ({done.last_hash}), {done.seals} seals, proved the same"
    )
    return 0


def _recall(reader: JournalReader, args: argparse.Namespace) -> int:
    from controller.journal.archive.history import History, find_round
    from controller.journal.recall import recall, render_text

    history = None if args.archive is None else History.open(reader, args.archive, args.key)
    if args.round_no is not None:
        found = find_round(history or reader, args.round_no)
        if found is None:
            where = (
                "is in neither the journal nor the archive"
                if history is not None
                else "is not in the journal"
                + (" (rotated: give --archive DIR)" if reader.storage.base is not None else "")
            )
            return refuse(f"dealer-station journal recall: round {args.round_no} {where}", 1)
        recalled = {"rounds": [found], "after": []}
    elif history is not None:
        recalled = history.recall(args.rounds)
    else:
        recalled = recall(reader, args.rounds)
    if args.json:
        print(json.dumps(recalled, indent=2))
    else:
        print(render_text(recalled))
    base = reader.storage.base
    short = len(recalled.get("rounds", ())) < args.rounds
    if history is None and args.round_no is None and base is not None and short:
        # A rotated journal: the older rounds are in the archive (docs/journal.md, "Rotation").
        print(
            f"dealer-station journal: rounds before row {base.row + 1} are in the archive"
            f" (rows 1..{base.row}, the last in segment {base.segment}; give --archive DIR)",
            file=sys.stderr,
        )
    return 0


def _print_anchor(reader: JournalReader) -> int:
    from controller.journal.anchor import latest_anchor

    found = reader.query(latest_anchor)
    if found is None:
        print("dealer-station journal anchor: no seal in the journal", file=sys.stderr)
        return EXIT_DAMAGED
    print(found)
    return 0


def _export(reader: JournalReader, args: argparse.Namespace) -> int:
    ts_from = format_ts(args.ts_from) if args.ts_from else None
    ts_to = format_ts(args.ts_to) if args.ts_to else None
    if ts_from and ts_to and ts_from >= ts_to:
        print("dealer-station journal export: --from must come before --to", file=sys.stderr)
        return EXIT_USAGE
    if args.output is not None:
        from controller.journal.creation import journal_files

        own = {os.path.realpath(p) for p in journal_files(reader.path)}
        if os.path.realpath(args.output) in own:
            return refuse(
                f"dealer-station journal export: {args.output} is the journal's own file:"
                " never written over",
                EXIT_USAGE,
            )
    if args.archive is not None:
        from controller.journal.archive.history import History

        history = History.open(reader, args.archive, args.key)  # the links, before any row
        rows = history.rows(ts_from=ts_from, ts_to=ts_to)
    else:
        rows = reader.rows(ts_from=ts_from, ts_to=ts_to)
    if args.output is None:
        for row in rows:
            sys.stdout.write(canonical_json(row.as_json()) + "\n")
        return 0
    if Path(args.output).is_symlink():
        return refuse(
            f"dealer-station journal export: {args.output} is a symlink: name the file itself",
            EXIT_USAGE,
        )
    # O_NOFOLLOW: a link put there meanwhile is refused, not written through.
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    with os.fdopen(os.open(args.output, flags, 0o640), "w", encoding="ascii") as out:
        for row in rows:
            out.write(canonical_json(row.as_json()) + "\n")
    return 0
