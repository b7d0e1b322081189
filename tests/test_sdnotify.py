"""sd_notify over a real datagram socket, as systemd listens for it."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.service.sdnotify import Notifier


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = tmp_path / "notify"
    sock.bind(str(path))
    sock.settimeout(5)
    yield sock, str(path)
    sock.close()


def received(sock: socket.socket) -> str:
    return sock.recv(4096).decode()


def test_ready_status_watchdog_stopping(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    notifier = Notifier({"NOTIFY_SOCKET": path})
    assert notifier.enabled
    assert notifier.ready("bets open")
    assert received(sock) == "READY=1\nSTATUS=bets open"
    assert notifier.status("fault:\nshoe lost")
    assert received(sock) == "STATUS=fault: shoe lost"  # one line, always
    assert notifier.watchdog()
    assert received(sock) == "WATCHDOG=1"
    assert notifier.stopping("clean shutdown")
    assert received(sock) == "STOPPING=1\nSTATUS=clean shutdown"
    notifier.close()
    notifier.close()
    assert not notifier.status("closed")


def test_abstract_namespace_socket() -> None:
    name = f"dealer-station-test-{uuid.uuid4().hex}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(5)
    try:
        notifier = Notifier({"NOTIFY_SOCKET": "@" + name})
        assert notifier.ready()
        assert received(sock) == "READY=1"
        notifier.close()
    finally:
        sock.close()


def test_watchdog_interval_is_half_the_timeout(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())}
    notifier = Notifier(env)
    assert notifier.watchdog_interval == 5.0
    assert notifier.feed_watchdog(now=100.0)  # the first turn pings at once
    assert received(sock) == "WATCHDOG=1"
    assert not notifier.feed_watchdog(now=104.9)
    assert notifier.feed_watchdog(now=105.0)
    assert received(sock) == "WATCHDOG=1"
    sock.settimeout(0.05)
    with pytest.raises(TimeoutError):
        sock.recv(4096)  # exactly two pings were sent
    notifier.close()


@pytest.mark.parametrize(
    "env",
    [
        {"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "1"},  # another process's watchdog
        {"WATCHDOG_USEC": "zero"},
        {"WATCHDOG_USEC": "0"},
        {},
    ],
)
def test_no_watchdog(listener: tuple[socket.socket, str], env: dict[str, str]) -> None:
    notifier = Notifier({"NOTIFY_SOCKET": listener[1], **env})
    assert notifier.watchdog_interval is None
    assert not notifier.feed_watchdog(now=1.0)
    notifier.close()


def test_outside_systemd_everything_is_a_no_op() -> None:
    notifier = Notifier({})
    assert not notifier.enabled
    assert not notifier.ready() and not notifier.feed_watchdog() and not notifier.stopping()
    assert not Notifier({"NOTIFY_SOCKET": "vsock:2:1234"}).enabled


def test_a_vanished_socket_does_not_raise(tmp_path: Path) -> None:
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert notifier.enabled and not notifier.ready()
    notifier.close()
