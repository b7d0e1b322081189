"""Hostile input at every ``dealer-station floor`` command: whatever ``floor.toml``, path
or stdin arrives, the answer is the documented status and one line on stderr, never a
traceback, never a file written. Hypothesis feeds every subcommand arbitrary bytes, text,
the example with a line changed, and each section of it replaced by anything."""

from __future__ import annotations

import io
import os
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from test_cli_hostile import (
    DEEP_TOML,
    HYPOTHESIS,
    assert_refused,
    invoke,
    listing,
    mutated_config,
    sandbox,
)

from controller.service.config_schema import ConfigError
from floor.config import load_floor_config

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "floor.toml"
EXAMPLE_LINES = EXAMPLE.read_text().splitlines()
#: Every action that reads floor.toml, with the arguments it needs.
ACTIONS = [
    ["collect"],
    ["serve"],
    ["migrate"],
    ["alerts"],
    ["release", "T1", "--reason", "checked"],
    ["clear-alert", "1", "--reason", "checked"],
]
#: No PostgreSQL listens here: a configuration that loads fails at the database, at once.
NOWHERE = 'conninfo = "host=/nonexistent/socket dbname=floor connect_timeout=2"'


FILES = st.one_of(
    st.binary(max_size=400),
    st.text(max_size=400).map(lambda t: t.encode("utf-8", "surrogatepass")),
    # The example, where no PostgreSQL listens, with a line changed.
    mutated_config([NOWHERE if x.startswith("conninfo =") else x for x in EXAMPLE_LINES]),
)


def _loads(path: Path) -> bool:
    try:
        load_floor_config(path)
    except ConfigError:
        return False
    return True


@HYPOTHESIS
@given(FILES)
@example(DEEP_TOML)
@example(b"[broker]\n" + b"a = " + b"{x = " * 3000 + b"1" + b"}" * 3000)
def test_every_floor_command_answers_any_file_in_one_line(content: bytes) -> None:
    with sandbox() as root:
        config = root / "floor.toml"
        config.write_bytes(content)
        loads = _loads(config)
        for action in ACTIONS:
            if action == ["serve"] and loads:
                continue  # a configuration that loads would serve the page until stopped
            result = invoke(["floor", action[0], "--config", str(config), *action[1:]])
            # 2: the file; 1: the database (nobody listens at the configured socket).
            assert_refused(result, {1, 2} if loads else {2})
        assert listing(root) == ["floor.toml"]


@pytest.mark.parametrize(
    "target", ["directory", "/dev/zero", "symlink to /dev/zero", "missing", "nul"]
)
@pytest.mark.parametrize("action", ACTIONS, ids=[a[0] for a in ACTIONS])
def test_a_config_path_that_is_no_file_is_one_line(target: str, action: list[str]) -> None:
    with sandbox() as root:
        path = {
            "directory": str(root),
            "/dev/zero": "/dev/zero",
            "missing": str(root / "x"),
            "symlink to /dev/zero": str(root / "link"),
            "nul": "floor\0.toml",
        }[target]
        if target.startswith("symlink"):
            os.symlink("/dev/zero", root / "link")
        status, out, err = invoke(["floor", action[0], "--config", path, *action[1:]])
        assert_refused((status, out, err), {2})
        assert out == []


def test_a_deeply_nested_floor_toml_is_one_line_for_collect_serve_and_migrate() -> None:
    with sandbox() as root:
        (root / "floor.toml").write_bytes(DEEP_TOML)
        for action in ("collect", "serve", "migrate"):
            status, _out, err = invoke(["floor", action, "--config", str(root / "floor.toml")])
            assert status == 2 and err == [f"dealer-station floor: {root}/floor.toml: (syntax):"
                                           " nested too deeply"]  # fmt: skip


def _hash_password(stdin: bytes) -> tuple[int, list[str], list[str]]:
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        return invoke(["floor", "hash-password"])
    finally:
        sys.stdin = saved


@HYPOTHESIS
@given(st.binary(max_size=64))
@example(b"\xff\xfe\xfd\xfc binary password\n")
@example(b"x" * 5000)
def test_hash_password_answers_any_stdin_in_one_line(stdin: bytes) -> None:
    status, out, err = _hash_password(stdin)
    if status == 0:
        assert err == [] and len(out) == 1 and out[0].startswith("scrypt$32768$8$1$")
        line = stdin.split(b"\n", 1)[0].decode().rstrip("\r")
        assert len(line) >= 8 and line.isprintable()
    else:
        assert_refused((status, out, err), {2})


def test_hash_password_refuses_binary_stdin_by_name() -> None:
    status, _out, err = _hash_password(b"\xff\xfe\xfd\xfc binary password\n")
    assert status == 2 and err == ["dealer-station floor: the password on stdin is not UTF-8 text"]


VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 70_000) | st.text(max_size=6),
    lambda inner: st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
SECTIONS = ["broker", "database", "collector", "monitor", "monitor.users", "monitor.users.pat",
            "tables", "tables.T1"]  # fmt: skip


@HYPOTHESIS
@given(st.sampled_from(SECTIONS), VALUES, st.sampled_from([None, *range(8)]))
def test_any_value_in_any_section_gives_a_config_or_one_line(
    section: str, value: object, key: int | None
) -> None:
    """Each section (and each key of it) replaced by anything: a configuration, or one
    ``ConfigError`` line."""
    from floor.config import parse_floor_config

    data = tomllib.loads(EXAMPLE.read_text())
    data.setdefault("tables", {})["T1"] = {"verify_key": "ds1:T1:x:y"}
    node = data
    *parents, last = section.split(".")
    for name in parents:
        node = node[name]
    if key is not None and isinstance(node.get(last), dict) and node[last]:
        names = sorted(node[last])
        node[last][names[key % len(names)]] = value
    else:
        node[last] = value
    try:
        parse_floor_config(data, Path("/etc/dealer-station/floor.toml"))
    except ConfigError as err:
        assert "\n" not in str(err)
