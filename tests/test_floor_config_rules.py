"""``floor.toml`` (``floor.config``) rule by rule, without a server: what a bare file gives,
both sides of every limit, every refusal as the one line ``FILE: key.path: what is wrong``,
relative paths taken from the file's directory; hypothesis over whole documents.

tests/test_floor_config.py holds the shipped example and the floor commands' refusal.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.journal.seal import new_sealing
from controller.service.config_schema import ConfigError
from floor.casino import Casino
from floor.config import (
    Broker,
    FloorConfig,
    Monitor,
    User,
    config_error,
    load_floor_config,
    parse_floor_config,
)

SOURCE = Path("/etc/floor/floor.toml")
HASH = "scrypt$1024$8$1$c2FsdA==$aGFzaA=="
BARE: dict[str, Any] = {
    "broker": {"host": "broker.lan", "username": "c1", "password_file": "pw", "ca_file": "ca.pem"},
    "database": {"conninfo": "dbname=floor"},
}


def parse(**sections: Any) -> FloorConfig:
    data = copy.deepcopy(BARE)
    for name, value in sections.items():
        if value is ...:
            del data[name]
        elif isinstance(value, dict) and isinstance(data.get(name), dict):
            data[name].update(value)
        else:
            data[name] = value
    return parse_floor_config(data, SOURCE)


def refused(**sections: Any) -> str:
    with pytest.raises(ConfigError) as raised:
        parse(**sections)
    line = str(raised.value)
    assert "\n" not in line and line.startswith(f"{SOURCE}: ")
    return line.removeprefix(f"{SOURCE}: ")


def test_a_bare_file_takes_every_default() -> None:
    config = parse()
    assert config == FloorConfig(
        source=SOURCE,
        broker=Broker(
            host="broker.lan",
            port=8884,
            username="c1",
            password_file=Path("/etc/floor/pw"),  # from the file's directory
            ca_file=Path("/etc/floor/ca.pem"),
            client_id="c1",
            share_group="collectors",
            mount_point="station/",
        ),
        conninfo="dbname=floor",
        batch_messages=200,
        monitor=Monitor(),
        verify_keys={},
        casino=Casino(),
        max_message_bytes=4 << 20,
        clock_tolerance=120.0,
    )
    assert Monitor() == Monitor("127.0.0.1", 8021, None, {}, 30.0, False)


def test_without_tls_the_plain_port_and_no_ca_file() -> None:
    data = copy.deepcopy(BARE)
    del data["broker"]["ca_file"]
    data["broker"]["tls"] = False
    plain = parse_floor_config(data, SOURCE).broker
    assert (plain.port, plain.ca_file) == (1883, None)
    # A CA file the plain port would not use is refused, not ignored.
    assert refused(broker={"tls": False}) == "broker.ca_file: unknown key"
    data["broker"]["port"] = 1884
    assert parse_floor_config(data, SOURCE).broker.port == 1884
    assert parse(broker={"tls": True}).broker.port == 8884
    assert (
        refused(broker={"tls": "yes"}) == "broker.tls: expected true or false, got a string ('yes')"
    )


def test_every_broker_field_is_read() -> None:
    broker = parse(
        broker={"host": "10.0.0.5", "port": 1, "client_id": "collector.a_b-1", "share_group":
                "g_1-x", "mount_point": "a/b_c-d/", "password_file": "/abs/pw"}
    ).broker  # fmt: skip
    assert (broker.host, broker.port, broker.client_id) == ("10.0.0.5", 1, "collector.a_b-1")
    assert (broker.share_group, broker.mount_point) == ("g_1-x", "a/b_c-d/")
    assert broker.password_file == Path("/abs/pw")
    assert parse(broker={"port": 65535}).broker.port == 65535
    assert parse(broker={"username": "u" * 64}).broker.client_id == "u" * 64
    assert parse(broker={"share_group": "g" * 32}).broker.share_group == "g" * 32
    assert parse(broker={"share_group": "Floor_A-1"}).broker.share_group == "Floor_A-1"
    assert parse(broker={"mount_point": ""}).broker.mount_point == ""


def test_the_password_is_the_files_first_line(tmp_path: Path) -> None:
    (tmp_path / "pw").write_text("s3cret\nsecond line\n")
    broker = parse_floor_config(BARE, tmp_path / "floor.toml").broker
    assert broker.password() == "s3cret"


@pytest.mark.parametrize(
    ("sections", "line"),
    [
        ({"broker": ...}, "broker: missing (required table)"),
        ({"broker": "x"}, "broker: expected a table, got a string ('x')"),
        ({"broker": {"host": ""}}, "broker.host: '' is not a host name or address"),
        ({"broker": {"host": "  "}}, "broker.host: '  ' is not a host name or address"),
        ({"broker": {"host": "a\tb"}}, "broker.host: 'a\\tb' is not a host name or address"),
        ({"broker": {"host": "a "}}, "broker.host: 'a ' is not a host name or address"),
        ({"broker": {"port": 0}}, "broker.port: 0 is not a TCP port (1-65535)"),
        ({"broker": {"port": 65536}}, "broker.port: 65536 is not a TCP port (1-65535)"),
        ({"broker": {"port": "8884"}}, "broker.port: expected an integer, got a string ('8884')"),
        (
            {"broker": {"username": "u" * 65}},
            f"broker.username: '{'u' * 65}': use 1-64 letters, digits, '.', '_', '-'",
        ),
        (
            {"broker": {"username": "a b"}},
            "broker.username: 'a b': use 1-64 letters, digits, '.', '_', '-'",
        ),
        (
            {"broker": {"client_id": ""}},
            "broker.client_id: '': use 1-64 letters, digits, '.', '_', '-'",
        ),
        ({"broker": {"client_id": "c" * 65}}, f"broker.client_id: '{'c' * 65}': use 1-64"),
        (
            {"broker": {"share_group": "g" * 33}},
            f"broker.share_group: '{'g' * 33}': use 1-32 letters, digits, '_', '-'",
        ),
        ({"broker": {"share_group": ""}}, "broker.share_group: '': use 1-32"),
        ({"broker": {"share_group": "a.b"}}, "broker.share_group: 'a.b': use 1-32"),
        (
            {"broker": {"mount_point": "Station/"}},
            "broker.mount_point: 'Station/': empty, or words of a-z 0-9 _ - each ending in '/'",
        ),
        ({"broker": {"mount_point": "a//"}}, "broker.mount_point: 'a//': empty, or words"),
        ({"broker": {"password_file": ""}}, "broker.password_file: not a file path"),
        ({"broker": {"password_file": "a\x00"}}, "broker.password_file: not a file path"),
        ({"broker": {"ca_file": ""}}, "broker.ca_file: not a file path"),
        ({"broker": {"colour": 1}}, "broker.colour: unknown key"),
        ({"database": ...}, "database: missing (required table)"),
        ({"database": {"conninfo": 5}}, "database.conninfo: expected a string, got an integer (5)"),
        (
            {"database": {"conninfo": "dbname"}},
            'database.conninfo: missing "=" after "dbname" in connection info string',
        ),
        ({"database": {"pool": 1}}, "database.pool: unknown key"),
        ({"collector": {"batch_messages": 0}}, "collector.batch_messages: 0 is not 1-10000"),
        (
            {"collector": {"batch_messages": 10_001}},
            "collector.batch_messages: 10001 is not 1-10000",
        ),
        (
            {"collector": {"max_message_bytes": 65_535}},
            "collector.max_message_bytes: 65535 is not 65536-268435456",
        ),
        (
            {"collector": {"max_message_bytes": 268_435_457}},
            "collector.max_message_bytes: 268435457 is not 65536-268435456",
        ),
        (
            {"collector": {"clock_tolerance_seconds": 0}},
            "collector.clock_tolerance_seconds: 0 is not 1-86400",
        ),
        (
            {"collector": {"clock_tolerance_seconds": 86_401}},
            "collector.clock_tolerance_seconds: 86401 is not 1-86400",
        ),
        ({"collector": {"threads": 2}}, "collector.threads: unknown key"),
        ({"monitor": {}}, "monitor.session_key_file: missing (required)"),
        (
            {"monitor": {"session_key_file": "k", "port": 0}},
            "monitor.port: 0 is not a TCP port (1-65535)",
        ),
        (
            {"monitor": {"session_key_file": "k", "port": 65536}},
            "monitor.port: 65536 is not a TCP port (1-65535)",
        ),
        ({"monitor": {"session_key_file": ""}}, "monitor.session_key_file: not a file path"),
        (
            {"monitor": {"session_key_file": "k", "silent_after_seconds": 1}},
            "monitor.silent_after_seconds: 1 is not 2-3600",
        ),
        (
            {"monitor": {"session_key_file": "k", "silent_after_seconds": 3601}},
            "monitor.silent_after_seconds: 3601 is not 2-3600",
        ),
        (
            {"monitor": {"session_key_file": "k", "secure_cookies": 1}},
            "monitor.secure_cookies: expected true or false, got an integer (1)",
        ),
        (
            {"monitor": {"session_key_file": "k", "listen": 1}},
            "monitor.listen: expected a string, got an integer (1)",
        ),
        (
            {"monitor": {"session_key_file": "k", "users": {"Pat": {}}}},
            "monitor.users.Pat: a user name is 1-32 of a-z 0-9 _ . -",
        ),
        (
            {"monitor": {"session_key_file": "k", "users": {"p" * 33: {}}}},
            f"monitor.users.{'p' * 33}: a user name is 1-32",
        ),
        (
            {"monitor": {"session_key_file": "k", "users": {"1p": {}}}},
            "monitor.users.1p: a user name is 1-32",
        ),
        (
            {"monitor": {"session_key_file": "k", "users": {"pat": "x"}}},
            "monitor.users.pat: expected a table, got a string ('x')",
        ),
        (
            {"monitor": {"session_key_file": "k", "users": {"pat": {"password_hash": HASH}}}},
            "monitor.users.pat.role: missing (required)",
        ),
        (
            {
                "monitor": {
                    "session_key_file": "k",
                    "users": {"pat": {"role": "dealer", "password_hash": HASH}},
                }
            },
            "monitor.users.pat.role: 'dealer' is not one of pit_supervisor, surveillance",
        ),
        (
            {
                "monitor": {
                    "session_key_file": "k",
                    "users": {"pat": {"role": "surveillance", "password_hash": "pbkdf2$x"}},
                }
            },
            "monitor.users.pat.password_hash: not a hash from 'floor hash-password'",
        ),
        (
            {
                "monitor": {
                    "session_key_file": "k",
                    "users": {"pat": {"role": "surveillance", "password_hash": HASH, "x": 1}},
                }
            },
            "monitor.users.pat.x: unknown key",
        ),
        ({"monitor": {"session_key_file": "k", "colour": 1}}, "monitor.colour: unknown key"),
        ({"tables": {"T1": {}}}, "tables.T1.verify_key: missing (required)"),
        ({"tables": {"T1": "key"}}, "tables.T1: expected a table, got a string ('key')"),
        ({"colour": 1}, "colour: unknown key"),
    ],
)
def test_each_refusal_is_the_one_line_naming_its_key(sections: dict[str, Any], line: str) -> None:
    assert refused(**sections).startswith(line)


def test_the_limits_take_both_ends() -> None:
    assert parse(collector={"batch_messages": 1}).batch_messages == 1
    assert parse(collector={"batch_messages": 10_000}).batch_messages == 10_000
    assert parse(collector={"max_message_bytes": 65_536}).max_message_bytes == 65_536
    assert parse(collector={"max_message_bytes": 268_435_456}).max_message_bytes == 268_435_456
    assert parse(collector={"clock_tolerance_seconds": 1}).clock_tolerance == 1.0
    assert parse(collector={"clock_tolerance_seconds": 86_400}).clock_tolerance == 86_400.0
    for seconds in (2, 3600):
        monitor = parse(monitor={"session_key_file": "k", "silent_after_seconds": seconds}).monitor
        assert monitor.silent_after == float(seconds)
    for port in (1, 65535):
        assert parse(monitor={"session_key_file": "k", "port": port}).monitor.port == port


def test_the_monitor_and_its_users_are_read() -> None:
    users = {
        "pat": {"role": "pit_supervisor", "password_hash": HASH},
        "s.am_1-x": {"role": "surveillance", "password_hash": HASH + "2"},
        "p" * 32: {"role": "surveillance", "password_hash": HASH},
    }
    monitor = parse(
        monitor={"listen": "0.0.0.0", "port": 8443, "session_key_file": "keys/session",
                 "silent_after_seconds": 45, "secure_cookies": True, "users": users}
    ).monitor  # fmt: skip
    assert monitor == Monitor(
        listen="0.0.0.0",
        port=8443,
        session_key_file=Path("/etc/floor/keys/session"),
        users={
            "pat": User("pat", "pit_supervisor", HASH),
            "s.am_1-x": User("s.am_1-x", "surveillance", HASH + "2"),
            "p" * 32: User("p" * 32, "surveillance", HASH),
        },
        silent_after=45.0,
        secure_cookies=True,
    )
    bare = parse(monitor={"session_key_file": "k"}).monitor
    assert bare == Monitor("127.0.0.1", 8021, Path("/etc/floor/k"), {}, 30.0, False)


def test_a_verification_key_is_kept_for_its_own_table_only() -> None:
    _state, key = new_sealing("T1")
    text = key.to_text()
    assert parse(tables={"T1": {"verify_key": text}}).verify_keys == {"T1": text}
    assert refused(tables={"T2": {"verify_key": text}}) == (
        "tables.T2.verify_key: the key is for table 'T1'"
    )
    assert refused(tables={"T1": {"verify_key": text, "x": 1}}) == "tables.T1.x: unknown key"
    assert refused(tables={"T1": {"verify_key": "nonsense"}}).startswith("tables.T1.verify_key: ")


def test_the_casino_section_is_read() -> None:
    casino = parse(casino={"time_zone": "Asia/Tokyo", "pits": {"P": ["T1"]}}).casino
    assert casino.time_zone == "Asia/Tokyo" and casino.pit_of("T1") == "P"
    assert refused(casino={"x": 1}) == "casino.x: unknown key"


def test_a_file_is_read_from_disk_or_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "floor.toml"
    path.write_text(
        '[broker]\nhost = "b"\nusername = "u"\npassword_file = "pw"\nca_file = "ca"\n'
        '[database]\nconninfo = "dbname=floor"\n'
    )
    config = load_floor_config(str(path))
    assert config.source == path and config.broker.password_file == tmp_path / "pw"
    path.write_text("[broker\n")
    with pytest.raises(ConfigError) as raised:
        load_floor_config(path)
    assert str(raised.value).startswith(f"{path}: ") and "\n" not in str(raised.value)


def test_a_later_check_is_the_same_one_line() -> None:
    error = config_error(SOURCE, "monitor.session_key_file", "unreadable")
    assert isinstance(error, ConfigError)
    assert str(error) == f"{SOURCE}: monitor.session_key_file: unreadable"


VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 300_000_000) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
KEYS = {
    "broker": ["host", "port", "tls", "username", "password_file", "ca_file", "client_id",
               "share_group", "mount_point", "x"],
    "collector": ["batch_messages", "max_message_bytes", "clock_tolerance_seconds", "x"],
    "monitor": ["listen", "port", "session_key_file", "silent_after_seconds", "secure_cookies",
                "users", "x"],
}  # fmt: skip


@given(st.data())
def test_any_values_give_a_configuration_or_one_line(data: st.DataObject) -> None:
    section = data.draw(st.sampled_from(sorted(KEYS)))
    values = data.draw(st.dictionaries(st.sampled_from(KEYS[section]), VALUES, max_size=4))
    try:
        config = parse(**{section: values})
    except ConfigError as err:
        assert "\n" not in str(err) and str(err).startswith(f"{SOURCE}: ")
    else:
        assert 1 <= config.broker.port <= 65535 and 1 <= config.monitor.port <= 65535
        assert 1 <= config.batch_messages <= 10_000
        assert 65_536 <= config.max_message_bytes <= 268_435_456
        assert 1 <= config.clock_tolerance <= 86_400 and 2 <= config.monitor.silent_after <= 3600
