"""ShoeDriver against ShoeDouble across a real pty: cards, cover card, faults, recovery."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.rules.cards import Card, parse_card
from drivers.device_link import ExpectedDevice
from drivers.errors import DriverConfigError
from drivers.hal import (
    CardDrawn,
    CoverCardSeen,
    DeviceConnected,
    DeviceFault,
    DeviceKind,
    DeviceLost,
    ForeignCardDrawn,
    ShoeEmpty,
    ShoeLoaded,
)
from drivers.serial_transport import SerialSettings
from drivers.shoe import ShoeDriver
from drivers.simulated.recorder import EventRecorder
from drivers.simulated.rig import FAST_BACKOFF, FAST_TIMING
from drivers.simulated.shoe import COVER, ShoeDouble

SERIAL = "SHOE-0001"


class Table:
    """A shoe double and the real driver, connected."""

    def __init__(self, path: Path, *, connect: bool = True) -> None:
        self.events = EventRecorder()
        self.double = ShoeDouble(path, SERIAL, timing=FAST_TIMING, seed=11)
        self.driver = ShoeDriver(
            self.double.settings,
            self.events,
            ExpectedDevice(SERIAL),
            decks=6,
            timing=FAST_TIMING,
            backoff=FAST_BACKOFF,
            refusal_retry=0.05,
        )
        if connect:
            self.driver.start()
            assert self.events.expect(DeviceConnected).serial_number == SERIAL

    def deal(self, count: int) -> list[Card]:
        dealt = []
        for _ in range(count):
            item = self.double.deal()
            assert isinstance(item, Card)
            dealt.append(item)
        return dealt

    def cards(self, count: int) -> list[Card]:
        return [event.card for event in self.events.take(CardDrawn, count)]

    def close(self) -> None:
        self.driver.close()
        self.double.close()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    t = Table(tmp_path / "shoe")
    yield t
    t.close()


def assert_no_more_cards(table: Table) -> None:
    """A marker after everything else: any duplicate would arrive before it, in order."""
    table.double.load([], cover_at=None)
    event = table.events.next()
    assert isinstance(event, ShoeLoaded), event


def test_whole_shuffled_shoe_arrives_in_order_with_cover_and_empty(table: Table) -> None:
    table.double.load_shuffled(decks=6, seed=3, cover_at=250)
    assert isinstance(table.events.next(), ShoeLoaded)
    drawn: list[object] = []
    while (item := table.double.deal()) is not None:
        drawn.append(item)
    assert len(drawn) == 6 * 48 + 1
    expected = [CoverCardSeen() if item == COVER else CardDrawn(item) for item in drawn]  # type: ignore[arg-type]
    received = [table.events.next() for _ in expected]
    assert received == expected
    assert isinstance(table.events.next(), ShoeEmpty)


def test_foreign_ten_is_reported_as_foreign(table: Table) -> None:
    table.double.deal_ten("H")
    event = table.events.expect(ForeignCardDrawn)
    assert "10" in event.description


def test_a_card_beyond_six_decks_is_a_duplicate(table: Table) -> None:
    seven = parse_card("7S")
    table.double.load([seven] * 6)
    table.deal(6)
    assert table.cards(6) == [seven] * 6
    table.double.repeat_last()
    event = table.events.expect(ForeignCardDrawn)
    assert "duplicate card 7S" in event.description


def test_unplug_and_replug_loses_and_repeats_nothing(table: Table) -> None:
    table.double.load_shuffled(seed=5)
    first = table.deal(10)
    assert table.cards(10) == first
    assert table.double.wait_idle()
    table.double.unplug()
    assert table.events.expect(DeviceLost).device is DeviceKind.SHOE
    while_unplugged = table.deal(5)  # the shoe buffers what it sees
    table.double.plug()
    table.events.expect(DeviceConnected)
    after = table.deal(5)
    assert table.cards(10) == while_unplugged + after
    assert_no_more_cards(table)


def test_silent_shoe_is_lost_then_recovers_without_duplicates(table: Table) -> None:
    table.double.load_shuffled(seed=6)
    assert table.double.wait_idle()
    table.double.silent = True
    lost = table.events.expect(DeviceLost)
    assert "silent" in lost.reason
    during = table.deal(3)
    table.double.silent = False
    table.events.expect(DeviceConnected)
    assert table.cards(3) == during
    assert_no_more_cards(table)


def test_power_cycled_shoe_is_lost_and_reconnects(table: Table) -> None:
    table.double.load_shuffled(seed=12)
    table.events.expect(ShoeLoaded)
    assert table.double.wait_idle()
    table.double.power_cycle()
    table.events.expect(DeviceLost)
    table.events.expect(DeviceConnected)
    dealt = table.deal(3)
    assert table.cards(3) == dealt
    assert table.double.sessions == 2


def test_corrupted_frames_are_retransmitted(table: Table) -> None:
    table.double.load_shuffled(seed=7)
    table.events.expect(ShoeLoaded)
    table.double.noise.corrupt_next(5)
    dealt = table.deal(20)
    assert table.cards(20) == dealt
    assert table.driver.stats.dropped >= 1
    assert_no_more_cards(table)


def test_noisy_line_delivers_every_card_once(table: Table) -> None:
    noise = table.double.noise
    noise.split_rate = noise.corrupt_rate = noise.drop_rate = noise.duplicate_rate = 0.05
    table.double.load_shuffled(seed=8)
    table.events.expect(ShoeLoaded)
    dealt = table.deal(150)
    assert table.cards(150) == dealt
    assert noise.chunks_damaged > 0
    assert_no_more_cards(table)


def test_dropped_acks_make_retransmits_that_are_not_delivered_twice(table: Table) -> None:
    table.double.load_shuffled(seed=9)
    table.events.expect(ShoeLoaded)
    assert table.double.wait_idle()
    dealt = []
    for _ in range(5):
        # Fewer lost acks than max_tries: recovered within the session.
        table.double.drop_acks(2)
        dealt += table.deal(1)
        assert table.double.wait_idle()
    assert table.cards(5) == dealt
    assert table.double.stats.retransmits >= 5
    assert table.driver.stats.duplicates >= 5
    assert_no_more_cards(table)


def test_wrong_serial_number_is_refused_then_accepted_when_fixed(tmp_path: Path) -> None:
    table = Table(tmp_path / "shoe", connect=False)
    try:
        table.double.hello_serial = "SHOE-9999"
        table.driver.start()
        fault = table.events.expect(DeviceFault)
        assert fault.details["expected_serial_number"] == SERIAL
        assert fault.details["found_serial_number"] == "SHOE-9999"
        assert "SHOE-9999" in fault.reason
        table.double.load([parse_card("4C")])
        table.double.deal()  # seen while refused: held, never accepted by the station
        table.double.hello_serial = SERIAL
        assert table.events.expect(DeviceConnected).serial_number == SERIAL
        assert isinstance(table.events.next(), ShoeLoaded)
        assert table.events.next() == CardDrawn(parse_card("4C"))
        assert isinstance(table.events.next(), ShoeEmpty)
    finally:
        table.close()


def test_old_protocol_version_is_refused(tmp_path: Path) -> None:
    table = Table(tmp_path / "shoe", connect=False)
    try:
        table.double.wire_version = 0
        table.driver.start()
        fault = table.events.expect(DeviceFault)
        assert "protocol version 0" in fault.reason
        assert fault.details["found_protocol_version"] == "0"
        assert fault.details["expected_protocol_version"] == "1"
        assert not table.driver.connected
        table.double.wire_version = 1
        table.events.expect(DeviceConnected)
    finally:
        table.close()


def test_missing_shoe_is_lost_until_it_appears(tmp_path: Path) -> None:
    events = EventRecorder()
    driver = ShoeDriver(
        SerialSettings(str(tmp_path / "shoe")),
        events,
        ExpectedDevice(SERIAL),
        timing=FAST_TIMING,
        backoff=FAST_BACKOFF,
    )
    driver.start()
    double = None
    try:
        assert "no such serial port" in events.expect(DeviceLost).reason
        double = ShoeDouble(tmp_path / "shoe", SERIAL, timing=FAST_TIMING)
        events.expect(DeviceConnected)
    finally:
        driver.close()
        if double is not None:
            double.close()


def test_shoe_size_is_checked() -> None:
    with pytest.raises(DriverConfigError):
        ShoeDriver(SerialSettings("/dev/null"), EventRecorder(), ExpectedDevice(SERIAL), decks=7)


def test_a_whole_shoe_through_seeded_faults_arrives_exactly_once(table: Table) -> None:
    """A 6-deck shoe dealt while seeded faults hit: line damage (one fault at a time, each within
    what retransmission absorbs) and cable pulls at quiet moments. Every card arrives once,
    in order, and the only losses reported are the cable pulls."""
    rnd = random.Random(2026)
    double, events = table.double, table.events
    double.load_shuffled(decks=6, seed=2026, cover_at=220)
    events.expect(ShoeLoaded)
    dealt: list[object] = []
    unplugs = 0
    while double.remaining:
        fault = rnd.randrange(10)
        if fault < 5 and double.wait_idle():
            if fault == 0:
                double.noise.corrupt_next(rnd.randint(1, 3))
            elif fault == 1:
                double.drop_acks(2)
            elif fault == 2:
                double.duplicate_acks(2)
            elif fault == 3:
                double.noise.split_rate = 0.5 if double.noise.split_rate == 0 else 0.0
            else:
                unplugs += 1
                double.unplug()
                dealt += [double.deal() for _ in range(rnd.randint(0, 3)) if double.remaining]
                double.plug()
        if double.remaining:
            dealt.append(double.deal())
    expected = [CoverCardSeen() if item == COVER else CardDrawn(item) for item in dealt]  # type: ignore[arg-type]
    received: list[object] = []
    link_events: list[object] = []
    while len(received) < len(expected):
        event = events.next()
        (link_events if isinstance(event, DeviceConnected | DeviceLost) else received).append(event)
    assert received == expected
    assert isinstance(events.next(), ShoeEmpty)
    assert unplugs > 5
    assert sum(isinstance(e, DeviceLost) for e in link_events) == unplugs
    assert_no_more_cards(table)
