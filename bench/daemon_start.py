"""The daemon's start-up time and memory.

Run: .venv/bin/python bench/daemon_start.py [--starts N] [--rounds N] [--dir DIR]

1. Start to READY: seconds from spawning ``dealer-station run --simulated-devices`` to the
   ``READY=1`` datagram on a notify socket this script binds (as systemd does), median of
   ``--starts`` runs, each on a fresh journal, then a second series restarting on the
   journal the first run left. Each run ends with SIGTERM.
   Beside the seconds, the CPU seconds the daemon's process had used by then (user +
   system, /proc/PID/stat), which a loaded machine does not inflate: most of a start is
   Python's imports, and a Raspberry Pi (or the boot tests' emulated guests) pays them
   several times over. Then the CPU seconds of ``dealer-station check-config --ports``,
   which systemd runs before each start (``ExecStartPre=``), median of ``--starts`` runs.
2. Memory: VmRSS of that daemon process once READY (idle, devices simulated), from
   /proc/PID/status.
3. Memory after ``--rounds`` rounds: the daemon cannot be driven from outside (its device
   doubles live in its own process), so this runs the simulated table in this process
   (``SimulatedTable``: the same ``build_station`` and main loop, the real drivers, plus
   the doubles and the simulated dealer) and reads this process's VmRSS and VmHWM before
   and after. That is an upper bound of the daemon's own footprint; the growth between
   the two readings is what playing rounds costs (a leak shows there). The panel double's
   pin history is cleared at each reading (see ``bench_rounds``).

Journals go to ``--dir`` (default: /dev/shm when it exists; SQLite's fsync per commit is
not what this measures).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "station.toml"
DEALER_STATION = Path(sys.executable).parent / "dealer-station"


def status_mib(pid: int | str, key: str) -> float:
    """A ``Vm*`` line of /proc/PID/status, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    raise KeyError(key)


def station_toml(folder: Path, journal: Path) -> Path:
    text = EXAMPLE.read_text().replace("/var/lib/dealer-station/journal.sqlite3", str(journal))
    config = folder / "station.toml"
    config.write_text(text)
    return config


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (/proc/PID/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_to_ready(config: Path, folder: Path) -> tuple[float, float, float]:
    """Seconds to READY=1, the daemon's CPU seconds and VmRSS (MiB) then; the daemon is
    stopped after."""
    name = f"dealer-bench-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(30)
        env = dict(os.environ, NOTIFY_SOCKET="@" + name, TMPDIR=str(folder))
        started = time.perf_counter()
        child = subprocess.Popen(
            [str(DEALER_STATION), "run", "--config", str(config), "--simulated-devices"],
            stdout=subprocess.DEVNULL,
            env=env,
        )
        try:
            while "READY=1" not in sock.recv(4096).decode().split("\n"):
                pass
            seconds = time.perf_counter() - started
            cpu = cpu_seconds(child.pid)
            rss = status_mib(child.pid, "VmRSS")
            child.send_signal(signal.SIGTERM)
            if child.wait(timeout=10) != 0:
                raise RuntimeError(f"the daemon exited with {child.returncode}")
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
    return seconds, cpu, rss


def check_config_cpu(config: Path) -> float:
    """CPU seconds (user + system) of one ``dealer-station check-config --ports``."""
    child = subprocess.Popen(
        [str(DEALER_STATION), "check-config", "--ports", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


#: Machine-readable figures, printed as one ``FIGURES {json}`` line at the end.
FIGURES: dict[str, float] = {}


def bench_start(folder: Path, starts: int) -> None:
    fresh, cpu, rss = [], [], []
    for n in range(starts):
        config = station_toml(folder, folder / f"fresh-{n}.sqlite3")
        seconds, used, mib = start_to_ready(config, folder)
        fresh.append(seconds)
        cpu.append(used)
        rss.append(mib)
    again = [start_to_ready(config, folder)[0] for _ in range(starts)]
    checks = [check_config_cpu(config) for _ in range(starts)]
    print(
        f"start to READY, fresh journal: median {statistics.median(fresh):.3f} s"
        f" (min {min(fresh):.3f}, max {max(fresh):.3f}, {starts} runs)"
    )
    print(f"start to READY, restart on a journal: median {statistics.median(again):.3f} s")
    print(f"daemon CPU (user + system) to READY: median {statistics.median(cpu):.2f} s")
    print(f"check-config --ports CPU (user + system): median {statistics.median(checks):.2f} s")
    print(f"daemon VmRSS once READY (idle): median {statistics.median(rss):.1f} MiB")
    FIGURES["ready_s"] = round(statistics.median(fresh), 3)
    FIGURES["ready_cpu_s"] = round(statistics.median(cpu), 2)
    FIGURES["check_config_cpu_s"] = round(statistics.median(checks), 2)
    FIGURES["idle_rss_mib"] = round(statistics.median(rss), 1)


def bench_rounds(folder: Path, rounds: int) -> None:
    from controller.service.logs import configure_logging
    from controller.simulation.runner import SimulatedTable, SimulationSettings
    from controller.table.view import TableView

    configure_logging(level="warning", stream=sys.stderr)
    small = SimulationSettings(rounds=1, seed=2, journal=folder / "warm.sqlite3")
    SimulatedTable(small).run()  # everything imported and built once
    samples: dict[int, float] = {}
    step = max(rounds // 5, 1)

    def sample(view: TableView) -> None:
        # While the station runs (its journal open, its threads alive), every step rounds.
        if view.round_no % step == 0 and view.round_no not in samples:
            # gpiozero's mock pins (the panel double) keep every level change they ever
            # saw, ~3 KiB a round; the lgpio pins of a Pi keep none. Not the daemon's.
            for pin in table.rig.pin_factory.pins.values():
                pin.clear_states()
            samples[view.round_no] = status_mib("self", "VmRSS")

    started = time.perf_counter()
    settings = SimulationSettings(rounds=rounds, seed=1, journal=folder / "rounds.sqlite3")
    table = SimulatedTable(settings, on_view=sample)
    result = table.run()
    elapsed = time.perf_counter() - started
    peak = status_mib("self", "VmHWM")
    print(
        f"simulated table, {result.rounds} rounds in {elapsed:.1f} s"
        f" ({result.rounds / elapsed:.1f} rounds/s, 7 seats)"
    )
    series = ", ".join(f"{n}: {mib:.1f}" for n, mib in sorted(samples.items()))
    print(f"  process VmRSS (MiB) by round while playing: {series}; VmHWM {peak:.1f} MiB")
    FIGURES["rss_mib"] = round(samples[max(samples)] if samples else peak, 1)
    FIGURES["rounds_per_s"] = round(result.rounds / elapsed, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=1000)
    shm = Path("/dev/shm")
    parser.add_argument("--dir", type=Path, default=shm if shm.is_dir() else None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dealer-bench-", dir=args.dir) as name:
        folder = Path(name)
        bench_start(folder, args.starts)
        bench_rounds(folder, args.rounds)
    print("FIGURES " + json.dumps(FIGURES))


if __name__ == "__main__":
    main()
