"""Benchmarks cannot rot: every bench script runs with tiny arguments and prints its figures;
bench/run_all.py reads them, keeps the hand-recorded section and notes missing scripts.

Nothing here asserts a time.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

BENCH = Path(__file__).resolve().parent.parent / "bench"
#: Scripts that are not benchmarks run by make bench: the open-ended atheris harness
#: (it needs atheris and runs until stopped), the runner and its document module.
# Not benchmarks: the fuzz harness, the runner and its renderer, the house-edge simulation
# module that bench/house_edge.py imports.
NOT_BENCHMARKS = {
    "fuzz_bridge.py",
    "run_all.py",
    "performance_doc.py",
    "edge_sim.py",
    "journal_table.py",  # part of journal_bench.py
    "journal_round.py",  # part of journal_bench.py
    "hil_compare.py",  # compares commits' HIL rate on one machine: a tool, not a figure
}


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_run_all", BENCH / "run_all.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run_all"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


run_all = _load()
PRESENT = [b for b in run_all.BENCHMARKS if b.path.exists()]


#: A tiny run that takes longer than this on an idle machine has hung (the tiny arguments run
#: each script in well under 20 s there).
HANG_LIMIT_S = 60.0


def slowdown() -> float:
    """How many times longer than its own CPU time a fixed piece of work takes now: about 1 on
    an idle machine, about the load over the cores on a busy one (other sessions share it)."""
    wall, cpu = time.perf_counter(), time.process_time()
    sum(i * i for i in range(1_000_000))
    return (time.perf_counter() - wall) / max(time.process_time() - cpu, 1e-3)


def _run(script: Path, args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    # The hang guard, not a performance check: its limit grows with the machine's load, so
    # that a busy machine does not fail a script that is only slow there.
    return subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=HANG_LIMIT_S * max(1.0, slowdown()),
        check=False,
        cwd=BENCH.parent,
    )


def test_every_bench_script_is_run_by_make_bench() -> None:
    listed = {Path(b.script).name for b in run_all.BENCHMARKS}
    on_disk = {p.name for p in BENCH.glob("*.py")} - NOT_BENCHMARKS
    assert on_disk <= listed, f"add to BENCHMARKS in bench/run_all.py: {on_disk - listed}"


def test_targets_name_figures_the_script_promises() -> None:
    for bench in run_all.BENCHMARKS:
        if bench.keys:
            for target in bench.targets:
                assert target.key in bench.keys, (bench.script, target.key)


@pytest.mark.parametrize("bench", PRESENT, ids=[Path(b.script).stem for b in PRESENT])
def test_bench_script_runs_and_prints_its_figures(bench: object) -> None:
    assert isinstance(bench, run_all.Benchmark)
    if bench.tiny_args is None:
        # Arguments not known to run_all yet: at least it imports and parses its options.
        proc = _run(bench.path, ("--help",))
        assert proc.returncode == 0, proc.stderr
        return
    proc = _run(bench.path, bench.tiny_args)
    assert proc.returncode == 0, proc.stderr
    prose, figures = run_all.split_figures(proc.stdout)
    assert prose, "the script prints its figures for people too"
    if bench.keys:
        assert figures is not None, f"no FIGURES line in:\n{proc.stdout}"
        missing = set(bench.keys) - set(figures)
        assert not missing, f"FIGURES lacks {missing}: {figures}"
        assert proc.stdout.rstrip().splitlines()[-1].startswith("FIGURES {")


def test_split_figures_takes_the_json_line_out_of_the_prose() -> None:
    stdout = 'rate: 5 frames/s\nFIGURES {"rate": 5, "ok": true}\n'
    assert run_all.split_figures(stdout) == ("rate: 5 frames/s", {"rate": 5, "ok": True})
    assert run_all.split_figures("just prose\n") == ("just prose", None)
    # A malformed line stays in the prose rather than breaking the run.
    assert run_all.split_figures("FIGURES {oops\n") == ("FIGURES {oops", None)


def test_targets_compare_as_they_say() -> None:
    at_least = run_all.Target("r", ">=", 100, "")
    under = run_all.Target("p99", "<", 2.0, "")
    exactly = run_all.Target("inside", "==", True, "")
    assert at_least.met(100) is True
    assert at_least.met(99.9) is False
    assert under.met(2.0) is False
    assert under.met(1.2) is True
    assert under.met("n/a") is None
    assert exactly.met(True) is True
    assert exactly.met(False) is False
    word = run_all.Target("verify_key", "==", "intact", "")
    assert word.met("intact") is True
    assert word.met("broken") is False
    # A word has no order: a >= target naming one is a mistake in the table, said so.
    with pytest.raises(ValueError, match="needs a number"):
        run_all.Target("verify_key", ">=", "intact", "").met(1)


def test_hand_recorded_section_is_kept_verbatim() -> None:
    begin, end = run_all.HAND_BEGIN, run_all.HAND_END
    recorded = f"{begin}\n| 10,000,000 | +0.651% ± 0.052 | inside |\n{end}"
    existing = f"# old figures\n\n{recorded}\n\ntrailing\n"
    assert run_all.hand_recorded(existing) == recorded
    fresh = run_all.hand_recorded("")
    assert fresh.startswith(begin) and fresh.endswith(end)
    assert "--hands 10000000" in fresh


def test_document_lists_missing_scripts_machine_and_targets() -> None:
    protocol = next(b for b in run_all.BENCHMARKS if b.script.endswith("protocol_bench.py"))
    absent = run_all.Benchmark(
        "Absent", "bench/not_there.py", ("--n", "1"), None, targets=protocol.targets[:1]
    )
    missing = run_all.run_benchmark(absent)
    assert missing.status == "missing"
    measured = run_all.Result(
        protocol,
        "cmd",
        "ok",
        1.0,
        output="card frame: 11 bytes",
        figures={"card_frame_bytes": 11, "decode_frame_per_s": 150_000},
    )
    info = run_all.machine()
    assert {"CPU", "Cores", "RAM", "Python", "Kernel", "Date"} <= set(info)
    hand = run_all.hand_recorded("")
    text = run_all.render([measured, missing], info, hand, 12.0)
    assert "| `card_frame_bytes` | card-drawn frame < 16 bytes | 11 | meets |" in text
    assert "| 150,000 | **misses** |" in text
    assert "| read it from the output |" in text  # no FIGURES for a known target
    assert "Not run: `bench/not_there.py` is not in this tree." in text
    assert "Raspberry Pi" in text
    assert text.count(run_all.HAND_BEGIN) == 1
    # Rewriting the document keeps a hand edit inside the markers.
    edited = text.replace("not yet recorded", "+0.640% ± 0.050", 1)
    assert "+0.640% ± 0.050" in run_all.hand_recorded(edited)


def test_run_all_writes_the_document_and_notes_a_script_without_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "prose_bench.py"
    script.write_text(
        "import argparse\n"
        "p = argparse.ArgumentParser()\n"
        "p.add_argument('--n', type=int, default=3)\n"
        "print(f'{p.parse_args().n} widgets/s')\n"
    )
    # Arguments the script refuses: it runs again with its defaults, and says so.
    bench = run_all.Benchmark("Prose", str(script), ("--rounds", "9"), None)
    monkeypatch.setattr(run_all, "BENCHMARKS", (bench,))
    out = tmp_path / "performance.md"
    out.write_text(f"old\n{run_all.HAND_BEGIN}\nkept by hand\n{run_all.HAND_END}\n")
    assert run_all.main(["--output", str(out)]) == 0
    text = out.read_text()
    assert "3 widgets/s" in text
    assert "no FIGURES line: its full output is shown" in text
    assert "it ran with its defaults" in text
    assert f"{run_all.HAND_BEGIN}\nkept by hand\n{run_all.HAND_END}" in text
    assert not text.startswith("old")


def test_hil_compare_measures_a_commit_in_a_worktree_it_removes_after() -> None:
    """bench/hil_compare.py: a run a commit, its median, and no worktree left behind."""
    root = BENCH.parent
    before = subprocess.run(
        ["git", "-C", str(root), "worktree", "list"], capture_output=True, text=True, check=True
    ).stdout
    done = _run(BENCH / "hil_compare.py", ("--rounds", "3", "--runs", "1", "HEAD"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("run 1 HEAD: ") and "rounds/s" in line for line in lines), lines
    assert any(line.startswith("HEAD: median ") for line in lines), lines
    after = subprocess.run(
        ["git", "-C", str(root), "worktree", "list"], capture_output=True, text=True, check=True
    ).stdout
    assert after == before


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("no-such-rev",), "hil_compare: no such commit: 'no-such-rev'"),
        (("--", "-x"), "hil_compare: no such commit: '-x'"),
        (("HEAD", "HEAD~999999"), "hil_compare: no such commit: 'HEAD~999999'"),
    ],
)
def test_hil_compare_refuses_what_names_no_commit_in_one_line(
    args: tuple[str, ...], expected: str
) -> None:
    """A revision that names no commit (or looks like an option) is one line, before any
    worktree is made or any run started."""
    done = _run(BENCH / "hil_compare.py", ("--runs", "1", *args))
    assert done.returncode == 2
    assert done.stderr.strip() == expected
    assert "run 1" not in done.stdout


def test_hil_compare_takes_no_run_count_below_one() -> None:
    done = _run(BENCH / "hil_compare.py", ("--runs", "0", "HEAD"))
    assert done.returncode == 2 and "--runs: 0 is not 1 or more" in done.stderr
    assert "Traceback" not in done.stderr


def _hil_compare() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_hil_compare", BENCH / "hil_compare.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=40).filter(lambda raw: b"\0" not in raw))
def test_any_revision_text_names_a_commit_or_none(raw: bytes) -> None:
    """Whatever a command line can hold (any bytes but NUL, as Python decodes an argument:
    ``os.fsdecode``) is a commit's full hash or None, never an exception: git is asked to
    verify it, never to run it as an option."""
    found = _hil_compare().commit_of(os.fsdecode(raw))
    assert found is None or (len(found) == 40 and set(found) <= set("0123456789abcdef"))
