"""``make deb ARCH=arm64`` on an x86_64 machine: the Raspberry Pi's package, built the Debian way.

Two steps, each where it is fast and sound:

1. **The wheelhouse, on the host.** The project's own wheel is built with its rules engine
   compiled by mypyc (``DEALER_STATION_MYPYC=1``, setup.py): mypyc writes C here, and Debian's
   cross compiler ``aarch64-linux-gnu-gcc`` (gcc 12, as on the Pi) compiles it against the arm64
   Python 3.11's own headers and build configuration (``pyconfig.h`` and
   ``_sysconfigdata__aarch64-linux-gnu.py``, taken from the build root below): the flags,
   extension suffix and ABI are the arm64 interpreter's. When that compile fails the pure wheel
   goes in instead, and the build says so. The dependencies come as aarch64 wheels from PyPI
   (``pip download --platform``); the few published only as source (:data:`SOURCE_ONLY`) are
   built with the same cross compiler.
2. **The package, under emulation.** ``dpkg-buildpackage -b`` runs in a cached arm64 Debian 12
   root (debhelper, dh-virtualenv) under ``qemu-aarch64-static`` and binfmt_misc, with pip
   reading only the wheelhouse (``PIP_NO_INDEX``, ``PIP_FIND_LINKS``): dh-virtualenv,
   dh_shlibdeps and dpkg-deb run as the arm64 programs a Pi would run, with the same
   ``debian/rules`` as the amd64 package (which installs ``.[pi]`` on arm64: gpiozero's lgpio
   pin factory).

Compiling the C under emulation instead takes minutes (vm_tests/arm64.py measured about three
for the rules engine alone); here the whole package takes about a minute and a half. The root is
cached like the boot test's image, by its recipe's hash, in ``$DEALER_STATION_ARM64_CACHE`` or
``/var/cache/dealer-station-arm64/``. Needs root (chroot, binfmt_misc), ``make system-deps``
(qemu-user-static, mmdebstrap, gcc-aarch64-linux-gnu) and the project's venv (mypy).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arm64 import CACHE, Arm64Error, aarch64_binfmt, arm64_root, chroot_mounts, run_host
from image import MIRRORS, SUITE

ROOT = Path(__file__).resolve().parent.parent
#: What ``dpkg-buildpackage`` needs in the arm64 root (debian/control's Build-Depends).
BUILD_PACKAGES = "build-essential,debhelper,dh-virtualenv,python3.11-dev,python3.11-venv"
BUILD_RECIPE = {"suite": SUITE, "arch": "arm64", "variant": "apt", "packages": BUILD_PACKAGES}
#: Dependencies PyPI has no aarch64 wheel of: built from source with the cross compiler.
#: (cobs 1.2.2 is a source distribution; its C extension is optional.)
SOURCE_ONLY = ("cobs",)
#: The platform tags an arm64 Debian 12 (glibc 2.36) Python 3.11 takes, best first.
PLATFORMS = tuple(
    [f"manylinux_2_{minor}_aarch64" for minor in range(36, 16, -1)]
    + ["manylinux2014_aarch64", "linux_aarch64"]
)
#: The arm64 interpreter's build configuration, as sysconfig names it.
SYSCONFIG = "_sysconfigdata__aarch64-linux-gnu"
CROSS_CC = "aarch64-linux-gnu-gcc"


def build_root_hash() -> str:
    """The build root's cache key: sha256 of its recipe and the mirrors, 16 hex digits."""
    text = json.dumps({**BUILD_RECIPE, "mirrors": MIRRORS}, sort_keys=True).encode()
    return hashlib.sha256(text).hexdigest()[:16]


def cached_build_root(log: Path) -> Path:
    """The arm64 build root for the current recipe, made with mmdebstrap if missing."""
    target = CACHE / f"build-{build_root_hash()}"
    return arm64_root(target, BUILD_PACKAGES, log, marker="usr/bin/dh_virtualenv")


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (one build at a time in a shared root)."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def cross_env(build_root: Path, work: Path) -> dict[str, str]:
    """The environment that makes setuptools build for arm64 Python 3.11 with the cross
    compiler: the arm64 interpreter's sysconfig data (CC, flags, the extension suffix) and
    its ``pyconfig.h``, nothing else of the arm64 root."""
    config = work / "cross-sysconfig"
    include = work / "cross-include" / "aarch64-linux-gnu" / "python3.11"
    config.mkdir(parents=True, exist_ok=True)
    include.mkdir(parents=True, exist_ok=True)
    shutil.copy2(build_root / "usr/lib/python3.11" / f"{SYSCONFIG}.py", config)
    shutil.copy2(build_root / "usr/include/aarch64-linux-gnu/python3.11/pyconfig.h", include)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "_PYTHON"))}
    return env | {
        "_PYTHON_SYSCONFIGDATA_NAME": SYSCONFIG,
        "_PYTHON_HOST_PLATFORM": "linux-aarch64",
        "PYTHONPATH": str(config),
        # Python.h's pyconfig.h is Debian's multiarch one: it includes
        # <aarch64-linux-gnu/python3.11/pyconfig.h> when __aarch64__ is defined.
        "CFLAGS": f"-isystem {work / 'cross-include'}",
    }


def wheelhouse(build_root: Path, source: Path, out: Path, python: str, log: Path) -> bool:
    """Fill ``out`` with aarch64 wheels of the project and its dependencies; True when the
    project's wheel carries the compiled rules engine."""
    env = cross_env(build_root, out.parent)
    compiled = True
    done = subprocess.run(
        ["nice", python, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
         str(out), "."],
        cwd=source, env=env | {"DEALER_STATION_MYPYC": "1"}, stdout=log.open("ab"),
        stderr=subprocess.STDOUT, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        compiled = False
        print("make deb ARCH=arm64: the compiled rules engine did not build (log: "
              f"{log}); the package carries the pure one", file=sys.stderr)  # fmt: skip
        shutil.rmtree(source / "build", ignore_errors=True)
        run_host(["nice", python, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                  "-w", str(out), str(source)], log)  # fmt: skip
    for name in SOURCE_ONLY:
        done = subprocess.run(
            ["nice", python, "-m", "pip", "wheel", "--no-deps", "--no-binary", ":all:",
             "--no-build-isolation", "-w", str(out), name],
            cwd=out.parent, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT,
            check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise Arm64Error(f"cross-building {name} failed (log: {log})")
    platforms = [arg for tag in PLATFORMS for arg in ("--platform", tag)]
    # The project's own wheel by its file, not by name: an index never stands in for it.
    (own,) = out.glob("dealer_station-*.whl")
    run_host(
        [python, "-m", "pip", "download", "--only-binary=:all:", *platforms,
         "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311",
         "--abi", "abi3", "--abi", "none", "--find-links", str(out), "-d", str(out),
         f"{own}[pi]"],
        log,
    )  # fmt: skip
    return compiled


def project_version() -> str:
    """The project's version (pyproject.toml)."""
    import tomllib

    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def package(build_root: Path, source: Path, wheels: Path, log: Path) -> Path:
    """``dpkg-buildpackage -b`` in the arm64 root on a copy of ``source``, pip reading only
    ``wheels``; returns the .deb (left in the root's /build until the caller moves it)."""
    build = build_root / "build"
    shutil.rmtree(build, ignore_errors=True)
    (build / "src").parent.mkdir(parents=True)
    run_host(["cp", "-a", str(source), str(build / "src")], log)
    run_host(["cp", "-a", str(wheels), str(build / "wheels")], log)
    (build / "wheels" / "requirements.txt").write_text(f"dealer-station[pi]=={project_version()}\n")
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
        "HOME": "/root",
        "LANG": "C.UTF-8",
        "DEBIAN_FRONTEND": "noninteractive",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": "/build/wheels",
        "DEALER_STATION_WHEELHOUSE": "/build/wheels",
    }
    with chroot_mounts(build_root):
        returncode = logged(
            ["nice", "-n", "19", "chroot", str(build_root), "/bin/sh", "-ec",
             "cd /build/src && dpkg-buildpackage -b -us -uc"],
            env, log,
        )  # fmt: skip
    if returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-25:]
        raise Arm64Error("dpkg-buildpackage in the arm64 root failed:\n" + "\n".join(tail))
    debs = sorted(build.glob("dealer-station_*_arm64.deb"))
    if len(debs) != 1:
        raise Arm64Error(f"dpkg-buildpackage left {len(debs)} arm64 packages (log: {log})")
    return debs[0]


def logged(command: list[str], env: dict[str, str], log: Path) -> int:
    """Run ``command``, each line of its output appended to ``log`` with the seconds since
    it started (where an emulated build spends its time); its exit status."""
    started = time.monotonic()
    with log.open("a") as out:
        process = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            errors="replace",
        )  # fmt: skip
        assert process.stdout is not None
        for line in process.stdout:
            out.write(f"{time.monotonic() - started:7.1f} {line}")
    return process.wait()


def build(source: Path, wanted: Path, python: str) -> bool:
    """Build the arm64 .deb of the tree copied at ``source`` into ``wanted``; True when it
    carries the compiled rules engine.

    Raises:
        Arm64Error: a step failed (one line, naming the log).
    """
    if os.geteuid() != 0:
        raise Arm64Error("needs root (mmdebstrap --mode=root, chroot, binfmt_misc)")
    missing = [c for c in ("mmdebstrap", "qemu-aarch64-static", CROSS_CC) if not shutil.which(c)]
    if missing:
        raise Arm64Error(f"missing {' '.join(missing)}: run make system-deps")
    log = wanted.parent / "build-arm64.log"
    log.write_text("")
    started = time.monotonic()
    with aarch64_binfmt():
        root = cached_build_root(log)
        print(f"make deb ARCH=arm64: build root {root.parent.name} "
              f"({time.monotonic() - started:.0f} s)", flush=True)  # fmt: skip
        with locked(root.parent / "lock"):
            wheels = wanted.parent / "wheels-arm64"
            shutil.rmtree(wheels, ignore_errors=True)
            wheels.mkdir(parents=True)
            compiled = wheelhouse(root, source, wheels, python, log)
            print(f"make deb ARCH=arm64: wheelhouse, rules engine "
                  f"{'compiled' if compiled else 'pure'} ({time.monotonic() - started:.0f} s)",
                  flush=True)  # fmt: skip
            deb = package(root, source, wheels, log)
            shutil.move(deb, wanted)
            shutil.rmtree(root / "build", ignore_errors=True)
            shutil.rmtree(wheels, ignore_errors=True)
    return compiled
