"""Complete rounds per second through the real transports.

The simulated table of ``dealer-station simulate`` (real daemon, drivers, pty / pyusb /
mock-pin transports, device doubles, simulated dealer; 7 seats, no pacing), with the
journal on tmpfs and on disk. CPU time per round is split by the process each thread would
be in with the doubles in their own process (station, device doubles, simulated dealer);
they run in this one process here (see docs/performance.md)::

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
import time
from pathlib import Path

from controller.service.logs import configure_logging
from controller.simulation.runner import SimulatedTable, SimulationSettings

#: Which process each thread would live in with the doubles in their own process (as real
#: devices are): the station (its loop and the drivers' link threads), the devices (the
#: doubles' port and firmware threads), and the simulated dealer (the main thread).
STATION_THREADS = ("station",)
STATION_SUFFIX = "-link"
DEVICE_PREFIXES = ("pty-", "reader-double", "socket-")


def _role(name: str) -> str:
    if name in STATION_THREADS or name.endswith(STATION_SUFFIX):
        return "station"
    if name.startswith(DEVICE_PREFIXES):
        return "devices"
    return "other"


def measure(directory: Path, rounds: int, seed: int = 7) -> tuple[float, int, dict[str, float]]:
    """Rounds per second, rounds played, and CPU milliseconds per round: ``all`` threads
    (user + system), and by role (``station``, ``devices``, ``dealer``: the rest), plus the
    panel board's lamp frames per round. Journal in ``directory``."""
    journal = directory / f"bench-{seed}.sqlite3"
    table = SimulatedTable(
        SimulationSettings(profile="PA", seats=7, rounds=rounds, seed=seed, journal=journal)
    )
    by_role: dict[str, float] = {"station": 0.0, "devices": 0.0, "other": 0.0}
    lock = threading.Lock()
    original = threading.Thread.run

    def run(self: threading.Thread) -> None:
        start = time.thread_time()
        try:
            original(self)
        finally:
            with lock:
                by_role[_role(self.name)] += time.thread_time() - start

    threading.Thread.run = run  # type: ignore[method-assign]
    before = resource.getrusage(resource.RUSAGE_SELF)
    try:
        result = table.run()
    finally:
        threading.Thread.run = original  # type: ignore[method-assign]
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    played = result.rounds
    board = table.rig.panel_board
    per_round = {
        "all": cpu / played * 1000,
        "station": by_role["station"] / played * 1000,
        "devices": by_role["devices"] / played * 1000,
        "dealer": (cpu - by_role["station"] - by_role["devices"]) / played * 1000,
        "panel_frames": (board.lamp_frames / played) if board is not None else 0.0,
    }
    return result.seconds and played / result.seconds, played, per_round


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
                f"{cpu['all']:.1f} ms CPU per round: station {cpu['station']:.1f}, device "
                f"doubles {cpu['devices']:.1f}, simulated dealer {cpu['dealer']:.1f}; "
                f"{cpu['panel_frames']:.1f} panel lamp frames per round"
            )
            prefix = "" if not figures else "disk_"
            figures[f"{prefix}rounds_per_s"] = round(rate, 1)
            figures[f"{prefix}cpu_ms_per_round"] = round(cpu["all"], 2)
            figures[f"{prefix}station_cpu_ms_per_round"] = round(cpu["station"], 2)
            figures[f"{prefix}devices_cpu_ms_per_round"] = round(cpu["devices"], 2)
            figures[f"{prefix}dealer_cpu_ms_per_round"] = round(cpu["dealer"], 2)
            figures["panel_frames_per_round"] = round(cpu["panel_frames"], 1)
    print("FIGURES " + json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
