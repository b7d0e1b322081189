"""The dealer panel's pin map (``[devices.panel]``, ``controller.service.config_panel``),
fast: the section read alone.

A pin is a BCM number (0-27) or a header name gpiozero knows (``GPIO17``, ``BCM17``,
``BOARD11``, ``J8:11``), reduced to its BCM number; the 40-pin header's map is the Raspberry
Pi's (docs/hardware.md). Each range is tried on both sides; each refusal is the one line
``FILE: devices.panel.<key>: problem``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from controller.service.config_panel import PanelConfig, check_uart, parse_panel
from controller.service.config_schema import ConfigError, Section
from drivers.hal import Button, Led, WagerSpot

SOURCE = Path("/etc/dealer-station/station.toml")
#: Every button, on BCM 2..11, and the supervisor's key on 26: the smallest valid panel.
BUTTONS: dict[str, Any] = {button.value: 2 + n for n, button in enumerate(Button)}
PANEL: dict[str, Any] = {"supervisor_key": 26, "buttons": BUTTONS}


def panel(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(PANEL)
    data.update(changes)
    return data


def read(data: dict[str, Any]) -> PanelConfig:
    return parse_panel(Section(SOURCE, data, "devices.panel"))


def refusal(data: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as caught:
        read(data)
    text = str(caught.value)
    assert "\n" not in text
    return text


def test_the_smallest_panel_is_its_buttons_and_key() -> None:
    config = read(panel())
    assert config == PanelConfig(
        leds={}, buttons={b: 2 + n for n, b in enumerate(Button)}, supervisor_key=26, wagers={}
    )


@pytest.mark.parametrize(
    ("pin", "bcm"),
    [
        (0, 0),
        (27, 27),
        ("GPIO0", 0),
        ("GPIO27", 27),
        ("gpio17", 17),
        ("BCM17", 17),
        ("bcm9", 9),
        ("BOARD11", 17),
        ("board3", 2),
        ("J8:11", 17),
        ("j8:40", 21),
        ("BOARD27", 0),
        ("BOARD28", 1),
    ],
)
def test_a_pin_by_number_or_by_name_is_its_bcm_line(pin: object, bcm: int) -> None:
    free = [line for line in range(28) if line != bcm]
    buttons = {button.value: free[n] for n, button in enumerate(Button)}
    assert read({"supervisor_key": pin, "buttons": buttons}).supervisor_key == bcm
    assert read({"supervisor_key": free[-1], "buttons": buttons, "leds": {"fault": pin}}).leds == {
        Led.FAULT: bcm
    }


@pytest.mark.parametrize(
    ("pin", "problem"),
    [
        (-1, "GPIO-1 is not on the header (BCM 0-27)"),
        (28, "GPIO28 is not on the header (BCM 0-27)"),
        ("GPIO28", "GPIO28 is not on the header (BCM 0-27)"),
        ("BCM99", "GPIO99 is not on the header (BCM 0-27)"),
        ("BOARD1", "header pin 1 is not a GPIO line"),
        ("BOARD2", "header pin 2 is not a GPIO line"),
        ("J8:41", "header pin 41 is not a GPIO line"),
        ("BOARD0", "header pin 0 is not a GPIO line"),
        ("GPIO117", """expected a BCM number or a pin name ("GPIO17", "BOARD11"), got 'GPIO117'"""),
        (" GPIO17", """expected a BCM number or a pin name ("GPIO17", "BOARD11"), got ' GPIO17'"""),
        ("17", """expected a BCM number or a pin name ("GPIO17", "BOARD11"), got '17'"""),
        ("PIN17", """expected a BCM number or a pin name ("GPIO17", "BOARD11"), got 'PIN17'"""),
        (17.0, """expected a BCM number or a pin name ("GPIO17", "BOARD11"), got 17.0"""),
        (True, """expected a BCM number or a pin name ("GPIO17", "BOARD11"), got True"""),
    ],
)
def test_a_pin_off_the_header_or_not_a_pin_is_refused(pin: object, problem: str) -> None:
    assert refusal(panel(supervisor_key=pin)) == (
        f"{SOURCE}: devices.panel.supervisor_key: {problem}"
    )


def test_one_line_named_two_ways_is_used_twice() -> None:
    assert refusal(panel(leds={"fault": "BOARD3"})) == (
        f"{SOURCE}: devices.panel.leds.fault: GPIO2 is already used by devices.panel.buttons.next"
    )
    assert refusal(panel(supervisor_key=2)) == (
        f"{SOURCE}: devices.panel.buttons.next: GPIO2 is already used by"
        " devices.panel.supervisor_key"
    )


def test_every_button_is_required_and_lamps_are_not() -> None:
    buttons = dict(BUTTONS)
    del buttons["rescue"]
    assert refusal(panel(buttons=buttons)) == (
        f"{SOURCE}: devices.panel.buttons.rescue: missing (required pin)"
    )
    assert refusal({"buttons": BUTTONS}) == (
        f"{SOURCE}: devices.panel.supervisor_key: missing (required pin)"
    )
    assert refusal({"supervisor_key": 26}) == (
        f"{SOURCE}: devices.panel.buttons: missing (required table)"
    )
    config = read(panel(leds={"bets": 14, "seat_3": "GPIO15"}))
    assert config.leds == {Led.BETS: 14, Led.SEAT_3: 15}


def test_an_unknown_button_lamp_or_key_is_refused() -> None:
    assert refusal(panel(buttons={**BUTTONS, "hit": 20})) == (
        f"{SOURCE}: devices.panel.buttons.hit: unknown key"
    )
    assert refusal(panel(leds={"disco": 20})) == f"{SOURCE}: devices.panel.leds.disco: unknown key"
    assert refusal(panel(pull_up=True)) == f"{SOURCE}: devices.panel.pull_up: unknown key"


@pytest.mark.parametrize("name", ["1.main", "7.match", "4.insurance"])
def test_a_wager_sensor_of_seats_1_to_7_is_taken(name: str) -> None:
    seat, spot = name.split(".")
    assert read(panel(wagers={name: 20})).wagers == {(int(seat), WagerSpot(spot)): 20}


@pytest.mark.parametrize(
    "name", ["0.main", "8.main", "\u00b2.main", "1.side", "1", "1.main.x", " 1.main"]
)
def test_a_wager_sensor_of_no_seat_or_spot_is_refused(name: str) -> None:
    shown = name if name.isprintable() else repr(name)
    assert refusal(panel(wagers={name: 20})) == (
        f'{SOURCE}: devices.panel.wagers.{shown}: unknown key ("SEAT.SPOT": seat 1-7,'
        " spot main, match, insurance)"
    )


def test_wager_sensors_are_listed_by_seat_then_spot() -> None:
    wagers = {"3.main": 20, "1.match": 21, "1.main": 22, "2.insurance": 23, "1.insurance": 24}
    assert list(read(panel(wagers=wagers)).wagers) == [
        (1, WagerSpot.INSURANCE),
        (1, WagerSpot.MAIN),
        (1, WagerSpot.MATCH),
        (2, WagerSpot.INSURANCE),
        (3, WagerSpot.MAIN),
    ]


# --- the Pi's UART (GPIO 14 TXD, 15 RXD) ---------------------------------------------------


def uart_refusal(config: PanelConfig, ports: dict[str, str]) -> str:
    with pytest.raises(ConfigError) as caught:
        check_uart(config, Section(SOURCE, {}, "devices"), ports)
    return str(caught.value)


@pytest.mark.parametrize("port", ["/dev/dealer-uart", "/dev/ttyAMA0", "/dev/serial0"])
def test_a_panel_on_gpio_14_or_15_is_refused_while_a_device_uses_the_uart(port: str) -> None:
    config = read(panel(leds={"fault": 14}))
    assert uart_refusal(config, {"shoe": "/dev/dealer-shoe", "shuffler": port}) == (
        f"{SOURCE}: devices.panel: GPIO14 (leds.fault) on the Raspberry Pi's UART (GPIO 14/15),"
        f" which devices.shuffler uses ({port}): wire the panel to free pins"
    )


def test_each_kind_of_pin_on_the_uart_is_named_and_the_first_device_by_name() -> None:
    config = read(panel(supervisor_key=15, wagers={"2.main": 14}))
    assert uart_refusal(config, {"shuffler": "/dev/serial0", "shoe": "/dev/ttyAMA0"}) == (
        f"{SOURCE}: devices.panel: GPIO14 (wagers.2.main) and GPIO15 (supervisor_key) on the"
        " Raspberry Pi's UART (GPIO 14/15), which devices.shoe uses (/dev/ttyAMA0): wire the"
        " panel to free pins"
    )
    buttons = {**BUTTONS, "next": 15}
    config = read(panel(buttons=buttons))
    assert "GPIO15 (buttons.next) on the" in uart_refusal(config, {"shoe": "/dev/serial0"})


def test_the_uart_pins_are_free_for_the_panel_when_no_device_uses_the_uart() -> None:
    config = read(panel(leds={"bets": 14, "deal": 15}))
    check_uart(config, Section(SOURCE, {}, "devices"), {"shoe": "/dev/ttyUSB0"})
    check_uart(config, Section(SOURCE, {}, "devices"), {})


def test_a_device_on_the_uart_leaves_a_panel_off_gpio_14_and_15_alone() -> None:
    config = read(panel(leds={"bets": 13, "deal": 16}))
    check_uart(config, Section(SOURCE, {}, "devices"), {"shoe": "/dev/serial0"})
