"""The table's devices in ``station.toml`` (``[devices]``), read as the registry declares them.

Each device of ``drivers.registry.DEVICES`` has its section, ``[devices.<section>]``: a
serial device's port, the USB ids of a USB device, the serial number its HELLO must report
and the firmware versions it may run (the allow-list), and the device's own options. A
required device without a section is refused; so is a section no device declares. The panel
is wired to the Pi's GPIO (``[devices.panel]``, :mod:`controller.service.config_panel`) or is
a panel board on a serial port (``[devices.panel_board]``), never both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from controller.service.config_panel import PanelConfig, check_uart, parse_panel
from controller.service.config_schema import Section
from drivers.hal import DeviceKind
from drivers.registry import DEVICES, DeviceSpec, Link
from drivers.serial_transport import SerialSettings
from drivers.usb_transport import UsbSettings

BAUD_RATES: Final = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)
#: A firmware version on the allow-list: what a device's HELLO says (at most 32 bytes).
FIRMWARE: Final = re.compile(r"[\x21-\x7E]([\x20-\x7E]{0,30}[\x21-\x7E])?")


@dataclass(frozen=True, slots=True)
class SerialDevice:
    """A device on a serial port, known by the serial number its HELLO must report and the
    firmware versions it may run (the allow-list). Field names follow
    ``drivers.serial_transport.SerialSettings`` and ``ExpectedDevice``; ``options`` are the
    device's own keys (``drivers.registry.DeviceOption``), each with its value."""

    port: Path
    serial_number: str
    baudrate: int = 115200
    rtscts: bool = False
    firmware: frozenset[str] = frozenset()
    options: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class UsbDevice:
    """A device on USB (field names follow ``drivers.usb_transport.UsbSettings``)."""

    vendor_id: int
    product_id: int
    serial_number: str
    interface: int = 0
    firmware: frozenset[str] = frozenset()
    options: Mapping[str, int] = field(default_factory=dict)


DeviceSettings = SerialDevice | UsbDevice | PanelConfig


@dataclass(frozen=True, slots=True)
class Devices:
    """The table's devices as configured, by kind, in the registry's order; a device the
    table does without is absent (:meth:`get` gives None)."""

    configured: Mapping[DeviceKind, DeviceSettings]

    def get(self, kind: DeviceKind) -> DeviceSettings | None:
        """How ``kind`` is configured, or None."""
        return self.configured.get(kind)

    def names(self) -> list[str]:
        """The kind's text of each configured device, in the registry's order."""
        return [spec.name for spec in DEVICES if spec.kind in self.configured]

    def serial_ports(self) -> list[tuple[str, Path]]:
        """Each device on a serial port as ``(devices.<section>.port, port)``, in the
        registry's order (a panel wired to GPIO has none)."""
        return [
            (f"devices.{spec.section}.port", settings.port)
            for spec in DEVICES
            if isinstance(settings := self.configured.get(spec.kind), SerialDevice)
        ]

    @property
    def shoe(self) -> SerialDevice:
        """The shoe (required)."""
        shoe = self.configured[DeviceKind.SHOE]
        assert isinstance(shoe, SerialDevice)
        return shoe

    @property
    def panel(self) -> PanelConfig | SerialDevice:
        """The panel: its GPIO pin map, or a panel board (required)."""
        panel = self.configured[DeviceKind.PANEL]
        assert isinstance(panel, PanelConfig | SerialDevice)
        return panel

    @property
    def shuffler(self) -> SerialDevice | None:
        """The shuffler, if the table has one."""
        shuffler = self.configured.get(DeviceKind.SHUFFLER)
        assert shuffler is None or isinstance(shuffler, SerialDevice)
        return shuffler

    @property
    def card_reader(self) -> UsbDevice | None:
        """The hole-card reader, if the table has one."""
        reader = self.configured.get(DeviceKind.CARD_READER)
        assert reader is None or isinstance(reader, UsbDevice)
        return reader


def link_settings(settings: SerialDevice | UsbDevice) -> SerialSettings | UsbSettings:
    """What the device's driver (or ``dealer-station pair``) opens."""
    if isinstance(settings, UsbDevice):
        return UsbSettings(
            settings.vendor_id, settings.product_id, settings.serial_number, settings.interface
        )
    return SerialSettings(str(settings.port), settings.baudrate, rtscts=settings.rtscts)


def simulated_devices() -> Devices:
    """Every device of the registry, as the simulated rig stands for it: the rig knows where
    its doubles are, so the ports and ids here are placeholders (a panel board's section is
    the rig's; its GPIO map stays empty)."""
    configured: dict[DeviceKind, DeviceSettings] = {}
    for spec in DEVICES:
        options = spec.option_defaults()
        if spec.gpio_section is not None:
            configured[spec.kind] = PanelConfig({}, {}, 0, {})
        elif spec.link is Link.USB:
            configured[spec.kind] = UsbDevice(0, 0, "simulated", options=options)
        else:
            configured[spec.kind] = SerialDevice(Path("/dev/null"), "simulated", options=options)
    return Devices(configured)


def parse_devices(section: Section) -> Devices:
    """Read ``[devices]``: each device of the registry from its section.

    Raises:
        ConfigError: a required device missing, a panel both wired and a board, a GPIO
            panel on the Pi's UART pins while a device uses that UART, a bad or unknown key.
    """
    configured: dict[DeviceKind, DeviceSettings] = {}
    for spec in DEVICES:
        settings = _device(section, spec)
        if settings is not None:
            configured[spec.kind] = settings
    devices = Devices(configured)
    if isinstance(devices.panel, PanelConfig):
        ports = {
            spec.section: str(settings.port)
            for spec in DEVICES
            if isinstance(settings := configured.get(spec.kind), SerialDevice)
        }
        check_uart(devices.panel, section, ports)
    section.done()
    return devices


def _device(devices: Section, spec: DeviceSpec) -> DeviceSettings | None:
    own = devices.section(spec.section, required=False)
    gpio = devices.section(spec.gpio_section, required=False) if spec.gpio_section else None
    if own is not None and gpio is not None:
        raise devices.error(
            spec.section,
            f"set beside devices.{spec.gpio_section}: the {spec.name} is GPIO pins or a board,"
            " not both",
        )
    if gpio is not None:
        return parse_panel(gpio)
    if own is None:
        if spec.optional:
            return None
        if spec.gpio_section is not None:
            raise devices.error(
                spec.gpio_section,
                f"missing: the GPIO pin map, or [devices.{spec.section}] for a {spec.name} board",
            )
        devices.section(spec.section, required=True)  # raises: missing (required table)
    assert own is not None
    options = {option.name: own.get(option.name, int, option.default) for option in spec.options}
    for option in spec.options:
        value = options[option.name]
        if not option.lowest <= value <= option.highest:
            raise own.error(
                option.name, f"{value} is not {option.what} ({option.lowest}-{option.highest})"
            )
    if spec.link is Link.USB:
        return _usb_device(own, options)
    return _serial_device(own, options)


def _firmware(section: Section) -> frozenset[str]:
    """The allow-list: the firmware versions this device may report in its HELLO."""
    section.seen.add("firmware")
    if "firmware" not in section.data:
        raise section.error("firmware", "missing (required): the allowed firmware versions")
    versions = section.data["firmware"]
    if not isinstance(versions, list) or not versions:
        raise section.error("firmware", "expected a non-empty array of firmware versions")
    for version in versions:
        if not isinstance(version, str) or not FIRMWARE.fullmatch(version):
            raise section.error(
                "firmware", f"{version!r} is not a firmware version (1-32 printable characters)"
            )
    return frozenset(versions)


def _serial_device(section: Section, options: Mapping[str, int]) -> SerialDevice:
    port = section.get("port", str)
    if not port.startswith("/dev/") or "\0" in port:
        raise section.error("port", f"{port!r} is not a device path under /dev/")
    serial = section.get("serial", str)
    if not serial.strip():
        raise section.error("serial", "empty: name the serial number the device must report")
    baudrate = section.get("baudrate", int, 115200)
    if baudrate not in BAUD_RATES:
        raise section.error("baudrate", f"{baudrate} is not a standard rate")
    rtscts = section.get("rtscts", bool, False)
    firmware = _firmware(section)
    section.done()
    return SerialDevice(Path(port), serial, baudrate, rtscts, firmware, options)


def _usb_device(section: Section, options: Mapping[str, int]) -> UsbDevice:
    ids = {}
    for name in ("vid", "pid"):
        value = section.get(name, int)
        if not 0 <= value <= 0xFFFF:
            raise section.error(name, f"{value:#x} is not a 16-bit USB id")
        ids[name] = value
    serial = section.get("serial", str)
    if not serial.strip():
        raise section.error("serial", "empty: name the serial number the reader must report")
    interface = section.get("interface", int, 0)
    if not 0 <= interface <= 31:
        raise section.error("interface", f"{interface} is not a USB interface number")
    firmware = _firmware(section)
    section.done()
    return UsbDevice(ids["vid"], ids["pid"], serial, interface, firmware, options)
