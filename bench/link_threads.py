"""The wire stack's threads in a split HIL run: CPU a round of each thread, both processes.

The station's process (A) runs a reader thread per device link (``panel-link``,
``shoe-link``, ``card_reader-link``, ``shuffler-link``) beside the station loop; the doubles'
process (B) a pty thread per double (``pty-panel``, ``pty-shoe``, ``pty-shuffler``) beside
the simulated dealer's main thread, which also seals and writes the doubles' reports. This
prints the CPU milliseconds a round of every thread of both, from the same ``SplitTable``
run ``bench/hil_throughput.py`` makes (7 seats, PA, journal on tmpfs where there is one).

Run: ``.venv/bin/python bench/link_threads.py --rounds 300``. Prints figures only (CPU
time, so a busy machine changes them less than wall time; run it two or three times).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from controller.service.logs import configure_logging
from controller.simulation.runner import SimulationSettings
from controller.simulation.split import SplitTable

#: The threads of the wire stack, by the figure each one's CPU is printed under.
LINK_THREADS = {
    "station_panel_link_ms": "panel-link",
    "station_shoe_link_ms": "shoe-link",
    "station_reader_link_ms": "card_reader-link",
    "station_shuffler_link_ms": "shuffler-link",
    "doubles_pty_panel_ms": "pty-panel",
    "doubles_pty_shoe_ms": "pty-shoe",
    "doubles_pty_shuffler_ms": "pty-shuffler",
}


def main(argv: list[str] | None = None) -> int:
    """Play ``--rounds`` split rounds and print each thread's CPU a round."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    configure_logging(level="error", form="console", stream=sys.stderr)
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as directory:
        journal = Path(directory) / "link-threads.sqlite3"
        settings = SimulationSettings(
            profile="PA", seats=7, rounds=args.rounds, seed=args.seed, journal=journal
        )
        table = SplitTable(settings)
        result = table.run()
    rounds = result.rounds
    cpu = table.cpu

    def per_round(seconds: float) -> float:
        return round(seconds / rounds * 1000, 3)

    print(f"{rounds} rounds, {rounds / result.dealing_seconds:.1f} rounds/s, split, 7 seats")
    for process, threads in (("station", cpu.station_threads), ("doubles", cpu.doubles_threads)):
        for name, seconds in sorted(threads.items(), key=lambda item: -item[1]):
            print(f"  {process:8} {name:18} {per_round(seconds):7.3f} ms CPU a round")
    figures: dict[str, float] = {
        "rounds": rounds,
        "station_process_ms": per_round(cpu.station_process),
        "doubles_process_ms": per_round(cpu.doubles_process),
        "station_loop_ms": per_round(cpu.station_threads.get("station", 0.0)),
        "doubles_main_ms": per_round(cpu.doubles_threads.get("MainThread", 0.0)),
    }
    every = {**cpu.station_threads, **cpu.doubles_threads}
    for key, thread in LINK_THREADS.items():
        figures[key] = per_round(every.get(thread, 0.0))
    print("FIGURES " + json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
