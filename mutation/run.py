"""``make mutate``: mutation testing of the product packages with mutmut 3 (docs/testing.md).

    .venv/bin/python mutation/run.py [--package controller/journal] [--module PATH.py]
        [--budget SECONDS] [--jobs N] [--fresh] [--report-only]

Each module of the selection is mutated in a work folder of its own,
``build/mutation/<module>/``: links to the source and the tests, and a ``pyproject.toml``
whose ``[tool.mutmut]`` section names that module alone and, as the tests to run, the files
``mutation/map.toml`` lists for it. mutmut then runs, for each mutant, only those of the
listed tests that reach the mutated function. Results stay in the work folder, so a run
stopped by the time budget resumes where it stopped; a mutant that survived is tried again
on the next run (a test may have been added since).

Each module's last results are also kept in the repository, ``mutation/results/<module>.json``
(the ledger: counts per outcome, every mutant not detected with its diff, the source's hash,
the commit and the date), written whenever the module is reported from its work folder. A
module with no work folder (another machine, a fresh clone) is reported from its ledger while
its source is the one the ledger names; a ledger of another source counts as not run.
The ledger also keeps, function by function, mutmut's hash of the function's source and the
numbers of its mutants the tests detected (``resume``): a run in a work folder that has no
results yet (another clone, another machine) starts from them, so it checks only what the
ledger left unchecked or undetected, and every mutant of a function changed since.

The report per package (``build/mutation/<package>.md``, and its summary on stdout) counts
each mutant as killed, timeout (the tests ran past mutmut's limit: detected), survived (no
test failed, or no listed test reaches it), equivalent (listed in ``mutation/equivalents.toml``
with the reason) or not checked (the budget ran out first). The score is
(killed + timeout) / (killed + timeout + survived). With a whole package run (no --module),
the package's row of the figures table in docs/testing.md is rewritten (``--report-only``
rewrites it from each module's last results, with the equivalents file as it is now).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAP_FILE = ROOT / "mutation" / "map.toml"
EQUIVALENTS_FILE = ROOT / "mutation" / "equivalents.toml"
WORK = ROOT / "build" / "mutation"
RESULTS = ROOT / "mutation" / "results"
LEDGER_VERSION = 1
DOC = ROOT / "docs" / "testing.md"
#: The product packages: every Python module under these is a key of the map.
PRODUCT = ("controller", "drivers", "firmware_bridge", "floor")
#: What the tests read besides the source (fixtures, docs they check, examples, units).
TEST_TREES = ("tests", "hil_tests", "vm_tests", "docs", "examples", "systemd", "debian", "bench")
TEST_FILES = ("README.md", "Makefile", "setup.py")
#: Lines mutmut leaves alone: log calls (a logger named `log` or `_log`). A log line is an
#: operator's aid, not behaviour a test pins (tests/test_logs.py checks the log's form once); a
#: changed message is no bug a player or the journal sees. docs/testing.md says so.
DO_NOT_MUTATE = (r"^\s*_?log\.(debug|info|warning|error|exception)\(",)
FIGURES_BEGIN = "<!-- mutate: figures begin (written by mutation/run.py) -->"
FIGURES_END = "<!-- mutate: figures end -->"
#: mutmut's exit codes (mutmut.stats.status_by_exit_code, 3.8) sorted into the report's kinds.
KILLED_CODES = frozenset({1, 3, 37, -11, -9})
TIMEOUT_CODES = frozenset({36, -24, 24, 152, 255})
SURVIVED_CODES = frozenset({0})
NO_TESTS_CODES = frozenset({5, 33})


#: Modules whose listed tests take their PostgreSQL from one server the run starts for the
#: module (``DEALER_FLOOR_CLUSTER``, read by tests/floor_fixtures.py): each mutant's tests
#: then create a fresh database in it instead of starting a server of their own (initdb and
#: a start: a minute at load 15, which mutmut's time limit took for a timeout). Their
#: listed tests neither stop nor restart the server. `make test` starts a server per module.
SHARED_POSTGRES = frozenset({"floor/monitor.py", "floor/operations.py", "floor/feed.py"})


class MapError(ValueError):
    """mutation/map.toml or mutation/equivalents.toml is malformed (the text says where)."""


@dataclass(frozen=True)
class MutationMap:
    """The declaration: tests per module, and the score each target package must reach."""

    targets: Mapping[str, int]
    modules: Mapping[str, tuple[str, ...]]

    def package_modules(self, package: str) -> list[str]:
        """The modules of ``package`` (a folder), in the map's order; not its sub-folders."""
        return [m for m in self.modules if package_of(m) == package]

    def packages(self) -> list[str]:
        """Every package (folder) with a module in the map, in the map's order."""
        return list(dict.fromkeys(package_of(m) for m in self.modules))


@dataclass(frozen=True)
class Equivalent:
    """A mutant that changes no behaviour: which one (module, function, the mutated line as
    ``mutmut show`` prints it, stripped) and why it cannot be told apart."""

    module: str
    function: str
    mutant: str
    reason: str


def package_of(module: str) -> str:
    """``controller/journal/seal.py`` -> ``controller/journal``."""
    return str(Path(module).parent)


def product_modules(root: Path = ROOT) -> list[str]:
    """Every Python module of the product packages, as a path relative to ``root``."""
    found = []
    for package in PRODUCT:
        for path in sorted((root / package).rglob("*.py")):
            if "__pycache__" not in path.parts:
                found.append(path.relative_to(root).as_posix())
    return found


def load_map(path: Path = MAP_FILE) -> MutationMap:
    """Read and check the map: module paths end in ``.py``, tests are lists of paths.

    Raises:
        MapError: the file is not TOML or an entry has the wrong shape.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise MapError(f"{path.name}: {err}") from err
    targets = data.get("targets", {})
    modules = data.get("modules", {})
    if set(data) - {"targets", "modules"}:
        raise MapError(
            f"{path.name}: unknown sections {sorted(set(data) - {'targets', 'modules'})}"
        )
    checked_targets: dict[str, int] = {}
    for package, target in targets.items():
        if not isinstance(target, int) or isinstance(target, bool) or not 0 <= target <= 100:
            raise MapError(f"{path.name}: targets.{package}: a percentage 0-100, not {target!r}")
        checked_targets[package] = target
    checked: dict[str, tuple[str, ...]] = {}
    for module, tests in modules.items():
        if not module.endswith(".py"):
            raise MapError(f"{path.name}: modules.{module}: not a .py path")
        if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
            raise MapError(f"{path.name}: modules.{module}: a list of test file paths")
        checked[module] = tuple(tests)
    return MutationMap(checked_targets, checked)


def load_equivalents(path: Path = EQUIVALENTS_FILE) -> list[Equivalent]:
    """Read the equivalent mutants; each names its module, function, mutant and reason.

    Raises:
        MapError: the file is not TOML or an entry misses a field.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise MapError(f"{path.name}: {err}") from err
    found = []
    for number, entry in enumerate(data.get("equivalent", []), start=1):
        fields = {}
        for key in ("module", "function", "mutant", "reason"):
            value = entry.get(key)
            if not isinstance(value, str) or not value.strip():
                raise MapError(f"{path.name}: equivalent #{number}: {key} missing or empty")
            fields[key] = value.strip()
        found.append(Equivalent(**fields))
    return found


# --- one module's work folder ------------------------------------------------------------


def work_folder(module: str) -> Path:
    """``controller/journal/seal.py`` -> ``build/mutation/controller.journal.seal``."""
    return WORK / module.removesuffix(".py").replace("/", ".")


def mutmut_section(module: str, tests: Sequence[str]) -> str:
    """The ``[tool.mutmut]`` section that mutates ``module`` alone against ``tests``."""
    also_copy = [f"{tree}/" for tree in TEST_TREES[1:]] + list(TEST_FILES)
    lines = [
        "",
        "[tool.mutmut]",
        f"source_paths = {json.dumps(list(PRODUCT))}",
        f"only_mutate = {json.dumps([module])}",
        f"pytest_add_cli_args_test_selection = {json.dumps(list(tests))}",
        # The cache provider would write into the tests' copy; -p no:randomly is mutmut's own.
        'pytest_add_cli_args = ["-p", "no:cacheprovider"]',
        f"also_copy = {json.dumps(also_copy)}",
        f"do_not_mutate_patterns = {json.dumps(list(DO_NOT_MUTATE))}",
        # Results follow each function's source (mutmut's hashes); other files do not reset them.
        'on_dependency_change = "ignore"',
        "use_git_change_detection = false",
    ]
    if module in SHARED_POSTGRES:
        # Each mutant's tests create and migrate a database first, which mutmut's estimate
        # (the tests' own time in its stats run) leaves out for all but the first test: at
        # load 20 that alone passed its limit of 15 times (estimate + 1 s), and equivalent
        # mutants "timed out". 15 times (estimate + 10 s) leaves room for it.
        lines.append("timeout_constant = 10.0")
    lines.append("")
    return "\n".join(lines)


def prepare(module: str, tests: Sequence[str]) -> Path:
    """Create or refresh the work folder of ``module``; return it.

    Results made under other mutation rules are forgotten: mutmut numbers a function's
    mutants in order, so another rule set would pin old results on new mutants.
    """
    folder = work_folder(module)
    rules = folder / "rules"
    if rules.exists() and rules.read_text() != json.dumps(DO_NOT_MUTATE):
        shutil.rmtree(folder / "mutants")
    (folder / "mutants").mkdir(parents=True, exist_ok=True)
    rules.write_text(json.dumps(DO_NOT_MUTATE))
    for name in (*PRODUCT, *TEST_TREES, *TEST_FILES):
        link = folder / name
        if (ROOT / name).exists() and not link.is_symlink():
            link.symlink_to(ROOT / name)
    config = (ROOT / "pyproject.toml").read_text(encoding="utf-8") + mutmut_section(module, tests)
    pyproject = folder / "pyproject.toml"
    if not pyproject.exists() or pyproject.read_text(encoding="utf-8") != config:
        pyproject.write_text(config, encoding="utf-8")
    return folder


def fingerprint(module: str, tests: Sequence[str]) -> str:
    """A hash of what decides the module's results: its source, its tests, the test fixtures."""
    digest = hashlib.sha256()
    for name in (module, *tests, "tests/conftest.py", "pyproject.toml", "mutation/map.toml"):
        path = ROOT / name
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes() if path.exists() else b"(missing)")
    return digest.hexdigest()


def meta_path(module: str) -> Path:
    return work_folder(module) / "mutants" / (module + ".meta")


def reach_fingerprint(root: Path = ROOT) -> str:
    """A hash of what decides which tests reach each function: every Python file of the
    product and of the test trees (a test's path into a function runs through both), the
    pyproject and the map."""
    digest = hashlib.sha256()
    files = sorted(
        path
        for tree in (*PRODUCT, *TEST_TREES)
        if (root / tree).is_dir()
        for path in (root / tree).rglob("*.py")
        if "__pycache__" not in path.parts
    )
    for path in (*files, root / "pyproject.toml", root / "mutation" / "map.toml"):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() if path.exists() else b"(missing)")
    return digest.hexdigest()


def forget_stale_reach(module: str, root: Path = ROOT) -> bool:
    """Delete mutmut's record of which tests reach each function (``mutmut-stats.json``)
    when any file :func:`reach_fingerprint` covers changed since it was made, so that mutmut
    records it again over every listed test; return whether it was deleted.

    mutmut reuses the record it finds and runs only *new* tests to add to it: a function
    added or changed since keeps the tests of the old record, and a new one gets only the
    new tests. A mutant then runs a few tests or none, and survives what the tests it
    skipped would kill (docs/testing.md, "Which tests reach a function")."""
    folder = work_folder(module)
    stats = folder / "mutants" / "mutmut-stats.json"
    stamp = folder / "reach.sha256"
    current = reach_fingerprint(root)
    stale = stats.exists() and (not stamp.exists() or stamp.read_text() != current)
    if stale:
        stats.unlink()
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(current)
    return stale


def read_exit_codes(module: str) -> dict[str, int | None]:
    """mutmut's result per mutant of ``module`` (None: not checked yet)."""
    path = meta_path(module)
    if not path.exists():
        return {}
    codes: dict[str, int | None] = json.loads(path.read_text(encoding="utf-8"))["exit_code_by_key"]
    return codes


def forget_survivors(module: str) -> None:
    """Mark survived and unreached mutants unchecked, so this run tries them again."""
    path = meta_path(module)
    if not path.exists():
        return
    meta = json.loads(path.read_text(encoding="utf-8"))
    codes = meta["exit_code_by_key"]
    for key, code in codes.items():
        if code is not None and code not in KILLED_CODES | TIMEOUT_CODES:
            codes[key] = None
    path.write_text(json.dumps(meta, indent=4), encoding="utf-8")


def _ranges(numbers: Iterable[int]) -> str:
    """``[1, 2, 3, 5, 7, 8]`` -> ``"1-3,5,7-8"``."""
    runs: list[list[int]] = []
    for n in sorted(set(numbers)):
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _numbers(ranges: str) -> list[int]:
    """``"1-3,5"`` -> ``[1, 2, 3, 5]``.

    Raises:
        ValueError: not ranges of positive numbers.
    """
    found: list[int] = []
    for part in filter(None, ranges.split(",")):
        low, _, high = part.partition("-")
        first, last = int(low), int(high or low)
        if not 0 < first <= last:
            raise ValueError(f"bad range {part!r}")
        found.extend(range(first, last + 1))
    return found


#: The exit code a seeded result is given for each detected kind (mutmut's own).
SEED_CODES = {"killed": 1, "timeout": 36}


def resume_of(module: str) -> dict[str, dict[str, str]]:
    """From the work folder's results: for each function with a detected mutant, mutmut's
    hash of the function and the numbers of its mutants killed and timed out."""
    path = meta_path(module)
    if not path.exists():
        return {}
    meta = json.loads(path.read_text(encoding="utf-8"))
    hashes: dict[str, str] = meta.get("hash_by_function_name", {})
    detected: dict[str, dict[str, list[int]]] = {}
    for key, code in meta["exit_code_by_key"].items():
        kind = kind_of(code)
        head, _, number = key.rpartition("__mutmut_")
        function = head.rpartition(".")[2]
        if kind in SEED_CODES and function in hashes and number.isdigit():
            detected.setdefault(function, {}).setdefault(kind, []).append(int(number))
    return {
        function: {"hash": hashes[function]}
        | {kind: _ranges(numbers) for kind, numbers in sorted(kinds.items())}
        for function, kinds in sorted(detected.items())
    }


def seed_from_ledger(module: str, results: Path = RESULTS) -> int:
    """Start a work folder that has no results from the module's ledger (its ``resume``);
    return how many mutants it starts with as detected. mutmut keeps a seeded result only
    for a function whose hash is the same (mutmut's own check, as for its own results);
    nothing is seeded over results the folder has, or from a ledger of other rules.

    Raises:
        MapError: the ledger is damaged.
    """
    path = meta_path(module)
    ledger = read_ledger(module, results)
    if path.exists() or ledger is None or not ledger.resume:
        return 0
    if ledger.source == "(made under other mutation rules)":
        return 0
    prefix = module.removesuffix(".py").replace("/", ".")
    codes: dict[str, int] = {}
    for function, entry in ledger.resume.items():
        for kind, code in SEED_CODES.items():
            for n in _numbers(entry.get(kind, "")):
                codes[f"{prefix}.{function}__mutmut_{n}"] = code
    meta = {
        "exit_code_by_key": codes,
        "hash_by_function_name": {f: e["hash"] for f, e in ledger.resume.items()},
        "type_check_error_by_key": {},
        "durations_by_key": {},
        "estimated_durations_by_key": {},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(meta, indent=4), encoding="utf-8")
    return len(codes)


def _mark_unreached(module: str) -> None:
    """mutmut stops before it records anything when no listed test reaches the module:
    record every mutant as unreached (mutmut's own code for "no tests")."""
    path = meta_path(module)
    if not path.exists():
        return
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta["exit_code_by_key"] = dict.fromkeys(meta["exit_code_by_key"], 33)
    path.write_text(json.dumps(meta, indent=4), encoding="utf-8")


@contextmanager
def shared_postgres(module: str) -> Iterator[dict[str, str]]:
    """For a module of :data:`SHARED_POSTGRES`, a PostgreSQL started for the run and stopped
    after it, and the environment that names it to the tests; for any other, nothing."""
    if module not in SHARED_POSTGRES:
        yield {}
        return
    from floor.servers import Database, remove

    database = Database()
    try:
        database.start()
        yield {"DEALER_FLOOR_CLUSTER": str(database.dir)}
    finally:
        database.stop()
        remove(database)


def run_mutmut(
    module: str, tests: Sequence[str], seconds: float, jobs: int, *, seed: bool = True
) -> str:
    """Run mutmut on ``module`` for at most ``seconds``; return how it ended, in words. A work
    folder with no results starts from the ledger's (``seed``, :func:`seed_from_ledger`)."""
    folder = prepare(module, tests)
    seeded = seed_from_ledger(module) if seed else 0
    if seeded:
        print(f"{module}: {seeded} mutants detected in the ledger's run, not run again", flush=True)
    stamp = folder / "fingerprint"
    codes = read_exit_codes(module)
    current = fingerprint(module, tests)
    if (
        codes
        and stamp.exists()
        and stamp.read_text() == current
        and all(c is not None for c in codes.values())
    ):
        return "up to date"
    forget_survivors(module)
    if forget_stale_reach(module):
        print(
            f"{module}: code or tests changed: which tests reach each function recorded again",
            flush=True,
        )
    (folder / "source.sha256").write_text(source_hash(module))
    env = dict(os.environ)
    # Subprocesses the tests start (the CLI, served doubles) import the mutated tree too.
    env["PYTHONPATH"] = str(folder / "mutants")
    # tests/conftest.py: a failing hypothesis example is not shrunk (only the failure counts).
    env["DEALER_MUTATION"] = "1"
    mutmut = Path(sys.executable).parent / "mutmut"
    command = ["nice", "-n", "19", str(mutmut), "run", "--max-children", str(jobs)]
    with (
        shared_postgres(module) as cluster,
        open(folder / "mutmut.log", "w", encoding="utf-8") as log,
    ):
        env.update(cluster)
        process = subprocess.Popen(
            command,
            cwd=folder,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            code = process.wait(timeout=max(seconds, 1.0))
        except subprocess.TimeoutExpired:
            # mutmut saves each result as it comes: an interrupt loses only the mutants in flight.
            os.killpg(process.pid, signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            return "stopped: time budget spent"
    text = (folder / "mutmut.log").read_text(encoding="utf-8", errors="replace")
    if code != 0:
        if "could not find any test case for any mutant" in text:
            if not read_exit_codes(module):
                return "no function to mutate"
            _mark_unreached(module)
            return "no listed test reaches the module"
        return f"mutmut failed (exit {code}): see {(folder / 'mutmut.log').relative_to(ROOT)}"
    if all(c is not None for c in read_exit_codes(module).values()):
        stamp.write_text(current)
    return "done"


# --- results -----------------------------------------------------------------------------


@dataclass
class Mutant:
    """One mutant's outcome, with its diff when it did not fail a test."""

    name: str
    module: str
    function: str
    kind: str  # killed | timeout | survived | no tests | equivalent | not checked | other
    diff: str = ""
    reason: str = ""


@dataclass
class Tally:
    """Counts per kind for a module or a package, and the score they give."""

    counts: Counter[str] = field(default_factory=Counter)

    def add(self, kind: str) -> None:
        self.counts[kind] += 1

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def detected(self) -> int:
        return self.counts["killed"] + self.counts["timeout"]

    @property
    def undetected(self) -> int:
        return self.counts["survived"] + self.counts["no tests"]

    def score(self) -> float | None:
        """The share of checked, non-equivalent mutants the tests detect (None: none checked)."""
        checked = self.detected + self.undetected
        return None if checked == 0 else 100.0 * self.detected / checked


def kind_of(code: int | None) -> str:
    if code is None:
        return "not checked"
    if code in KILLED_CODES:
        return "killed"
    if code in TIMEOUT_CODES:
        return "timeout"
    if code in SURVIVED_CODES:
        return "survived"
    if code in NO_TESTS_CODES:
        return "no tests"
    return "other"


def function_of(mutant_name: str) -> str:
    """``pkg.mod.xǁClassǁmethod__mutmut_3`` -> ``Class.method``; ``x_f__mutmut_1`` -> ``f``."""
    mangled = mutant_name.partition("__mutmut_")[0].rpartition(".")[2]
    if "ǁ" in mangled:
        _, cls, method = mangled.split("ǁ")
        return f"{cls}.{method}"
    return mangled.removeprefix("x_")


def mutated_lines(diff: str) -> str:
    """The lines a mutant adds, stripped and joined by newlines (what equivalents name); a
    mutant that only removes lines is named by those, each as ``removed: <line>``."""
    lines = diff.splitlines()
    added = [line[1:].strip() for line in lines if line.startswith("+") and line[:3] != "+++"]
    if added:
        return "\n".join(added)
    return "\n".join(
        f"removed: {line[1:].strip()}"
        for line in lines
        if line.startswith("-") and line[:3] != "---"
    )


def match_equivalent(mutant: Mutant, equivalents: Iterable[Equivalent]) -> Equivalent | None:
    """The entry of the equivalents file that names ``mutant``, if any."""
    added = mutated_lines(mutant.diff)
    for entry in equivalents:
        if (entry.module, entry.function, entry.mutant) == (mutant.module, mutant.function, added):
            return entry
    return None


@contextmanager
def inside(folder: Path) -> Iterator[None]:
    previous = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(previous)


def diff_of(module: str, name: str) -> str:
    """The mutant's diff, as ``mutmut show`` prints it."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant  # the venv's mutmut 3.8

    with inside(work_folder(module)):
        return str(get_diff_for_mutant(name, path=module))


def module_results(module: str) -> list[Mutant]:
    """Every mutant of ``module`` from its work folder's last run, as mutmut saw it (the
    equivalents are applied after: :func:`apply_equivalents`)."""
    found = []
    for name, code in sorted(read_exit_codes(module).items(), key=lambda kv: _natural(kv[0])):
        mutant = Mutant(name, module, function_of(name), kind_of(code))
        if mutant.kind in UNDETECTED_KINDS:
            mutant.diff = diff_of(module, name)
        found.append(mutant)
    return found


#: The kinds a ledger keeps mutant by mutant (with the diff); the rest it counts.
UNDETECTED_KINDS = frozenset({"survived", "no tests", "other"})


def apply_equivalents(mutants: list[Mutant], equivalents: Sequence[Equivalent]) -> list[Mutant]:
    """Mark each undetected mutant that the equivalents file names as equivalent (in place)."""
    for mutant in mutants:
        if mutant.kind in UNDETECTED_KINDS:
            entry = match_equivalent(mutant, equivalents)
            if entry is not None:
                mutant.kind, mutant.reason = "equivalent", entry.reason
    return mutants


# --- the ledger: each module's last results, kept in the repository ------------------------


def source_hash(module: str, root: Path = ROOT) -> str:
    """The SHA-256 of the module's source: a ledger holds only for the source it names."""
    return hashlib.sha256((root / module).read_bytes()).hexdigest()


def ledger_path(module: str, results: Path = RESULTS) -> Path:
    """``controller/journal/seal.py`` -> ``mutation/results/controller.journal.seal.json``."""
    return results / (module.removesuffix(".py").replace("/", ".") + ".json")


@dataclass(frozen=True)
class Ledger:
    """A module's results as kept in the repository (see the module's docstring)."""

    module: str
    source: str
    commit: str
    date: str
    counts: Mapping[str, int]
    undetected: tuple[Mutant, ...]
    #: function -> {"hash": mutmut's hash, "killed"/"timeout": mutant numbers as ranges}
    resume: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def mutants(self, equivalents: Sequence[Equivalent]) -> list[Mutant]:
        """The module's mutants as a report counts them, with today's equivalents applied."""
        found = [
            Mutant(f"{self.module}#{kind}{i}", self.module, "", kind)
            for kind, count in sorted(self.counts.items())
            for i in range(count)
        ]
        copies = [Mutant(m.name, m.module, m.function, m.kind, m.diff) for m in self.undetected]
        return found + apply_equivalents(copies, equivalents)


def ledger_of(
    module: str,
    mutants: Sequence[Mutant],
    source: str,
    commit: str,
    date: str,
    *,
    resume: Mapping[str, Mapping[str, str]] | None = None,
) -> str:
    """The ledger's text for ``mutants`` as mutmut saw them (before the equivalents: they are
    applied when the ledger is read, so a reason added later counts without a run), with
    ``resume`` (:func:`resume_of`) for a later run elsewhere to start from."""
    record = {
        "version": LEDGER_VERSION,
        "module": module,
        "source_sha256": source,
        "rules": list(DO_NOT_MUTATE),
        "commit": commit,
        "date": date,
        "counts": dict(
            sorted(Counter(m.kind for m in mutants if m.kind not in UNDETECTED_KINDS).items())
        ),
        "undetected": [
            {"name": m.name, "function": m.function, "kind": m.kind, "diff": m.diff}
            for m in mutants
            if m.kind in UNDETECTED_KINDS
        ],
        "resume": dict(resume or {}),
    }
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"


def read_ledger(module: str, results: Path = RESULTS) -> Ledger | None:
    """The module's ledger, or None when there is none.

    Raises:
        MapError: the ledger is not one this runner wrote (the text says what is wrong).
    """
    path = ledger_path(module, results)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise MapError(f"{path.name}: not a ledger ({err})") from err
    try:
        if record["version"] != LEDGER_VERSION or record["module"] != module:
            raise MapError(f"{path.name}: version or module is not this runner's")
        counts = {str(k): int(v) for k, v in record["counts"].items()}
        if (
            set(counts) - {"killed", "timeout", "not checked"}
            or min(counts.values(), default=0) < 0
        ):
            raise MapError(f"{path.name}: counts of unknown kinds or below zero")
        undetected = tuple(
            Mutant(str(m["name"]), module, str(m["function"]), str(m["kind"]), str(m["diff"]))
            for m in record["undetected"]
        )
        if any(m.kind not in UNDETECTED_KINDS for m in undetected):
            raise MapError(f"{path.name}: an undetected mutant of another kind")
        rules = record["rules"]
        source, commit, date = (str(record[k]) for k in ("source_sha256", "commit", "date"))
        resume = {
            str(function): {str(k): str(v) for k, v in entry.items()}
            for function, entry in record.get("resume", {}).items()
        }
        for entry in resume.values():
            if "hash" not in entry or set(entry) - {"hash", *SEED_CODES}:
                raise MapError(f"{path.name}: a resume entry without a hash or of unknown kinds")
            for kind in SEED_CODES:
                _numbers(entry.get(kind, ""))
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise MapError(f"{path.name}: not a ledger (missing or malformed {err})") from err
    if rules != list(DO_NOT_MUTATE):
        source = "(made under other mutation rules)"
    return Ledger(module, source, commit, date, counts, undetected, resume)


def ledger_results(
    module: str, equivalents: Sequence[Equivalent], results: Path = RESULTS, root: Path = ROOT
) -> tuple[list[Mutant], str]:
    """The module's results from its ledger and a note for the report: none when there is no
    ledger, or when it was made on another source (or under other rules)."""
    ledger = read_ledger(module, results)
    if ledger is None:
        return [], "not run"
    if ledger.source != source_hash(module, root):
        return [], f"not run on this source (ledger of {ledger.commit}, {ledger.date})"
    return ledger.mutants(equivalents), f"ledger of {ledger.commit}, {ledger.date}"


def write_ledger(
    module: str, mutants: Sequence[Mutant], source: str, results: Path = RESULTS
) -> None:
    """Keep ``mutants`` as the module's ledger (the commit and date are today's)."""
    results.mkdir(parents=True, exist_ok=True)
    path = ledger_path(module, results)
    text = ledger_of(
        module,
        mutants,
        source,
        commit(),
        datetime.date.today().isoformat(),
        resume=resume_of(module),
    )
    path.write_text(text, encoding="utf-8")


def _natural(name: str) -> tuple[str, int]:
    head, _, number = name.rpartition("__mutmut_")
    return head, int(number) if number.isdigit() else 0


def stale_equivalents(
    equivalents: Sequence[Equivalent], mutants: Sequence[Mutant], modules: Iterable[str]
) -> list[Equivalent]:
    """Entries for these modules that matched no surviving mutant (fixed code, or killed)."""
    wanted = set(modules)
    used = {
        (m.module, m.function, mutated_lines(m.diff)) for m in mutants if m.kind == "equivalent"
    }
    return [
        e
        for e in equivalents
        if e.module in wanted and (e.module, e.function, e.mutant) not in used
    ]


# --- the report ----------------------------------------------------------------------------

KINDS = ("killed", "timeout", "survived", "no tests", "equivalent", "not checked", "other")


def tally(mutants: Iterable[Mutant]) -> Tally:
    result = Tally()
    for mutant in mutants:
        result.add(mutant.kind)
    return result


def percent(score: float | None) -> str:
    return "-" if score is None else f"{score:.1f}%"


def package_report(
    package: str,
    per_module: Mapping[str, list[Mutant]],
    notes: Mapping[str, str],
    stale: Sequence[Equivalent],
    command: str,
) -> str:
    """The package's report in Markdown: a row per module, then each mutant not killed."""
    out = [f"# Mutation report: {package}", "", f"Command: `{command}`", ""]
    out.append("| module | " + " | ".join(KINDS) + " | score | run |")
    out.append("|---|" + "---:|" * len(KINDS) + "---:|---|")
    for module, mutants in per_module.items():
        t = tally(mutants)
        cells = " | ".join(str(t.counts[k]) for k in KINDS)
        out.append(f"| {module} | {cells} | {percent(t.score())} | {notes.get(module, '')} |")
    whole = tally(m for ms in per_module.values() for m in ms)
    cells = " | ".join(str(whole.counts[k]) for k in KINDS)
    out.append(f"| **{package}** | {cells} | **{percent(whole.score())}** | |")
    for heading, kinds in (
        ("Survived (no listed test failed, or none reaches the mutant)", {"survived", "no tests"}),
        ("Equivalent (mutation/equivalents.toml)", {"equivalent"}),
        ("Timeout (counted as detected)", {"timeout"}),
        ("Other outcomes (crash of the test run, interrupted)", {"other"}),
    ):
        chosen = [m for ms in per_module.values() for m in ms if m.kind in kinds]
        if not chosen:
            continue
        out += ["", f"## {heading}", ""]
        for mutant in chosen:
            label = f"{mutant.name} ({mutant.kind})"
            out.append(f"- {label}" + (f": {mutant.reason}" if mutant.reason else ""))
            if mutant.diff:
                out += [
                    "",
                    "  ```diff",
                    *("  " + line for line in mutant.diff.splitlines()),
                    "  ```",
                ]
    if stale:
        out += ["", "## Equivalents that matched no surviving mutant (remove or correct)", ""]
        out += [f"- {e.module} {e.function}: `{e.mutant}`" for e in stale]
    return "\n".join(out) + "\n"


def figures_row(
    package: str, modules_run: str, mutants: Sequence[Mutant], target: int | None, when: str
) -> str:
    """The package's row of docs/testing.md's figures; ``modules_run`` is "run/mapped": the
    modules with results on their current source of those with tests listed."""
    t = tally(mutants)
    counted = t.total - t.counts["not checked"]
    return (
        f"| {package} | {modules_run} | {counted} | {t.counts['killed']} | {t.counts['timeout']} | "
        f"{t.undetected} | {t.counts['equivalent']} | {t.counts['not checked']} | "
        f"{percent(t.score())} | {f'{target}%' if target is not None else '-'} | {when} |"
    )


FIGURES_HEADER = (
    "| package | modules run | mutants | killed | timeout | survived | equivalent | not checked "
    "| score | target | measured |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
)


def rewrite_figures(document: str, rows: Mapping[str, str]) -> str:
    """Replace (or add) the rows of ``rows``' packages in the document's figures table."""
    begin, end = document.index(FIGURES_BEGIN), document.index(FIGURES_END)
    table = document[begin + len(FIGURES_BEGIN) : end].strip().splitlines()
    kept = {line.split("|")[1].strip(): line for line in table[2:] if line.startswith("|")}
    kept.update(rows)
    body = "\n".join([FIGURES_HEADER, *(kept[p] for p in sorted(kept))])
    return document[: begin + len(FIGURES_BEGIN)] + "\n" + body + "\n" + document[end:]


def commit() -> str:
    result = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip() or "unknown"


# --- the command -------------------------------------------------------------------------


def select(mapping: MutationMap, package: str | None, module: str | None) -> list[str]:
    """The modules to run: one module, one package's, or every target package's."""
    if module is not None:
        if module not in mapping.modules:
            raise MapError(f"--module {module}: not in mutation/map.toml")
        return [module]
    if package is not None:
        package = package.rstrip("/")
        modules = mapping.package_modules(package)
        if not modules:
            raise MapError(f"--package {package}: no module of it in mutation/map.toml")
        return modules
    return [m for p in mapping.targets for m in mapping.package_modules(p)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--package", help="a folder, e.g. controller/journal (default: targets)")
    parser.add_argument("--module", help="one module, e.g. controller/journal/seal.py")
    parser.add_argument("--budget", type=float, default=3600.0, help="seconds for the run")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once")
    parser.add_argument("--fresh", action="store_true", help="forget earlier results")
    parser.add_argument("--report-only", action="store_true", help="report the last results")
    args = parser.parse_args(argv)
    # A make run in the background starts with SIGINT ignored, and mutmut would inherit that;
    # it stops cleanly (saving what it finished) only on SIGINT, the budget's signal.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        mapping = load_map()
        equivalents = load_equivalents()
        modules = select(mapping, args.package, args.module)
    except (MapError, OSError) as err:
        print(f"mutate: {err}", file=sys.stderr)
        return 2
    command = "make mutate" + "".join(
        f" {k.upper()}={v}"
        for k, v in (("package", args.package), ("module", args.module))
        if v is not None
    )
    deadline = time.monotonic() + args.budget
    notes: dict[str, str] = {}
    for module in modules:
        tests = mapping.modules[module]
        if not tests:
            notes[module] = "not mutated: no tests listed"
            continue
        if args.fresh:
            shutil.rmtree(work_folder(module), ignore_errors=True)
        if args.report_only:
            notes[module] = "last results"
            continue
        left = deadline - time.monotonic()
        if left <= 0:
            notes[module] = "not run: time budget spent"
            continue
        started = time.monotonic()
        notes[module] = run_mutmut(module, tests, left, args.jobs, seed=not args.fresh)
        print(f"{module}: {notes[module]} ({time.monotonic() - started:.0f} s)", flush=True)
    by_package: dict[str, dict[str, list[Mutant]]] = {}
    measured: set[str] = set()  # modules with results on their current source
    for module in modules:
        results: list[Mutant] = []
        if not mapping.modules[module]:
            pass
        elif meta_path(module).exists() or notes.get(module) == "no function to mutate":
            results = module_results(module)
            stamp = work_folder(module) / "source.sha256"
            source = stamp.read_text() if stamp.exists() else source_hash(module)
            write_ledger(module, results, source)
            apply_equivalents(results, equivalents)
            measured.add(module)
        else:
            try:
                results, notes[module] = ledger_results(module, equivalents)
            except MapError as err:
                print(f"mutate: {err}", file=sys.stderr)
                return 2
            if notes[module].startswith("ledger of"):
                measured.add(module)
        by_package.setdefault(package_of(module), {})[module] = results
    WORK.mkdir(parents=True, exist_ok=True)
    rows = {}
    when = f"{datetime.date.today().isoformat()}, {commit()}"
    for package, per_module in by_package.items():
        mutants = [m for ms in per_module.values() for m in ms]
        stale = stale_equivalents(equivalents, mutants, per_module)
        report = package_report(package, per_module, notes, stale, command)
        path = WORK / (package.replace("/", ".") + ".md")
        path.write_text(report, encoding="utf-8")
        whole = tally(mutants)
        print(
            f"{package}: {whole.total} mutants, {whole.counts['killed']} killed, "
            f"{whole.counts['timeout']} timeout, {whole.undetected} survived, "
            f"{whole.counts['equivalent']} equivalent, {whole.counts['not checked']} not checked: "
            f"{percent(whole.score())} (report: {path.relative_to(ROOT)})"
        )
        if args.module is None:
            mapped = [m for m in per_module if mapping.modules[m]]
            run_here = f"{len(measured.intersection(mapped))}/{len(mapped)}"
            rows[package] = figures_row(
                package, run_here, mutants, mapping.targets.get(package), when
            )
    if rows and DOC.exists():
        DOC.write_text(rewrite_figures(DOC.read_text(encoding="utf-8"), rows), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
