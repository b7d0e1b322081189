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
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from types import TracebackType
from typing import Any, cast

from gpiozero.pins.mock import MockFactory

import firmware_bridge as fb
from drivers.device_link import ExpectedDevice
from drivers.hal import Button, DeviceKind, EventSink, SeatWagerChanged, WagerSpot
from drivers.panel import DEFAULT_PINS, GpioPanel, PanelPins
from drivers.registry import DEVICES, DeviceSpec, Implementation, seed_offset, spec_for
from drivers.serial_transport import SerialSettings
from drivers.simulated.c_device import FirmwareDevice
from drivers.simulated.c_devices import FirmwarePanel, FirmwareShoe
from drivers.simulated.card_reader import CardReaderDouble
from drivers.simulated.firmware import DEFAULT_FIRMWARE
from drivers.simulated.panel import PanelDouble
from drivers.simulated.serial_device import SerialDeviceDouble
from drivers.simulated.shoe import ShoeDouble
from drivers.simulated.shuffler import ShufflerDouble
from drivers.simulated.usb_backend import SimulatedUsbBackend
from drivers.simulated.wiring import (
    FAST_BACKOFF,
    FAST_TIMING,
    SIMULATION_TIMING,
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
    "SIMULATION_TIMING",
    "DoubleAddress",
    "RigDrivers",
    "RigFault",
    "SimulatedRig",
    "pair_double",
    "wire_drivers",
]


#: What stands for a device on the rig: its Python double or its C firmware.
Double = SerialDeviceDouble | CardReaderDouble | FirmwareDevice


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
        timing: fb.Timing | None = SIMULATION_TIMING,
        panel_pins: PanelPins = DEFAULT_PINS,
        panel_board: bool | None = None,
        firmware: str | None = None,
        implementations: Mapping[DeviceKind, Implementation] | None = None,
    ) -> None:
        """A double for each device of the registry (``drivers.registry.DEVICES``), seeded
        ``seed`` plus its place there. ``firmware``: every device that has a C firmware runs
        it, ``"host"`` its host builds (``drivers.simulated.c_firmware``), ``"qemu"`` its
        Cortex-M images on emulated boards (``drivers.simulated.qemu_board``);
        ``implementations``: what stands for each device, one by one (over ``firmware``);
        ``panel_board`` (default: yes when the panel is the firmware) a board rather than
        GPIO pins.

        Raises:
            ValueError: an unknown ``firmware``, or an implementation a device does not have.
        """
        chosen = _chosen(firmware, implementations or {})
        if panel_board is None:
            panel_board = chosen.get(DeviceKind.PANEL, Implementation.PYTHON) is not (
                Implementation.PYTHON
            )
        self._tmp = None
        if directory is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="dealer-rig-")
            directory = Path(self._tmp.name)
        self.directory = directory
        self.decks = decks
        self.timing = timing
        self.usb_backend = SimulatedUsbBackend()
        self.pin_factory = MockFactory()
        self.panel_pins = panel_pins
        self._sink: EventSink | None = None
        #: The doubles, by kind, in the registry's order; a panel on GPIO pins has none
        #: (a panel board carries every lamp and all 21 wager sensors; GPIO has 26 pins).
        self.doubles: dict[DeviceKind, Double] = {}
        #: The firmware versions the station's allow-list takes.
        self.firmware_allowed = frozenset({DEFAULT_FIRMWARE})
        try:
            for spec in DEVICES:
                if spec.gpio_section is None or panel_board:
                    how = chosen.get(spec.kind, Implementation.PYTHON)
                    self.doubles[spec.kind] = self._double(spec, how, seed + seed_offset(spec.kind))
            self.pair_all()
        except BaseException:
            self.close()
            raise

    def _double(self, spec: DeviceSpec, how: Implementation, seed: int) -> Double:
        timing, path = self.timing, self.directory / spec.name
        double = spec.double
        if issubclass(double, CardReaderDouble):  # on the rig's USB bus
            return double(self.usb_backend, spec.serial_number, timing=timing, seed=seed)
        if how is Implementation.PYTHON:
            assert issubclass(double, SerialDeviceDouble), double
            return double(path, spec.serial_number, timing=timing, seed=seed)
        assert spec.firmware is not None
        runner = None
        if how is Implementation.QEMU:
            from drivers.simulated.qemu_board import QemuRunner

            runner = QemuRunner(spec.firmware.NAME)
        return spec.firmware(path, spec.serial_number, timing=timing, seed=seed, runner=runner)

    # --- the doubles, by the devices the procedure uses ---------------------------------

    @property
    def shuffler(self) -> ShufflerDouble:
        """The shuffler's double."""
        return cast(ShufflerDouble, self.doubles[DeviceKind.SHUFFLER])

    @property
    def shoe(self) -> ShoeDouble | FirmwareShoe:
        """The shoe: its Python double or its C firmware."""
        return cast(ShoeDouble | FirmwareShoe, self.doubles[DeviceKind.SHOE])

    @property
    def card_reader(self) -> CardReaderDouble:
        """The card reader's double."""
        return cast(CardReaderDouble, self.doubles[DeviceKind.CARD_READER])

    @property
    def panel_board(self) -> PanelDouble | FirmwarePanel | None:
        """The panel board (None: the panel is on mock GPIO pins)."""
        return cast(PanelDouble | FirmwarePanel | None, self.doubles.get(DeviceKind.PANEL))

    # --- pairing --------------------------------------------------------------------------

    def pair_all(self) -> None:
        """Pair every double with the station over its own link, exactly as
        ``dealer-station pair`` does (pairing button held for the exchange)."""
        for double in self.doubles.values():
            self.pair(double)

    def pair(self, double: Double) -> None:
        """Pair one double (its pairing button held while the station asks)."""
        if isinstance(double, FirmwareDevice):
            double.pair()
        else:
            pair_double(double, self.usb_backend)

    def expected(self, double: Double) -> ExpectedDevice:
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
        gpio = None
        if self.panel_board is None:
            # Mock pins do not bounce, and a simulated dealer presses faster than 30 ms.
            gpio = GpioPanel(self.panel_pins, sink, pin_factory=self.pin_factory, debounce=0.0)
        return wire_drivers(
            sink,
            self.doubles,
            firmware=self.firmware_allowed,
            decks=self.decks,
            backend=self.usb_backend,
            options=options,
            gpio_panel=gpio,
        )

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
        for double in self.doubles.values():
            double.close()
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


def _chosen(
    firmware: str | None, implementations: Mapping[DeviceKind, Implementation]
) -> dict[DeviceKind, Implementation]:
    """What stands for each device: ``firmware`` for every device that has a C firmware,
    then ``implementations`` one by one.

    Raises:
        ValueError: an unknown ``firmware``, or an implementation a device does not have.
    """
    chosen: dict[DeviceKind, Implementation] = {}
    if firmware is not None:
        if firmware not in (Implementation.HOST.value, Implementation.QEMU.value):
            raise ValueError(f"firmware {firmware!r}: 'host' or 'qemu'")
        chosen = {s.kind: Implementation(firmware) for s in DEVICES if s.firmware is not None}
    for kind, how in implementations.items():
        spec = spec_for(kind)
        if how not in spec.implementations:
            raise ValueError(f"the {spec.name} has no {how.value} implementation")
        chosen[kind] = how
    return chosen
