"""The split HIL rate of several commits, measured alternately on one machine.

A figure that moved between two ``make bench`` runs on two machines says little about the
code; this runs ``bench/hil_throughput.py``'s split measurement (``measure_split``, the
journal on tmpfs) of each commit in a worktree of its own, each commit once a pass, so that
the machine's drift touches them alike::

    .venv/bin/python bench/hil_compare.py [--rounds N] [--runs K] REV [REV ...]

Each commit runs with its own sources first on the path (this checkout's virtual
environment, so a commit whose dependencies differ may not run: its line says so). Prints a
line a run and, per commit, the median rounds per second and station CPU per round.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Run in each worktree: the split measurement alone, its figures as one JSON line.
_MEASURE = """
import json, sys, tempfile
from pathlib import Path
from controller.service.logs import configure_logging
configure_logging(level="error", form="console", stream=sys.stderr)
import hil_throughput
with tempfile.TemporaryDirectory(prefix="hil-compare-", dir=sys.argv[2]) as directory:
    rate, rounds, cpu = hil_throughput.measure_split(Path(directory), int(sys.argv[1]))
print(json.dumps({"rate": rate, "station": cpu["station_process"], "batches": cpu["batches"]}))
"""


def measure(tree: Path, rounds: int) -> dict[str, float] | str:
    """One split run of the commit checked out at ``tree``: its figures, or why not."""
    scratch = "/dev/shm" if Path("/dev/shm").is_dir() else tempfile.gettempdir()
    env = dict(os.environ, PYTHONPATH=f"{tree}{os.pathsep}{tree / 'bench'}")
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(rounds), scratch],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"failed ({done.returncode}): {last}"
    figures: dict[str, float] = json.loads(lines[-1])
    return figures


def commit_of(rev: str) -> str | None:
    """The commit ``rev`` names in this repository, or None when it names none."""
    found = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", "--end-of-options",
         f"{rev}^{{commit}}"],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    return found.stdout.strip() if found.returncode == 0 else None


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not 1 or more")
    return value


def main() -> int:
    """Print the figures; 2 with one line on stderr when a revision names no commit."""
    parser = argparse.ArgumentParser(description="split HIL rate of several commits")
    parser.add_argument("revisions", nargs="+", metavar="REV")
    parser.add_argument("--rounds", type=_positive, default=300)
    parser.add_argument("--runs", type=_positive, default=3)
    args = parser.parse_args()
    unknown = [rev for rev in args.revisions if commit_of(rev) is None]
    if unknown:
        print(f"hil_compare: no such commit: {', '.join(map(repr, unknown))}", file=sys.stderr)
        return 2
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; {args.rounds} rounds")
    with tempfile.TemporaryDirectory(prefix="hil-compare-trees-") as base:
        trees: dict[str, Path] = {}
        try:
            for rev in args.revisions:
                tree = Path(base) / f"tree-{len(trees)}"
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), rev],
                    check=True,
                )
                trees[rev] = tree
            results: dict[str, list[dict[str, float]]] = {rev: [] for rev in trees}
            for run in range(args.runs):
                for rev, tree in trees.items():
                    got = measure(tree, args.rounds)
                    if isinstance(got, str):
                        print(f"run {run + 1} {rev}: {got}")
                        continue
                    results[rev].append(got)
                    print(
                        f"run {run + 1} {rev}: {got['rate']:.1f} rounds/s, station "
                        f"{got['station']:.2f} ms CPU a round, {got['batches']:.1f} batches"
                    )
        finally:
            for tree in trees.values():
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                    check=False,
                )
    for rev, runs in results.items():
        if runs:
            rate = statistics.median(r["rate"] for r in runs)
            cpu = statistics.median(r["station"] for r in runs)
            print(f"{rev}: median {rate:.1f} rounds/s, {cpu:.2f} ms station CPU a round")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
