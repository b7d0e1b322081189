"""The shoe withholds the hole card (docs/protocol.md): the real driver against the shoe double; and
the shoe's reader thread, which may not end without the shoe being reported lost.

The commitment is checked here with ``hashlib`` straight from its definition in
docs/protocol.md (SHA-256 of ``"CARD|NONCE"``, nonce as 32 lowercase hex digits), not with
the code under test.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

import firmware_bridge as fb
from controller.rules.cards import parse_card
from drivers.device_link import ExpectedDevice
from drivers.hal import (
    CardDrawn,
    DeviceConnected,
    DeviceLost,
    HoleCardDealt,
    HoleCardRevealed,
    ShoeLoaded,
)
from drivers.serial_transport import SerialSettings
from drivers.shoe import ShoeDriver
from drivers.simulated.recorder import EventRecorder
from drivers.simulated.rig import FAST_BACKOFF, FAST_TIMING
from drivers.simulated.shoe import ShoeDouble

SERIAL = "SHOE-0001"
SECRET = bytes(range(32))
CARDS = [parse_card(t) for t in ["9H", "KS", "8D", "QC", "2S", "3S"]]


def commitment_of(card: str, nonce: str) -> str:
    return hashlib.sha256(f"{card}|{nonce}".encode()).hexdigest()


def station(double: ShoeDouble) -> tuple[ShoeDriver, EventRecorder]:
    """A station's shoe driver, connected (a new one is a restarted station)."""
    events = EventRecorder()
    driver = ShoeDriver(
        double.settings,
        events,
        ExpectedDevice(SERIAL, secret=SECRET),
        decks=6,
        timing=FAST_TIMING,
        backoff=FAST_BACKOFF,
    )
    driver.start()
    events.expect(DeviceConnected)
    return driver, events


def assert_an_unasked_answer_carries_no_card(
    shoe: ShoeDouble, events: EventRecorder, commitment: str
) -> None:
    """The shoe sends its reveal report for ``commitment`` with card and nonce, unasked: the
    event says so and carries neither."""
    card, nonce = shoe.withheld[bytes.fromhex(commitment)]
    shoe._report(
        fb.HoleCardRevealReport(bytes.fromhex(commitment), int(card.rank), card.suit.value, nonce)
    )
    assert events.expect(HoleCardRevealed) == HoleCardRevealed(
        commitment,
        None,
        None,
        "the shoe revealed a hole card this station did not ask for",
        asked=False,
    )


@pytest.fixture
def shoe(tmp_path: Path) -> Iterator[ShoeDouble]:
    double = ShoeDouble(tmp_path / "shoe", SERIAL, timing=FAST_TIMING, secret=SECRET)
    try:
        yield double
    finally:
        double.close()


def test_the_hole_card_is_withheld_and_revealed_after_a_station_restart(
    shoe: ShoeDouble,
) -> None:
    driver, events = station(shoe)
    shoe.load(CARDS)
    events.expect(ShoeLoaded)
    shoe.sent_log = []
    assert shoe.deal() == CARDS[0]
    assert events.expect(CardDrawn).card == CARDS[0]
    assert shoe.deal_hole_card() == CARDS[1]  # KS, through the hole-card slot
    dealt = events.expect(HoleCardDealt)
    assert len(dealt.commitment) == 64
    # What crossed the link for it: the commitment, no card.
    assert "KS" not in repr(shoe.sent_log[1:]) and "rank=13" not in repr(shoe.sent_log[1:])
    driver.close()  # the station crashes between the deal and the reveal

    driver, events = station(shoe)  # ... and restarts, its journal holding the commitment
    try:
        driver.reveal_hole_card(dealt.commitment)
        revealed = events.expect(HoleCardRevealed)
        assert revealed.commitment == dealt.commitment and revealed.card == CARDS[1]
        assert revealed.nonce is not None and len(revealed.nonce) == 32
        assert commitment_of("KS", revealed.nonce) == dealt.commitment
        # Asked again (the answer was lost with another crash): the same answer.
        driver.reveal_hole_card(dealt.commitment)
        assert events.expect(HoleCardRevealed) == revealed
        # A commitment the shoe never made: no card, and the reason.
        driver.reveal_hole_card("00" * 32)
        unknown = events.expect(HoleCardRevealed)
        assert unknown.card is None and unknown.problem == "the shoe does not hold that hole card"
    finally:
        driver.close()


def test_the_station_arms_the_shoe_and_a_late_arm_withholds_nothing(shoe: ShoeDouble) -> None:
    driver, events = station(shoe)
    try:
        shoe.load(CARDS)
        events.expect(ShoeLoaded)
        shoe.deal()
        events.expect(CardDrawn)
        driver.expect_hole_card()  # names draw 2: the next card
        assert shoe.wait_for(lambda: shoe._hole_from == 2, 5.0)
        assert shoe.deal() == CARDS[1]  # an ordinary draw, and still withheld
        events.expect(HoleCardDealt)
        assert shoe.deal() == CARDS[2]
        assert events.expect(CardDrawn).card == CARDS[2]
        # The dealer was quicker than the station: draw 4 is out before the arm for it.
        shoe.deal()
        events.expect(CardDrawn)
        shoe.deal_hole_card()  # draw 5, the hole card, through the slot
        events.expect(HoleCardDealt)
        driver.expect_hole_card()  # the last draw heard is a hole card: no command at all
        shoe.deal()
        assert events.expect(CardDrawn).card == CARDS[5]
    finally:
        driver.close()


def test_a_cancelled_or_reloaded_arm_withholds_nothing(shoe: ShoeDouble) -> None:
    """``HoleCardCancel`` (a void before the hole card) and a new load both disarm: draw
    numbers restart at a load, so an old arm would name a card of the new shoe."""
    driver, events = station(shoe)
    try:
        shoe.load(CARDS)
        events.expect(ShoeLoaded)
        shoe.deal()
        events.expect(CardDrawn)
        driver.expect_hole_card()  # names draw 2
        assert shoe.wait_for(lambda: shoe._hole_from == 2, 5.0)
        driver.cancel_hole_card()
        assert shoe.wait_for(lambda: shoe._hole_from is None, 5.0)
        shoe.deal()
        assert events.expect(CardDrawn).card == CARDS[1]  # reported, not withheld
        driver.expect_hole_card()  # names draw 3
        assert shoe.wait_for(lambda: shoe._hole_from == 3, 5.0)
        shoe.load(CARDS)  # a new shoe before draw 3
        events.expect(ShoeLoaded)
        for n in range(4):
            shoe.deal()
            assert events.expect(CardDrawn).card == CARDS[n]  # draw 3 of the new shoe too
        assert shoe.withheld == {}
    finally:
        driver.close()


def test_a_reveal_this_driver_did_not_ask_for_comes_without_its_card(shoe: ShoeDouble) -> None:
    """What a shoe sends again on a new link (the station before a restart asked), or sends
    unasked: the event says so and carries neither card nor nonce, so no hole card reaches
    the station before it asks for it at the reveal (PA 635a.7(g), NJ 19.7(i))."""
    driver, events = station(shoe)
    try:
        shoe.load(CARDS)
        events.expect(ShoeLoaded)
        shoe.deal_hole_card()
        dealt = events.expect(HoleCardDealt)
        assert_an_unasked_answer_carries_no_card(shoe, events, dealt.commitment)
    finally:
        driver.close()


def test_an_answer_sent_again_after_the_one_asked_for_comes_without_its_card(
    shoe: ShoeDouble,
) -> None:
    """One question, one answer: the same report sent once more (a repeat on the link, or
    a forged copy) after the answer came is not an answer to anything the driver asked, and
    carries neither card nor nonce."""
    driver, events = station(shoe)
    try:
        shoe.load(CARDS)
        events.expect(ShoeLoaded)
        shoe.deal_hole_card()
        dealt = events.expect(HoleCardDealt)
        driver.reveal_hole_card(dealt.commitment)
        assert events.expect(HoleCardRevealed).card == CARDS[0]
        assert_an_unasked_answer_carries_no_card(shoe, events, dealt.commitment)
    finally:
        driver.close()


def test_the_shoe_forgets_withheld_cards_at_the_next_load(shoe: ShoeDouble) -> None:
    driver, events = station(shoe)
    try:
        shoe.load(CARDS)
        events.expect(ShoeLoaded)
        shoe.deal_hole_card()
        dealt = events.expect(HoleCardDealt)
        shoe.load(list(reversed(CARDS)))
        events.expect(ShoeLoaded)
        driver.reveal_hole_card(dealt.commitment)
        assert events.expect(HoleCardRevealed).card is None
    finally:
        driver.close()


def test_a_reader_thread_that_dies_reports_the_shoe_lost(shoe: ShoeDouble) -> None:
    # A NUL byte in the port path once killed the shoe's thread and the shoe was never
    # journaled as lost. Any end of the reader thread but close() is now DeviceLost, which
    # the procedure journals and faults on (device_lost).
    driver, events = station(shoe)
    transport = driver.transport

    def broken(timeout: float) -> bytes:
        raise RuntimeError("a bug in a port call")

    transport._read_port = broken  # type: ignore[method-assign]
    try:
        lost = events.expect(DeviceLost)
        assert lost.reason == "shoe: reader thread ended: RuntimeError: a bug in a port call"
        assert not transport._thread.is_alive()  # type: ignore[union-attr]
    finally:
        driver.close()


def test_a_port_path_with_a_nul_byte_is_a_lost_shoe_not_a_dead_thread(tmp_path: Path) -> None:
    events = EventRecorder()
    settings = SerialSettings(str(tmp_path / "sh\0oe"))
    driver = ShoeDriver(settings, events, ExpectedDevice(SERIAL, secret=SECRET))
    driver.start()
    try:
        assert "not a usable port path" in events.expect(DeviceLost).reason
        assert driver.transport._thread.is_alive()  # type: ignore[union-attr]
    finally:
        driver.close()


def test_an_arm_right_after_a_load_withholds_the_first_card(shoe: ShoeDouble) -> None:
    # No card drawn since the load: the arm names draw 1, the first card out.
    driver, events = station(shoe)
    try:
        shoe.load(CARDS)
        events.expect(ShoeLoaded)
        driver.expect_hole_card()
        assert shoe.wait_for(lambda: shoe._hole_from == 1, 5.0)
        assert shoe.deal() == CARDS[0]
        events.expect(HoleCardDealt)
    finally:
        driver.close()
