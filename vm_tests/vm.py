"""A Debian 12 guest under QEMU for the boot test: disks, USB devices, agent and monitor.

The guest boots the cached image (``image.py``) through a qcow2 overlay, so the image stays
clean; a second, read-only disk carries the payload (the .deb, the agent, configuration).
Serial devices are QEMU ``usb-serial`` devices on an xHCI controller: the guest's
``ftdi_sio`` makes them /dev/ttyUSB* with USB ids 0403:6001 and the serial number given;
their chardevs are unix sockets that the host's device doubles serve (QEMU connects as
the client and reconnects). The agent (``guest/agent.py``) answers on a virtio-serial port;
QMP drives the machine (``device_del`` / ``device_add`` unplug and replug a device).

TCG, not KVM: /dev/kvm here is a nested PVM on which a stock Debian kernel hangs after
SeaBIOS (docs/pitfalls.md).
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: What the boot tests copy from vm_tests/guest/ into the guest's payload: the agent, the
#: commands' runner and the card reader gadget's launcher.
GUEST_FILES = ("agent.py", "commands.py", "gadget.py")
#: The amd64 guest's kernel command line. No getty at all (the agent is the only way in):
#: Debian's getty-static starts five on tty2-6 beside getty.target's, which cost the boot
#: about 15 s of TCG time; with QEMU's -vga none there is no screen for them either.
KERNEL_ARGS = (
    "root=/dev/vda rw console=ttyS0 systemd.mask=serial-getty@ttyS0.service"
    " systemd.mask=getty.target systemd.mask=getty-static.service"
    " systemd.show_status=false loglevel=4 panic=-1"
)


@dataclass(frozen=True)
class Machine:
    """How QEMU boots one kind of guest: the emulator, its machine and CPU, the kernel's
    command line, the disk in the image directory and where the console goes."""

    qemu: str
    machine: tuple[str, ...]
    kernel_args: str
    disk: str
    disk_format: str = "raw"
    #: Where the guest's agent unit mounts the payload disk (image.agent_unit).
    payload: str = "/mnt/payload"

    def console(self, path: Path) -> list[str]:
        """The arguments that write the guest's console to ``path``."""
        if self.qemu == "qemu-system-x86_64":
            return ["-serial", f"file:{path}"]
        # arm64: the console on a virtio console, leaving the PL011 UART to the test.
        return ["-chardev", f"file,id=console,path={path}", "-device",
                "virtconsole,chardev=console"]  # fmt: skip


#: The boot test's Debian 12 amd64 guest (image.py). -vga none: the console is the serial
#: port, and a VGA card's framebuffer console drew every kernel line in emulation.
AMD64 = Machine(
    "qemu-system-x86_64",
    ("-accel", "tcg,thread=multi", "-cpu", "max", "-smp", "2", "-vga", "none"),
    KERNEL_ARGS, "root.img",
)  # fmt: skip
#: The Raspberry Pi image (pi_image.py's test.img) on QEMU's generic arm64 board: the Pi 4's
#: Cortex-A72, the image's own root by its label (read-only, as on the Pi), the console on the
#: screen as the image has it (the PL011 UART, ttyAMA0 as on the Pi, is the table's; a
#: console on the virtio console, whose driver is not in the image's initramfs, lost PID 1's
#: console early in the boot and the guest reset).
#: systemd.watchdog_sec=60: the hardware watchdog fed as the image configures it, with a
#: longer timeout than the Pi's 14 s: the board's watchdog counts real time, and a TCG guest on
#: a loaded 2-core machine was starved for longer than 14 s and reset in the middle of a test
#: (the hung-system test, the last, puts the image's 14 s back before it freezes PID 1).
#: kpti=0 (the test's command line only): the kernel isolates its page tables on a Cortex-A72
#: only because KASLR is on (the virt board gives it a seed; the A72 is not affected by
#: Meltdown), and under TCG the page-table switch at every kernel entry and exit costs QEMU
#: its software TLB: the boot took 70 QEMU CPU seconds to the agent with kpti=0, and more
#: than 105 without it (on a loaded machine: starved, it sometimes never reached the agent).
ARM64 = Machine(
    "qemu-system-aarch64",
    ("-machine", "virt", "-accel", "tcg,thread=multi", "-cpu", "cortex-a72", "-smp", "2"),
    "root=LABEL=RASPIROOT ro rootwait console=tty0 net.ifnames=0 systemd.watchdog_sec=60"
    " systemd.show_status=false loglevel=4 panic=-1 kpti=0",
    "test.img",
    payload="/run/payload",
)  # fmt: skip


class GuestError(Exception):
    """The guest did not do what was asked; one line."""


@dataclass(frozen=True)
class UsbSerial:
    """A usb-serial device: QEMU id, host socket, USB serial number."""

    id: str
    socket: Path
    serial: str

    def device(self) -> str:
        """The ``-device`` / ``device_add`` argument."""
        return (
            f"usb-serial,bus=xhci.0,chardev={self.id},serial={self.serial},"
            f"always-plugged=on,id={self.id}"
        )


class Vm:
    """One guest (see the module docstring); ``close`` kills QEMU."""

    def __init__(
        self,
        workdir: Path,
        image: Path,
        payload: Path,
        usb: list[UsbSerial],
        memory: int = 1536,
        *,
        machine: Machine = AMD64,
        extra: tuple[str, ...] = (),
        prefix: tuple[str, ...] = (),
        disk_size: str | None = None,
    ) -> None:
        """Boot ``image`` on ``machine``; ``extra`` QEMU arguments are added, and the
        command runs behind ``prefix`` (``nsenter --net=...`` for a network of its own).
        ``disk_size`` makes the guest's disk larger than the image (a bigger card)."""
        self.workdir = workdir
        self.machine = machine
        self.usb = {u.id: u for u in usb}
        overlay = workdir / "root.qcow2"
        subprocess.run(
            ["qemu-img", "create", "-q", "-f", "qcow2", "-F", machine.disk_format,
             "-b", str(image / machine.disk), str(overlay), *([disk_size] if disk_size else [])],
            check=True,
        )  # fmt: skip
        disk = workdir / "payload.img"
        subprocess.run(["mkfs.ext4", "-q", "-F", "-d", str(payload), str(disk), "128M"], check=True)
        self.agent_path = workdir / "agent.sock"
        self.qmp_path = workdir / "qmp.sock"
        self.console = workdir / "console.log"
        command = [
            *prefix, machine.qemu, *machine.machine,
            "-m", str(memory), "-display", "none", "-no-reboot",
            "-kernel", str(image / "vmlinuz"), "-initrd", str(image / "initrd.img"),
            "-append", machine.kernel_args,
            # cache=unsafe: the overlay is thrown away with the guest, so the guest's flushes
            # (dpkg's fsync per file, the journal's commits) need not wait on the host's disk;
            # what the guest wrote stays in the file while QEMU runs, a guest reset included.
            "-drive", f"file={overlay},format=qcow2,if=virtio,cache=unsafe",
            "-drive", f"file={disk},format=raw,if=virtio,readonly=on",
            "-device", "virtio-serial-pci", *machine.console(self.console),
            "-chardev", f"socket,id=agent,path={self.agent_path},server=on,wait=off",
            "-device", "virtserialport,chardev=agent,name=agent",
            "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
            "-device", "qemu-xhci,id=xhci",
            *(extra or ("-nic", "none")),
        ]  # fmt: skip
        for device in usb:
            command += ["-chardev", f"socket,id={device.id},path={device.socket},reconnect=1"]
            command += ["-device", device.device()]
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=(workdir / "qemu.log").open("wb")
        )
        self._agent: socket.socket | None = None
        self._qmp: socket.socket | None = None
        self._qmp_reader: Any = None
        self._ids = 0
        self._batches = 0
        self._lock = threading.Lock()
        self._waiting: dict[int, queue.Queue[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        #: Each agent request's seconds and what it was (``op`` and the command's start):
        #: where a test's time goes (print_diagnostics shows the longest).
        self.calls: list[tuple[float, str]] = []
        #: Each test's QEMU CPU seconds and wall seconds (test_boot.qemu_seconds_per_test).
        self.per_test: dict[str, tuple[float, float]] = {}

    # --- the agent ------------------------------------------------------------------------

    def wait_for_agent(self, timeout: float) -> float:
        """Wait until the guest's agent answers; returns seconds since QEMU started."""
        deadline = time.monotonic() + timeout
        while self._agent is None:
            if self.process.poll() is not None:
                raise GuestError(f"QEMU exited with {self.process.returncode}: {self._qemu_log()}")
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(str(self.agent_path))
            except OSError:
                sock.close()
                if time.monotonic() > deadline:
                    raise GuestError("QEMU never opened the agent socket") from None
                time.sleep(0.05)  # the socket appears once QEMU has parsed its arguments
                continue
            self._agent = sock
            threading.Thread(target=self._dispatch, args=(sock,), daemon=True).start()
        self.call("ping", timeout=max(deadline - time.monotonic(), 1.0))
        return time.monotonic() - self.started

    def _dispatch(self, sock: socket.socket) -> None:
        """Hand each agent reply to the caller waiting for its id; when the connection ends
        (QEMU exited: the guest reset or powered off), tell every caller still waiting."""
        try:
            for line in sock.makefile("rb"):
                reply = json.loads(line)
                with self._lock:
                    waiter = self._waiting.pop(reply.get("id"), None)
                if waiter is not None:
                    waiter.put(reply)
        except OSError:
            pass  # a reset connection ends like a closed one
        finally:
            with self._lock:
                for waiter in self._waiting.values():
                    waiter.put({"error": "agent connection closed"})

    def call(self, op: str, timeout: float = 60.0, **fields: Any) -> dict[str, Any]:
        """One agent request (thread-safe; requests run concurrently in the guest); waits
        for its reply up to ``timeout`` plus slack."""
        assert self._agent is not None
        answer: queue.Queue[dict[str, Any]] = queue.Queue(1)
        with self._lock:
            self._ids += 1
            ident = self._ids
            self._waiting[ident] = answer
            request = {"id": ident, "op": op, "timeout": timeout, **fields}
            self._agent.sendall(json.dumps(request).encode() + b"\n")
        sent = time.monotonic()
        try:
            reply = answer.get(timeout=timeout + 60)
        except queue.Empty:
            raise GuestError(f"agent: no answer to {op} in {timeout + 60} s") from None
        finally:
            if op != "log_batch":  # the log feed's long polls
                what = fields.get("cmd") or fields.get("fields") or fields.get("contains") or ""
                self.calls.append((time.monotonic() - sent, f"{op} {str(what)[:100]}"))
        if "error" in reply:
            raise GuestError(f"agent: {reply['error']}; console: {self.console_tail(5)}")
        return reply

    def sh(self, cmd: str, timeout: float = 120.0, check: bool = True) -> str:
        """Run a shell command in the guest; its stdout (GuestError when it fails)."""
        reply = self.call("sh", timeout=timeout, cmd=cmd)
        if check and reply["rc"] != 0:
            raise GuestError(f"{cmd!r} -> {reply['rc']}: {reply['err'].strip()[-2000:]}")
        return str(reply["out"])

    def dealer_station(
        self, *commands: list[str], groups: str = "", timeout: float = 120.0
    ) -> list[dict[str, Any]]:
        """Run ``dealer-station`` ``commands`` (each its arguments) in the guest as the
        station's user (with the supplementary ``groups``), one after the other in one
        Python (``guest/commands.py``: the program's own entry point, a Python start and
        its imports once, not per command); per command its ``rc`` and the ends of its
        ``out`` and ``err``. Each command's whole stdout stays in the guest at
        ``/tmp/ds-commands-<call>/<n>.out`` (n from 0), named by ``path``."""
        with self._lock:
            self._batches += 1
            folder = f"/tmp/ds-commands-{self._batches}"
        extra = f" -G {groups}" if groups else ""
        reply = self.sh(
            f"runuser -u dealer-station -g dealer-station{extra} --"
            f" /opt/dealer-station/bin/python {self.machine.payload}/commands.py {folder}"
            f" {shlex.quote(json.dumps(commands))}",
            timeout=timeout,
        )
        results: list[dict[str, Any]] = json.loads(reply)
        for number, result in enumerate(results):
            result["path"] = f"{folder}/{number}.out"
        return results

    def journal_rows(
        self,
        path: str,
        kinds: tuple[str, ...],
        *,
        exclude: bool = False,
        last: bool = False,
        timeout: float = 120.0,
    ) -> list[tuple[int, str, str, str]]:
        """The station's journal rows ``(id, ts, kind, data text)`` at ``path`` in the guest
        whose kind is in ``kinds`` (not in them with ``exclude``), read as the station's user
        through the installed program's own reader, which knows every storage format (a new
        journal is format 2: its rows are no SQLite table to query); with ``last`` only the
        last of them (the agent returns a bounded reply: a whole journal is more). Only the
        reader's modules are imported, not a ``dealer-station`` command's: seconds fewer
        under TCG."""
        script = (
            "import json, sys; from controller.journal.reader import JournalReader;"
            " kinds = set(sys.argv[4:]); keep = sys.argv[2] == 'keep';"
            " r = JournalReader.open(sys.argv[1]);"
            " rows = [[w.id, w.ts, w.kind, w.data_text] for w in r.rows()"
            " if (w.kind in kinds) == keep]; r.close();"
            " print(json.dumps(rows[-1:] if sys.argv[3] == 'last' else rows))"
        )
        mode = "drop" if exclude else "keep"
        out = self.sh(
            "runuser -u dealer-station -- /opt/dealer-station/bin/python"
            f' -c "{script}" {path} {mode} {"last" if last else "all"} {" ".join(kinds)}',
            timeout=timeout,
        )
        return [(int(i), str(ts), str(kind), str(data)) for i, ts, kind, data in json.loads(out)]

    def wait_until(self, condition: str, what: str, timeout: float, diagnose: str = "") -> None:
        """Wait until the shell ``condition`` holds in the guest (checked every 0.2 s there);
        at the deadline a GuestError naming ``what``, with the output of ``diagnose``."""
        reply = self.call(
            "sh", timeout=timeout + 30,
            cmd=f"timeout {timeout:.0f} sh -c 'until {condition}; do sleep 0.2; done'",
        )  # fmt: skip
        if reply["rc"] == 0:
            return
        details = self.sh(diagnose, timeout=60, check=False).strip() if diagnose else ""
        ending = f"; {details}" if details else ""
        raise GuestError(f"{what}: not within {timeout:.0f} s{ending}")

    def log_mark(self) -> int:
        """The number of the unit's journald entries so far."""
        return int(self.call("log_mark")["index"])

    def log_wait(
        self,
        since: int,
        timeout: float,
        fields: dict[str, Any] | None = None,
        contains: str = "",
    ) -> tuple[int, dict[str, Any]]:
        """The first unit journald entry from ``since`` on that matches; GuestError at the
        deadline."""
        reply = self.call(
            "log_wait", timeout=timeout, since=since, fields=fields, contains=contains
        )
        if reply["index"] is None:
            raise GuestError(
                f"no log entry {fields or ''} {contains!r} within {timeout} s "
                f"(entries seen: {reply.get('seen')})"
            )
        return int(reply["index"]), reply["entry"]

    def reader(self, call: str, *args: Any) -> Any:
        """A request to the reader gadget's control socket in the guest."""
        reply = self.call("reader", request={"device": "reader", "call": call, "args": args})
        if not reply.get("ok"):
            raise GuestError(f"reader {call}: {reply.get('error')}")
        return reply.get("result")

    # --- the monitor ----------------------------------------------------------------------

    def qmp(self, command: str, **arguments: Any) -> dict[str, Any]:
        """A QMP command; returns its ``return`` (GuestError on ``error``)."""
        if self._qmp is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(30)
            sock.connect(str(self.qmp_path))
            self._qmp, self._qmp_reader = sock, sock.makefile("rb")
            self._qmp_reader.readline()  # greeting
            self.qmp("qmp_capabilities")
        assert self._qmp is not None
        self._qmp.sendall(json.dumps({"execute": command, "arguments": arguments}).encode())
        while True:
            reply = json.loads(self._qmp_reader.readline())
            if "error" in reply:
                raise GuestError(f"qmp {command}: {reply['error']}")
            if "return" in reply:
                return dict(reply) if isinstance(reply["return"], dict) else {}
            self.events.append(reply)

    def wait_qmp_event(self, name: str, timeout: float) -> dict[str, Any]:
        """Wait for a QMP event (``DEVICE_DELETED``, ``WATCHDOG``...); GuestError at the
        deadline or when QEMU closes the monitor first."""
        assert self._qmp is not None
        for event in self.events:
            if event.get("event") == name:
                self.events.remove(event)
                return event
        deadline = time.monotonic() + timeout
        try:
            while True:
                self._qmp.settimeout(max(deadline - time.monotonic(), 0.01))
                try:
                    line = self._qmp_reader.readline()
                except TimeoutError:
                    raise GuestError(f"no QMP event {name} within {timeout:.0f} s") from None
                if not line:
                    raise GuestError(f"QEMU closed its monitor before a QMP event {name}")
                event = json.loads(line)
                if event.get("event") == name:
                    return dict(event)
                self.events.append(event)
        finally:
            if self._qmp is not None:
                self._qmp.settimeout(30)

    def unplug(self, device_id: str, timeout: float = 60.0) -> None:
        """Pull a USB device out of the guest (``device_del``; waits until it is gone)."""
        self.qmp("device_del", id=device_id)
        self.wait_qmp_event("DEVICE_DELETED", timeout)

    def replug(self, device_id: str) -> None:
        """Plug the same USB device (same chardev, same serial) back in."""
        spec = self.usb[device_id].device().split(",")
        arguments = dict(part.split("=", 1) for part in spec[1:])
        self.qmp("device_add", driver=spec[0], **arguments)

    # --- the end --------------------------------------------------------------------------

    def console_tail(self, lines: int = 30) -> str:
        """The end of the guest's serial console."""
        try:
            return "\n".join(self.console.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def cpu_seconds(self) -> float | None:
        """The CPU time QEMU has used so far (user and system, every thread), or None once it
        has exited: against the seconds since :attr:`started`, how much of the machine's
        cores the guest takes (a TCG guest waiting on a timer takes little)."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        # utime and stime, the 14th and 15th fields (11th and 12th after the name).
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def _qemu_log(self) -> str:
        return (self.workdir / "qemu.log").read_text(errors="replace")[-2000:]

    def close(self) -> None:
        """Kill QEMU and drop the overlay; idempotent."""
        for sock in (self._agent, self._qmp):
            if sock is not None:
                sock.close()
        self._agent = self._qmp = None
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)
        for name in ("root.qcow2", "payload.img"):
            (self.workdir / name).unlink(missing_ok=True)


#: What the boot test runs on the host (``make system-deps`` installs them: qemu-img is in
#: Debian's qemu-utils, which qemu-system-x86 only recommends).
VM_TOOLS = ("qemu-system-x86_64", "qemu-img", "mmdebstrap")


def missing_tools() -> list[str]:
    """The tools of :data:`VM_TOOLS` this machine lacks (none: it can run the boot test)."""
    return [t for t in VM_TOOLS if shutil.which(t) is None]
