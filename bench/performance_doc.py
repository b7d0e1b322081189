"""docs/performance.md: what a benchmark is, what it gave, and how the document reads.

Used by bench/run_all.py (``make bench``), which runs the scripts; this module only
describes them and renders the document.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HAND_BEGIN = "<!-- hand-recorded: begin (bench/run_all.py keeps this section; edit by hand) -->"
HAND_END = "<!-- hand-recorded: end -->"


@dataclass(frozen=True, slots=True)
class Target:
    """A figure's goal: ``key`` (a FIGURES key) compared with ``op`` to ``value``."""

    key: str
    op: str  # ">=", "<" or "=="
    value: float | bool | str
    text: str  # the target, as the tables state it

    def met(self, figure: object) -> bool | None:
        """Whether ``figure`` meets the target; None when it is not a comparable value."""
        if self.op == "==":
            return figure == self.value
        if isinstance(figure, bool) or not isinstance(figure, int | float):
            return None
        if isinstance(self.value, str):  # only "==" compares with a word
            raise ValueError(f"{self.op!r} needs a number, not {self.value!r}")
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
    tests/test_bench_scripts.py; None means the arguments are not known here yet. ``env``
    are environment variables the run sets (e.g. ``PYTHONPATH=build/mypyc``: the compiled
    rules engine), shown in its command.
    """

    name: str
    script: str
    args: tuple[str, ...]
    tiny_args: tuple[str, ...] | None
    keys: tuple[str, ...] = ()
    targets: tuple[Target, ...] = ()
    env: tuple[tuple[str, str], ...] = ()

    @property
    def path(self) -> Path:
        """The script's path in this tree."""
        return ROOT / self.script


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
    if isinstance(value, int) and abs(value) >= 1_000:
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
    out += ["## Targets", "", "| Benchmark | Figure | Target | Measured | Verdict |"]
    out.append("|---|---|---|---|---|")
    for result in results:
        for target in result.bench.targets:
            measured, verdict = _verdict(target, result)
            out.append(
                f"| {result.bench.name} | `{target.key}` | {target.text} | {measured} | {verdict} |"
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
- "meets" / "**misses**" compare one run with the target beside it.
  One run on a shared machine is noisy: latency tails (p99, max) move most with other load,
  so read the load average above before reading a miss as a regression. The procedure
  benchmark also reports each event's CPU time on its own thread (`cpu_p99_us`), which
  other processes do not inflate: a wall-clock p99 that misses while the CPU-time p99
  meets means the machine was busy, not that the code is slow.
- Raspberry Pi caveat: this machine is several times faster than a Raspberry Pi 4 running
  the same Python (expect roughly 3 to 6 times lower rates and higher latencies there, and
  an SD card far slower than this disk for the journal). The targets are set on this
  machine with that headroom in mind; meeting them here is necessary, not sufficient.
  Run `make bench` on the Pi itself before a deployment and keep that document too.
- The house-edge run in `make bench` is short (its 95% interval is wide); the figure that
  validates the rules engine is the 10-million-hand run recorded by hand below.
"""

HAND_RECORDED_TEMPLATE = """Source, rule sets and reading of the published figures: `docs/house-edge.md`
(Wizard of Odds, Spanish 21, https://wizardofodds.com/games/spanish-21/). Published main
wager edge, dealer standing on soft 17, super bonus not counted: 0.37% (6 decks) and 0.38%
(8 decks) when split aces may be hit and doubled; our PA, NJ and NY profiles deal split
aces one card each (+0.28 points), so 0.65% and 0.66%. Each run below must put the
published figure inside its 95% interval. Copy the printed lines after each run.

| Command | Published | Main wager edge, 95% CI | Inside? | Recorded (date, machine) |
|---|---|---|---|---|
| `python bench/house_edge.py --rules PA --decks 6 --hands 10000000 --seed 1` | 0.65% | not yet recorded | - | - |
| `python bench/house_edge.py --rules PA --decks 6 --hands 10000000 --seed 2 --option hit_split_aces=true --option double_split_aces=true` | 0.37% | not yet recorded | - | - |
| `python bench/house_edge.py --rules PA --decks 8 --hands 10000000 --seed 3` | 0.66% | not yet recorded | - | - |
| `python bench/house_edge.py --rules NY --decks 6 --hands 10000000 --seed 4` | 0.65% | not yet recorded | - | - |
| `python bench/house_edge.py --rules NJ --decks 6 --hands 10000000 --seed 5` | 0.65% | not yet recorded | - | - |"""  # noqa: E501
