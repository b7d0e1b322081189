"""Run every benchmark under bench/ and write docs/performance.md (``make bench``).

Each benchmark in :data:`BENCHMARKS` runs as its own process with arguments sized so that
the whole run takes a few minutes on a 2-core machine. A script that prints a final line
``FIGURES {json}`` has its figures tabulated beside the targets from the issues; a script
without that line is shown by its full output. A script that is not in the tree is listed
as missing, not an error. The section of the document between the ``hand-recorded`` markers
(the 10-million-hand house-edge runs, too long for ``make bench``) is kept as it is.

    .venv/bin/python bench/run_all.py [--output docs/performance.md] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = ROOT / "docs" / "performance.md"
TIMEOUT_S = 600.0
FIGURES_PREFIX = "FIGURES "
HAND_BEGIN = "<!-- hand-recorded: begin (bench/run_all.py keeps this section; edit by hand) -->"
HAND_END = "<!-- hand-recorded: end -->"


@dataclass(frozen=True, slots=True)
class Target:
    """A figure's goal: ``key`` (a FIGURES key) compared with ``op`` to ``value``."""

    key: str
    op: str  # ">=", "<" or "=="
    value: float | bool
    text: str  # the target as the issue states it
    source: str  # where the target comes from

    def met(self, figure: object) -> bool | None:
        """Whether ``figure`` meets the target; None when it is not a comparable value."""
        if self.op == "==":
            return figure == self.value
        if isinstance(figure, bool) or not isinstance(figure, int | float):
            return None
        if self.op == ">=":
            return figure >= self.value
        if self.op == "<":
            return figure < self.value
        raise ValueError(f"unknown comparison {self.op!r}")


@dataclass(frozen=True, slots=True)
class Benchmark:
    """One script, its ``make bench`` arguments, its quick-check arguments and its targets.

    ``keys`` are the FIGURES keys the script promises (empty: it prints prose only, so its
    full output goes into the document). ``tiny_args`` run it in well under 10 s for
    tests/test_bench_scripts.py; None means the arguments are not known here yet.
    """

    name: str
    script: str
    args: tuple[str, ...]
    tiny_args: tuple[str, ...] | None
    keys: tuple[str, ...] = ()
    targets: tuple[Target, ...] = ()

    @property
    def path(self) -> Path:
        """The script's path in this tree."""
        return ROOT / self.script


BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark(
        "Rules engine",
        "bench/rules_bench.py",
        ("--rounds", "30000"),
        ("--rounds", "200"),
        targets=(
            Target("rounds_per_s", ">=", 10_000, ">= 10,000 rounds/s, 7 seats, one core", "#2"),
        ),
    ),
    Benchmark(
        "Wire protocol",
        "bench/protocol_bench.py",
        ("--frames", "100000"),
        ("--frames", "2000"),
        keys=(
            "frames",
            "frame_overhead_bytes",
            "card_frame_bytes",
            "encode_frames_per_s",
            "decode_frame_per_s",
            "decoder_feed_frames_per_s",
            "decoder_message_frames_per_s",
            "endpoint_messages_per_s",
        ),
        targets=(
            Target("card_frame_bytes", "<", 16, "card-drawn frame < 16 bytes", "#3"),
            Target("decode_frame_per_s", ">=", 200_000, ">= 200,000 frames/s decoded", "#3"),
            Target("decoder_feed_frames_per_s", ">=", 200_000, ">= 200,000 frames/s decoded", "#3"),
        ),
    ),
    Benchmark(
        "Shoe link latency",
        "bench/link_latency.py",
        ("--cards", "10000", "--peeks", "1000"),
        ("--cards", "200", "--peeks", "50"),
        keys=("cards", "card_p50_ms", "card_p99_ms", "card_max_ms", "peek_p50_ms", "peek_p99_ms"),
        targets=(Target("card_p99_ms", "<", 2.0, "p99 < 2 ms, pty card frame -> CardDrawn", "#4"),),
    ),
    Benchmark(
        "Table procedure",
        "bench/procedure_bench.py",
        ("--rounds", "2000"),
        ("--rounds", "20"),
        keys=("rounds", "events", "events_per_s", "p50_us", "p99_us", "max_us", "mean_us"),
        targets=(Target("p99_us", "<", 1000, "p99 < 1 ms (1,000 us) per event", "#5"),),
    ),
    Benchmark(
        "Hardware-in-the-loop throughput",
        "bench/hil_throughput.py",
        ("--rounds", "300"),
        None,
        targets=(
            Target("rounds_per_s", ">=", 100, ">= 100 rounds/s, 7 seats, real transports", "#7"),
        ),
    ),
    Benchmark(
        "Daemon start and memory",
        "bench/daemon_start.py",
        ("--rounds", "1000"),
        None,
        targets=(
            Target("ready_s", "<", 1.5, "start to READY < 1.5 s", "#8"),
            Target("rss_mib", "<", 60, "RSS < 60 MiB after 1,000 simulated rounds", "#8"),
        ),
    ),
    Benchmark(
        "Audit journal",
        "bench/journal_bench.py",
        ("--rows", "1000", "--verify-rows", "100000"),
        ("--rows", "20", "--verify-rows", "2000"),
        keys=(
            "append_rows_per_s",
            "append_mean_ms",
            "verify_s",
            "verify_rows_per_s",
            "verify_tail_2000_ms",
            "recall_10_rounds_ms",
        ),
    ),
    Benchmark(
        "House edge (short run)",
        "bench/house_edge.py",
        ("--rules", "PA", "--decks", "6", "--hands", "400000", "--seed", "2026"),
        ("--rules", "PA", "--decks", "6", "--hands", "2000", "--workers", "1"),
        keys=(
            "hands",
            "hands_per_s",
            "main_edge_pct",
            "main_ci95_half_width_pct",
            "published_pct",
            "published_inside_ci95",
            "match_a_edge_pct",
            "match_a_exact_pct",
            "match_b_edge_pct",
            "match_b_exact_pct",
            "engine_match_mismatches",
        ),
        targets=(
            Target(
                "published_inside_ci95",
                "==",
                True,
                "published edge inside the 95% CI (10M hands: see below)",
                "#8",
            ),
            Target("engine_match_mismatches", "==", 0, "0 Match settlement differences", "#8"),
        ),
    ),
)


@dataclass(slots=True)
class Result:
    """What one benchmark run gave."""

    bench: Benchmark
    command: str
    status: str  # "ok", "missing", "failed" or "timed out"
    seconds: float = 0.0
    output: str = ""  # stdout without the FIGURES line
    errors: str = ""  # stderr, kept when the run failed
    figures: dict[str, object] | None = None
    notes: list[str] = field(default_factory=list)


def split_figures(stdout: str) -> tuple[str, dict[str, object] | None]:
    """The prose of ``stdout`` and the figures of its last ``FIGURES {json}`` line, if any."""
    prose: list[str] = []
    figures: dict[str, object] | None = None
    for line in stdout.splitlines():
        if line.startswith(FIGURES_PREFIX):
            try:
                parsed = json.loads(line[len(FIGURES_PREFIX) :])
            except json.JSONDecodeError:
                prose.append(line)
                continue
            if isinstance(parsed, dict):
                figures = parsed
                continue
        prose.append(line)
    return "\n".join(prose).rstrip(), figures


def command_text(bench: Benchmark, args: Sequence[str]) -> str:
    """The command as a reader would type it from the repository root."""
    return shlex.join([".venv/bin/python", bench.script, *args])


def _run_once(bench: Benchmark, args: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(bench.path), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def run_benchmark(bench: Benchmark) -> Result:
    """Run one benchmark; a missing script or a failure is a result, not an exception."""
    if not bench.path.exists():
        return Result(bench, command_text(bench, bench.args), "missing")
    args: Sequence[str] = bench.args
    started = time.perf_counter()
    try:
        proc = _run_once(bench, args)
        if proc.returncode == 2 and "usage:" in proc.stderr and args:
            # The script does not take these arguments (it came from another branch):
            # its defaults are better than no figure.
            args = ()
            proc = _run_once(bench, args)
    except subprocess.TimeoutExpired:
        return Result(
            bench,
            command_text(bench, args),
            "timed out",
            time.perf_counter() - started,
            notes=[f"stopped after {TIMEOUT_S:.0f} s"],
        )
    result = Result(bench, command_text(bench, args), "ok", time.perf_counter() - started)
    if args != bench.args:
        result.notes.append(
            f"the script refused `{shlex.join(bench.args)}`; it ran with its defaults"
        )
    result.output, result.figures = split_figures(proc.stdout)
    if proc.returncode != 0:
        result.status = "failed"
        result.errors = proc.stderr.rstrip()
        result.notes.append(f"exit status {proc.returncode}")
    elif result.figures is None:
        result.notes.append("no FIGURES line: its full output is shown")
    return result


def machine() -> dict[str, str]:
    """The machine the figures come from: CPU, cores, memory, Python, kernel, load, date."""
    cpu = platform.processor() or platform.machine()
    memory = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            name, _, value = line.partition(":")
            if name.strip() in ("model name", "Model"):
                cpu = value.strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    return {
        "CPU": f"{cpu} ({platform.machine()})",
        "Cores": str(os.cpu_count()),
        "RAM": memory,
        "Python": f"{platform.python_version()} ({platform.python_implementation()})",
        "Kernel": f"{platform.system()} {platform.release()}",
        "Date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "Load average at start (1/5/15 min)": load,
        "Commit": _commit(),
    }


def _commit() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (with uncommitted changes)" if dirty else "")


def hand_recorded(existing: str) -> str:
    """The hand-recorded section of ``existing`` (markers included), or the starting text."""
    match = re.search(re.escape(HAND_BEGIN) + r".*?" + re.escape(HAND_END), existing, re.S)
    return match.group(0) if match else f"{HAND_BEGIN}\n{HAND_RECORDED_TEMPLATE}\n{HAND_END}"


def _value(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "-"}[value]
    if isinstance(value, int) and abs(value) >= 10_000:
        return f"{value:,}"
    if isinstance(value, float) and abs(value) >= 10_000:
        return f"{value:,.0f}"
    return str(value)


def _verdict(target: Target, result: Result) -> tuple[str, str]:
    """(measured, verdict) of one target for the tables."""
    if result.status == "missing":
        return "-", "not run (script not in this tree)"
    if result.status != "ok":
        return "-", f"not measured ({result.status})"
    if result.figures is None or target.key not in result.figures:
        return "see output", "read it from the output"
    figure = result.figures[target.key]
    met = target.met(figure)
    return _value(figure), {True: "meets", False: "**misses**", None: "?"}[met]


def render(results: Sequence[Result], info: dict[str, str], hand: str, total_s: float) -> str:
    """The whole of docs/performance.md."""
    out = [HEADER, "## Machine", ""]
    out += [f"- {key}: {value}" for key, value in info.items()]
    out += [f"- Duration of `make bench`: {total_s:.0f} s", "", HOW_TO_READ]
    out += ["## Targets", "", "| Benchmark | Figure | Target | Measured | Verdict | Issue |"]
    out.append("|---|---|---|---|---|---|")
    for result in results:
        for target in result.bench.targets:
            measured, verdict = _verdict(target, result)
            out.append(
                f"| {result.bench.name} | `{target.key}` | {target.text} | {measured} "
                f"| {verdict} | {target.source} |"
            )
    out.append("")
    for result in results:
        out += _section(result)
    out += ["## House edge, 10 million hands (by hand)", "", hand, ""]
    return "\n".join(out)


def _section(result: Result) -> list[str]:
    bench = result.bench
    out = [f"## {bench.name}", "", f"`{result.command}`", ""]
    if result.status == "missing":
        return [*out, f"Not run: `{bench.script}` is not in this tree.", ""]
    out.append(f"Status: {result.status}, {result.seconds:.1f} s.")
    out += [f"Note: {note}." for note in result.notes]
    out.append("")
    targets = {t.key: t for t in bench.targets}
    if result.figures:
        out += ["| Figure | Value | Target |", "|---|---|---|"]
        for key, value in result.figures.items():
            target = targets[key].text if key in targets else ""
            out.append(f"| `{key}` | {_value(value)} | {target} |")
        out.append("")
    if result.output:
        out += ["```text", result.output, "```", ""]
    if result.errors:
        out += ["Standard error:", "", "```text", result.errors[-4000:], "```", ""]
    return out


HEADER = """# Performance and correctness figures

Written by `make bench` (`bench/run_all.py`); do not edit by hand except the section
between the hand-recorded markers at the end, which the script keeps as it is.
"""

HOW_TO_READ = """## How to read these figures

- Each benchmark is a separate process run with the command shown; re-run one by itself to
  check a figure. Rates are best-of or totals as each script's docstring says; latencies
  are wall-clock percentiles. No test asserts a time: the targets are goals, not gates.
- "meets" / "**misses**" compare one run with the target from the issue named beside it.
  One run on a shared machine is noisy: latency tails (p99, max) move most with other load,
  so read the load average above before reading a miss as a regression.
- Raspberry Pi caveat: this machine is several times faster than a Raspberry Pi 4 running
  the same Python (expect roughly 3 to 6 times lower rates and higher latencies there, and
  an SD card far slower than this disk for the journal). The targets are set on this
  machine with that headroom in mind; meeting them here is necessary, not sufficient.
  Run `make bench` on the Pi itself before a deployment and keep that document too.
- The house-edge run in `make bench` is short (its 95% interval is wide); the figure that
  validates the rules engine is the 10-million-hand run recorded by hand below.
"""

HAND_RECORDED_TEMPLATE = """Published figures (Wizard of Odds, Spanish 21,
https://wizardofodds.com/games/spanish-21/; as coded in `bench/house_edge.py`): dealer
stands on soft 17, double after split, rescue, late surrender, resplitting aces, hitting
and doubling split aces: 0.37% (6 decks), 0.38% (8 decks); no draws on split aces adds
0.28 points, giving 0.65% / 0.66% for the PA, NJ and NY profiles.

| Command | Hands | Main wager edge, 95% CI | Published | Inside? | Recorded |
|---|---|---|---|---|---|
| `.venv/bin/python bench/house_edge.py --rules PA --decks 6 --hands 10000000` | 10,000,000 | not yet recorded | 0.65% | - | - |
| `.venv/bin/python bench/house_edge.py --rules PA --decks 8 --hands 10000000` | 10,000,000 | not yet recorded | 0.66% | - | - |"""  # noqa: E501


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks and write the document; exit 1 if one failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument(
        "--only", nargs="+", metavar="NAME", help="run only these scripts (e.g. protocol_bench)"
    )
    args = parser.parse_args(argv)
    chosen = [b for b in BENCHMARKS if not args.only or Path(b.script).stem in args.only]
    if not chosen:
        parser.error(f"no benchmark named {' '.join(args.only)}")
    info = machine()
    started = time.perf_counter()
    results: list[Result] = []
    for bench in chosen:
        print(f"== {bench.name}: {command_text(bench, bench.args)}", flush=True)
        result = run_benchmark(bench)
        results.append(result)
        print(result.output or f"({result.status})")
        for note in result.notes:
            print(f"  note: {note}")
        print(f"  [{result.status}, {result.seconds:.1f} s]", flush=True)
    total = time.perf_counter() - started
    info["Load average at end (1/5/15 min)"] = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    existing = args.output.read_text() if args.output.exists() else ""
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(render(results, info, hand_recorded(existing), total))
    print(f"wrote {args.output} ({total:.0f} s)")
    return 1 if any(r.status in ("failed", "timed out") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
