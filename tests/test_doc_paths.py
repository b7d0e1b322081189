"""Docs, docstrings and comments name modules that exist.

A path such as ``controller/table/play.py`` or ``hil_tests/test_soak.py`` must be a file;
a dotted name such as ``controller.rules.cards.card_from_codes`` must import and resolve,
attribute by attribute. A module moved without its docs fails here.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("controller", "drivers", "firmware_bridge", "floor", "bench", "hil_tests", "tests")
# Source files whose docstrings and comments are read too (tests/ holds stale names on purpose).
SOURCES = ("controller", "drivers", "firmware_bridge", "floor", "bench", "hil_tests")
PATH = re.compile(r"(?<![\w./-])((?:" + "|".join(PACKAGES) + r"|docs|systemd|examples)/[\w./-]*\w)")
DOTTED = re.compile(
    r"(?<![\w./-])((?:controller|drivers|firmware_bridge|floor)(?:\.[A-Za-z_]\w*)+)"
)
# In source, `drivers` and `floor` are also variable names: only these prefixes are modules.
DOTTED_IN_SOURCE = re.compile(r"(?<![\w./-])((?:controller|firmware_bridge)(?:\.[A-Za-z_]\w*)+)")
BARE_MODULE = re.compile(r"`(\w+\.py)`")


def documents() -> list[Path]:
    docs = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    docs += sorted(ROOT.glob("*/README.md"))
    docs += sorted((ROOT / "systemd").glob("*")) + sorted((ROOT / "examples").glob("*.toml"))
    sources = [p for pkg in SOURCES for p in sorted((ROOT / pkg).rglob("*.py"))]
    return [p for p in docs + sources if p.is_file()]


def resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def exists(path: str, doc: Path) -> bool:
    path = path.rstrip(".")
    candidates = [ROOT / path, doc.parent / path]
    return any(c.exists() or c.with_suffix(".py").exists() for c in candidates)


DOCS = documents()


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(ROOT)) for d in DOCS])
def test_named_modules_exist(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    missing = sorted({m for m in PATH.findall(text) if not exists(m, doc)})
    dotted = DOTTED_IN_SOURCE if doc.suffix == ".py" else DOTTED
    missing += sorted({m for m in dotted.findall(text) if not resolves(m)})
    if doc.suffix == ".md":
        names = {p.name for p in ROOT.rglob("*.py") if ".venv" not in p.parts}
        missing += sorted({m for m in BARE_MODULE.findall(text) if m not in names})
    assert not missing, f"{doc.relative_to(ROOT)} names what does not exist: {missing}"


def test_the_check_catches_a_stale_name(tmp_path: Path) -> None:
    assert not resolves("controller.journal_format")
    assert not resolves("controller.rules.cards.no_such_function")
    assert resolves("controller.rules.cards.parse_card")
    assert not exists("controller/resume.py", tmp_path / "x.md")
    assert exists("controller/table/recovery.py", tmp_path / "x.md")


def test_the_readme_names_every_debian_package_make_test_installs() -> None:
    """README's "Two commands" lists what `make test` installs on a fresh machine: each
    package of the Makefile's system-deps apt-get line is named there."""
    makefile = (ROOT / "Makefile").read_text()
    line = re.search(r"apt-get install -y --no-install-recommends ([^;]+);", makefile)
    assert line is not None
    packages = line.group(1).split()
    assert "ccache" in packages and "strace" in packages
    readme = (ROOT / "README.md").read_text()
    missing = [
        p for p in packages if not re.search(rf"(?<![\w.-]){re.escape(p)}(?![\w.-])", readme)
    ]
    assert missing == []
