"""Running the real ``dealer-station`` daemon as a subprocess: a station.toml, a fast
journal directory, and a systemd-like notify socket to listen on.
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "station.toml"
DEALER_STATION = Path(sys.executable).parent / "dealer-station"


@contextmanager
def journal_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory for journals. /dev/shm (tmpfs) when the machine has it: SQLite's
    ``synchronous=FULL`` fsyncs every commit, which costs milliseconds on a disk and
    nothing on tmpfs, and these tests commit thousands of rows. The journal's logic is
    the same on both; power-loss durability is not what these tests check."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        path = Path(tempfile.mkdtemp(prefix="dealer-test-", dir=shm))
        try:
            yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)
    else:
        path = tmp_path / "journal"
        path.mkdir()
        yield path


def station_toml(directory: Path, journal: Path, *, extra: str = "") -> Path:
    """The example configuration with the journal at ``journal`` (and ``extra`` lines
    appended at the top level)."""
    text = EXAMPLE.read_text().replace(
        'path = "/var/lib/dealer-station/journal.sqlite3"', f'path = "{journal}"'
    )
    assert str(journal) in text
    config = directory / "station.toml"
    config.write_text(extra + text)
    return config


class NotifyListener:
    """The systemd end of sd_notify: an abstract-namespace datagram socket."""

    def __init__(self) -> None:
        self.name = f"dealer-station-test-{uuid.uuid4().hex}"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind("\0" + self.name)
        self.messages: list[str] = []

    @property
    def address(self) -> str:
        """The ``NOTIFY_SOCKET`` value."""
        return "@" + self.name

    def wait_for(self, wanted: Callable[[str], bool], timeout: float) -> str:
        """The first message (from now on) for which ``wanted`` is true.

        Raises:
            TimeoutError: none came within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            self.sock.settimeout(remaining)
            try:
                message = self.sock.recv(4096).decode()
            except TimeoutError:
                break
            self.messages.append(message)
            if wanted(message):
                return message
        raise TimeoutError(f"no such message in {timeout} s; got {self.messages[-5:]}")

    def drain(self) -> None:
        """Forget every message received so far, including those not read yet."""
        self.sock.settimeout(0)
        try:
            while True:
                self.sock.recv(4096)
        except BlockingIOError:
            pass
        self.messages.clear()

    def close(self) -> None:
        """Unbind."""
        self.sock.close()


def assignments(message: str) -> dict[str, str]:
    """``KEY=VALUE`` lines of one datagram."""
    return dict(line.split("=", 1) for line in message.split("\n"))
