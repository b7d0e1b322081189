"""The package and its compiled rules engine on arm64 Debian 12, under QEMU user emulation.

``controller/rules`` may be compiled with mypyc only if the build installs
cleanly on a Pi and a pure-Python install stays possible. This script shows both on a real
arm64 Debian 12 (bookworm, Python 3.11, as Raspberry Pi OS 12) userland on an x86_64
machine, and measures the two engines there:

1. an arm64 root from ``mmdebstrap --arch=arm64`` with Python 3.11 and no compiler (cached
   like the boot test's image, keyed by the recipe's hash);
2. a plain ``pip install .`` into a venv there, with no C compiler in the root; the rules
   tests run on it;
3. gcc, libc6-dev and python3.11-dev installed with apt, then in a second venv
   ``pip install mypy setuptools`` and ``DEALER_STATION_MYPYC=1 pip install
   --no-build-isolation .`` (docs/operations.md's recipe); the rules tests run on it with
   ``DEALER_STATION_EXPECT_COMPILED=1`` (tests/test_rules_build.py checks that the
   aarch64 extensions were loaded);
4. ``bench/rules_bench.py`` in the root, both engines interleaved
   (``--compiled-python``). Emulated: only the compiled/pure ratio means anything.

Every arm64 program runs under ``qemu-aarch64-static`` through binfmt_misc, the only way
pip's gcc and apt's maintainer scripts can run: the kernel has to hand each arm64 executable
to QEMU. When the host has no aarch64 entry, the script mounts binfmt_misc if needed,
registers QEMU's from ``/usr/lib/binfmt.d/qemu-aarch64.conf`` (flag F: the interpreter is
opened at registration, so it works inside the chroot) and removes both again on exit.

It is a measurement, not part of ``make test`` (about 20-30 minutes of emulation on 2
cores). Needs root (mmdebstrap --mode=root, chroot, mount), ``make system-deps`` (qemu-user-
static, arch-test, mmdebstrap) and the network (deb.debian.org, PyPI):

    sudo python3 vm_tests/arm64.py [--tests FILE ...] [--rounds N] [--hands N] [--keep]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from image import MIRRORS, SUITE  # the boot test's Debian 12 sources, one copy

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("DEALER_STATION_ARM64_CACHE", "/var/cache/dealer-station-arm64"))
BINFMT = Path("/proc/sys/fs/binfmt_misc")
BINFMT_CONF = Path("/usr/lib/binfmt.d/qemu-aarch64.conf")
#: What a Raspberry Pi OS 12 Lite has of it: Python 3.11 with venv, and no compiler.
PACKAGES = "python3,python3.11,python3.11-venv,ca-certificates"
#: Added with apt before the compiled build (docs/operations.md, "compiled rules engine").
COMPILER_PACKAGES = ("gcc", "libc6-dev", "python3.11-dev")
#: The tools the tests need, not the package's own dependencies (pip install . brings those).
TEST_TOOLS = ("pytest", "pytest-timeout", "pytest-mock", "hypothesis", "setuptools>=77")
RECIPE = {"suite": SUITE, "arch": "arm64", "variant": "apt", "packages": PACKAGES}
#: The CA bundle pip uses inside the root: the host's, so a TLS-inspecting proxy works too.
CA_IN_ROOT = "/etc/ssl/dealer-station-host-ca.crt"
CHROOT_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"


class Arm64Error(RuntimeError):
    """A step failed; the message is one line, and names the log with the details."""


def makefile_list(makefile: str, name: str) -> list[str]:
    """The words of a ``NAME := ...`` assignment in a Makefile, continuation lines included.

    The default tests are the Makefile's ``COMPILED_TESTS`` (what ``make unit`` reruns on the
    compiled build), read from there so the list has one home.
    """
    match = re.search(rf"^{re.escape(name)}\s*:=((?:.*\\\n)*.*)$", makefile, re.MULTILINE)
    if match is None:
        raise Arm64Error(f"the Makefile has no {name} := line")
    return match.group(1).replace("\\\n", " ").split()


def binfmt_entry(conf: str) -> str:
    """The registration line from a binfmt.d file (``:name:type:...:flags``), checked.

    Raises :class:`Arm64Error` when the file holds no aarch64 entry with the F flag (without
    F the interpreter is looked up inside the chroot, where there is none).
    """
    for raw in conf.splitlines():
        line = raw.strip()
        if not line.startswith(":qemu-aarch64:"):
            continue
        fields = line.split(":")
        if len(fields) != 8:
            raise Arm64Error(f"{BINFMT_CONF}: expected 7 ':'-separated fields, got {line!r}")
        if "F" not in fields[7]:
            raise Arm64Error(f"{BINFMT_CONF}: the aarch64 entry lacks the F flag ({fields[7]!r})")
        return line
    raise Arm64Error(f"{BINFMT_CONF}: no qemu-aarch64 entry (install qemu-user-static)")


@contextlib.contextmanager
def aarch64_binfmt() -> Iterator[None]:
    """Make the kernel run arm64 executables through QEMU for the ``with`` block.

    Mounts binfmt_misc and registers QEMU's aarch64 entry only where missing, and undoes
    exactly that on exit, so a host that had both keeps them.
    """
    mounted = registered = False
    try:
        if not (BINFMT / "register").exists():
            run_host(["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT)])
            mounted = True
        if not (BINFMT / "qemu-aarch64").exists():
            if not BINFMT_CONF.exists():
                raise Arm64Error(f"{BINFMT_CONF} missing: install qemu-user-static")
            (BINFMT / "register").write_text(binfmt_entry(BINFMT_CONF.read_text()) + "\n")
            registered = True
        if "enabled" not in (BINFMT / "qemu-aarch64").read_text():
            raise Arm64Error("the qemu-aarch64 binfmt entry is disabled")
        yield
    finally:
        if registered:
            (BINFMT / "qemu-aarch64").write_text("-1\n")
        if mounted:
            subprocess.run(["umount", str(BINFMT)], check=False)


def run_host(command: Sequence[str], log: Path | None = None) -> None:
    """Run a host command, its output appended to ``log``; :class:`Arm64Error` if it fails."""
    with open(log or os.devnull, "ab") as out:
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        where = f" (log: {log})" if log else ""
        raise Arm64Error(f"{shlex.join(command[:3])}... exited {done.returncode}{where}")


def recipe_hash() -> str:
    """The arm64 root's cache key: sha256 of the recipe and the mirrors, 16 hex digits."""
    text = json.dumps({**RECIPE, "mirrors": MIRRORS}, sort_keys=True).encode()
    return hashlib.sha256(text).hexdigest()[:16]


def arm64_root(
    target: Path,
    packages: str,
    log: Path,
    *,
    marker: str,
    hooks: Sequence[str] = (),
    mirrors: Sequence[str] = MIRRORS,
) -> Path:
    """``target/root``: an arm64 bookworm root made by ``mmdebstrap --variant=apt`` with
    ``packages`` (and mmdebstrap's ``hooks`` options), unless one with ``marker`` (a path in
    it) is there already. Made under a temporary name beside ``target``, then renamed: a
    half-made root is never used. The cache of vm_tests/arm64.py, the arm64 package's build
    root and the Raspberry Pi image's base root."""
    if (target / "root" / marker).exists():
        return target / "root"
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="building-", dir=target.parent))
    try:
        run_host(
            ["nice", "-n", "19", "mmdebstrap", "--mode=root", "--arch=arm64", "--variant=apt",
             f"--include={packages}", *hooks, SUITE, str(work / "root"), *mirrors],
            log,
        )  # fmt: skip
        shutil.rmtree(target, ignore_errors=True)
        os.replace(work, target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return target / "root"


def cached_root(log: Path) -> Path:
    """The arm64 root for the current recipe, built with mmdebstrap if missing."""
    root = arm64_root(CACHE / recipe_hash(), PACKAGES, log, marker="usr/bin/python3.11")
    (root.parent / "recipe.json").write_text(json.dumps(RECIPE, indent=1))
    return root


def source_files() -> list[str]:
    """The tree's files as git sees them (tracked, plus new files not ignored)."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout  # fmt: skip
    return [name for name in out.decode().split("\0") if name and (ROOT / name).is_file()]


@contextlib.contextmanager
def chroot_mounts(root: Path) -> Iterator[None]:
    """/proc and /dev inside ``root`` for the ``with`` block (pytest reads /proc/self/fd)."""
    done: list[Path] = []
    try:
        mounts = ((["-t", "proc", "proc"], root / "proc"), (["--bind", "/dev"], root / "dev"))
        for how, target in mounts:
            run_host(["mount", *how, str(target)])
            done.append(target)
        yield
    finally:
        for target in reversed(done):
            subprocess.run(["umount", "--lazy", str(target)], check=False)


def chroot_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """A clean environment for the root: none of the host's pip or Python settings leak in."""
    env = {"PATH": CHROOT_PATH, "HOME": "/root", "LANG": "C.UTF-8", "PIP_CERT": CA_IN_ROOT}
    env |= {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "DEBIAN_FRONTEND": "noninteractive"}
    for name in ("PIP_INDEX_URL", "PIP_DEFAULT_TIMEOUT", "http_proxy", "https_proxy"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env | (extra or {})


def in_root(root: Path, script: str, log: Path, extra: dict[str, str] | None = None) -> str:
    """Run a shell script in the arm64 root (niced, under QEMU); return its output.

    Appends the output to ``log``; raises :class:`Arm64Error` naming the log on failure.
    """
    command = ["nice", "-n", "19", "chroot", str(root), "/bin/sh", "-ec", f"cd /src\n{script}"]
    done = subprocess.run(
        command, capture_output=True, text=True, env=chroot_env(extra), check=False
    )
    with log.open("a") as out:
        out.write(f"$ {script}\n{done.stdout}{done.stderr}\n")
    if done.returncode != 0:
        last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise Arm64Error(f"in the arm64 root: {script.splitlines()[0]!r}: {last[0]} (log: {log})")
    return done.stdout


_SUMMARY = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")


def pytest_counts(output: str) -> dict[str, int]:
    """Counts from pytest's last summary line (``353 passed, 2 skipped in 9.36s``)."""
    lines = [line for line in output.splitlines() if re.search(r" in [\d.]+s", line)]
    if not lines:
        raise Arm64Error("pytest printed no summary line")
    counts = {kind.rstrip("s") if kind.startswith("error") else kind: int(n)
              for n, kind in _SUMMARY.findall(lines[-1])}  # fmt: skip
    if not counts:
        raise Arm64Error(f"pytest summary not understood: {lines[-1]!r}")
    return counts


def built_wheel(output: str) -> str:
    """The file name of the package's wheel in pip's output (``-py3-none-any`` is pure)."""
    found = re.findall(r"Created wheel for dealer-station: filename=(\S+\.whl)", output)
    if not found:
        raise Arm64Error("pip built no dealer-station wheel")
    return str(found[-1])


def bench_figures(output: str) -> dict[str, object]:
    """The ``FIGURES {json}`` line bench/rules_bench.py ends with."""
    for line in reversed(output.splitlines()):
        if line.startswith("FIGURES "):
            try:
                figures = json.loads(line.removeprefix("FIGURES "))
            except ValueError as err:
                raise Arm64Error(f"bench/rules_bench.py's FIGURES line is not JSON: {err}") from err
            if not isinstance(figures, dict):
                raise Arm64Error("bench/rules_bench.py's FIGURES line is not a JSON object")
            return figures
    raise Arm64Error("bench/rules_bench.py printed no FIGURES line")


#: Which machine, Python and rules engine a venv loads. Run from /tmp: ``python -c`` puts
#: the working directory first on sys.path, and /src would shadow the installed package.
ENGINE_PROBE = (
    "cd /tmp\n{python} -c 'import controller.rules.round as m, platform; "
    "print(platform.machine(), platform.python_version(), m.__file__)'"
)


def show(root: Path, args: argparse.Namespace, log: Path) -> dict[str, object]:
    """Steps 2-4 in the prepared root; return the figures (also printed as they come)."""
    figures: dict[str, object] = {}
    tests = " ".join(args.tests)

    def step(name: str, script: str, extra: dict[str, str] | None = None) -> str:
        started = time.monotonic()
        out = in_root(root, script, log, extra)
        seconds = round(time.monotonic() - started)
        figures[f"{name}_s"] = seconds
        print(f"arm64: {name}: {seconds} s", flush=True)
        return out

    found = step("no_compiler", "command -v cc gcc || true").strip()
    if found:
        raise Arm64Error(f"the base root has a C compiler ({found}): the pure check means nothing")
    out = step("pure_install", "python3 -m venv /opt/pure\n/opt/pure/bin/pip install /src")
    figures["pure_wheel"] = built_wheel(out)
    figures["pure_module"] = step(
        "pure_probe", ENGINE_PROBE.format(python="/opt/pure/bin/python")
    ).strip()
    print(f"arm64: pure install loads {figures['pure_module']}")
    step("pure_test_tools", f"/opt/pure/bin/pip install {shlex.join(TEST_TOOLS)}")
    out = step("pure_tests", f"/opt/pure/bin/pytest -q -p no:cacheprovider -o timeout=1800 {tests}")
    figures["pure_tests"] = pytest_counts(out)
    print(f"arm64: rules tests on the pure install: {figures['pure_tests']}")
    packages = shlex.join(COMPILER_PACKAGES)
    step("compiler", f"apt-get update -q\napt-get install -y -q --no-install-recommends {packages}")
    step("build_tools", "rm -rf /src/build /src/*.egg-info\npython3 -m venv /opt/compiled\n"
         f"/opt/compiled/bin/pip install mypy setuptools {shlex.join(TEST_TOOLS)}")  # fmt: skip
    figures["mypy"] = step("mypy_version", "/opt/compiled/bin/mypy --version").strip()
    out = step("compiled_install", "/opt/compiled/bin/pip install --no-build-isolation /src",
               {"DEALER_STATION_MYPYC": "1"})  # fmt: skip
    figures["compiled_wheel"] = built_wheel(out)
    probe = ENGINE_PROBE.format(python="/opt/compiled/bin/python")
    figures["compiled_module"] = step("compiled_probe", probe).strip()
    print(f"arm64: compiled install loads {figures['compiled_module']}")
    out = step(
        "compiled_tests",
        f"/opt/compiled/bin/pytest -q -p no:cacheprovider -o timeout=1800 {tests}",
        {"DEALER_STATION_EXPECT_COMPILED": "1"},
    )
    figures["compiled_tests"] = pytest_counts(out)
    print(f"arm64: rules tests on the compiled install: {figures['compiled_tests']}")
    bench = (
        f"/opt/pure/bin/python bench/rules_bench.py --compiled-python /opt/compiled/bin/python "
        f"--rounds {args.rounds} --hands {args.hands} --repeats {args.repeats}"
    )
    out = step("bench", bench)
    print("\n".join(line for line in out.splitlines() if not line.startswith("FIGURES ")))
    figures["bench"] = bench_figures(out)
    figures["bench_command"] = bench
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    """Build (or reuse) the arm64 root, show the installs and tests, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--tests",
        nargs="+",
        help="test files (globs) to run on both installs, from the tree's root "
        "(default: the Makefile's COMPILED_TESTS, what make unit reruns on the compiled build)",
    )
    parser.add_argument("--rounds", type=int, default=5_000, help="bench table-mode rounds")
    parser.add_argument("--hands", type=int, default=50_000, help="bench like-for-like hands")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the work root (path printed)")
    args = parser.parse_args(argv)
    if not args.tests:
        try:
            args.tests = makefile_list((ROOT / "Makefile").read_text(), "COMPILED_TESTS")
        except Arm64Error as err:
            print(f"arm64: {err}", file=sys.stderr)
            return 2
    if os.geteuid() != 0:
        print("arm64: needs root (mmdebstrap --mode=root, chroot, mount)", file=sys.stderr)
        return 2
    missing = [c for c in ("mmdebstrap", "qemu-aarch64-static", "arch-test", "git")
               if shutil.which(c) is None]  # fmt: skip
    if missing:
        print(f"arm64: missing {' '.join(missing)}: run make system-deps", file=sys.stderr)
        return 2
    CACHE.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="run-", dir=CACHE))
    log = work / "arm64.log"
    started = time.monotonic()
    try:
        with aarch64_binfmt():
            base = cached_root(log)
            print(f"arm64: base root {base} ({time.monotonic() - started:.0f} s)", flush=True)
            root = work / "root"
            run_host(["cp", "-a", "--reflink=auto", str(base), str(root)], log)
            shutil.copy2(os.environ.get("PIP_CERT", "/etc/ssl/certs/ca-certificates.crt"),
                         root / CA_IN_ROOT.lstrip("/"))  # fmt: skip
            for name in source_files():
                (root / "src" / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, root / "src" / name)
            with chroot_mounts(root):
                figures = show(root, args, log)
    except (Arm64Error, OSError) as err:
        print(f"arm64: {err}", file=sys.stderr)
        print(f"arm64: work root kept for a look: {work}", file=sys.stderr)
        return 1
    figures["total_s"] = round(time.monotonic() - started)
    if args.keep:
        print(f"arm64: work root kept: {work}")
    else:
        shutil.rmtree(work)
    print("FIGURES " + json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
