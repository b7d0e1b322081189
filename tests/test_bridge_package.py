"""Tests of the firmware_bridge package as a whole: its dependencies and its exports."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import firmware_bridge
from firmware_bridge import ProtocolError
from firmware_bridge import errors as bridge_errors

PACKAGE = Path(firmware_bridge.__file__).resolve().parent
# cryptography: the AEAD, HKDF and X25519 of firmware_bridge.auth (never hand-rolled).
ALLOWED = {"cobs", "cryptography", "firmware_bridge"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_bridge_imports_only_the_stdlib_cobs_and_cryptography() -> None:
    # Reusable by firmware authors and fuzzable: no serial, no USB, no controller, no drivers.
    for path in sorted(PACKAGE.glob("*.py")):
        foreign = imported_modules(path) - ALLOWED - sys.stdlib_module_names
        assert not foreign, f"{path.name} imports {sorted(foreign)}"


def test_every_error_is_a_protocol_error_with_a_builtin_leaf() -> None:
    leaves = [
        obj
        for obj in vars(bridge_errors).values()
        if isinstance(obj, type) and issubclass(obj, Exception) and obj is not ProtocolError
    ]
    assert len(leaves) >= 8
    for cls in leaves:
        assert issubclass(cls, ProtocolError)
        assert any(b in cls.__mro__ for b in (ValueError, ConnectionError, BufferError)), cls


def test_public_names_are_exported() -> None:
    for name in firmware_bridge.__all__:
        assert hasattr(firmware_bridge, name), name
