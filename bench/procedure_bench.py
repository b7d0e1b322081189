"""Procedure benchmark: events processed per second and time per event (p50/p99/max).

Plays seeded rounds of 7 seats through the table procedure with the in-process rig (no
transports) and an in-memory journal, so the figure is the state machine and rules alone.
Run: .venv/bin/python bench/procedure_bench.py [--rounds N] [--profile PA|NJ|NY]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import statistics
import time
from collections.abc import Mapping
from typing import Any

import structlog

from controller.rules.profiles import get_profile
from controller.simulation.dealer import random_chooser
from controller.simulation.direct import DirectRig
from controller.table.procedure import Table
from drivers.hal import DeviceEvent


class NullJournal:
    """Counts rows; keeps nothing."""

    rows = 0

    def append(self, kind: str, data: Mapping[str, Any], round_no: int | None = None) -> int:
        self.rows += 1
        return self.rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3_000)
    parser.add_argument("--profile", default="PA")
    args = parser.parse_args()
    # Measure the procedure, not the console: only warnings are rendered.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    rng = random.Random(7)
    rig = DirectRig(get_profile(args.profile), 6, NullJournal(), random_chooser(rng), rng)
    durations: list[int] = []
    cpu: list[int] = []  # CPU time of this thread: the code's cost without other load
    table: Table = rig.table
    handle = table.handle

    def timed(event: DeviceEvent) -> None:
        start, cpu_start = time.perf_counter_ns(), time.thread_time_ns()
        handle(event)
        durations.append(time.perf_counter_ns() - start)
        cpu.append(time.thread_time_ns() - cpu_start)

    table.handle = timed  # type: ignore[method-assign]
    wall = time.perf_counter()
    rig.play(args.rounds)
    wall = time.perf_counter() - wall
    durations.sort()
    cpu.sort()
    cpu_p99 = cpu[int(len(cpu) * 0.99)] / 1e3
    total_s = sum(durations) / 1e9
    p50 = durations[len(durations) // 2] / 1e3
    p99 = durations[int(len(durations) * 0.99)] / 1e3
    print(f"procedure ({args.profile}, 7 seats, {args.rounds} rounds, {len(durations)} events)")
    print(f"  events/s (handle only): {len(durations) / total_s:,.0f}")
    print(f"  time per event: p50 {p50:.1f} us, p99 {p99:.1f} us, max {durations[-1] / 1e3:.1f} us")
    print(f"  mean {statistics.fmean(durations) / 1e3:.1f} us; whole simulation {wall:.2f} s")
    print(f"  CPU time per event (this thread): p99 {cpu_p99:.1f} us, max {cpu[-1] / 1e3:.1f} us")
    # One machine-readable line for bench/run_all.py.
    figures = {
        "rounds": args.rounds,
        "events": len(durations),
        "events_per_s": round(len(durations) / total_s),
        "p50_us": round(p50, 1),
        "p99_us": round(p99, 1),
        "max_us": round(durations[-1] / 1e3, 1),
        "mean_us": round(statistics.fmean(durations) / 1e3, 1),
        "wall_s": round(wall, 2),
        "cpu_p99_us": round(cpu_p99, 1),
        "cpu_max_us": round(cpu[-1] / 1e3, 1),
    }
    print("FIGURES " + json.dumps(figures))


if __name__ == "__main__":
    main()
