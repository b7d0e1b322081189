"""The building blocks of ``station.toml``: the one-line error, the typed section reader,
and the table's seat numbers. ``config`` and ``config_panel`` both read through these; this
module imports neither of them.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any, Final, TypeVar

SEATS: Final = range(1, 8)
#: A configuration is a few kB: a larger "file" (/dev/zero) is refused unread.
MAX_CONFIG_BYTES: Final = 1 << 20

T = TypeVar("T")


class ConfigError(ValueError):
    """A bad configuration; ``str()`` is the one line to show: ``FILE: key.path: problem``."""

    def __init__(self, file: Path | str, key: str, problem: str) -> None:
        # One line even when the file's name holds a newline (or a byte that is not
        # UTF-8, a surrogate here): escaped as Python writes it.
        text = f"{file}: {key}: {problem}"
        super().__init__("".join(c if c.isprintable() else repr(c)[1:-1] for c in text))
        self.file, self.key, self.problem = str(file), key, problem


_TYPE_NAMES: Final = {str: "a string", int: "an integer", bool: "true or false", dict: "a table"}


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return "true or false"
    for kind, name in _TYPE_NAMES.items():
        if type(value) is kind:
            return f"{name} ({value!r})" if kind is not dict else name
    return {list: "an array", float: "a float"}.get(type(value), type(value).__name__)


class Section:
    """One TOML table being read: typed access by key; :meth:`done` refuses unknown keys."""

    def __init__(self, file: Path, data: Mapping[str, Any], path: str = "") -> None:
        self.file, self.data, self.path = file, data, path
        self.seen: set[str] = set()

    def key(self, name: str) -> str:
        # A key with a line break or a control character is shown escaped: one line.
        shown = name if name.isprintable() else repr(name)
        return f"{self.path}.{shown}" if self.path else shown

    def error(self, name: str, problem: str) -> ConfigError:
        return ConfigError(self.file, self.key(name), problem)

    def get(self, name: str, kind: type[T], default: T | None = None) -> T:
        """The value of ``name``, which must be of ``kind``; ``default`` when absent."""
        self.seen.add(name)
        if name not in self.data:
            if default is None:
                raise self.error(name, "missing (required)")
            return default
        value = self.data[name]
        if type(value) is not kind:
            expected = _TYPE_NAMES.get(kind) or _describe(kind())  # an array, a float
            raise self.error(name, f"expected {expected}, got {_describe(value)}")
        return value

    def choice(self, name: str, kind: type[Enum], default: Enum | None = None) -> Any:
        allowed = [str(m.value) for m in kind]
        raw = self.get(name, type(allowed[0]), None if default is None else default.value)
        try:
            return kind(raw)
        except ValueError:
            raise self.error(name, f"{raw!r} is not one of {', '.join(allowed)}") from None

    def section(self, name: str, *, required: bool) -> Section | None:
        self.seen.add(name)
        if name not in self.data:
            if required:
                raise self.error(name, "missing (required table)")
            return None
        value = self.data[name]
        if not isinstance(value, dict):
            raise self.error(name, f"expected a table, got {_describe(value)}")
        return Section(self.file, value, self.key(name))

    def done(self) -> None:
        for name in self.data:
            if name not in self.seen:
                raise self.error(name, "unknown key")


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML document in the file at ``path`` (``station.toml``, ``floor.toml``).

    Raises:
        ConfigError: unreadable, larger than :data:`MAX_CONFIG_BYTES`, not UTF-8, not
            valid TOML or nested too deeply; one line naming the file.
    """
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_CONFIG_BYTES + 1)
        too_large = len(raw) > MAX_CONFIG_BYTES
        data = {} if too_large else tomllib.loads(raw.decode("utf-8"))
    except OSError as err:
        raise ConfigError(path, "(file)", f"cannot read: {err.strerror or err}") from err
    except UnicodeDecodeError as err:
        raise ConfigError(path, "(file)", "not UTF-8 text") from err
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(path, "(syntax)", f"not valid TOML: {err}") from err
    except ValueError as err:  # a NUL byte in the path
        raise ConfigError(path, "(file)", f"cannot read: {err}") from err
    except RecursionError:
        # tomllib recurses per nesting level: thousands of nested arrays or tables.
        raise ConfigError(path, "(syntax)", "nested too deeply") from None
    if too_large:
        raise ConfigError(path, "(file)", f"larger than {MAX_CONFIG_BYTES} bytes")
    return data


#: A password file holds one line; anything much longer is not a password file.
MAX_SECRET_BYTES: Final = 4096


def read_secret(path: Path) -> str:
    """The first line of a password file, stripped.

    Raises:
        OSError: the file cannot be read, is empty, is larger than
            :data:`MAX_SECRET_BYTES` (a device such as ``/dev/zero``) or is not UTF-8 text;
            ``str()`` is one line.
    """
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_SECRET_BYTES + 1)
    except ValueError as err:  # a NUL byte in the path
        raise OSError(f"{path}: {err}") from None
    if len(raw) > MAX_SECRET_BYTES:
        raise OSError(f"{path}: larger than {MAX_SECRET_BYTES} bytes: not a password file")
    try:
        lines = raw.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise OSError(f"{path}: not UTF-8 text") from None
    secret = lines[0].strip() if lines else ""
    if not secret:
        raise OSError(f"{path}: empty: the password is its first line")
    return secret
