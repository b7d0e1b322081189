"""ShoeDriver against ShoeDouble across a real pty: cards, cover card, faults, recovery."""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import firmware_bridge as fb
from controller.rules.cards import Card, parse_card
from drivers.device_link import ExpectedDevice
from drivers.errors import DriverConfigError
from drivers.hal import (
    CardDrawn,
    CoverCardSeen,
    DeviceConnected,
    DeviceEvent,
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
#: The pairing secret the doubles and the drivers share in these tests.
SECRET = bytes(range(32))


class Table:
    """A shoe double and the real driver, connected."""

    def __init__(
        self,
        path: Path,
        *,
        connect: bool = True,
        then: Callable[[DeviceEvent], None] | None = None,
    ) -> None:
        """``then``: called with each event once it is recorded (in the link's thread)."""
        self.events = EventRecorder()
        self.double = ShoeDouble(path, SERIAL, timing=FAST_TIMING, seed=11, secret=SECRET)

        def sink(event: DeviceEvent) -> None:
            self.events(event)
            if then is not None:
                then(event)

        self.driver = ShoeDriver(
            self.double.settings,
            sink,
            ExpectedDevice(SERIAL, secret=SECRET),
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


def parse_cards(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


def delivered(table: Table) -> list[object]:
    """Every card-side event delivered since the start (link events left out), once a
    marker (an empty load) that follows them all has arrived; the marker is not listed.
    Callers have taken their own ``ShoeLoaded`` already."""
    table.double.load([], cover_at=None)
    table.events.expect(ShoeLoaded)
    history = table.events.history[:-1]
    return [e for e in history if not isinstance(e, DeviceConnected | DeviceLost)]


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
    seven, eight = parse_card("7S"), parse_card("8H")
    table.double.load([seven] * 6 + [eight])
    table.deal(6)
    assert table.cards(6) == [seven] * 6
    table.double.deal_code(7, "S")  # a seventh 7S from another deck: a draw of its own
    event = table.events.expect(ForeignCardDrawn)
    assert "duplicate card 7S" in event.description
    table.deal(1)
    assert table.events.next() == CardDrawn(eight)  # no gap: the stray card had its number


def test_a_double_read_is_dropped_as_a_repeat(table: Table) -> None:
    table.double.load(parse_cards("7S 8H"))
    table.events.expect(ShoeLoaded)
    table.deal(1)
    table.double.repeat_last()  # the sensor reads 7S twice: same card, same draw number
    table.deal(1)
    assert delivered(table) == [
        ShoeLoaded(),
        CardDrawn(parse_card("7S")),
        CardDrawn(parse_card("8H")),
        ShoeEmpty(),
    ]
    assert table.driver.repeats == 1


def lose_session_after_delivery(table: Table) -> Card | str | None:
    """Draw the next item while every ack of it is lost: the station delivers it, the shoe
    gives up its session with the report unconfirmed and sends it again in the next one."""
    assert table.double.wait_idle()
    table.double.drop_acks(FAST_TIMING.max_tries)
    item = table.double.deal()
    table.events.expect(DeviceLost)
    table.events.expect(DeviceConnected)
    assert table.double.wait_idle()
    return item


def test_a_session_lost_before_the_ack_delivers_every_draw_once(table: Table) -> None:
    table.double.load(parse_cards("7S 8H 9D KC"), cover_at=2)
    table.events.expect(ShoeLoaded)
    table.double.deal()
    lose_session_after_delivery(table)  # 8H
    assert lose_session_after_delivery(table) == COVER
    table.deal(2)
    assert table.double.sessions == 3
    assert delivered(table) == [
        ShoeLoaded(),
        *(CardDrawn(card) for card in parse_cards("7S 8H")),
        CoverCardSeen(),
        *(CardDrawn(card) for card in parse_cards("9D KC")),
        ShoeEmpty(),
    ]
    assert table.driver.repeats == 2


def test_a_load_and_a_card_sent_again_are_each_delivered_once(table: Table) -> None:
    assert table.double.wait_idle()
    # However the station groups its acks, this many losses end the session with the load
    # report and the first card unconfirmed (the shoe may lose more sessions after that).
    table.double.drop_acks(2 * FAST_TIMING.max_tries)
    table.double.load(parse_cards("7S 8H"))
    table.double.deal()
    table.events.expect(DeviceLost)
    assert table.double.wait_for(lambda: table.double.sessions >= 2, 5.0)
    assert table.double.wait_idle()
    table.deal(1)
    assert delivered(table) == [
        ShoeLoaded(),  # the repeated load report did not restart the draw count...
        CardDrawn(parse_card("7S")),  # ...so the repeated 7S was dropped as well
        CardDrawn(parse_card("8H")),
        ShoeEmpty(),
    ]
    assert table.driver.repeats >= 2


def test_reports_lost_with_a_power_cycle_are_a_gap(table: Table) -> None:
    table.double.load(parse_cards("7S 8H 9D KC 2C 3C"))
    table.deal(2)
    assert table.double.wait_idle()
    table.double.unplug()
    table.events.expect(DeviceLost)
    table.deal(3)  # buffered by the shoe for the next session...
    table.double.power_cycle()  # ...and gone with its restart
    table.double.plug()
    table.events.expect(DeviceConnected)
    table.deal(1)
    fault = table.events.expect(DeviceFault)
    assert fault.details == {"expected_draw": "3", "found_draw": "6"}
    assert "expected draw 3, found draw 6" in fault.reason
    assert table.events.next() == CardDrawn(parse_card("3C"))  # the card itself still counts
    assert isinstance(table.events.next(), ShoeEmpty)


def test_a_shoe_that_lost_its_count_faults_instead_of_dropping_a_card(table: Table) -> None:
    table.double.load(parse_cards("7S 8H"))
    table.deal(2)
    table.double.restock(parse_cards("KC"))  # counts from 0 again without a load report
    table.deal(1)
    fault = table.events.expect(DeviceFault)
    assert "draw 1 again as something else" in fault.reason
    assert "KC" not in fault.reason and "7S" not in fault.reason  # it may be the hole card
    assert table.events.next() == CardDrawn(parse_card("KC"))


def feed(driver: ShoeDriver, *messages: fb.Message | str) -> list[object]:
    """What the driver makes of these messages (a str: a card report rejected for that
    reason), without a link: the draw-number bookkeeping alone."""
    events: list[object] = []
    for message in messages:
        if isinstance(message, str):
            events.append(driver._on_rejected(message, fb.CardDrawnReport.TYPE_ID))
        else:
            events.extend(driver._on_message(message))
    return events


def offline_driver() -> ShoeDriver:
    expected = ExpectedDevice(SERIAL, secret=SECRET)
    return ShoeDriver(SerialSettings("/dev/null"), EventRecorder(), expected)


def test_a_station_started_mid_shoe_takes_the_first_number_it_hears() -> None:
    driver = offline_driver()
    seven = fb.CardDrawnReport(7, "S", 57)
    assert feed(driver, seven, fb.CoverCardReport(58), seven) == [
        CardDrawn(parse_card("7S")),
        CoverCardSeen(),
    ]
    (gap,) = feed(driver, fb.CardDrawnReport(8, "H", 60))[:1]
    assert isinstance(gap, DeviceFault) and gap.details["expected_draw"] == "59"


def test_an_unreadable_card_report_is_not_counted_twice_as_a_gap() -> None:
    driver = offline_driver()
    events = feed(
        driver,
        fb.ShoeLoadedReport(1),
        fb.CardDrawnReport(7, "S", 1),
        "rank 15 is outside 1..13",  # draw 2: its number could not be read
        fb.CardDrawnReport(8, "H", 3),
    )
    assert events[2] == ForeignCardDrawn("unreadable card code: rank 15 is outside 1..13")
    assert events[3:] == [CardDrawn(parse_card("8H"))]


def test_a_repeated_load_report_keeps_the_draw_count() -> None:
    driver = offline_driver()
    seven = fb.CardDrawnReport(7, "S", 1)
    events = feed(driver, fb.ShoeLoadedReport(4), seven, fb.ShoeLoadedReport(4), seven)
    assert events == [ShoeLoaded(), CardDrawn(parse_card("7S"))]
    assert feed(driver, fb.ShoeLoadedReport(5), seven) == events  # a new load starts over


def test_shoe_empty_is_checked_against_the_last_draw() -> None:
    driver = offline_driver()
    loads = iter(range(1, 4))

    def load() -> list[fb.Message]:
        return [fb.ShoeLoadedReport(next(loads)), fb.CardDrawnReport(7, "S", 1)]

    assert feed(driver, *load(), fb.ShoeEmptyReport(1), fb.ShoeEmptyReport(1)) == [
        ShoeLoaded(),
        CardDrawn(parse_card("7S")),
        ShoeEmpty(),  # once: the second is a repeat
    ]
    assert driver.repeats == 1
    lost, empty = feed(driver, *load(), fb.ShoeEmptyReport(3))[2:]
    assert isinstance(lost, DeviceFault) and empty == ShoeEmpty()
    assert lost.details == {"expected_draw": "2", "found_draw": "3"}
    (backwards,) = feed(driver, *load(), fb.CardDrawnReport(8, "H", 2), fb.ShoeEmptyReport(1))[3:]
    assert isinstance(backwards, DeviceFault) and "empty after draw 1" in backwards.reason


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
        # Version 1 had no authentication: a device speaking it is refused outright.
        table.double.wire_version = 1
        table.driver.start()
        fault = table.events.expect(DeviceFault)
        assert "protocol version 1" in fault.reason
        assert fault.details["found_protocol_version"] == "1"
        assert fault.details["expected_protocol_version"] == "2"
        assert not table.driver.connected
        table.double.wire_version = 2
        table.events.expect(DeviceConnected)
    finally:
        table.close()


def test_missing_shoe_is_lost_until_it_appears(tmp_path: Path) -> None:
    events = EventRecorder()
    driver = ShoeDriver(
        SerialSettings(str(tmp_path / "shoe")),
        events,
        ExpectedDevice(SERIAL, secret=SECRET),
        timing=FAST_TIMING,
        backoff=FAST_BACKOFF,
    )
    driver.start()
    double = None
    try:
        assert "no such serial port" in events.expect(DeviceLost).reason
        double = ShoeDouble(tmp_path / "shoe", SERIAL, timing=FAST_TIMING, secret=SECRET)
        events.expect(DeviceConnected)
    finally:
        driver.close()
        if double is not None:
            double.close()


def test_shoe_size_is_checked() -> None:
    # A Spanish 21 shoe holds 6 or 8 decks of 48 cards; the technician is told which
    # number was given.
    expected = ExpectedDevice(SERIAL, secret=SECRET)
    with pytest.raises(DriverConfigError) as refused:
        ShoeDriver(SerialSettings("/dev/null"), EventRecorder(), expected, decks=7)
    assert str(refused.value) == "a Spanish 21 shoe holds 6 or 8 decks, not 7"
    for decks in (6, 8):
        driver = ShoeDriver(SerialSettings("/dev/null"), EventRecorder(), expected, decks=decks)
        assert driver.decks == decks


def _loss_kind(reason: str) -> str:
    """A link loss as the seeded-fault test counts it: the port, a timer, or the text.

    A pulled cable reaches the reader as a readable port with no data or, when the pull
    lands inside the read, as the read's own error (EIO on a pty whose other end is gone):
    both are the port."""
    if "returned no data" in reason or ": lost: [Errno " in reason:
        return "port"
    if "no ack for" in reason or "peer silent" in reason:
        return "timer"
    return reason


def test_a_whole_shoe_through_seeded_faults_arrives_exactly_once(table: Table) -> None:
    """A 6-deck shoe dealt while seeded faults hit: line damage (one fault at a time, each within
    what retransmission absorbs) and cable pulls at quiet moments. Every card arrives once,
    in order, and every cable pull is reported as a lost port."""
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
    losses = [e.reason for e in link_events if isinstance(e, DeviceLost)]
    # Each cable pull is a port loss. A machine that stalls the station's thread past the
    # retransmission budget may also end a session on a timer, never on the port: allowed, as
    # the count of such stalls is the scheduler's, not the link's; a pull that falls while the
    # link is already down on such a timer finds no session to end (the port is reopened
    # after the plug), so it is one timer loss, not two losses.
    reasons = Counter(_loss_kind(r) for r in losses)
    assert set(reasons) <= {"port", "timer"}, reasons
    assert unplugs - reasons["timer"] <= reasons["port"] <= unplugs, (unplugs, reasons)
    assert_no_more_cards(table)


def test_cards_drawn_while_holding_reach_the_station_together_and_in_order(table: Table) -> None:
    """``holding()`` (the simulated dealer's block of actions of one look): nothing leaves
    the shoe while the block runs, nested blocks included; at the end of the outermost
    block every card drawn in it goes out, and the driver reports each, in draw order."""
    cards = parse_cards("9H KS 8D QC 2S 3S")
    table.double.load(cards)
    table.events.expect(ShoeLoaded)
    assert table.double.wait_idle(5.0)
    sent: list[bytes] = []
    transmit = table.double.transmit

    def recorded(data: bytes) -> bool:
        sent.append(bytes(data))
        return transmit(data)

    table.double.transmit = recorded
    with table.double.holding():
        assert table.double.deal() == cards[0]
        with table.double.holding():
            assert table.double.deal() == cards[1]
        assert sent == []  # the inner block's end is not the end
        assert table.double.deal() == cards[2]
        assert sent == []
    assert sent  # the outermost end sent them
    assert [e.card for e in table.events.take(CardDrawn, 3)] == cards[:3]
    assert table.double.deal() == cards[3]  # no block: at once, as before
    assert table.events.expect(CardDrawn).card == cards[3]


def test_a_delivered_card_is_on_the_stations_queue_when_deliver_returns(table: Table) -> None:
    """``deliver``: the dealer's card reaches the station's event queue before her next
    step on another device (a button on the panel's link must not overtake it): the driver
    queues a report's events before it acknowledges the frame, and the double waits for
    that acknowledgement, asked for at once (ACK_NOW)."""
    table.double.load(parse_cards("7H 8S"), cover_at=None)
    table.events.expect(ShoeLoaded)
    with table.double.holding():  # a look's burst: nothing goes out until deliver
        first, second = table.double.deal(), table.double.deal()
        assert table.events.pending() == []
        assert table.double.deliver()
        drawn = [e.card for e in table.events.pending() if isinstance(e, CardDrawn)]
    assert drawn == parse_cards("7H 8S") == [first, second]
    assert table.double.unconfirmed == 0


def test_a_delivery_of_more_reports_than_the_window_goes_through(table: Table) -> None:
    """A look's burst longer than the link's window (8 frames): ``deliver`` inside a
    ``holding`` block sends what the window takes, and the rest as the station's acks open
    it, so every card is on the station's queue when it returns (before, the rest waited
    for the end of the block and the delivery timed out)."""
    cards = parse_cards("2H 3H 4H 5H 6H 7H 8H 9H JH QH KH AH")
    table.double.load(cards, cover_at=None)
    table.events.expect(ShoeLoaded)
    with table.double.holding():
        dealt = [table.double.deal() for _ in cards]
        assert table.double.deliver(timeout=2.0)
        drawn = [e.card for e in table.events.pending() if isinstance(e, CardDrawn)]
    assert drawn == cards == dealt


def held_table(path: Path) -> Table:
    """A table whose driver holds each ack until the station says its event is committed
    (as the station's loop asks: ``Station.run``)."""
    t = Table(path, connect=False)
    t.driver.hold_acks_until_committed()
    t.driver.start()
    assert t.events.expect(DeviceConnected).serial_number == SERIAL
    return t


def test_a_report_no_commit_released_is_acknowledged_only_when_its_hold_runs_out(
    tmp_path: Path,
) -> None:
    t = held_table(tmp_path / "shoe")
    try:
        t.double.load(parse_cards("7S 8H"))
        t.events.expect(ShoeLoaded)
        assert t.double.wait_idle()  # acknowledged: by the hold's end alone
        assert t.driver.stats.holds_expired >= 1
        # Another driver's event, or one that carried no report, releases nothing.
        t.driver.committed(CardDrawn(parse_card("7S")))
        t.deal(1)
        t.events.expect(CardDrawn)
        assert t.double.wait_idle()
        assert t.driver.stats.holds_expired >= 2
    finally:
        t.close()


def test_a_report_is_acknowledged_once_its_event_is_committed(tmp_path: Path) -> None:
    t = held_table(tmp_path / "shoe")
    try:
        t.double.load(parse_cards("7S 8H 9D"))
        t.driver.committed(t.events.expect(ShoeLoaded))
        assert t.double.wait_idle()
        t.deal(2)
        first, second = t.events.take(CardDrawn, 2)
        t.driver.committed(first)
        t.driver.committed(second)
        assert t.double.wait_idle()
        assert t.driver._receipts == deque()  # every receipt released
        # Released by the commits, each a few microseconds after its event came, never by
        # a hold's end (MAX_ACK_HOLD, 0.25 s).
        assert t.driver.stats.holds_expired == 0
    finally:
        t.close()


def test_an_event_committed_as_soon_as_it_is_queued_still_has_its_report_acknowledged(
    tmp_path: Path,
) -> None:
    """A station that commits an event the moment it is on its queue, before the link's
    thread has finished the drain that gave it, still releases the report's ack: the
    driver keeps the receipt before its events go out. (It once kept it after: the commit
    found nothing to release, the receipt stayed at the head for good, and every later ack
    waited for its hold to run out.)"""
    # A lambda: the table, and so its driver, does not exist yet when ``then`` is given.
    t = Table(tmp_path / "shoe", connect=False, then=lambda e: t.driver.committed(e))  # noqa: PLW0108
    events, double, driver = t.events, t.double, t.driver
    driver.hold_acks_until_committed()
    driver.start()
    try:
        events.expect(DeviceConnected)
        double.load(parse_cards("7S 8H 9D"))
        events.expect(ShoeLoaded)
        for _ in range(2):
            double.deal()
            events.expect(CardDrawn)
        assert double.wait_idle()
        assert driver.stats.holds_expired == 0  # released by the commits, none held out
        assert driver._receipts == deque()
    finally:
        t.close()
