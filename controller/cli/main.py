"""The ``dealer-station`` command line.

Each subcommand lives in its own module, imported only when it runs (start-up time on a
Pi matters). A command module offers ``add_arguments(parser)`` and ``run(args) -> int``.
User errors print one line on stderr and exit with status 2; tracebacks are for bugs.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import sys
from collections.abc import Sequence
from typing import NoReturn, Protocol, cast

# subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "check-config": ("controller.cli.check_config", "check a station.toml without starting"),
    "diagram": ("controller.cli.diagram", "print the procedure state machine as a Mermaid diagram"),
    # The floor side (off the table): named here, imported only when it runs.
    "floor": ("floor.cli", "the casino floor: collect journals into PostgreSQL, serve the monitor"),
    "journal": ("controller.cli.journal", "recall rounds, verify or export the audit journal"),
    "pair": ("controller.cli.pair", "pair a device with this station (supervisor key on)"),
    "run": ("controller.service.daemon", "run the station daemon (under systemd)"),
    "simulate": ("controller.cli.simulate", "run the whole station against simulated devices"),
    "replay": ("controller.cli.replay", "replay one round from a script and print its settlement"),
    "doubles": ("drivers.simulated.serve", "serve device doubles on ptys or unix sockets"),
}


#: The commands that use rich (the simulated table's terminal). Every other command's process
#: keeps it out (start-up time on a Pi: the unit runs check-config, then the daemon, at each
#: start): structlog would load it for its console tracebacks; without it a console run
#: prints structlog's plain tracebacks (controller/service/logs.py), and the daemon writes
#: JSON lines for journald.
USES_RICH = frozenset({"simulate"})


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (status 2), as every
    other error of the command line is; ``--help`` still prints the full usage."""

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: MESSAGE`` on one line and exit with status 2."""
        self.exit(2, f"{self.prog}: {' '.join(message.split())} (see --help)\n")


class CommandModule(Protocol):
    """What a subcommand module provides."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


def _load(name: str) -> CommandModule:
    return cast(CommandModule, importlib.import_module(COMMANDS[name][0]))


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The argument parser; only the chosen subcommand's module is imported."""
    parser = OneLineParser(prog="dealer-station", description="Spanish 21 dealer station")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # There are no options before the subcommand (but -h), so it is the first argument.
    chosen = argv[0] if argv and argv[0] in COMMANDS else None
    for name, (_module, help_text) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            _load(name).add_arguments(command_parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``dealer-station``; returns the exit status."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if argv is None and arguments and arguments[0] not in USES_RICH:
        # The program's own process only (a caller's argv list may come from a process
        # that uses rich). None in sys.modules makes its import fail as if absent.
        sys.modules.setdefault("rich", None)  # type: ignore[arg-type]
    if isinstance(sys.stdout, io.TextIOWrapper) and sys.stdout.errors == "strict":
        # A name of bytes that are not UTF-8 (a path argument, a file in a folder) reaches
        # Python as surrogates: printed on a UTF-8 locale's strict stdout it would end in
        # UnicodeEncodeError. Escaped instead, as Python's stderr does.
        sys.stdout.reconfigure(errors="backslashreplace")
    args = build_parser(arguments).parse_args(arguments)
    try:
        return _load(args.command).run(args)
    except BrokenPipeError:
        # The reader went away (`... | head`): not an error of ours. Point stdout at
        # /dev/null so the interpreter's final flush does not complain again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"dealer-station {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
