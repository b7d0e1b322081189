"""The floor's systemd units (``systemd/floor/``): each verifies without a word and its
exposure stays under the limit, as the station's unit does; the sysusers and tmpfiles
snippets apply; the units run the floor commands as documented.

``systemd-analyze`` is required, never skipped (Debian's ``systemd`` package).
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest
from test_systemd_units import exposure, run_tool, security, verify

FLOOR = Path(__file__).resolve().parent.parent / "systemd" / "floor"
UNITS = sorted(FLOOR.glob("*.service"))
EXPOSURE_LIMIT = 2.0
ENTRY_POINT = Path(sys.executable).parent / "dealer-station"


def settings(unit: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in unit.read_text().splitlines():
        if line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            found.setdefault(key, []).append(value)
    return found


@pytest.fixture(params=UNITS, ids=[u.name for u in UNITS])
def runnable(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A copy whose ExecStart= names a binary that exists here (verify checks it)."""
    unit: Path = request.param
    copy = tmp_path / unit.name
    copy.write_text(unit.read_text().replace("/usr/bin/dealer-station", str(ENTRY_POINT)))
    return copy


def test_both_units_are_shipped() -> None:
    assert [u.name for u in UNITS] == [
        "dealer-station-floor-collector.service",
        "dealer-station-floor-monitor.service",
    ]


def test_each_unit_verifies_without_a_word(runnable: Path) -> None:
    # verify exits 0 even for unknown keys and bad values: any output is a failure.
    result = verify(runnable)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_verify_would_catch_a_bad_key(runnable: Path) -> None:
    runnable.write_text(runnable.read_text().replace("RestartSec=", "RestartSecs="))
    result = verify(runnable)
    assert "RestartSecs" in result.stdout + result.stderr


def test_exposure_is_under_the_limit(runnable: Path) -> None:
    result = security(runnable, EXPOSURE_LIMIT)
    level = exposure(result)
    print(f"{runnable.name}: exposure {level}")
    assert result.returncode == 0 and level < EXPOSURE_LIMIT


@pytest.mark.parametrize(
    ("unit", "command", "kind"),
    [
        ("dealer-station-floor-collector.service", "collect", "notify"),
        ("dealer-station-floor-monitor.service", "serve", "exec"),
    ],
)
def test_the_units_run_the_floor_commands(unit: str, command: str, kind: str) -> None:
    found = settings(FLOOR / unit)
    config = "/etc/dealer-station/floor.toml"
    assert found["ExecStart"] == [f"/usr/bin/dealer-station floor {command} --config {config}"]
    assert found["Type"] == [kind] and found["Restart"] == ["on-failure"]
    # A bad floor.toml (exit 2) is not restarted; a dead thread or a lost server (1) is.
    assert found["RestartPreventExitStatus"] == ["2"]
    assert found["User"] == found["Group"] == ["dealer-floor"]
    assert found["ConditionPathExists"] == [config]
    assert found["RestrictAddressFamilies"] == ["AF_UNIX AF_INET AF_INET6"]
    if kind == "notify":
        assert found["WatchdogSec"] == ["60s"]  # twice the writer's stuck limit (30 s)


def test_the_collectors_watchdog_outlasts_a_stuck_writer() -> None:
    from floor.collector import STUCK_SECONDS

    found = settings(FLOOR / "dealer-station-floor-collector.service")
    assert float(found["WatchdogSec"][0].removesuffix("s")) >= 2 * STUCK_SECONDS


def test_sysusers_and_tmpfiles_apply(tmp_path: Path) -> None:
    for folder, name in (("sysusers.d", "sysusers"), ("tmpfiles.d", "tmpfiles")):
        target = tmp_path / "usr" / "lib" / folder
        target.mkdir(parents=True)
        shutil.copy(FLOOR / f"dealer-station-floor.{name}", target / "dealer-station-floor.conf")
    (tmp_path / "etc").mkdir()
    users = run_tool("systemd-sysusers", f"--root={tmp_path}", "dealer-station-floor.conf")
    assert users.returncode == 0 and "ignoring" not in users.stderr, users.stderr
    passwd = (tmp_path / "etc" / "passwd").read_text()
    assert re.search(r"^dealer-floor:x:\d+:\d+:", passwd, re.M)
    conf = "dealer-station-floor.conf"
    files = run_tool("systemd-tmpfiles", f"--root={tmp_path}", "--create", conf)
    assert files.returncode == 0, files.stderr
    made = tmp_path / "etc" / "dealer-station"
    assert made.is_dir() and made.stat().st_mode & 0o777 == 0o750
