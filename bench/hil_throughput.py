"""Complete rounds per second through the real transports.

The simulated table of ``dealer-station simulate`` (real daemon, drivers, pty / pyusb /
mock-pin transports, device doubles, simulated dealer; 7 seats, no pacing), with the
journal on tmpfs and on disk::

    .venv/bin/python bench/hil_throughput.py [--rounds N] [--disk-dir DIR] [--profile]

``--profile`` runs cProfile on the station thread (tmpfs run) and prints where its time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import resource
import sys
import tempfile
import threading
from pathlib import Path

from controller.service.logs import configure_logging
from controller.simulation.runner import SimulatedTable, SimulationSettings


def measure(directory: Path, rounds: int, seed: int = 7) -> tuple[float, int, float]:
    """Rounds per second, rounds played and CPU milliseconds (all threads, user + system)
    per round, journal in ``directory``."""
    journal = directory / f"bench-{seed}.sqlite3"
    table = SimulatedTable(
        SimulationSettings(profile="PA", seats=7, rounds=rounds, seed=seed, journal=journal)
    )
    before = resource.getrusage(resource.RUSAGE_SELF)
    result = table.run()
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return result.rounds / result.seconds, result.rounds, cpu / result.rounds * 1000


def profile_station(directory: Path, rounds: int) -> None:
    """cProfile the station's thread (where the daemon's own time goes)."""
    profiler = cProfile.Profile()
    original = threading.Thread.run

    def run(self: threading.Thread) -> None:
        if self.name != "station":
            original(self)
            return
        profiler.enable()
        try:
            original(self)
        finally:
            profiler.disable()

    threading.Thread.run = run  # type: ignore[method-assign]
    try:
        rate, done, _cpu = measure(directory, rounds)
    finally:
        threading.Thread.run = original  # type: ignore[method-assign]
    print(f"profiled: {done} rounds, {rate:.1f} rounds/s; station thread, by own time:")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(18)


def main() -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(description="HIL throughput: rounds per second")
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--disk-dir", type=Path, default=Path.cwd())
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    configure_logging(level="error", form="console", stream=sys.stderr)
    load = os.getloadavg()[0]
    print(
        f"python {sys.version.split()[0]}, switch interval {sys.getswitchinterval()} s, "
        f"{os.cpu_count()} CPUs, load average {load:.1f} (other work skews the figures)"
    )
    figures: dict[str, float] = {}
    places = []
    if Path("/dev/shm").is_dir():
        places.append(("tmpfs (/dev/shm)", Path("/dev/shm")))
    places.append((f"disk ({args.disk_dir})", args.disk_dir))
    for name, base in places:
        with tempfile.TemporaryDirectory(prefix="hil-bench-", dir=base) as directory:
            if args.profile:
                profile_station(Path(directory), args.rounds)
                return 0
            rate, rounds, cpu = measure(Path(directory), args.rounds)
            print(
                f"journal on {name}: {rounds} rounds, {rate:.1f} rounds/s (7 seats), "
                f"{cpu:.1f} ms CPU per round"
            )
            key = "rounds_per_s" if not figures else "disk_rounds_per_s"
            figures[key] = round(rate, 1)
            figures["cpu_ms_per_round" if key == "rounds_per_s" else "disk_cpu_ms_per_round"] = (
                round(cpu, 1)
            )
    print("FIGURES " + json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
