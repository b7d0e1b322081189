"""The systemd files: the unit verifies cleanly and its exposure stays under 3.0; the
sysusers and tmpfiles snippets apply; the udev rules name the devices the unit allows.

``systemd-analyze`` is required, never skipped: ``.ci/run`` installs Debian's ``systemd``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from drivers.registry import DEVICES

SYSTEMD = Path(__file__).resolve().parent.parent / "systemd"
UNIT = SYSTEMD / "dealer-station.service"
EXPOSURE_LIMIT = 3.0
ENTRY_POINT = Path(sys.executable).parent / "dealer-station"


def tool(name: str) -> str:
    path = shutil.which(name)
    assert path is not None, f"{name} is missing: install Debian's systemd package (.ci/run)"
    return path


def unit_settings() -> list[tuple[str, str]]:
    settings = []
    for line in UNIT.read_text().splitlines():
        if line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            settings.append((key, value))
    return settings


@pytest.fixture
def runnable_unit(tmp_path: Path) -> Path:
    """A copy whose ExecStart= names a binary that exists here (verify checks it)."""
    assert ENTRY_POINT.is_file()
    copy = tmp_path / UNIT.name
    copy.write_text(UNIT.read_text().replace("/usr/bin/dealer-station", str(ENTRY_POINT)))
    return copy


def run_tool(name: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """One of systemd's tools, its output captured (it is never skipped)."""
    return subprocess.run(
        [tool(name), *map(str, args)], capture_output=True, text=True, timeout=60, check=False
    )


def verify(unit: Path) -> subprocess.CompletedProcess[str]:
    return run_tool("systemd-analyze", "verify", unit)


def test_the_unit_verifies_without_a_word(runnable_unit: Path) -> None:
    # verify exits 0 even for unknown keys and bad values: any output is a failure.
    result = verify(runnable_unit)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_verify_would_catch_a_bad_key(runnable_unit: Path) -> None:
    runnable_unit.write_text(runnable_unit.read_text().replace("WatchdogSec=", "WatchdogSecs="))
    result = verify(runnable_unit)
    assert "WatchdogSecs" in result.stdout + result.stderr


def security(unit: Path, limit: float = EXPOSURE_LIMIT) -> subprocess.CompletedProcess[str]:
    # systemd 252 takes whole numbers on a 0-100 scale: 29 means "2.9 or less".
    return run_tool(
        "systemd-analyze", "security", "--offline=yes", f"--threshold={round(limit * 10) - 1}", unit
    )


def exposure(result: subprocess.CompletedProcess[str]) -> float:
    """The overall exposure ``systemd-analyze security`` printed."""
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", result.stdout)
    assert match is not None, result.stdout + result.stderr
    return float(match[1])


def test_the_exposure_gate_fails_a_plain_unit(tmp_path: Path) -> None:
    plain = tmp_path / "plain.service"
    plain.write_text(f"[Service]\nType=notify\nExecStart={ENTRY_POINT} run\n")
    assert security(plain).returncode != 0


def test_exposure_is_under_the_limit(runnable_unit: Path) -> None:
    result = security(runnable_unit)
    level = exposure(result)
    print(f"systemd-analyze security exposure: {level}")
    assert result.returncode == 0 and level < EXPOSURE_LIMIT


def test_the_unit_has_what_the_station_needs() -> None:
    settings = unit_settings()
    single = dict(settings)
    assert single["Type"] == "notify" and single["Restart"] == "on-failure"
    assert single["WatchdogSec"] and single["User"] == single["Group"] == "dealer-station"
    assert single["ExecStart"] == (
        "/usr/bin/dealer-station run --config /etc/dealer-station/station.toml"
    )
    # As root ("+"): the serial ports' holders, root's included, are visible only to root.
    assert single["ExecStartPre"] == (
        "+/usr/bin/dealer-station check-config --ports /etc/dealer-station/station.toml"
    )
    assert single["StateDirectory"] == "dealer-station"
    assert single["DevicePolicy"] == "closed" and single["NoNewPrivileges"] == "yes"
    assert single["SystemCallFilter"].startswith("~") or "@system-service" in {
        v for k, v in settings if k == "SystemCallFilter"
    }
    allowed = {v.split()[0] for k, v in settings if k == "DeviceAllow"}
    assert allowed == {
        "char-ttyUSB",
        "char-ttyACM",
        "char-ttyAMA",
        "char-usb_device",
        "char-gpiochip",
    }
    # These break the devices (docs/pitfalls.md): the tty list, the device groups, /proc reads.
    assert not {"PrivateDevices", "PrivateUsers", "ProcSubset"} & set(single)


def test_sysusers_and_tmpfiles_apply(tmp_path: Path) -> None:
    for folder, name in (("sysusers.d", "sysusers"), ("tmpfiles.d", "tmpfiles")):
        target = tmp_path / "usr" / "lib" / folder
        target.mkdir(parents=True)
        shutil.copy(SYSTEMD / f"dealer-station.{name}", target / "dealer-station.conf")
    (tmp_path / "etc").mkdir()
    users = run_tool("systemd-sysusers", f"--root={tmp_path}", "dealer-station.conf")
    assert users.returncode == 0 and "ignoring" not in users.stderr, users.stderr
    passwd = (tmp_path / "etc" / "passwd").read_text()
    assert re.search(r"^dealer-station:x:\d+:\d+:.*:/var/lib/dealer-station:", passwd, re.M)
    assert re.search(r"^gpio:x:", (tmp_path / "etc" / "group").read_text(), re.M)
    files = run_tool("systemd-tmpfiles", f"--root={tmp_path}", "--create", "dealer-station.conf")
    assert files.returncode == 0, files.stderr
    for made in (tmp_path / "var" / "lib" / "dealer-station", tmp_path / "etc" / "dealer-station"):
        assert made.is_dir() and made.stat().st_mode & 0o777 == 0o750


RULE_PART = re.compile(r'(?P<key>[A-Z_]+(\{[^}]+\})?)(?P<op>==|!=|\+=|-=|:=|=)"(?P<value>[^"]*)"')


def test_udev_rules_are_well_formed_and_name_the_devices() -> None:
    rules = []
    for line in (SYSTEMD / "99-dealer-station.rules").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = [part.strip() for part in line.split(",")]
        matches = [RULE_PART.fullmatch(part) for part in parts]
        assert all(matches), line
        rules.append({m["key"]: (m["op"], m["value"]) for m in matches if m is not None})
    links = {r["SYMLINK"][1] for r in rules if "SYMLINK" in r}
    assert links == {spec.udev for spec in DEVICES if spec.udev}  # drivers/registry.py
    (reader,) = [r for r in rules if r.get("SUBSYSTEM") == ("==", "usb")]
    assert reader["GROUP"] == ("=", "dealer-station") and reader["MODE"] == ("=", "0660")
    assert reader["TAG"] == ("-=", "uaccess")


ROTATION_UNITS = (
    "dealer-station-archive.service",
    "dealer-station-rotate.service",
    "dealer-station-rotate.timer",
)


def test_the_rotation_units_verify_without_a_word(tmp_path: Path) -> None:
    """The nightly archive and rotation (docs/operations.md, "Archive, rotation, and how
    long a card lasts"): the timer, its service and the archive it requires."""
    for name in (*ROTATION_UNITS, UNIT.name):
        text = (SYSTEMD / name).read_text()
        (tmp_path / name).write_text(text.replace("/usr/bin/dealer-station", str(ENTRY_POINT)))
    result = verify(tmp_path / "dealer-station-rotate.timer")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    result = verify(tmp_path / "dealer-station-rotate.service")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_the_rotation_units_run_what_the_program_takes() -> None:
    """Every dealer-station command line of the rotation units parses with the program's
    own arguments; the rotation is conditioned on an idle table and a running station, the
    station is stopped before and started after it, and the archive runs first."""
    from controller.cli.main import build_parser

    commands: dict[str, list[list[str]]] = {}
    for name in ROTATION_UNITS:
        for line in (SYSTEMD / name).read_text().splitlines():
            key, _, value = line.partition("=")
            if key.startswith("Exec"):
                commands.setdefault(name, []).append([key, *value.lstrip("+-").split()])
    for name, lines in commands.items():
        for key, program, *argv in lines:
            if program == "/usr/bin/dealer-station":
                build_parser(argv).parse_args(argv)  # SystemExit(2) on a bad argument
            else:
                assert program == "/bin/systemctl", (name, key)
    rotate = [line[:2] + line[2:4] for line in commands["dealer-station-rotate.service"]]
    assert rotate[0] == ["ExecCondition", "/bin/systemctl", "is-active", "--quiet"]
    assert commands["dealer-station-rotate.service"][1][2:6] == [
        "journal", "rotate", "--check", "--idle",
    ]  # fmt: skip
    keys = [line[0] for line in commands["dealer-station-rotate.service"]]
    assert keys == ["ExecCondition", "ExecCondition", "ExecStartPre", "ExecStart", "ExecStopPost"]
    service = (SYSTEMD / "dealer-station-rotate.service").read_text()
    assert "Requires=dealer-station-archive.service" in service
    assert "After=dealer-station-archive.service" in service
    assert "[Install]" not in service  # started by the timer only
    assert "WantedBy=timers.target" in (SYSTEMD / "dealer-station-rotate.timer").read_text()
