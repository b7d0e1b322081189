"""sd_notify: tell systemd the station is ready, alive, busy with what, and stopping.

One datagram per message to ``$NOTIFY_SOCKET`` (a leading ``@`` names the abstract
namespace). Outside systemd the variable is unset and every call is a no-op, so the
daemon runs the same from a terminal. The watchdog interval is half of ``WATCHDOG_USEC``,
for this process only (``WATCHDOG_PID`` unset or ours), as sd_watchdog_enabled(3) says.

A send waits at most :data:`SEND_TIMEOUT` for room in systemd's queue, then gives up: a
manager too busy to read (its queue of datagrams full) costs the table's main loop a
fraction of a second, never the loop itself (a blocking socket would hold it, and the stop
after a SIGTERM, until systemd read again).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping
from typing import Final

MAX_STATUS: Final = 200
#: Seconds a message waits for room in systemd's queue before it is dropped (module docstring).
SEND_TIMEOUT: Final = 0.5


class Notifier:
    """Sends sd_notify messages; a no-op when not started by systemd with Type=notify."""

    def __init__(
        self, environ: Mapping[str, str] | None = None, send_timeout: float = SEND_TIMEOUT
    ) -> None:
        env = os.environ if environ is None else environ
        self._address = _address(env.get("NOTIFY_SOCKET", ""))
        self._socket: socket.socket | None = None
        if self._address is not None:
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._socket.settimeout(send_timeout)
        self.watchdog_interval = _watchdog_interval(env)
        self._last_ping: float | None = None

    @property
    def enabled(self) -> bool:
        """True when a notify socket was given."""
        return self._socket is not None

    def notify(self, *assignments: str) -> bool:
        """Send ``KEY=VALUE`` lines in one datagram; False if not sent (never raises: a
        missing systemd must not stop the table; nor may a busy one: a full queue is
        waited on for ``send_timeout`` at most)."""
        if self._socket is None or self._address is None:
            return False
        try:
            self._socket.sendto("\n".join(assignments).encode(), self._address)
        except OSError:
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        """``READY=1`` (devices and journal are up), with an optional status line."""
        return self.notify("READY=1", *([_status(status)] if status is not None else []))

    def status(self, text: str) -> bool:
        """``STATUS=``: one line that ``systemctl status`` shows (the current state)."""
        return self.notify(_status(text))

    def watchdog(self) -> bool:
        """``WATCHDOG=1``: the main loop is alive."""
        self._last_ping = time.monotonic()
        return self.notify("WATCHDOG=1")

    def feed_watchdog(self, now: float | None = None) -> bool:
        """Ping the watchdog if half its timeout passed since the last ping; call this from
        the main loop on every turn. True when a ping was sent."""
        if self.watchdog_interval is None or self._socket is None:
            return False
        now = time.monotonic() if now is None else now
        if self._last_ping is not None and now - self._last_ping < self.watchdog_interval:
            return False
        sent = self.notify("WATCHDOG=1")
        self._last_ping = now
        return sent

    def stopping(self, status: str | None = None) -> bool:
        """``STOPPING=1``: a clean shutdown has begun."""
        return self.notify("STOPPING=1", *([_status(status)] if status is not None else []))

    def close(self) -> None:
        """Close the socket; idempotent."""
        if self._socket is not None:
            self._socket.close()
            self._socket = None


def _address(value: str) -> str | None:
    if value.startswith("@") and len(value) > 1:
        return "\0" + value[1:]
    if value.startswith("/"):
        return value
    return None  # unset, or a transport we do not speak (vsock)


def _watchdog_interval(env: Mapping[str, str]) -> float | None:
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    pid = env.get("WATCHDOG_PID")
    if usec <= 0 or (pid is not None and pid != str(os.getpid())):
        return None
    return usec / 2 / 1_000_000


def _status(text: str) -> str:
    # One line: a newline would start a new assignment in the datagram.
    return "STATUS=" + " ".join(text.split())[:MAX_STATUS]
