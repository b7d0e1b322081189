"""The Raspberry Pi image booted on arm64: the checks of the amd64 boot test that matter on a Pi,
and the Pi's own realities (UART, hardware watchdog, no real-time clock, SD card, lgpio).

One guest for the module, tests in file order, each leaving the station running for the next:

* the guest is the flashable image of ``make image`` (``pi_image.py``: the package installed,
  not configured) plus the test's agent unit and NTP server (``test.img``), on QEMU's generic
  arm64 board (``-machine virt``, TCG, Cortex-A72 as in the Pi 4), booted with the image's own
  kernel and initrd, its root read-only as on the Pi;
* the shoe and shuffler are QEMU ``usb-serial`` devices, as in the amd64 test; the panel board
  is on the board's PL011 UART, ttyAMA0 as on the Pi, which the image's udev rule names
  ``/dev/dealer-uart``; the card reader is the FunctionFS gadget on ``dummy_hcd``;
* the clock: the board's RTC starts 30 days in the past (a Pi boots with the clock of its last
  shutdown), and NTP is a server on the host side (``ntp_server.py``, in a network namespace
  of its own with QEMU) that stays silent until the clock test lets it answer;
* a hardware watchdog (QEMU's i6300esb; the Pi's is the BCM2835's) fed by systemd.

Every wait has a deadline and waits on a condition, as in ``test_boot.py``, whose tests this
module reuses where the check is the same.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from debbuild import ROOT, built_deb
from pi_image import cached_image
from remote_table import LogFeed, RemoteTable
from test_boot import (
    CONFIG,
    COVER_AT,
    READER,
    Rig,
    pair_and_seal,
    print_diagnostics,
    qemu_seconds_per_test,  # noqa: F401 (autouse: each test's QEMU seconds)
    udev_rules,
)
from test_boot import test_sigkill_restarts_it_and_the_round_resumes as _sigkill_resumes
from test_boot import test_sigstop_the_watchdog_restarts_it_within_watchdogsec as _sigstop
from vm import ARM64, GUEST_FILES, UsbSerial, Vm

from controller.simulation.runner import SimulationSettings
from controller.table.prompts import State
from drivers.simulated.serve_client import ServedDoubles

pytestmark = [
    # The first test also builds what is not cached: on a fresh machine the arm64 build root
    # and the image's base root (mmdebstrap under emulation, most of half an hour on two
    # shared cores), the package and the image. Every step inside has its own deadline.
    pytest.mark.timeout(3600),
]

BOOT_TIMEOUT = 600.0
#: One step in the emulated arm64 guest (a systemctl, a dealer-station command: Python starts
#: under TCG in seconds on an idle machine, and several times that on a loaded one).
STEP_ARM = 300.0
#: The card in the guest: larger than the image, as a 32 GB card is (DSDATA grows into it).
CARD = "3G"
USB = {"shuffler": "SHF-VM-1", "shoe": "SHO-VM-1"}
PANEL_SERIAL = "PNL-VM-1"
#: How far behind the board's clock starts: the Pi was last shut down a month ago.
CLOCK_BEHIND = timedelta(days=30)
TIMES: dict[str, float] = {}
FIGURES: dict[str, object] = {}
#: The amd64 test's configuration with the panel board on the header's UART.
PI_CONFIG = CONFIG.replace('port = "/dev/dealer-panel"', 'port = "/dev/dealer-uart"')
JOURNAL = "/var/lib/dealer-station/journal.sqlite3"
#: The image's RuntimeWatchdogSec= (pi-image/rootfs/etc/systemd/system.conf.d/), in seconds.
PI_WATCHDOG = 14


def host_tools() -> list[str]:
    """What the test runs on the host that this machine lacks."""
    tools = ("qemu-system-aarch64", "qemu-img", "mmdebstrap", "mkfs.vfat", "mcopy", "sfdisk",
             "aarch64-linux-gnu-gcc", "unshare", "nsenter")  # fmt: skip
    return [t for t in tools if shutil.which(t) is None]


class Ntp:
    """The NTP server process (in its own network namespace) and its control socket."""

    def __init__(self, work: Path) -> None:
        self.control = work / "ntp.sock"
        self.process = subprocess.Popen(
            ["unshare", "--net", sys.executable,
             str(ROOT / "vm_tests" / "ntp_server.py"), "--control", str(self.control)],
            stdout=subprocess.DEVNULL, stderr=(work / "ntp.log").open("wb"),
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while not self.control.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the NTP server did not start: {(work / 'ntp.log').read_text()}"
                )
            time.sleep(0.05)  # the socket appears once the server has bound its port

    @property
    def namespace(self) -> tuple[str, ...]:
        """The prefix that runs a command in the server's network namespace."""
        return ("nsenter", f"--net=/proc/{self.process.pid}/ns/net")

    def order(self, **fields: object) -> dict[str, object]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            sock.connect(str(self.control))
            sock.sendall(json.dumps(fields).encode() + b"\n")
            reply: dict[str, object] = json.loads(sock.makefile("rb").readline())
        return reply

    def close(self) -> None:
        self.process.kill()
        self.process.wait(10)


class PiRig(Rig):
    """:class:`test_boot.Rig` with the NTP server."""

    ntp: Ntp


def _diskstats(vm: Vm, device: str) -> tuple[int, int]:
    """Sectors written and flush requests completed on ``device`` (/proc/diskstats: the 7th
    and 15th counters after the name)."""
    for line in vm.sh("cat /proc/diskstats").splitlines():
        fields = line.split()
        if fields[2] == device:
            return int(fields[9]), int(fields[18])
    raise AssertionError(f"no {device} in /proc/diskstats")


@pytest.fixture(scope="module")
def rig() -> Iterator[PiRig]:
    missing = host_tools()
    if missing:
        pytest.fail(f"not installed: {', '.join(missing)} (make system-deps installs them)")

    def deb() -> Path:
        started = time.monotonic()
        try:
            return built_deb("arm64")
        finally:
            TIMES["arm64 deb (built or reused, when the image is not cached)"] = (
                time.monotonic() - started
            )

    started = time.monotonic()
    image = cached_image(deb)
    TIMES["package and image (cached, or built)"] = time.monotonic() - started
    work = Path(f"/tmp/dspi-{os.getpid()}")  # unix socket paths must stay short
    shutil.rmtree(work, ignore_errors=True)
    payload = work / "payload"
    payload.mkdir(parents=True)
    for name in GUEST_FILES:
        shutil.copy2(ROOT / "vm_tests/guest" / name, payload / name)
    (payload / "station.toml").write_text(PI_CONFIG)
    (payload / "99-dealer-station.rules").write_text(udev_rules())
    serials = {**USB, "panel": PANEL_SERIAL}
    endpoints = {kind: f"unix:{work}/{kind}.sock" for kind in serials}
    doubles = ServedDoubles(endpoints, work / "control.sock", serials=serials, seed=29)
    ntp = Ntp(work)
    usb = [UsbSerial(kind, work / f"{kind}.sock", serial) for kind, serial in USB.items()]
    behind = (datetime.now(UTC) - CLOCK_BEHIND).strftime("%Y-%m-%dT%H:%M:%S")
    extra = (
        "-chardev", f"socket,id=uart,path={work}/panel.sock,reconnect=1",
        "-serial", "chardev:uart",
        "-rtc", f"base={behind}",
        "-nic", "user,model=virtio-net-pci",
        "-device", "i6300esb",
    )  # fmt: skip
    vm = Vm(work, image, payload, usb, machine=ARM64, extra=extra, prefix=ntp.namespace,
            disk_size=CARD)  # fmt: skip
    feed = None
    try:
        TIMES["boot to agent"] = vm.wait_for_agent(BOOT_TIMEOUT)
        TIMES["QEMU CPU to agent"] = vm.cpu_seconds() or 0.0
        settings = SimulationSettings(profile="PA", decks=6, seats=3, rounds=10**6, seed=29)
        table = RemoteTable(vm, doubles.client, settings, COVER_AT, stuck_seconds=STEP_ARM)
        feed = table.feed = LogFeed(vm, vm.log_mark(), table.pacer)
        pi = PiRig(vm, doubles, table, feed, step=STEP_ARM)
        pi.ntp = ntp
        yield pi
    finally:
        if feed is not None:
            feed.stop()
        print_diagnostics(vm, ("dealer-station", "systemd-timesyncd"), TIMES)
        print("FIGURES " + json.dumps(FIGURES))
        vm.close()
        doubles.close()
        ntp.close()
        shutil.rmtree(work, ignore_errors=True)


def test_the_image_boots_read_only_with_the_package_installed_and_stopped(rig: PiRig) -> None:
    vm = rig.vm
    assert vm.sh("dpkg-query -W -f '${Status}' dealer-station") == "install ok installed"
    assert vm.sh("systemctl is-enabled dealer-station", check=False).strip() == "disabled"
    vm.sh("systemctl start dealer-station")
    assert rig.show("ActiveState") == "inactive"
    assert rig.show("ConditionResult") == "no"  # no station.toml yet
    # The root and the firmware read-only; the table's data partition writable, holding the
    # station's state directory and timesyncd's saved clock.
    assert "ro" in vm.sh("findmnt -no OPTIONS /").split(",")
    assert "ro" in vm.sh("findmnt -no OPTIONS /boot/firmware").split(",")
    assert vm.sh("findmnt -no SOURCE,OPTIONS /srv/table").split()[1].startswith("rw")
    assert vm.sh("findmnt -no SOURCE /srv/table").strip().endswith("vda3")
    for bound in ("/var/lib/dealer-station", "/var/lib/systemd/timesync"):
        assert vm.sh(f"findmnt -no SOURCE {bound}").strip().endswith("]"), bound  # a bind
    assert vm.sh("stat -c %U:%a /var/lib/dealer-station").strip() == "dealer-station:750"
    # Logs in RAM, not on the card.
    assert vm.sh("ls /run/log/journal/*/system.journal | wc -l").strip() == "1"
    assert vm.sh("find /var/log -name '*.journal' | wc -l").strip() == "0"
    # Nothing failed on the read-only root (systemd-logind, among others, would).
    vm.wait_until("systemctl is-system-running --wait >/dev/null; [ $(systemctl show -P"
                  " SystemState) != starting ]", "the boot's end", STEP_ARM)  # fmt: skip
    assert vm.sh("systemctl --failed --plain --no-legend", check=False).strip() == ""
    assert vm.sh("systemctl is-active systemd-logind").strip() == "active"
    # The compiled rules engine and gpiozero's lgpio pin factory in the package's venv.
    probe = vm.sh(
        "cd /tmp && /opt/dealer-station/bin/python -c 'import controller.rules.round as m,"
        " lgpio, gpiozero.pins.lgpio, platform; print(platform.machine(), m.__file__)'"
    ).split()
    assert probe[0] == "aarch64"
    FIGURES["rules engine"] = "compiled" if probe[1].endswith("aarch64-linux-gnu.so") else "pure"


def _dsdata_mib(vm: Vm) -> tuple[int, int]:
    """DSDATA's partition and its file system, in MiB."""
    partition = int(vm.sh("blockdev --getsize64 /dev/vda3")) >> 20
    blocks, size = vm.sh("stat -f -c '%b %S' /srv/table").split()
    return partition, int(blocks) * int(size) >> 20


def test_dsdata_grows_to_the_whole_card_with_the_documented_command(rig: PiRig) -> None:
    """docs/operations.md's command that gives DSDATA the rest of the card, run as written
    (the card is /dev/vda here, /dev/mmcblk0 on a Pi) with DSDATA mounted and in use."""
    vm = rig.vm
    lines = [line.strip() for line in (ROOT / "docs/operations.md").read_text().splitlines()]
    (command,) = [line for line in lines if line.startswith("echo ', +' | sfdisk")]
    command = command.replace("/dev/mmcblk0p3", "/dev/vda3").replace("/dev/mmcblk0", "/dev/vda")
    partition, filesystem = _dsdata_mib(vm)
    assert 500 <= partition <= 512 and filesystem < partition  # the image's 512 MiB
    vm.sh("echo kept > /srv/table/before-growing")
    vm.sh(command, timeout=STEP_ARM)
    card = int(vm.sh("blockdev --getsize64 /dev/vda")) >> 20
    partition, filesystem = _dsdata_mib(vm)
    # Partition 3 now ends at the card's end: it starts after 4 + 256 + 1536 MiB.
    assert partition == card - (4 + 256 + 1536), (card, partition)
    assert partition - 64 < filesystem <= partition, (partition, filesystem)
    assert vm.sh("cat /srv/table/before-growing").strip() == "kept"
    vm.sh("rm /srv/table/before-growing")


def test_systemd_feeds_the_hardware_watchdog(rig: PiRig) -> None:
    """The image's RuntimeWatchdogSec=14s (the Pi's BCM2835 allows 15) is in force, here with
    the test's longer timeout from the kernel command line (vm.ARM64 says why)."""
    vm = rig.vm
    configured = "/etc/systemd/system.conf.d/dealer-station-watchdog.conf"
    assert f"RuntimeWatchdogSec={PI_WATCHDOG}s" in vm.sh(f"cat {configured}").splitlines()
    assert vm.sh("systemctl show -P RuntimeWatchdogUSec").strip() == "1min"
    assert vm.sh("cat /sys/class/watchdog/watchdog0/state").strip() == "active"
    assert vm.sh("cat /sys/class/watchdog/watchdog0/timeout").strip() == "60"


def test_udev_names_the_uart_and_the_usb_devices(rig: PiRig) -> None:
    vm = rig.vm
    assert vm.sh("readlink -f /dev/dealer-uart").strip() == "/dev/ttyAMA0"
    assert vm.sh("stat -L -c %G:%a /dev/dealer-uart").strip() == "dialout:660"
    # The technician's step 3: the devices' serial numbers in a copy of the package's rules,
    # on the root remounted writable for the configuration.
    vm.sh("mount -o remount,rw /")
    vm.sh("install -m 0644 /run/payload/99-dealer-station.rules /etc/udev/rules.d/")
    vm.sh("udevadm control --reload && udevadm trigger --action=add --subsystem-match=tty"
          " && udevadm settle --timeout=120", timeout=STEP_ARM)  # fmt: skip
    for name in ("shuffler", "shoe"):
        target = vm.sh(f"readlink -f /dev/dealer-{name}").strip()
        assert target.startswith("/dev/ttyUSB"), (name, target)
    vm.sh("modprobe -a dummy_hcd libcomposite usb_f_fs")
    vm.sh(
        "systemd-run --unit=reader-gadget /opt/dealer-station/bin/python"
        f" /run/payload/gadget.py --vid {READER['vid']:#x} --pid {READER['pid']:#x}"
        f" --serial {READER['serial']} --control /run/reader.sock"
    )
    vm.wait_until("[ -S /run/reader.sock ]", "the card reader gadget's control socket", STEP_ARM,
                  diagnose="journalctl --no-pager -n 20 -o cat -u reader-gadget")  # fmt: skip
    vm.wait_until(f"grep -qx {READER['serial']} /sys/bus/usb/devices/*/serial",
                  "the card reader gadget on dummy_hcd's bus", STEP_ARM,
                  diagnose="journalctl --no-pager -n 20 -o cat -u reader-gadget")  # fmt: skip
    vm.sh("udevadm settle --timeout=120", timeout=STEP_ARM)


def test_configured_paired_and_enabled_it_reaches_ready_with_the_clock_unsynchronised(
    rig: PiRig,
) -> None:
    vm = rig.vm
    vm.sh("install -m 0640 -g dealer-station /run/payload/station.toml /etc/dealer-station/")
    # Pair, then seal (docs/operations.md: flash, first boot, configure, pair, seal).
    pair_and_seal(rig)
    started = time.monotonic()
    vm.sh("systemctl enable --now dealer-station", timeout=STEP_ARM)
    TIMES["enable --now to READY"] = time.monotonic() - started
    TIMES["QEMU start to READY"] = time.monotonic() - vm.started
    vm.sh("sync && mount -o remount,ro /")  # configured: read-only again
    assert rig.show("SubState") == "running"
    # No NTP yet: the clock is the board's, a month behind, and the station says so.
    assert vm.sh("test -e /run/systemd/timesync/synchronized || echo no").strip() == "no"
    _, entry = vm.log_wait(0, STEP_ARM, fields={"event": "clock"})
    assert entry["station"]["synchronized"] is False
    assert entry["station"]["step_us"] == 0


def test_a_shoe_through_usb_serial_deals_rounds_and_the_journal_verifies(rig: PiRig) -> None:
    vm = rig.vm
    rounds_before = _rounds(vm)
    # The whole card: the journal's partition and whatever else would write (nothing should).
    written, flushes = _diskstats(vm, "vda")
    started = time.monotonic()
    view = rig.table.play_until()
    TIMES["full shoe"] = time.monotonic() - started
    assert rig.feed.error is None
    assert view.state in (State.SHUFFLING, State.LOADING)
    assert rig.doubles.client.get("shoe", "draws") > COVER_AT
    rounds = _rounds(vm) - rounds_before
    assert rounds >= 4
    written_after, flushes_after = _diskstats(vm, "vda")
    FIGURES["rounds"] = rounds
    FIGURES["bytes_per_round"] = round((written_after - written) * 512 / rounds)
    FIGURES["flushes_per_round"] = round((flushes_after - flushes) / rounds, 1)
    FIGURES["rounds_per_s_emulated"] = round(rounds / TIMES["full shoe"], 3)
    _verified(vm)


def _rounds(vm: Vm) -> int:
    return len(vm.journal_rows(JOURNAL, ("round_completed",), timeout=STEP_ARM))


def _verified(vm: Vm) -> None:
    reply = vm.call("sh", timeout=STEP_ARM,
                    cmd="runuser -u dealer-station -- dealer-station journal verify")  # fmt: skip
    assert reply["rc"] == 0 and "intact" in reply["out"], reply


def _clock_rows(vm: Vm) -> list[tuple[int, str, dict[str, object]]]:
    """The journal's ``clock`` rows: id, time, data."""
    rows = vm.journal_rows(JOURNAL, ("clock",), timeout=STEP_ARM)
    return [(i, ts, json.loads(data)) for i, ts, _, data in rows]


def test_ntp_arriving_is_journalled_with_the_correction(rig: PiRig) -> None:
    vm = rig.vm
    mark = vm.log_mark()
    asked = time.monotonic()
    rig.ntp.order(answer=True)
    vm.log_wait(mark, STEP_ARM, fields={"event": "clock", "synchronized": True})
    TIMES["NTP answering to the clock row"] = time.monotonic() - asked
    rows = _clock_rows(vm)
    # The start's row, then the correction: about the month the board was behind (less the
    # seconds between the test's reading of the host clock and QEMU's start).
    assert rows[0][2] == {"synchronized": False, "step_us": 0}
    forward = 0
    for _, _, data in rows[1:]:
        step = data["step_us"]
        assert isinstance(step, int), data  # microseconds, an int in the row
        forward += step
    month = CLOCK_BEHIND.total_seconds() * 1e6
    assert month - 120e6 < forward < month + 120e6, forward
    assert rows[-1][2]["synchronized"] is True
    # The rows before the correction carry the board's time, the rows after the true one.
    before = datetime.fromisoformat(rows[0][1].replace("Z", "+00:00"))
    assert datetime.now(UTC) - before > CLOCK_BEHIND - timedelta(hours=1)
    # The next test deals on and verifies the journal with these rows in it.


def _wait_for_step(vm: Vm, mark: int, wanted: float) -> int:
    """Wait for the station's ``clock`` log line stepping by about ``wanted`` microseconds
    (within a minute) from log entry ``mark`` on; its index."""
    while True:
        index, entry = vm.log_wait(mark, STEP_ARM, fields={"event": "clock"})
        if abs(int(entry["station"]["step_us"]) - wanted) < 60e6:
            return index
        mark = index + 1


#: Reads ``journal export`` on stdin in the guest (the whole export is more than the agent
#: returns) and prints what the step-back test needs: the ``clock`` rows after the first
#: KNOWN (id and step), whether the rows come in id order 1..n, and, between the first two
#: of those clock rows, how many rows there are and their latest time against the latest
#: time before them.
EXPORT_SUMMARY = (
    "import json, sys; known = int(sys.argv[1]); rows = [json.loads(line) for line in"
    " sys.stdin]; clock = [[r['id'], r['data']['step_us']] for r in rows if r['kind'] =="
    " 'clock'][known:]; back, forward = clock[0][0], clock[1][0]; during = [r['ts'] for r"
    " in rows if back <= r['id'] < forward]; print(json.dumps({'clock': clock, 'in_order':"
    " [r['id'] for r in rows] == list(range(1, len(rows) + 1)), 'before': max(r['ts'] for r"
    " in rows if r['id'] < back), 'during': max(during), 'during_rows': len(during)}))"
)


def _dealt_a_round(rig: PiRig) -> None:
    """Deal until the next round is open for bets."""
    view = rig.table.pacer.view
    after = view.round_no if view is not None else 0
    rig.table.play_until(lambda v: v.state is State.BETTING and v.round_no > after)


def test_a_step_back_never_reorders_the_journal(rig: PiRig) -> None:
    """NTP pulls the clock an hour back (the server's time changed), then forward again: both
    steps journalled, and the rows written in the hour back (a round dealt) stay after the
    rows before them, with earlier times; verify, export and recall go by id."""
    vm = rig.vm
    known = len(_clock_rows(vm))
    mark = vm.log_mark()
    rig.ntp.order(offset=-3600)
    mark = _wait_for_step(vm, mark, -3600e6)
    _dealt_a_round(rig)
    rig.ntp.order(offset=0)
    _wait_for_step(vm, mark, 3600e6)
    _dealt_a_round(rig)
    # verify, export and recall, the station's user's commands in one Python in the guest.
    verified, exported, recalled = vm.dealer_station(
        ["journal", "verify"],
        ["journal", "export", "--journal", JOURNAL],
        ["journal", "recall", "3", "--json"],
        timeout=STEP_ARM,
    )
    assert verified["rc"] == 0 and "intact" in verified["out"], verified
    assert exported["rc"] == 0, exported["err"]
    summary = json.loads(
        vm.sh(f'python3.11 -c "{EXPORT_SUMMARY}" {known} < {exported["path"]}', timeout=STEP_ARM)
    )
    steps = [round(step_us / 3600e6) for _, step_us in summary["clock"]]
    assert steps == [-1, 1], summary
    assert summary["in_order"], summary
    # Later rows, earlier times: a round's worth written an hour back, still in id order.
    assert summary["during_rows"] > 10 and summary["during"] < summary["before"], summary
    assert recalled["rc"] == 0, recalled["err"]
    numbers = [r["round"] for r in json.loads(vm.sh(f"cat {recalled['path']}"))["rounds"]]
    assert numbers == sorted(numbers) and len(numbers) == 3, numbers


def test_sigkill_restarts_it_and_the_round_resumes(rig: PiRig) -> None:
    _sigkill_resumes(rig)


def test_sigstop_the_watchdog_restarts_it_within_watchdogsec(rig: PiRig) -> None:
    _sigstop(rig)


def test_a_hung_system_is_reset_by_the_hardware_watchdog(rig: PiRig) -> None:
    """PID 1 frozen stands in for a hung kernel: nobody feeds the watchdog, which resets
    the board; QEMU reports the watchdog's reset on its monitor (and, told not to reboot,
    exits). systemd fed it every half timeout until then, so the reset comes between half the
    timeout and the timeout after the freeze, not at once (a panic would reset at once).

    The image's own 14 s is put back just before the freeze (systemd's manager property,
    which reprograms the hardware at once): the test's 60 s guards the tests before against a
    starved guest, and would make this wait a minute."""
    vm = rig.vm
    vm.sh(
        "busctl set-property org.freedesktop.systemd1 /org/freedesktop/systemd1"
        f" org.freedesktop.systemd1.Manager RuntimeWatchdogUSec t {PI_WATCHDOG * 10**6}"
    )
    assert vm.sh("systemctl show -P RuntimeWatchdogUSec").strip() == f"{PI_WATCHDOG}s"
    timeout = int(vm.sh("cat /sys/class/watchdog/watchdog0/timeout"))
    assert timeout == PI_WATCHDOG, timeout
    vm.qmp("query-status")  # the monitor connected: QEMU sends its events from now on
    # QEMU exits at the reset: its CPU seconds so far, for the diagnostics (print_diagnostics).
    TIMES["QEMU CPU to the freeze"] = vm.cpu_seconds() or 0.0
    TIMES["QEMU wall to the freeze"] = time.monotonic() - vm.started
    vm.call("sh", cmd="kill -SEGV 1", timeout=10)  # systemd freezes on a crash
    frozen = time.monotonic()
    event = vm.wait_qmp_event("WATCHDOG", timeout + 120)
    TIMES["PID 1 frozen to the watchdog's reset"] = after = time.monotonic() - frozen
    assert event["data"]["action"] == "reset", event
    assert timeout / 2 - 5 <= after <= timeout + 30, after
    vm.process.wait(timeout=60)
