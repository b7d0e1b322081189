"""Start and drive device doubles in their own process (:mod:`drivers.simulated.serve`).

::

    with ServedDoubles({"shoe": f"pty:{tmp}/shoe"}, tmp / "control.sock") as served:
        tty = served.ready["devices"]["shoe"]["tty"]
        served.client.call("shoe", "load_shuffled", decks=6, seed=7)
        served.client.call("shoe", "deal")            # -> "7S"
        served.client.wait("shoe", "connected", True, timeout=5.0)

The process is started with the interpreter running this code, so it sees the same
packages; the ready line is awaited with a deadline (no sleep), and ``close`` stops the
process with SIGTERM (SIGKILL if it will not go).
"""

from __future__ import annotations

import json
import select
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any


class DoublesError(Exception):
    """The doubles process refused a request or did not start; one line."""


class DoublesClient:
    """A connection to a doubles process's control socket."""

    def __init__(self, control: Path | str, timeout: float = 30.0) -> None:
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        self._sock.connect(str(control))
        self._reader = self._sock.makefile("rb")

    def request(self, request: Mapping[str, Any]) -> Any:
        """Send one request; the result, or ``DoublesError`` with the process's answer."""
        self._sock.sendall(json.dumps(request).encode() + b"\n")
        line = self._reader.readline()
        if not line:
            raise DoublesError("the doubles process closed the control socket")
        reply = json.loads(line)
        if not reply.get("ok"):
            raise DoublesError(str(reply.get("error")))
        return reply.get("result")

    def call(self, device: str, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call a double's control method (``serve_control.CALLS``)."""
        return self.request({"device": device, "call": name, "args": args, "kwargs": kwargs})

    def get(self, device: str, name: str) -> Any:
        """Read a listed attribute."""
        return self.call(device, "get", name)

    def set(self, device: str, name: str, value: Any) -> None:
        """Set a fault switch (``silent``, ``reply_delay``, ...)."""
        self.call(device, "set", name, value)

    def wait(self, device: str, name: str, value: Any, timeout: float = 5.0) -> bool:
        """Wait until attribute ``name`` equals ``value``; False at the deadline."""
        return bool(self.call(device, "wait", name, value, timeout=timeout))

    def wait_lamp(self, led: str, mode: str, timeout: float = 5.0) -> bool:
        """Wait until the panel board shows ``led`` in ``mode``; False at the deadline."""
        return bool(self.call("panel", "wait", "lamp", led, mode, timeout=timeout))

    def close(self) -> None:
        """Close the connection."""
        self._reader.close()
        self._sock.close()


class ServedDoubles:
    """A doubles process and a client to it (see the module docstring)."""

    def __init__(
        self,
        endpoints: Mapping[str, str],
        control: Path,
        *,
        serials: Mapping[str, str] | None = None,
        timing: str = "standard",
        seed: int = 0,
        secrets: Mapping[str, bytes] | None = None,
        start_timeout: float = 30.0,
    ) -> None:
        command = [sys.executable, "-m", "drivers.simulated.serve", "--control", str(control)]
        command += ["--timing", timing, "--seed", str(seed)]
        for kind, spec in endpoints.items():
            command += [f"--{kind}", spec]
        for kind, serial in (serials or {}).items():
            command += [f"--{kind}-serial", serial]
        for kind, secret in (secrets or {}).items():
            command += [f"--{kind}-secret", secret.hex()]
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
        )
        try:
            self.ready = self._await_ready(start_timeout)
            self.client = DoublesClient(control)
        except BaseException:
            self.close()
            raise

    def _await_ready(self, timeout: float) -> dict[str, Any]:
        stdout = self.process.stdout
        assert stdout is not None
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            readable, _, _ = select.select([stdout], [], [], max(left, 0))
            if readable:
                line = stdout.readline()
                if line:
                    ready: dict[str, Any] = json.loads(line)
                    return ready
                self.process.wait(5)
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                raise DoublesError(f"doubles exited with {self.process.returncode}: {err.strip()}")
            if left <= 0:
                raise DoublesError(f"doubles not ready within {timeout} s")

    def close(self) -> None:
        """Stop the process; idempotent."""
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> ServedDoubles:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
