"""The paths of ``station.toml`` checked against each other and against what is on disk.

A path that is fine alone can still be wrong: two devices on one port, a sealing key
file that is the journal itself (``journal setup-keys --force`` would write over the
record), a password file that is a directory. Each is a one-line
:class:`~controller.service.config_schema.ConfigError` naming the key to fix. Paths that do
not exist yet pass: the station makes the journal and its key files.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from controller.journal.creation import journal_files
from controller.service.config_schema import ConfigError
from controller.service.outbox import ack_path

if TYPE_CHECKING:
    from controller.service.config import StationConfig


def _same(path: Path) -> str:
    """The path as the kernel finds it (symlinks followed as far as they exist)."""
    return os.path.realpath(path)


def _first_repeat(named: Iterable[tuple[str, Path]]) -> tuple[str, str] | None:
    seen: dict[str, str] = {}
    for key, path in named:
        real = _same(path)
        if real in seen:
            return key, seen[real]
        seen[real] = key
    return None


def check_paths(config: StationConfig) -> None:
    """Refuse the paths of ``config`` that cannot work together (module docstring).

    Raises:
        ConfigError: one line naming the key.
    """
    source = config.source
    repeat = _first_repeat(config.devices.serial_ports())
    if repeat is not None:
        raise ConfigError(source, repeat[0], f"the same port as {repeat[1]}: one device a port")
    journal, key = config.journal.path, config.journal.sealing_key
    own = [_same(p) for p in (*journal_files(journal), ack_path(journal))]
    if _same(key) in own:
        raise ConfigError(
            source, "journal.sealing_key", f"{key} is the journal's own file: a key file of its own"
        )
    for name, path in (("journal.path", journal), ("journal.sealing_key", key)):
        if _same(path) == _same(source):
            raise ConfigError(source, name, f"{path} is this configuration file")
    files = [("journal.path", journal), ("journal.sealing_key", key)]
    if config.floor is not None:
        files.append(("floor.password_file", config.floor.password_file))
        if config.floor.ca_file is not None:
            files.append(("floor.ca_file", config.floor.ca_file))
    for name, path in files:
        if path.is_dir():
            raise ConfigError(source, name, f"{path} is a directory, not a file")
    for name, path in files[:2]:
        if path.is_symlink():
            # The station replaces its key file (and makes the journal) by rename: a link
            # would be replaced and what it points at left behind, an old key included.
            raise ConfigError(source, name, f"{path} is a symlink: name the file itself")
        if path.exists() and not path.is_file():
            raise ConfigError(source, name, f"{path} is not a regular file")
    pairing = config.pairing.directory
    if pairing.exists() and not pairing.is_dir():
        raise ConfigError(source, "pairing.directory", f"{pairing} is not a directory")
