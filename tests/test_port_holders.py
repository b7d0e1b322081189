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
