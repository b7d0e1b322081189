"""Who else holds a serial port open: the processes whose open files include the tty.

The station takes its serial ports with ``TIOCEXCL`` (``drivers.serial_transport``), which
refuses every *later* ``open()`` of the tty, and only to processes without root's
capability: a process that opened the port before the station, or any process of root's,
still reads the device's bytes and writes its own. Nothing in the tty tells who holds it,
so this reads ``/proc/*/fd`` (as ``fuser`` does): each open file that is the same character
device (the same ``st_rdev``) as the port. Only root sees every process's files
(``dealer-station check-config --ports`` runs as root before the service starts:
docs/operations.md); another user sees its own processes only.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Holder:
    """A process that has the port open."""

    pid: int
    command: str

    def __str__(self) -> str:
        return f"pid {self.pid} ({self.command})"


def port_holders(port: Path | str, *, proc: Path = Path("/proc")) -> list[Holder]:
    """The processes other than this one that have ``port`` (a character device, or a
    link to one) open, in pid order; empty when the port is no character device or
    ``/proc`` shows nobody. Processes and files that vanish or cannot be read meanwhile
    are passed over."""
    try:
        device = os.stat(port)
    except (OSError, ValueError):
        return []
    if not stat.S_ISCHR(device.st_mode):
        return []
    me = os.getpid()
    found: list[Holder] = []
    try:
        pids = sorted(int(entry.name) for entry in os.scandir(proc) if entry.name.isdigit())
    except OSError:
        return []
    for pid in pids:
        if pid == me:
            continue
        fds = proc / str(pid) / "fd"
        try:
            names = os.listdir(fds)
        except OSError:  # gone, or not ours to read
            continue
        for name in names:
            try:
                opened = os.stat(fds / name)
            except OSError:
                continue
            if stat.S_ISCHR(opened.st_mode) and opened.st_rdev == device.st_rdev:
                found.append(Holder(pid, _command(proc, pid)))
                break
    return found


def _command(proc: Path, pid: int) -> str:
    try:
        return (proc / str(pid) / "comm").read_text(errors="replace").strip() or "?"
    except OSError:
        return "?"
