"""The ``[floor]`` section of station.toml (``controller.service.config_floor``): the
example's section is valid once enabled; bad values are one line naming the key."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.service.config import parse_config
from controller.service.config_schema import ConfigError

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "station.toml"
SOURCE = Path("/etc/dealer-station/station.toml")


def with_floor() -> dict[str, Any]:
    """The example with its [floor] section enabled as its comment says."""
    text = re.sub(r"(?m)^#(\[floor\]|[a-z_]+ = )", r"\1", EXAMPLE.read_text())
    return tomllib.loads(text)


def test_the_examples_floor_section_is_valid() -> None:
    floor = parse_config(with_floor(), SOURCE).floor
    assert floor is not None
    assert (floor.host, floor.port, floor.username) == (
        "floor-broker.casino.lan",
        8883,
        "PA-S21-07",
    )
    assert floor.ca_file == Path("/etc/dealer-station/floor-ca.pem")
    assert floor.password_file == Path("/etc/dealer-station/floor-password")
    assert (floor.batch_rows, floor.ack_timeout, floor.status_interval) == (500, 5.0, 5.0)
    assert parse_config(tomllib.loads(EXAMPLE.read_text()), SOURCE).floor is None


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("port", 0, "floor.port: 0 is not a TCP port"),
        ("port", 65536, "floor.port: 65536 is not a TCP port"),
        ("broker", "", "floor.broker: '' is not a host"),
        ("username", " ", "floor.username: empty"),
        ("ca_file", ..., "floor.ca_file: missing (required)"),
        ("batch_rows", 0, "floor.batch_rows: 0 is not 1-5000"),
        ("batch_rows", 5001, "floor.batch_rows: 5001 is not 1-5000"),
        ("ack_timeout_seconds", 0, "floor.ack_timeout_seconds: 0 is not 1-600"),
        ("ack_timeout_seconds", 601, "floor.ack_timeout_seconds: 601 is not 1-600"),
        ("status_interval_seconds", 0, "floor.status_interval_seconds: 0 is not 1-600"),
        ("tls", "yes", "floor.tls: expected true or false"),
        ("qos", 2, "floor.qos: unknown key"),
    ],
)
def test_bad_values_name_the_key(key: str, value: object, expected: str) -> None:
    data = with_floor()
    if value is ...:
        del data["floor"][key]
    else:
        data["floor"][key] = value
    with pytest.raises(ConfigError) as caught:
        parse_config(data, SOURCE)
    assert "\n" not in str(caught.value) and expected in str(caught.value)


def test_without_tls_no_ca_file() -> None:
    data = with_floor()
    data["floor"]["tls"] = False
    with pytest.raises(ConfigError, match=r"floor\.ca_file: set, but tls = false"):
        parse_config(data, SOURCE)
    del data["floor"]["ca_file"]
    floor = parse_config(data, SOURCE).floor
    assert floor is not None and floor.ca_file is None and floor.port == 1883


VALUES = st.none() | st.booleans() | st.integers(-10, 70_000) | st.text(max_size=8)


@given(st.dictionaries(st.sampled_from(["broker", "port", "tls", "ca_file", "username",
                                        "password_file", "batch_rows", "ack_timeout_seconds",
                                        "x"]), VALUES))  # fmt: skip
def test_any_floor_section_gives_settings_or_one_line(section: dict[str, object]) -> None:
    data = with_floor()
    data["floor"] = section
    try:
        parse_config(data, SOURCE)
    except ConfigError as err:
        assert "\n" not in str(err)
