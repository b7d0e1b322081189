"""The dealer panel as a microcontroller board on serial, speaking ``firmware_bridge``.

A 40-pin Pi has 26 free GPIOs (see ``docs/hardware.md``): enough for the dealer's buttons,
the key and the prompt lamps, not for seven seat lamps and 21 wager sensors. A panel board
with its own microcontroller carries all of them and reports over the same protocol as the
shoe (device kind ``panel``). Lamps and buttons travel as numbers "from the panel's wiring
table" (bit ``n`` of ``PanelLamps``, ``ButtonReport.button``); :class:`PanelCodes` is that
table.

The driver implements ``drivers.hal.DealerPanel`` exactly as :class:`drivers.panel.GpioPanel`
does: ``show`` lights exactly the lamps named (the whole panel state in one ``PanelLamps``
frame, sent only when it changed, and again when the board reconnects, since it may have
rebooted dark), buttons become
``ButtonPressed``, supervisor buttons count only with the key on, the key is
``SupervisorKey`` and the wager sensors ``SeatWagerChanged`` (with the amount when the
board can tell it; a ``WagerSensorScan`` of several changes gives one event each, in
order). Debounce is the board's job. A board reports a button's press, not its
release (docs/protocol.md, ``0x41 ButtonReport``); a release from a board that still sends
one is ignored. The key switch is reported both ways.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import structlog

import firmware_bridge as fb
from drivers.device_link import ExpectedDevice
from drivers.errors import DriverConfigError
from drivers.hal import (
    SUPERVISOR_BUTTONS,
    Button,
    ButtonPressed,
    DeviceEvent,
    DeviceFault,
    DeviceKind,
    EventSink,
    Led,
    LedMode,
    SeatWagerChanged,
    SupervisorKey,
    WagerSpot,
)
from drivers.serial_driver import SerialDriver
from drivers.serial_transport import SerialSettings

log = structlog.get_logger(__name__)

_SPOTS = {
    fb.WagerSpotCode.MAIN: WagerSpot.MAIN,
    fb.WagerSpotCode.MATCH: WagerSpot.MATCH,
    fb.WagerSpotCode.INSURANCE: WagerSpot.INSURANCE,
}
#: The key switch's number in the default wiring table, after every button.
DEFAULT_KEY_CODE = 100


@dataclass(frozen=True, slots=True)
class PanelCodes:
    """The panel board's wiring table: the number of each lamp, button and the key.

    Raises ``DriverConfigError`` for a lamp number outside 0..31 (a bit of
    ``PanelLamps``), an input number outside 0..255, or a number used twice.
    """

    leds: Mapping[Led, int]
    buttons: Mapping[Button, int]
    supervisor_key: int

    def __post_init__(self) -> None:
        for label, codes, top in (
            ("lamp", list(self.leds.values()), fb.PANEL_LAMP_BITS - 1),
            ("input", self._inputs(), 0xFF),
        ):
            for code in codes:
                if not 0 <= code <= top:
                    raise DriverConfigError(f"{label} number {code} outside 0..{top}")
            if len(set(codes)) != len(codes):
                raise DriverConfigError(f"{label} numbers used twice: {sorted(codes)}")

    def _inputs(self) -> list[int]:
        return [*self.buttons.values(), self.supervisor_key]

    @staticmethod
    def default() -> PanelCodes:
        """Lamps and buttons numbered in ``drivers.hal`` declaration order from 0."""
        return PanelCodes(
            leds={led: n for n, led in enumerate(Led)},
            buttons={button: n for n, button in enumerate(Button)},
            supervisor_key=DEFAULT_KEY_CODE,
        )


class SerialPanelDriver(SerialDriver):
    """``drivers.hal.DealerPanel`` on a panel board over serial (see the module docstring)."""

    KIND: ClassVar[DeviceKind] = DeviceKind.PANEL

    def __init__(
        self,
        settings: SerialSettings,
        sink: EventSink,
        expected: ExpectedDevice,
        *,
        codes: PanelCodes | None = None,
        **link: Any,
    ) -> None:
        """``codes``: the board's lamp and button numbers; ``link``: the options of
        :class:`SerialDriver` (timing, backoff, station_id, refusal_retry)."""
        super().__init__(settings, sink, expected, **link)
        self.codes = codes or PanelCodes.default()
        self._buttons = {code: button for button, code in self.codes.buttons.items()}
        # Each lamp's bit in PanelLamps, looked up once per lamp shown.
        self._bits = {led: 1 << code for led, code in self.codes.leds.items()}
        self._wanted = (0, 0)  # the (steady, blink) masks asked for
        self._sent: tuple[int, int] | None = None  # (steady, blink) masks the board has
        self._key_on = False

    @property
    def supervisor_key_on(self) -> bool:
        """Whether the supervisor key is turned on (as the board last reported)."""
        return self._key_on

    def show(self, lamps: Mapping[Led, LedMode]) -> None:
        """Light exactly ``lamps``; every numbered lamp not named goes off. While the board
        is away the wanted state is kept and sent when it reconnects.

        Raises:
            TypeError: a key that is not a ``Led`` or a value that is not a ``LedMode``.
        """
        # The station thread's share of every panel state (bench/hil_throughput.py): one
        # dict lookup and two identity tests a lamp, the masks built as it goes.
        bits = self._bits
        steady = blink = 0
        for led, mode in lamps.items():
            bit = bits.get(led)
            if bit is None and not isinstance(led, Led):
                raise TypeError(f"show() takes Led -> LedMode, got {led!r}: {mode!r}")
            if mode is LedMode.STEADY:
                steady |= bit or 0
            elif mode is LedMode.BLINK:
                blink |= bit or 0
            elif mode is not LedMode.OFF:
                raise TypeError(f"show() takes Led -> LedMode, got {led!r}: {mode!r}")
        with self._lock:
            self._wanted = (steady, blink)
            if self.connected:
                self._send_lamps()

    def lamp_mode(self, led: Led) -> LedMode:
        """The mode last asked for ``led`` (OFF for a lamp this board does not have)."""
        bit = self._bits.get(led, 0)
        steady, blink = self._wanted
        if steady & bit:
            return LedMode.STEADY
        return LedMode.BLINK if blink & bit else LedMode.OFF

    def _send_lamps(self) -> None:
        # The whole panel state in one frame (one frame per lamp was 46% of the station's
        # time in bench/hil_throughput.py), and only when it differs from what the board has.
        wanted = self._wanted
        if wanted != self._sent and self._send(fb.PanelLamps(*wanted)):
            self._sent = wanted

    def _on_connected(self) -> None:
        self._sent = None  # the board may have rebooted with every lamp dark
        self._send_lamps()

    def _on_unconfirmed(self, commands: str) -> Iterable[DeviceEvent]:
        # Lamp commands are state, not actions: all lamps are sent again on reconnect.
        return ()

    def _on_message(self, message: fb.Message) -> Iterable[DeviceEvent]:
        # Tuples, not a generator: two or three frames a dealer's action.
        if isinstance(message, fb.ButtonReport):
            return self._button(message.button, message.pressed)
        if isinstance(message, fb.WagerSensorReport):
            spot = _SPOTS[message.spot]
            return (SeatWagerChanged(message.seat, spot, message.present, message.cents),)
        if isinstance(message, fb.WagerSensorScan):
            # One scan of the board's sensors, in the order it read them: the same events,
            # in the same order, as one report each.
            return tuple(
                SeatWagerChanged(r.seat, _SPOTS[r.spot], r.present, r.cents)
                for r in message.reports
            )
        return (DeviceFault(self.KIND, f"unexpected {type(message).__name__} from the panel"),)

    def _button(self, code: int, pressed: bool) -> tuple[DeviceEvent, ...]:
        if code == self.codes.supervisor_key:
            if pressed != self._key_on:
                self._key_on = pressed
                return (SupervisorKey(pressed),)
            return ()
        button = self._buttons.get(code)
        if button is None:
            reason = f"panel reports button {code}, not in its wiring table"
            return (DeviceFault(self.KIND, reason),)
        if not pressed:
            return ()
        if button in SUPERVISOR_BUTTONS and not self._key_on:
            log.warning("supervisor button without key", button=button.value)
            return ()
        return (ButtonPressed(button),)
