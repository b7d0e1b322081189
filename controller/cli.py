"""The ``dealer-station`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="dealer-station", description=__doc__)
    parser.add_subparsers(dest="command", required=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``dealer-station``; returns the exit status."""
    args = build_parser().parse_args(argv)
    print(args, file=sys.stderr)
    return 0
