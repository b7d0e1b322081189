"""``make image``: the flashable Raspberry Pi image (arm64, Debian 12) with the package installed.

Built the way Debian's own Raspberry Pi images are (its raspi image-specs), with mmdebstrap
and our own partitioning instead of vmdb2 (no loop devices or kpartx needed, so it builds in a
container too):

1. **The base root** (cached by the recipe's hash, like the boot test's image):
   ``mmdebstrap --arch=arm64`` of bookworm with Debian's ``linux-image-arm64`` and
   ``raspi-firmware`` (the Pi's boot firmware, config.txt and cmdline.txt), systemd-networkd,
   -resolved and -timesyncd. Maintainer scripts run under qemu-user-static and binfmt_misc.
2. **The system** (cached by the base's hash and pi-image/'s files): a copy of the base with
   ``pi-image/setup.sh`` and the files under ``pi-image/rootfs/`` (fstab, config.txt additions,
   the UART's udev rule, the watchdog, logs in RAM); the firmware partition is made from it
   here, since no package changes it.
3. **The image** (cached by the system's key and the package's sources, ``package_key``;
   the package is built only when the image is missing): a copy of the system
   with the arm64 package (``make deb ARCH=arm64``) installed by dpkg, not configured; then
   three partitions on an MBR disk, as the Pi's firmware wants:

   ====  =========  ======  ===================================================
   1     RASPIFIRM  FAT32   firmware, kernel, initrd, device trees, config.txt (read-only)
   2     RASPIROOT  ext4    the OS and the package (read-only in service)
   3     DSDATA     ext4    the journal, sealing state, pairing, the saved clock
   ====  =========  ======  ===================================================

   dpkg installs the package under emulation (its venv's bytecode comes in the package:
   debian/rules).

The result is ``build/image/dealer-station-pi-arm64.img`` (write it to the SD card whole).
Beside it in the cache are the kernel and initrd QEMU boots it with (``-machine virt``), and
``test.img``: the same image with the boot test's agent unit (``vm-agent.service``) and NTP
server added, which the flashable image never carries.

    sudo python3 vm_tests/pi_image.py            # build unless cached; prints the path
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arm64 import Arm64Error, aarch64_binfmt, arm64_root, chroot_mounts, run_host
from image import agent_unit

ROOT = Path(__file__).resolve().parent.parent
RECIPE_DIR = ROOT / "pi-image"
CACHE = Path(os.environ.get("DEALER_STATION_PI_CACHE", "/var/cache/dealer-station-pi"))
OUT = ROOT / "build" / "image"
IMAGE_NAME = "dealer-station-pi-arm64.img"
SUITE = "bookworm"
#: raspi-firmware is in non-free-firmware (the Pi's closed boot firmware).
MIRRORS = (
    "deb http://deb.debian.org/debian bookworm main non-free-firmware",
    "deb http://deb.debian.org/debian bookworm-updates main non-free-firmware",
    "deb http://deb.debian.org/debian-security bookworm-security main non-free-firmware",
)
PACKAGES = (
    "systemd,systemd-sysv,systemd-timesyncd,systemd-resolved,udev,kmod,"
    "linux-image-arm64,initramfs-tools,raspi-firmware,e2fsprogs,dosfstools,fdisk,"
    "python3.11,libusb-1.0-0,procps,sudo"
)
#: Partition sizes in MiB (the disk starts with 4 MiB for the MBR and alignment, as Debian's).
FIRMWARE_MIB, ROOT_MIB, DATA_MIB, LEAD_MIB = 256, 1536, 512, 4

#: The boot test's additions (test.img only): its agent, from the payload disk, and NTP from
#: the host side (10.0.2.2 in QEMU's user network), retried every few seconds and asked every
#: 16 s (timesyncd's shortest interval), so that a change of the server's time shows soon.
TEST_AGENT_UNIT = agent_unit("/run/payload", "/usr/bin/python3.11")
TEST_TIMESYNCD = """\
[Time]
NTP=10.0.2.2
FallbackNTP=
ConnectionRetrySec=2
PollIntervalMinSec=16
PollIntervalMaxSec=16
"""


def recipe_files() -> dict[str, str]:
    """The recipe's own files (pi-image/), path -> sha256."""
    return {
        str(path.relative_to(RECIPE_DIR)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(RECIPE_DIR.rglob("*"))
        if path.is_file()
    }


#: The initramfs is made once, at the end, with the modules a Pi needs to mount its root
#: (``MODULES=list``): SD card controllers of the Pi 3 and 4 (sdhost ``bcm2835``,
#: ``sdhci-iproc``), the block layer and ext4, and virtio for QEMU; udev loads the rest from
#: the root. Debian's default (``MODULES=most``, every storage and file-system driver), made
#: again by each trigger, ran mkinitramfs for more than half an hour under emulation here.
#: update-initramfs is diverted to /bin/true while the packages install, then put back.
INITRAMFS_MODULES = (
    "bcm2835", "sdhci_iproc", "sdhci_pltfm", "mmc_block", "ext4", "virtio_blk", "virtio_pci",
)  # fmt: skip
HOLD_INITRAMFS = (
    'chroot "$1" dpkg-divert --quiet --local --rename --add /usr/sbin/update-initramfs'
    ' && ln -s /bin/true "$1/usr/sbin/update-initramfs"'
)
MAKE_INITRAMFS = (
    'rm "$1/usr/sbin/update-initramfs"'
    ' && chroot "$1" dpkg-divert --quiet --local --rename --remove /usr/sbin/update-initramfs'
    ' && echo MODULES=list > "$1/etc/initramfs-tools/conf.d/dealer-station-pi.conf"'
    f' && printf "%s\\n" {" ".join(INITRAMFS_MODULES)}'
    ' > "$1/usr/share/initramfs-tools/modules.d/dealer-station-pi"'
    ' && chroot "$1" update-initramfs -c -k all'
)


def base_hash() -> str:
    """The base root's cache key: sha256 of what mmdebstrap is given, 16 hex digits."""
    recipe = {
        "suite": SUITE,
        "mirrors": MIRRORS,
        "packages": PACKAGES,
        "hooks": [HOLD_INITRAMFS, MAKE_INITRAMFS],
    }
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:16]


def cached_base(log: Path) -> Path:
    """The base root for the current recipe, made with mmdebstrap if missing."""
    hooks = (f"--essential-hook={HOLD_INITRAMFS}", f"--customize-hook={MAKE_INITRAMFS}")
    target = CACHE / f"base-{base_hash()}"
    return arm64_root(target, PACKAGES, log, marker="boot/firmware/config.txt", hooks=hooks,
                      mirrors=MIRRORS)  # fmt: skip


def _ids(root: Path, table: str, name: str) -> tuple[int, int]:
    """The uid and gid (or gid twice) of ``name`` in the root's passwd or group file."""
    for line in (root / "etc" / table).read_text().splitlines():
        fields = line.split(":")
        if fields[0] == name:
            return int(fields[2]), int(fields[3] if table == "passwd" else fields[2])
    raise Arm64Error(f"no {name} in the image's /etc/{table}")


def data_tree(root: Path, target: Path) -> None:
    """DSDATA's first contents: the station's state directory and timesyncd's clock file
    directory, owned by their users as the package and systemd made them in ``root``."""
    state = target / "dealer-station"
    clock = target / "timesync"
    state.mkdir(parents=True)
    clock.mkdir()
    os.chown(state, *_ids(root, "passwd", "dealer-station"))
    state.chmod(0o750)
    os.chown(clock, *_ids(root, "passwd", "systemd-timesync"))
    clock.chmod(0o755)


def firmware_fs(root: Path, work: Path, log: Path) -> Path:
    """The FAT firmware partition from the root's /boot/firmware (raspi-firmware's files),
    which is left empty: the partition mounts there."""
    firmware = work / "firmware.vfat"
    firmware.unlink(missing_ok=True)
    run_host(["mkfs.vfat", "-C", "-F", "32", "-n", "RASPIFIRM", str(firmware),
              str(FIRMWARE_MIB * 1024)], log)  # fmt: skip
    files = sorted((root / "boot" / "firmware").iterdir())
    if not files:
        raise Arm64Error("the root's /boot/firmware is empty: raspi-firmware wrote nothing")
    run_host(["mcopy", "-s", "-p", "-i", str(firmware), *map(str, files), "::/"], log)
    for path in files:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    return firmware


def root_fs(root: Path, work: Path, log: Path) -> Path:
    """The root file system (its /boot/firmware an empty mount point)."""
    system = work / "root.ext4"
    system.unlink(missing_ok=True)
    run_host(["mkfs.ext4", "-q", "-F", "-L", "RASPIROOT", "-d", str(root), str(system),
              f"{ROOT_MIB}M"], log)  # fmt: skip
    return system


def data_fs(root: Path, work: Path, log: Path) -> Path:
    """DSDATA, the table's own partition, with its first directories."""
    data = work / "data"
    data_tree(root, data)
    data_fs = work / "data.ext4"
    run_host(["mkfs.ext4", "-q", "-F", "-L", "DSDATA", "-d", str(data), str(data_fs),
              f"{DATA_MIB}M"], log)  # fmt: skip
    shutil.rmtree(data)
    return data_fs


def assemble(parts: dict[str, Path], image: Path, log: Path) -> None:
    """An MBR disk with the three partitions, as the Pi's firmware reads it."""
    total = LEAD_MIB + FIRMWARE_MIB + ROOT_MIB + DATA_MIB
    with image.open("wb") as out:
        out.truncate(total * 1024 * 1024)
    table = (
        "label: dos\n"
        f"start={LEAD_MIB}MiB, size={FIRMWARE_MIB}MiB, type=c, bootable\n"
        f"size={ROOT_MIB}MiB, type=83\n"
        f"size={DATA_MIB}MiB, type=83\n"
    )
    done = subprocess.run(["sfdisk", "-q", str(image)], input=table.encode(),
                          capture_output=True, check=False)  # fmt: skip
    if done.returncode != 0:
        raise Arm64Error(f"sfdisk: {done.stderr.decode(errors='replace').strip()}")
    offset = LEAD_MIB
    for name, size in (("firmware", FIRMWARE_MIB), ("root", ROOT_MIB), ("data", DATA_MIB)):
        run_host(["dd", f"if={parts[name]}", f"of={image}", "bs=1M", f"seek={offset}",
                  "conv=notrunc,sparse", "status=none"], log)  # fmt: skip
        offset += size


def install_package(root: Path, deb: Path, log: Path) -> None:
    """``dpkg -i`` the package in ``root`` (under emulation), as a technician would."""
    shutil.copy2(deb, root / "tmp" / "dealer-station.deb")
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive",
           "LANG": "C.UTF-8"}  # fmt: skip

    def dpkg(*args: str) -> None:
        with log.open("ab") as out:
            done = subprocess.run(
                ["nice", "-n", "19", "chroot", str(root), "dpkg", *args],
                env=env, stdout=out, stderr=subprocess.STDOUT, check=False,
            )  # fmt: skip
        if done.returncode != 0:
            raise Arm64Error(f"dpkg {args[0]} in the image failed (log: {log})")

    with chroot_mounts(root):
        dpkg("-i", "/tmp/dealer-station.deb")
    (root / "tmp" / "dealer-station.deb").unlink()


#: The boot test's additions as debugfs writes them into test.img's root file system: where
#: each goes, its text (None for the symlink) and, for the symlink, its target.
TEST_PARTS = (
    ("/etc/systemd/system/vm-agent.service", TEST_AGENT_UNIT),
    ("/etc/systemd/timesyncd.conf.d/boot-test.conf", TEST_TIMESYNCD),
)
TEST_AGENT_WANTED = "/etc/systemd/system/multi-user.target.wants/vm-agent.service"


def debugfs(image: Path, request: str) -> str:
    """One debugfs request (``-R``) on the ext4 ``image``, read-only; its output."""
    done = subprocess.run(["debugfs", "-R", request, str(image)], capture_output=True,
                          text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        raise Arm64Error(f"debugfs {request!r}: {done.stderr.strip()}")
    return done.stdout


def add_test_parts(system: Path, work: Path, log: Path) -> None:
    """The boot test's agent unit and NTP server (test.img only), written into the root file
    system ``system`` (root.ext4, already copied into pi.img) with debugfs: the flashable
    root made again with them took a second ``mkfs.ext4 -d`` of the whole root. Each part is
    read back: debugfs reports a failed command without failing."""
    script = work / "test-parts.debugfs"
    lines = []
    for number, (path, text) in enumerate(TEST_PARTS):
        source = work / f"test-part-{number}"
        source.write_text(text)
        source.chmod(0o644)
        lines += [f"mkdir {path.rsplit('/', 1)[0]}", f"write {source} {path}"]
    wants, unit = TEST_AGENT_WANTED.rsplit("/", 1)[0], TEST_PARTS[0][0]
    lines += [f"mkdir {wants}", f"symlink {TEST_AGENT_WANTED} {unit}"]
    script.write_text("\n".join(lines) + "\n")
    run_host(["debugfs", "-w", "-f", str(script), str(system)], log)
    for number, (path, text) in enumerate(TEST_PARTS):
        if debugfs(system, f"cat {path}") != text:
            raise Arm64Error(f"debugfs did not write {path} into test.img (log: {log})")
        (work / f"test-part-{number}").unlink()
    if f'Fast link dest: "{unit}"' not in debugfs(system, f"stat {TEST_AGENT_WANTED}"):
        raise Arm64Error(f"debugfs did not link {TEST_AGENT_WANTED} in test.img (log: {log})")
    script.unlink()


def system_key() -> str:
    """The system's cache key: the base's and pi-image/'s files."""
    recipe = {"base": base_hash(), "files": recipe_files(), "firmware_mib": FIRMWARE_MIB}
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:16]


def cached_system(log: Path) -> Path:
    """The system directory (``root/``, ``firmware.vfat``, ``vmlinuz``, ``initrd.img``) for
    the current recipe, built from the base if missing."""
    target = CACHE / f"system-{system_key()}"
    if (target / "firmware.vfat").exists():
        return target
    base = cached_base(log)
    work = Path(tempfile.mkdtemp(prefix="building-", dir=CACHE))
    try:
        root = work / "root"
        run_host(["cp", "-a", str(base), str(root)], log)
        with chroot_mounts(root):  # raspi-firmware's hook looks at /proc
            run_host(["sh", str(RECIPE_DIR / "setup.sh"), str(root)], log)
        kernel = sorted((root / "boot").glob("vmlinuz-*"))[-1]
        version = kernel.name.removeprefix("vmlinuz-")
        shutil.copy2(kernel, work / "vmlinuz")
        shutil.copy2(root / "boot" / f"initrd.img-{version}", work / "initrd.img")
        firmware_fs(root, work, log)
        # One system is kept: an older recipe's is of no further use.
        for old in CACHE.glob("system-*"):
            shutil.rmtree(old, ignore_errors=True)
        os.replace(work, target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return target


#: The scripts that build the arm64 package (debbuild.py hands it to debbuild_arm64.py).
PACKAGE_BUILDERS = ("debbuild.py", "debbuild_arm64.py")


def package_key() -> str:
    """What the arm64 package is made from: the packaged sources (``debbuild.source_hash``,
    which also decides when build/deb/'s .deb is reused), the scripts that build it, its
    build root's recipe and its dependency wheels' key.

    The image is keyed by this, not by the .deb's bytes: build/deb/ is per clone, so a fresh
    clone built the package (the cross build, dpkg-buildpackage, dpkg-shlibdeps under
    emulation) only to make an image the cache held for the same sources."""
    from debbuild import source_hash
    from debbuild_arm64 import build_root_hash, wheels_key

    here = Path(__file__).resolve().parent
    recipe = {
        "sources": source_hash(),
        "builders": {
            n: hashlib.sha256((here / n).read_bytes()).hexdigest() for n in PACKAGE_BUILDERS
        },
        "build_root": build_root_hash(),
        "wheels": wheels_key(),
    }
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:16]


def image_key(package: str) -> str:
    """The image's cache key: the system's, this module's test additions, the partitions'
    sizes and the package's (:func:`package_key`)."""
    recipe = {
        "system": system_key(),
        "test": [TEST_AGENT_UNIT, TEST_TIMESYNCD],
        "sizes": [LEAD_MIB, FIRMWARE_MIB, ROOT_MIB, DATA_MIB],
        "package": package,
    }
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:16]


def cached_image(built_deb: Callable[[], Path]) -> Path:
    """The image directory (``pi.img``, ``test.img``, ``vmlinuz``, ``initrd.img``) for the
    current recipe and package sources; when missing, the arm64 package from ``built_deb()``
    (``debbuild.built_deb``: built, or reused while the sources are unchanged) is installed
    into a new one. The package is not built when the image is cached.

    Raises:
        Arm64Error: a step failed (one line, naming the log).
    """
    target = CACHE / f"image-{image_key(package_key())}"
    if (target / "test.img").exists():
        return target
    deb = built_deb()
    if os.geteuid() != 0:
        raise Arm64Error("needs root (mmdebstrap --mode=root, chroot, binfmt_misc)")
    CACHE.mkdir(parents=True, exist_ok=True)
    log = CACHE / "build.log"
    log.write_text("")
    work = Path(tempfile.mkdtemp(prefix="building-", dir=CACHE))
    started = time.monotonic()

    def step(what: str) -> None:
        with log.open("a") as out:
            out.write(f"cached_image: {what} ({time.monotonic() - started:.0f} s)\n")

    try:
        with aarch64_binfmt():
            system = cached_system(log)
            step("the system")
            with overlay(system / "root", work) as root:
                install_package(root, deb, log)
                step("the package installed")
                parts = {
                    "firmware": system / "firmware.vfat",
                    "root": root_fs(root, work, log),
                    "data": data_fs(root, work, log),
                }
                assemble(parts, work / "pi.img", log)
                step("pi.img")
                add_test_parts(parts["root"], work, log)
                assemble(parts, work / "test.img", log)
                step("test.img")
        for name in ("vmlinuz", "initrd.img"):
            shutil.copy2(system / name, work / name)
        for name in ("root", "data"):
            parts[name].unlink()
        for name in ("upper", "overlay-work", "root"):
            shutil.rmtree(work / name)
        # One image per package is kept: an older one is of no further use.
        for old in CACHE.glob("image-*"):
            shutil.rmtree(old, ignore_errors=True)
        os.replace(work, target)
        step("done")
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return target


@contextlib.contextmanager
def overlay(lower: Path, work: Path) -> Iterator[Path]:
    """``work/root``: ``lower`` with an overlay file system over it for the ``with`` block,
    the changes going to ``work/upper``; the cached ``lower`` is never written (and is not
    copied: it is most of a gigabyte)."""
    upper, scratch, merged = work / "upper", work / "overlay-work", work / "root"
    for path in (upper, scratch, merged):
        path.mkdir()
    run_host(["mount", "-t", "overlay", "overlay", "-o",
              f"lowerdir={lower},upperdir={upper},workdir={scratch}", str(merged)])  # fmt: skip
    try:
        yield merged
    finally:
        subprocess.run(["umount", str(merged)], check=False)


def main() -> int:
    """``make image``: build (or find) the image; copy it to build/image/."""
    from debbuild import built_deb

    started = time.monotonic()
    try:
        built = cached_image(lambda: built_deb("arm64"))
    except (Arm64Error, RuntimeError, subprocess.CalledProcessError) as err:
        print(f"make image: {err}", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    run_host(["cp", "--sparse=always", str(built / "pi.img"), str(OUT / IMAGE_NAME)])
    print(f"{OUT / IMAGE_NAME} ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
