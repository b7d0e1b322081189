"""``dealer-station journal setup-keys``: make a table's sealing state, print its key once.

The sealing state (table, epoch 0, the secret ``k0``) goes to the configured
``journal.sealing_key`` file (mode 0600); the verification key, which re-derives every
epoch's key, is printed once on stdout as text with a checksum and as a terminal QR code,
for the operator to keep off the station (docs/operations.md). An existing state is never
replaced without ``--force``: a new key starts a new epoch sequence, which ``journal verify``
then reports against every seal made before. Even with ``--force`` only a regular file that
holds a sealing state is replaced: never a device node, a directory, a symlink (or what it
points at), nor the journal's own files.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path

from controller.cli.journal_verify import one_line
from controller.journal.creation import journal_files
from controller.journal.seal import (
    DEFAULT_STATE_PATH,
    SealError,
    load_state,
    new_sealing,
    save_state,
)
from controller.service.config import TABLE_ID, load_config
from controller.service.outbox import ack_path

EXIT_USAGE = 2


def setup_keys(args: argparse.Namespace) -> int:
    """Make the sealing state and print the verification key; 2 with one line on error.

    Raises:
        controller.service.config_schema.ConfigError: ``--config`` names a bad file.
    """
    table, key_file, journal = args.table, args.key_file, None
    if args.config is not None:
        config = load_config(args.config)
        table = table or config.table_id
        key_file = key_file or config.journal.sealing_key
        journal = config.journal.path
    key_file = Path(key_file or DEFAULT_STATE_PATH)
    if table is None:
        print(
            "dealer-station journal setup-keys: name the table (--table or --config)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if not TABLE_ID.fullmatch(table):
        print(
            f"dealer-station journal setup-keys: bad table id {table!r}"
            " (1-32 letters, digits, '.', '_', '-')",
            file=sys.stderr,
        )
        return EXIT_USAGE
    problem = _replace_problem(key_file, journal, force=args.force)
    if problem:
        print(f"dealer-station journal setup-keys: {one_line(problem)}", file=sys.stderr)
        return EXIT_USAGE
    state, key = new_sealing(table)
    try:
        save_state(key_file, state)
    except OSError as err:
        print(
            f"dealer-station journal setup-keys: {one_line(str(key_file))}: {err.strerror}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    text = key.to_text()
    print(f"Sealing state for table {table} written to {key_file}.")
    print("Verification key (shown once: keep it off the station; `journal verify --key`):")
    print()
    print(f"  {text}")
    print()
    _print_qr(text)
    return 0


def _replace_problem(key_file: Path, journal: Path | None, *, force: bool) -> str:
    """Why the sealing state may not be written at ``key_file`` (``""``: it may): never over
    the journal's own files, and never over anything but a regular file holding a sealing
    state (a device node, a directory, a symlink's target, a file of some other kind), nor
    over a state without ``--force``."""
    if journal is not None:
        own = {os.path.realpath(p) for p in (*journal_files(journal), ack_path(journal))}
        if os.path.realpath(key_file) in own:
            return f"{key_file} is the journal's own file ({journal}): never replaced"
    try:
        found = key_file.lstat()
    except FileNotFoundError:
        return ""
    except OSError as err:
        return f"{key_file}: {err.strerror}"
    if stat.S_ISLNK(found.st_mode):
        return f"{key_file} is a symlink: a key file is replaced only where it is itself"
    if not stat.S_ISREG(found.st_mode):
        return f"{key_file} is not a regular file: nothing but a key file is replaced"
    try:
        load_state(key_file)
    except (OSError, SealError):
        return f"{key_file} is not a sealing state the station made: it is not replaced"
    if not force:
        return (
            f"{key_file} exists (the station's current key); --force replaces it and starts"
            " a new key"
        )
    return ""


def _print_qr(text: str) -> None:
    """The key as a QR code drawn with block characters (segno), for a phone to read."""
    import segno

    segno.make(text, error="m").terminal(out=sys.stdout, compact=True)
