"""A whole simulated table rig: every device double, and the real drivers wired to them.

``SimulatedRig`` starts the shuffler and shoe doubles on pseudo-terminals, the card
reader double on a simulated pyusb bus and a gpiozero ``MockFactory`` for the panel, and
tells the real drivers where to find them (``*_settings``) or builds them
(``build_drivers``). It is what the daemon, ``dealer-station simulate`` and the HIL suite
use instead of a real rig::

    with SimulatedRig(seed=7) as rig:
        drivers = rig.build_drivers(events.put)
        drivers.start()
        rig.shoe.load_shuffled(decks=6, seed=7)
        rig.press(Button.NEXT)
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from gpiozero.pins.mock import MockFactory

import firmware_bridge as fb
from drivers.card_reader import CardReaderDriver
from drivers.device_link import ExpectedDevice
from drivers.hal import Button, EventSink, SeatWagerChanged, WagerSpot
from drivers.panel import DEFAULT_PINS, GpioPanel, PanelPins
from drivers.serial_transport import SerialSettings
from drivers.shoe import ShoeDriver
from drivers.shuffler import ShufflerDriver
from drivers.simulated.card_reader import CardReaderDouble
from drivers.simulated.shoe import ShoeDouble
from drivers.simulated.shuffler import ShufflerDouble
from drivers.simulated.usb_backend import SimulatedUsbBackend
from drivers.transport import Backoff
from drivers.usb_transport import UsbSettings

#: Protocol timers scaled down for tests: a silent device is noticed in 0.3 s, not 3 s.
FAST_TIMING = fb.Timing(
    retransmit_timeout=0.03,
    max_tries=5,
    heartbeat_interval=0.05,
    silence_timeout=0.3,
    hello_interval=0.03,
    hello_tries=10,
)
FAST_BACKOFF = Backoff(initial=0.01, factor=2.0, cap=0.1)


@dataclass(slots=True)
class RigDrivers:
    """The real drivers of one station, connected to a rig."""

    shuffler: ShufflerDriver
    shoe: ShoeDriver
    card_reader: CardReaderDriver
    panel: GpioPanel

    def start(self) -> None:
        """Start every driver."""
        for driver in (self.shuffler, self.shoe, self.card_reader, self.panel):
            driver.start()

    def close(self) -> None:
        """Close every driver; idempotent."""
        for driver in (self.shuffler, self.shoe, self.card_reader, self.panel):
            driver.close()


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
    ) -> None:
        self._tmp = None
        if directory is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="dealer-rig-")
            directory = Path(self._tmp.name)
        self.directory = directory
        self.decks = decks
        self.timing = timing
        self.shuffler = ShufflerDouble(directory / "shuffler", timing=timing, seed=seed)
        self.shoe = ShoeDouble(directory / "shoe", timing=timing, seed=seed + 1)
        self.usb_backend = SimulatedUsbBackend()
        self.card_reader = CardReaderDouble(self.usb_backend, timing=timing, seed=seed + 2)
        self.pin_factory = MockFactory()
        self.panel_pins = panel_pins
        self._sink: EventSink | None = None

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
        return RigDrivers(
            shuffler=ShufflerDriver(
                self.shuffler_settings,
                sink,
                ExpectedDevice(self.shuffler.serial_number),
                **options,
            ),
            shoe=ShoeDriver(
                self.shoe_settings,
                sink,
                ExpectedDevice(self.shoe.serial_number),
                decks=self.decks,
                **options,
            ),
            card_reader=CardReaderDriver(
                self.card_reader_settings, sink, backend=self.usb_backend, **options
            ),
            # Mock pins do not bounce, and a simulated dealer presses faster than 30 ms.
            panel=GpioPanel(self.panel_pins, sink, pin_factory=self.pin_factory, debounce=0.0),
        )

    # --- the panel double: gpiozero's mock pins -------------------------------------------

    def press(self, button: Button) -> None:
        """Press and release a panel button."""
        pin = self.pin_factory.pin(self.panel_pins.buttons[button])
        pin.drive_low()
        pin.drive_high()

    def turn_key(self, on: bool) -> None:
        """Turn the supervisor key on or off."""
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
        """Put a wager on (or take it off) a seat's sensed spot.

        A 40-pin header has no pins left for 21 wager sensors: on a table they sit on an
        expander board. Sensors not in the pin map are reported as that board would
        report them, straight to the station's event sink, with the chips' value in
        ``cents`` where the board reads it (a pin only tells presence).
        """
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

    def close(self) -> None:
        """Stop every double and remove the rig's directory; idempotent."""
        self.shuffler.close()
        self.shoe.close()
        self.card_reader.close()
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
