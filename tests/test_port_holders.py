"""A serial port another process holds is refused before the station starts
(``check-config --ports``, run as root by the unit), with the holder named: TIOCEXCL stops
only later openers without root's capability (docs/operations.md). A real pty; its slave
held by a real child process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_cli_hostile import EXAMPLE, assert_refused, invoke

from drivers.port_holders import Holder, port_holders


@pytest.fixture
def pty_port() -> Iterator[tuple[Path, int]]:
    """A pty published as a symlink under /dev/shm (ports are configured under /dev/), and
    its slave's descriptor in this process."""
    master, slave = os.openpty()
    tty.setraw(slave)
    folder = Path(tempfile.mkdtemp(prefix="holders-", dir="/dev/shm"))
    link = folder / "shoe"
    link.symlink_to(os.ttyname(slave))
    try:
        yield link, slave
    finally:
        os.close(master)
        os.close(slave)
        shutil.rmtree(folder)


def configured(port: Path) -> Path:
    text = EXAMPLE.read_text().replace('port = "/dev/dealer-shoe"', f'port = "{port}"')
    path = port.with_name("station.toml")
    path.write_text(text)
    return path


def test_a_port_another_process_holds_is_refused_with_its_holder(
    pty_port: tuple[Path, int],
) -> None:
    port, slave = pty_port
    config = configured(port)
    assert invoke(["check-config", "--ports", str(config)])[0] == 0  # only this process
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.buffer.read(1)"], stdin=slave
    )
    try:
        assert port_holders(port) == [Holder(child.pid, Path(f"/proc/{child.pid}/comm")
                                             .read_text().strip())]  # fmt: skip
        result = invoke(["check-config", "--ports", str(config)])
        assert_refused(result, {2})
        assert f"devices.shoe.port: {port} is held by pid {child.pid} (" in result[2][0]
        # Without --ports (the unprivileged check) the configuration alone is judged.
        assert invoke(["check-config", str(config)])[0] == 0
    finally:
        child.kill()
        child.wait()
    assert invoke(["check-config", "--ports", str(config)])[0] == 0


def test_what_is_not_a_character_device_has_no_holders(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    assert port_holders(tmp_path / "file") == []
    assert port_holders(tmp_path / "missing") == []
    assert port_holders("\0") == []


def _fake_proc(root: Path, port: Path) -> dict[str, int]:
    """A /proc-shaped tree (the ``proc`` argument) beside the real port: each pid a folder
    with ``fd/`` links and a ``comm``; pids chosen apart from this process's own."""
    mine = os.getpid()
    pids = [p for p in range(100_000, 100_010) if p != mine][:5]
    named = dict(zip(("gone", "holder", "closing", "garbled", "silent"), pids, strict=True))
    for role, pid in named.items():
        (root / str(pid)).mkdir()
        if role != "gone":  # "gone": exited between the listing of /proc and its fd/
            (root / str(pid) / "fd").mkdir()
    fds = {role: root / str(pid) / "fd" for role, pid in named.items()}
    fds["holder"].joinpath("0").symlink_to(port)
    (root / str(named["holder"]) / "comm").write_text("minicom\n")
    # A descriptor closed while the fds are read (its link dangles) between two others:
    # tmpfs lists a folder in (reverse) creation order, so one of them is read first.
    fds["closing"].joinpath("7").symlink_to(root / "closed")
    fds["closing"].joinpath("8").symlink_to(port)
    fds["closing"].joinpath("9").symlink_to(root / "closed")
    (root / str(named["closing"]) / "comm").write_text("screen\n")
    fds["garbled"].joinpath("3").symlink_to(port)
    (root / str(named["garbled"]) / "comm").write_bytes(b"\xffterm\n")  # not UTF-8
    fds["silent"].joinpath("4").symlink_to(port)  # its comm gone: it exited meanwhile
    return named


def test_every_holder_is_named_even_when_processes_and_descriptors_vanish_meanwhile(
    pty_port: tuple[Path, int],
) -> None:
    # A technician who runs check-config --ports must see every process on the port: one
    # that exits (or closes a descriptor) while /proc is read hides none of the others, and
    # a command name that cannot be read or decoded still names the pid.
    port, _ = pty_port
    root = Path(tempfile.mkdtemp(prefix="proc-", dir="/dev/shm"))
    try:
        named = _fake_proc(root, port)
        holders = port_holders(port, proc=root)
    finally:
        shutil.rmtree(root)
    assert holders == [
        Holder(named["holder"], "minicom"),
        Holder(named["closing"], "screen"),
        Holder(named["garbled"], "\ufffdterm"),
        Holder(named["silent"], "?"),
    ]
    assert str(holders[-1]) == f"pid {named['silent']} (?)"


def test_an_empty_command_name_is_shown_as_unknown(pty_port: tuple[Path, int]) -> None:
    port, _ = pty_port
    root = Path(tempfile.mkdtemp(prefix="proc-", dir="/dev/shm"))
    try:
        pid = 100_000 if os.getpid() != 100_000 else 100_001
        (root / str(pid) / "fd").mkdir(parents=True)
        (root / str(pid) / "fd" / "5").symlink_to(port)
        (root / str(pid) / "comm").write_text("\n")
        assert [str(h) for h in port_holders(port, proc=root)] == [f"pid {pid} (?)"]
    finally:
        shutil.rmtree(root)
