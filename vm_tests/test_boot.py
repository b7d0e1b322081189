"""The package installed and run in a real Debian 12 guest: systemd, udev, kernel USB drivers.

One guest boots for the whole module (QEMU TCG, the cached image of ``image.py``); the tests
run in file order against it, each leaving the station running for the next:

* the shoe, shuffler and panel board are QEMU ``usb-serial`` devices (guest: ftdi_sio,
  /dev/ttyUSB*, 0403:6001, named by the project's udev rules) whose chardevs are unix
  sockets served by the device doubles in their own process on the host
  (``dealer-station doubles``);
* the card reader is a FunctionFS gadget on ``dummy_hcd`` inside the guest
  (``drivers.simulated.ffs_gadget``, the reader double from the installed package);
* the station is the installed .deb's unit, as its service user, under its hardening;
* the dealer is the project's simulated dealer (``remote_table.py``), paced by the
  daemon's debug log.

Every wait has a deadline and waits on a condition (an agent reply, a journald line, a QMP
event, a lamp on the panel board); nothing sleeps in place of an event.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import pytest
from debbuild import ROOT, built_deb
from image import cached_image
from remote_table import LogFeed, RemoteTable
from vm import GUEST_FILES, UsbSerial, Vm, missing_tools

from controller.simulation.dealer import Press, TurnKey
from controller.simulation.runner import SimulationSettings
from controller.table.prompts import State
from drivers.hal import Button
from drivers.simulated.serve_client import ServedDoubles

pytestmark = [
    # The first test also builds the .deb (and, on a fresh machine, the image) and boots;
    # every step inside has its own deadline.
    pytest.mark.timeout(900),
]


@pytest.fixture(autouse=True, scope="module")
def _host_tools() -> None:
    """A machine without QEMU fails the boot test, naming what is missing: a skip would let
    the test command pass without booting the package at all."""
    missing = missing_tools()
    if missing:
        pytest.fail(f"not installed: {', '.join(missing)} (make system-deps installs them)")


class UsbIdentity(TypedDict):
    """A USB device's vendor and product ids and serial number."""

    vid: int
    pid: int
    serial: str


BOOT_TIMEOUT = 240.0
STEP = 120.0  # one systemctl or dpkg step in the TCG guest
SERIALS = {"shuffler": "SHF-VM-1", "shoe": "SHO-VM-1", "panel": "PNL-VM-1"}
READER: UsbIdentity = {"vid": 0x1209, "pid": 0x5321, "serial": "RDR-VM-1"}
TIMES: dict[str, float] = {}
#: Where the dealer cuts the shoe: 100 cards (about eight rounds at three seats) keep the
#: test near a minute on TCG; the runner's default (60 from the end, 228 cards) takes
#: about three minutes here.
COVER_AT = 100

CONFIG = f"""\
table_id = "VM-PA-1"
profile = "PA"
decks = 6

[options]
match_the_dealer = true

[journal]
path = "/var/lib/dealer-station/journal.sqlite3"

[logging]
level = "debug"
format = "json"

[devices.shuffler]
port = "/dev/dealer-shuffler"
serial = "{SERIALS["shuffler"]}"
firmware = ["sim-1.0"]

[devices.shoe]
port = "/dev/dealer-shoe"
serial = "{SERIALS["shoe"]}"
firmware = ["sim-1.0"]

[devices.card_reader]
vid = {READER["vid"]:#06x}
pid = {READER["pid"]:#06x}
serial = "{READER["serial"]}"
firmware = ["sim-1.0"]

[devices.panel_board]
port = "/dev/dealer-panel"
serial = "{SERIALS["panel"]}"
firmware = ["sim-1.0"]
"""


def udev_rules() -> str:
    """The package's rules with this rig's ids and serial numbers, as docs/operations.md
    tells the operator to write them (/etc/udev/rules.d/ overrides the package's file)."""
    text = (ROOT / "systemd/99-dealer-station.rules").read_text()
    for old, new in (
        ('ATTRS{serial}=="SHF0001234"', f'ATTRS{{serial}}=="{SERIALS["shuffler"]}"'),
        (
            'ATTRS{idVendor}=="1209", ATTRS{idProduct}=="5320", ATTRS{serial}=="SHO0000042"',
            f'ATTRS{{idVendor}}=="0403", ATTRS{{idProduct}}=="6001", '
            f'ATTRS{{serial}}=="{SERIALS["shoe"]}"',
        ),
        ('ATTRS{serial}=="PNL0000007"', f'ATTRS{{serial}}=="{SERIALS["panel"]}"'),
        ('ATTR{serial}=="RDR-0007"', f'ATTR{{serial}}=="{READER["serial"]}"'),
    ):
        assert old in text, old
        text = text.replace(old, new)
    return text


@dataclass
class Rig:
    """The guest, the doubles serving its USB-serial devices, and the dealer."""

    vm: Vm
    doubles: ServedDoubles
    table: RemoteTable
    feed: LogFeed
    #: The deadline of one step in the guest (a systemctl, a restart to READY).
    step: float = STEP

    def show(self, prop: str) -> str:
        return self.vm.sh(f"systemctl show -P {prop} dealer-station").strip()

    def wait_ready(self, since: int) -> dict[str, object]:
        """The station's "ready" log line from ``since`` on."""
        _, entry = self.vm.log_wait(since, self.step, fields={"event": "ready"})
        station = entry["station"]
        assert isinstance(station, dict)
        return station


def print_diagnostics(vm: Vm, units: tuple[str, ...], times: dict[str, float]) -> None:
    """At a rig's end: the console's last lines, the units' last log lines and the timings
    (shown with -s, or -rA under xdist), with QEMU's CPU seconds against its wall seconds
    while it still runs (how much of the cores the guest took)."""
    cpu = vm.cpu_seconds()
    if cpu is not None:
        times["QEMU CPU"] = cpu
        times["QEMU wall"] = time.monotonic() - vm.started
    print(f"\nconsole:\n{vm.console_tail(20)}")
    try:
        where = " ".join(f"-u {unit}" for unit in units)
        print(vm.sh(f"journalctl --no-pager -n 60 {where} | cut -c1-400", check=False,
                    timeout=30))  # fmt: skip
    except Exception as err:  # diagnostics only
        print(f"no journal: {err}")
    print("timings: " + json.dumps({k: round(v, 1) for k, v in times.items()}))
    print("QEMU CPU and wall seconds per test:")
    for name, (cpu_s, wall_s) in vm.per_test.items():
        print(f"  {cpu_s:6.1f} {wall_s:6.1f}  {name}")
    spent: dict[str, list[float]] = {}
    for seconds, what in vm.calls:
        spent.setdefault(what, []).append(seconds)
    longest = sorted(spent.items(), key=lambda item: -sum(item[1]))[:25]
    print("agent requests, the longest in all (seconds, count):")
    for what, each in longest:
        print(f"  {sum(each):7.1f} {len(each):4d}  {what}")


@pytest.fixture(scope="module")
def rig() -> Iterator[Rig]:
    started = time.monotonic()
    deb = built_deb()
    TIMES["deb (built or reused)"] = time.monotonic() - started
    started = time.monotonic()
    image = cached_image()
    TIMES["image (built or cached)"] = time.monotonic() - started
    work = Path(f"/tmp/dsvm-{os.getpid()}")  # unix socket paths must stay short
    shutil.rmtree(work, ignore_errors=True)
    payload = work / "payload"
    payload.mkdir(parents=True)
    shutil.copy2(deb, payload / "dealer-station.deb")
    for name in GUEST_FILES:
        shutil.copy2(ROOT / "vm_tests/guest" / name, payload / name)
    (payload / "station.toml").write_text(CONFIG)
    (payload / "99-dealer-station.rules").write_text(udev_rules())
    endpoints = {kind: f"unix:{work}/{kind}.sock" for kind in SERIALS}
    doubles = ServedDoubles(endpoints, work / "control.sock", serials=SERIALS, seed=16)
    usb = [UsbSerial(kind, work / f"{kind}.sock", serial) for kind, serial in SERIALS.items()]
    vm = Vm(work, image, payload, usb)
    try:
        TIMES["boot to agent"] = vm.wait_for_agent(BOOT_TIMEOUT)
        TIMES["QEMU CPU to agent"] = vm.cpu_seconds() or 0.0
        settings = SimulationSettings(profile="PA", decks=6, seats=3, rounds=10**6, seed=16)
        table = RemoteTable(vm, doubles.client, settings, COVER_AT)
        feed = table.feed = LogFeed(vm, vm.log_mark(), table.pacer)
        yield Rig(vm, doubles, table, feed)
    finally:
        feed_ = locals().get("feed")
        if feed_ is not None:
            feed_.stop()
        print_diagnostics(vm, ("dealer-station", "reader-gadget"), TIMES)
        vm.close()
        doubles.close()
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(autouse=True)
def unit_log_after_each_test(rig: Rig) -> Iterator[None]:
    """The unit's last log lines after each test (shown with -s; kept short)."""
    yield
    print(f"\nfeed error: {rig.feed.error}; pacer seq {rig.table.pacer.seq}")
    print(rig.vm.sh("journalctl --no-pager -n 12 -o cat -u dealer-station | cut -c1-250",
                    check=False, timeout=30))  # fmt: skip


@pytest.fixture(autouse=True)
def qemu_seconds_per_test(rig: Rig, request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test's QEMU CPU seconds against its wall seconds, for print_diagnostics (the
    arm64 module uses it too)."""
    cpu, wall = rig.vm.cpu_seconds(), time.monotonic()
    yield
    after = rig.vm.cpu_seconds()
    if cpu is not None and after is not None:
        rig.vm.per_test[request.node.name] = (after - cpu, time.monotonic() - wall)


def _pairing_mode(rig: Rig, kind: str, on: bool) -> None:
    """Hold (or let go) the device's pairing button; the panel board reads its own key switch
    for pairing, so that is turned too."""
    if kind == "card_reader":
        rig.vm.reader("set", "pairing_button", on)
    else:
        rig.doubles.client.set(kind, "pairing_button", on)
    if kind == "panel":
        rig.doubles.client.call("panel", "turn_key", on)


PAIRED = ("shuffler", "shoe", "panel", "card_reader")


def pair_and_seal(rig: Rig) -> None:
    """Pair every device as the service user, its pairing button held (docs/operations.md,
    step 3; a panel-board table has no GPIO key line for pairing to read:
    --without-key-switch), then seal (``journal setup-keys``), as the documented order has
    it: the commands in one Python in the guest (``Vm.dealer_station``), every button held
    for the four pairings."""
    for kind in PAIRED:
        _pairing_mode(rig, kind, True)
    config = "/etc/dealer-station/station.toml"
    pair = [["pair", kind, "--config", config, "--without-key-switch", "--timeout", "60"]
            for kind in PAIRED]  # fmt: skip
    # The five commands' deadline: two steps (each of them had one, run on its own).
    *paired, sealed = rig.vm.dealer_station(
        *pair, ["journal", "setup-keys", "--config", config], groups="dialout",
        timeout=2 * rig.step,
    )  # fmt: skip
    for kind, result in zip(PAIRED, paired, strict=True):
        assert result["rc"] == 0 and f"{kind} paired" in result["out"], (kind, result)
        _pairing_mode(rig, kind, False)
    assert sealed["rc"] == 0, sealed["err"]


def test_install_leaves_the_service_stopped_until_configured(rig: Rig) -> None:
    vm = rig.vm
    # --force-unsafe-io: dpkg skips its fsync of each of the package's thousands of files,
    # which cost the TCG guest about 10 s; what is installed is the same, and the guest's
    # disk is thrown away with it.
    vm.sh("dpkg -i --force-unsafe-io /mnt/payload/dealer-station.deb", timeout=STEP)
    assert vm.sh("id -nG dealer-station").split() == ["dealer-station"]
    assert vm.sh("stat -c '%U:%G %a' /var/lib/dealer-station /etc/dealer-station").split() == [
        "dealer-station:dealer-station", "750", "root:dealer-station", "750"
    ]  # fmt: skip
    assert (
        vm.sh("readlink /usr/bin/dealer-station")
        .strip()
        .endswith("/opt/dealer-station/bin/dealer-station")
    )
    assert vm.sh("systemctl is-enabled dealer-station", check=False).strip() == "disabled"
    # Without station.toml a start is skipped, not failed (ConditionPathExists=).
    vm.sh("systemctl start dealer-station")
    assert rig.show("ActiveState") == "inactive"
    assert rig.show("ConditionResult") == "no"


def test_udev_names_the_devices_and_the_reader_gadget_enumerates(rig: Rig) -> None:
    vm = rig.vm
    vm.sh("install -m 0644 /mnt/payload/99-dealer-station.rules /etc/udev/rules.d/")
    vm.sh("udevadm control --reload && udevadm trigger --action=add --subsystem-match=tty"
          " && udevadm settle --timeout=60")  # fmt: skip
    for name in ("shuffler", "shoe", "panel"):
        target = vm.sh(f"readlink -f /dev/dealer-{name}").strip()
        assert target.startswith("/dev/ttyUSB"), (name, target)
        assert vm.sh(f"stat -L -c %G:%a /dev/dealer-{name}").strip() == "dialout:660"
    vm.sh("modprobe -a dummy_hcd libcomposite usb_f_fs")
    vm.sh(
        "systemd-run --unit=reader-gadget /opt/dealer-station/bin/python"
        f" /mnt/payload/gadget.py --vid {READER['vid']:#x} --pid {READER['pid']:#x}"
        f" --serial {READER['serial']} --control /run/reader.sock"
    )
    vm.sh("timeout 60 sh -c 'until [ -S /run/reader.sock ]; do sleep 0.1; done'")
    # The gadget enumerates on dummy_hcd's bus once bound: wait for it, then for udev.
    find = (
        "grep -lx 1209 /sys/bus/usb/devices/*/idVendor 2>/dev/null | while read f; do"
        " d=${f%/idVendor}; echo $(cat $d/serial) /dev/bus/usb/$(printf %03d $(cat $d/busnum))/"
        "$(printf %03d $(cat $d/devnum)); done"
    )
    vm.sh(f"timeout 60 sh -c 'until [ -n \"$({find})\" ]; do sleep 0.1; done'")
    vm.sh("udevadm settle --timeout=60")
    serial, node = vm.sh(find).split()
    assert serial == READER["serial"]
    assert vm.sh(f"stat -c %U:%G:%a {node}").strip() == "root:dealer-station:660"


def test_configured_and_enabled_it_reaches_ready(rig: Rig) -> None:
    vm = rig.vm
    vm.sh("install -m 0640 -g dealer-station /mnt/payload/station.toml /etc/dealer-station/")
    assert "ok: table VM-PA-1" in vm.sh(
        "dealer-station check-config /etc/dealer-station/station.toml"
    )
    pair_and_seal(rig)
    assert vm.sh("stat -c %U:%a /var/lib/dealer-station/pairing").strip() == "dealer-station:700"
    started = time.monotonic()
    vm.sh("systemctl enable --now dealer-station", timeout=STEP)  # Type=notify: READY=1
    TIMES["enable --now to READY"] = time.monotonic() - started
    TIMES["QEMU start to READY"] = time.monotonic() - vm.started
    assert rig.show("ActiveState") == "active"
    assert rig.show("SubState") == "running"
    status = rig.show("StatusText")
    assert status.startswith(("shuffling, round 0", "loading, round 0")), status
    assert vm.sh("ps -o user= -p $(systemctl show -P MainPID dealer-station)").strip() == (
        "dealer-station"
    )


def test_a_full_shoe_through_the_kernel_drivers_and_the_journal_verifies(rig: Rig) -> None:
    started = time.monotonic()
    view = rig.table.play_until()  # the cover card, its round, the reshuffle
    TIMES["full shoe"] = time.monotonic() - started
    assert rig.feed.error is None
    assert view.state in (State.SHUFFLING, State.LOADING)
    dealt = rig.doubles.client.get("shoe", "draws")
    assert dealt > COVER_AT, dealt  # every card before the cover card, the cover, its round
    assert view.round_no >= 4
    verified = rig.vm.call("sh", cmd="runuser -u dealer-station -- dealer-station journal verify")
    assert verified["rc"] == 0, verified
    assert "intact" in verified["out"], verified


def test_journald_holds_json_lines_with_the_table_id(rig: Rig) -> None:
    lines = [e["station"] for e in rig.feed.entries if isinstance(e.get("station"), dict)]
    assert len(lines) > 100
    assert {line["table_id"] for line in lines} == {"VM-PA-1"}
    assert {"ready", "state", "event handled"} <= {line["event"] for line in lines}


def stop_report(vm: Vm) -> str:
    """The station's log from the last stop's signal on: a stop still under way after 7 s
    left every thread's stack there (docs/operations.md, "Running")."""
    return vm.sh(
        "journalctl --no-pager -o cat -n 400 -u dealer-station | grep -v '\"event handled\"'"
        ' | tac | sed \'/"signal": "SIGTERM"/q\' | tac',
        check=False,
        timeout=60,
    )


def test_stop_journals_clean_shutdown(rig: Rig) -> None:
    vm = rig.vm
    vm.sh("systemctl stop dealer-station", timeout=STEP)
    assert rig.show("ActiveState") == "inactive", stop_report(vm)
    assert rig.show("Result") == "success"
    journal = "/var/lib/dealer-station/journal.sqlite3"
    ((_, _, last, _),) = vm.journal_rows(journal, ("seal",), exclude=True, last=True)
    assert last == "clean_shutdown"  # the seal over it follows
    mark = vm.log_mark()
    vm.sh("systemctl start dealer-station", timeout=STEP)
    rig.wait_ready(mark)


def _restarted(rig: Rig, mark: int) -> dict[str, object]:
    """Wait for the station's "ready" after ``mark`` and until the dealer's pacer has seen
    everything up to it (the table as the restarted station restored it)."""
    index, entry = rig.vm.log_wait(mark, rig.step, fields={"event": "ready"})
    rig.feed.wait_past(index, rig.step)
    station = entry["station"]
    assert isinstance(station, dict)
    return station


def test_sigkill_restarts_it_and_the_round_resumes(rig: Rig) -> None:
    """Killed while settling (after the reveal), the station is restarted by systemd,
    rebuilds the round from the journal (held in the fault state, recovery.py), and the
    supervisor's resume settles that same round."""
    table = rig.table
    view = table.play_until(lambda v: v.state is State.SETTLING)
    round_no = view.round_no
    old_pid = rig.show("MainPID")
    restarts = int(rig.show("NRestarts"))
    mark = rig.vm.log_mark()
    rig.vm.sh("systemctl kill --signal=SIGKILL --kill-whom=main dealer-station")
    _restarted(rig, mark)  # Restart=on-failure
    assert rig.show("MainPID") != old_pid
    assert int(rig.show("NRestarts")) == restarts + 1
    restored = table.pacer.view
    assert restored is not None
    assert restored.round_no == round_no, restored
    assert restored.state is State.FAULT and (restored.fault or "").startswith(
        "recovered_mid_round"
    ), restored
    # The supervisor resumes (the simulated dealer would void): key on, resume, key off.
    for action in (TurnKey(True), Press(Button.SUPERVISOR_RESUME), TurnKey(False)):
        table.dealing.perform(action, restored)
    view = table.play_until(lambda v: v.state is not State.FAULT)
    assert view.round_no == round_no and view.state is State.SETTLING, view
    view = table.play_until(lambda v: v.state is State.BETTING and v.round_no > round_no)
    assert view.fault is None


def test_sigstop_the_watchdog_restarts_it_within_watchdogsec(rig: Rig) -> None:
    vm = rig.vm
    configured = rig.show("WatchdogUSec")
    assert configured == "10s", configured
    watchdog = 10
    mark = vm.log_mark()
    stopped_at = int(vm.sh("date +%s%6N; systemctl kill --signal=SIGSTOP --kill-whom=main"
                           " dealer-station").split()[0])  # fmt: skip
    _, timeout_entry = vm.log_wait(mark, rig.step, contains="Watchdog timeout")
    fired = (int(timeout_entry["__REALTIME_TIMESTAMP"]) - stopped_at) / 1e6
    TIMES["SIGSTOP to watchdog timeout"] = fired
    # The last ping came at most WatchdogSec/2 before the stop (the loop pings every half).
    assert watchdog / 2 - 1.0 <= fired <= watchdog + 2.0, fired
    _restarted(rig, mark)
    assert rig.show("ActiveState") == "active"


def test_unplugged_shoe_raises_the_fault_prompt_and_replugging_recovers(rig: Rig) -> None:
    vm, table = rig.vm, rig.table
    view = table.play_until(lambda v: v.state is State.BETTING)
    round_no = view.round_no
    mark = vm.log_mark()
    vm.unplug("shoe")
    assert rig.doubles.client.wait_lamp("fault", "blink", timeout=STEP)
    assert "fault" in rig.show("StatusText")
    vm.replug("shoe")
    index, _ = vm.log_wait(mark, STEP, fields={"event": "device connected", "device": "shoe"})
    rig.feed.wait_past(index)
    # The simulated supervisor turns the key and resumes; the table goes on.
    view = table.play_until(lambda v: v.state is State.BETTING and v.round_no > round_no)
    assert view.fault is None
    assert rig.doubles.client.call("panel", "lamp", "fault") == "off"


def test_without_device_allow_usb_the_reader_cannot_be_opened(rig: Rig) -> None:
    vm = rig.vm
    dropin = "/run/systemd/system/dealer-station.service.d"
    vm.sh(
        f"mkdir -p {dropin} && printf '[Service]\\nDeviceAllow=\\nDeviceAllow=char-ttyUSB rw\\n"
        f"DeviceAllow=char-ttyACM rw\\nDeviceAllow=char-gpiochip rw\\n' > {dropin}/no-usb.conf"
        " && systemctl daemon-reload"
    )
    try:
        mark = vm.log_mark()
        vm.sh("systemctl restart dealer-station", timeout=STEP)
        _, entry = vm.log_wait(mark, STEP, contains=READER["serial"])
        message = str(entry["MESSAGE"])
        # libusb cannot open the node (EPERM from the device cgroup), so pyusb cannot read
        # the string descriptors: "no langid (permission issue ...)".
        assert "permission" in message, message
        wanted = {"event": "device connected", "device": "card_reader"}
        connected = vm.call("log_wait", since=mark, timeout=0.0, fields=wanted)
        assert connected["index"] is None
    finally:
        vm.sh(f"rm -rf {dropin} && systemctl daemon-reload")
    mark = vm.log_mark()
    vm.sh("systemctl restart dealer-station", timeout=STEP)
    vm.log_wait(mark, STEP, fields={"event": "device connected", "device": "card_reader"})


def test_purge_removes_what_it_made_but_the_journal(rig: Rig) -> None:
    vm = rig.vm
    vm.sh("systemctl disable --now dealer-station && dpkg --purge dealer-station", timeout=STEP)
    gone = vm.sh(
        "for p in /etc/dealer-station /opt/dealer-station /usr/bin/dealer-station"
        " /lib/systemd/system/dealer-station.service /lib/udev/rules.d/99-dealer-station.rules"
        " /var/lib/dealer-station/sealing-key; do [ -e $p ] && echo $p; done; true"
    ).split()
    assert gone == []
    kept = vm.sh("ls /var/lib/dealer-station").split()
    assert "journal.sqlite3" in kept
    assert all(name.startswith("journal.sqlite3") for name in kept), kept
