"""The mutation map cannot rot: every product module is in mutation/map.toml, every test it
lists exists, every equivalent mutant names a real function and gives a reason, and the
runner's counting is the one docs/testing.md states (checked on hand-made results).

Nothing here runs mutmut: `make mutate` does (docs/testing.md), outside `make test`.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import itertools
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_run", ROOT / "mutation" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation_run"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


run = _load()
MAPPING = run.load_map()


def test_every_product_module_is_in_the_map_and_nothing_else() -> None:
    modules = set(run.product_modules())
    assert modules, "no product module found"
    assert sorted(modules - set(MAPPING.modules)) == [], "modules missing from mutation/map.toml"
    assert sorted(set(MAPPING.modules) - modules) == [], "map entries with no module"


def test_every_listed_test_file_exists_and_is_a_test_module() -> None:
    missing = [
        f"{module}: {test}"
        for module, tests in MAPPING.modules.items()
        for test in tests
        if not (ROOT / test).is_file() or not Path(test).name.startswith("test_")
    ]
    assert missing == []


def test_every_target_package_has_mapped_modules_with_tests() -> None:
    for package, target in MAPPING.targets.items():
        assert 0 < target <= 100
        modules = MAPPING.package_modules(package)
        assert modules, f"target {package} has no module in the map"
        assert any(MAPPING.modules[m] for m in modules), f"target {package} mutates nothing"


@functools.cache  # each module once: the equivalents name a few hundred functions of it
def _functions(module: str) -> frozenset[str]:
    tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(f"{node.name}.{item.name}")
    return frozenset(names)


def test_every_equivalent_names_a_mapped_function_and_a_reason() -> None:
    for entry in run.load_equivalents():
        assert entry.module in MAPPING.modules, entry
        assert entry.function in _functions(entry.module), entry
        assert len(entry.reason.split()) >= 4, f"say why it is equivalent: {entry}"


def test_a_malformed_map_is_one_line_naming_the_entry(tmp_path: Path) -> None:
    bad = tmp_path / "map.toml"
    bad.write_text('[modules]\n"drivers/shoe.py" = "tests/test_shoe.py"\n')
    with pytest.raises(run.MapError, match=r"modules\.drivers/shoe\.py: a list"):
        run.load_map(bad)
    bad.write_text('[targets]\n"drivers" = 101\n')
    with pytest.raises(run.MapError, match=r"targets\.drivers: a percentage 0-100"):
        run.load_map(bad)
    bad.write_text('[targets]\n"drivers" = 100\n')
    assert run.load_map(bad).targets == {"drivers": 100}
    bad.write_text('[[equivalent]]\nmodule = "drivers/shoe.py"\nfunction = "f"\nmutant = "x"\n')
    with pytest.raises(run.MapError, match="equivalent #1: reason missing"):
        run.load_equivalents(bad)


def test_the_score_counts_timeouts_as_detected_and_leaves_out_equivalents() -> None:
    # Hand-worked: 6 killed + 1 timeout detected, 2 survived + 1 unreached not;
    # equivalents and unchecked mutants are not in the denominator: 7 / 10 = 70%.
    kinds = ["killed"] * 6 + ["timeout", "survived", "survived", "no tests"]
    kinds += ["equivalent", "equivalent", "not checked"]
    tally = run.tally(run.Mutant(str(i), "m.py", "f", k) for i, k in enumerate(kinds))
    assert tally.score() == pytest.approx(70.0)
    assert run.tally([]).score() is None
    assert [run.kind_of(c) for c in (1, 0, 33, 36, -24, None)] == [
        "killed",
        "survived",
        "no tests",
        "timeout",
        "timeout",
        "not checked",
    ]


DIFF = """--- drivers/shoe.py
+++ drivers/shoe.py
@@ -1,3 +1,3 @@
 def f(x):
-    return x < 3
+    return x <= 3
"""


def test_an_equivalent_matches_its_module_function_and_mutated_line_only() -> None:
    entry = run.Equivalent("drivers/shoe.py", "Shoe.f", "return x <= 3", "same for integers")
    name = "drivers.shoe.xǁShoeǁf__mutmut_4"
    assert run.function_of(name) == "Shoe.f"
    assert run.function_of("drivers.shoe.x_g__mutmut_1") == "g"
    mutant = run.Mutant(name, "drivers/shoe.py", "Shoe.f", "survived", DIFF)
    assert run.match_equivalent(mutant, [entry]) is entry
    other_line = run.Mutant(name, "drivers/shoe.py", "Shoe.f", "survived", DIFF.replace("<=", ">"))
    assert run.match_equivalent(other_line, [entry]) is None
    other_function = run.Mutant(name, "drivers/shoe.py", "Shoe.g", "survived", DIFF)
    assert run.match_equivalent(other_function, [entry]) is None


def test_a_mutant_that_only_removes_a_line_is_named_by_the_line_it_removes() -> None:
    # An argument dropped from a call (one that repeats the library's default) adds nothing.
    diff = "--- drivers/x.py\n+++ drivers/x.py\n@@ -1,3 +1,2 @@\n f(\n-    bytesize=8,\n )\n"
    assert run.mutated_lines(diff) == "removed: bytesize=8,"
    entry = run.Equivalent("drivers/x.py", "f", "removed: bytesize=8,", "the default")
    mutant = run.Mutant("drivers.x.x_f__mutmut_1", "drivers/x.py", "f", "survived", diff)
    assert run.match_equivalent(mutant, [entry]) is entry
    assert run.mutated_lines(DIFF) == "return x <= 3"  # a line added: named by it alone


def test_the_docs_figures_table_is_the_runners_and_names_known_packages() -> None:
    document = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    assert run.FIGURES_BEGIN in document and run.FIGURES_END in document
    table = document[document.index(run.FIGURES_BEGIN) : document.index(run.FIGURES_END)]
    assert run.FIGURES_HEADER in table
    rows = re.findall(r"^\| ([\w/]+) \| \d", table, re.MULTILINE)  # rows, not the header
    assert set(rows) <= set(MAPPING.packages())
    # Rewriting with the same row changes nothing else in the document.
    row = next(line for line in table.splitlines() if line.startswith(f"| {rows[0]} |"))
    assert run.rewrite_figures(document, {rows[0]: row}) == document


def test_make_mutate_is_not_part_of_make_test() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    test_rule = re.search(r"^test:(.*)$", makefile, re.MULTILINE)
    assert test_rule is not None and "mutate" not in test_rule.group(1)
    assert re.search(r"^mutate:", makefile, re.MULTILINE)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "mutate" not in ci


def test_the_tests_docs_testing_md_names_exist() -> None:
    # "tests/x.py::name" (or "hil_tests/x.py::name") names a test; a following "::other" is
    # in the same file.
    document = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    named = 0
    for line in document.splitlines():
        current: Path | None = None
        for match in re.finditer(r"(\b(?:hil_)?tests/\w+\.py)|::(\w+)", line):
            if match.group(1):
                current = ROOT / match.group(1)
                assert current.is_file(), match.group(1)
                continue
            assert current is not None, line
            tree = ast.parse(current.read_text(encoding="utf-8"))
            names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
            assert match.group(2) in names, f"{current.name}::{match.group(2)}"
            named += 1
    assert named >= 10


def test_log_calls_of_either_logger_name_are_left_alone_and_nothing_else() -> None:
    """A log call is not mutated (docs/testing.md): the loggers are named `log` or `_log`
    in the product; a call that only ends in `log` or a logger's other use is mutated."""
    run = _load()
    (pattern,) = run.DO_NOT_MUTATE
    for line in ('    log.info("x")', '        _log.warning("lost %s", d)', "log.exception(e)"):
        assert re.match(pattern, line), line
    for line in (
        '    catalog.info("x")',
        "    self.log.info(x)",
        "    log.bind(table=1)",
        "    x = log.info",
        "    __log.info(x)",
    ):
        assert not re.match(pattern, line), line


# --- the ledger: each module's last results kept in the repository (docs/testing.md) ----------

LEDGER_DIFF = DIFF.replace("drivers/shoe.py", "pkg/mod.py")


def _ledger_world(tmp_path: Path) -> tuple[Path, Path]:
    """A root with one module's source, and an empty results folder."""
    (tmp_path / "pkg").mkdir(exist_ok=True)
    (tmp_path / "pkg" / "mod.py").write_text("def f(x):\n    return x < 3\n", encoding="utf-8")
    return tmp_path, tmp_path / "results"


def _mutants() -> list[object]:
    # Hand-made results of one run: 3 killed, 1 timeout, 2 survived, 1 unreached, 2 unchecked.
    kinds = ["killed"] * 3 + ["timeout", "not checked", "not checked"]
    found = [
        run.Mutant(f"pkg.mod.x_f__mutmut_{i}", "pkg/mod.py", "f", k) for i, k in enumerate(kinds)
    ]
    for i, kind in ((10, "survived"), (11, "survived"), (12, "no tests")):
        diff = LEDGER_DIFF.replace("<= 3", f"<= {i}")
        found.append(run.Mutant(f"pkg.mod.x_f__mutmut_{i}", "pkg/mod.py", "f", kind, diff))
    return found


def test_a_ledger_reads_back_as_the_run_counted_it_with_todays_equivalents(tmp_path: Path) -> None:
    root, results = _ledger_world(tmp_path)
    source = run.source_hash("pkg/mod.py", root)
    (results).mkdir()
    run.ledger_path("pkg/mod.py", results).write_text(
        run.ledger_of("pkg/mod.py", _mutants(), source, "abc1234", "2026-12-02"), encoding="utf-8"
    )
    mutants, note = run.ledger_results("pkg/mod.py", [], results, root)
    assert note == "ledger of abc1234, 2026-12-02"
    tally = run.tally(mutants)
    assert dict(tally.counts) == {
        "killed": 3,
        "timeout": 1,
        "not checked": 2,
        "survived": 2,
        "no tests": 1,
    }
    assert tally.score() == pytest.approx(100.0 * 4 / 7)
    kept = {m.name: m.diff for m in mutants if m.kind in {"survived", "no tests"}}
    assert kept["pkg.mod.x_f__mutmut_11"].endswith("+    return x <= 11\n")
    # An equivalent listed after the run counts without a run; the ledger itself is unchanged.
    entry = run.Equivalent("pkg/mod.py", "f", "return x <= 11", "a hand-made reason")
    mutants, _ = run.ledger_results("pkg/mod.py", [entry], results, root)
    assert run.tally(mutants).counts["equivalent"] == 1
    assert run.tally(mutants).counts["survived"] == 1
    assert [m.reason for m in mutants if m.kind == "equivalent"] == ["a hand-made reason"]
    mutants, _ = run.ledger_results("pkg/mod.py", [], results, root)
    assert run.tally(mutants).counts["survived"] == 2


def test_a_ledger_counts_only_for_the_source_it_was_made_on(tmp_path: Path) -> None:
    root, results = _ledger_world(tmp_path)
    assert run.ledger_results("pkg/mod.py", [], results, root) == ([], "not run")
    results.mkdir()
    source = run.source_hash("pkg/mod.py", root)
    text = run.ledger_of("pkg/mod.py", _mutants(), source, "abc1234", "2026-12-02")
    run.ledger_path("pkg/mod.py", results).write_text(text, encoding="utf-8")
    assert run.ledger_results("pkg/mod.py", [], results, root)[1].startswith("ledger of")
    # One character of the source changed: the ledger no longer says anything about it.
    (root / "pkg" / "mod.py").write_text("def f(x):\n    return x < 4\n", encoding="utf-8")
    assert run.ledger_results("pkg/mod.py", [], results, root) == (
        [],
        "not run on this source (ledger of abc1234, 2026-12-02)",
    )
    # Made under other mutation rules (another set of lines left alone): not counted either.
    (root / "pkg" / "mod.py").write_text("def f(x):\n    return x < 3\n", encoding="utf-8")
    record = json.loads(text)
    record["rules"] = ["^other"]
    run.ledger_path("pkg/mod.py", results).write_text(json.dumps(record), encoding="utf-8")
    assert run.ledger_results("pkg/mod.py", [], results, root)[0] == []


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda r: "{not json", "not a ledger"),
        (lambda r: json.dumps({**r, "module": "pkg/other.py"}), "version or module"),
        (lambda r: json.dumps({**r, "version": 2}), "version or module"),
        (lambda r: json.dumps({**r, "counts": {"killed": -1}}), "below zero"),
        (lambda r: json.dumps({**r, "counts": {"survived": 1}}), "unknown kinds"),
        (lambda r: json.dumps({**r, "undetected": [{"name": "x"}]}), "missing or malformed"),
        (
            lambda r: json.dumps({**r, "undetected": [{**r["undetected"][0], "kind": "killed"}]}),
            "another kind",
        ),
        (lambda r: json.dumps({k: v for k, v in r.items() if k != "date"}), "missing or malformed"),
    ],
)
def test_a_damaged_ledger_is_one_line_naming_the_file(
    tmp_path: Path, change: object, says: str
) -> None:
    root, results = _ledger_world(tmp_path)
    results.mkdir()
    record = json.loads(run.ledger_of("pkg/mod.py", _mutants(), "0" * 64, "abc1234", "2026-12-02"))
    assert callable(change)
    run.ledger_path("pkg/mod.py", results).write_text(change(record), encoding="utf-8")
    with pytest.raises(run.MapError, match=says) as caught:
        run.ledger_results("pkg/mod.py", [], results, root)
    assert str(caught.value).startswith("pkg.mod.json: ") and "\n" not in str(caught.value)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    replaced=st.dictionaries(
        st.sampled_from(
            ["version", "module", "counts", "undetected", "rules", "date", "commit", "resume"]
        ),
        JSON,
        max_size=3,
    )
)
def test_any_ledger_is_read_or_refused_in_one_line(
    tmp_path: Path, replaced: dict[str, object]
) -> None:
    root, results = _ledger_world(tmp_path)
    results.mkdir(exist_ok=True)
    record = json.loads(run.ledger_of("pkg/mod.py", _mutants(), "0" * 64, "abc1234", "2026-12-02"))
    record.update(replaced)
    run.ledger_path("pkg/mod.py", results).write_text(json.dumps(record), encoding="utf-8")
    try:
        mutants, note = run.ledger_results("pkg/mod.py", [], results, root)
    except run.MapError as err:
        assert "\n" not in str(err)
    else:
        assert mutants == [] and note.startswith("not run on this source")  # hash "000..."


def test_every_kept_ledger_is_readable_and_names_a_mapped_module() -> None:
    for path in sorted((ROOT / "mutation" / "results").glob("*.json")):
        module = json.loads(path.read_text(encoding="utf-8"))["module"]
        assert module in MAPPING.modules, path.name
        assert run.ledger_path(module) == path
        run.read_ledger(module)  # raises on a damaged ledger


def test_the_figures_row_says_how_many_modules_it_covers() -> None:
    mutants = [
        run.Mutant(str(i), "m.py", "f", k) for i, k in enumerate(["killed"] * 19 + ["survived"])
    ]
    row = run.figures_row("drivers", "3/15", mutants, 95, "2026-12-02, abc1234")
    assert row == "| drivers | 3/15 | 20 | 19 | 0 | 1 | 0 | 0 | 95.0% | 95% | 2026-12-02, abc1234 |"
    assert row.count("|") == run.FIGURES_HEADER.splitlines()[0].count("|")


# --- resuming from a ledger: a fresh work folder starts from the detected mutants -----------


def _work_with_results(work: Path, codes: dict[str, int | None], hashes: dict[str, str]) -> None:
    """A work folder of pkg/mod.py holding mutmut's results (its meta file) as given."""
    meta = work / "pkg.mod" / "mutants" / "pkg" / "mod.py.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(
        json.dumps(
            {
                "exit_code_by_key": codes,
                "hash_by_function_name": hashes,
                "type_check_error_by_key": {},
                "durations_by_key": {},
                "estimated_durations_by_key": {},
            }
        ),
        encoding="utf-8",
    )


def test_a_fresh_work_folder_starts_from_the_mutants_the_ledgers_run_detected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worked by hand: f's mutants 1-3 and 7 killed (exit 1, 3), 5 timed out (36), 4
    survived (0), 6 unchecked; g's 1 killed; h's only mutant survived. The ledger keeps f's
    and g's hashes with 1-3,7 / 5 and 1; a fresh folder starts with exactly those, in
    mutmut's own codes, and runs the rest (4 and 6 of f, h's, anything of a changed
    function: mutmut's hash check)."""
    _root, results = _ledger_world(tmp_path)
    monkeypatch.setattr(run, "WORK", tmp_path / "work")
    codes = {"f": [1, 1, 3, 0, 36, None, 1], "g": [1], "h": [0]}
    _work_with_results(
        tmp_path / "work",
        {f"pkg.mod.x_{fn}__mutmut_{i}": c for fn, cs in codes.items() for i, c in enumerate(cs, 1)},
        {"x_f": "aaaa", "x_g": "bbbb", "x_h": "cccc"},
    )
    resume = run.resume_of("pkg/mod.py")
    assert resume == {
        "x_f": {"hash": "aaaa", "killed": "1-3,7", "timeout": "5"},
        "x_g": {"hash": "bbbb", "killed": "1"},
    }
    results.mkdir()
    run.ledger_path("pkg/mod.py", results).write_text(
        run.ledger_of("pkg/mod.py", _mutants(), "0" * 64, "abc1234", "2026-12-03", resume=resume),
        encoding="utf-8",
    )
    # Another clone: no work folder.
    monkeypatch.setattr(run, "WORK", tmp_path / "elsewhere")
    assert run.seed_from_ledger("pkg/mod.py", results) == 6
    meta = json.loads(run.meta_path("pkg/mod.py").read_text(encoding="utf-8"))
    assert meta["exit_code_by_key"] == {
        "pkg.mod.x_f__mutmut_1": 1,
        "pkg.mod.x_f__mutmut_2": 1,
        "pkg.mod.x_f__mutmut_3": 1,
        "pkg.mod.x_f__mutmut_7": 1,
        "pkg.mod.x_f__mutmut_5": 36,
        "pkg.mod.x_g__mutmut_1": 1,
    }
    assert meta["hash_by_function_name"] == {"x_f": "aaaa", "x_g": "bbbb"}
    # A folder with results of its own keeps them: nothing is seeded over them.
    run.meta_path("pkg/mod.py").write_text(
        run.meta_path("pkg/mod.py").read_text().replace('"x_g": "bbbb"', '"x_g": "dddd"')
    )
    assert run.seed_from_ledger("pkg/mod.py", results) == 0
    assert '"x_g": "dddd"' in run.meta_path("pkg/mod.py").read_text()


def test_a_ledger_of_other_mutation_rules_seeds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another rule set numbers a function's mutants otherwise: its numbers would pin old
    results on new mutants."""
    _, results = _ledger_world(tmp_path)
    results.mkdir()
    monkeypatch.setattr(run, "WORK", tmp_path / "work")
    resume = {"x_f": {"hash": "aaaa", "killed": "1-2"}}
    record = json.loads(
        run.ledger_of("pkg/mod.py", _mutants(), "0" * 64, "abc", "2026-12-03", resume=resume)
    )
    record["rules"] = ["something else"]
    run.ledger_path("pkg/mod.py", results).write_text(json.dumps(record), encoding="utf-8")
    assert run.seed_from_ledger("pkg/mod.py", results) == 0
    assert not run.meta_path("pkg/mod.py").exists()
    record["rules"] = list(run.DO_NOT_MUTATE)
    run.ledger_path("pkg/mod.py", results).write_text(json.dumps(record), encoding="utf-8")
    assert run.seed_from_ledger("pkg/mod.py", results) == 2


@pytest.mark.parametrize(
    "resume",
    [
        {"x_f": {"killed": "1"}},  # no hash
        {"x_f": {"hash": "a", "survived": "1"}},  # a kind never seeded
        {"x_f": {"hash": "a", "killed": "3-1"}},
        {"x_f": {"hash": "a", "killed": "0"}},
        {"x_f": {"hash": "a", "killed": "one"}},
        {"x_f": "aaaa"},
        ["x_f"],
    ],
)
def test_a_damaged_resume_is_one_line_naming_the_ledger(tmp_path: Path, resume: object) -> None:
    root, results = _ledger_world(tmp_path)
    results.mkdir()
    record = json.loads(run.ledger_of("pkg/mod.py", _mutants(), "0" * 64, "abc", "2026-12-03"))
    record["resume"] = resume
    run.ledger_path("pkg/mod.py", results).write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(run.MapError) as caught:
        run.ledger_results("pkg/mod.py", [], results, root)
    assert str(caught.value).startswith("pkg.mod.json: ") and "\n" not in str(caught.value)


@given(st.sets(st.integers(min_value=1, max_value=400), max_size=60))
def test_mutant_numbers_round_trip_through_their_ranges(numbers: set[int]) -> None:
    text = run._ranges(numbers)
    assert run._numbers(text) == sorted(numbers)
    # Each number once, as a single or inside one run: never two runs that touch.
    runs = [tuple(map(int, part.split("-"))) for part in filter(None, text.split(","))]
    assert all(b[0] > a[-1] + 1 for a, b in itertools.pairwise(runs))


# --- which tests reach a function: recorded again once code or tests change ---------------


def test_the_record_of_which_tests_reach_a_function_is_dropped_once_code_or_tests_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mutmut reuses mutants/mutmut-stats.json and adds only new tests to it: a function
    added since would be reached by those alone (a run of drivers/device_link.py credited
    its new ``_drain_into`` to one test of 120 and reported 67 false survivors). The
    runner drops the record whenever a Python file of the product or the tests changed."""
    monkeypatch.setattr(run, "WORK", tmp_path / "work")
    root = tmp_path / "clone"
    for name, text in (
        ("drivers/link.py", "def f():\n    return 1\n"),
        ("tests/test_link.py", "def test_f():\n    pass\n"),
        ("pyproject.toml", "[project]\n"),
        ("mutation/map.toml", "[modules]\n"),
    ):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    stats = run.work_folder("drivers/link.py") / "mutants" / "mutmut-stats.json"

    def recorded() -> None:  # what mutmut's stats run leaves behind
        stats.parent.mkdir(parents=True, exist_ok=True)
        stats.write_text("{}", encoding="utf-8")

    # No record yet: nothing to drop (mutmut records one over every listed test).
    assert run.forget_stale_reach("drivers/link.py", root) is False
    recorded()
    # Nothing changed: the record stands, so a resumed run does not record it again.
    assert run.forget_stale_reach("drivers/link.py", root) is False
    assert stats.exists()
    for changed in ("tests/test_link.py", "drivers/link.py", "drivers/other.py"):
        (root / changed).write_text("def g():\n    return 2\n", encoding="utf-8")
        assert run.forget_stale_reach("drivers/link.py", root) is True, changed
        assert not stats.exists()
        recorded()
        assert run.forget_stale_reach("drivers/link.py", root) is False
    # A record made before the runner kept its stamp (or by hand) is dropped too.
    (run.work_folder("drivers/link.py") / "reach.sha256").unlink()
    assert run.forget_stale_reach("drivers/link.py", root) is True
    # Files that decide nothing about a test's path (a cache, a text file) change nothing.
    recorded()
    (root / "drivers" / "__pycache__").mkdir()
    (root / "drivers" / "__pycache__" / "link.cpython-311.pyc").write_bytes(b"\0")
    (root / "drivers" / "notes.txt").write_text("x", encoding="utf-8")
    assert run.forget_stale_reach("drivers/link.py", root) is False
