"""The real drivers of a station wired to device doubles, and pairing them.

:class:`RigDrivers` holds the real drivers by kind; :func:`wire_drivers` builds them as the
registry declares them (``drivers.registry``) against doubles wherever they run
(:class:`DoubleAddress`: a double in this process, or one served by another process,
``drivers.simulated.served_rig``); :func:`pair_double` pairs a double over its own link as
``dealer-station pair`` does. ``FAST_TIMING`` and ``FAST_BACKOFF``
are the protocol timers the simulated rigs use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol, cast

import firmware_bridge as fb
from drivers.card_reader import CardReaderDriver
from drivers.device_link import ExpectedDevice
from drivers.hal import Device, DeviceKind, EventSink
from drivers.pairing import pair_over
from drivers.panel import GpioPanel
from drivers.panel_link import SerialPanelDriver
from drivers.registry import DEVICES, DriverParts, Link, Pairing, spec_for
from drivers.serial_transport import SerialTransport
from drivers.shoe import ShoeDriver
from drivers.shuffler import ShufflerDriver
from drivers.simulated.firmware import DeviceFirmware
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
    """The real drivers of one station connected to a rig, by kind, in the registry's
    order (the order they start in)."""

    by_kind: dict[DeviceKind, Device]

    def start(self) -> None:
        """Start every driver."""
        for driver in self.by_kind.values():
            driver.start()

    def close(self) -> None:
        """Close every driver; idempotent."""
        for driver in self.by_kind.values():
            driver.close()

    def __getitem__(self, kind: DeviceKind) -> Device:
        return self.by_kind[kind]

    @property
    def shuffler(self) -> ShufflerDriver:
        """The shuffler's driver."""
        return cast(ShufflerDriver, self.by_kind[DeviceKind.SHUFFLER])

    @property
    def shoe(self) -> ShoeDriver:
        """The shoe's driver."""
        return cast(ShoeDriver, self.by_kind[DeviceKind.SHOE])

    @property
    def card_reader(self) -> CardReaderDriver:
        """The card reader's driver."""
        return cast(CardReaderDriver, self.by_kind[DeviceKind.CARD_READER])

    @property
    def panel(self) -> GpioPanel | SerialPanelDriver:
        """The panel's driver: its GPIO pins, or its board."""
        return cast(GpioPanel | SerialPanelDriver, self.by_kind[DeviceKind.PANEL])


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
    doubles: Mapping[DeviceKind, DoubleAddress],
    *,
    firmware: frozenset[str],
    decks: int,
    backend: SimulatedUsbBackend,
    options: dict[str, Any],
    gpio_panel: GpioPanel | None = None,
) -> RigDrivers:
    """The real drivers of one station pointed at ``doubles`` (not started), each built as
    its spec says (``drivers.registry``); ``gpio_panel``: the panel on mock GPIO pins instead
    of a board; ``backend``: the simulated USB bus a USB double sits on, in this process."""
    built: dict[DeviceKind, Device] = {}
    for spec in DEVICES:
        if spec.gpio_section is not None and gpio_panel is not None:
            built[spec.kind] = gpio_panel
            continue
        double = doubles.get(spec.kind)
        if double is None:
            continue
        expected = ExpectedDevice(double.serial_number, firmware=firmware, secret=double.secret)
        parts = DriverParts(double.settings, sink, expected, decks, options, usb_backend=backend)
        built[spec.kind] = spec.make_driver(parts)
    return RigDrivers(built)


def pair_double(double: DeviceFirmware, backend: SimulatedUsbBackend) -> None:
    """Pair ``double`` with the station over its own link, exactly as ``dealer-station
    pair`` does (its pairing button held for the exchange); a card reader double sits on
    ``backend``."""
    spec = spec_for(double.KIND)
    own_key = spec.pairing is Pairing.OWN_KEY
    double.pairing_button = True
    if own_key:
        double.key_on = True  # type: ignore[attr-defined]  # its own key, turned for pairing
    try:
        settings = double.settings  # type: ignore[attr-defined]
        if spec.link is Link.USB:

            def usb(listener: Any) -> UsbTransport:
                return UsbTransport(settings, listener, backend=backend, backoff=FAST_BACKOFF)

            pair_over(usb, double.KIND, "rig", timeout=10.0, interval=0.05)
        else:

            def serial(listener: Any) -> SerialTransport:
                return SerialTransport(settings, listener, backoff=FAST_BACKOFF)

            pair_over(serial, double.KIND, "rig", timeout=10.0, interval=0.05)
    finally:
        double.pairing_button = False
        if own_key:
            double.key_on = False  # type: ignore[attr-defined]
