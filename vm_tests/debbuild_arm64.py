"""``make deb ARCH=arm64`` on an x86_64 machine: the Raspberry Pi's package, a Debian cross build.

Three steps, each where it is fast and sound:

1. **The project's wheel.** Built with its rules engine compiled by mypyc
   (``DEALER_STATION_MYPYC=1``, setup.py): mypyc writes C here, and Debian's cross compiler
   ``aarch64-linux-gnu-gcc`` (gcc 12, as on the Pi) compiles it against the arm64 Python
   3.11's own headers and build configuration (``pyconfig.h`` and
   ``_sysconfigdata__aarch64-linux-gnu.py``, taken from the build root below): the flags,
   extension suffix and ABI are the arm64 interpreter's. When that compile fails the pure
   wheel goes in instead, and the build says so.
2. **The dependencies' wheels**, aarch64 wheels from PyPI (``pip download --platform``); the few
   published only as source (:data:`SOURCE_ONLY`) are built with the same cross compiler.
   They depend on pyproject.toml's dependencies only, so they are cached by those (beside the
   build root): a change to the project's code does not fetch them again.
3. **The package**: ``dpkg-buildpackage --host-arch=arm64`` on this machine, with the same
   ``debian/rules`` as the amd64 package (which installs ``.[pi]`` on arm64: gpiozero's lgpio
   pin factory) and pip reading only the wheelhouse (``PIP_NO_INDEX``, ``PIP_FIND_LINKS``).
   debian/rules' cross-build part makes pip take the aarch64 wheels and runs dpkg-shlibdeps,
   which needs the arm64 libraries and their symbols files, in the arm64 build root under
   ``qemu-aarch64-static`` and binfmt_misc (the source tree is copied into that root for it):
   the package's ``Depends`` are the ones a native build on a Pi would compute.

The whole ``dpkg-buildpackage`` under emulation took 264-716 s on this machine (dh-virtualenv's
pip alone 100-311 s); the cross build takes well under a minute, dpkg-shlibdeps about 10 s of
it. The build root is cached like the boot test's image, by its recipe's hash, in
``$DEALER_STATION_ARM64_CACHE`` or ``/var/cache/dealer-station-arm64/``. Needs root (chroot,
binfmt_misc), ``make system-deps`` (qemu-user-static, mmdebstrap, gcc-aarch64-linux-gnu) and
the project's venv (mypy).
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
import tomllib
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arm64 import CACHE, Arm64Error, aarch64_binfmt, arm64_root, chroot_mounts, run_host
from image import MIRRORS, SUITE

ROOT = Path(__file__).resolve().parent.parent
#: What the cross build needs of arm64 in its root: dpkg-shlibdeps (debhelper brings dpkg-dev
#: and binutils) and the arm64 Python's headers and build configuration (python3.11-dev).
BUILD_PACKAGES = "debhelper,python3.11-dev"
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
#: Where the source tree sits inside the build root for the cross build (dpkg-shlibdeps runs
#: there, in the root, on the same files).
BUILD_DIR = "build"


def build_root_hash() -> str:
    """The build root's cache key: sha256 of its recipe and the mirrors, 16 hex digits."""
    text = json.dumps({**BUILD_RECIPE, "mirrors": MIRRORS}, sort_keys=True).encode()
    return hashlib.sha256(text).hexdigest()[:16]


def cached_build_root(log: Path) -> Path:
    """The arm64 build root for the current recipe, made with mmdebstrap if missing."""
    target = CACHE / f"build-{build_root_hash()}"
    return arm64_root(target, BUILD_PACKAGES, log, marker="usr/bin/dh_shlibdeps")


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


def project_wheel(build_root: Path, source: Path, out: Path, python: str, log: Path) -> bool:
    """The project's aarch64 wheel into ``out``; True when it carries the compiled rules
    engine (the pure wheel when the cross compile fails, said on stderr)."""
    env = cross_env(build_root, out.parent)
    done = subprocess.run(
        ["nice", python, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
         str(out), "."],
        cwd=source, env=env | {"DEALER_STATION_MYPYC": "1"}, stdout=log.open("ab"),
        stderr=subprocess.STDOUT, check=False,
    )  # fmt: skip
    if done.returncode == 0:
        return True
    print("make deb ARCH=arm64: the compiled rules engine did not build (log: "
          f"{log}); the package carries the pure one", file=sys.stderr)  # fmt: skip
    shutil.rmtree(source / "build", ignore_errors=True)
    run_host(["nice", python, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
              "-w", str(out), str(source)], log)  # fmt: skip
    return False


def requirements(root: Path = ROOT) -> list[str]:
    """What the package's venv installs besides the project: pyproject.toml's dependencies
    and its ``pi`` extra."""
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    return [*project["dependencies"], *project["optional-dependencies"]["pi"]]


def wheels_key(root: Path = ROOT) -> str:
    """The dependency wheels' cache key: what is asked for and for which platforms."""
    recipe = {"requirements": requirements(root), "platforms": PLATFORMS,
              "source_only": SOURCE_ONLY, "python": "cp311"}  # fmt: skip
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:16]


def dependency_wheels(build_root: Path, python: str, log: Path) -> Path:
    """The directory of the dependencies' aarch64 wheels (cached by :func:`wheels_key`),
    fetched and cross-built if missing."""
    target = CACHE / f"wheels-{wheels_key()}"
    if (target / "complete").exists():
        return target
    work = CACHE / f"building-wheels-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    wheels = work / "wheels"
    wheels.mkdir(parents=True)
    try:
        env = cross_env(build_root, work)
        for name in SOURCE_ONLY:
            done = subprocess.run(
                ["nice", python, "-m", "pip", "wheel", "--no-deps", "--no-binary", ":all:",
                 "--no-build-isolation", "-w", str(wheels), name],
                cwd=work, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT,
                check=False,
            )  # fmt: skip
            if done.returncode != 0:
                raise Arm64Error(f"cross-building {name} failed (log: {log})")
        platforms = [arg for tag in PLATFORMS for arg in ("--platform", tag)]
        run_host(
            [python, "-m", "pip", "download", "--only-binary=:all:", *platforms,
             "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311",
             "--abi", "abi3", "--abi", "none", "--find-links", str(wheels), "-d", str(wheels),
             *requirements()],
            log,
        )  # fmt: skip
        (wheels / "complete").write_text(json.dumps(requirements()) + "\n")
        shutil.rmtree(target, ignore_errors=True)
        os.replace(wheels, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def project_version() -> str:
    """The project's version (pyproject.toml)."""
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def package(build_root: Path, source: Path, wheels: Path, log: Path) -> Path:
    """``dpkg-buildpackage --host-arch=arm64`` on a copy of ``source`` inside the build root,
    pip reading only ``wheels``; returns the .deb (left in the root's build directory until
    the caller moves it)."""
    build = build_root / BUILD_DIR
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir()
    run_host(["cp", "-a", str(source), str(build / "src")], log)
    run_host(["cp", "-a", str(wheels), str(build / "wheels")], log)
    (build / "wheels" / "requirements.txt").write_text(f"dealer-station[pi]=={project_version()}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "_PYTHON", "PIP_"))}
    env |= {
        "LANG": "C.UTF-8",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(build / "wheels"),
        "DEALER_STATION_WHEELHOUSE": str(build / "wheels"),
        "DEALER_STATION_CROSS_ROOT": str(build_root),
    }
    with chroot_mounts(build_root):
        # -d: the Build-Depends are this machine's (debhelper, dh-virtualenv, python3.11), not
        # arm64 packages a machine without multiarch cannot have.
        returncode = logged(
            ["nice", "dpkg-buildpackage", "--host-arch=arm64", "-d", "-b", "-us", "-uc"],
            env, log, cwd=build / "src",
        )  # fmt: skip
    if returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-25:]
        raise Arm64Error("the arm64 cross build failed:\n" + "\n".join(tail))
    debs = sorted(build.glob("dealer-station_*_arm64.deb"))
    if len(debs) != 1:
        raise Arm64Error(f"dpkg-buildpackage left {len(debs)} arm64 packages (log: {log})")
    return debs[0]


def logged(command: list[str], env: dict[str, str], log: Path, cwd: Path) -> int:
    """Run ``command``, each line of its output appended to ``log`` with the seconds since
    it started (where a build spends its time); its exit status."""
    started = time.monotonic()
    with log.open("a") as out:
        process = subprocess.Popen(
            command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, errors="replace",
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

    def step(what: str) -> None:
        print(f"make deb ARCH=arm64: {what} ({time.monotonic() - started:.0f} s)", flush=True)

    with aarch64_binfmt():
        root = cached_build_root(log)
        step(f"build root {root.parent.name}")
        with locked(root.parent / "lock"):
            wheels = wanted.parent / "wheels-arm64"
            shutil.rmtree(wheels, ignore_errors=True)
            wheels.mkdir(parents=True)
            compiled = project_wheel(root, source, wheels, python, log)
            step(f"the project's wheel, rules engine {'compiled' if compiled else 'pure'}")
            for wheel in dependency_wheels(root, python, log).glob("*.whl"):
                shutil.copy2(wheel, wheels)
            step("the dependencies' wheels")
            deb = package(root, source, wheels, log)
            shutil.move(deb, wanted)
            shutil.rmtree(root / BUILD_DIR, ignore_errors=True)
            shutil.rmtree(wheels, ignore_errors=True)
            step("the package")
    return compiled
