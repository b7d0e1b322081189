"""The dealer panel's pin map in ``station.toml`` (``[devices.panel]``).

The layout is the one ``drivers.panel.PanelPins.from_config`` reads: ``supervisor_key``,
``[devices.panel.buttons]`` (every :class:`Button`, required: without them no decision and
no supervisor action can be taken), ``[devices.panel.leds]`` and
``[devices.panel.wagers]`` (``"SEAT.SPOT" = pin``). A 40-pin Pi has 26 free lines
(BCM 2..27), fewer than 35 lamps, buttons and key plus 21 wager sensors, so lamps and
sensors are optional: one left out is not wired (docs/hardware.md).

A pin is a BCM number (``17``) or a name gpiozero knows for a header pin: ``"GPIO17"``,
``"BCM17"``, ``"BOARD11"`` or ``"J8:11"``. Every pin is checked and reduced to its BCM
number, so the same line named two ways is caught as used twice.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final, TypeVar

from controller.service.config_schema import SEATS, Section
from drivers.hal import Button, Led, WagerSpot

E = TypeVar("E", bound=Enum)
_SEAT_NAMES: Final = {str(seat) for seat in SEATS}

BCM_LINES: Final = range(28)
#: Header pin (BOARD / J8 numbering) -> BCM number, for the 40-pin header.
BOARD_TO_BCM: Final = {
    3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24,
    19: 10, 21: 9, 22: 25, 23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5, 31: 6, 32: 12,
    33: 13, 35: 19, 36: 16, 37: 26, 38: 20, 40: 21,
}  # fmt: skip
PIN_NAME: Final = re.compile(r"(GPIO|BCM|BOARD|J8:)(\d{1,2})")


@dataclass(frozen=True, slots=True)
class PanelConfig:
    """The dealer panel's pin map, BCM numbers; lamps and wager sensors left out are not
    wired. Field names follow ``drivers.panel.PanelPins``."""

    leds: Mapping[Led, int]
    buttons: Mapping[Button, int]
    supervisor_key: int
    wagers: Mapping[tuple[int, WagerSpot], int]


class _PinRegistry:
    """Pins handed out so far, to refuse a second use of one line."""

    def __init__(self) -> None:
        self.used: dict[int, str] = {}

    def take(self, section: Section, name: str) -> int:
        section.seen.add(name)
        if name not in section.data:
            raise section.error(name, "missing (required pin)")
        pin = _bcm(section, name, section.data[name])
        earlier = self.used.get(pin)
        if earlier is not None:
            raise section.error(name, f"GPIO{pin} is already used by {earlier}")
        self.used[pin] = section.key(name)
        return pin


def _bcm(section: Section, name: str, raw: Any) -> int:
    if type(raw) is int:
        if raw not in BCM_LINES:
            raise section.error(name, f"GPIO{raw} is not on the header (BCM 0-27)")
        return raw
    match = PIN_NAME.fullmatch(raw.upper()) if isinstance(raw, str) else None
    if match is None:
        raise section.error(
            name, f'expected a BCM number or a pin name ("GPIO17", "BOARD11"), got {raw!r}'
        )
    number = int(match[2])
    if match[1] in ("BOARD", "J8:"):
        if number not in BOARD_TO_BCM:
            raise section.error(name, f"header pin {number} is not a GPIO line")
        return BOARD_TO_BCM[number]
    if number not in BCM_LINES:
        raise section.error(name, f"GPIO{number} is not on the header (BCM 0-27)")
    return number


def _pins_for(
    section: Section, registry: _PinRegistry, members: type[E], *, required: bool
) -> dict[E, int]:
    by_name = {str(member.value): member for member in members}
    for name in section.data:
        if name not in by_name:
            raise section.error(name, "unknown key")
    names = by_name if required else [n for n in by_name if n in section.data]
    return {by_name[name]: registry.take(section, name) for name in names}


def parse_panel(section: Section) -> PanelConfig:
    """Read ``devices.panel`` (see the module docstring).

    Raises:
        ConfigError: for a missing button or key, a malformed or out-of-range pin, a pin
            used twice, or an unknown lamp, button, seat or spot.
    """
    registry = _PinRegistry()
    supervisor_key = registry.take(section, "supervisor_key")
    buttons_section = section.section("buttons", required=True)
    assert buttons_section is not None
    buttons = _pins_for(buttons_section, registry, Button, required=True)
    leds_section = section.section("leds", required=False)
    leds = {} if leds_section is None else _pins_for(leds_section, registry, Led, required=False)
    wagers: dict[tuple[int, WagerSpot], int] = {}
    wagers_section = section.section("wagers", required=False)
    if wagers_section is not None:
        spots = {spot.value: spot for spot in WagerSpot}
        for name in list(wagers_section.data):
            seat, _, spot = name.partition(".")
            # Not str.isdigit(): it takes "²", which int() refuses.
            if not (seat in _SEAT_NAMES and spot in spots):
                raise wagers_section.error(
                    name, f'unknown key ("SEAT.SPOT": seat 1-7, spot {", ".join(spots)})'
                )
            wagers[int(seat), spots[spot]] = registry.take(wagers_section, name)
    section.done()
    return PanelConfig(
        leds=leds,
        buttons=buttons,
        supervisor_key=supervisor_key,
        wagers=dict(sorted(wagers.items(), key=lambda item: (item[0][0], item[0][1].value))),
    )


#: The Raspberry Pi's UART on the header (GPIO 14 TXD, 15 RXD; the image enables it) and the
#: names its port goes by: the image's udev name, the kernel's, Raspberry Pi OS's alias.
UART_PINS: Final = (14, 15)
UART_PORTS: Final = frozenset({"/dev/dealer-uart", "/dev/ttyAMA0", "/dev/serial0"})


def check_uart(panel: PanelConfig, section: Section, ports: Mapping[str, str]) -> None:
    """Refuse a GPIO panel wired to GPIO 14 or 15 while a device (``ports``: its section's
    name -> its port) is on the Pi's UART: those are the UART's two lines.

    Raises:
        ConfigError: naming the pins, what the panel wired to them, and the device.
    """
    on_uart = sorted(name for name, port in ports.items() if port in UART_PORTS)
    if not on_uart:
        return
    wired: dict[int, str] = {panel.supervisor_key: "supervisor_key"}
    wired |= {pin: f"buttons.{button.value}" for button, pin in panel.buttons.items()}
    wired |= {pin: f"leds.{led.value}" for led, pin in panel.leds.items()}
    wired |= {pin: f"wagers.{seat}.{spot.value}" for (seat, spot), pin in panel.wagers.items()}
    clash = [f"GPIO{pin} ({wired[pin]})" for pin in UART_PINS if pin in wired]
    if clash:
        raise section.error(
            "panel",
            f"{' and '.join(clash)} on the Raspberry Pi's UART (GPIO 14/15), which "
            f"devices.{on_uart[0]} uses ({ports[on_uart[0]]}): wire the panel to free pins",
        )
