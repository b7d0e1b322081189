"""The long soak: the HIL soak test (hil_tests/test_soak.py) with many rounds, timed.

The test command runs the soak short (``DEFAULT_SOAK_ROUNDS`` in hil_tests/conftest.py);
this runs the same test, with all its checks (every dealt card journalled exactly once
across faults and a noisy shoe line, the chain verified), for ``--rounds`` rounds and
reports how long it took::

    .venv/bin/python bench/soak_bench.py [--rounds 2500]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    """Run the soak test for ``--rounds`` rounds; print its time and FIGURES."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=2500)
    args = parser.parse_args()
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        str(ROOT / "hil_tests" / "test_soak.py"),
        f"--soak-rounds={args.rounds}",
    ]
    started = time.perf_counter()
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    passed = proc.returncode == 0
    print(f"soak, {args.rounds} rounds: {'passed' if passed else 'FAILED'} in {seconds:.1f} s")
    print(f"{args.rounds / seconds:.1f} rounds/s wall, {cpu:.1f} s CPU ({cpu / seconds:.2f} cores)")
    if not passed:
        print(proc.stdout[-3000:], proc.stderr[-2000:])
    figures = {
        "rounds": args.rounds,
        "passed": passed,
        "seconds": round(seconds, 1),
        "rounds_per_s": round(args.rounds / seconds, 1),
        "cpu_seconds": round(cpu, 1),
    }
    print("FIGURES " + json.dumps(figures))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
