"""The shoe driver's bookkeeping of draw numbers, loads and hole-card answers, message by
message without a link (``test_shoe.feed``): what reaches the procedure, and the faults'
texts and details the journal keeps.

Expected values are worked by hand from the rules in ``drivers/shoe.py``'s docstring: a
Spanish deck has no 10s (NY 5324.12(a)) and a batch of ``decks`` decks holds ``decks``
copies of each card; a number already delivered is a repeat, one that skips ahead a gap.
"""

from __future__ import annotations

from test_shoe import feed, offline_driver

import firmware_bridge as fb
from controller.rules.cards import parse_card
from drivers.device_link import ExpectedDevice
from drivers.hal import (
    CardDrawn,
    CoverCardSeen,
    DeviceFault,
    DeviceKind,
    ForeignCardDrawn,
    HoleCardDealt,
    HoleCardRevealed,
    ShoeEmpty,
    ShoeLoaded,
)
from drivers.serial_transport import SerialSettings
from drivers.shoe import ShoeDriver

KS = parse_card("KS")
COMMITMENT = bytes(range(32))
NONCE = bytes(16)


def asked(driver: ShoeDriver, commitment: bytes = COMMITMENT) -> None:
    """The driver asked the shoe for this hole card (as ``reveal_hole_card`` does on a live
    link: the question is remembered until its answer)."""
    driver._reveals_asked.add(commitment)


def test_a_revealed_hole_card_counts_once_among_the_batchs_copies() -> None:
    # Six decks hold six king of spades. One went out as the hole card (withheld), five
    # face up: the reveal makes six, asked twice it is still six, and the next is a seventh.
    driver = offline_driver()
    driver.decks = 6
    events = feed(driver, fb.ShoeLoadedReport(1), fb.HoleCardDealtReport(1, COMMITMENT))
    assert events == [ShoeLoaded(), HoleCardDealt(COMMITMENT.hex())]
    kings = [fb.CardDrawnReport(13, "S", draw) for draw in range(2, 7)]
    assert feed(driver, *kings) == [CardDrawn(KS)] * 5
    answer = fb.HoleCardRevealReport(COMMITMENT, 13, "S", NONCE)
    for _ in range(2):  # asked again after a lost answer: the same card, counted once
        asked(driver)
        assert feed(driver, answer) == [HoleCardRevealed(COMMITMENT.hex(), KS, NONCE.hex())]
    assert feed(driver, fb.CardDrawnReport(13, "S", 7)) == [
        ForeignCardDrawn("duplicate card KS: copy 7 in a 6-deck shoe")
    ]


def test_a_hole_card_the_shoe_cannot_give_is_named_by_its_commitment() -> None:
    driver = offline_driver()
    asked(driver)
    assert feed(driver, fb.HoleCardRevealReport(COMMITMENT, 0, "S", NONCE)) == [
        HoleCardRevealed(COMMITMENT.hex(), None, None, "the shoe does not hold that hole card")
    ]
    other = bytes(reversed(COMMITMENT))
    asked(driver, other)
    (ten,) = feed(driver, fb.HoleCardRevealReport(other, 10, "S", NONCE))
    # A 10 revealed is no card of a Spanish deck (NY 5324.12(a)): the reason says so, and
    # neither card nor nonce reaches the table.
    assert ten == HoleCardRevealed(
        other.hex(), None, None, "the shoe revealed foreign card 10S: a Spanish deck has no 10s"
    )
    # Each question had its answer: the same answers again are answers to nothing.
    again = feed(driver, fb.HoleCardRevealReport(COMMITMENT, 13, "S", NONCE))
    assert again == [
        HoleCardRevealed(
            COMMITMENT.hex(),
            None,
            None,
            "the shoe revealed a hole card this station did not ask for",
            asked=False,
        )
    ]


def test_a_load_restarts_the_count_at_draw_one() -> None:
    driver = offline_driver()
    feed(driver, fb.ShoeLoadedReport(1), fb.CardDrawnReport(7, "S", 1))
    (gap, card) = feed(driver, fb.ShoeLoadedReport(2), fb.CardDrawnReport(8, "H", 2))[1:]
    assert gap == DeviceFault(
        DeviceKind.SHOE,
        "shoe reports lost: expected draw 1, found draw 2",
        {"expected_draw": "1", "found_draw": "2"},
    )
    assert card == CardDrawn(parse_card("8H"))


def test_a_cover_card_reported_again_as_a_card_is_a_fault_and_the_card_is_dealt() -> None:
    driver = offline_driver()
    events = feed(
        driver, fb.ShoeLoadedReport(1), fb.CoverCardReport(1), fb.CardDrawnReport(7, "S", 1)
    )
    assert events == [
        ShoeLoaded(),
        CoverCardSeen(),
        DeviceFault(
            DeviceKind.SHOE,
            "the shoe reported draw 1 again as something else (last 1)",
            {"draw": "1"},
        ),
        CardDrawn(parse_card("7S")),
    ]


def test_an_empty_shoe_before_the_last_delivered_draw_is_a_fault_naming_both() -> None:
    driver = offline_driver()
    events = feed(
        driver,
        fb.ShoeLoadedReport(1),
        fb.CardDrawnReport(7, "S", 1),
        fb.CardDrawnReport(8, "H", 2),
        fb.ShoeEmptyReport(1),
    )
    assert events[-1] == DeviceFault(
        DeviceKind.SHOE,
        "the shoe reported empty after draw 1, but draw 2 was delivered",
        {"expected_draw": "2", "found_draw": "1"},
    )


def test_a_station_started_mid_shoe_takes_an_empty_shoe_and_an_unreadable_card() -> None:
    # No load heard yet: the first empty report is news, not a repeat, and a card whose
    # code cannot be read is a foreign card before any number is known.
    driver = offline_driver()
    assert feed(driver, fb.CardDrawnReport(7, "S", 57), fb.ShoeEmptyReport(57)) == [
        CardDrawn(parse_card("7S")),
        ShoeEmpty(),
    ]
    driver = offline_driver()
    assert feed(driver, "rank 15 is outside 1..13", fb.CardDrawnReport(7, "S", 57)) == [
        ForeignCardDrawn("unreadable card code: rank 15 is outside 1..13"),
        CardDrawn(parse_card("7S")),
    ]


def test_two_unreadable_cards_excuse_a_gap_of_two_and_no_more() -> None:
    driver = offline_driver()
    feed(driver, fb.ShoeLoadedReport(1), fb.CardDrawnReport(7, "S", 1))
    events = feed(driver, "bad suit", "bad suit", fb.CardDrawnReport(8, "H", 4))
    assert events[2:] == [CardDrawn(parse_card("8H"))]
    events = feed(driver, "bad suit", fb.CardDrawnReport(9, "H", 7))
    assert events[1] == DeviceFault(
        DeviceKind.SHOE,
        "shoe reports lost: expected draw 5, found draw 7",
        {"expected_draw": "5", "found_draw": "7"},
    )
    # ... and an empty shoe after one more unreadable card is no gap either.
    assert feed(driver, "bad suit", fb.ShoeEmptyReport(8))[1:] == [ShoeEmpty()]
    # A card after the empty shoe, one number past it, is a gap again (nothing unreadable).
    assert feed(driver, fb.CardDrawnReport(9, "H", 10))[0] == DeviceFault(
        DeviceKind.SHOE,
        "shoe reports lost: expected draw 9, found draw 10",
        {"expected_draw": "9", "found_draw": "10"},
    )


def test_other_messages_from_the_shoe_are_faults_of_the_shoe() -> None:
    driver = offline_driver()
    assert feed(driver, fb.HoleCardNext(3)) == [
        DeviceFault(DeviceKind.SHOE, "unexpected HoleCardNext from the shoe")
    ]
    rejected = driver._on_rejected("bad length", fb.ShoeEmptyReport.TYPE_ID)
    assert rejected == DeviceFault(
        DeviceKind.SHOE, "unreadable message from the device: bad length"
    )


def listening_driver() -> tuple[ShoeDriver, list[object]]:
    """An offline driver whose events (and the faults of commands it cannot send: there
    is no link) are kept in a list."""
    events: list[object] = []
    expected = ExpectedDevice("SHOE-0001", secret=bytes(32))
    return ShoeDriver(SerialSettings("/dev/null"), events.append, expected), events


def test_no_arm_is_sent_when_the_last_draw_heard_is_the_hole_card() -> None:
    driver, events = listening_driver()
    feed(driver, fb.ShoeLoadedReport(1), fb.HoleCardDealtReport(1, COMMITMENT))
    driver.expect_hole_card()  # the dealer was quicker than the table: nothing to send
    assert events == []
    feed(driver, fb.CardDrawnReport(7, "S", 2))
    driver.expect_hole_card()  # a card after it: an arm is due (and, offline, cannot go)
    (fault,) = events
    assert isinstance(fault, DeviceFault) and fault.device is DeviceKind.SHOE
    assert fault.reason.startswith("HoleCardNext not sent: ")


def test_a_commitment_that_is_not_one_is_refused_in_one_line() -> None:
    driver, events = listening_driver()
    driver.reveal_hole_card("zz")
    driver.reveal_hole_card("ab" * 31)  # 31 bytes: one short
    assert events == [
        DeviceFault(DeviceKind.SHOE, "not a hole-card commitment: 'zz'"),
        DeviceFault(DeviceKind.SHOE, f"not a hole-card commitment: '{'ab' * 31}'"),
    ]


def test_a_reveal_that_could_not_be_asked_is_not_taken_as_asked() -> None:
    # The question never left the station: an answer for that commitment (a forged or
    # stale report) must not deliver the hole card.
    driver, events = listening_driver()
    driver.reveal_hole_card(COMMITMENT.hex())
    (fault,) = events
    assert isinstance(fault, DeviceFault)
    assert fault.reason.startswith("HoleCardRevealRequest not sent: ")
    (answer,) = feed(driver, fb.HoleCardRevealReport(COMMITMENT, 13, "S", NONCE))
    assert isinstance(answer, HoleCardRevealed)
    assert answer.card is None and answer.nonce is None and not answer.asked


def test_each_event_carries_the_shoes_numbers_for_the_journal() -> None:
    # docs/protocol.md, "Draw numbers": load 4, then draws 1..5 (a card, the cover card, the
    # hole card withheld, a 10, a card), then empty after draw 5. A 10 is no card of a
    # Spanish deck (NY 5324.12(a)): foreign, under its own number.
    driver = offline_driver()
    events = feed(
        driver,
        fb.ShoeLoadedReport(4),
        fb.CardDrawnReport(13, "S", 1),
        fb.CoverCardReport(2),
        fb.HoleCardDealtReport(3, COMMITMENT),
        fb.CardDrawnReport(10, "S", 4),
        fb.CardDrawnReport(7, "H", 5),
        fb.ShoeEmptyReport(5),
    )
    assert [type(e) for e in events] == [
        ShoeLoaded,
        CardDrawn,
        CoverCardSeen,
        HoleCardDealt,
        ForeignCardDrawn,
        CardDrawn,
        ShoeEmpty,
    ]
    loaded, *draws, empty = events
    assert isinstance(loaded, ShoeLoaded) and loaded.load == 4
    assert [getattr(e, "draw", None) for e in draws] == [1, 2, 3, 4, 5]
    assert isinstance(empty, ShoeEmpty) and empty.draws == 5
    # A card the batch cannot hold (a seventh king in six decks) keeps its number too.
    driver.decks = 6
    feed(driver, fb.ShoeLoadedReport(5), *(fb.CardDrawnReport(13, "S", n) for n in range(1, 7)))
    (seventh,) = feed(driver, fb.CardDrawnReport(13, "S", 7))
    assert isinstance(seventh, ForeignCardDrawn) and seventh.draw == 7


def test_a_count_resumed_from_the_journal_drops_what_it_holds_and_takes_the_next() -> None:
    # The journal holds load 3 up to draw 5: the shoe sends draw 5 and the load again (their
    # acknowledgement died with the old station), then draw 6, new.
    driver = offline_driver()
    driver.resume_count(3, 5)
    assert feed(driver, fb.ShoeLoadedReport(3), fb.CardDrawnReport(7, "S", 5)) == []
    assert driver.repeats == 2
    (six,) = feed(driver, fb.CardDrawnReport(8, "H", 6))
    assert six == CardDrawn(parse_card("8H")) and six.draw == 6
    # A new load (number 4) starts the count again.
    assert feed(driver, fb.ShoeLoadedReport(4), fb.CardDrawnReport(9, "D", 1)) == [
        ShoeLoaded(),
        CardDrawn(parse_card("9D")),
    ]


def test_a_report_lost_at_the_restart_is_a_gap_after_the_journals_last_draw() -> None:
    # Draw 6 was acknowledged and never journaled (the station died between): draw 7 is
    # the first the shoe sends, and the fault names the draw the journal lacks.
    driver = offline_driver()
    driver.resume_count(3, 5)
    (gap, card) = feed(driver, fb.CardDrawnReport(7, "S", 7))
    assert gap == DeviceFault(
        DeviceKind.SHOE,
        "shoe reports lost: expected draw 6, found draw 7",
        {"expected_draw": "6", "found_draw": "7"},
    )
    assert card == CardDrawn(parse_card("7S"))


def test_a_load_journaled_without_draws_counts_from_draw_one() -> None:
    driver = offline_driver()
    driver.resume_count(3, None)
    assert feed(driver, fb.ShoeLoadedReport(3)) == []
    (gap, _card) = feed(driver, fb.CardDrawnReport(7, "S", 2))
    assert isinstance(gap, DeviceFault) and gap.details == {
        "expected_draw": "1",
        "found_draw": "2",
    }


def test_an_empty_shoe_journaled_is_not_delivered_again() -> None:
    driver = offline_driver()
    driver.resume_count(3, 9, empty=True)
    assert feed(driver, fb.ShoeEmptyReport(9)) == []
    driver.resume_count(3, 9)  # journaled up to draw 9, not yet empty
    assert feed(driver, fb.ShoeEmptyReport(9)) == [ShoeEmpty()]


def test_nothing_known_from_the_journal_takes_the_first_number_heard() -> None:
    driver = offline_driver()
    driver.resume_count(None, None)
    assert feed(driver, fb.CardDrawnReport(7, "S", 40), fb.CardDrawnReport(8, "S", 41)) == [
        CardDrawn(parse_card("7S")),
        CardDrawn(parse_card("8S")),
    ]


def test_the_hole_card_is_armed_after_the_journals_last_draw() -> None:
    # A restarted station arms the draw after the journal's last one, not draw 1.
    driver, _events = listening_driver()
    sent: list[fb.Message] = []
    driver._send = lambda message: sent.append(message) or True  # type: ignore[method-assign]
    driver.resume_count(3, 12)
    driver.expect_hole_card()
    assert sent == [fb.HoleCardNext(13)]
