"""Build ``dealer-station_<version>_<arch>.deb`` with Debian's tooling (``make deb``).

The source tree (tracked files plus new, not ignored ones: what ``git ls-files -co
--exclude-standard`` lists) is copied to ``build/deb/src/`` and built there with
``dpkg-buildpackage -b`` (debhelper and dh-virtualenv: ``debian/rules``), so nothing lands
beside the repository. The .deb goes to ``build/deb/`` with a stamp holding the hash of the
sources it came from; ``built_deb()`` reuses it while the sources are unchanged, and a
copy is kept by that hash in ``/var/cache/dealer-station-deb/`` (``CACHE``), which a fresh
clone of the same sources takes instead of building.

    python3 vm_tests/debbuild.py           # build unless up to date; prints the path
    python3 vm_tests/debbuild.py --force   # build anyway
    sudo python3 vm_tests/debbuild.py --arch arm64   # the Raspberry Pi's (debbuild_arm64.py)
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "deb"
#: What the package is built from; the tests, benchmarks and the boot test are not in it, so
#: changing them does not rebuild it. Nor is floor/ (the floor's collector and monitor run
#: off the table: the station never needs them). Of docs/, the files the package installs
#: (:func:`packaged_docs`): docs/testing.md, the test suite's and its mutation ledger's,
#: is not installed, and changing it rebuilds neither the .deb nor the Pi image.
PACKAGED = ("controller/", "drivers/", "firmware_bridge/", "debian/", "systemd/",
            "examples/", "pyproject.toml", "setup.py")  # fmt: skip
#: debhelper's list of the documents installed in /usr/share/doc/dealer-station/.
DOCS_LIST = Path("debian/dealer-station.docs")
#: Packages kept by the hash of their sources, as the boot tests' images are kept by their
#: recipe's: a fresh clone of sources built before (CI's) takes the package from here
#: instead of building it again (about a minute of dpkg-buildpackage on two cores). The
#: last KEEP are kept.
CACHE = Path(os.environ.get("DEALER_STATION_DEB_CACHE", "/var/cache/dealer-station-deb"))
KEEP = 6


def packaged_docs(root: Path = ROOT) -> set[str]:
    """The documents the package installs: debian/dealer-station.docs's lines (file names,
    relative to the source tree)."""
    lines = (root / DOCS_LIST).read_text().splitlines()
    return {line.strip() for line in lines if line.strip()}


def source_files(root: Path = ROOT) -> list[Path]:
    """The files the package is built from, relative to ``root``, sorted."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    files = [Path(os.fsdecode(name)) for name in listed if name]
    docs = packaged_docs(root)
    return sorted(
        f
        for f in files
        if (f.as_posix().startswith(PACKAGED) or f.as_posix() in docs)
        and ((root / f).is_file() or (root / f).is_symlink())
    )


def source_hash(root: Path = ROOT) -> str:
    """sha256 over every source file's name and content (symlinks by their target)."""
    digest = hashlib.sha256()
    for rel in source_files(root):
        path = root / rel
        digest.update(os.fsencode(rel) + b"\0")
        if path.is_symlink():
            digest.update(b"link:" + os.fsencode(os.readlink(path)))
        else:
            digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def changelog_version(root: Path = ROOT) -> str:
    """The package version from debian/changelog."""
    return subprocess.run(
        ["dpkg-parsechangelog", "-l", str(root / "debian" / "changelog"), "-S", "Version"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def host_arch() -> str:
    """This machine's Debian architecture (``dpkg --print-architecture``)."""
    return subprocess.run(
        ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
    ).stdout.strip()


def deb_path(arch: str | None = None) -> Path:
    """Where the .deb for ``arch`` (default: this machine's) lands."""
    return OUT / f"dealer-station_{changelog_version()}_{arch or host_arch()}.deb"


def build(arch: str | None = None) -> Path:
    """Build the .deb from a copy of the sources; returns its path."""
    wanted = deb_path(arch)
    digest = source_hash()
    src = OUT / f"src-{arch or host_arch()}" / f"dealer-station-{changelog_version()}"
    if src.parent.exists():
        shutil.rmtree(src.parent)
    src.mkdir(parents=True)
    for rel in source_files():
        target = src / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        origin = ROOT / rel
        if origin.is_symlink():
            target.symlink_to(os.readlink(origin))
        else:
            shutil.copy2(origin, target)
    if arch is not None and arch != host_arch():
        if arch != "arm64":
            raise RuntimeError(f"no build recipe for {arch} on {host_arch()} (arm64 only)")
        # The Raspberry Pi's package: vm_tests/debbuild_arm64.py (a cross compiler for the
        # compiled rules engine, dpkg-buildpackage in an arm64 root under emulation).
        from arm64 import Arm64Error
        from debbuild_arm64 import build as build_arm64

        try:
            build_arm64(src, wanted, str(ROOT / ".venv" / "bin" / "python"))
        except Arm64Error as err:
            raise RuntimeError(str(err)) from err
        wanted.with_suffix(".source-hash").write_text(digest + "\n")
        shutil.rmtree(src.parent)
        keep(wanted, digest)
        return wanted
    command = ["nice", "dpkg-buildpackage", "-b", "-us", "-uc"]
    with (OUT / "build.log").open("wb") as log:
        done = subprocess.run(command, cwd=src, stdout=log, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        tail = (OUT / "build.log").read_text(errors="replace").splitlines()[-25:]
        raise RuntimeError("dpkg-buildpackage failed:\n" + "\n".join(tail))
    built = src.parent / wanted.name
    shutil.move(built, wanted)
    wanted.with_suffix(".source-hash").write_text(digest + "\n")
    shutil.rmtree(src.parent)
    keep(wanted, digest)
    return wanted


def keep(deb: Path, digest: str) -> None:
    """Put ``deb`` (built from sources of hash ``digest``) in :data:`CACHE`, and drop all
    but the last :data:`KEEP` sources' packages. A cache that cannot be written is passed
    over: it only saves time."""
    try:
        folder = CACHE / digest
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f".{deb.name}.partial"
        shutil.copy2(deb, partial)
        partial.replace(folder / deb.name)  # whole or absent: never half a package
        os.utime(folder)
        folders = sorted(
            (f for f in CACHE.iterdir() if f.is_dir()), key=lambda f: f.stat().st_mtime
        )
        for old in folders[:-KEEP]:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as err:
        print(f"debbuild: the package is not kept in {CACHE}: {err}", file=sys.stderr)


def built_deb(arch: str | None = None) -> Path:
    """The .deb of the current sources: the one built before if they did not change,
    here or in :data:`CACHE`."""
    wanted = deb_path(arch)
    stamp = wanted.with_suffix(".source-hash")
    digest = source_hash()
    if wanted.exists() and stamp.exists() and stamp.read_text().strip() == digest:
        return wanted
    kept = CACHE / digest / wanted.name
    if kept.is_file():
        OUT.mkdir(parents=True, exist_ok=True)
        shutil.copy2(kept, wanted)
        stamp.write_text(digest + "\n")
        os.utime(kept.parent)
        return wanted
    return build(arch)


def main() -> int:
    """``make deb``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="build even when up to date")
    parser.add_argument("--arch", help="Debian architecture to build for (default: this one)")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        path = build(args.arch) if args.force else built_deb(args.arch)
    except (RuntimeError, subprocess.CalledProcessError) as err:
        print(f"make deb: {err}", file=sys.stderr)
        return 1
    print(f"{path} ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
