"""``floor.toml``: the collector's and the monitor's configuration.

Read with ``tomllib`` and checked before anything starts; every problem is one line,
``FILE: key.path: what is wrong`` (the station's :class:`ConfigError`). Relative paths are
taken from the file's directory. ``examples/floor.toml`` documents every key.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from controller.journal.seal import SealError, VerificationKey
from controller.service.config_schema import ConfigError, Section
from floor.casino import Casino, parse_casino

ROLES: Final = ("pit_supervisor", "surveillance")
USER_NAME: Final = re.compile(r"[a-z][a-z0-9_.-]{0,31}")


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

    def password(self) -> str:
        """The first line of the password file (raises OSError)."""
        return self.password_file.read_text(encoding="utf-8").splitlines()[0].strip()


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


def load_floor_config(path: Path | str) -> FloorConfig:
    """Read and check ``path``.

    Raises:
        ConfigError: for an unreadable file, bad TOML, an unknown key, a wrong type or a
            missing key; one line naming the file and the key.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ConfigError(path, "(file)", f"cannot read: {err.strerror}") from err
    except UnicodeDecodeError as err:
        raise ConfigError(path, "(file)", "not UTF-8 text") from err
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(path, "(syntax)", f"not valid TOML: {err}") from err
    return parse_floor_config(data, path)


def parse_floor_config(data: Mapping[str, Any], source: Path) -> FloorConfig:
    """Check an already parsed document (see :func:`load_floor_config`)."""
    base = source.parent
    top = Section(source, data)
    broker = _broker(_required(top, "broker"), base)
    database = _required(top, "database")
    conninfo = database.get("conninfo", str)
    database.done()
    collector = top.section("collector", required=False) or Section(source, {}, "collector")
    batch = collector.get("batch_messages", int, 200)
    if not 1 <= batch <= 10_000:
        raise collector.error("batch_messages", f"{batch} is not 1-10000")
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
    return FloorConfig(source, broker, conninfo, batch, monitor, keys, casino)


def _required(section: Section, name: str) -> Section:
    found = section.section(name, required=True)
    assert found is not None
    return found


def _broker(section: Section, base: Path) -> Broker:
    host = section.get("host", str)
    if not host.strip() or any(c.isspace() for c in host):
        raise section.error("host", f"{host!r} is not a host name or address")
    tls = section.get("tls", bool, True)
    port = section.get("port", int, 8883 if tls else 1883)
    if not 1 <= port <= 65535:
        raise section.error("port", f"{port} is not a TCP port (1-65535)")
    username = section.get("username", str)
    password_file = base / section.get("password_file", str)
    ca_file = base / section.get("ca_file", str) if tls else None
    client_id = section.get("client_id", str)
    group = section.get("share_group", str, "collectors")
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", group):
        raise section.error("share_group", f"{group!r}: use 1-32 letters, digits, '_', '-'")
    section.done()
    return Broker(host, port, username, password_file, ca_file, client_id, group)


def _monitor(section: Section | None, source: Path) -> Monitor:
    if section is None:
        return Monitor()
    listen = section.get("listen", str, "127.0.0.1")
    port = section.get("port", int, 8021)
    if not 1 <= port <= 65535:
        raise section.error("port", f"{port} is not a TCP port (1-65535)")
    key_file = source.parent / section.get("session_key_file", str)
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
