"""floor.toml (``floor.config``): the example is valid; a bad file is one line naming the
key; any document gives a configuration or that one line, nothing else."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.journal.seal import new_sealing
from controller.service.config_schema import ConfigError
from floor.auth import check_password, hash_password, may
from floor.config import load_floor_config, parse_floor_config

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "floor.toml"
SOURCE = Path("/etc/dealer-station/floor.toml")


def example() -> dict[str, Any]:
    return tomllib.loads(EXAMPLE.read_text())


def test_the_example_is_valid() -> None:
    config = load_floor_config(EXAMPLE)
    assert config.broker.port == 8884 and config.broker.share_group == "collectors"
    assert config.broker.username == config.broker.client_id == "collector-1"
    assert config.broker.ca_file == Path("/etc/dealer-station/floor-ca.pem")
    assert {u.role for u in config.monitor.users.values()} == {"pit_supervisor", "surveillance"}


def mutate(path: str, value: object) -> dict[str, Any]:
    data = copy.deepcopy(example())
    *parents, last = path.split(".")
    node = data
    for key in parents:
        node = node.setdefault(key, {})
    if value is ...:
        del node[last]
    else:
        node[last] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        ("broker.port", 0, "broker.port: 0 is not a TCP port"),
        ("broker.port", 65536, "broker.port: 65536 is not a TCP port"),
        ("broker.host", "two words", "broker.host: 'two words' is not a host"),
        ("broker.client_id", "two words", "broker.client_id: 'two words': use"),
        ("broker.username", "", "broker.username: '': use"),
        ("broker.username", ..., "broker.username: missing (required)"),
        ("broker.password_file", "", "broker.password_file: not a file path"),
        ("broker.password_file", "a\x00b", "broker.password_file: not a file path"),
        ("broker.mount_point", "station", "broker.mount_point: 'station': empty, or words"),
        ("broker.mount_point", "/", "broker.mount_point: '/': empty, or words"),
        ("database.conninfo", "host='", "database.conninfo: unterminated quoted string"),
        ("collector.max_message_bytes", 65535, "max_message_bytes: 65535 is not 65536-"),
        ("collector.max_message_bytes", 2**28 + 1, "max_message_bytes: 268435457 is not"),
        ("collector.clock_tolerance_seconds", 0, "clock_tolerance_seconds: 0 is not 1-86400"),
        ("collector.clock_tolerance_seconds", 86_401, "clock_tolerance_seconds: 86401 is not"),
        ("broker.share_group", "a/b", "broker.share_group: 'a/b': use"),
        ("broker.colour", "red", "broker.colour: unknown key"),
        ("database", ..., "database: missing (required table)"),
        ("collector.batch_messages", 0, "collector.batch_messages: 0 is not 1-10000"),
        ("collector.batch_messages", 10_001, "collector.batch_messages: 10001 is not 1-10000"),
        ("monitor.silent_after_seconds", 1, "monitor.silent_after_seconds: 1 is not 2-3600"),
        ("monitor.users.pat.role", "dealer", "monitor.users.pat.role: 'dealer' is not one of"),
        ("monitor.users.pat.password_hash", "hunter2", "password_hash: not a hash from"),
        ("tables.T1.verify_key", "ds1:T1:nonsense:ABCD", "tables.T1.verify_key: verification"),
    ],
)
def test_bad_values_name_the_key(path: str, value: object, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_floor_config(mutate(path, value), SOURCE)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{SOURCE}: ")
    assert expected in message


def test_the_limits_take_both_ends_and_the_defaults() -> None:
    low = parse_floor_config(mutate("collector.max_message_bytes", 65536), SOURCE)
    high = parse_floor_config(mutate("collector.max_message_bytes", 2**28), SOURCE)
    assert (low.max_message_bytes, high.max_message_bytes) == (65536, 2**28)
    edges = [
        parse_floor_config(mutate("collector.clock_tolerance_seconds", t), SOURCE)
        for t in (1, 86_400)
    ]
    assert [c.clock_tolerance for c in edges] == [1.0, 86_400.0]
    default = parse_floor_config(example(), SOURCE)  # no client_id, mount_point, limits
    # The broker names the client after its account (use_username_as_clientid).
    assert default.broker.client_id == default.broker.username
    assert default.broker.mount_point == "station/"
    assert (default.max_message_bytes, default.clock_tolerance) == (4 << 20, 120.0)
    bare = parse_floor_config(mutate("broker.mount_point", ""), SOURCE)
    assert bare.broker.mount_point == ""


def test_a_verification_key_must_be_the_tables_own() -> None:
    _state, key = new_sealing("T2")
    with pytest.raises(ConfigError, match=r"tables\.T1\.verify_key: the key is for table 'T2'"):
        parse_floor_config(mutate("tables.T1.verify_key", key.to_text()), SOURCE)
    assert parse_floor_config(mutate("tables.T2.verify_key", key.to_text()), SOURCE).verify_keys


VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 70_000) | st.text(max_size=6),
    lambda inner: st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@given(st.sampled_from(["broker", "database", "collector", "monitor", "tables"]), VALUES)
def test_any_section_gives_a_config_or_one_line(section: str, value: object) -> None:
    data = example()
    data[section] = value
    try:
        parse_floor_config(data, SOURCE)
    except ConfigError as err:
        assert "\n" not in str(err)


def test_passwords_are_scrypt_hashed_and_roles_limit_recall() -> None:
    stored = hash_password("correct horse", n=2**10)
    assert stored.startswith("scrypt$1024$8$1$") and "correct horse" not in stored
    assert check_password("correct horse", stored)
    assert not check_password("correct hors", stored)
    assert not check_password("correct horse", "scrypt$x$y$z$$")  # malformed: just False
    assert hash_password("same", n=2**10) != hash_password("same", n=2**10)  # salted
    assert may("surveillance", "recall") and not may("pit_supervisor", "recall")
    assert may("pit_supervisor", "grid") and not may(None, "grid")


def test_the_floor_commands_refuse_a_bad_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.cli.main import main

    bad = tmp_path / "floor.toml"
    bad.write_text("[broker]\nhost = 'x'\n")
    for action in ("collect", "serve", "migrate"):
        assert main(["floor", action, "--config", str(bad)]) == 2
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith(f"dealer-station floor: {bad}: broker.")
    assert main(["floor", "collect", "--config", str(tmp_path / "missing.toml")]) == 2
    assert "cannot read" in capsys.readouterr().err
