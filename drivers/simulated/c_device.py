"""One device of the rig run by the C reference firmware, on a simulated cable.

:class:`FirmwareDevice` stands where a Python double stands (the same control methods and
readable state, :mod:`drivers.simulated.c_devices`), but the device is the C firmware: a
host build run as a process, or the Cortex-M image on QEMU's mps2-an385 board
(:mod:`drivers.simulated.qemu_board`). Only the cable is Python: a :class:`PtyPort` the
station opens, whose bytes this class relays to and from the firmware's link, with the same
line faults the doubles put on their own link (noise, lost or duplicated ACKs, another
protocol version, a silent device). The bench control channel takes text lines
(docs/firmware.md, "Control channel").

The firmware keeps its serial number, pairing secret and (the shoe) its batch, counts and
withheld hole cards in its flash page: a file beside the pty for a host build, which
``power_cycle`` (the process killed and started again) keeps; an emulated board's own
flash sector, which its reset keeps.
"""

from __future__ import annotations

import contextlib
import threading
import time
from abc import ABC
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import firmware_bridge as fb
from drivers.pairing import pair_over
from drivers.serial_transport import SerialSettings, SerialTransport
from drivers.simulated.c_firmware import (
    FirmwareError,
    FirmwareProcess,
    HostRunner,
    Runner,
    host_binary,
    timing_arg,
)
from drivers.simulated.control_calls import Call
from drivers.simulated.firmware import DEFAULT_FIRMWARE
from drivers.simulated.line_noise import LineNoise
from drivers.simulated.serial_device import BytePort, PortFactory, pty_port
from drivers.simulated.wire_faults import faulty_pieces, without_acks
from drivers.transport import Backoff
from firmware_bridge.frame import DELIMITER, PROTOCOL_VERSION

_POLL = 0.005  # seconds between two looks at the firmware's status while waiting


def _no_tick() -> None:
    """The cable's tick: the firmware keeps its own time."""


class FirmwareDevice(ABC):
    """The C firmware of one device on a pty (see the module docstring)."""

    KIND: ClassVar[fb.DeviceKind]
    NAME: ClassVar[str]
    #: A board whose sensor changes go out in one frame a scan (``hold`` / ``release``).
    SCANS: ClassVar[bool] = False
    #: The control socket's calls and readable state: the Python double's it stands for.
    CONTROL: ClassVar[Mapping[str, Call]] = {}
    READABLE: ClassVar[frozenset[str]] = frozenset()

    def __init__(
        self,
        path: Path,
        serial_number: str,
        *,
        timing: fb.Timing | None = None,
        seed: int = 0,
        firmware: str = DEFAULT_FIRMWARE,
        runner: Runner | None = None,
        port_factory: PortFactory = pty_port,
    ) -> None:
        """The firmware of ``serial_number`` on a cable at ``path``: a pty by default, or
        another byte stream (``port_factory``, as a double's); ``runner``: how it runs (its
        host build by default)."""
        self.serial_number = serial_number
        self.flash = path.with_name(path.name + ".flash")
        self._firmware = firmware
        self._timing = timing_arg(timing)
        self._runner = runner or HostRunner(host_binary(self.NAME))
        self.secret: bytes | None = None
        self.noise = LineNoise(seed)
        self.silent = False
        self.wire_version = PROTOCOL_VERSION
        self._drop_acks = 0
        self._duplicate_acks = 0
        self._rx_partial = b""
        self._tx_partial = b""
        self.wire_log: list[bytes] | None = None
        self._claimed_serial: str | None = None
        self._held = 0
        self._button = False
        self.port: BytePort = port_factory(path, self._from_station, _no_tick)
        self._fw: FirmwareProcess | None = None
        self._pump: threading.Thread | None = None
        self._power_on()
        self.port.plug()

    # --- power and cable -------------------------------------------------------------------

    def _power_on(self) -> None:
        fw = self._runner.start(self.flash, self.serial_number, self._firmware, self._timing)
        self._fw = fw
        self._pump = threading.Thread(
            target=self._from_device, args=(fw,), name=f"fw-{self.NAME}", daemon=True
        )
        self._pump.start()
        if self._claimed_serial is not None:  # an impostor's image claims it at every boot
            fw.ask(f"claim_serial {self._claimed_serial}")

    def power_cycle(self) -> None:
        """Reboot the board: RAM (the session, reports not yet sent) is lost, flash kept."""
        reset = getattr(self._runner, "reset", None)
        if reset is not None and self._fw is not None:
            reset(self._fw)  # an emulated board: reset in place, its flash page kept
            if self._claimed_serial is not None:
                self._fw.ask(f"claim_serial {self._claimed_serial}")
            return
        self._power_off()
        self._power_on()

    def _power_off(self) -> None:
        fw, self._fw = self._fw, None
        if fw is not None:
            fw.stop()
        if self._pump is not None:
            self._pump.join(5.0)
            self._pump = None
        self._tx_partial = b""

    def take_flash(self, other: FirmwareDevice) -> None:
        """Become ``other``'s board: its flash page (batch, counts, hole cards, serial
        number) copied into this one, powered up, and paired with this rig's station."""
        self.serial_number = other.serial_number
        if getattr(self._runner, "reset", None) is None:  # a host build: the page is a file
            self._power_off()
            self.flash.write_bytes(other.flash.read_bytes())
            self._power_on()
        else:  # an emulated board: the page copied over the bench channel, then a reset
            at = 0
            while chunk := other.ask(f"page {at}"):
                self.ask(f"page {at} {chunk}")
                at += len(chunk) // 2
            self.power_cycle()
        self.pair()

    def unplug(self) -> None:
        """Pull the cable (the board keeps power)."""
        self.port.unplug()

    def plug(self) -> None:
        """Plug the cable back in."""
        self.port.plug()

    def close(self) -> None:
        """Unplug for good and power off; idempotent."""
        self.port.close()
        self._power_off()

    @property
    def settings(self) -> SerialSettings:
        """What the real driver opens."""
        return SerialSettings(str(self.port.path))

    # --- the cable's two directions ---------------------------------------------------------

    def _from_station(self, data: bytes) -> float | None:
        if self.wire_log is not None:
            self.wire_log.append(bytes(data))
        fw = self._fw
        if fw is None or self.silent:
            return None
        if self._drop_acks:
            frames, self._rx_partial, self._drop_acks = without_acks(
                self._rx_partial, data, self._drop_acks
            )
            data = b"".join(frames)
        elif self._rx_partial:
            data, self._rx_partial = self._rx_partial + data, b""
        with contextlib.suppress(OSError, ValueError):
            fw.wire_in.write(data)
        return None

    def _from_device(self, fw: FirmwareProcess) -> None:
        for chunk in fw.chunks():
            if self.silent:
                continue
            if self.noise.idle and not self._duplicate_acks and self.wire_version == 2:
                self.port.write(chunk)
                continue
            # Frame by frame: a fault needs whole frames.
            pending = self._tx_partial + chunk
            cut = pending.rfind(DELIMITER) + 1
            frames, self._tx_partial = pending[:cut], pending[cut:]
            pieces, self._duplicate_acks = faulty_pieces(
                frames, self.noise, self._duplicate_acks, self.wire_version
            )
            for piece in pieces:
                self.port.write(piece)

    def hold(self) -> None:
        """Start a scan (``DeviceFirmware.holding``): a board's sensor changes go out in one
        frame at the end; the shoe sends each draw as it happens."""
        self._held += 1
        if self._held == 1 and self.SCANS:
            self.ask("hold")

    def release(self) -> None:
        """End one :meth:`hold`; the last one sends the scan."""
        self._held -= 1
        if self._held == 0 and self.SCANS:
            self.ask("release")

    def drop_acks(self, count: int) -> None:
        """Lose the next ``count`` ACK frames the station sends."""
        self._drop_acks += count

    def duplicate_acks(self, count: int) -> None:
        """Send each of the next ``count`` ACK frames of the firmware twice."""
        self._duplicate_acks += count

    # --- control ------------------------------------------------------------------------------

    def ask(self, line: str) -> str:
        """A control request (see the module docstring); the reply after ``ok``.

        Raises:
            FirmwareError: refused, or the board is off.
        """
        fw = self._fw
        if fw is None:
            raise FirmwareError(f"the {self.NAME} firmware is not running")
        return fw.ask(line)

    def status(self) -> dict[str, str]:
        """The firmware's counters and state (``status``)."""
        return dict(item.split("=", 1) for item in self.ask("status").split())

    def _number(self, name: str) -> int:
        return int(self.status()[name])

    @property
    def connected(self) -> bool:
        """Whether the firmware has a session with the station."""
        return self._number("connected") == 1

    @property
    def unconfirmed(self) -> int:
        """Reports the station has not acknowledged."""
        return self._number("unconfirmed")

    @property
    def sessions(self) -> int:
        """Sessions the firmware joined since power-up."""
        return self._number("sessions")

    @property
    def firmware(self) -> str:
        """The version text in the flash page."""
        return self.status()["firmware"]

    @firmware.setter
    def firmware(self, version: str) -> None:
        # Reflashed: the firmware reports the new version from its next boot.
        self.ask(f"reflash {version}")

    @property
    def pairing_button(self) -> bool:
        """Whether the pairing button is held (the firmware keeps no count of it here)."""
        return self._button

    @pairing_button.setter
    def pairing_button(self, held: bool) -> None:
        self.ask(f"pair_button {int(held)}")
        self._button = held

    @property
    def paired_station(self) -> str | None:
        """The station the firmware is paired with, or None."""
        station = self.status()["station"]
        return None if station == "-" else station

    @property
    def hello_serial(self) -> str:
        """The serial number the firmware claims in its HELLO_REPLY."""
        return self.serial_number

    @hello_serial.setter
    def hello_serial(self, serial: str) -> None:
        self._claimed_serial = None if serial == self.serial_number else serial
        self.ask(f"claim_serial {serial}")

    @property
    def refusals(self) -> list[str]:
        """One entry per REFUSED the station sent the firmware (it keeps only a count)."""
        return ["refused by the station"] * self._number("refusals")

    @property
    def next_seq(self) -> int:
        """The sequence number of the firmware's next reliable frame (a tap learns it by
        counting frames)."""
        return self._number("next_seq")

    def transmit(self, data: bytes) -> bool:
        """Write bytes on the station's side of the cable, as a wire spliced in would."""
        return self.port.write(data)

    def receive(self, data: bytes) -> None:
        """Write bytes on the firmware's side of the cable, as a wire spliced in would (or
        as the station does)."""
        self._from_station(data)

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``predicate()`` holds, looking every few milliseconds."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL)
        return True

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until connected with every report acknowledged."""
        return self.wait_for(lambda: self.connected and self.unconfirmed == 0, timeout)

    def deliver(self, timeout: float = 5.0) -> bool:
        """Ask the station to acknowledge at once and wait until it has acknowledged all."""
        if not self.connected:
            return False
        self.ask("deliver")
        return self.wait_idle(timeout)

    def pair(self, station: str = "rig", *, consent: Sequence[str] = ()) -> bytes:
        """Pair with the station over the cable as ``dealer-station pair`` does, the
        pairing button held for the exchange; keeps and returns the station's secret."""
        for line in (*consent, "pair_button 1"):
            self.ask(line)
        settings = self.settings
        try:

            def serial(listener: Any) -> SerialTransport:
                backoff = Backoff(initial=0.01, factor=2.0, cap=0.1)
                return SerialTransport(settings, listener, backoff=backoff)

            result = pair_over(serial, self.KIND, station, timeout=10.0, interval=0.05)
        finally:
            self.ask("pair_button 0")
        self.secret = result.secret
        return result.secret
