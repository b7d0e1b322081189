"""The C firmware's Cortex-M image on QEMU's mps2-an385 board, as a device of the rig.

:class:`QemuRunner` is the :class:`drivers.simulated.c_firmware.HostRunner` of an emulated
board: ``qemu-system-arm -machine mps2-an385`` runs ``firmware/build/arm/fw-shoe.elf`` (or
``fw-panel.elf``, built by ``make -C firmware arm``), its UART0 (the station's link) and
UART1 (the bench control channel) on two unix-socket chardevs. Before the application starts
the bench hands the board 32 bytes of entropy from the host's secure random source (this
board has no TRNG: ``firmware/board/mps2.c``), the link's timers and, for an erased flash
page, its serial number and firmware version.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO, Final, cast

from drivers.simulated.c_firmware import FIRMWARE_DIR, FirmwareError, FirmwareProcess

ARM_BUILD: Final = FIRMWARE_DIR / "build" / "arm"
QEMU: Final = "qemu-system-arm"
_CONNECT_SECONDS = 10.0


def arm_image(kind: str) -> Path:
    """The Cortex-M image of ``kind`` ("shoe", "panel", "bench").

    Raises:
        FirmwareError: not built, or QEMU is missing.
    """
    path = ARM_BUILD / f"fw-{kind}.elf"
    if not path.exists():
        raise FirmwareError(f"{path} is missing: run make -C firmware arm")
    if shutil.which(QEMU) is None:
        raise FirmwareError(f"{QEMU} is missing: make system-deps installs qemu-system-arm")
    return path


def _connect(path: Path, proc: subprocess.Popen[bytes]) -> socket.socket:
    deadline = time.monotonic() + _CONNECT_SECONDS
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(str(path))
            return sock
        except OSError:
            sock.close()
            if proc.poll() is not None or time.monotonic() > deadline:
                raise FirmwareError(f"QEMU did not open {path}") from None
            time.sleep(0.02)


class QemuRunner:
    """Starts one emulated board (see the module docstring); a power cycle is QEMU's
    ``system_reset`` through its monitor, which reloads the program and keeps the flash
    page (its NOLOAD sector), as a real board keeps its flash."""

    def __init__(self, kind: str, *, icount: int | None = None) -> None:
        # The rig's boards carry the bench's fault switches (an impostor's serial, a
        # tampered reveal, a look at the shoe's memory), as the host builds do.
        self.image = arm_image(f"{kind}-switches")
        self.icount = icount
        self._boots: dict[int, tuple[str, str, str, Path]] = {}

    def start(self, flash: Path, serial: str, firmware: str, timing: str) -> FirmwareProcess:
        """Power the board on and start its application. ``flash`` is unused: the board's
        flash page lives in its own memory (kept across ``system_reset``, not across a new
        QEMU process)."""
        del flash
        where = Path(tempfile.mkdtemp(prefix="mps2-"))
        wire, control = where / "uart0.sock", where / "uart1.sock"
        monitor = where / "monitor.sock"
        command = [
            QEMU, "-machine", "mps2-an385", "-display", "none", "-nodefaults",
            "-monitor", f"unix:{monitor},server=on,wait=off", "-kernel", str(self.image),
            "-chardev", f"socket,id=uart0,path={wire},server=on,wait=off",
            "-chardev", f"socket,id=uart1,path={control},server=on,wait=off",
            "-serial", "chardev:uart0", "-serial", "chardev:uart1",
        ]  # fmt: skip
        if self.icount is not None:
            command += ["-icount", f"shift={self.icount}"]
        proc = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            wire_sock = _connect(wire, proc)
            control_sock = _connect(control, proc)
        except FirmwareError:
            proc.kill()
            proc.wait(5.0)
            shutil.rmtree(where, ignore_errors=True)
            raise

        def cleanup() -> None:
            for sock in (wire_sock, control_sock):
                with contextlib.suppress(OSError):
                    sock.close()
            shutil.rmtree(where, ignore_errors=True)

        fw = FirmwareProcess(
            proc,
            wire_in=cast("IO[bytes]", wire_sock.makefile("wb", buffering=0)),
            wire_out=cast("IO[bytes]", wire_sock.makefile("rb", buffering=0)),
            control_in=cast("IO[bytes]", control_sock.makefile("wb", buffering=0)),
            control_out=control_sock.makefile("rb"),
            on_stop=cleanup,
        )
        self._boots[id(fw)] = (serial, firmware, timing, monitor)
        try:
            self._boot(fw)
        except FirmwareError:
            fw.stop()
            raise
        return fw

    def _boot(self, fw: FirmwareProcess) -> None:
        serial, firmware, timing, _ = self._boots[id(fw)]
        fw.ask("seed " + os.urandom(32).hex())
        fw.ask("timing " + timing)
        fw.ask(f"boot {serial} {firmware}")

    def reset(self, fw: FirmwareProcess) -> None:
        """Power-cycle the board: ``system_reset``, then its start-up lines again (an
        erased page would be provisioned; a written one keeps its identity and secret)."""
        monitor = self._boots[id(fw)][3]
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(monitor))
            sock.settimeout(5.0)
            sock.recv(4096)  # the monitor's banner and prompt
            sock.sendall(b"system_reset\n")
            sock.recv(4096)
        self._boot(fw)
