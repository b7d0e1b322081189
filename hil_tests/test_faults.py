"""Device faults across the real transports, each ending with the table in the right state,
every dealt card in the journal and the journal's chain verified.

These use the doubles' fault switches (``doubles`` marker); on a real rig the one test a
person can do by hand (pulling the shoe's cable) is marked ``needs_person``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from table_driver import TableDriver, card_texts, start_again, start_once_more

from controller.journal.seal import VerificationKey
from controller.journal.store import verify
from controller.table.prompts import State
from drivers.hal import (
    Button,
    DeviceConnected,
    DeviceFault,
    DeviceLost,
    ForeignCardDrawn,
    Led,
    LedMode,
)

pytestmark = pytest.mark.doubles

CARDS = "2C 9H 5C KS 8D 7D 3D 4S 6H 9C 2D 3C 4D 5S 6C 8H"
# One seat: seat 1 9H 8D, up KS (a peek), hole 7D; then seat 1 3D 6H, up QC, hole 9C.
ONE_SEAT = "2C 9H KS 8D 7D 3D QC 6H 9C 2D 3C 4D 5S 6C 8H 5H"
FAULT_LAMPS = {
    "shuffler": Led.SHUFFLER_FAULT,
    "shoe": Led.SHOE_FAULT,
    "card_reader": Led.READER_FAULT,
}


def _to_players(t: TableDriver) -> None:
    """Two seats, initial deal (seat 1 9H 8D, seat 2 5C 7D; up KS; hole 3D), peeked."""
    t.ready(CARDS)
    t.bet(1)
    t.bet(2)
    t.press()
    t.deal("9H", "5C", "KS", "8D", "7D", "3D")
    t.peek()
    assert t.state is State.PLAYERS


def _finish_round(t: TableDriver) -> None:
    """Stand everyone, reveal, let the dealer draw, settle."""
    while t.state not in (State.BETTING, State.SHUFFLING, State.LOADING):
        view = t.view
        if t.state is State.PEEKING:
            t.peek()
        elif t.state is State.DEALING or (t.state is State.DEALER and not view.reveal_due):
            t.deal()
        elif t.state is State.FAULT:
            raise AssertionError(view.fault)
        else:
            t.press()


def _all_cards_journalled(t: TableDriver, extra: Counter[str] | None = None) -> None:
    """Every card the shoe double dealt is in the journal exactly once (plus ``extra``:
    reports the shoe made without dealing, e.g. a double read)."""
    dealt = Counter(c.text for c in t.doubles.shoe.dealt) + (extra or Counter())
    assert Counter(card_texts(t.rows())) == dealt


# --- cables -----------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["shuffler", "shoe", "card_reader"])
def test_unplug_and_replug_each_device_mid_round(station: Any, device: str) -> None:
    t = station("PA")
    _to_players(t)
    double = getattr(t.doubles, device)
    assert double.wait_idle()  # every report acknowledged (see the next test otherwise)
    with t.expect(DeviceLost):
        double.unplug()
    assert t.state is State.FAULT and t.fault == "device_lost"
    assert dict(t.view.lamps)[FAULT_LAMPS[device]] is LedMode.BLINK
    t.supervisor(Button.SUPERVISOR_RESUME)  # refused: the device is still gone
    assert t.state is State.FAULT
    assert t.data("resolution_refused")[0]["reason"] == f"still lost: {device}"
    with t.expect(DeviceConnected):
        double.plug()
    t.supervisor(Button.SUPERVISOR_RESUME)
    assert t.state is State.PLAYERS  # back where play stopped
    _finish_round(t)
    assert len(t.data("round_completed")) == 1
    _all_cards_journalled(t)
    t.finish()


def test_a_card_report_in_flight_when_the_cable_is_pulled_is_never_placed_twice(
    station: Any,
) -> None:
    t = station("PA")
    _to_players(t)
    shoe = t.doubles.shoe
    shoe.port.stall(True)  # the station's acks stay in the cable
    t.deal("4S")  # seat 1 hits: the station has the card, the shoe never hears the ack
    with t.expect(DeviceLost):
        shoe.unplug()
    shoe.port.stall(False)
    with t.expect(DeviceConnected):
        shoe.plug()
    # The shoe re-sends what it was never told arrived (at least once, as it must)...
    assert shoe.wait_idle()
    t.wait_state(State.FAULT)
    # ...and the station never places it twice: a copy (there is one when the shoe had
    # not heard the ack before it gave the session up) is refused as out of order.
    roles = [d["role"] for d in t.data("card") if d["card"] == "4S"]
    assert roles.count("rejected") == len(roles) - 1
    t.supervisor(Button.SUPERVISOR_RESUME)
    assert t.state is State.PLAYERS
    _finish_round(t)
    t.finish()


@pytest.mark.needs_person
def test_person_pulls_and_replugs_the_shoe_cable(station: Any) -> None:
    t = station("PA")
    t.ready(CARDS)
    with t.expect(DeviceLost):
        t.station.rig.hands.ask("Pull the shoe's USB cable")  # type: ignore[attr-defined]
    assert t.state is State.FAULT
    with t.expect(DeviceConnected):
        t.station.rig.hands.ask("Plug the shoe's USB cable back in")  # type: ignore[attr-defined]
    t.supervisor(Button.SUPERVISOR_RESUME)
    assert t.state is State.BETTING
    t.finish()


# --- the line ---------------------------------------------------------------------------


def test_garbled_frames_are_retransmitted_and_play_goes_on(station: Any) -> None:
    t = station("PA")
    t.ready(ONE_SEAT)
    t.doubles.shoe.noise.corrupt_next(4)  # the next four frames from the shoe are damaged
    t.bet(1)
    t.press()
    t.deal("9H", "KS", "8D", "7D")
    assert t.doubles.shoe.noise.chunks_damaged == 4
    assert t.state is State.PEEKING  # nothing lost, nothing doubled, no fault
    assert [d["card"] for d in t.data("card")] == ["9H", "KS", "8D"]
    t.peek()
    _finish_round(t)
    _all_cards_journalled(t)
    t.finish()


def test_dropped_acks_deliver_each_card_once(station: Any) -> None:
    t = station("PA")
    t.ready(ONE_SEAT)
    shoe = t.doubles.shoe
    shoe.drop_acks(1)  # the shoe never hears one of the station's acks
    t.bet(1)
    t.press()
    t.deal("9H", "KS", "8D", "7D")
    assert [d["card"] for d in t.data("card")] == ["9H", "KS", "8D"]
    t.peek()
    assert t.data("peek") == [{"answer": "no_blackjack"}]
    # The switch is used up (the double's own counter) once the station's first ACK reaches
    # the shoe, which may be after the peek on a loaded machine: wait for it, then the
    # round plays on and every card is journalled once.
    assert shoe.wait_for(lambda: shoe._drop_acks == 0, 30.0)
    _finish_round(t)
    _all_cards_journalled(t)
    t.finish()


# --- the shuffler -----------------------------------------------------------------------


def test_shuffler_jam_faults_until_cleared_then_the_shuffle_is_redone(
    station: Any, rigs: Any
) -> None:
    # The first shuffle runs until the jam (a minute, longer than the test: it never ends by
    # itself). The shuffle command at the shuffler says the table is shuffling: a wait for
    # the table's view would wait for an event after the start, and the last device to
    # connect may leave none (the station shows the start's state with the next event).
    rig = rigs(panel_board=False)
    rig.doubles.shuffler.reply_delay = 60.0  # the first shuffle is still running...
    t = station("PA", rig=rig, wait_for_load=False)
    shuffler = rig.doubles.shuffler
    assert shuffler.wait_for(lambda: any("Shuffle" in repr(m) for m in shuffler.commands), 5.0)
    with t.expect(DeviceFault):
        shuffler.jam()  # ...when the batch jams
    rig.doubles.shuffler.reply_delay = 0.0
    assert t.state is State.FAULT and t.fault == "device_fault"
    assert dict(t.view.lamps)[Led.SHUFFLER_FAULT] is LedMode.BLINK
    rig.doubles.shuffler.clear_jam()
    t.supervisor(Button.SUPERVISOR_RESHUFFLE)
    t.wait_state(State.LOADING)
    assert len(t.data("shuffle_commanded")) == 2
    t.ready(CARDS)
    t.finish()


# --- the card reader --------------------------------------------------------------------


def test_card_reader_misread_reprompts_then_faults_after_the_allowed_tries(
    station: Any,
) -> None:
    t = station("PA")
    t.ready(ONE_SEAT)
    t.bet(1)
    t.press()
    t.deal("9H", "KS", "8D", "7D")
    t.doubles.card_reader.misread(1)
    t.peek()
    assert t.state is State.PEEKING and t.data("peek") == [{"answer": "read_error"}]
    t.peek()  # slid in again: read
    assert t.state is State.PLAYERS
    _finish_round(t)
    t.bet(1)
    t.press()
    t.deal("3D", "QC", "6H", "9C")
    t.doubles.card_reader.misread(3)
    t.peek()
    t.peek()
    t.peek()
    assert t.state is State.FAULT and t.fault == "reader_failed"
    t.supervisor(Button.SUPERVISOR_VOID)
    assert t.state is State.BETTING
    assert len(t.data("round_voided")) == 1
    _all_cards_journalled(t)
    t.finish()


def test_reader_and_shoe_disagree_on_the_hole_card(station: Any) -> None:
    t = station("PA")
    t.ready("2C 9H KC 8D AS 4D 5D 6D")
    t.bet(1)
    t.press()
    t.deal("9H", "KC", "8D", "AS")  # the hole card gives the dealer blackjack...
    t.peek(card=t.dealt[1])  # ...but the reader is answering from another card (9H)
    assert t.data("peek") == [{"answer": "no_blackjack"}]
    t.press()  # seat 1 stands
    t.press()  # the reveal shows AS
    assert t.state is State.FAULT and t.fault == "hole_card_mismatch"
    t.supervisor(Button.SUPERVISOR_RESUME)  # cannot be resumed
    assert t.state is State.FAULT
    t.supervisor(Button.SUPERVISOR_VOID)
    assert t.state is State.BETTING
    assert t.data("hole_card_revealed")[0]["card"] == "AS"
    # The hand was settled against the blackjack before the mismatch was found; the
    # round_voided row that follows cancels the round.
    kinds = [r.kind for r in t.rows() if r.round_no == 1]
    assert kinds[-1] == "round_voided"
    _all_cards_journalled(t)
    t.finish()


# --- cards the shoe should not report ---------------------------------------------------


def test_a_ten_in_the_shoe_faults_and_goes_to_the_discard_rack(station: Any) -> None:
    t = station("PA")
    t.ready(ONE_SEAT)
    t.bet(1)
    t.press()
    t.deal("9H", "KS")
    with t.expect(ForeignCardDrawn):
        t.doubles.shoe.deal_ten("H")
    assert t.state is State.FAULT and t.fault == "foreign_card"
    assert "10H" in t.data("card")[-1]["card"]
    t.supervisor(Button.SUPERVISOR_RESUME)
    assert t.state is State.DEALING
    t.deal("8D", "7D")
    t.peek()
    _finish_round(t)
    _all_cards_journalled(t)
    t.finish()


def test_a_duplicate_card_beyond_the_batch_faults(station: Any) -> None:
    t = station("PA")
    t.ready("2C 9H 9H 9H 9H 9H 9H 5C 8D KS 3D 4D")  # six 9H: all a 6-deck batch holds
    t.bet(1)
    t.press()
    t.deal("9H", "9H", "9H", "9H")  # seat 1 18, dealer 18
    _finish_round(t)
    t.bet(1)
    t.press()
    t.deal("9H", "9H")  # the sixth 9H is the up card
    with t.expect(ForeignCardDrawn):
        t.doubles.shoe.deal_code(9, "H")  # a seventh 9H, from another deck, leaves the shoe
    # The shoe's driver counts copies: a seventh 9H cannot be a card of this batch.
    assert t.state is State.FAULT and t.fault == "foreign_card"
    assert "duplicate card 9H: copy 7" in t.data("card")[-1]["card"]
    t.supervisor(Button.SUPERVISOR_VOID)
    assert t.state is State.BETTING
    assert t.data("round_voided")
    _all_cards_journalled(t)
    t.finish()


def test_a_double_read_of_the_shoe_sensor_is_not_a_second_card(station: Any) -> None:
    t = station("PA")
    t.ready(ONE_SEAT)
    t.bet(1)
    t.press()
    t.deal("9H")
    t.doubles.shoe.repeat_last()  # 9H reported again with its draw number: dropped
    t.deal("KS", "8D", "7D")  # reported after the repeat, so it has been handled by now
    assert t.state is State.PEEKING  # no fault: the round goes on
    assert [d["card"] for d in t.data("card")] == ["9H", "KS", "8D"]
    t.peek()
    _finish_round(t)
    _all_cards_journalled(t)
    t.finish()


def test_a_card_dealt_when_none_was_expected_faults(station: Any) -> None:
    t = station("PA")
    t.ready(ONE_SEAT)
    t.deal("9H")  # betting is open: no card is due
    assert t.state is State.FAULT and t.fault == "unexpected_card"
    assert t.data("card")[-1] == {"role": "rejected", "card": "9H"}
    t.supervisor(Button.SUPERVISOR_RESUME)  # the card goes to the discard rack
    assert t.state is State.BETTING
    t.bet(1)
    t.press()
    t.deal("KS", "8D", "7D", "3D")
    _finish_round(t)
    _all_cards_journalled(t)
    t.finish()


# --- identity ---------------------------------------------------------------------------


def test_a_device_with_an_unknown_serial_number_is_refused(station: Any) -> None:
    t = station("PA")
    t.ready(CARDS)
    shoe = t.doubles.shoe
    with t.expect(DeviceLost, DeviceFault):
        shoe.unplug()
        shoe.hello_serial = "SHOE-9999"  # another shoe is plugged in
        shoe.power_cycle()
        shoe.plug()
    assert t.state is State.FAULT
    refused = [d for d in t.data("device") if d["status"] == "fault"]
    assert "SHOE-9999" in str(refused[0]) and "SHOE-0001" in str(refused[0])
    t.supervisor(Button.SUPERVISOR_RESUME)
    assert t.state is State.FAULT  # still lost: the right shoe is not back
    with t.expect(DeviceConnected):
        shoe.unplug()
        shoe.hello_serial = shoe.serial_number  # the table's own shoe again
        shoe.power_cycle()
        shoe.plug()
    t.supervisor(Button.SUPERVISOR_RESUME)
    assert t.state is State.BETTING
    t.finish()


# --- power ------------------------------------------------------------------------------


def test_power_loss_mid_round_recovers_from_the_journal(
    station: Any, sealed: tuple[Path, VerificationKey]
) -> None:
    """The power goes between the deal and the reveal. The station comes back on the same
    journal, rebuilds the round at the step it had reached (the hole card from the shoe's
    commitment) and, once the supervisor resumes, the round goes on: the shoe, which kept
    the hole card and its nonce through the power cut (the same devices: the shoe's flash),
    reveals it at the reveal. The station then starts once more, every seal checking out."""
    journal, key = sealed
    t = station("PA", journal=journal)
    _to_players(t)
    t.press()  # seat 1 stands
    before = [(r.id, r.hash) for r in t.rows()]
    t.station.cut_power()  # no clean shutdown
    assert verify(journal).ok
    t2 = start_again(station, t)
    after = [(r.id, r.hash) for r in t2.rows()]
    assert after[: len(before)] == before  # nothing committed was lost
    # (a start may first journal its sealed "verified through row N" checkpoint)
    new_kinds = [r.kind for r in t2.rows()][len(before) :]
    assert [k for k in new_kinds if k not in ("verified", "seal")][:2] == [
        "station_started",
        "fault",
    ]
    assert t2.state is State.FAULT and t2.fault == "recovered_mid_round"
    assert "clean_shutdown" not in [r.kind for r in t2.rows()]
    t2.supervisor(Button.SUPERVISOR_RESUME)  # the round was rebuilt: resumed
    assert not t2.data("resolution_refused")
    assert t2.state is State.PLAYERS  # seat 2 acts next, as before the cut
    _finish_round(t2)
    assert t2.data("hole_card_revealed")[0]["card"] == "3D"  # the shoe's card, checked
    assert len(t2.data("round_completed")) == 1 and not t2.data("round_voided")
    settled = [(s["seat"], s["hand"]) for s in t2.data("settlement")]
    assert sorted(settled) == [(1, 1), (2, 1)]  # each hand settled once
    t2.bet(1)
    t2.press()
    assert t2.data("round_started")[-1]["round"] == 2  # numbering goes on
    start_once_more(station, t2, key)


def test_restart_between_rounds_resumes_betting(
    station: Any, sealed: tuple[Path, VerificationKey]
) -> None:
    journal, key = sealed
    t = station("PA", journal=journal)
    _to_players(t)
    _finish_round(t)
    t.finish()
    t2 = station("PA", journal=journal, rig=t.station.rig)
    assert t2.state is State.BETTING and t2.view.fault is None
    assert "clean_shutdown" in [r.kind for r in t2.rows()]
    start_once_more(station, t2, key)
