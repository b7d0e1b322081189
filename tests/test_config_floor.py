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


def floor_with(**keys: object) -> dict[str, Any]:
    data = with_floor()
    data["floor"].update(keys)
    return data


@pytest.mark.parametrize(
    ("key", "low", "high", "field"),
    [
        ("port", 1, 65535, "port"),
        ("batch_rows", 1, 5000, "batch_rows"),
        ("ack_timeout_seconds", 1, 600, "ack_timeout"),
        ("status_interval_seconds", 1, 600, "status_interval"),
    ],
)
def test_each_range_takes_both_its_ends_and_refuses_one_past_each(
    key: str, low: int, high: int, field: str
) -> None:
    for value in (low, high):
        floor = parse_config(floor_with(**{key: value}), SOURCE).floor
        assert floor is not None and getattr(floor, field) == value
    what = "is not a TCP port (1-65535)" if key == "port" else f"is not {low}-{high}"
    for value in (low - 1, high + 1):
        with pytest.raises(ConfigError) as caught:
            parse_config(floor_with(**{key: value}), SOURCE)
        assert str(caught.value) == f"{SOURCE}: floor.{key}: {value} {what}"


def test_the_timings_are_seconds_as_floats() -> None:
    floor = parse_config(floor_with(ack_timeout_seconds=7, status_interval_seconds=9), SOURCE).floor
    assert floor is not None
    assert (floor.ack_timeout, floor.status_interval) == (7.0, 9.0)
    assert isinstance(floor.ack_timeout, float) and isinstance(floor.status_interval, float)


@pytest.mark.parametrize("host", ["", " ", "floor broker", "broker\t", "\nbroker"])
def test_a_broker_that_is_empty_or_holds_a_space_is_refused(host: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(floor_with(broker=host), SOURCE)
    assert str(caught.value) == f"{SOURCE}: floor.broker: {host!r} is not a host name or address"


def test_an_empty_username_is_refused_in_one_line() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(floor_with(username=""), SOURCE)
    assert str(caught.value) == (
        f"{SOURCE}: floor.username: empty: name this station's account on the broker"
    )


def test_a_tls_port_left_out_is_8883_and_a_port_written_is_taken() -> None:
    data = with_floor()
    data["floor"].pop("port", None)
    floor = parse_config(data, SOURCE).floor
    assert floor is not None and floor.port == 8883
    data["floor"]["tls"] = False
    del data["floor"]["ca_file"]
    data["floor"]["port"] = 8884
    floor = parse_config(data, SOURCE).floor
    assert floor is not None and floor.port == 8884 and floor.ca_file is None


def test_relative_files_are_beside_the_configuration(tmp_path: Path) -> None:
    data = floor_with(password_file="secrets/pw", ca_file="ca.pem")
    source = tmp_path / "station.toml"
    floor = parse_config(data, source).floor
    assert floor is not None
    assert floor.password_file == tmp_path / "secrets" / "pw"
    assert floor.ca_file == tmp_path / "ca.pem"
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "pw").write_text("hunter2\n")
    assert floor.password() == "hunter2"


def test_the_batch_and_the_timings_have_their_documented_defaults() -> None:
    data = with_floor()
    for key in ("batch_rows", "ack_timeout_seconds", "status_interval_seconds"):
        data["floor"].pop(key, None)
    floor = parse_config(data, SOURCE).floor
    assert floor is not None
    assert (floor.batch_rows, floor.ack_timeout, floor.status_interval) == (500, 5.0, 5.0)
    assert floor.poll_interval == 0.05
