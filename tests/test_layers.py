"""Imports point one way (docs/design.md; the docstring of ``controller/__init__.py``).

``controller``: rules <- table <- journal <- service <- simulation <- cli. The table knows
devices only through ``drivers.hal``; only the service and the simulation build concrete
drivers. ``drivers`` may use ``controller.rules`` (card types) and ``firmware_bridge``;
``firmware_bridge`` imports no other package of the project and neither pyserial nor pyusb.
Every import counts, those inside functions included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("rules", "table", "journal", "service", "simulation", "cli")
PROJECT = ("controller", "drivers", "firmware_bridge", "floor")
FLOOR_MAY_USE = (
    "controller.journal",
    "controller.rules",
    "controller.service.config_schema",
    "controller.service.sdnotify",
)


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports, absolute names, wherever the import stands."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def allowed(importer: str, imported: str) -> bool:
    """May module ``importer`` (dotted) import ``imported`` (dotted)?"""
    top = imported.split(".", maxsplit=1)[0]
    if top not in PROJECT:
        if importer.startswith("controller.rules"):
            return top in {"__future__"} or _stdlib(top)
        if importer.startswith("firmware_bridge"):
            return top not in {"serial", "usb"}
        return True
    if importer.startswith("firmware_bridge"):
        return top == "firmware_bridge"
    if importer.startswith("drivers"):
        return top in {"drivers", "firmware_bridge"} or imported.startswith("controller.rules")
    if top == "floor":
        return importer.startswith("floor")
    if importer.startswith("floor"):
        # The floor reads the journal's format (and its recall, seals, wire format), the
        # rules and the TOML section reader; never the table, the daemon or the drivers.
        if importer == "floor.demo" and imported.startswith(
            ("controller.service", "controller.simulation.runner")
        ):
            return True  # the demo also plays eight stations (their shipper, their keys)
        return top == "floor" or imported.startswith(FLOOR_MAY_USE)
    layer = LAYERS.index(importer.split(".")[1])
    if top == "controller":
        parts = imported.split(".")
        if len(parts) == 1:
            return False  # `from controller import x`: name the package
        return parts[1] not in LAYERS or LAYERS.index(parts[1]) <= layer
    # drivers: the table and the journal see interfaces and events only.
    if layer <= LAYERS.index("journal"):
        return imported == "drivers" or imported.startswith(("drivers.hal", "drivers.errors"))
    return True


def _stdlib(name: str) -> bool:
    import sys

    return name in sys.stdlib_module_names


def modules(package: str) -> list[tuple[str, Path]]:
    base = ROOT / package
    out = []
    for path in sorted(base.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        out.append((".".join(rel.parts).removesuffix(".__init__"), path))
    return out


ALL = [m for p in ("controller", "drivers", "firmware_bridge", "floor") for m in modules(p)]


@pytest.mark.parametrize(("name", "path"), ALL, ids=[m for m, _ in ALL])
def test_imports_point_one_way(name: str, path: Path) -> None:
    if name == "controller":
        return
    wrong = sorted(i for i in imports_of(path) if not allowed(name, i))
    assert not wrong, f"{name} may not import {wrong}"


def test_every_controller_module_is_in_a_layer() -> None:
    loose = [p.name for p in (ROOT / "controller").glob("*.py") if p.name != "__init__.py"]
    assert loose == [], "controller/ holds packages only"
    for package in (ROOT / "controller").iterdir():
        if package.is_dir() and (package / "__init__.py").exists():
            assert package.name in LAYERS, f"controller/{package.name} is in no layer"
            doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text()))
            assert doc, f"controller/{package.name}/__init__.py says nothing of its job"


def test_the_checker_refuses_a_layer_crossed_the_wrong_way() -> None:
    assert not allowed("controller.table.play", "controller.journal.store")
    assert not allowed("controller.journal.store", "controller.service.config")
    assert not allowed("controller.service.daemon", "controller.cli.main")
    assert not allowed("controller.table.procedure", "drivers.shoe")
    assert not allowed("controller.rules.cards", "structlog")
    assert not allowed("firmware_bridge.link", "serial")
    assert not allowed("drivers.shoe", "controller.table.play")
    assert not allowed("controller.service.station", "floor.collector")
    assert not allowed("controller.service.shipper", "floor.ingest")
    assert not allowed("drivers.shoe", "floor.monitor")
    assert not allowed("floor.collector", "controller.service.shipper")
    assert not allowed("floor.monitor", "controller.table.procedure")
    assert not allowed("floor.ingest", "drivers.hal")
    assert allowed("floor.ingest", "controller.journal.format")
    assert allowed("floor.queries", "controller.journal.recall")
    assert allowed("controller.cli.main", "controller.rules.cards")
    assert allowed("controller.service.daemon", "drivers.shoe")
    assert allowed("controller.table.play", "drivers.hal")


def test_config_and_its_panel_section_do_not_import_each_other() -> None:
    panel = imports_of(ROOT / "controller/service/config_panel.py")
    assert "controller.service.config" not in panel


def test_the_station_process_never_loads_the_floor_side() -> None:
    """The daemon, the shipper and the command line (floor registered by name only) load
    no module of ``floor`` and none of its libraries (psycopg, starlette, uvicorn)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import controller.service.daemon, controller.service.shipper\n"
        "from controller.cli.main import build_parser\n"
        "build_parser(['run', '--help'])\n"
        "build_parser(['journal', 'recall'])\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in"
        " ('floor', 'psycopg', 'starlette', 'uvicorn')]\n"
        "print(loaded)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
