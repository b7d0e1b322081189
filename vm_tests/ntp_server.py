"""A tiny NTP server for the arm64 boot test's clock: silent until told to answer.

It serves SNTP (RFC 4330: a mode 4 answer to each mode 3 request, stratum 1) on UDP
127.0.0.1:123 inside a network namespace of its own (``unshare --net``), so no other program
on the machine is reached or disturbed; QEMU runs in the same namespace (``nsenter``) and its
user network hands the guest's packets for 10.0.2.2:123 to it. The guest's
systemd-timesyncd is pointed there (``pi_image.TEST_TIMESYNCD``).

The host's test steers it over a unix socket, one JSON object a line, each answered
``{"ok": true, "requests": N}``: ``{"answer": true}`` starts answering with this machine's
clock, ``{"offset": S}`` shifts the time served by S seconds, ``{}`` only asks.

    unshare --net python3 vm_tests/ntp_server.py --control /tmp/x/ntp.sock
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path

#: Seconds from the NTP era (1900) to the Unix epoch.
NTP_EPOCH = 2_208_988_800
PACKET = struct.Struct("!BBbbII4sQQQQ")


def ntp_time(unix: float) -> int:
    """A Unix time as a 64-bit NTP timestamp (32.32 fixed point)."""
    return int((unix + NTP_EPOCH) * 2**32) & (2**64 - 1)


def answer(request: bytes, now: float) -> bytes | None:
    """The server's answer to ``request`` at ``now``, or None for what is not a client request."""
    if len(request) < PACKET.size:
        return None
    first, *_rest, transmit = PACKET.unpack_from(request)
    version, mode = (first >> 3) & 7, first & 7
    if mode != 3 or not 1 <= version <= 4:
        return None
    stamp = ntp_time(now)
    # LI 0 (no warning), the client's version, mode 4 (server); stratum 1, poll 4 (16 s),
    # precision 2^-20; no root delay, a root dispersion of 1/65536 s, reference "GPS".
    return PACKET.pack((version << 3) | 4, 1, 4, -20, 0, 1, b"GPS\0", stamp, transmit, stamp, stamp)


class Server:
    """The UDP server and its state (answering or not, the offset served)."""

    def __init__(self) -> None:
        self.answering = False
        self.offset = 0.0
        self.requests = 0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 123))

    def serve(self) -> None:
        while True:
            request, peer = self.sock.recvfrom(512)
            self.requests += 1
            reply = answer(request, time.time() + self.offset) if self.answering else None
            if reply is not None:
                self.sock.sendto(reply, peer)

    def control(self, path: Path) -> None:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        listener.listen(4)
        while True:
            conn, _ = listener.accept()
            with conn, conn.makefile("rwb") as stream:
                for line in stream:
                    order = json.loads(line)
                    if "answer" in order:
                        self.answering = bool(order["answer"])
                    if "offset" in order:
                        self.offset = float(order["offset"])
                    reply = {"ok": True, "requests": self.requests}
                    stream.write(json.dumps(reply).encode() + b"\n")
                    stream.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--control", type=Path, required=True)
    args = parser.parse_args()
    # A new network namespace starts with its loopback down.
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    server = Server()
    threading.Thread(target=server.serve, daemon=True).start()
    server.control(args.control)


if __name__ == "__main__":
    main()
