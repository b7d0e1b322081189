"""The C reference firmware (``firmware/``) as processes: building it, running a host
build with its link on two pipes and its bench control channel on two more
(:class:`HostRunner`, :class:`FirmwareProcess`), and the sanitized fuzz harness
(:class:`FuzzTarget`). The devices of the rig on top of it: :mod:`drivers.simulated.c_device`
(the cable and the control channel) and :mod:`drivers.simulated.c_devices` (the shoe and
the panel board); the Cortex-M image on QEMU: :mod:`drivers.simulated.qemu_board`.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, Final

import firmware_bridge as fb

#: Where ``make -C firmware host`` puts the host builds (``san``: with AddressSanitizer and
#: UndefinedBehaviorSanitizer).
FIRMWARE_DIR: Final = Path(__file__).resolve().parents[2] / "firmware"
HOST_BUILD: Final = FIRMWARE_DIR / "build" / "host"
SAN_BUILD: Final = FIRMWARE_DIR / "build" / "san"


class FirmwareError(RuntimeError):
    """The firmware refused a control request or stopped answering; one line."""


def host_binary(kind: str) -> Path:
    """The host build of ``kind`` ("shoe", "panel"), built by ``make -C firmware host``.

    Raises:
        FirmwareError: not built.
    """
    path = HOST_BUILD / f"fw-{kind}"
    if not path.exists():
        raise FirmwareError(f"{path} is missing: run make -C firmware host")
    return path


def build(*targets: str) -> None:
    """Run ``make -C firmware TARGETS`` (incremental: a no-op when up to date).

    Raises:
        FirmwareError: the build failed (its last lines).
    """
    done = subprocess.run(
        ["make", "-s", "-C", str(FIRMWARE_DIR), *targets],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-5:]
        raise FirmwareError("make -C firmware failed: " + " / ".join(tail))


class FuzzTarget:
    """The sanitized C fuzz harness (``firmware/tests/fuzz.c``) as a long-lived process: one
    record in, one ``.`` out; a record that gets no answer within ``timeout`` is a hang,
    a process that dies is a crash (its sanitizer report in :attr:`report`)."""

    def __init__(self, timeout: float = 5.0) -> None:
        self.timeout = timeout
        self.proc = subprocess.Popen(
            [str(SAN_BUILD / "fw-fuzz"), "--echo"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )
        self.report = ""

    def feed(self, data: bytes) -> None:
        """Feed one record.

        Raises:
            FirmwareError: the harness crashed (a sanitizer report) or hung.
        """
        import select

        assert self.proc.stdin is not None and self.proc.stdout is not None
        record = len(data[:0xFFFF]).to_bytes(2, "big") + data[:0xFFFF]
        try:
            self.proc.stdin.write(record)
        except BrokenPipeError:
            raise self._crashed() from None
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        if not ready:
            raise FirmwareError(f"the C decoders hung on {data[:64].hex()}...")
        if self.proc.stdout.read(1) != b".":
            raise self._crashed()

    def _crashed(self) -> FirmwareError:
        self.proc.wait(5.0)
        assert self.proc.stderr is not None
        self.report = self.proc.stderr.read().decode(errors="replace")
        first = next((line for line in self.report.splitlines() if "ERROR" in line), "")
        return FirmwareError(f"the C decoders crashed (exit {self.proc.returncode}): {first}")

    def close(self) -> str:
        """End the run; the harness's summary line."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        summary = self.proc.stdout.read().decode().strip()
        self.proc.wait(10.0)
        assert self.proc.stderr is not None
        self.report = self.proc.stderr.read().decode(errors="replace")
        return summary


def timing_arg(timing: fb.Timing | None) -> str:
    """``--timing`` for the firmware: the station's timers, in milliseconds."""
    t = timing or fb.Timing()
    ms = [t.retransmit_timeout, t.heartbeat_interval, t.silence_timeout, t.ack_delay]
    numbers = [max(1, round(v * 1000)) for v in ms[:3]] + [round(ms[3] * 1000)]
    return ",".join(str(n) for n in [*numbers, t.max_tries, min(t.window, 8), t.ack_every])


class HostRunner:
    """Runs a host build: the link on stdin/stdout, the control channel on two pipes."""

    def __init__(self, binary: Path) -> None:
        self.binary = binary

    def start(self, flash: Path, serial: str, firmware: str, timing: str) -> FirmwareProcess:
        """Start the firmware (power on)."""
        ctl_in_r, ctl_in_w = os.pipe()
        ctl_out_r, ctl_out_w = os.pipe()
        command = [
            str(self.binary),
            "--flash", str(flash), "--serial", serial, "--firmware", firmware,
            "--timing", timing, "--control", f"{ctl_in_r},{ctl_out_w}",
        ]  # fmt: skip
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            pass_fds=(ctl_in_r, ctl_out_w),
            bufsize=0,
        )
        os.close(ctl_in_r)
        os.close(ctl_out_w)
        assert proc.stdin is not None and proc.stdout is not None
        return FirmwareProcess(
            proc,
            wire_in=proc.stdin,
            wire_out=proc.stdout,
            control_in=os.fdopen(ctl_in_w, "wb", 0),
            control_out=os.fdopen(ctl_out_r, "rb"),
        )


class FirmwareProcess:
    """One running firmware: its link's two byte streams and its control channel."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes] | None,
        *,
        wire_in: IO[bytes],
        wire_out: IO[bytes],
        control_in: IO[bytes],
        control_out: IO[bytes],
        on_stop: Callable[[], None] | None = None,
    ) -> None:
        self.proc = proc
        self.wire_in, self.wire_out = wire_in, wire_out
        self.control_in, self.control_out = control_in, control_out
        self._on_stop = on_stop
        self.lock = threading.Lock()

    def chunks(self) -> Iterator[bytes]:
        """What the firmware writes on its link, as it comes, until it stops."""
        while True:
            try:
                data = self.wire_out.read(4096)
            except (OSError, ValueError):
                return
            if not data:
                return
            yield data

    def ask(self, line: str) -> str:
        """One control request; the reply after ``ok``.

        Raises:
            FirmwareError: an ``err`` reply, or no reply (the firmware stopped).
        """
        with self.lock:
            try:
                self.control_in.write(line.encode() + b"\n")
                reply = self.control_out.readline().decode().rstrip("\n")
            except (OSError, ValueError) as err:
                raise FirmwareError(f"firmware control channel: {err}") from err
        if reply == "ok" or reply.startswith("ok "):
            return reply[3:]
        raise FirmwareError(reply[4:] if reply.startswith("err ") else f"no reply to {line!r}")

    def stop(self) -> None:
        """Power off."""
        for stream in (self.wire_in, self.control_in):
            with contextlib.suppress(OSError):
                stream.close()
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(5.0)
        for stream in (self.wire_out, self.control_out):
            with contextlib.suppress(OSError):
                stream.close()
        if self._on_stop is not None:
            self._on_stop()


Runner = Any  # HostRunner, or drivers.simulated.qemu_board.QemuRunner
