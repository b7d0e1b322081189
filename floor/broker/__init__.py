"""The floor's broker configuration as shipped (``mosquitto.conf``, ``stations.acl``,
``collectors.acl`` in this folder) and the same files made for a broker in a directory.

The shipped files are what a floor installs under ``/etc/mosquitto`` (docs/floor.md, "The
broker"). :func:`write_broker_files` makes a runnable copy for the tests, the bench and
``make floor-demo``: the shipped text with only its directory and its two ports replaced
(each replacement must find its line, so the copy cannot drift from what is shipped), the
accounts' password files (hashed with ``mosquitto_passwd``) and, for the collectors' ACL,
the shipped block once per collector account.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Final

#: Where the shipped configuration keeps its files.
PRODUCTION_DIR: Final = "/etc/mosquitto/dealer-station/"
STATION_LISTENER: Final = "listener 8883\n"
COLLECTOR_LISTENER: Final = "listener 8884\n"
#: The mount point of the stations' listener; the collectors read topics under it.
MOUNT_POINT: Final = "station/"


def shipped(name: str) -> str:
    """The text of a shipped file: ``mosquitto.conf``, ``stations.acl`` or ``collectors.acl``."""
    return (resources.files("floor.broker") / name).read_text(encoding="utf-8")


def collector_block() -> str:
    """The topic lines the shipped ACL gives each collector account."""
    parts = re.split(r"^user \S+\n", shipped("collectors.acl"), flags=re.MULTILINE)[1:]
    blocks = {part.strip("\n") for part in parts}
    if len(blocks) != 1:
        raise ValueError("collectors.acl: every collector block must be the same")
    return blocks.pop() + "\n"


def broker_config(directory: Path, station_port: int, collector_port: int, extra: str) -> str:
    """The shipped ``mosquitto.conf`` with its files in ``directory``, its listeners on
    127.0.0.1 at the given ports, and ``extra`` lines (logging, persistence) before them."""
    text = shipped("mosquitto.conf")
    for old, new in (
        (STATION_LISTENER, f"listener {station_port} 127.0.0.1\n"),
        (COLLECTOR_LISTENER, f"listener {collector_port} 127.0.0.1\n"),
    ):
        if text.count(old) != 1:
            raise ValueError(f"mosquitto.conf: expected one {old.strip()!r}")
        text = text.replace(old, new)
    if PRODUCTION_DIR not in text:
        raise ValueError(f"mosquitto.conf: no file under {PRODUCTION_DIR}")
    text = text.replace(PRODUCTION_DIR, f"{directory}/")
    first = text.index("\nlistener ")
    return text[:first] + "\n" + extra + text[first:]


def write_broker_files(
    directory: Path,
    *,
    stations: Mapping[str, str],
    collectors: Mapping[str, str],
    station_port: int,
    collector_port: int,
    extra: str = "",
) -> Path:
    """Write a runnable broker configuration into ``directory`` (which must already hold
    ``ca.pem``, ``server.pem`` and ``server.key``); returns the ``mosquitto.conf`` path.
    ``stations`` and ``collectors`` map account names to passwords.

    Raises:
        FileNotFoundError: ``mosquitto_passwd`` is not installed.
        subprocess.CalledProcessError: it refused the password files.
    """
    _passwords(directory / "stations.passwd", stations)
    _passwords(directory / "collectors.passwd", collectors)
    (directory / "stations.acl").write_text(shipped("stations.acl"), encoding="utf-8")
    block = collector_block()
    acl = "".join(f"user {name}\n{block}\n" for name in collectors)
    (directory / "collectors.acl").write_text(acl, encoding="utf-8")
    config = directory / "mosquitto.conf"
    text = broker_config(directory, station_port, collector_port, extra)
    config.write_text(text, encoding="utf-8")
    return config


def _passwords(path: Path, accounts: Mapping[str, str]) -> None:
    path.write_text("".join(f"{user}:{password}\n" for user, password in accounts.items()))
    tool = shutil.which("mosquitto_passwd")
    if tool is None:
        raise FileNotFoundError("mosquitto_passwd is not installed (make system-deps)")
    subprocess.run([tool, "-U", str(path)], check=True, capture_output=True)  # hashes in place
