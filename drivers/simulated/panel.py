"""The panel-board double: lamps the station lights, buttons, key and wager sensors.

It stands for a dealer panel with its own microcontroller (``drivers.panel_link``); the
GPIO panel's double is gpiozero's ``MockFactory`` (see ``drivers.simulated.rig``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, cast

import firmware_bridge as fb
from drivers.hal import Button, Led, LedMode, WagerSpot
from drivers.panel_link import PanelCodes
from drivers.simulated.control_calls import Call, enum_arg
from drivers.simulated.serial_device import SerialDeviceDouble

_SPOTS = {
    WagerSpot.MAIN: fb.WagerSpotCode.MAIN,
    WagerSpot.MATCH: fb.WagerSpotCode.MATCH,
    WagerSpot.INSURANCE: fb.WagerSpotCode.INSURANCE,
}


class PanelDouble(SerialDeviceDouble):
    """A panel board on a pty, numbered by ``codes`` (the default wiring table)."""

    KIND: ClassVar[fb.DeviceKind] = fb.DeviceKind.PANEL
    CONTROL: ClassVar[Mapping[str, Call]] = {
        "press": lambda d, button: d.press(enum_arg(Button, button)),
        "press_code": lambda d, code: d.press_code(int(code)),
        "turn_key": lambda d, on: d.turn_key(bool(on)),
        "place_wager": lambda d, seat, spot, present=True, cents=None: d.place_wager(
            int(seat),
            enum_arg(WagerSpot, spot),
            bool(present),
            None if cents is None else int(cents),
        ),
        "lamp": lambda d, led: d.lamp(enum_arg(Led, led)),
        "deliver": lambda d, timeout=5.0: d.deliver(float(timeout)),
    }
    READABLE: ClassVar[frozenset[str]] = frozenset(
        {"lamps", "unknown_lamps", "lamp_frames", "refused_lamp_frames"}
    )

    def __init__(
        self,
        path: Path,
        serial_number: str = "PANEL-0001",
        *,
        codes: PanelCodes | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(path, serial_number, **kwargs)
        self.codes = codes or PanelCodes.default()
        self._leds = {code: led for led, code in self.codes.leds.items()}
        self._unwired = ~sum(1 << code for code in self._leds)  # bits of lamps not fitted
        self.lamps: dict[Led, LedMode] = {}
        self.unknown_lamps: list[int] = []  # lamp numbers lit that the wiring table lacks
        self.refused_lamp_frames = 0  # frames with a lamp both steady and blinking
        self.lamp_frames = 0
        self.key_on = False

    def lamp(self, led: Led) -> LedMode:
        """How ``led`` is lit on the board."""
        with self._cond:
            return self.lamps.get(led, LedMode.OFF)

    def press(self, button: Button) -> None:
        """Press and release ``button``: the board reports the press only (docs/protocol.md,
        ``0x41 ButtonReport``: the station acts on presses, so a release would be a sealed
        frame and an acknowledgement for nothing, about 17 a round)."""
        self._report(fb.ButtonReport(self.codes.buttons[button], True))

    def release_report(self, button: Button) -> None:
        """Report the release of ``button``, as a board with older firmware does."""
        self._report(fb.ButtonReport(self.codes.buttons[button], False))

    def press_code(self, code: int) -> None:
        """Press a raw button number (one the wiring table may not know)."""
        self._report(fb.ButtonReport(code, True))

    def turn_key(self, on: bool) -> None:
        """Turn the supervisor key on or off."""
        self.key_on = on
        self._report(fb.ButtonReport(self.codes.supervisor_key, on))

    def _pairing_consent(self) -> bool:
        # The board reads its key switch itself: pairing it needs the key turned as well
        # as the pairing button held (docs/panel.md).
        return self.pairing_button and self.key_on

    def place_wager(
        self, seat: int, spot: WagerSpot, present: bool = True, cents: int | None = None
    ) -> None:
        """Put a wager of ``cents`` (if the sensor weighs it) on a seat's spot, or take it
        off. Inside a ``holding()`` block the sensors' changes go out together, in one
        ``WagerSensorScan`` (docs/protocol.md, 0x44)."""
        self._scan(fb.WagerSensorReport(seat, _SPOTS[spot], present, cents))

    def _scan_messages(self, reports: list[fb.Message]) -> list[fb.Message]:
        if len(reports) == 1:
            return reports
        # Only place_wager scans: every report here is a WagerSensorReport.
        wagers = cast("list[fb.WagerSensorReport]", reports)
        top = fb.WAGER_SCAN_MAX
        return [
            fb.WagerSensorScan(tuple(wagers[at : at + top])) for at in range(0, len(wagers), top)
        ]

    def power_cycle(self) -> None:
        """Reboot the board: every lamp goes dark."""
        with self._cond:
            self.lamps.clear()
            super().power_cycle()

    def _on_command(self, message: fb.Message) -> None:
        if isinstance(message, fb.PanelLamps):
            steady, blink = message.steady, message.blink
            if steady & blink:
                self.refused_lamp_frames += 1  # malformed: the lamps stay as they were
                return
            self.lamp_frames += 1
            lit = steady | blink
            unknown = lit & self._unwired
            if unknown:
                self.unknown_lamps.extend(n for n in range(fb.PANEL_LAMP_BITS) if unknown >> n & 1)
            # Every frame sets every lamp: the board's lamps become exactly the lit bits (a
            # dark lamp has no entry, as on a board just powered up). Only the lit bits are
            # visited (a few of ~20): a dict pop per dark lamp, keyed by an Enum, was a
            # fifth of the panel double's thread (~20 frames a round).
            leds = self._leds
            lamps: dict[Led, LedMode] = {}
            while lit:
                low = lit & -lit
                lit ^= low
                led = leds.get(low.bit_length() - 1)
                if led is not None:
                    lamps[led] = LedMode.STEADY if steady & low else LedMode.BLINK
            self.lamps = lamps
