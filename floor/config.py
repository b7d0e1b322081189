"""``floor.toml``: the collector's and the monitor's configuration.

Read with ``tomllib`` and checked before anything starts; every problem is one line,
``FILE: key.path: what is wrong`` (the station's :class:`ConfigError`). Relative paths are
taken from the file's directory. ``examples/floor.toml`` documents every key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import psycopg
from psycopg.conninfo import conninfo_to_dict

from controller.journal.seal import SealError, VerificationKey
from controller.service.config_schema import ConfigError, Section, read_secret, read_toml
from floor.casino import Casino, parse_casino

ROLES: Final = ("pit_supervisor", "surveillance")
USER_NAME: Final = re.compile(r"[a-z][a-z0-9_.-]{0,31}")
#: A broker account or client id (mosquitto takes almost anything; we keep it plain).
ACCOUNT: Final = re.compile(r"[A-Za-z0-9._-]{1,64}")
MOUNT_POINT: Final = re.compile(r"([a-z0-9_-]+/)*")


@dataclass(frozen=True, slots=True)
class Broker:
    """The MQTT broker and the collector's account on it."""

    host: str
    port: int
    username: str
    password_file: Path
    ca_file: Path | None
    client_id: str
    share_group: str = "collectors"
    #: The prefix the broker's station listener puts before the stations' topics
    #: (mosquitto's ``mount_point``, ``floor/broker/mosquitto.conf``); "" for none.
    mount_point: str = "station/"

    def password(self) -> str:
        """The first line of the password file (raises OSError, one line)."""
        return read_secret(self.password_file)


@dataclass(frozen=True, slots=True)
class User:
    """A monitor login: a role and a password hash (``floor.auth``)."""

    name: str
    role: str
    password_hash: str


@dataclass(frozen=True, slots=True)
class Monitor:
    """Where the floor page listens and who may log in."""

    listen: str = "127.0.0.1"
    port: int = 8021
    session_key_file: Path | None = None
    users: dict[str, User] = field(default_factory=dict)
    silent_after: float = 30.0
    secure_cookies: bool = False


@dataclass(frozen=True, slots=True)
class FloorConfig:
    """The whole, checked ``floor.toml``."""

    source: Path
    broker: Broker
    conninfo: str
    batch_messages: int
    monitor: Monitor
    verify_keys: dict[str, str]
    # [casino]: time zone, gaming day, shifts and pits of the console (floor.casino).
    casino: Casino = field(default_factory=Casino)
    #: A message larger than this is refused unread and alerted (``[collector]``).
    max_message_bytes: int = 4 << 20
    #: How far a station's clock may run ahead of the collector's before its time is
    #: clamped and a ``clock`` alert raised.
    clock_tolerance: float = 120.0


def load_floor_config(path: Path | str) -> FloorConfig:
    """Read and check ``path``.

    Raises:
        ConfigError: for an unreadable file, bad TOML, an unknown key, a wrong type or a
            missing key; one line naming the file and the key.
    """
    path = Path(path)
    return parse_floor_config(read_toml(path), path)


def parse_floor_config(data: Mapping[str, Any], source: Path) -> FloorConfig:
    """Check an already parsed document (see :func:`load_floor_config`)."""
    base = source.parent
    top = Section(source, data)
    broker = _broker(_required(top, "broker"), base)
    database = _required(top, "database")
    conninfo = database.get("conninfo", str)
    try:
        conninfo_to_dict(conninfo)
    except psycopg.Error as err:
        raise database.error("conninfo", str(err).splitlines()[0]) from None
    database.done()
    collector = top.section("collector", required=False) or Section(source, {}, "collector")
    batch = collector.get("batch_messages", int, 200)
    if not 1 <= batch <= 10_000:
        raise collector.error("batch_messages", f"{batch} is not 1-10000")
    max_bytes = collector.get("max_message_bytes", int, 4 << 20)
    if not 64 << 10 <= max_bytes <= 256 << 20:
        raise collector.error("max_message_bytes", f"{max_bytes} is not 65536-268435456")
    tolerance = collector.get("clock_tolerance_seconds", int, 120)
    if not 1 <= tolerance <= 86_400:
        raise collector.error("clock_tolerance_seconds", f"{tolerance} is not 1-86400")
    collector.done()
    monitor = _monitor(top.section("monitor", required=False), source)
    keys: dict[str, str] = {}
    tables = top.section("tables", required=False)
    if tables is not None:
        for name in tables.data:
            table = _required(tables, name)
            text = table.get("verify_key", str)
            try:
                key = VerificationKey.from_text(text)
            except SealError as err:
                raise table.error("verify_key", str(err)) from None
            if key.table != name:
                raise table.error("verify_key", f"the key is for table {key.table!r}")
            keys[name] = text
            table.done()
    casino = parse_casino(top.section("casino", required=False))
    top.done()
    return FloorConfig(
        source, broker, conninfo, batch, monitor, keys, casino, max_bytes, float(tolerance)
    )


def _required(section: Section, name: str) -> Section:
    found = section.section(name, required=True)
    assert found is not None
    return found


def _broker(section: Section, base: Path) -> Broker:
    host = section.get("host", str)
    if not host.strip() or any(c.isspace() for c in host):
        raise section.error("host", f"{host!r} is not a host name or address")
    tls = section.get("tls", bool, True)
    # The collectors' listener of the shipped broker configuration (floor/broker).
    port = section.get("port", int, 8884 if tls else 1883)
    if not 1 <= port <= 65535:
        raise section.error("port", f"{port} is not a TCP port (1-65535)")
    username = section.get("username", str)
    if not ACCOUNT.fullmatch(username):
        raise section.error("username", f"{username!r}: use 1-64 letters, digits, '.', '_', '-'")
    password_file = _path(section, "password_file", base)
    ca_file = _path(section, "ca_file", base) if tls else None
    # The shipped broker configuration makes the account name the client id
    # (use_username_as_clientid), so that no client can take over another's connection.
    client_id = section.get("client_id", str, username)
    if not ACCOUNT.fullmatch(client_id):
        raise section.error("client_id", f"{client_id!r}: use 1-64 letters, digits, '.', '_', '-'")
    group = section.get("share_group", str, "collectors")
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", group):
        raise section.error("share_group", f"{group!r}: use 1-32 letters, digits, '_', '-'")
    mount = section.get("mount_point", str, "station/")
    if not MOUNT_POINT.fullmatch(mount):
        raise section.error(
            "mount_point", f"{mount!r}: empty, or words of a-z 0-9 _ - each ending in '/'"
        )
    section.done()
    return Broker(host, port, username, password_file, ca_file, client_id, group, mount)


def _path(section: Section, name: str, base: Path) -> Path:
    text = section.get(name, str)
    if not text or "\x00" in text:
        raise section.error(name, "not a file path")
    return base / text


def _monitor(section: Section | None, source: Path) -> Monitor:
    if section is None:
        return Monitor()
    listen = section.get("listen", str, "127.0.0.1")
    port = section.get("port", int, 8021)
    if not 1 <= port <= 65535:
        raise section.error("port", f"{port} is not a TCP port (1-65535)")
    key_file = _path(section, "session_key_file", source.parent)
    silent = section.get("silent_after_seconds", int, 30)
    if not 2 <= silent <= 3600:
        raise section.error("silent_after_seconds", f"{silent} is not 2-3600")
    secure = section.get("secure_cookies", bool, False)
    users: dict[str, User] = {}
    users_section = section.section("users", required=False)
    if users_section is not None:
        for name in users_section.data:
            if not USER_NAME.fullmatch(name):
                raise users_section.error(name, "a user name is 1-32 of a-z 0-9 _ . -")
            user = _required(users_section, name)
            role = user.get("role", str)
            if role not in ROLES:
                raise user.error("role", f"{role!r} is not one of {', '.join(ROLES)}")
            digest = user.get("password_hash", str)
            if not digest.startswith("scrypt$"):
                raise user.error("password_hash", "not a hash from 'floor hash-password'")
            user.done()
            users[name] = User(name, role, digest)
    section.done()
    return Monitor(listen, port, key_file, users, float(silent), secure)


def config_error(source: Path, key: str, problem: str) -> ConfigError:
    """A one-line configuration error (for checks made after parsing)."""
    return ConfigError(source, key, problem)
