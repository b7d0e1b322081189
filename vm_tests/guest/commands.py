"""Several ``dealer-station`` commands in one Python, for the boot tests (run in the guest by
the installed package's own interpreter, ``/opt/dealer-station/bin/python``).

A Python start and the command line's imports take seconds in a TCG guest (more on arm64);
a test step that runs several commands one after the other pays them once here. Each
command is the installed program's own entry point, ``controller.cli.main.main``, called
with its arguments as ``/usr/bin/dealer-station`` calls it, in the order given, whatever
the previous one returned:

    python commands.py DIR '[["pair", "shoe", ...], ["journal", "verify"]]'

writes each command's stdout and stderr to ``DIR/<n>.out`` and ``DIR/<n>.err`` (n from 0)
and prints one JSON list: per command its exit status and the ends of its stdout and
stderr. A command that raises is exit status 1 with the traceback on its stderr, as the
program's own would be.
"""

from __future__ import annotations

import io
import json
import sys
import traceback
from pathlib import Path

from controller.cli.main import USES_RICH, main

#: How much of each command's stdout and stderr the JSON reply carries (the files hold all).
TAIL = 8192


def run(argv: list[str], out: Path, err: Path) -> int:
    """One command with its stdout and stderr in ``out`` and ``err``; its exit status."""
    saved = sys.stdout, sys.stderr
    with out.open("wb") as out_file, err.open("wb") as err_file:
        sys.stdout = io.TextIOWrapper(out_file, encoding="utf-8", errors="strict")
        sys.stderr = io.TextIOWrapper(err_file, encoding="utf-8", errors="backslashreplace")
        try:
            status = main(argv)
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            if stop.code is not None and not isinstance(stop.code, int):
                print(stop.code, file=sys.stderr)
        except BaseException:  # the program's own would die of it: status 1, the traceback
            traceback.print_exc()
            status = 1
        finally:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
                stream.detach()
            sys.stdout, sys.stderr = saved
    return status


def tail(path: Path) -> str:
    return path.read_bytes()[-TAIL:].decode(errors="replace")


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    commands = json.loads(sys.argv[2])
    if not any(argv[:1] and argv[0] in USES_RICH for argv in commands):
        # As the installed program's own process keeps rich out for these commands
        # (controller/cli/main.py): a TCG guest pays seconds for it.
        sys.modules.setdefault("rich", None)  # type: ignore[arg-type]
    results = []
    for number, argv in enumerate(commands):
        out, err = folder / f"{number}.out", folder / f"{number}.err"
        status = run(argv, out, err)
        results.append({"rc": status, "out": tail(out), "err": tail(err)})
    print(json.dumps(results))
