"""The dealer panel on the Raspberry Pi's GPIO header, through gpiozero.

Lamps are ``gpiozero.LED`` (steady, blinking or off), buttons and the supervisor key are
``gpiozero.DigitalInputDevice`` inputs on pull-ups (wired to ground), and seat wager sensors are
``DigitalInputDevice`` inputs that go high while a wager sits on the spot. Pins come from a
:class:`PanelPins` map (BCM numbers or any pin name gpiozero accepts); the pin factory is
gpiozero's default (lgpio on a Pi) or one passed in (``MockFactory`` in tests and in the
simulator).

Debounce is done here, not by the pin factory: gpiozero's mock pins do not implement
``bounce_time`` and the lgpio glitch filter behaves differently from RPi.GPIO, so one
software rule (an edge within ``debounce`` seconds of the last accepted edge of the same
input is contact bounce) holds on every factory and is tested.
"""

from __future__ import annotations

import contextlib
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import gpiozero
import structlog

from drivers.errors import DriverConfigError
from drivers.hal import (
    SUPERVISOR_BUTTONS,
    Button,
    ButtonPressed,
    DeviceConnected,
    DeviceFault,
    DeviceKind,
    EventSink,
    Led,
    LedMode,
    SeatWagerChanged,
    SupervisorKey,
    WagerSpot,
)

log = structlog.get_logger(__name__)

PinName = int | str
SEATS: Final = range(1, 8)


@dataclass(frozen=True, slots=True)
class PanelPins:
    """Which GPIO pin each lamp, button, the key and each wager sensor is wired to.

    Anything left out is not wired: ``show`` ignores an unwired lamp (logged once).
    Raises ``DriverConfigError`` when a pin is used twice or a seat is outside 1..7.
    """

    leds: Mapping[Led, PinName] = field(default_factory=dict)
    buttons: Mapping[Button, PinName] = field(default_factory=dict)
    supervisor_key: PinName | None = None
    wagers: Mapping[tuple[int, WagerSpot], PinName] = field(default_factory=dict)

    def __post_init__(self) -> None:
        used: dict[str, str] = {}
        owners: list[tuple[str, PinName]] = [
            *((f"lamp {led.value}", pin) for led, pin in self.leds.items()),
            *((f"button {button.value}", pin) for button, pin in self.buttons.items()),
            *((f"wager seat {s} {spot.value}", pin) for (s, spot), pin in self.wagers.items()),
        ]
        if self.supervisor_key is not None:
            owners.append(("supervisor key", self.supervisor_key))
        for owner, pin in owners:
            key = f"GPIO{pin}" if isinstance(pin, int) else str(pin).upper()
            if key in used:
                raise DriverConfigError(f"pin {pin} wired twice: {used[key]} and {owner}")
            used[key] = owner
        for seat, _spot in self.wagers:
            if seat not in SEATS:
                raise DriverConfigError(f"wager sensor for seat {seat}: seats are 1..7")

    @staticmethod
    def from_config(table: Mapping[str, Any]) -> PanelPins:
        """Build a pin map from a config table (TOML ``[panel]``):
        ``leds = {deal = 5}``, ``buttons = {next = 17}``, ``supervisor_key = 27``,
        ``wagers = {"1.main" = 2}``. Raises ``DriverConfigError`` naming a bad entry.
        """
        try:
            leds = {Led(name): pin for name, pin in dict(table.get("leds", {})).items()}
            buttons = {Button(name): pin for name, pin in dict(table.get("buttons", {})).items()}
            wagers: dict[tuple[int, WagerSpot], PinName] = {}
            for name, pin in dict(table.get("wagers", {})).items():
                seat, _, spot = str(name).partition(".")
                wagers[int(seat), WagerSpot(spot)] = pin
        except (ValueError, TypeError) as err:
            raise DriverConfigError(f"panel pin map: {err}") from err
        return PanelPins(leds, buttons, table.get("supervisor_key"), wagers)


#: A 40-pin Pi has 26 free GPIOs (BCM 2..27): the dealer's buttons, the key and the
#: prompt lamps. Seat lamps, device-fault lamps and wager sensors need more pins than the
#: header has; wire them where the board has pins and add them to the map.
DEFAULT_PINS: Final = PanelPins(
    buttons={
        Button.NEXT: 17,
        Button.DOUBLE: 27,
        Button.SPLIT: 22,
        Button.SURRENDER: 23,
        Button.RESCUE: 24,
        Button.DEALER_CHANGE: 25,
        Button.DISCLOSE_BURN: 5,
        Button.SUPERVISOR_RESUME: 6,
        Button.SUPERVISOR_VOID: 12,
        Button.SUPERVISOR_RESHUFFLE: 13,
    },
    supervisor_key=26,
    leds={
        Led.SHUFFLE: 2,
        Led.LOAD: 3,
        Led.BURN: 4,
        Led.BETS: 14,
        Led.DEAL: 15,
        Led.INSURANCE: 18,
        Led.PEEK: 16,
        Led.DEALER: 19,
        Led.PAY: 20,
        Led.COLLECT: 21,
        Led.PUSH: 7,
        Led.BONUS: 8,
        Led.RESHUFFLE: 9,
        Led.FAULT: 10,
        Led.SHUFFLER_FAULT: 11,
    },
)


class GpioPanel:
    """The dealer panel driver (``drivers.hal.DealerPanel``)."""

    def __init__(
        self,
        pins: PanelPins,
        sink: EventSink,
        *,
        pin_factory: Any = None,
        debounce: float = 0.03,
        blink_on: float = 0.4,
        blink_off: float = 0.4,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pins = pins
        self._sink = sink
        self._factory = pin_factory
        self._debounce = debounce
        self._blink = (blink_on, blink_off)
        self._clock = clock
        self._lock = threading.Lock()
        self._leds: dict[Led, Any] = {}
        self._modes: dict[Led, LedMode] = {}
        self._inputs: list[Any] = []
        self._wager_sensors: dict[tuple[int, WagerSpot], Any] = {}
        self._last_edge: dict[object, float] = {}
        self._key_on = False
        self._warned: set[Led] = set()

    @property
    def supervisor_key_on(self) -> bool:
        """Whether the supervisor key is turned on."""
        return self._key_on

    def start(self) -> None:
        """Claim the pins and start reporting; a pin that cannot be claimed is a
        ``DeviceFault`` event, not an exception."""
        if self._leds or self._inputs:
            return
        try:
            with _no_fallback_warnings():
                self._claim()
        except (gpiozero.GPIOZeroError, OSError) as err:
            self.close()
            self._sink(DeviceFault(DeviceKind.PANEL, f"cannot claim GPIO pins: {err}"))
            return
        # The pin library in use: the one given, or gpiozero's default, which claiming a
        # pin has set (naming the first input's alone said "NoneType" for a lamps-only map).
        factory = type(self._factory or gpiozero.Device.pin_factory).__name__
        self._sink(DeviceConnected(DeviceKind.PANEL, "gpio", f"gpiozero {factory}"))
        if self.pins.supervisor_key is not None:
            self._sink(SupervisorKey(self._key_on))
        for spot, sensor in self._wager_sensors.items():
            if sensor.is_active:
                self._sink(SeatWagerChanged(spot[0], spot[1], present=True))

    def _claim(self) -> None:
        factory = self._factory
        for led, pin in self.pins.leds.items():
            self._leds[led] = gpiozero.LED(pin, pin_factory=factory)
            self._modes[led] = LedMode.OFF
        # Buttons are plain inputs, not gpiozero.Button: Button runs a hold-detection
        # thread per button that the panel does not use (and that takes 0.1 s to stop).
        for button, pin in self.pins.buttons.items():
            device = gpiozero.DigitalInputDevice(pin, pull_up=True, pin_factory=factory)
            device.when_activated = lambda _d, b=button: self._pressed(b)
            device.when_deactivated = lambda _d, b=button: self._edge(b)
            self._inputs.append(device)
        if self.pins.supervisor_key is not None:
            key = gpiozero.DigitalInputDevice(
                self.pins.supervisor_key, pull_up=True, pin_factory=factory
            )
            key.when_activated = lambda _d: self._key(True)
            key.when_deactivated = lambda _d: self._key(False)
            self._key_on = bool(key.is_active)
            self._inputs.append(key)
        for spot, pin in self.pins.wagers.items():
            sensor = gpiozero.DigitalInputDevice(pin, pull_up=False, pin_factory=factory)
            self._wager_sensors[spot] = sensor
            sensor.when_activated = lambda _d, s=spot: self._wager(s, True)
            sensor.when_deactivated = lambda _d, s=spot: self._wager(s, False)
            self._inputs.append(sensor)

    def close(self) -> None:
        """Turn every lamp off and release the pins; idempotent."""
        with self._lock:
            devices = [*self._leds.values(), *self._inputs]
            self._leds.clear()
            self._inputs.clear()
            self._wager_sensors.clear()
            self._modes.clear()
        for device in devices:
            device.close()

    def show(self, lamps: Mapping[Led, LedMode]) -> None:
        """Light exactly ``lamps``; every wired lamp not named goes off. A lamp already in
        the asked mode is left alone, so a blinking prompt does not restart its rhythm."""
        for led, mode in lamps.items():
            if not isinstance(led, Led) or not isinstance(mode, LedMode):
                raise TypeError(f"show() takes Led -> LedMode, got {led!r}: {mode!r}")
        with self._lock:
            for led, device in self._leds.items():
                mode = lamps.get(led, LedMode.OFF)
                if self._modes.get(led) == mode:
                    continue
                self._modes[led] = mode
                if mode is LedMode.STEADY:
                    device.on()
                elif mode is LedMode.BLINK:
                    device.blink(on_time=self._blink[0], off_time=self._blink[1])
                else:
                    device.off()
            for led, mode in lamps.items():
                if led not in self._leds and mode is not LedMode.OFF and led not in self._warned:
                    self._warned.add(led)
                    log.warning("lamp not wired", lamp=led.value)

    def lamp_mode(self, led: Led) -> LedMode:
        """The mode a wired lamp was last set to (OFF for an unwired lamp)."""
        return self._modes.get(led, LedMode.OFF)

    # --- input callbacks (pin factory's thread) -----------------------------------------

    def _edge(self, source: object) -> bool:
        """Record an edge of ``source``; False when it is contact bounce."""
        now = self._clock()
        last = self._last_edge.get(source)
        if last is not None and now - last < self._debounce:
            return False
        self._last_edge[source] = now
        return True

    def _pressed(self, button: Button) -> None:
        if not self._edge(button):
            return
        if button in SUPERVISOR_BUTTONS and not self._key_on:
            # Supervisor actions need the key (DESIGN: only a supervisor resolves a fault).
            log.warning("supervisor button without key", button=button.value)
            return
        self._sink(ButtonPressed(button))

    def _key(self, on: bool) -> None:
        if not self._edge("supervisor_key") or on == self._key_on:
            return
        self._key_on = on
        self._sink(SupervisorKey(on))

    def _wager(self, spot: tuple[int, WagerSpot], present: bool) -> None:
        if self._edge(spot):
            self._sink(SeatWagerChanged(spot[0], spot[1], present=present))


@contextlib.contextmanager
def _no_fallback_warnings() -> Iterator[None]:
    """gpiozero warns once for each pin library it cannot load before it finds one (or
    raises ``BadPinFactory``): the station says in one line what went wrong, so these
    warnings stay quiet."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpiozero.PinFactoryFallback)
        yield


def read_supervisor_key(pin: PinName, pin_factory: Any = None) -> bool:
    """Whether the supervisor key switch on GPIO ``pin`` is turned on, read once (the
    switch closes the line to ground; an internal pull-up holds it high when off).

    ``dealer-station pair`` asks this while the station is stopped. Raises whatever
    gpiozero raises where there is no GPIO (``BadPinFactory``, without its warnings about
    each pin library it tried first) or the pin is taken.
    """
    with _no_fallback_warnings():
        key = gpiozero.DigitalInputDevice(pin, pull_up=True, pin_factory=pin_factory)
    try:
        return bool(key.is_active)
    finally:
        key.close()
