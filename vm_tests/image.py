"""The boot test's Debian 12 guest image, built once per recipe and cached outside the repo.

``mmdebstrap --variant=apt`` makes a bookworm root with systemd, udev, the stock kernel and
Python 3.11; ``mkfs.ext4 -d`` turns it into a raw ext4 image; the kernel and initrd are
copied beside it for QEMU's ``-kernel``/``-initrd``. The root holds nothing of the project
but a tiny boot hook, ``vm-agent.service``: it mounts the test's payload disk (``/dev/vdb``:
the .deb, the agent, the configuration) and runs ``agent.py`` from it, so a change to the
project never rebuilds the image.

The cache key is the sha256 of the recipe (this file's RECIPE, the hook and the unit), so a
changed recipe builds a new image: ``$DEALER_STATION_VM_CACHE`` or
``/var/cache/dealer-station-vm/<hash>/`` holds ``root.img``, ``vmlinuz`` and ``initrd.img``.
``python3 vm_tests/image.py`` builds it (about 75 s on a fresh machine) and prints the path.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CACHE = Path(os.environ.get("DEALER_STATION_VM_CACHE", "/var/cache/dealer-station-vm"))
SUITE = "bookworm"
PACKAGES = (
    "systemd,systemd-sysv,udev,kmod,linux-image-amd64,initramfs-tools,"
    "python3,python3.11,libusb-1.0-0,procps"
)
MIRRORS = (
    "deb http://deb.debian.org/debian bookworm main",
    "deb http://deb.debian.org/debian bookworm-updates main",
    "deb http://deb.debian.org/debian-security bookworm-security main",
)
IMAGE_SIZE = "1536M"


def agent_unit(mount: str, python: str) -> str:
    """``vm-agent.service``: mount the payload disk at ``mount``, run its agent with
    ``python`` (the guest's own, as the test's guests differ)."""
    return f"""\
[Unit]
Description=dealer-station boot test agent (payload disk /dev/vdb)
Requires=dev-vdb.device
After=dev-vdb.device

[Service]
ExecStartPre=/bin/mkdir -p {mount}
ExecStartPre=/bin/mount -o ro /dev/vdb {mount}
ExecStart={python} {mount}/agent.py
StandardOutput=journal

[Install]
WantedBy=multi-user.target
"""


AGENT_UNIT = agent_unit("/mnt/payload", "/usr/bin/python3")

# Run on the host with the new root as $1.
HOOK = """\
set -eu
root="$1"
echo dsvm > "$root/etc/hostname"
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' > "$root/etc/fstab"
chroot "$root" passwd -d root
printf '%s' "$AGENT_UNIT" > "$root/etc/systemd/system/vm-agent.service"
ln -sf /etc/systemd/system/vm-agent.service \
    "$root/etc/systemd/system/multi-user.target.wants/vm-agent.service"
for unit in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
        e2scrub_reap.service man-db.timer systemd-timesyncd.service; do
    ln -sf /dev/null "$root/etc/systemd/system/$unit"
done
mkdir -p "$root/etc/systemd/journald.conf.d"
printf '[Journal]\\nStorage=volatile\\n' > "$root/etc/systemd/journald.conf.d/volatile.conf"
rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
"""

RECIPE = {
    "suite": SUITE,
    "variant": "apt",
    "packages": PACKAGES,
    "mirrors": MIRRORS,
    "size": IMAGE_SIZE,
    "hook": HOOK,
    "agent_unit": AGENT_UNIT,
}


def recipe_hash() -> str:
    """The cache key: sha256 of the recipe, 16 hex digits."""
    text = json.dumps(RECIPE, sort_keys=True).encode()
    return hashlib.sha256(text).hexdigest()[:16]


def cached_image() -> Path:
    """The image directory for the current recipe, built if missing."""
    target = CACHE / recipe_hash()
    if (target / "root.img").exists():
        return target
    return build(target)


def build(target: Path) -> Path:
    """Build the image into ``target`` (atomically: a half-built image is never used)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="build-", dir=CACHE))
    try:
        root = work / "root"
        hook = work / "hook.sh"
        hook.write_text(HOOK)
        env = dict(os.environ, AGENT_UNIT=AGENT_UNIT)
        command = [
            "nice", "mmdebstrap", "--mode=root", "--variant=apt", f"--include={PACKAGES}",
            f"--customize-hook=sh {hook} \"$1\"", SUITE, str(root), *MIRRORS,
        ]  # fmt: skip
        log = work / "mmdebstrap.log"
        with log.open("wb") as out:
            done = subprocess.run(
                command, stdout=out, stderr=subprocess.STDOUT, env=env, check=False
            )
        if done.returncode != 0:
            tail = log.read_text(errors="replace").splitlines()[-20:]
            raise RuntimeError("mmdebstrap failed:\n" + "\n".join(tail))
        boot = sorted((root / "boot").glob("vmlinuz-*"))[-1]
        version = boot.name.removeprefix("vmlinuz-")
        shutil.copy2(boot, work / "vmlinuz")
        shutil.copy2(root / "boot" / f"initrd.img-{version}", work / "initrd.img")
        subprocess.run(
            ["mkfs.ext4", "-q", "-F", "-L", "dsroot", "-d", str(root),
             str(work / "root.img"), IMAGE_SIZE],
            check=True,
        )  # fmt: skip
        shutil.rmtree(root)
        (work / "recipe.json").write_text(json.dumps(RECIPE, indent=1))
        hook.unlink()
        os.replace(work, target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return target


def main() -> int:
    """Build (or find) the image; print its directory and the time taken."""
    started = time.monotonic()
    try:
        path = cached_image()
    except (RuntimeError, subprocess.CalledProcessError) as err:
        print(f"vm image: {err}", file=sys.stderr)
        return 1
    print(f"{path} ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
