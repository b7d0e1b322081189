"""The dealer panel's pin map in ``station.toml``: every lamp, button, key and sensor.

A pin is an integer (a line of the panel's main chip, ``devices.panel.chip``: on the Pi's
own header that is the BCM number) or ``"gpiochipN:LINE"`` for a line of another chip, such
as an I2C port expander: the Pi's header alone has too few lines for a full panel.
No pin may serve two functions.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, TypeVar

from controller.config import CHIP_LINE, MAX_LINE, SEATS, PanelConfig, Pin, Section
from drivers.hal import Button, Led, WagerSpot

E = TypeVar("E", bound=Enum)


class _PinRegistry:
    """Pins handed out so far, to refuse a second use of one line."""

    def __init__(self, chip: int) -> None:
        self.chip = chip
        self.used: dict[Pin, str] = {}

    def take(self, section: Section, name: str) -> Pin:
        section.seen.add(name)
        if name not in section.data:
            raise section.error(name, "missing (required pin)")
        pin = self._parse(section, name, section.data[name])
        earlier = self.used.get(pin)
        if earlier is not None:
            raise section.error(name, f"pin {pin} is already used by {earlier}")
        self.used[pin] = section.key(name)
        return pin

    def _parse(self, section: Section, name: str, raw: Any) -> Pin:
        if type(raw) is int:
            pin = Pin(self.chip, raw)
        elif isinstance(raw, str) and (match := CHIP_LINE.fullmatch(raw)):
            pin = Pin(int(match[1]), int(match[2]))
        else:
            raise section.error(name, f'expected a line number or "gpiochipN:LINE", got {raw!r}')
        if not 0 <= pin.line <= MAX_LINE:
            raise section.error(name, f"line {pin.line} is out of range (0-{MAX_LINE})")
        return pin


def _pins_for(section: Section, registry: _PinRegistry, members: type[E]) -> dict[E, Pin]:
    pins = {member: registry.take(section, str(member.value)) for member in members}
    section.done()
    return pins


def parse_panel(section: Section) -> PanelConfig:
    """Read ``devices.panel``: ``chip``, ``pull_up``, ``active_high``, ``supervisor_key``,
    ``[leds]`` (every :class:`Led`), ``[buttons]`` (every :class:`Button`) and optional
    ``[seats.N]`` wager sensors (``main`` required, ``match`` and ``insurance`` optional).

    Raises:
        ConfigError: for a missing, malformed, out-of-range or duplicate pin.
    """
    chip = section.get("chip", int, 0)
    if not 0 <= chip <= 99:
        raise section.error("chip", f"gpiochip{chip} is not a GPIO chip number")
    registry = _PinRegistry(chip)
    pull_up = section.get("pull_up", bool, True)
    active_high = section.get("active_high", bool, True)
    supervisor_key = registry.take(section, "supervisor_key")
    leds_section = section.section("leds", required=True)
    buttons_section = section.section("buttons", required=True)
    assert leds_section is not None and buttons_section is not None
    leds = _pins_for(leds_section, registry, Led)
    buttons = _pins_for(buttons_section, registry, Button)
    sensors: dict[int, dict[WagerSpot, Pin]] = {}
    seats_section = section.section("seats", required=False)
    if seats_section is not None:
        for name in list(seats_section.data):
            if not (name.isdigit() and int(name) in SEATS):
                raise seats_section.error(name, "unknown key (seats are 1 to 7)")
            seat = seats_section.section(name, required=True)
            assert seat is not None
            spots = {WagerSpot.MAIN: registry.take(seat, WagerSpot.MAIN.value)}
            for spot in (WagerSpot.MATCH, WagerSpot.INSURANCE):
                if spot.value in seat.data:
                    spots[spot] = registry.take(seat, spot.value)
            seat.done()
            sensors[int(name)] = spots
    section.done()
    return PanelConfig(
        leds=leds,
        buttons=buttons,
        supervisor_key=supervisor_key,
        wager_sensors=dict(sorted(sensors.items())),
        chip=chip,
        pull_up=pull_up,
        active_high=active_high,
    )
