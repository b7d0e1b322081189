"""Which rules engine a test run exercises, and the build that makes the compiled one.

``make unit`` runs the whole suite on the pure-Python modules, then the rules tests a second
time on the mypyc build (``PYTHONPATH=build/mypyc DEALER_STATION_EXPECT_COMPILED=1``): these
tests check that each run really loaded the build it claims, and that a plain install needs
no compiler.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
with (ROOT / "pyproject.toml").open("rb") as _f:
    COMPILED_SOURCES: list[str] = tomllib.load(_f)["tool"]["dealer-station"]["mypyc"]
EXPECT_COMPILED = os.environ.get("DEALER_STATION_EXPECT_COMPILED") == "1"


def _module(source: str) -> str:
    return source.removesuffix(".py").replace("/", ".")


def _is_extension(path: str | None) -> bool:
    return path is not None and path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


@pytest.mark.parametrize("source", COMPILED_SOURCES)
def test_each_listed_module_is_the_build_this_run_asked_for(source: str) -> None:
    module = importlib.import_module(_module(source))
    assert (ROOT / source).is_file()
    assert _is_extension(module.__file__) == EXPECT_COMPILED, module.__file__


# Modules the compiled build must leave as Python, and why (each broke a test when compiled).
STAY_PURE = {
    # SeatWager holds wagers as they arrive from outside: a compiled int field turns True
    # into 1 and refuses 12.5 with a TypeError, where the rules refuse both with a
    # WagerError (tests/test_rules_conformance.py; check_wager reads the fields untyped).
    "controller/rules/steps.py",
    # The table's WithheldCard subclasses SealedCard; a compiled class refuses a Python
    # subclass at run time (tests/test_recovery.py).
    "controller/rules/sealed.py",
    # Compiling it gave nothing measurable (190,837 against 190,966 hands/s with it), and a
    # compiled dataclass checks field types on replace(), where with_options reports its own
    # errors.
    "controller/rules/profiles.py",
}


@pytest.mark.parametrize("source", sorted(STAY_PURE))
def test_boundary_modules_stay_pure_python(source: str) -> None:
    assert (ROOT / source).is_file()
    assert source not in COMPILED_SOURCES
    assert not _is_extension(importlib.import_module(_module(source)).__file__)


def test_a_plain_install_builds_a_pure_python_wheel_without_a_compiler(tmp_path: Path) -> None:
    # CC=false: any attempt to compile C fails the build.
    env = {k: v for k, v in os.environ.items() if k != "DEALER_STATION_MYPYC"}
    env["CC"] = "false"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(tmp_path), str(ROOT)],
        check=True, env=env, cwd=tmp_path, timeout=240,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("dealer_station-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "controller/rules/round.py" in names
    assert not [n for n in names if _is_extension(n)]
    assert wheel.name.endswith("-py3-none-any.whl")


def test_setup_compiles_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("dealer_station_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)
    monkeypatch.delenv("DEALER_STATION_MYPYC", raising=False)
    assert setup.extensions() == []
    monkeypatch.setenv("DEALER_STATION_MYPYC", "0")
    assert setup.extensions() == []
    assert setup.compiled_modules() == COMPILED_SOURCES
