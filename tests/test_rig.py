"""SimulatedRig: the real drivers of a whole station against every double at once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.rules.cards import Card, parse_card
from drivers.hal import (
    Button,
    ButtonPressed,
    CardDrawn,
    DeviceConnected,
    DeviceFault,
    DeviceKind,
    DeviceLost,
    Led,
    LedMode,
    PeekAnswer,
    PeekResult,
    PeekTarget,
    SeatWagerChanged,
    ShoeLoaded,
    ShuffleDone,
    SupervisorKey,
    WagerSpot,
)
from drivers.panel import DEFAULT_PINS, PanelPins
from drivers.registry import DEVICES
from drivers.simulated.recorder import EventRecorder
from drivers.simulated.rig import RigDrivers, RigFault, SimulatedRig

PINS = PanelPins(
    leds=dict(DEFAULT_PINS.leds),
    buttons=dict(DEFAULT_PINS.buttons),
    supervisor_key=DEFAULT_PINS.supervisor_key,
    wagers={},
)


@pytest.fixture
def station() -> Iterator[tuple[SimulatedRig, RigDrivers, EventRecorder]]:
    events = EventRecorder()
    with SimulatedRig(seed=3, panel_pins=PINS) as rig:
        drivers = rig.build_drivers(events)
        drivers.start()
        try:
            connected = {events.expect(DeviceConnected).device for _ in DEVICES}
            assert connected == set(DeviceKind)
            yield rig, drivers, events
        finally:
            drivers.close()


def test_one_round_of_device_traffic(
    station: tuple[SimulatedRig, RigDrivers, EventRecorder],
) -> None:
    rig, drivers, events = station
    drivers.shuffler.shuffle(6)
    assert events.expect(ShuffleDone).card_count == 288
    rig.shoe.load_shuffled(decks=6, seed=3)
    events.expect(ShoeLoaded)
    dealt = [rig.shoe.deal() for _ in range(4)]
    assert [e.card for e in events.take(CardDrawn, 4)] == dealt
    hole = dealt[3]
    assert isinstance(hole, Card)
    rig.card_reader.set_hole_card(parse_card("AS"))
    drivers.card_reader.check(PeekTarget.LOOKING_FOR_ACE)
    assert events.expect(PeekResult).answer is PeekAnswer.BLACKJACK
    drivers.panel.show({Led.DEAL: LedMode.BLINK, Led.FAULT: LedMode.STEADY})
    assert rig.pin_factory.pin(DEFAULT_PINS.leds[Led.FAULT]).state == 1
    rig.press(Button.NEXT)
    rig.press(Button.NEXT)  # a simulated dealer presses fast: both count
    assert events.take(ButtonPressed, 2) == [ButtonPressed(Button.NEXT)] * 2
    rig.turn_key(True)
    assert events.expect(SupervisorKey) == SupervisorKey(on=True)


def test_wager_sensors_through_the_rig() -> None:
    events = EventRecorder()
    pins = PanelPins(wagers={(1, WagerSpot.MAIN): 4}, supervisor_key=26)
    with SimulatedRig(panel_pins=pins) as rig:
        drivers = rig.build_drivers(events)
        drivers.panel.start()
        try:
            rig.place_wager(1, WagerSpot.MAIN)
            assert events.expect(SeatWagerChanged) == SeatWagerChanged(1, WagerSpot.MAIN, True)
            rig.turn_key(True)
            rig.turn_key(False)
            assert SupervisorKey(False) in events.history  # the key's state at start
            assert events.take(SupervisorKey, 2) == [SupervisorKey(True), SupervisorKey(False)]
        finally:
            drivers.close()


#: What the station sees when each fault starts, and whether clearing it reconnects.
FAULTS: dict[RigFault, tuple[list[type], bool]] = {
    RigFault.SHOE_UNPLUGGED: ([DeviceLost], True),
    RigFault.SHOE_SILENT: ([DeviceLost], True),
    RigFault.SHOE_LINE_NOISE: ([], False),
    RigFault.SHOE_ACKS_LOST: ([], False),
    RigFault.SHOE_WRONG_SERIAL: ([DeviceLost, DeviceFault], True),
    RigFault.SHOE_OLD_PROTOCOL: ([DeviceLost, DeviceFault], True),
    RigFault.SHUFFLER_UNPLUGGED: ([DeviceLost], True),
    RigFault.SHUFFLER_JAMMED: ([DeviceFault], False),
    RigFault.SHUFFLER_DOOR_OPEN: ([DeviceFault], False),
    RigFault.SHUFFLER_SLOW: ([], False),
    RigFault.READER_UNPLUGGED: ([DeviceLost], True),
    RigFault.READER_SILENT: ([DeviceLost], True),
    RigFault.READER_MISREAD: ([], False),
    RigFault.READER_SLOW: ([], False),
    RigFault.READER_ACKS_DUPLICATED: ([], False),
}


@pytest.mark.parametrize("fault", list(RigFault))
def test_each_rig_fault_is_reported_and_cleared(fault: RigFault) -> None:
    events = EventRecorder()
    with SimulatedRig(seed=5, panel_pins=PanelPins(leds={Led.DEAL: 5})) as rig:
        drivers = rig.build_drivers(events, refusal_retry=0.05)
        drivers.start()
        try:
            for _ in DEVICES:
                events.expect(DeviceConnected)
            device = fault.value.split("_")[0]
            if device == "shoe":
                rig.shoe.load([parse_card("2C"), parse_card("3C")])
                events.expect(ShoeLoaded)
                assert rig.shoe.wait_idle()
            seen, reconnects = FAULTS[fault]
            rig.inject(fault)
            for kind in seen:
                assert isinstance(events.next(), kind)
            rig.clear(fault)
            if reconnects:
                events.expect(DeviceConnected)
            if device == "shoe":
                rig.shoe.deal()
                assert events.expect(CardDrawn).card == parse_card("2C")
            elif device == "shuffler":
                drivers.shuffler.shuffle(8)
                assert events.expect(ShuffleDone).card_count == 384
            else:
                rig.card_reader.set_hole_card(parse_card("KD"))
                drivers.card_reader.check(PeekTarget.LOOKING_FOR_TEN)
                if fault is RigFault.READER_MISREAD:
                    assert events.expect(PeekResult).answer is PeekAnswer.READ_ERROR
                    drivers.card_reader.check(PeekTarget.LOOKING_FOR_TEN)
                assert events.expect(PeekResult).answer is PeekAnswer.BLACKJACK
            assert not [e for e in events.pending() if isinstance(e, DeviceFault | DeviceLost)]
        finally:
            drivers.close()


def test_rig_with_a_panel_board_senses_every_seat() -> None:
    events = EventRecorder()
    with SimulatedRig(panel_board=True) as rig:
        drivers = rig.build_drivers(events)
        drivers.start()
        try:
            assert {events.expect(DeviceConnected).device for _ in DEVICES} == set(DeviceKind)
            drivers.panel.show({Led.seat(7): LedMode.BLINK})
            board = rig.panel_board
            assert board is not None
            assert board.wait_for(lambda: board.lamp(Led.seat(7)) is LedMode.BLINK, 5.0)
            rig.place_wager(7, WagerSpot.MATCH, cents=500)
            assert events.expect(SeatWagerChanged) == SeatWagerChanged(
                7, WagerSpot.MATCH, True, 500
            )
            rig.turn_key(True)
            rig.press(Button.SUPERVISOR_RESHUFFLE)
            assert events.expect(ButtonPressed) == ButtonPressed(Button.SUPERVISOR_RESHUFFLE)
        finally:
            drivers.close()
