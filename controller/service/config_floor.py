"""The ``[floor]`` section of ``station.toml``: where the station ships its journal.

Optional: without it the station ships nothing. ``examples/station.toml`` documents every
key; errors are the one-line :class:`~controller.service.config_schema.ConfigError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from controller.service.config_schema import Section, read_secret


@dataclass(frozen=True, slots=True)
class FloorSettings:
    """The broker and this station's credentials on it (the station's own client id)."""

    host: str
    port: int
    username: str
    password_file: Path
    ca_file: Path | None  # None only with tls = false
    batch_rows: int = 500
    ack_timeout: float = 5.0
    status_interval: float = 5.0
    poll_interval: float = 0.05

    def password(self) -> str:
        """The station's broker password (the file's first line).

        Raises:
            OSError: when the file cannot be read.
        """
        return read_secret(self.password_file)


def parse_floor(section: Section, base: Path) -> FloorSettings:
    """Check the ``[floor]`` section; relative paths are taken from ``base`` (the file's
    directory)."""
    host = section.get("broker", str)
    if not host.strip() or any(c.isspace() for c in host):
        raise section.error("broker", f"{host!r} is not a host name or address")
    tls = section.get("tls", bool, True)
    port = section.get("port", int, 8883 if tls else 1883)
    if not 1 <= port <= 65535:
        raise section.error("port", f"{port} is not a TCP port (1-65535)")
    username = section.get("username", str)
    if not username.strip():
        raise section.error("username", "empty: name this station's account on the broker")
    password_file = base / section.get("password_file", str)
    ca_file: Path | None = None
    if tls:
        ca_file = base / section.get("ca_file", str)
    elif "ca_file" in section.data:
        raise section.error("ca_file", "set, but tls = false")
    batch_rows = section.get("batch_rows", int, 500)
    if not 1 <= batch_rows <= 5000:
        raise section.error("batch_rows", f"{batch_rows} is not 1-5000")
    ack_timeout = section.get("ack_timeout_seconds", int, 5)
    if not 1 <= ack_timeout <= 600:
        raise section.error("ack_timeout_seconds", f"{ack_timeout} is not 1-600")
    status_interval = section.get("status_interval_seconds", int, 5)
    if not 1 <= status_interval <= 600:
        raise section.error("status_interval_seconds", f"{status_interval} is not 1-600")
    section.done()
    return FloorSettings(
        host,
        port,
        username,
        password_file,
        ca_file,
        batch_rows,
        float(ack_timeout),
        float(status_interval),
    )
