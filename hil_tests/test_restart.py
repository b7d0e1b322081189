"""A station that always starts again: stops and power cuts inside a round, with the same
device doubles across the restarts, so the shoe keeps its hole card and nonce through them
as a real shoe does (its flash). Every test ends by starting the station once more on the
journal it left and checking every seal with the table's verification key.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from table_driver import TableDriver, card_texts, restart, start_again, start_once_more
from test_faults import CARDS, ONE_SEAT, _finish_round, _to_players

from controller.journal.seal import VerificationKey
from controller.journal.store import JournalReader
from controller.table.prompts import State
from controller.table.recovery import read_journal
from drivers.hal import (
    Button,
    ButtonPressed,
    CardDrawn,
    DeviceEvent,
    ForeignCardDrawn,
    HoleCardRevealed,
    SupervisorKey,
)

pytestmark = pytest.mark.doubles


def two_seats_dealt(station: Any, journal: Path, *cards: str) -> TableDriver:
    """A station on ``journal``: seats 1 and 2 bet, no more bets, ``cards`` dealt."""
    t: TableDriver = station("PA", journal=journal)
    t.ready(CARDS)
    t.bet(1)
    t.bet(2)
    t.press()
    t.deal(*cards)
    return t


def void_with_the_answer_held(t: TableDriver) -> None:
    """The supervisor voids the faulted round while the shoe holds back its answer to the
    station's request for the hole card (it comes later: ``answer_deferred``)."""
    shoe = t.doubles.shoe
    shoe.defer_reveals = True
    t._act([SupervisorKey], t.hands.turn_key, True)
    t._act([ButtonPressed], t.hands.press, Button.SUPERVISOR_VOID)
    t._act([SupervisorKey], t.hands.turn_key, False)
    assert t.state is State.BETTING, t.view
    assert shoe.wait_for(lambda: shoe.deferred == 1, t.station.wait_seconds)


def round_one_voided_with_its_hole_card_in_the_shoe(t: TableDriver) -> None:
    """Round 1 (seat 1 9H 8D, up KS, hole 7D withheld) faults on a 10 and is voided; the
    shoe's answer with 7D is held back."""
    t.ready(ONE_SEAT)
    t.bet(1)
    t.press()
    t.deal("9H", "KS", "8D", "7D")
    t.peek()
    assert t.state is State.PLAYERS
    with t.expect(ForeignCardDrawn):
        t.doubles.shoe.deal_ten("H")
    assert t.fault == "foreign_card"
    void_with_the_answer_held(t)
    voided = t.data("round_voided")[-1]
    assert voided["hole_card"] == "withheld by the shoe: asked for at the void"


@pytest.mark.parametrize("stop", ["power_cut", "clean_stop"])
@pytest.mark.parametrize("at", ["players", "dealer"])
def test_a_round_resumed_after_a_stop_between_deal_and_reveal_leaves_a_journal_every_start_accepts(
    station: Any, sealed: tuple[Path, VerificationKey], stop: str, at: str
) -> None:
    """The stop comes after the deal and the peek (seat 2 to act, or the dealer's reveal
    due); the round resumes and completes on the shoe's own hole card, and the next start
    is not refused (it was: 'hole card revealed without a commitment', the checkpoint of
    the resumed start lying inside the round)."""
    journal, key = sealed
    t = station("PA", journal=journal)
    _to_players(t)  # seat 1 9H 8D, seat 2 5C 7D; up KS; hole 3D
    t.press()  # seat 1 stands
    if at == "dealer":
        t.press()  # seat 2 stands: the reveal is due
    t2 = restart(station, t, power_cut=stop == "power_cut")
    assert t2.state is State.FAULT and t2.fault == "recovered_mid_round"
    t2.supervisor(Button.SUPERVISOR_RESUME)
    assert not t2.data("resolution_refused")
    _finish_round(t2)
    assert [r["card"] for r in t2.data("hole_card_revealed")] == ["3D"]
    assert t2.rows("hole_card_revealed")[0].round_no == 1
    # KS 3D 4S: the dealer stands on 17; seat 1 (17) pushes, seat 2 (12) loses.
    assert sorted((s["seat"], s["outcome"]) for s in t2.data("settlement")) == [
        (1, "push"),
        (2, "lose"),
    ]
    start_once_more(station, t2, key)


@pytest.mark.python_double  # holds the shoe's answer back: the Python double's control
def test_a_late_answer_for_a_voided_round_is_journaled_under_it_and_never_plays_in_the_next(
    station: Any, sealed: tuple[Path, VerificationKey]
) -> None:
    """Round 1 is voided with its hole card (7D) in the shoe; the shoe's answer comes after
    round 2 started and is journaled among round 2's rows; the power goes during round 2.
    The rebuilt round 2 takes its own hole card (9C) from the shoe at the reveal, never
    round 1's (a rebuild once took the first reveal after round_started, whatever round
    it belonged to, and settled round 2 against 7D)."""
    journal, key = sealed
    t = station("PA", journal=journal)
    round_one_voided_with_its_hole_card_in_the_shoe(t)
    t.bet(1)
    t.press()  # round 2 starts
    with t.expect(HoleCardRevealed):
        assert t.doubles.shoe.answer_deferred() == 1
    late = t.rows("hole_card_revealed")
    assert [(r.round_no, r.data["card"]) for r in late] == [(1, "7D")]
    assert late[0].id > t.rows("round_started")[-1].id  # inside round 2's rows
    t.deal("3D", "QC", "6H", "9C")  # seat 1 3D 6H; up QC; hole 9C withheld
    t.peek()
    assert t.state is State.PLAYERS
    t2 = restart(station, t, power_cut=True)
    t2.supervisor(Button.SUPERVISOR_RESUME)
    assert t2.state is State.PLAYERS
    t2.press()  # seat 1 stands on 9: the dealer reveals
    _finish_round(t2)
    revealed = [(r.round_no, r.data["card"]) for r in t2.rows("hole_card_revealed")]
    assert revealed == [(1, "7D"), (2, "9C")]
    # QC 9C: the dealer stands on 19; seat 1's 9 loses.
    settled = [r.data for r in t2.rows("settlement") if r.round_no == 2]
    assert [(s["seat"], s["outcome"]) for s in settled] == [(1, "lose")]
    assert [r.round_no for r in t2.rows("round_completed")] == [2]
    start_once_more(station, t2, key)


@pytest.mark.python_double  # holds the shoe's answer back: the Python double's control
def test_a_late_answer_the_shoe_cannot_give_does_not_fault_the_next_round(
    station: Any, sealed: tuple[Path, VerificationKey]
) -> None:
    """The voided round's hole card is lost from the shoe (a board swapped) before its
    answer comes, during round 2: the answer is journaled with its problem and round 2
    plays on to its end (it once raised hole_card_commitment in round 2, which cannot be
    resumed: one void voided the next round too)."""
    journal, key = sealed
    t = station("PA", journal=journal)
    round_one_voided_with_its_hole_card_in_the_shoe(t)
    t.bet(1)
    t.press()  # round 2 starts
    t.doubles.shoe.withheld.clear()
    with t.expect(HoleCardRevealed):
        t.doubles.shoe.answer_deferred()
    assert t.state is State.DEALING, t.view.fault
    answer = t.data("hole_card_reveal_answer")[-1]
    assert answer["answered"] is False and answer["problem"]
    t.deal("3D", "QC", "6H", "9C")
    t.peek()
    t.press()
    _finish_round(t)
    assert [r.round_no for r in t.rows("round_completed")] == [2]
    assert not t.data("fault")[1:]  # the 10 of round 1 only
    start_once_more(station, t, key)


@pytest.mark.python_double  # holds the shoe's answer back: the Python double's control
def test_a_voided_rounds_hole_card_is_asked_for_again_after_a_restart(
    station: Any, sealed: tuple[Path, VerificationKey]
) -> None:
    """The power goes before the shoe's answer reached the station: the next start asks
    again, and the card is journaled under its round, so the journal accounts for it. The
    shoe then answers both requests; the second answer is one this station did not ask
    for, journaled and ignored."""
    journal, key = sealed
    t = station("PA", journal=journal)
    round_one_voided_with_its_hole_card_in_the_shoe(t)
    rig, shoe = t.station.rig, t.doubles.shoe
    t.station.cut_power()
    t2 = station("PA", journal=journal, rig=rig)
    t2.shoe, t2.dealt, t2.chips = t.shoe, t.dealt, t.chips
    assert shoe.wait_for(lambda: shoe.deferred == 2, t2.station.wait_seconds)  # the start's
    with t2.expect(HoleCardRevealed, HoleCardRevealed):
        shoe.answer_deferred()
    assert [(r.round_no, r.data["card"]) for r in t2.rows("hole_card_revealed")] == [(1, "7D")]
    requests = [r for r in t2.rows("hole_card_reveal_requested") if r.data.get("reason")]
    assert [r.round_no for r in requests] == [1, 1]  # at the void, and at the start
    answers = t2.data("hole_card_reveal_answer")
    assert [a["answered"] for a in answers] == [True, False]
    assert t2.state is State.BETTING and not t2.data("fault")[1:]
    start_once_more(station, t2, key)


def test_a_resumed_round_survives_a_second_cut_inside_it(
    station: Any, sealed: tuple[Path, VerificationKey]
) -> None:
    """Two power cuts inside the same round (the second after the resume, before the
    reveal): each start accepts the journal, and the round ends on the shoe's card."""
    journal, key = sealed
    t = two_seats_dealt(station, journal, "9H", "5C", "KS", "8D", "7D", "3D")
    t2 = restart(station, t, power_cut=True)
    t2.supervisor(Button.SUPERVISOR_RESUME)
    t2.peek()
    t3 = restart(station, t2, power_cut=True)
    t3.supervisor(Button.SUPERVISOR_RESUME)
    _finish_round(t3)
    assert [r["card"] for r in t3.data("hole_card_revealed")] == ["3D"]
    start_once_more(station, t3, key)


def test_a_card_report_sent_again_after_a_restart_is_not_dealt_twice(
    station: Any, sealed: tuple[Path, VerificationKey]
) -> None:
    """The shoe sends its last card report (7D, draw 6) again on the new link, as it does
    with a report whose acknowledgement died with the old station (docs/protocol.md, "Draw
    numbers"). The journal holds draw 7 (the hole card), so the restarted station drops it:
    no second 7D, no fault, and the round goes on from draw 8 with no gap. Before, the
    restarted driver took the first number it heard as the start and the table faulted
    on a card out of order."""
    journal, key = sealed
    # The burn 2C is draw 1, the deal draws 2 to 6, the hole card 3D draw 7.
    t = two_seats_dealt(station, journal, "9H", "5C", "KS", "8D", "7D", "3D")
    t2 = restart(station, t, power_cut=True)
    assert t2.state is State.FAULT and t2.fault == "recovered_mid_round"
    t2.doubles.shoe.repeat_last()
    t2.supervisor(Button.SUPERVISOR_RESUME)
    t2.peek()
    _finish_round(t2)
    assert [f["code"] for f in t2.data("fault")] == ["recovered_mid_round"]
    # Each draw once: 2C burned (draw 1), the deal (2..6), the hole card withheld (7), then
    # the dealer's 4S (8). The journal's count says 8, from load 1's count row alone: no
    # draw needed a count of its own (none was out of sequence).
    assert card_texts(t2.rows("burn", "card")) == ["2C", "9H", "5C", "KS", "8D", "7D", "4S"]
    assert len(t2.rows("hole_card_dealt")) == 1
    assert t2.data("shoe_count") == [{"load": 1, "last": 0}]
    count = read_journal(t2.rows()).shoe_count
    assert (count.load, count.last, count.empty) == (1, 8, False)
    # KS 3D 4S: the dealer stands on 17; seat 1 (17) pushes, seat 2 (12) loses.
    assert sorted((s["seat"], s["outcome"]) for s in t2.data("settlement")) == [
        (1, "push"),
        (2, "lose"),
    ]
    start_once_more(station, t2, key)


def power_cut_with_a_report_queued(t: TableDriver, after: str) -> None:
    """The power goes while the station holds a card report it received and has not yet
    journaled: the station stops in the observer of the card ``after`` (the loop's next
    event waiting behind it), once the shoe's next card has reached the driver."""
    running = t.station.built
    assert running is not None
    loop = running.station
    observe, gate = loop.observer, threading.Event()
    assert observe is not None

    def slow(event: DeviceEvent, view: Any, idle: bool) -> None:
        observe(event, view, idle)
        if isinstance(event, CardDrawn) and event.card.text == after:
            gate.wait(t.station.wait_seconds)
            raise TypeError("_PowerCut")  # the harness's power cut: no clean shutdown

    loop.observer = slow
    t.deal(after)
    t.station.pacer.forget()
    t.station.crashed = True
    t.doubles.shoe.deal()  # the next card: received, queued behind the stopped loop
    shoe = t.doubles.shoe
    assert shoe.wait_for(lambda: not loop.events.empty(), t.station.wait_seconds)
    gate.set()
    t.station._join()


def test_a_card_received_but_never_journaled_comes_again_after_the_restart(
    station: Any, sealed: tuple[Path, VerificationKey]
) -> None:
    """The power goes with 7D (draw 6) received and not yet journaled. The station
    acknowledges a report only once its event is committed (docs/protocol.md section 5,
    drivers.device_link), so the shoe never heard of 7D's arrival and sends it again to
    the restarted station: 7D is journaled, under its own draw, and no draw is missing.
    Before, its ack went out on arrival: 7D was in no row, and the next card was a gap."""
    journal, key = sealed
    t = two_seats_dealt(station, journal, "9H", "5C", "KS")
    power_cut_with_a_report_queued(t, after="8D")
    with JournalReader.open(journal) as reader:
        assert card_texts(reader.rows())[-1] == "8D"  # 7D never journaled
    t2 = start_again(station, t)
    shoe = t2.doubles.shoe
    assert shoe.wait_idle(t2.station.wait_seconds)  # the resent 7D acknowledged: journaled
    assert shoe.wait_for(lambda: "7D" in card_texts(t2.rows("card")), t2.station.wait_seconds)
    # It came while the table waited for the supervisor (recovered mid-round): journaled
    # as a card out of order, a fault of its own, and no draw of the shoe's is missing.
    assert card_texts(t2.rows("burn", "card")) == ["2C", "9H", "5C", "KS", "8D", "7D"]
    faults = [f["message"] for f in t2.data("fault")]
    assert not [m for m in faults if "reports lost" in m], faults
    assert read_journal(t2.rows()).shoe_count.last == 6
    t2.supervisor(Button.SUPERVISOR_VOID)
    assert t2.state is State.BETTING
    start_once_more(station, t2, key)
