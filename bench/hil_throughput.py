"""Complete rounds per second through the real transports.

By default the split simulated table (``controller.simulation.split``): the station in this
process (``build_station``, the real drivers on the ptys, the card reader double on its
in-process pyusb backend) and the shoe, shuffler and panel-board doubles with the simulated
dealer in a process of their own, as real devices are. CPU per round is each process's own
rusage while dealing; the card reader double's thread (``reader-double``) runs in the
station's process (its USB backend cannot leave it) and is also shown apart. Then the same
seed in one process (``SimulatedTable``, CPU split by thread name) for comparison. 7 seats,
no pacing; the journal on tmpfs and on disk::

    .venv/bin/python bench/hil_throughput.py [--rounds N] [--disk-dir DIR] [--profile]

Rounds per second count from the dealer's first look at the table to its last (the start
of the processes and the pairing are not rounds). ``--profile`` runs cProfile on the
station thread of an in-process run and prints where its time goes.
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
from controller.simulation.split import SplitTable
from controller.simulation.split_link import ObservationRelay
from controller.table.view import TableView
from drivers.hal import DeviceEvent

#: Which process each thread would live in with the doubles in their own process (as real
#: devices are): the station (its loop and the drivers' link threads), the devices (the
#: doubles' port and firmware threads), and the simulated dealer (the main thread).
STATION_THREADS = ("station", "observer-relay")
STATION_SUFFIX = "-link"
DEVICE_PREFIXES = ("pty-", "reader-double", "socket-")


def _role(name: str) -> str:
    if name in STATION_THREADS or name.endswith(STATION_SUFFIX):
        return "station"
    if name.startswith(DEVICE_PREFIXES):
        return "devices"
    return "other"


def _settings(directory: Path, rounds: int, seed: int, name: str) -> SimulationSettings:
    journal = directory / f"{name}-{seed}.sqlite3"
    return SimulationSettings(profile="PA", seats=7, rounds=rounds, seed=seed, journal=journal)


def measure(directory: Path, rounds: int, seed: int = 7) -> tuple[float, int, dict[str, float]]:
    """In one process: rounds per second, rounds played, and CPU milliseconds per round:
    ``all`` threads (user + system), and by role (``station``, ``devices``, ``dealer``:
    the rest), plus the panel board's lamp frames per round. Journal in ``directory``."""
    table = SimulatedTable(_settings(directory, rounds, seed, "inproc"))
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
    return played / result.dealing_seconds, played, per_round


def measure_split(
    directory: Path, rounds: int, seed: int = 7
) -> tuple[float, int, dict[str, float]]:
    """Split into two processes: rounds per second, rounds played, and CPU milliseconds per
    round while dealing: ``station_process`` and ``doubles_process`` (each process's own
    rusage), ``station`` (the station's loop and link threads), ``reader`` (the reader
    double's thread, in the station's process), ``relay`` (the observer hook's share of the
    station thread: framing and writing the batches), ``devices`` (every double's threads),
    ``dealer`` (the rest of the other process), the station's and the dealer's own threads
    (``station_thread``, ``dealer_thread``), and lamp frames, observation batches, the
    dealer's looks at the table (each waits for the station) and her deliveries (each
    waits for one link's ack) per round; prints the looks by state and every thread."""
    table = SplitTable(_settings(directory, rounds, seed, "split"))
    relay_seconds = [0.0]
    observe = ObservationRelay.observe

    def timed(
        self: ObservationRelay, event: DeviceEvent, view: TableView | None, idle: bool
    ) -> None:
        start = time.thread_time()
        observe(self, event, view, idle)
        relay_seconds[0] += time.thread_time() - start

    ObservationRelay.observe = timed  # type: ignore[method-assign]
    try:
        result = table.run()
    finally:
        ObservationRelay.observe = observe  # type: ignore[method-assign]
    played, cpu = result.rounds, table.cpu
    a, b = cpu.station_threads, cpu.doubles_threads
    station = sum(v for k, v in a.items() if _role(k) == "station")
    devices = sum(v for k, v in {**b, **a}.items() if _role(k) == "devices")
    b_devices = sum(v for k, v in b.items() if _role(k) == "devices")

    def ms(seconds: float) -> float:
        return seconds / played * 1000

    per_round = {
        "station_process": ms(cpu.station_process),
        "doubles_process": ms(cpu.doubles_process),
        "all": ms(cpu.station_process + cpu.doubles_process),
        "station": ms(station),
        "reader": ms(a.get("reader-double", 0.0)),
        "relay": ms(relay_seconds[0]),
        "devices": ms(devices),
        "dealer": ms(cpu.doubles_process - b_devices),
        "panel_frames": cpu.lamp_frames / played,
        "batches": cpu.observation_batches / played,
        "looks": result.looks / played,
        "deliveries": result.deliveries / played,
        "station_thread": ms(a.get("station", 0.0)),
        "dealer_thread": ms(b.get("MainThread", 0.0)),
    }
    print(
        "  looks a round by the state looked at: "
        + ", ".join(
            f"{state} {count / played:.2f}"
            for state, count in sorted(result.looks_by_state.items(), key=lambda kv: -kv[1])
        )
    )
    print(
        "  ms CPU a round by thread: station process "
        + ", ".join(f"{name} {ms(v):.2f}" for name, v in sorted(a.items(), key=lambda kv: -kv[1]))
        + "; doubles+dealer process "
        + ", ".join(f"{name} {ms(v):.2f}" for name, v in sorted(b.items(), key=lambda kv: -kv[1]))
    )
    return played / result.dealing_seconds, played, per_round


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
            prefix = "" if not figures else "disk_"
            rate, rounds, cpu = measure_split(Path(directory), args.rounds)
            print(
                f"split, journal on {name}: {rounds} rounds, {rate:.1f} rounds/s (7 seats); "
                f"CPU ms per round: station process {cpu['station_process']:.1f} (station "
                f"loop and links {cpu['station']:.1f}, of which the observer relay "
                f"{cpu['relay']:.2f}; card reader double {cpu['reader']:.2f}, in this "
                f"process: its pyusb backend is in-process), doubles+dealer process "
                f"{cpu['doubles_process']:.1f} (device doubles {cpu['devices']:.1f} in all, "
                f"dealer {cpu['dealer']:.1f}); {cpu['panel_frames']:.1f} panel lamp frames, "
                f"{cpu['batches']:.1f} observation batches, {cpu['looks']:.1f} dealer looks "
                f"and {cpu['deliveries']:.1f} deliveries (the dealer waiting for the station "
                "to take one device's reports before acting on another) per round"
            )
            figures[f"{prefix}rounds_per_s"] = round(rate, 1)
            figures[f"{prefix}cpu_ms_per_round"] = round(cpu["all"], 2)
            figures[f"{prefix}station_cpu_ms_per_round"] = round(cpu["station_process"], 2)
            figures[f"{prefix}doubles_process_cpu_ms_per_round"] = round(cpu["doubles_process"], 2)
            figures[f"{prefix}devices_cpu_ms_per_round"] = round(cpu["devices"], 2)
            figures[f"{prefix}dealer_cpu_ms_per_round"] = round(cpu["dealer"], 2)
            if not prefix:
                figures["station_loop_cpu_ms_per_round"] = round(cpu["station"], 2)
                figures["relay_cpu_ms_per_round"] = round(cpu["relay"], 3)
                figures["reader_cpu_ms_per_round"] = round(cpu["reader"], 2)
                figures["panel_frames_per_round"] = round(cpu["panel_frames"], 1)
                figures["observation_batches_per_round"] = round(cpu["batches"], 1)
                figures["dealer_looks_per_round"] = round(cpu["looks"], 1)
                figures["dealer_deliveries_per_round"] = round(cpu["deliveries"], 1)
                figures["station_thread_cpu_ms_per_round"] = round(cpu["station_thread"], 2)
                figures["dealer_thread_cpu_ms_per_round"] = round(cpu["dealer_thread"], 2)
                rate, rounds, one = measure(Path(directory), args.rounds)
                print(
                    f"one process, journal on {name}: {rounds} rounds, {rate:.1f} rounds/s, "
                    f"{one['all']:.1f} ms CPU per round: station {one['station']:.1f}, device "
                    f"doubles {one['devices']:.1f}, simulated dealer {one['dealer']:.1f}"
                )
                figures["inproc_rounds_per_s"] = round(rate, 1)
                figures["inproc_cpu_ms_per_round"] = round(one["all"], 2)
                figures["inproc_station_cpu_ms_per_round"] = round(one["station"], 2)
    print("FIGURES " + json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
