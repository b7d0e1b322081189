"""The real drivers of a station wired to device doubles, and pairing them.

:class:`RigDrivers` holds the four real drivers; :func:`wire_drivers` builds them against
doubles wherever they run (:class:`DoubleAddress`: a double in this process, or one served
by another process, ``drivers.simulated.served_rig``); :func:`pair_double` pairs a double
over its own link as ``dealer-station pair`` does. ``FAST_TIMING`` and ``FAST_BACKOFF``
are the protocol timers the simulated rigs use.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

import firmware_bridge as fb
from drivers.card_reader import CardReaderDriver
from drivers.device_link import ExpectedDevice
from drivers.hal import EventSink
from drivers.pairing import pair_over
from drivers.panel import GpioPanel
from drivers.panel_link import SerialPanelDriver
from drivers.serial_transport import SerialTransport
from drivers.shoe import ShoeDriver
from drivers.shuffler import ShufflerDriver
from drivers.simulated.card_reader import CardReaderDouble
from drivers.simulated.firmware import DeviceFirmware
from drivers.simulated.panel import PanelDouble
from drivers.simulated.usb_backend import SimulatedUsbBackend
from drivers.transport import Backoff
from drivers.usb_transport import UsbTransport

#: Protocol timers scaled down for the drivers' tests: a silent device is noticed in 1 s, not
#: 3.5 s, and a lost ack after 8 tries of 50 ms, so a test of a lost link never waits long.
FAST_TIMING = fb.Timing(
    retransmit_timeout=0.05,
    max_tries=8,
    heartbeat_interval=0.1,
    silence_timeout=1.0,
    hello_interval=0.05,
    hello_tries=20,
)
#: The simulated table's timers (``dealer-station simulate`` and the tables built on it). Its
#: devices have no cable: a silence or an unacknowledged frame can only be a thread the machine
#: did not schedule, which on a shared 2-core machine at load 10 and more lasted over 1 s and
#: made a device look lost. As fast as ``FAST_TIMING`` otherwise; a pulled port is still
#: noticed at once (the port fails).
SIMULATION_TIMING = replace(FAST_TIMING, max_tries=40, silence_timeout=5.0)
FAST_BACKOFF = Backoff(initial=0.01, factor=2.0, cap=0.1)


@dataclass(slots=True)
class RigDrivers:
    """The real drivers of one station, connected to a rig."""

    shuffler: ShufflerDriver
    shoe: ShoeDriver
    card_reader: CardReaderDriver
    panel: GpioPanel | SerialPanelDriver

    def start(self) -> None:
        """Start every driver."""
        for driver in (self.shuffler, self.shoe, self.card_reader, self.panel):
            driver.start()

    def close(self) -> None:
        """Close every driver; idempotent."""
        for driver in (self.shuffler, self.shoe, self.card_reader, self.panel):
            driver.close()


class DoubleAddress(Protocol):
    """Where the station finds a double and what its configuration says of it (a double
    itself, or ``drivers.simulated.served_rig.ServedDouble`` for one in another process)."""

    @property
    def settings(self) -> Any:
        """The port (``SerialSettings``) or USB ids (``UsbSettings``) the driver opens."""
        ...

    @property
    def serial_number(self) -> str:
        """The serial number the station's configuration names."""
        ...

    @property
    def secret(self) -> bytes | None:
        """The pairing secret the station's configuration holds."""
        ...


def wire_drivers(
    sink: EventSink,
    shuffler: DoubleAddress,
    shoe: DoubleAddress,
    card_reader: DoubleAddress,
    panel: GpioPanel | SerialPanelDriver,
    *,
    firmware: frozenset[str],
    decks: int,
    backend: SimulatedUsbBackend,
    options: dict[str, Any],
) -> RigDrivers:
    """The real drivers of one station pointed at doubles (not started); ``backend``: the
    simulated USB bus the card reader double sits on, in this process."""

    def expected(double: DoubleAddress) -> ExpectedDevice:
        return ExpectedDevice(double.serial_number, firmware=firmware, secret=double.secret)

    return RigDrivers(
        shuffler=ShufflerDriver(shuffler.settings, sink, expected(shuffler), **options),
        shoe=ShoeDriver(shoe.settings, sink, expected(shoe), decks=decks, **options),
        card_reader=CardReaderDriver(
            card_reader.settings, sink, backend=backend, expected=expected(card_reader), **options
        ),
        panel=panel,
    )


def pair_double(double: DeviceFirmware, backend: SimulatedUsbBackend) -> None:
    """Pair ``double`` with the station over its own link, exactly as ``dealer-station
    pair`` does (its pairing button held for the exchange); a card reader double sits on
    ``backend``."""
    double.pairing_button = True
    board = double if isinstance(double, PanelDouble) else None
    if board is not None:
        board.key_on = True  # the board's own key, turned for its pairing
    try:
        if isinstance(double, CardReaderDouble):
            settings = double.settings

            def usb(listener: Any) -> UsbTransport:
                return UsbTransport(settings, listener, backend=backend, backoff=FAST_BACKOFF)

            pair_over(usb, double.KIND, "rig", timeout=10.0, interval=0.05)
        else:
            serial_settings = double.settings  # type: ignore[attr-defined]

            def serial(listener: Any) -> SerialTransport:
                return SerialTransport(serial_settings, listener, backoff=FAST_BACKOFF)

            pair_over(serial, double.KIND, "rig", timeout=10.0, interval=0.05)
    finally:
        double.pairing_button = False
        if board is not None:
            board.key_on = False
