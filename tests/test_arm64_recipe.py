"""The arm64 recipe's own logic (vm_tests/arm64.py), without emulating anything: seconds.

The recipe itself (an arm64 Debian 12 root under QEMU, both installs, the rules tests and the
bench there) is a measurement run by hand, not part of ``make test``: docs/operations.md,
"Building for Raspberry Pi OS (arm64)".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import arm64  # vm_tests/ is on pytest's pythonpath
import pytest
from hypothesis import given
from hypothesis import strategies as st

# Debian 12's qemu-user-static 7.2, /usr/lib/binfmt.d/qemu-aarch64.conf, as shipped.
DEBIAN_CONF = (
    r":qemu-aarch64:M::\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    r"\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff"
    r"\xfe\xff\xff\xff:/usr/libexec/qemu-binfmt/aarch64-binfmt-P:OPF"
)


def test_binfmt_entry_takes_debians_aarch64_line() -> None:
    conf = "# comment\n" + DEBIAN_CONF.replace("aarch64", "arm") + "\n" + DEBIAN_CONF + "\n"
    assert arm64.binfmt_entry(conf) == DEBIAN_CONF


def test_binfmt_entry_refuses_an_entry_without_the_fix_binary_flag() -> None:
    # Without F the kernel looks the interpreter up inside the chroot, where there is none.
    with pytest.raises(arm64.Arm64Error, match="F flag"):
        arm64.binfmt_entry(DEBIAN_CONF.removesuffix("OPF") + "OP")


def test_binfmt_entry_refuses_a_file_without_aarch64() -> None:
    with pytest.raises(arm64.Arm64Error, match="no qemu-aarch64 entry"):
        arm64.binfmt_entry(DEBIAN_CONF.replace(":qemu-aarch64:", ":qemu-arm:"))


def test_binfmt_entry_refuses_a_malformed_line() -> None:
    with pytest.raises(arm64.Arm64Error, match="7 ':'-separated fields"):
        arm64.binfmt_entry(":qemu-aarch64:M::magic:/usr/bin/qemu:F")


@given(st.text(max_size=300))
def test_binfmt_entry_gives_a_line_or_a_clear_error_for_any_text(conf: str) -> None:
    try:
        line = arm64.binfmt_entry(conf)
    except arm64.Arm64Error as err:
        assert "\n" not in str(err)
    else:
        assert line.startswith(":qemu-aarch64:")
        assert "F" in line.split(":")[7]


def test_pytest_counts_reads_the_last_summary_line() -> None:
    out = "....\n........ [100%]\n353 passed, 2 skipped, 1 xfailed in 612.40s (0:10:12)\n"
    assert arm64.pytest_counts(out) == {"passed": 353, "skipped": 2, "xfailed": 1}


def test_pytest_counts_reads_failures_and_errors() -> None:
    out = "FAILED tests/test_x.py::test_y\n1 failed, 351 passed, 2 errors in 9.01s\n"
    assert arm64.pytest_counts(out) == {"failed": 1, "passed": 351, "error": 2}


def test_pytest_counts_without_a_summary_is_an_error() -> None:
    with pytest.raises(arm64.Arm64Error, match="no summary"):
        arm64.pytest_counts("ImportError while loading conftest\n")


def test_bench_figures_reads_the_last_figures_line() -> None:
    figures = {"compiled_vs_pure": 2.4, "lfl_hands_per_s": 3100}
    out = "[pure] like for like ...\nFIGURES {}\nmore\nFIGURES " + json.dumps(figures) + "\n"
    assert arm64.bench_figures(out) == figures


def test_bench_figures_without_the_line_is_an_error() -> None:
    with pytest.raises(arm64.Arm64Error, match="no FIGURES line"):
        arm64.bench_figures("[pure] table mode: 900 rounds/s\n")


def test_the_root_has_no_compiler_until_the_compiled_step() -> None:
    # The pure install is only shown to need no compiler if the base root has none.
    base = arm64.PACKAGES.split(",")
    assert not {"gcc", "build-essential", "python3.11-dev", "libc6-dev"} & set(base)
    assert {"gcc", "python3.11-dev"} <= set(arm64.COMPILER_PACKAGES)


def test_the_chroot_environment_leaks_no_host_pip_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The host's PIP_FIND_LINKS names a folder that is not in the root.
    monkeypatch.setenv("PIP_FIND_LINKS", "/opt/wheels")
    monkeypatch.setenv("PYTHONPATH", "/work/build/mypyc")
    env = arm64.chroot_env({"DEALER_STATION_MYPYC": "1"})
    assert "PIP_FIND_LINKS" not in env and "PYTHONPATH" not in env
    assert env["PIP_CERT"] == arm64.CA_IN_ROOT
    assert env["DEALER_STATION_MYPYC"] == "1"


def test_recipe_hash_changes_with_the_recipe(monkeypatch: pytest.MonkeyPatch) -> None:
    before = arm64.recipe_hash()
    monkeypatch.setitem(arm64.RECIPE, "packages", arm64.PACKAGES + ",gcc")
    assert arm64.recipe_hash() != before


def test_makefile_list_reads_continuation_lines() -> None:
    makefile = "A := x\nCOMPILED_TESTS := tests/a.py tests/b_*.py \\\n    tests/c.py\nunit: x\n"
    assert arm64.makefile_list(makefile, "COMPILED_TESTS") == [
        "tests/a.py",
        "tests/b_*.py",
        "tests/c.py",
    ]


def test_makefile_list_of_the_real_makefile_names_the_rules_tests() -> None:
    tests = arm64.makefile_list((arm64.ROOT / "Makefile").read_text(), "COMPILED_TESTS")
    assert "tests/test_rules_*.py" in tests
    assert all(list(arm64.ROOT.glob(pattern)) for pattern in tests)


def test_makefile_list_without_the_name_is_an_error() -> None:
    with pytest.raises(arm64.Arm64Error, match="no COMPILED_TESTS"):
        arm64.makefile_list("TESTS := a\n", "COMPILED_TESTS")


def test_built_wheel_names_the_packages_wheel_not_a_dependencys() -> None:
    out = (
        "  Created wheel for dealer-station: filename=dealer_station-0.1.0-cp311-cp311-"
        "linux_aarch64.whl size=847932 sha256=b5ec\n"
        "  Created wheel for cobs: filename=cobs-1.2.2-py3-none-any.whl size=14443\n"
    )
    assert arm64.built_wheel(out) == "dealer_station-0.1.0-cp311-cp311-linux_aarch64.whl"


def test_built_wheel_without_one_is_an_error() -> None:
    with pytest.raises(arm64.Arm64Error, match="no dealer-station wheel"):
        arm64.built_wheel("Requirement already satisfied: dealer-station\n")


def test_bench_figures_with_a_broken_line_is_a_clear_error() -> None:
    with pytest.raises(arm64.Arm64Error, match="not JSON"):
        arm64.bench_figures('FIGURES {"compiled_vs_pure": 2.\n')
    with pytest.raises(arm64.Arm64Error, match="not a JSON object"):
        arm64.bench_figures("FIGURES [1, 2]\n")


@given(st.text(max_size=400))
def test_output_readers_give_a_value_or_a_one_line_error_for_any_text(out: str) -> None:
    for reader in (arm64.pytest_counts, arm64.built_wheel, arm64.bench_figures):
        try:
            reader(out)
        except arm64.Arm64Error as err:
            assert "\n" not in str(err)


def test_rules_bench_compiled_python_runs_that_python_and_checks_its_build() -> None:
    # The recipe measures the compiled engine through --compiled-python; a Python whose
    # environment has no compiled build (this one, in this run) must be refused, not
    # measured as if it were compiled.
    bench = arm64.ROOT / "bench" / "rules_bench.py"
    command = [sys.executable, str(bench), "--engine", "compiled", "--rounds", "20"]
    command += ["--hands", "20", "--repeats", "1", "--compiled-python", sys.executable]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert done.returncode != 0
    assert "asked for the compiled engine, the child loaded pure" in done.stderr
