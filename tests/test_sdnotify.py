"""sd_notify over a real datagram socket, as systemd listens for it."""

from __future__ import annotations

import os
import socket
import string
import threading
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


def test_a_status_line_is_cut_at_200_characters(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    notifier = Notifier({"NOTIFY_SOCKET": path})
    assert notifier.status("a" * 200)
    assert received(sock) == "STATUS=" + "a" * 200
    assert notifier.status("b" * 201)
    assert received(sock) == "STATUS=" + "b" * 200
    assert notifier.stopping()
    assert received(sock) == "STOPPING=1"  # no status: no STATUS line
    notifier.close()
    assert not notifier.enabled


@pytest.mark.parametrize("value", ["@", "notify", "run/notify", ""])
def test_a_socket_address_systemd_does_not_give_is_not_used(value: str) -> None:
    """sd_notify(3): an absolute path, or ``@`` and an abstract name; nothing else."""
    notifier = Notifier({"NOTIFY_SOCKET": value})
    assert not notifier.enabled and not notifier.ready()


def test_a_one_character_abstract_name_is_an_address() -> None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    for name in string.ascii_letters:  # the first one free on this machine
        try:
            sock.bind("\0" + name)
            break
        except OSError:
            continue
    sock.settimeout(5)
    try:
        notifier = Notifier({"NOTIFY_SOCKET": "@" + name})
        assert notifier.ready()
        assert received(sock) == "READY=1"
        notifier.close()
    finally:
        sock.close()


def test_a_watchdog_without_its_pid_is_ours(listener: tuple[socket.socket, str]) -> None:
    """sd_watchdog_enabled(3): WATCHDOG_PID unset means the watchdog is this process's."""
    notifier = Notifier({"NOTIFY_SOCKET": listener[1], "WATCHDOG_USEC": "3000000"})
    assert notifier.watchdog_interval == 1.5
    notifier.close()


def test_a_negative_watchdog_timeout_is_none(listener: tuple[socket.socket, str]) -> None:
    notifier = Notifier({"NOTIFY_SOCKET": listener[1], "WATCHDOG_USEC": "-1"})
    assert notifier.watchdog_interval is None
    notifier.close()
    notifier = Notifier({"NOTIFY_SOCKET": listener[1], "WATCHDOG_USEC": "1"})
    assert notifier.watchdog_interval == 0.0000005  # 1 us is a timeout: half of it
    notifier.close()


def test_a_ping_sent_by_hand_counts_for_the_interval(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "600000000"})
    assert notifier.watchdog()
    assert received(sock) == "WATCHDOG=1"
    assert not notifier.feed_watchdog()  # 300 s have not passed since
    sock.settimeout(0.05)
    with pytest.raises(TimeoutError):
        sock.recv(4096)
    notifier.close()


def test_a_watchdog_without_a_socket_is_never_fed() -> None:
    notifier = Notifier({"WATCHDOG_USEC": "10000000"})
    assert notifier.watchdog_interval == 5.0
    assert not notifier.feed_watchdog(now=100.0)


def test_a_ping_that_could_not_be_sent_says_so_and_waits_its_interval(tmp_path: Path) -> None:
    path = tmp_path / "notify"
    notifier = Notifier({"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "10000000"})
    assert not notifier.feed_watchdog(now=100.0)  # nobody listens yet
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(5)
    try:
        assert not notifier.feed_watchdog(now=104.9)  # not before its interval
        assert notifier.feed_watchdog(now=105.0)
        assert received(sock) == "WATCHDOG=1"
    finally:
        sock.close()
        notifier.close()


def test_the_socket_is_not_inherited_by_a_child() -> None:
    notifier = Notifier({"NOTIFY_SOCKET": "/run/systemd/notify-none"})
    assert notifier._socket is not None
    assert not notifier._socket.get_inheritable()
    assert notifier._socket.type == socket.SOCK_DGRAM
    notifier.close()


def test_the_environment_is_the_processs_own_by_default(
    listener: tuple[socket.socket, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """systemd passes NOTIFY_SOCKET and WATCHDOG_USEC in the service's environment."""
    sock, path = listener
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "4000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    notifier = Notifier()
    assert notifier.watchdog_interval == 2.0
    assert notifier.ready()
    assert received(sock) == "READY=1"
    notifier.close()


def test_a_manager_that_does_not_read_costs_a_send_its_timeout_not_the_loop(
    listener: tuple[socket.socket, str],
) -> None:
    """systemd's queue full (a manager too busy to read): each message waits its timeout at
    most and is dropped, instead of holding the main loop; once it reads, they go again."""
    sock, path = listener
    notifier = Notifier({"NOTIFY_SOCKET": path}, send_timeout=0.05)
    results: list[bool] = []

    def fill() -> None:
        # The queue holds net.unix.max_dgram_qlen datagrams (10 by default, 512 where
        # systemd raised it), fewer if the send buffer fills first.
        while len(results) < 5000 and (not results or results[-1]):
            results.append(notifier.status(f"state {len(results)}"))

    filler = threading.Thread(target=fill, daemon=True)
    filler.start()
    filler.join(30.0)
    assert not filler.is_alive(), "a send blocked on the full queue"
    assert results[-1] is False and all(results[:-1]) and len(results) > 1, len(results)
    assert notifier.watchdog() is False  # still full: dropped too
    for number in range(len(results) - 1):  # systemd reads again
        assert received(sock) == f"STATUS=state {number}"
    assert notifier.stopping("clean shutdown")
    assert received(sock) == "STOPPING=1\nSTATUS=clean shutdown"
    notifier.close()
