"""GpioPanel's inputs and lamps, edge by edge (drivers.panel), on gpiozero's MockFactory.

- Contact bounce is filtered per input: a button, another button, a wager sensor and the
  key each have their own debounce window, and a release counts as an edge too.
- The supervisor key's state is read when the panel starts and reported; a panel without a
  key never takes a supervisor button.
- The panel starts once; what it reports on start names the panel and the pin factory.
- A lamp the panel does not wire reads OFF and asking for it is harmless.
- ``read_supervisor_key`` (``dealer-station pair``) reads the key once and frees the pin.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator

import gpiozero
import pytest
from gpiozero.pins.mock import MockFactory, MockPin
from test_panel import SEAT_PINS, WAIT, Clock

from drivers.hal import (
    Button,
    ButtonPressed,
    DeviceConnected,
    DeviceEvent,
    DeviceFault,
    DeviceKind,
    Led,
    LedMode,
    SeatWagerChanged,
    SupervisorKey,
    WagerSpot,
)
from drivers.panel import GpioPanel, PanelPins, read_supervisor_key

#: A debounce window and clock steps that are exact in binary floating point.
DEBOUNCE = 0.25


class SwitchPin(MockPin):
    """A mock pin with a switch to ground on it: while ``closed`` the line reads low even
    with the pull-up on (the mock's pull-up would drive it high when the pin is claimed)."""

    closed = False

    def _set_pull(self, value: str) -> None:
        super()._set_pull(value)
        if self.closed:
            self.drive_low()


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    mock = MockFactory(pin_class=SwitchPin)
    yield mock
    mock.reset()


def close_switch(factory: MockFactory, pin: int) -> None:
    switch = factory.pin(pin)
    assert isinstance(switch, SwitchPin)
    switch.closed = True
    switch.drive_low()


def started(
    factory: MockFactory, pins: PanelPins = SEAT_PINS
) -> tuple[GpioPanel, Clock, queue.Queue[DeviceEvent]]:
    clock, events = Clock(), queue.Queue[DeviceEvent]()
    panel = GpioPanel(pins, events.put, pin_factory=factory, clock=clock, debounce=DEBOUNCE)
    panel.start()
    return panel, clock, events


def drain(events: queue.Queue[DeviceEvent]) -> list[DeviceEvent]:
    out = []
    while not events.empty():
        out.append(events.get_nowait())
    return out


def test_each_input_has_its_own_debounce_window(factory: MockFactory) -> None:
    pins = PanelPins(
        buttons={Button.NEXT: 17, Button.DOUBLE: 27},
        wagers={(3, WagerSpot.MAIN): 4, (3, WagerSpot.MATCH): 14},
    )
    panel, _, events = started(factory, pins)
    drain(events)
    factory.pin(17).drive_low()
    factory.pin(27).drive_low()  # another button at the same instant
    factory.pin(4).drive_high()
    factory.pin(14).drive_high()  # another spot at the same instant
    assert drain(events) == [
        ButtonPressed(Button.NEXT),
        ButtonPressed(Button.DOUBLE),
        SeatWagerChanged(3, WagerSpot.MAIN, present=True),
        SeatWagerChanged(3, WagerSpot.MATCH, present=True),
    ]
    panel.close()


def test_a_release_is_an_edge_and_the_window_ends_exactly_at_the_debounce(
    factory: MockFactory,
) -> None:
    panel, clock, events = started(factory)
    drain(events)
    pin = factory.pin(17)
    pin.drive_low()  # pressed at 100.0
    clock.now += 1.0
    pin.drive_high()  # released at 101.0
    clock.now += DEBOUNCE / 2
    pin.drive_low()  # bounce of the release: ignored
    pin.drive_high()
    clock.now = 101.0 + DEBOUNCE * 3
    pin.drive_low()  # a new press, long after
    assert drain(events) == [ButtonPressed(Button.NEXT)] * 2
    clock.now += 1.0
    pin.drive_high()  # released
    clock.now += DEBOUNCE  # exactly one window after the release: a real press again
    pin.drive_low()
    assert drain(events) == [ButtonPressed(Button.NEXT)]
    panel.close()


def test_the_key_already_on_at_start_is_reported_and_a_bounce_is_not(
    factory: MockFactory,
) -> None:
    close_switch(factory, 26)  # the supervisor has the key turned before the start
    panel, clock, events = started(factory)
    assert drain(events)[1:] == [SupervisorKey(on=True)]
    assert panel.supervisor_key_on
    factory.pin(26).closed = False  # type: ignore[attr-defined]
    clock.now += 1.0
    factory.pin(26).drive_high()  # the key turned off
    assert drain(events) == [SupervisorKey(on=False)]
    clock.now += DEBOUNCE / 2
    factory.pin(26).drive_low()  # a bounce of the switch: the key stays off
    assert drain(events) == []
    assert not panel.supervisor_key_on
    panel.close()


def test_a_panel_without_a_key_never_takes_a_supervisor_button(factory: MockFactory) -> None:
    pins = PanelPins(buttons={Button.SUPERVISOR_RESUME: 6, Button.NEXT: 17})
    panel, _, events = started(factory, pins)
    assert drain(events) == [DeviceConnected(DeviceKind.PANEL, "gpio", "gpiozero MockFactory")]
    assert not panel.supervisor_key_on
    factory.pin(6).drive_low()
    assert drain(events) == []
    panel.close()


def test_start_is_once_and_names_the_panel_and_its_pin_factory(factory: MockFactory) -> None:
    panel, _, events = started(factory, PanelPins(buttons={Button.NEXT: 17}))
    panel.start()  # already started: nothing claimed twice, nothing reported twice
    assert drain(events) == [DeviceConnected(DeviceKind.PANEL, "gpio", "gpiozero MockFactory")]
    panel.close()
    lamps_only = GpioPanel(PanelPins(leds={Led.DEAL: 5}), events.put, pin_factory=factory)
    lamps_only.start()
    assert drain(events) == [DeviceConnected(DeviceKind.PANEL, "gpio", "gpiozero MockFactory")]
    lamps_only.close()


def test_the_default_pin_factory_is_the_one_named(factory: MockFactory) -> None:
    events = queue.Queue[DeviceEvent]()
    previous = gpiozero.Device.pin_factory
    gpiozero.Device.pin_factory = factory
    try:
        panel = GpioPanel(PanelPins(buttons={Button.NEXT: 17}), events.put)
        panel.start()
        assert drain(events) == [DeviceConnected(DeviceKind.PANEL, "gpio", "gpiozero MockFactory")]
        panel.close()
    finally:
        gpiozero.Device.pin_factory = previous


def test_a_pin_that_cannot_be_claimed_is_a_panel_fault(factory: MockFactory) -> None:
    events = queue.Queue[DeviceEvent]()
    panel = GpioPanel(PanelPins(leds={Led.DEAL: 99}), events.put, pin_factory=factory)
    panel.start()
    (fault,) = drain(events)
    assert isinstance(fault, DeviceFault) and fault.device is DeviceKind.PANEL
    assert fault.reason.startswith("cannot claim GPIO pins: ")
    panel.close()


def test_lamps_read_off_until_shown_and_an_unwired_lamp_is_harmless(
    factory: MockFactory,
) -> None:
    panel, _, _ = started(factory)
    assert panel.lamp_mode(Led.DEAL) is LedMode.OFF  # wired, never shown
    panel.show({Led.PAY: LedMode.STEADY, Led.DEAL: LedMode.STEADY})  # PAY is not wired
    panel.show({Led.PAY: LedMode.BLINK})
    assert panel.lamp_mode(Led.PAY) is LedMode.OFF
    assert panel.lamp_mode(Led.DEAL) is LedMode.OFF
    factory.pin(5).assert_states([False, True, False])
    panel.close()


def test_show_names_what_it_refuses(factory: MockFactory) -> None:
    panel, _, _ = started(factory)
    with pytest.raises(TypeError, match=r"^show\(\) takes Led -> LedMode, got 'deal': "):
        panel.show({"deal": LedMode.STEADY})  # type: ignore[dict-item]
    panel.close()


def test_read_supervisor_key_reads_the_switch_once_and_frees_the_pin(
    factory: MockFactory,
) -> None:
    assert read_supervisor_key(26, factory) is False  # the pull-up holds the line high
    close_switch(factory, 26)  # the key closes the line to ground
    assert read_supervisor_key(26, factory) is True
    # Freed: the panel can claim the same pin afterwards.
    panel, _, events = started(factory, PanelPins(supervisor_key=26))
    assert drain(events)[1:] == [SupervisorKey(on=True)]
    panel.close()
    assert WAIT > 0
