"""Station configuration: ``station.toml`` read with ``tomllib`` and checked before start.

Every problem is a :class:`ConfigError` whose text is one line, ``FILE: key.path: what is
wrong``, so systemd's journal and ``dealer-station check-config`` show exactly what to fix.
``examples/station.toml`` documents every key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from controller.journal.format import DEFAULT_PATH as DEFAULT_JOURNAL_PATH
from controller.journal.seal import DEFAULT_STATE_PATH as DEFAULT_SEALING_PATH
from controller.rules.cards import DECK_COUNTS
from controller.rules.profiles import PROFILES, Profile, profile_codes
from controller.service.config_devices import (
    Devices,
    SerialDevice,
    UsbDevice,
    parse_devices,
    simulated_devices,
)
from controller.service.config_floor import FloorSettings, parse_floor
from controller.service.config_limits import parse_limits
from controller.service.config_paths import check_paths
from controller.service.config_rules import Options, read_options, table_profile
from controller.service.config_schema import ConfigError, Section, read_toml
from controller.table.limits import NO_LIMITS, TableLimits

__all__ = [
    "DECK_COUNTS",
    "ConfigError",
    "Devices",
    "Options",
    "Profile",
    "SerialDevice",
    "StationConfig",
    "UsbDevice",
    "load_config",
    "simulated_devices",
]

DEFAULT_CONFIG_PATH: Final = Path("/etc/dealer-station/station.toml")
TABLE_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")


@dataclass(frozen=True, slots=True)
class JournalSettings:
    """Where the audit journal and its sealing state (``journal setup-keys``) live."""

    path: Path = DEFAULT_JOURNAL_PATH
    sealing_key: Path = DEFAULT_SEALING_PATH


DEFAULT_PAIRING_DIR: Final = Path("/var/lib/dealer-station/pairing")


@dataclass(frozen=True, slots=True)
class PairingSettings:
    """Where the devices' pairing secrets are kept (``drivers.pairing.PairingStore``)."""

    directory: Path = DEFAULT_PAIRING_DIR


@dataclass(frozen=True, slots=True)
class LoggingSettings:
    """Log level and format (``auto``: JSON unless stdout is a terminal)."""

    level: str = "info"
    format: str = "auto"


@dataclass(frozen=True, slots=True)
class StationConfig:
    """The whole, checked configuration of one table."""

    source: Path
    table_id: str
    profile: Profile  # the jurisdiction as declared (controller.rules.profiles)
    decks: int
    options: Options
    devices: Devices
    journal: JournalSettings
    logging: LoggingSettings
    pairing: PairingSettings = PairingSettings()
    floor: FloorSettings | None = None  # no [floor] section: the station ships nothing
    limits: TableLimits = NO_LIMITS  # [limits]: the posted table limits (NY 5324.12(d)(2))

    def rules(self) -> Profile:
        """The rules profile this table plays: the jurisdiction with its options, as its
        devices allow (``config_rules.table_profile``).

        Raises:
            ConfigError: naming an option or a device the regulation requires otherwise.
        """
        shuffler = self.devices.shuffler
        return table_profile(
            self.profile,
            self.decks,
            self.options,
            card_reader=self.devices.card_reader is not None,
            shuffler_decks=shuffler.options["max_decks"] if shuffler is not None else None,
            source=self.source,
        )


def load_config(path: Path | str) -> StationConfig:
    """Read and check ``path``.

    Raises:
        ConfigError: for an unreadable file, bad TOML, an unknown key, a wrong type, a
            missing key or a contradiction; one line naming the file and the key.
    """
    path = Path(path)
    data = read_toml(path)
    return parse_config(data, path)


def parse_config(data: Mapping[str, Any], source: Path) -> StationConfig:
    """Check an already parsed TOML document (see :func:`load_config`)."""

    top = Section(source, data)
    table_id = top.get("table_id", str)
    if not TABLE_ID.fullmatch(table_id):
        raise top.error("table_id", f"{table_id!r}: use 1-32 letters, digits, '.', '_', '-'")
    code = top.get("profile", str)
    profile = PROFILES.get(code)
    if profile is None:
        raise top.error("profile", f"{code!r} is not one of {profile_codes()}")
    decks = top.get("decks", int)
    if decks not in DECK_COUNTS:
        raise top.error("decks", f"a Spanish 21 shoe has 6 or 8 decks, not {decks}")
    options_section = top.section("options", required=False) or Section(source, {}, "options")
    devices_section = top.section("devices", required=True)
    assert devices_section is not None
    devices = parse_devices(devices_section)
    options = read_options(options_section, profile, decks)
    journal_section = top.section("journal", required=False)
    journal = JournalSettings()
    if journal_section is not None:
        journal_path = _path(journal_section, "path", str(DEFAULT_JOURNAL_PATH))
        sealing = _path(journal_section, "sealing_key", str(DEFAULT_SEALING_PATH))
        journal_section.done()
        # Relative paths: beside the file.
        journal = JournalSettings(source.parent / journal_path, source.parent / sealing)
    pairing_section = top.section("pairing", required=False)
    pairing = PairingSettings()
    if pairing_section is not None:
        pairing_dir = _path(pairing_section, "directory", str(DEFAULT_PAIRING_DIR))
        pairing_section.done()
        pairing = PairingSettings(source.parent / pairing_dir)
    logging = _logging(top.section("logging", required=False))
    limits_section = top.section("limits", required=False)
    floor_section = top.section("floor", required=False)
    floor = parse_floor(floor_section, source.parent) if floor_section is not None else None
    config = StationConfig(
        source, table_id, profile, decks, options, devices, journal, logging, pairing, floor
    )
    # The profile must take every option: one the regulation fixes is refused with its
    # clause (PA 635a.7(l) and hit_soft_17, ...); so must the devices (PA 635a.7(g): a peek
    # needs the card reader).
    rules = config.rules()
    limits = parse_limits(limits_section, rules.match_the_dealer) if limits_section else NO_LIMITS
    top.done()
    shuffler = devices.shuffler
    max_decks = shuffler.options["max_decks"] if shuffler is not None else decks
    if max_decks < decks:
        raise ConfigError(
            source,
            "devices.shuffler.max_decks",
            f"the shuffler takes {max_decks} decks, the table uses {decks} (decks)",
        )
    config = replace(config, limits=limits)
    check_paths(config)
    return config


def _path(section: Section, name: str, default: str) -> Path:
    """A file path: not empty, no NUL byte (the kernel cannot take one)."""
    text = section.get(name, str, default)
    if not text.strip() or "\0" in text:
        raise section.error(name, f"{text!r} is not a usable path")
    return Path(text)


def _logging(section: Section | None) -> LoggingSettings:
    if section is None:
        return LoggingSettings()
    level = section.get("level", str, "info")
    if level not in ("debug", "info", "warning", "error"):
        raise section.error("level", f"{level!r} is not one of debug, info, warning, error")
    form = section.get("format", str, "auto")
    if form not in ("auto", "json", "console"):
        raise section.error("format", f"{form!r} is not one of auto, json, console")
    section.done()
    return LoggingSettings(level, form)
