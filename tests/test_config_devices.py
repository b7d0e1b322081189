"""``[devices]`` read as the registry declares the devices (``controller.service.config_devices``),
fast: parsed documents, no device opened.

Each limit is tried on both sides (the value at the limit is taken, one past it refused);
each refusal is the documented one line ``FILE: devices.<section>.<key>: problem``.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import pytest
from test_config import SOURCE, parse
from test_config import error_of as refusal

from controller.service.config_devices import (
    BAUD_RATES,
    Devices,
    SerialDevice,
    UsbDevice,
    link_settings,
    simulated_devices,
)
from controller.service.config_panel import PanelConfig
from drivers.hal import DeviceKind
from drivers.serial_transport import SerialSettings
from drivers.usb_transport import UsbSettings

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "station.toml"
_EXAMPLE: dict[str, Any] = tomllib.loads(EXAMPLE.read_text())


def document(**devices: Any) -> dict[str, Any]:
    """The example with each ``section=value`` of ``[devices]`` replaced (None: removed);
    a value that is a dict of keys updates the section (a key set to None is removed)."""
    data = copy.deepcopy(_EXAMPLE)
    for section, value in devices.items():
        if value is None:
            del data["devices"][section]
        elif isinstance(value, dict) and section in data["devices"]:
            for key, item in value.items():
                if item is None:
                    data["devices"][section].pop(key, None)
                else:
                    data["devices"][section][key] = item
        else:
            data["devices"][section] = value
    return data


# --- what the example configures ----------------------------------------------------------


def test_the_examples_devices_are_read_whole() -> None:
    devices = parse(document()).devices
    assert devices.shuffler == SerialDevice(
        Path("/dev/dealer-shuffler"),
        "SHF-0001234",
        115200,
        False,
        frozenset({"shf-4.2.0"}),
        {"max_decks": 8},
    )
    assert devices.shoe == SerialDevice(
        Path("/dev/dealer-shoe"),
        "SHO-0000042",
        115200,
        False,
        frozenset({"sho-2.3.1", "sho-2.4.0"}),
    )
    assert devices.card_reader == UsbDevice(0x1209, 0x5321, "RDR-0007", 0, frozenset({"rdr-1.9"}))
    assert isinstance(devices.panel, PanelConfig)
    assert devices.names() == ["shuffler", "shoe", "card_reader", "panel"]
    assert devices.get(DeviceKind.SHOE) is devices.shoe
    assert devices.serial_ports() == [
        ("devices.shuffler.port", Path("/dev/dealer-shuffler")),
        ("devices.shoe.port", Path("/dev/dealer-shoe")),
    ]


def test_the_optional_devices_left_out_are_absent() -> None:
    devices = parse_devices_only(document(shuffler=None, card_reader=None))
    assert devices.shuffler is None and devices.card_reader is None
    assert devices.get(DeviceKind.SHUFFLER) is None
    assert devices.names() == ["shoe", "panel"]
    assert devices.serial_ports() == [("devices.shoe.port", Path("/dev/dealer-shoe"))]


def test_a_serial_devices_line_settings_and_own_options_are_read() -> None:
    shuffler = parse(
        document(shuffler={"baudrate": 9600, "rtscts": True, "max_decks": 6, "port": "/dev/ttyS1"})
    ).devices.shuffler
    assert shuffler is not None
    assert (shuffler.port, shuffler.baudrate, shuffler.rtscts) == (Path("/dev/ttyS1"), 9600, True)
    assert shuffler.options == {"max_decks": 6}


# --- a serial device ---------------------------------------------------------------------------


@pytest.mark.parametrize("port", ["COM3", "dev/ttyS0", "/devices/x", "/dev/tty\0S0"])
def test_a_port_not_under_dev_is_refused(port: str) -> None:
    assert refusal(document(shoe={"port": port})) == (
        f"{SOURCE}: devices.shoe.port: {port!r} is not a device path under /dev/".replace(
            "\0", "\\x00"
        )
    )


@pytest.mark.parametrize("serial", ["", "   "])
def test_an_empty_serial_number_is_refused(serial: str) -> None:
    assert refusal(document(shoe={"serial": serial})) == (
        f"{SOURCE}: devices.shoe.serial: empty: name the serial number the device must report"
    )
    assert refusal(document(card_reader={"serial": serial})) == (
        f"{SOURCE}: devices.card_reader.serial: empty: name the serial number the reader"
        " must report"
    )


@pytest.mark.parametrize("rate", [BAUD_RATES[0] - 1, 9601, BAUD_RATES[-1] + 1, 0])
def test_a_rate_that_is_not_standard_is_refused(rate: int) -> None:
    assert refusal(document(shoe={"baudrate": rate})) == (
        f"{SOURCE}: devices.shoe.baudrate: {rate} is not a standard rate"
    )


def test_the_line_settings_default_to_115200_without_flow_control() -> None:
    data = document(shuffler={"baudrate": None, "rtscts": None})
    shuffler = parse(data).devices.shuffler
    assert shuffler is not None and (shuffler.baudrate, shuffler.rtscts) == (115200, False)


@pytest.mark.parametrize(("max_decks", "ok"), [(0, False), (1, True), (16, True), (17, False)])
def test_the_shufflers_batch_is_1_to_16_decks(max_decks: int, ok: bool) -> None:
    data = document(shuffler={"max_decks": max_decks})
    data["decks"] = 6
    if not ok:
        assert refusal(data) == (
            f"{SOURCE}: devices.shuffler.max_decks: {max_decks} is not a batch size (1-16)"
        )
        return
    devices = parse_devices_only(data)
    assert devices.shuffler is not None and devices.shuffler.options == {"max_decks": max_decks}


def parse_devices_only(data: dict[str, Any]) -> Devices:
    """``[devices]`` alone, for settings a whole table refuses for another reason (a
    shuffler smaller than its shoe)."""
    from controller.service.config_devices import parse_devices
    from controller.service.config_schema import Section

    return parse_devices(Section(SOURCE, data["devices"], "devices"))


def test_the_shufflers_batch_defaults_to_eight() -> None:
    shuffler = parse(document(shuffler={"max_decks": None})).devices.shuffler
    assert shuffler is not None and shuffler.options == {"max_decks": 8}


# --- the firmware allow-list -------------------------------------------------------------------


@pytest.mark.parametrize("version", ["1", "a" * 32, "v 1.0", "~!"])
def test_a_firmware_version_of_1_to_32_printable_characters_is_taken(version: str) -> None:
    assert parse(document(shoe={"firmware": [version]})).devices.shoe.firmware == {version}


@pytest.mark.parametrize("version", ["", "a" * 33, " v1", "v1 ", "v\t1", "v\u00e9", 12])
def test_anything_else_on_the_allow_list_is_refused(version: object) -> None:
    assert refusal(document(shoe={"firmware": ["sho-2.3.1", version]})) == (
        f"{SOURCE}: devices.shoe.firmware: {version!r} is not a firmware version"
        " (1-32 printable characters)"
    )


@pytest.mark.parametrize("value", [[], "sho-2.3.1", {"v": "1"}])
def test_the_allow_list_is_a_non_empty_array(value: object) -> None:
    assert refusal(document(card_reader={"firmware": value})) == (
        f"{SOURCE}: devices.card_reader.firmware: expected a non-empty array of firmware versions"
    )


def test_the_allow_list_is_required() -> None:
    assert refusal(document(shoe={"firmware": None})) == (
        f"{SOURCE}: devices.shoe.firmware: missing (required): the allowed firmware versions"
    )


# --- a USB device ------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["vid", "pid"])
def test_a_usb_id_is_16_bits_on_both_sides(key: str) -> None:
    for value in (0, 0xFFFF):
        reader = parse(document(card_reader={key: value})).devices.card_reader
        assert reader is not None
        assert (reader.vendor_id if key == "vid" else reader.product_id) == value
    assert refusal(document(card_reader={key: -1})) == (
        f"{SOURCE}: devices.card_reader.{key}: -0x1 is not a 16-bit USB id"
    )
    assert refusal(document(card_reader={key: 0x10000})) == (
        f"{SOURCE}: devices.card_reader.{key}: 0x10000 is not a 16-bit USB id"
    )


@pytest.mark.parametrize(("interface", "ok"), [(-1, False), (0, True), (31, True), (32, False)])
def test_a_usb_interface_is_0_to_31(interface: int, ok: bool) -> None:
    data = document(card_reader={"interface": interface})
    if ok:
        reader = parse(data).devices.card_reader
        assert reader is not None and reader.interface == interface
    else:
        assert refusal(data) == (
            f"{SOURCE}: devices.card_reader.interface: {interface} is not a USB interface number"
        )


def test_an_unknown_key_in_a_devices_section_is_refused() -> None:
    assert refusal(document(card_reader={"baudrate": 9600})) == (
        f"{SOURCE}: devices.card_reader.baudrate: unknown key"
    )
    assert (
        refusal(document(scanner={"port": "/dev/x"})) == f"{SOURCE}: devices.scanner: unknown key"
    )


# --- the panel: pins or a board ----------------------------------------------------------------

BOARD = {"port": "/dev/dealer-panel", "serial": "PNL-1", "firmware": ["pnl-1.0"]}


def test_a_panel_board_is_a_serial_device_in_place_of_the_pin_map() -> None:
    devices = parse(document(panel=None, panel_board=BOARD)).devices
    assert devices.panel == SerialDevice(
        Path("/dev/dealer-panel"), "PNL-1", firmware=frozenset({"pnl-1.0"})
    )
    assert devices.names() == ["shuffler", "shoe", "card_reader", "panel"]
    assert devices.serial_ports()[-1] == ("devices.panel_board.port", Path("/dev/dealer-panel"))


def test_the_panel_is_pins_or_a_board_not_both_and_not_neither() -> None:
    assert refusal(document(panel_board=BOARD)) == (
        f"{SOURCE}: devices.panel_board: set beside devices.panel: the panel is GPIO pins or"
        " a board, not both"
    )
    assert refusal(document(panel=None)) == (
        f"{SOURCE}: devices.panel: missing: the GPIO pin map, or [devices.panel_board] for a"
        " panel board"
    )


def test_the_shoe_is_required() -> None:
    assert refusal(document(shoe=None)) == f"{SOURCE}: devices.shoe: missing (required table)"


def test_a_gpio_panel_on_the_uart_pins_is_refused_while_a_device_uses_the_uart() -> None:
    """GPIO 14 and 15 are the Pi's UART: the example's panel wires 14 and 15 (bets, deal)."""
    data = document(shoe={"port": "/dev/serial0"})
    assert refusal(data) == (
        f"{SOURCE}: devices.panel: GPIO14 (leds.bets) and GPIO15 (leds.deal) on the Raspberry"
        " Pi's UART (GPIO 14/15), which devices.shoe uses (/dev/serial0): wire the panel to"
        " free pins"
    )
    assert parse(document()).devices.shoe.port == Path("/dev/dealer-shoe")  # not the UART


# --- what the drivers open, and the simulated rig ----------------------------------------------


def test_link_settings_are_what_the_drivers_open() -> None:
    devices = parse(document(shoe={"baudrate": 57600, "rtscts": True})).devices
    assert link_settings(devices.shoe) == SerialSettings("/dev/dealer-shoe", 57600, rtscts=True)
    reader = parse(document(card_reader={"interface": 3})).devices.card_reader
    assert reader is not None
    assert link_settings(reader) == UsbSettings(0x1209, 0x5321, "RDR-0007", 3)


def test_the_simulated_rig_stands_for_every_device_with_placeholders() -> None:
    devices = simulated_devices()
    assert devices.names() == ["shuffler", "shoe", "card_reader", "panel"]
    assert devices.shuffler == SerialDevice(
        Path("/dev/null"), "simulated", options={"max_decks": 8}
    )
    assert devices.shoe == SerialDevice(Path("/dev/null"), "simulated")
    assert devices.card_reader == UsbDevice(0, 0, "simulated")
    assert devices.panel == PanelConfig({}, {}, 0, {})
