"""``make deb``: the Debian package's metadata, contents, maintainer scripts and lintian.

The package is built once per state of the sources (``vm_tests/debbuild.py`` reuses a .deb
whose source hash matches; a fresh checkout builds it, about 30 s). Installing, starting
and purging it on a real Debian system is the boot test's part (``vm_tests/``).
"""

from __future__ import annotations

import importlib.util
import marshal
import re
import shutil
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from debbuild import ROOT, built_deb, packaged_docs, source_files

#: The host tools the package is built and checked with (``make system-deps`` installs them).
DEB_TOOLS = ("dpkg-buildpackage", "dh_virtualenv", "lintian")


@pytest.fixture(scope="module")
def deb() -> Path:
    # A machine without them fails, naming them: a skip would let the test command pass
    # without building the package.
    missing = [t for t in DEB_TOOLS if shutil.which(t) is None]
    if missing:
        pytest.fail(f"not installed: {', '.join(missing)} (make system-deps installs them)")
    return built_deb()


@pytest.fixture(scope="module")
def unpacked(deb: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("deb")
    subprocess.run(["dpkg-deb", "-R", str(deb), str(root)], check=True)
    yield root


def field(deb: Path, name: str) -> str:
    return subprocess.run(
        ["dpkg-deb", "-f", str(deb), name], capture_output=True, text=True, check=True
    ).stdout.strip()


def listing(deb: Path) -> dict[str, str]:
    """``dpkg-deb -c``: path -> the line (mode, owner, size, link target)."""
    out = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True)
    entries = {}
    for line in out.stdout.splitlines():
        path = line.split(None, 5)[5].split(" -> ")[0]
        entries[path.removeprefix(".")] = line
    return entries


def test_name_version_and_architecture(deb: Path) -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    arch = subprocess.run(
        ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert deb.name == f"dealer-station_{version}_{arch}.deb"
    assert field(deb, "Package") == "dealer-station"
    assert field(deb, "Version") == version
    assert field(deb, "Architecture") == arch
    depends = {d.strip().split(" ")[0] for d in field(deb, "Depends").split(",")}
    # The venv's interpreter is Debian's python3.11; pyusb needs libusb.
    assert {"python3.11", "libusb-1.0-0", "systemd"} <= depends
    info = subprocess.run(
        ["dpkg-deb", "-I", str(deb)], capture_output=True, text=True, check=True
    ).stdout
    for script in ("postinst", "postrm", "prerm"):
        assert re.search(rf"\b{script}\b", info)


def test_contents(deb: Path) -> None:
    files = listing(deb)
    assert "/usr/bin/dealer-station" in files
    assert files["/usr/bin/dealer-station"].endswith(
        "-> /opt/dealer-station/bin/dealer-station"
    ) or files["/usr/bin/dealer-station"].endswith("-> ../../opt/dealer-station/bin/dealer-station")
    for path in (
        "/lib/systemd/system/dealer-station.service",
        "/lib/systemd/system/dealer-station-archive.service",  # the nightly archive...
        "/lib/systemd/system/dealer-station-rotate.service",  # ...and rotation
        "/lib/systemd/system/dealer-station-rotate.timer",
        "/lib/udev/rules.d/99-dealer-station.rules",
        "/usr/lib/sysusers.d/dealer-station.conf",
        "/usr/lib/tmpfiles.d/dealer-station.conf",
        "/usr/lib/modules-load.d/dealer-station.conf",  # ttyUSB/ttyACM known at start
        "/usr/share/doc/dealer-station/operations.md",  # the unit's Documentation=
        "/usr/share/doc/dealer-station/examples/station.toml",
        "/opt/dealer-station/bin/dealer-station",
        "/opt/dealer-station/pyvenv.cfg",
    ):
        assert path in files, path
    site = "/opt/dealer-station/lib/python3.11/site-packages/"
    # Every runtime dependency is in the venv, also those the build machine has from Debian
    # (six, which transitions imports, was missing once: python3-six was on the build host).
    for package in (
        "controller/", "drivers/", "firmware_bridge/", "serial/", "usb/", "transitions/",
        "six.py", "structlog/", "cobs/", "gpiozero/", "rich/", "cryptography/",
    ):  # fmt: skip
        assert site + package in files, package
    # No configuration: the service stays stopped until the operator writes one.
    assert not [p for p in files if p.startswith("/etc/dealer-station")]
    # An appliance's venv: no installer.
    assert not [p for p in files if p.startswith(site + "pip/")]
    assert not [p for p in files if "/tests/" in p and "site-packages/controller" in p]


def test_every_module_has_its_bytecode_for_the_installed_path(unpacked: Path) -> None:
    """The venv's bytecode is built into the package (debian/rules), so neither the install
    nor a start compiles (the unit's /opt is read-only, PYTHONDONTWRITEBYTECODE=1): each
    module has Python 3.11's bytecode, validated by its source's hash (PEP 552, flags 0b11:
    dpkg's file times do not matter), naming the path the module has once installed."""
    lib = unpacked / "opt/dealer-station/lib"
    sources = sorted(lib.rglob("*.py"))
    assert len(sources) > 500  # the program and every dependency
    wrong = []
    for source in sources:
        cached = source.parent / "__pycache__" / f"{source.stem}.cpython-311.pyc"
        installed = "/" + source.relative_to(unpacked).as_posix()
        if not cached.is_file():
            wrong.append(f"{installed}: no bytecode")
            continue
        data = cached.read_bytes()
        flags = int.from_bytes(data[4:8], "little")
        if data[:4] != importlib.util.MAGIC_NUMBER or flags != 0b11:
            wrong.append(f"{installed}: magic {data[:4]!r}, flags {flags:#b}")
        elif data[8:16] != importlib.util.source_hash(source.read_bytes()):
            wrong.append(f"{installed}: hash of another source")
        elif marshal.loads(data[16:]).co_filename != installed:
            wrong.append(f"{installed}: compiled as {marshal.loads(data[16:]).co_filename}")
    assert wrong == []
    # Nothing but the modules' own bytecode: no stray file of the build's.
    cached_files = {p for p in lib.rglob("__pycache__/*")}
    expected = {s.parent / "__pycache__" / f"{s.stem}.cpython-311.pyc" for s in sources}
    assert cached_files == expected


def test_the_package_documents_the_station_not_its_test_suite(unpacked: Path) -> None:
    """/usr/share/doc/dealer-station/ holds README.md and every document of docs/ but
    testing.md (the repository's test suite and mutation ledger, not the installed program),
    each as in the sources; and the package's source hash leaves testing.md out, so a change
    to it rebuilds neither the .deb nor the Pi image (vm_tests/pi_image.py)."""
    docs = unpacked / "usr/share/doc/dealer-station"
    expected = {"README.md"} | {p.name for p in (ROOT / "docs").glob("*.md")} - {"testing.md"}
    assert {p.name for p in docs.glob("*.md")} == expected
    assert packaged_docs() == {"README.md"} | {f"docs/{n}" for n in expected - {"README.md"}}
    for name in expected:
        source = ROOT / name if name == "README.md" else ROOT / "docs" / name
        assert (docs / name).read_bytes() == source.read_bytes(), name
    hashed = {f.as_posix() for f in source_files()}
    assert "docs/testing.md" not in hashed
    assert {"README.md", "docs/operations.md", "debian/dealer-station.docs"} <= hashed


def test_installed_files_are_the_sources(unpacked: Path) -> None:
    pairs = {
        "lib/systemd/system/dealer-station.service": "systemd/dealer-station.service",
        "lib/systemd/system/dealer-station-archive.service": (
            "systemd/dealer-station-archive.service"
        ),
        "lib/systemd/system/dealer-station-rotate.service": "systemd/dealer-station-rotate.service",
        "lib/systemd/system/dealer-station-rotate.timer": "systemd/dealer-station-rotate.timer",
        "lib/udev/rules.d/99-dealer-station.rules": "systemd/99-dealer-station.rules",
        "usr/lib/sysusers.d/dealer-station.conf": "systemd/dealer-station.sysusers",
        "usr/lib/tmpfiles.d/dealer-station.conf": "systemd/dealer-station.tmpfiles",
        "usr/lib/modules-load.d/dealer-station.conf": "systemd/modules-load.d/dealer-station.conf",
        "usr/share/doc/dealer-station/examples/station.toml": "examples/station.toml",
    }
    for installed, source in pairs.items():
        assert (unpacked / installed).read_bytes() == (ROOT / source).read_bytes(), installed


def test_the_venv_points_at_its_installed_path(unpacked: Path) -> None:
    venv = unpacked / "opt/dealer-station"
    shebang = (venv / "bin/dealer-station").read_text().splitlines()[0]
    assert shebang == "#!/opt/dealer-station/bin/python"
    assert (venv / "bin/python3.11").readlink() == Path("/usr/bin/python3.11")
    # No path of the build tree survives anywhere in the package's text files.
    leaks = subprocess.run(
        ["grep", "-rlI", "build/deb/src", str(unpacked)],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    assert leaks == []


def packaged(site: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``dealer-station ARGV`` from the package's venv, on this machine's python3.11 without
    its site-packages (-S: only what the venv brings)."""
    return subprocess.run(
        ["python3.11", "-I", "-S", "-B", "-c", "import sys; sys.path.insert(0, sys.argv[1]);"
         " from controller.cli.main import main; sys.exit(main(sys.argv[2:]))",
         str(site), *argv],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_the_packaged_program_runs(unpacked: Path) -> None:
    """check-config on the example, and every command's module imports (the daemon's pulls
    in transitions, structlog, pyserial, pyusb, cryptography)."""
    site = unpacked / "opt/dealer-station/lib/python3.11/site-packages"
    run = packaged(site, "check-config", str(ROOT / "examples/station.toml"))
    assert run.returncode == 0, run.stderr
    assert ": ok: table PA-S21-07" in run.stdout
    for command in ("run", "journal", "simulate", "replay", "diagram", "doubles"):
        helped = packaged(site, command, "--help")
        assert helped.returncode == 0, (command, helped.stderr[-500:])


def test_maintainer_scripts(unpacked: Path) -> None:
    control = unpacked / "DEBIAN"
    for script in ("postinst", "postrm", "prerm", "preinst"):
        subprocess.run(["sh", "-n", str(control / script)], check=True)
    postinst = (control / "postinst").read_text()
    # The user exists before tmpfiles makes directories it owns.
    assert postinst.index("systemd-sysusers") < postinst.index("systemd-tmpfiles")
    # Installed, never enabled or started by dpkg.
    assert "deb-systemd-invoke" not in postinst
    assert (
        "deb-systemd-helper enable 'dealer-station.service'"
        not in postinst.replace("was-enabled", "").split("if deb-systemd-helper --quiet")[0]
    )
    postrm = (control / "postrm").read_text()
    assert "! -name 'journal.sqlite3*'" in postrm  # purge keeps the journal


def test_lintian_has_no_error_or_warning(deb: Path) -> None:
    run = subprocess.run(
        ["lintian", "--fail-on", "error,warning", str(deb)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
