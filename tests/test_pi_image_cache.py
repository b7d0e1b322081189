"""The Raspberry Pi image's cache (vm_tests/pi_image.py), checked without emulation: seconds.

- The image is found by the arm64 package's sources: when the cache holds it, the package is
  not built at all (a fresh clone has no build/deb/ to reuse).
- test.img's additions go into the flashable root file system with debugfs, and read back.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pi_image
import pytest


def test_a_cached_image_is_found_without_building_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pi_image, "CACHE", tmp_path)
    key = pi_image.image_key(pi_image.package_key())
    (tmp_path / f"image-{key}").mkdir()
    (tmp_path / f"image-{key}" / "test.img").write_bytes(b"")

    def must_not_build() -> Path:
        raise AssertionError("the package was built for an image the cache holds")

    assert pi_image.cached_image(must_not_build) == tmp_path / f"image-{key}"


def test_the_package_key_follows_its_build_scripts(monkeypatch: pytest.MonkeyPatch) -> None:
    before = pi_image.package_key()
    assert pi_image.package_key() == before  # the same sources, the same key
    monkeypatch.setattr(pi_image, "PACKAGE_BUILDERS", ("debbuild.py", "pi_image.py"))
    assert pi_image.package_key() != before


def test_the_test_parts_are_written_into_the_root_file_system(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    wants = tree / "etc/systemd/system/multi-user.target.wants"
    wants.mkdir(parents=True)
    (wants / "systemd-networkd.service").symlink_to("/lib/systemd/system/systemd-networkd.service")
    system = tmp_path / "root.ext4"
    subprocess.run(["mkfs.ext4", "-q", "-F", "-d", str(tree), str(system), "16M"], check=True)
    work = tmp_path / "work"
    work.mkdir()
    pi_image.add_test_parts(system, work, tmp_path / "log")
    agent = pi_image.debugfs(system, "cat /etc/systemd/system/vm-agent.service")
    assert "ExecStart=/usr/bin/python3.11 /run/payload/agent.py" in agent.splitlines()
    ntp = pi_image.debugfs(system, "cat /etc/systemd/timesyncd.conf.d/boot-test.conf")
    assert "NTP=10.0.2.2" in ntp.splitlines()
    link = pi_image.debugfs(system, "stat " + pi_image.TEST_AGENT_WANTED)
    assert 'Fast link dest: "/etc/systemd/system/vm-agent.service"' in link
    listing = pi_image.debugfs(system, "ls -l /etc/systemd/system/multi-user.target.wants")
    assert "systemd-networkd.service" in listing  # what was there stays
    for path in ("/etc/systemd/system/vm-agent.service", "/etc/systemd/timesyncd.conf.d"):
        mode = pi_image.debugfs(system, f"stat {path}").split("Mode:", 1)[1].split()[0]
        assert mode in ("0644", "0755"), (path, mode)
    fsck = subprocess.run(["e2fsck", "-fn", str(system)], capture_output=True, check=False)
    assert fsck.returncode == 0, fsck.stdout
    assert sorted(p.name for p in work.iterdir()) == []  # its scratch files removed
