"""The boot test's agent inside the guest (stdlib only; run by vm-agent.service).

It answers one JSON request per line on the virtio-serial port ``agent`` (the host's
``vm_tests/vm.py`` is the other end) and keeps every journald entry of
``dealer-station.service`` from a ``journalctl --follow`` it starts at boot, so the host can
wait for a log line with a deadline instead of sleeping:

* ``{"op": "sh", "cmd": "...", "timeout": 60}`` -> ``{"rc", "out", "err"}``
* ``{"op": "log_mark"}`` -> ``{"index"}``: entries so far
* ``{"op": "log_wait", "since": N, "fields": {...}, "contains": "...", "timeout": T}`` ->
  ``{"index", "entry"}`` of the first entry from N on whose MESSAGE (a station JSON line)
  has all ``fields`` and/or contains ``contains``; ``{"index": null}`` at the deadline
* ``{"op": "log_batch", "since": N, "timeout": T}`` -> ``{"entries", "next"}``: the
  entries from N on (at most 500), once there is at least one (empty at the deadline)
* ``{"op": "reader", "request": {...}}``: forwarded to the reader gadget's control socket

Each request runs in its own thread (a long ``log_wait`` does not hold up the others);
every reply carries the request's ``id``.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import threading
import time
from typing import Any

PORT = "/dev/virtio-ports/agent"
READER_CONTROL = "/run/reader.sock"
UNIT = "dealer-station.service"


class Journal:
    """Every journald entry of the unit, in order, from boot on."""

    def __init__(self) -> None:
        self.entries: list[dict[str, object]] = []
        self.cond = threading.Condition()
        self.proc = subprocess.Popen(
            ["journalctl", "--follow", "--output=json", "--all", "--lines=all", "-u", UNIT],
            stdout=subprocess.PIPE,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            message = entry.get("MESSAGE")
            if isinstance(message, list):  # journald gives bytes as a list of ints
                message = bytes(message).decode(errors="replace")
                entry["MESSAGE"] = message
            try:
                entry["station"] = json.loads(message) if isinstance(message, str) else None
            except ValueError:
                entry["station"] = None
            with self.cond:
                self.entries.append(entry)
                self.cond.notify_all()

    def wait(
        self, since: int, fields: dict[str, object], contains: str, timeout: float
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        index = since
        with self.cond:
            while True:
                while index < len(self.entries):
                    entry = self.entries[index]
                    if _matches(entry, fields, contains):
                        return {"index": index, "entry": entry}
                    index += 1
                left = deadline - time.monotonic()
                if left <= 0:
                    return {"index": None, "seen": len(self.entries)}
                self.cond.wait(left)


def _matches(entry: dict[str, object], fields: dict[str, object], contains: str) -> bool:
    if contains and contains not in str(entry.get("MESSAGE", "")):
        return False
    if fields:
        station = entry.get("station")
        if not isinstance(station, dict):
            return False
        return all(station.get(k) == v for k, v in fields.items())
    return True


def run_sh(request: dict[str, Any]) -> dict[str, Any]:
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", request["cmd"]],
            capture_output=True,
            text=True,
            timeout=float(request.get("timeout", 60)),
            input=request.get("input"),
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        return {"rc": None, "out": str(err.stdout or ""), "err": "timeout"}
    return {"rc": done.returncode, "out": done.stdout[-65536:], "err": done.stderr[-16384:]}


def reader(request: dict[str, Any]) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(READER_CONTROL)
        sock.sendall(json.dumps(request["request"]).encode() + b"\n")
        reply: dict[str, Any] = json.loads(sock.makefile("rb").readline())
        return reply


def handle(journal: Journal, request: dict[str, Any]) -> dict[str, Any]:
    op = request.get("op")
    if op == "sh":
        return run_sh(request)
    if op == "log_mark":
        with journal.cond:
            return {"index": len(journal.entries)}
    if op == "log_wait":
        return journal.wait(
            int(request.get("since", 0)),
            request.get("fields") or {},
            request.get("contains") or "",
            float(request.get("timeout", 30)),
        )
    if op == "log_batch":
        since = int(request.get("since", 0))
        with journal.cond:
            journal.cond.wait_for(
                lambda: len(journal.entries) > since, float(request.get("timeout", 30))
            )
            entries = journal.entries[since : since + 500]
        return {"entries": entries, "next": since + len(entries)}
    if op == "reader":
        return reader(request)
    if op == "ping":
        return {"pong": True}
    return {"error": f"unknown op {op!r}"}


def answer(journal: Journal, fd: int, lock: threading.Lock, line: bytes) -> None:
    try:
        request = json.loads(line)
        reply = {"id": request.get("id"), **handle(journal, request)}
    except Exception as err:  # the agent never dies of one bad request
        reply = {"id": None, "error": f"{type(err).__name__}: {err}"}
    payload = json.dumps(reply).encode() + b"\n"
    with lock:
        while payload:
            written = os.write(fd, payload)
            payload = payload[written:]


def serve(journal: Journal) -> None:
    fd = os.open(PORT, os.O_RDWR)
    lock = threading.Lock()
    buffer = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:  # no host on the other end yet: poll the port again shortly
            time.sleep(0.1)
            continue
        buffer += data
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            threading.Thread(target=answer, args=(journal, fd, lock, line), daemon=True).start()


if __name__ == "__main__":
    serve(Journal())
