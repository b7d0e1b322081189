"""The device registry: what the station knows of each kind of device, declared once.

Each device is one :class:`DeviceSpec` in :data:`DEVICES`: its kind (one name for the HAL
and the wire, ``firmware_bridge.DeviceKind``), its link, its section of ``station.toml``
and whether the table can do without it, its real driver, its Python double, its C firmware
where one exists, how it is paired and its udev name. Everything that enumerates the
devices reads this tuple: the configuration (``controller.service.config``), the composition
roots (the daemon's real drivers, the simulated rig, the served rig, the doubles served by
``dealer-station doubles``), ``dealer-station pair``, the simulation, the HIL rig layer,
and the tests that hold the udev rules and docs/hardware.md to it. Its order is the order
in which the station starts the devices and seeds their doubles.

A new device is a kind in ``firmware_bridge.codec``, its messages, its HAL events, a driver
(a ``drivers.serial_driver.SerialDriver`` for a serial device), a double, one entry here,
and where the table acts on its events, their handler in ``controller.table.procedure`` and
the record kind they journal (``controller.journal.kinds``): docs/hardware.md, "Adding a
device".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

from drivers.card_reader import CardReaderDriver
from drivers.device_link import ExpectedDevice, LinkedDevice
from drivers.hal import FAULT_LAMPS, Device, DeviceKind, EventSink, Led
from drivers.panel_link import SerialPanelDriver
from drivers.serial_driver import SerialDriver
from drivers.serial_transport import SerialSettings
from drivers.shoe import ShoeDriver
from drivers.shuffler import ShufflerDriver
from drivers.simulated.c_device import FirmwareDevice
from drivers.simulated.c_devices import FirmwarePanel, FirmwareShoe
from drivers.simulated.card_reader import CardReaderDouble
from drivers.simulated.firmware import DeviceFirmware
from drivers.simulated.panel import PanelDouble
from drivers.simulated.shoe import ShoeDouble
from drivers.simulated.shuffler import ShufflerDouble
from drivers.usb_transport import UsbSettings


class Link(Enum):
    """How the station reaches a device, and so which keys its section takes."""

    SERIAL = "serial"  # a serial port: port, serial, baudrate, rtscts, firmware
    USB = "usb"  # a vendor-specific USB bulk interface: vid, pid, serial, interface, firmware


class Pairing(Enum):
    """Whose key switch guards ``dealer-station pair`` (docs/operations.md)."""

    SUPERVISOR_KEY = "supervisor_key"  # the station reads the supervisor key's GPIO line
    OWN_KEY = "own_key"  # the device reads its own key switch (a panel board)


class Implementation(Enum):
    """What stands for a device on a simulated rig."""

    PYTHON = "python"  # its Python double (drivers/simulated/)
    HOST = "host"  # its C firmware's host build (firmware/, make -C firmware host)
    QEMU = "qemu"  # its C firmware's Cortex-M image on an emulated board


@dataclass(frozen=True, slots=True)
class DeviceOption:
    """An integer key of a device's section beyond its link's own (``lowest``..``highest``)."""

    name: str
    default: int
    lowest: int
    highest: int
    #: What the value is, for the error text: "{value} is not {what} ({lowest}-{highest})".
    what: str


@dataclass(frozen=True, slots=True)
class DriverParts:
    """What a composition root hands to a spec's ``driver`` to build the real driver."""

    settings: SerialSettings | UsbSettings
    sink: EventSink
    expected: ExpectedDevice
    #: The table's batch size (the shoe counts each card's copies against it).
    decks: int
    #: The link's options: timing, backoff, station_id, refusal_retry.
    options: Mapping[str, Any] = field(default_factory=dict)
    #: The pyusb backend a USB device is found on (None: the system's).
    usb_backend: Any = None

    def serial(self) -> SerialSettings:
        """The settings of a serial device."""
        if not isinstance(self.settings, SerialSettings):
            raise TypeError(f"expected serial settings, got {type(self.settings).__name__}")
        return self.settings

    def usb(self) -> UsbSettings:
        """The settings of a USB device."""
        if not isinstance(self.settings, UsbSettings):
            raise TypeError(f"expected USB settings, got {type(self.settings).__name__}")
        return self.settings


def _shoe(parts: DriverParts) -> Device:
    return ShoeDriver(
        parts.serial(), parts.sink, parts.expected, decks=parts.decks, **parts.options
    )


def _card_reader(parts: DriverParts) -> Device:
    return CardReaderDriver(
        parts.usb(), parts.sink, expected=parts.expected, backend=parts.usb_backend, **parts.options
    )


@dataclass(frozen=True, slots=True)
class DeviceSpec:
    """One kind of device, as the station knows it (see the module docstring)."""

    kind: DeviceKind
    link: Link
    #: Its section: ``[devices.<section>]``.
    section: str
    #: Whether a table may leave it out (a table without a card reader does not peek).
    optional: bool
    #: The real driver's class.
    driver: type[LinkedDevice]
    #: The Python double's class (serial doubles take a path, the USB one a backend).
    double: type[DeviceFirmware]
    #: The serial number its doubles report.
    serial_number: str
    pairing: Pairing = Pairing.SUPERVISOR_KEY
    #: The C firmware of the device, where one exists (drivers/simulated/c_devices.py).
    firmware: type[FirmwareDevice] | None = None
    #: Its stable name under /dev: the udev rules' SYMLINK (systemd/99-dealer-station.rules).
    udev: str | None = None
    #: Its name on the doubles' control socket (``drivers.simulated.serve_control``).
    control: str = ""
    options: tuple[DeviceOption, ...] = ()
    #: A section that wires it to the Pi's GPIO pins instead (the panel without a board).
    gpio_section: str | None = None
    #: Builds the real driver when its constructor takes more than every serial driver's
    #: (``drivers.serial_driver.SerialDriver``): the shoe's batch, the reader's USB bus.
    build: Callable[[DriverParts], Device] | None = None

    def make_driver(self, parts: DriverParts) -> Device:
        """The real driver, built from ``parts``."""
        if self.build is not None:
            return self.build(parts)
        assert issubclass(self.driver, SerialDriver), self.driver
        return self.driver(parts.serial(), parts.sink, parts.expected, **parts.options)

    @property
    def name(self) -> str:
        """The kind's text: ``shoe``, ``card_reader``..."""
        return self.kind.name_text

    @property
    def control_name(self) -> str:
        """Its name on the doubles' control socket."""
        return self.control or self.kind.name_text

    @property
    def fault_lamp(self) -> Led | None:
        """The panel lamp that shows its faults (``drivers.hal.FAULT_LAMPS``: the table, which
        sees only ``drivers.hal``, lights it), or None: the general fault lamp only."""
        return FAULT_LAMPS.get(self.kind)

    @property
    def implementations(self) -> tuple[Implementation, ...]:
        """What may stand for it on a simulated rig."""
        if self.firmware is None:
            return (Implementation.PYTHON,)
        return tuple(Implementation)

    def option_defaults(self) -> dict[str, int]:
        """Each of its own options with its default."""
        return {option.name: option.default for option in self.options}


DEVICES: Final[tuple[DeviceSpec, ...]] = (
    DeviceSpec(
        DeviceKind.SHUFFLER,
        Link.SERIAL,
        "shuffler",
        optional=True,
        driver=ShufflerDriver,
        double=ShufflerDouble,
        serial_number="SHUF-0001",
        udev="dealer-shuffler",
        options=(DeviceOption("max_decks", 8, 1, 16, "a batch size"),),
    ),
    DeviceSpec(
        DeviceKind.SHOE,
        Link.SERIAL,
        "shoe",
        optional=False,
        driver=ShoeDriver,
        build=_shoe,
        double=ShoeDouble,
        serial_number="SHOE-0001",
        firmware=FirmwareShoe,
        udev="dealer-shoe",
    ),
    DeviceSpec(
        DeviceKind.CARD_READER,
        Link.USB,
        "card_reader",
        optional=True,
        driver=CardReaderDriver,
        build=_card_reader,
        double=CardReaderDouble,
        serial_number="READ-0001",
        control="reader",
    ),
    DeviceSpec(
        DeviceKind.PANEL,
        Link.SERIAL,
        "panel_board",
        optional=False,
        driver=SerialPanelDriver,
        double=PanelDouble,
        serial_number="PANEL-0001",
        pairing=Pairing.OWN_KEY,
        firmware=FirmwarePanel,
        udev="dealer-panel",
        gpio_section="panel",
    ),
)

_BY_KIND: Final = {spec.kind: spec for spec in DEVICES}
_BY_NAME: Final = {spec.name: spec for spec in DEVICES}


def spec_for(kind: DeviceKind) -> DeviceSpec:
    """The spec of ``kind``."""
    return _BY_KIND[kind]


def spec_named(name: str) -> DeviceSpec | None:
    """The spec whose kind's text is ``name`` (``shoe``, ``card_reader``...), or None."""
    return _BY_NAME.get(name)


def device_names() -> str:
    """Every kind's text, for a choice list or an error: ``shuffler, shoe, ...``."""
    return ", ".join(spec.name for spec in DEVICES)


def seed_offset(kind: DeviceKind) -> int:
    """A double's seed is the rig's seed plus its place in :data:`DEVICES`."""
    return DEVICES.index(_BY_KIND[kind])


def markdown_table() -> str:
    """The registry as the table of docs/hardware.md (``tests/test_registry.py`` holds the
    page to it)."""

    def dotted(cls: type | None) -> str:
        return "-" if cls is None else f"`{cls.__module__}.{cls.__qualname__}`"

    lines = [
        "| kind | section | link | optional | driver | double | C firmware | pairing | udev |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for spec in DEVICES:
        section = f"`[devices.{spec.section}]`"
        if spec.gpio_section is not None:
            section += f" or `[devices.{spec.gpio_section}]` (GPIO)"
        pairing = {
            Pairing.SUPERVISOR_KEY: "supervisor key",
            Pairing.OWN_KEY: "its own key switch",
        }[spec.pairing]
        cells = (
            f"`{spec.name}`",
            section,
            spec.link.value,
            "yes" if spec.optional else "no",
            dotted(spec.driver),
            dotted(spec.double),
            dotted(spec.firmware),
            pairing,
            f"`{spec.udev}`" if spec.udev else "-",
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
