"""GpioPanel on gpiozero's MockFactory: mock pins driven low/high, lamp states asserted."""

from __future__ import annotations

import contextlib
import queue
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPin

from drivers.errors import DriverConfigError
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
from drivers.panel import DEFAULT_PINS, GpioPanel, PanelPins, read_supervisor_key

WAIT = 5.0


class Clock:
    """A clock the test moves by hand, so debounce is deterministic."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    mock = MockFactory()
    yield mock
    mock.reset()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def events() -> queue.Queue[DeviceEvent]:
    return queue.Queue()


SEAT_PINS = PanelPins(
    leds={Led.DEAL: 5, Led.seat(3): 16},
    buttons={Button.NEXT: 17, Button.SUPERVISOR_RESUME: 6},
    supervisor_key=26,
    wagers={(3, WagerSpot.MAIN): 4, (3, WagerSpot.MATCH): 14},
)


@pytest.fixture
def panel(
    factory: MockFactory, clock: Clock, events: queue.Queue[DeviceEvent]
) -> Iterator[GpioPanel]:
    driver = GpioPanel(
        SEAT_PINS, events.put, pin_factory=factory, clock=clock, blink_on=0.005, blink_off=0.005
    )
    driver.start()
    assert isinstance(events.get(timeout=WAIT), DeviceConnected)
    assert events.get(timeout=WAIT) == SupervisorKey(on=False)
    yield driver
    driver.close()


def press(factory: MockFactory, pin: int, clock: Clock) -> None:
    factory.pin(pin).drive_low()
    clock.now += 0.1
    factory.pin(pin).drive_high()
    clock.now += 0.1


def test_button_press_is_one_event(
    panel: GpioPanel, factory: MockFactory, clock: Clock, events: queue.Queue[DeviceEvent]
) -> None:
    press(factory, 17, clock)
    assert events.get(timeout=WAIT) == ButtonPressed(Button.NEXT)
    assert events.empty()


def test_contact_bounce_is_ignored(
    panel: GpioPanel, factory: MockFactory, clock: Clock, events: queue.Queue[DeviceEvent]
) -> None:
    pin = factory.pin(17)
    pin.drive_low()
    for _ in range(5):  # bounce within 30 ms
        clock.now += 0.002
        pin.drive_high()
        clock.now += 0.002
        pin.drive_low()
    clock.now += 0.2
    pin.drive_high()
    assert events.get(timeout=WAIT) == ButtonPressed(Button.NEXT)
    assert events.empty()


def test_supervisor_button_needs_the_key(
    panel: GpioPanel, factory: MockFactory, clock: Clock, events: queue.Queue[DeviceEvent]
) -> None:
    press(factory, 6, clock)
    assert events.empty()
    factory.pin(26).drive_low()  # key on
    assert events.get(timeout=WAIT) == SupervisorKey(on=True)
    assert panel.supervisor_key_on
    press(factory, 6, clock)
    assert events.get(timeout=WAIT) == ButtonPressed(Button.SUPERVISOR_RESUME)
    clock.now += 1
    factory.pin(26).drive_high()
    assert events.get(timeout=WAIT) == SupervisorKey(on=False)


def test_wager_sensors_report_seat_and_spot(
    panel: GpioPanel, factory: MockFactory, clock: Clock, events: queue.Queue[DeviceEvent]
) -> None:
    factory.pin(4).drive_high()
    assert events.get(timeout=WAIT) == SeatWagerChanged(3, WagerSpot.MAIN, present=True)
    clock.now += 1
    factory.pin(14).drive_high()
    assert events.get(timeout=WAIT) == SeatWagerChanged(3, WagerSpot.MATCH, present=True)
    clock.now += 1
    factory.pin(4).drive_low()
    assert events.get(timeout=WAIT) == SeatWagerChanged(3, WagerSpot.MAIN, present=False)


def test_show_lights_exactly_the_named_lamps(panel: GpioPanel, factory: MockFactory) -> None:
    panel.show({Led.DEAL: LedMode.STEADY})
    panel.show({Led.DEAL: LedMode.STEADY})  # no change: no extra edge
    panel.show({})
    factory.pin(5).assert_states([False, True, False])
    assert panel.lamp_mode(Led.DEAL) is LedMode.OFF


def test_blink_toggles_the_pin_until_changed(panel: GpioPanel, factory: MockFactory) -> None:
    pin = factory.pin(16)
    panel.show({Led.seat(3): LedMode.BLINK})
    toggled = threading.Event()
    for _ in range(int(WAIT / 0.005)):
        if len(pin.states) >= 4:
            toggled.set()
            break
        toggled.wait(0.005)
    assert toggled.is_set(), pin.states
    panel.show({Led.seat(3): LedMode.STEADY})
    assert pin.state == 1
    assert panel.lamp_mode(Led.seat(3)) is LedMode.STEADY


def test_show_rejects_what_is_not_a_lamp(panel: GpioPanel) -> None:
    with pytest.raises(TypeError):
        panel.show({"deal": LedMode.STEADY})  # type: ignore[dict-item]


def test_pin_used_twice_is_a_config_error() -> None:
    with pytest.raises(DriverConfigError, match="wired twice"):
        PanelPins(leds={Led.DEAL: 17}, buttons={Button.NEXT: "GPIO17"})
    with pytest.raises(DriverConfigError, match=r"seats are 1\.\.7"):
        PanelPins(wagers={(8, WagerSpot.MAIN): 4})


def test_pin_map_from_config() -> None:
    pins = PanelPins.from_config(
        {
            "leds": {"deal": 5},
            "buttons": {"next": 17},
            "supervisor_key": 27,
            "wagers": {"2.main": 4},
        }
    )
    assert pins.leds == {Led.DEAL: 5}
    assert pins.wagers == {(2, WagerSpot.MAIN): 4}
    with pytest.raises(DriverConfigError, match="panel pin map"):
        PanelPins.from_config({"buttons": {"stand_up": 3}})


def test_default_pins_fit_the_header(
    factory: MockFactory, events: queue.Queue[DeviceEvent]
) -> None:
    driver = GpioPanel(DEFAULT_PINS, events.put, pin_factory=factory)
    driver.start()
    try:
        assert isinstance(events.get(timeout=WAIT), DeviceConnected)
    finally:
        driver.close()


def test_unclaimable_pin_is_a_fault_event(
    factory: MockFactory, events: queue.Queue[DeviceEvent]
) -> None:
    driver = GpioPanel(PanelPins(leds={Led.DEAL: 99}), events.put, pin_factory=factory)
    driver.start()
    event = events.get(timeout=WAIT)
    assert isinstance(event, DeviceFault)
    assert "99" in event.reason
    driver.close()


def test_wiring_table_in_the_docs_matches_the_default_pins() -> None:
    doc = (Path(__file__).parent.parent / "docs" / "hardware.md").read_text()
    rows = dict(
        re.findall(r"^\| (?:lamp|button|supervisor) ([a-z /]+?)(?: switch)? \| (\d+) \|", doc, re.M)
    )
    wired = {
        **{led.value.replace("_", " "): pin for led, pin in DEFAULT_PINS.leds.items()},
        **{b.value.replace("_", " "): pin for b, pin in DEFAULT_PINS.buttons.items()},
        "key": DEFAULT_PINS.supervisor_key,
    }
    wired["next / stand"] = wired.pop("next")
    assert {name: int(pin) for name, pin in rows.items()} == wired


class DrivenPin(MockPin):
    """A line something outside drives (a sensor, a key switch to ground): its level
    overrides the pull resistor the driver sets, as a driven line does on the board."""

    level: bool | None = None

    def _set_pull(self, value: str) -> None:
        super()._set_pull(value)
        if self.level is not None:
            (self.drive_high if self.level else self.drive_low)()


def test_a_wager_already_on_its_spot_at_start_is_reported(
    factory: MockFactory, clock: Clock, events: queue.Queue[DeviceEvent]
) -> None:
    # The station restarted with chips on seat 3's match spot: the table must know.
    factory.pin(14, pin_class=DrivenPin).level = True
    driver = GpioPanel(SEAT_PINS, events.put, pin_factory=factory, clock=clock)
    driver.start()
    try:
        assert events.get(timeout=WAIT) == DeviceConnected(
            DeviceKind.PANEL, "gpio", "gpiozero MockFactory"
        )
        assert events.get(timeout=WAIT) == SupervisorKey(on=False)
        assert events.get(timeout=WAIT) == SeatWagerChanged(3, WagerSpot.MATCH, present=True)
        assert events.empty()
    finally:
        driver.close()


def test_a_key_already_turned_at_start_is_reported_on(
    factory: MockFactory, clock: Clock, events: queue.Queue[DeviceEvent]
) -> None:
    factory.pin(26, pin_class=DrivenPin).level = False  # the key closes its line to ground
    driver = GpioPanel(SEAT_PINS, events.put, pin_factory=factory, clock=clock)
    driver.start()
    try:
        assert isinstance(events.get(timeout=WAIT), DeviceConnected)
        assert events.get(timeout=WAIT) == SupervisorKey(on=True)
        assert driver.supervisor_key_on
    finally:
        driver.close()


@pytest.mark.parametrize(
    "pins",
    [
        PanelPins(leds={Led.DEAL: 5}),  # lamps only: no input to name the pin library
        PanelPins(buttons={Button.NEXT: 17}),  # one input
    ],
    ids=["lamps-only", "one-button"],
)
def test_a_panel_of_few_pins_connects_once(
    pins: PanelPins, factory: MockFactory, events: queue.Queue[DeviceEvent]
) -> None:
    driver = GpioPanel(pins, events.put, pin_factory=factory)
    driver.start()
    driver.start()  # started again: nothing claimed twice, nothing reported twice
    try:
        assert events.get(timeout=WAIT) == DeviceConnected(
            DeviceKind.PANEL, "gpio", "gpiozero MockFactory"
        )
        assert events.empty()
    finally:
        driver.close()


def test_the_connection_names_gpiozeros_default_pin_library(
    events: queue.Queue[DeviceEvent],
) -> None:
    # No pin factory given: gpiozero's own (on a Pi, lgpio): the journal names what it was.
    previous = Device.pin_factory
    Device.pin_factory = MockFactory()
    driver = GpioPanel(PanelPins(leds={Led.DEAL: 5}), events.put)
    try:
        driver.start()
        assert events.get(timeout=WAIT) == DeviceConnected(
            DeviceKind.PANEL, "gpio", "gpiozero MockFactory"
        )
    finally:
        driver.close()
        Device.pin_factory.reset()
        Device.pin_factory = previous


def test_without_a_key_wired_no_supervisor_button_acts(
    factory: MockFactory, clock: Clock, events: queue.Queue[DeviceEvent]
) -> None:
    # Supervisor actions need the supervisor's key: a panel without one takes none.
    pins = PanelPins(buttons={Button.SUPERVISOR_VOID: 12, Button.NEXT: 17})
    driver = GpioPanel(pins, events.put, pin_factory=factory, clock=clock)
    driver.start()
    try:
        assert isinstance(events.get(timeout=WAIT), DeviceConnected)
        press(factory, 12, clock)
        press(factory, 17, clock)
        assert events.get(timeout=WAIT) == ButtonPressed(Button.NEXT)
        assert events.empty()
    finally:
        driver.close()


def test_a_bounce_on_release_is_no_second_press(
    panel: GpioPanel, factory: MockFactory, clock: Clock, events: queue.Queue[DeviceEvent]
) -> None:
    pin = factory.pin(17)
    pin.drive_low()
    clock.now += 0.1
    pin.drive_high()  # released ...
    clock.now += 0.01
    pin.drive_low()  # ... and bouncing 10 ms later
    clock.now += 0.1
    pin.drive_high()
    assert events.get(timeout=WAIT) == ButtonPressed(Button.NEXT)
    assert events.empty()


def test_a_press_one_debounce_time_after_the_last_edge_counts(
    factory: MockFactory, clock: Clock, events: queue.Queue[DeviceEvent]
) -> None:
    # Debounce 0.25 s (exact in binary): an edge 0.25 s after the last counts.
    pins = PanelPins(buttons={Button.NEXT: 17})
    driver = GpioPanel(pins, events.put, pin_factory=factory, clock=clock, debounce=0.25)
    driver.start()
    try:
        assert isinstance(events.get(timeout=WAIT), DeviceConnected)
        clock.now = 1.0
        factory.pin(17).drive_low()
        assert events.get(timeout=WAIT) == ButtonPressed(Button.NEXT)
        clock.now = 1.125
        factory.pin(17).drive_high()  # within the debounce time: bounce
        clock.now = 1.25
        factory.pin(17).drive_low()
        assert events.get(timeout=WAIT) == ButtonPressed(Button.NEXT)
    finally:
        driver.close()


def test_buttons_and_spots_are_debounced_each_on_its_own(
    panel: GpioPanel, factory: MockFactory, clock: Clock, events: queue.Queue[DeviceEvent]
) -> None:
    # Two buttons, or two spots, changing within 30 ms of each other are two events.
    factory.pin(17).drive_low()
    factory.pin(26).drive_low()  # the key, at the same instant
    factory.pin(4).drive_high()
    factory.pin(14).drive_high()
    assert events.get(timeout=WAIT) == ButtonPressed(Button.NEXT)
    assert events.get(timeout=WAIT) == SupervisorKey(on=True)
    assert events.get(timeout=WAIT) == SeatWagerChanged(3, WagerSpot.MAIN, present=True)
    assert events.get(timeout=WAIT) == SeatWagerChanged(3, WagerSpot.MATCH, present=True)


def test_lamps_start_off_and_an_unwired_lamp_is_off_and_harmless(panel: GpioPanel) -> None:
    assert panel.lamp_mode(Led.DEAL) is LedMode.OFF
    assert panel.lamp_mode(Led.PAY) is LedMode.OFF  # not wired on this panel
    panel.show({Led.PAY: LedMode.STEADY, Led.DEAL: LedMode.BLINK})
    panel.show({Led.PAY: LedMode.STEADY})  # warned once, never an error
    assert panel.lamp_mode(Led.PAY) is LedMode.OFF
    with pytest.raises(TypeError) as refused:
        panel.show({"deal": LedMode.STEADY})  # type: ignore[dict-item]
    assert (
        str(refused.value) == "show() takes Led -> LedMode, got 'deal': <LedMode.STEADY: 'steady'>"
    )


def test_a_pin_wired_twice_names_both_uses() -> None:
    with pytest.raises(DriverConfigError) as refused:
        PanelPins(leds={Led.DEAL: 5}, buttons={Button.NEXT: 5})
    assert str(refused.value) == "pin 5 wired twice: lamp deal and button next"


def test_a_pin_map_may_leave_out_any_kind_of_pin() -> None:
    assert PanelPins.from_config({}) == PanelPins()
    assert PanelPins.from_config({"wagers": {"2.main": 3}}) == PanelPins(
        wagers={(2, WagerSpot.MAIN): 3}
    )
    assert PanelPins.from_config({"leds": {"deal": 5}, "supervisor_key": 26}) == PanelPins(
        leds={Led.DEAL: 5}, supervisor_key=26
    )
    assert PanelPins.from_config({"buttons": {"next": 17}}) == PanelPins(buttons={Button.NEXT: 17})


def test_the_supervisor_key_is_read_once_for_pairing_and_released(factory: MockFactory) -> None:
    # `dealer-station pair` asks it with the station stopped: the switch closes the line to
    # ground when turned on; the internal pull-up holds it high when off.
    key = factory.pin(26, pin_class=DrivenPin)
    assert read_supervisor_key(26, pin_factory=factory) is False  # off: pulled up
    key.level = False
    assert read_supervisor_key(26, pin_factory=factory) is True  # on: to ground
    key.level = True
    assert read_supervisor_key("GPIO26", pin_factory=factory) is False
    # Released each time: the panel can claim the pin afterwards.
    seen: list[DeviceEvent] = []
    panel = GpioPanel(PanelPins(supervisor_key=26), seen.append, pin_factory=factory)
    panel.start()
    panel.close()
    assert isinstance(seen[0], DeviceConnected)


def test_the_key_on_a_buttons_pin_is_refused_naming_both() -> None:
    with pytest.raises(DriverConfigError) as refused:
        PanelPins(buttons={Button.NEXT: 26}, supervisor_key=26)
    assert str(refused.value) == "pin 26 wired twice: button next and supervisor key"


def test_a_wager_sensor_name_is_a_seat_then_a_spot_and_a_wrong_spot_is_named() -> None:
    # "<seat>.<spot>": what follows the first dot is the spot, so a name with a stray part
    # is refused naming the spot the technician wrote, not a seat number that is not one.
    with pytest.raises(DriverConfigError) as refused:
        PanelPins.from_config({"wagers": {"3.main.left": 4}})
    assert str(refused.value) == "panel pin map: 'main.left' is not a valid WagerSpot"
    with pytest.raises(DriverConfigError) as refused:
        PanelPins.from_config({"wagers": {"3": 4}})
    assert str(refused.value) == "panel pin map: '' is not a valid WagerSpot"


@contextlib.contextmanager
def blinking_panel(factory: MockFactory, **blink: float) -> Iterator[GpioPanel]:
    """A started GPIO panel on SEAT_PINS (``blink_on``, ``blink_off`` as given); closed after."""
    driver = GpioPanel(SEAT_PINS, queue.Queue[DeviceEvent]().put, pin_factory=factory, **blink)
    driver.start()
    try:
        yield driver
    finally:
        driver.close()


def test_a_blinking_prompt_shown_again_and_again_keeps_blinking(factory: MockFactory) -> None:
    # The procedure shows the panel at every change of the table, often several times a
    # second: a prompt that restarted its blink at each show would stay lit (the blink
    # starts lit), and the dealer would read a steady lamp instead of a prompt.
    pin = factory.pin(5)
    with blinking_panel(factory, blink_on=0.2, blink_off=0.2) as driver:
        driver.show({Led.DEAL: LedMode.BLINK})
        went_dark = threading.Event()
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline and not went_dark.is_set():
            driver.show({Led.DEAL: LedMode.BLINK})
            seen = [state for _, state in pin.states]
            if True in seen and False in seen[seen.index(True) :]:
                went_dark.set()
            went_dark.wait(0.02)
    assert went_dark.is_set(), pin.states


def first_blink(factory: MockFactory, **blink: float) -> tuple[float, float]:
    """How long the deal lamp's first blink stays lit, then dark (seconds, from the pin's
    log: a mock pin logs each change with the time since the change before it)."""
    pin = factory.pin(5)
    with blinking_panel(factory, **blink) as driver:
        driver.show({Led.DEAL: LedMode.BLINK})
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            edges = [(at, state) for at, state in pin.states]
            lit = next((i for i, (_, state) in enumerate(edges) if state), None)
            if lit is not None and len(edges) >= lit + 3:
                return edges[lit + 1][0], edges[lit + 2][0]
            threading.Event().wait(0.02)
    raise AssertionError(pin.states)


def test_a_prompt_blinks_four_tenths_on_and_four_tenths_off(factory: MockFactory) -> None:
    # docs/hardware.md: blink 0.4 s on / 0.4 s off (gpiozero's own default is 1 s each).
    # A loaded CPU only makes a phase longer, so each is checked from 0.4 s to below 1 s.
    on, off = first_blink(factory)
    assert 0.4 <= on < 1.0 and 0.4 <= off < 1.0, (on, off)


def test_a_prompt_blinks_at_the_times_the_panel_is_given(factory: MockFactory) -> None:
    on, off = first_blink(factory, blink_on=0.1, blink_off=0.6)
    assert 0.1 <= on < 0.5 and 0.6 <= off < 1.0, (on, off)
