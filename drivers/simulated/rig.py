"""A whole simulated table rig: every device double, and the real drivers wired to them.

``SimulatedRig`` starts the shuffler and shoe doubles on pseudo-terminals, the card
reader double on a simulated pyusb bus and a gpiozero ``MockFactory`` for the panel (or,
with ``panel_board=True``, a panel-board double with every lamp and wager sensor), and
tells the real drivers where to find them (``*_settings``) or builds them
(``build_drivers``, with :func:`drivers.simulated.wiring.wire_drivers`). It is what the
daemon, ``dealer-station simulate`` and the HIL suite use instead of a real rig::

    with SimulatedRig(seed=7) as rig:
        drivers = rig.build_drivers(events.put)
        drivers.start()
        rig.shoe.load_shuffled(decks=6, seed=7)
        rig.press(Button.NEXT)
"""

from __future__ import annotations

import tempfile
from enum import Enum
from pathlib import Path
from types import TracebackType
from typing import Any

from gpiozero.pins.mock import MockFactory

import firmware_bridge as fb
from drivers.device_link import ExpectedDevice
from drivers.hal import Button, EventSink, SeatWagerChanged, WagerSpot
from drivers.panel import DEFAULT_PINS, GpioPanel, PanelPins
from drivers.panel_link import SerialPanelDriver
from drivers.serial_transport import SerialSettings
from drivers.simulated.c_device import FirmwareDevice
from drivers.simulated.c_devices import FirmwarePanel, FirmwareShoe
from drivers.simulated.card_reader import CardReaderDouble
from drivers.simulated.firmware import DEFAULT_FIRMWARE, DeviceFirmware
from drivers.simulated.panel import PanelDouble
from drivers.simulated.shoe import ShoeDouble
from drivers.simulated.shuffler import ShufflerDouble
from drivers.simulated.usb_backend import SimulatedUsbBackend
from drivers.simulated.wiring import (
    FAST_BACKOFF,
    FAST_TIMING,
    DoubleAddress,
    RigDrivers,
    pair_double,
    wire_drivers,
)
from drivers.usb_transport import UsbSettings

# The timers and the wiring live in drivers.simulated.wiring; importers of this module
# have long found them here.
__all__ = [
    "FAST_BACKOFF",
    "FAST_TIMING",
    "DoubleAddress",
    "RigDrivers",
    "RigFault",
    "SimulatedRig",
    "pair_double",
    "wire_drivers",
]


class RigFault(Enum):
    """Device faults the rig can inject and clear without changing the cards dealt."""

    SHOE_UNPLUGGED = "shoe_unplugged"
    SHOE_SILENT = "shoe_silent"
    SHOE_LINE_NOISE = "shoe_line_noise"
    SHOE_ACKS_LOST = "shoe_acks_lost"
    SHOE_WRONG_SERIAL = "shoe_wrong_serial"
    SHOE_OLD_PROTOCOL = "shoe_old_protocol"
    SHUFFLER_UNPLUGGED = "shuffler_unplugged"
    SHUFFLER_JAMMED = "shuffler_jammed"
    SHUFFLER_DOOR_OPEN = "shuffler_door_open"
    SHUFFLER_SLOW = "shuffler_slow"
    READER_UNPLUGGED = "reader_unplugged"
    READER_SILENT = "reader_silent"
    READER_MISREAD = "reader_misread"
    READER_SLOW = "reader_slow"
    READER_ACKS_DUPLICATED = "reader_acks_duplicated"


class SimulatedRig:
    """Every device double of one table (see the module docstring). Close it when done."""

    def __init__(
        self,
        directory: Path | None = None,
        *,
        decks: int = 6,
        seed: int = 0,
        timing: fb.Timing | None = FAST_TIMING,
        panel_pins: PanelPins = DEFAULT_PINS,
        panel_board: bool | None = None,
        firmware: str | None = None,
    ) -> None:
        """``firmware``: the shoe and the panel board are the C reference firmware instead
        of the Python doubles: ``"host"`` its host builds (``drivers.simulated.c_firmware``),
        ``"qemu"`` its Cortex-M images on emulated boards (``drivers.simulated.qemu_board``);
        ``panel_board`` (default: with the firmware, yes) a board rather than GPIO pins."""
        if panel_board is None:
            panel_board = firmware is not None
        runners: dict[str, Any] = {}
        if firmware == "qemu":
            from drivers.simulated.qemu_board import QemuRunner

            runners = {"shoe": QemuRunner("shoe"), "panel": QemuRunner("panel")}
        elif firmware not in (None, "host"):
            raise ValueError(f"firmware {firmware!r}: 'host' or 'qemu'")
        self._tmp = None
        if directory is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="dealer-rig-")
            directory = Path(self._tmp.name)
        self.directory = directory
        self.decks = decks
        self.timing = timing
        self.shuffler = ShufflerDouble(directory / "shuffler", timing=timing, seed=seed)
        self.shoe: ShoeDouble | FirmwareShoe = (
            FirmwareShoe(
                directory / "shoe", timing=timing, seed=seed + 1, runner=runners.get("shoe")
            )
            if firmware
            else ShoeDouble(directory / "shoe", timing=timing, seed=seed + 1)
        )
        self.usb_backend = SimulatedUsbBackend()
        self.card_reader = CardReaderDouble(self.usb_backend, timing=timing, seed=seed + 2)
        self.pin_factory = MockFactory()
        self.panel_pins = panel_pins
        self._sink: EventSink | None = None
        # A panel board carries every lamp and all 21 wager sensors; GPIO has 26 pins.
        self.panel_board: PanelDouble | FirmwarePanel | None = None
        if firmware and panel_board:
            self.panel_board = FirmwarePanel(
                directory / "panel", timing=timing, seed=seed + 3, runner=runners.get("panel")
            )
        elif panel_board:
            self.panel_board = PanelDouble(directory / "panel", timing=timing, seed=seed + 3)
        #: The firmware versions the station's allow-list takes.
        self.firmware_allowed = frozenset({DEFAULT_FIRMWARE})
        try:
            self.pair_all()
        except BaseException:
            self.close()
            raise

    # --- pairing --------------------------------------------------------------------------

    def pair_all(self) -> None:
        """Pair every double with the station over its own link, exactly as
        ``dealer-station pair`` does (pairing button held for the exchange)."""
        for double in self._doubles():
            self.pair(double)

    def pair(self, double: DeviceFirmware | FirmwareDevice) -> None:
        """Pair one double (its pairing button held while the station asks)."""
        if isinstance(double, FirmwareDevice):
            double.pair()
        else:
            pair_double(double, self.usb_backend)

    def _doubles(self) -> list[DeviceFirmware | FirmwareDevice]:
        doubles: list[DeviceFirmware | FirmwareDevice] = [
            self.shuffler,
            self.shoe,
            self.card_reader,
        ]
        if self.panel_board is not None:
            doubles.append(self.panel_board)
        return doubles

    def expected(self, double: DeviceFirmware | FirmwareDevice) -> ExpectedDevice:
        """What the station's configuration says of ``double``: serial, allow-list, key."""
        return ExpectedDevice(
            double.serial_number, firmware=self.firmware_allowed, secret=double.secret
        )

    # --- what the real drivers are configured with ----------------------------------------

    @property
    def shuffler_settings(self) -> SerialSettings:
        """The shuffler's serial port."""
        return self.shuffler.settings

    @property
    def shoe_settings(self) -> SerialSettings:
        """The shoe's serial port."""
        return self.shoe.settings

    @property
    def card_reader_settings(self) -> UsbSettings:
        """The reader's USB ids and serial number (use with ``backend=rig.usb_backend``)."""
        return self.card_reader.settings

    def build_drivers(self, sink: EventSink, **driver_options: Any) -> RigDrivers:
        """The real drivers, pointed at this rig's doubles (not started)."""
        self._sink = sink
        options: dict[str, Any] = {"timing": self.timing, "backoff": FAST_BACKOFF}
        options.update(driver_options)
        return wire_drivers(
            sink,
            self.shuffler,
            self.shoe,
            self.card_reader,
            self._panel_driver(sink, options),
            firmware=self.firmware_allowed,
            decks=self.decks,
            backend=self.usb_backend,
            options=options,
        )

    def _panel_driver(
        self, sink: EventSink, options: dict[str, Any]
    ) -> GpioPanel | SerialPanelDriver:
        board = self.panel_board
        if board is not None:
            return SerialPanelDriver(board.settings, sink, self.expected(board), **options)
        # Mock pins do not bounce, and a simulated dealer presses faster than 30 ms.
        return GpioPanel(self.panel_pins, sink, pin_factory=self.pin_factory, debounce=0.0)

    # --- the panel double: gpiozero's mock pins -------------------------------------------

    def press(self, button: Button) -> None:
        """Press and release a panel button."""
        if self.panel_board is not None:
            self.panel_board.press(button)
            return
        pin = self.pin_factory.pin(self.panel_pins.buttons[button])
        pin.drive_low()
        pin.drive_high()

    def turn_key(self, on: bool) -> None:
        """Turn the supervisor key on or off."""
        if self.panel_board is not None:
            self.panel_board.turn_key(on)
            return
        if self.panel_pins.supervisor_key is None:
            raise ValueError("this panel has no supervisor key wired")
        pin = self.pin_factory.pin(self.panel_pins.supervisor_key)
        if on:
            pin.drive_low()
        else:
            pin.drive_high()

    def place_wager(
        self, seat: int, spot: WagerSpot, present: bool = True, cents: int | None = None
    ) -> None:
        """Put a wager on (or take it off) a seat's sensed spot, with the chips' value in
        ``cents`` where the sensor reads it (a GPIO pin only tells presence).

        With the panel board double its sensors report; without it, a sensor that has no
        GPIO pin (a 40-pin header has none left for 21 sensors) is reported as an expander
        board would report it, straight to the station's event sink.
        """
        if self.panel_board is not None:
            self.panel_board.place_wager(seat, spot, present, cents)
            return
        where = self.panel_pins.wagers.get((seat, spot))
        if where is None:
            if self._sink is None:
                raise ValueError("build_drivers() first: the sensor board reports to its sink")
            self._sink(SeatWagerChanged(seat, spot, present, cents if present else None))
            return
        pin = self.pin_factory.pin(where)
        if present:
            pin.drive_high()
        else:
            pin.drive_low()

    # --- faults ---------------------------------------------------------------------------

    def inject(self, fault: RigFault) -> None:
        """Start ``fault``; :meth:`clear` ends it. One-shot faults (noise, lost or duplicated
        acks, a misread) hit the next frames or the next check and end by themselves."""
        shoe, shuffler, reader = self.shoe, self.shuffler, self.card_reader
        match fault:
            case RigFault.SHOE_UNPLUGGED:
                shoe.unplug()
            case RigFault.SHOE_SILENT:
                shoe.silent = True
            case RigFault.SHOE_LINE_NOISE:
                shoe.noise.corrupt_next(3)
            case RigFault.SHOE_ACKS_LOST:
                shoe.drop_acks(2)
            case RigFault.SHOE_WRONG_SERIAL:
                shoe.hello_serial = shoe.serial_number + "-X"
                shoe.power_cycle()
            case RigFault.SHOE_OLD_PROTOCOL:
                shoe.wire_version = 0
                shoe.power_cycle()
            case RigFault.SHUFFLER_UNPLUGGED:
                shuffler.unplug()
            case RigFault.SHUFFLER_JAMMED:
                shuffler.jam()
            case RigFault.SHUFFLER_DOOR_OPEN:
                shuffler.open_door()
            case RigFault.SHUFFLER_SLOW:
                shuffler.reply_delay = 0.2
            case RigFault.READER_UNPLUGGED:
                reader.unplug()
            case RigFault.READER_SILENT:
                reader.silent = True
            case RigFault.READER_MISREAD:
                reader.misread(1)
            case RigFault.READER_SLOW:
                reader.reply_delay = 0.2
            case RigFault.READER_ACKS_DUPLICATED:
                reader.duplicate_acks(2)

    def clear(self, fault: RigFault) -> None:
        """End ``fault`` (no-op for one-shot faults)."""
        shoe, shuffler, reader = self.shoe, self.shuffler, self.card_reader
        match fault:
            case RigFault.SHOE_UNPLUGGED:
                shoe.plug()
            case RigFault.SHOE_SILENT:
                shoe.silent = False
            case RigFault.SHOE_WRONG_SERIAL:
                shoe.hello_serial = shoe.serial_number
            case RigFault.SHOE_OLD_PROTOCOL:
                shoe.wire_version = fb.PROTOCOL_VERSION
            case RigFault.SHUFFLER_UNPLUGGED:
                shuffler.plug()
            case RigFault.SHUFFLER_JAMMED:
                shuffler.clear_jam()
            case RigFault.SHUFFLER_DOOR_OPEN:
                shuffler.close_door()
            case RigFault.SHUFFLER_SLOW:
                shuffler.reply_delay = 0.0
            case RigFault.READER_UNPLUGGED:
                reader.plug()
            case RigFault.READER_SILENT:
                reader.silent = False
            case RigFault.READER_SLOW:
                reader.reply_delay = 0.0
            case _:
                pass

    def close(self) -> None:
        """Stop every double and remove the rig's directory; idempotent."""
        self.shuffler.close()
        self.shoe.close()
        self.card_reader.close()
        if self.panel_board is not None:
            self.panel_board.close()
        self.pin_factory.reset()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> SimulatedRig:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
