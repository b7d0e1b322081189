"""The procedure against what the shuffler and the shoe report out of the ordinary: a NEXT
while the shuffler works, a load nobody shuffled for, the shoe running out, the cover card
before the shoe's first round (PA 635a.7(c),(d), NJ 19.7(c),(j)). Driven with events
directly (tests/table_support.py), each case beside the one the rule allows."""

from __future__ import annotations

import pytest
from table_support import ListJournal, RecordingPanel, RecordingReader, Rig, make_rig
from test_procedure import (
    bet,
    deal,
    full_batch,
    play_seat_one_round,
    press,
    ready,
    rows,
    supervisor,
)

from controller.rules.cards import parse_card
from controller.rules.profiles import PENNSYLVANIA
from controller.table.faults import FaultCode
from controller.table.holecard import check_commitment
from controller.table.procedure import Table, TableDevices, TableSettings
from controller.table.prompts import State, prompt_for
from controller.table.recovery import read_journal
from drivers.hal import (
    Button,
    ButtonPressed,
    CardDrawn,
    CoverCardSeen,
    DeviceConnected,
    DeviceEvent,
    DeviceFault,
    DeviceFaultKind,
    DeviceKind,
    DeviceLost,
    ForeignCardDrawn,
    ForgedFrame,
    HoleCardDealt,
    HoleCardRevealed,
    Led,
    LedMode,
    PeekAnswer,
    PeekResult,
    SeatWagerChanged,
    ShoeEmpty,
    ShoeLoaded,
    ShuffleDone,
    WagerSpot,
)


def seat_one_dealt(withholding: bool = False) -> Rig:
    """Seat 1 $10.00: 9H 8D against the up 5C; the hole card QS (sealed by the table), or
    next out of a withholding shoe."""
    rig = make_rig("PA", withholding=withholding)
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "5C", "8D", *([] if withholding else ["QS"]))
    return rig


def restarted(rig: Rig, withholding: bool = False, *, up: bool = True) -> Rig:
    """A new station over ``rig``'s journal; ``up``: its devices are up."""
    from controller.table.recovery import read_journal

    again = make_rig("PA", withholding=withholding)
    again.table.restore(read_journal(rig.journal.rows))
    if up:
        again.table.resume_output()
    return again


def rejected(rig: Rig, card: str, code: FaultCode) -> str:
    """The card's row says it was rejected, play stopped with ``code``: the fault's text."""
    assert rows(rig, "card")[-1] == {"role": "rejected", "card": card}
    fault = rig.table.fault
    assert fault is not None and fault.code is code
    return fault.message


def shoe_ran_out_in_the_deal() -> Rig:
    """Seat 1's first card dealt, then the shoe reports it is empty."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H")
    rig.table.handle(ShoeEmpty())
    return rig


def test_next_while_the_shuffler_works_is_ignored_and_a_hand_shuffle_is_pressed_through() -> None:
    # With an automatic shuffler its batch report ends the shuffle (its count is checked);
    # without one the dealer shuffles by hand and presses NEXT when done.
    rig = make_rig("PA")
    rig.table.begin()
    assert rig.table.state is State.SHUFFLING
    press(rig)
    assert rig.table.state is State.SHUFFLING
    assert rows(rig, "button_ignored")[-1]["reason"] == "the shuffler reports when it is done"
    assert rows(rig, "hand_shuffle_done") == []
    rig.table.handle(full_batch(6))
    assert rig.table.state is State.LOADING

    journal = ListJournal()
    by_hand = Table(
        TableSettings(PENNSYLVANIA, 6),
        TableDevices(None, RecordingPanel(), RecordingReader()),
        journal,
    )
    by_hand.begin()
    assert by_hand.state is State.SHUFFLING
    by_hand.handle(ButtonPressed(Button.NEXT))
    assert by_hand.state is State.LOADING
    assert [r.data for r in journal.of("hand_shuffle_done")] == [{"decks": 6}]


def test_the_shoe_running_out_in_a_round_faults_and_between_rounds_asks_for_a_reshuffle() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    play_seat_one_round(rig)
    assert rig.table.state is State.BETTING and not rig.table.reshuffle_pending
    rig.table.handle(ShoeEmpty())  # between rounds: nothing is owed a card
    assert rig.table.state is State.BETTING and rig.table.reshuffle_pending

    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H")  # seat 1's first card, then the shoe is empty
    rig.table.handle(ShoeEmpty())
    assert rig.table.state is State.FAULT
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.SHOE_EMPTY
    assert rig.table.fault.message == "the shoe ran out during the round"
    assert rows(rig, "shoe_empty") == [{}]
    assert rig.table.reshuffle_pending


def test_a_shoe_loaded_without_a_shuffle_faults_but_not_over_a_fault_already_raised() -> None:
    rig = make_rig("PA")
    ready(rig)
    rig.table.handle(ShoeLoaded())  # in the betting state: no batch was shuffled for it
    assert rig.table.state is State.FAULT
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.UNEXPECTED_CARD
    assert rig.table.fault.message == "the shoe was loaded without a shuffle"
    assert rows(rig, "shoe_loaded") == [{}, {}]  # the load, and this one

    rig = shoe_ran_out_in_the_deal()
    rig.table.handle(ShoeLoaded())  # the dealer refills the shoe while the fault stands
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.SHOE_EMPTY


@pytest.mark.parametrize(
    ("events", "state"),
    [
        ((), State.SHUFFLING),
        ((full_batch(6),), State.LOADING),
        ((full_batch(6), ShoeLoaded()), State.BURNING),  # the first burn, after the load
    ],
)
def test_the_cover_card_before_the_shoes_first_round_is_a_fault(
    events: tuple[DeviceEvent, ...], state: State
) -> None:
    # PA 635a.7(d): the cover card goes deep in the shoe; out before the first round (while
    # shuffling, loading, or as the burn card after the load), the shoe was loaded wrong.
    rig = make_rig("PA")
    rig.table.begin()
    for event in events:
        rig.table.handle(event)
    assert rig.table.state is state
    rig.table.handle(CoverCardSeen())
    assert rig.table.fault is not None
    assert rig.table.fault.code is FaultCode.UNEXPECTED_COVER_CARD


def test_the_cover_card_after_the_first_burn_is_an_ordinary_one() -> None:
    rig = make_rig("PA")
    ready(rig)  # the round after it is the shoe's last
    rig.table.handle(CoverCardSeen())
    assert rig.table.state is State.BETTING and rig.table.reshuffle_pending


def _hole_card_dealt_face_up(withholding: bool) -> Rig:
    """PA: seat 1 9H 8D, up KS; the hole card 5C comes as a CardDrawn, with its face."""
    rig = make_rig("PA", withholding=withholding)
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "KS", "8D")  # seat 1, up card, seat 1: the hole card is next
    deal(rig, "5C")
    return rig


def test_pa_635a_7_e_4_g_a_hole_card_a_withholding_shoe_sends_in_clear_faults() -> None:
    """PA 635a.7(e)(4), (g): the hole card is dealt face down and exposed to nobody. The
    station told the shoe to withhold it (it owes a commitment); a shoe that sends the card
    face up instead (old firmware, a swapped board, a forged frame) stops play with a fault
    of its own, journaled with why; the card is never taken as if nothing happened. The
    round can only be voided, and the void turns the card over in the journal."""
    rig = _hole_card_dealt_face_up(withholding=True)
    assert rig.shoe is not None and rig.shoe.told == ["expect_hole_card"]
    assert rig.table.state is State.FAULT
    fault = rig.table.fault
    assert fault is not None and fault.code is FaultCode.HOLE_CARD_IN_CLEAR
    assert fault.device == "shoe"
    assert rig.panel.lamps.get(Led.SHOE_FAULT) is LedMode.BLINK
    (journaled,) = rows(rig, "fault")
    assert journaled["code"] == "hole_card_in_clear"
    assert "told to withhold it" in journaled["message"] and "5C" not in journaled["message"]
    # Nothing names the card before the void: no card row, the hole card a commitment.
    assert [r["card"] for r in rows(rig, "card")] == ["9H", "KS", "8D"]
    (dealt,) = rows(rig, "hole_card_dealt")
    assert "5C" not in str(dealt)
    supervisor(rig, Button.SUPERVISOR_RESUME)
    assert rig.table.state is State.FAULT
    assert rows(rig, "resolution_refused")[0]["reason"] == (
        "hole_card_in_clear cannot be resumed: void or reshuffle"
    )
    supervisor(rig, Button.SUPERVISOR_VOID)
    assert rig.table.state is State.BETTING
    (revealed,) = rows(rig, "hole_card_revealed")
    assert revealed["card"] == "5C"
    assert check_commitment(dealt["commitment"], "5C", revealed["nonce"])
    assert rows(rig, "round_voided")[0]["reason"].startswith("hole_card_in_clear: ")


def test_a_hole_card_from_a_shoe_that_reports_it_like_any_card_is_sealed_by_the_table() -> None:
    # Unit tests and the direct simulation: no shoe was told to withhold anything, so the
    # table seals the hole card itself and play goes on (the other side of the fault above).
    rig = _hole_card_dealt_face_up(withholding=False)
    assert rig.table.state is State.PEEKING and rig.table.fault is None


# --- a device's own fault, and frames that failed their seal --------------------------------


def test_a_device_fault_stops_play_names_the_device_and_blinks_its_lamp() -> None:
    """A jammed shuffler between rounds: the journal keeps the device's report with its
    details, play stops with the device named, its lamp blinks; the supervisor's resume
    returns to the betting the fault interrupted."""
    rig = make_rig("PA")
    ready(rig)
    rig.table.handle(DeviceFault(DeviceKind.SHUFFLER, "jam", {"sensor": "3"}))
    assert rows(rig, "device")[-1] == {
        "device": "shuffler",
        "status": "fault",
        "reason": "jam",
        "sensor": "3",
    }
    assert rig.table.state is State.FAULT
    fault = rig.table.fault
    assert fault is not None and fault.code is FaultCode.DEVICE_FAULT
    assert (fault.message, fault.device) == ("shuffler: jam", "shuffler")
    assert rows(rig, "fault")[-1] == {
        "code": "device_fault",
        "message": "shuffler: jam",
        "state": "betting",
    }
    assert rig.panel.lamps.get(Led.SHUFFLER_FAULT) is LedMode.BLINK
    supervisor(rig, Button.SUPERVISOR_RESUME)
    assert rig.table.state is State.BETTING


def test_a_device_that_fails_authentication_raises_the_tampering_fault() -> None:
    """docs/protocol.md section 4c: forged frames at a rate no line noise reaches, or a
    board without the pairing key, stop play under their own code (someone on the line)."""
    rig = make_rig("PA")
    ready(rig)
    event = DeviceFault(DeviceKind.SHOE, "forged frames", kind=DeviceFaultKind.AUTHENTICATION)
    rig.table.handle(event)
    fault = rig.table.fault
    assert fault is not None and fault.code is FaultCode.DEVICE_AUTHENTICATION
    assert (fault.message, fault.device) == ("shoe: forged frames", "shoe")
    assert rig.panel.lamps.get(Led.SHOE_FAULT) is LedMode.BLINK


def test_a_forged_frame_below_the_fault_rate_is_journaled_and_play_goes_on() -> None:
    """docs/protocol.md section 4c: one frame that failed its seal is journaled with the
    session's count; only the driver's DeviceFault (the rate) stops play."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    rig.table.handle(ForgedFrame(DeviceKind.CARD_READER, "bad tag", 2))
    assert rows(rig, "device")[-1] == {
        "device": "card_reader",
        "status": "forged",
        "reason": "bad tag",
        "count": 2,
    }
    assert rig.table.state is State.BETTING and rig.table.fault is None
    assert rows(rig, "fault") == []


def test_a_round_voided_before_its_announced_hole_card_came_tells_the_shoe_to_forget_it() -> None:
    """PA 635a.7(e): the dealer's second card is the last of the deal. The shoe was told
    to withhold the next card as the hole card; the round is voided before that card came
    out: the shoe is told to cancel, or it would withhold the next round's first card."""
    rig = seat_one_dealt(withholding=True)
    assert rig.shoe is not None and rig.shoe.told == ["expect_hole_card"]
    rig.table.handle(DeviceFault(DeviceKind.SHUFFLER, "jam"))
    supervisor(rig, Button.SUPERVISOR_VOID)
    assert rows(rig, "round_voided") != []
    assert rig.shoe.told == ["expect_hole_card", "cancel_hole_card"]


# --- the shoe's and shuffler's reports as the journal keeps them ----------------------------


def test_the_shuffle_commanded_and_the_counted_batch_are_journaled() -> None:
    """Six Spanish decks: 6 x 48 = 288 cards, 4 x 6 = 24 of each of the twelve ranks
    (ace 1 to king 13, no 10): the journal keeps the command and the shuffler's count."""
    rig = make_rig("PA")
    rig.table.begin()
    assert rows(rig, "shuffle_commanded") == [{"decks": 6}]
    rig.table.handle(full_batch(6))
    ranks = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "11", "12", "13"]
    assert rows(rig, "shuffle_done") == [{"card_count": 288, "per_rank": dict.fromkeys(ranks, 24)}]


def test_a_bad_batch_names_every_problem_and_blinks_the_shufflers_lamp() -> None:
    """A batch of 289 cards with a foreign 10 (six decks need 288, no 10s)."""
    rig = make_rig("PA")
    rig.table.begin()
    per_rank = ((1, 24), (2, 24), (3, 24), (4, 24), (5, 24), (6, 24), (7, 24), (8, 24), (9, 24))
    rig.table.handle(ShuffleDone(289, (*per_rank, (10, 1), (11, 24), (12, 24), (13, 24))))
    fault = rig.table.fault
    assert fault is not None and fault.code is FaultCode.BAD_BATCH and fault.device == "shuffler"
    assert fault.message == "batch has 289 cards, 6 decks need 288; batch holds 1 foreign 10s"
    assert rig.panel.lamps.get(Led.SHUFFLER_FAULT) is LedMode.BLINK


def test_next_while_the_shuffler_works_is_journaled_as_ignored_with_its_reason() -> None:
    rig = make_rig("PA")
    rig.table.begin()
    press(rig)
    assert rows(rig, "button_ignored") == [
        {"button": "next", "state": "shuffling", "reason": "the shuffler reports when it is done"}
    ]


def test_a_card_while_betting_is_rejected_by_name_and_faults_saying_why() -> None:
    rig = make_rig("PA")
    ready(rig)
    deal(rig, "4C")
    assert rows(rig, "card") == [{"role": "rejected", "card": "4C"}]
    fault = rig.table.fault
    assert fault is not None and fault.code is FaultCode.UNEXPECTED_CARD
    assert (
        fault.message
        == f"4C out of order: a card was drawn while {prompt_for(State.BETTING, True).text}"
    )


def test_a_card_while_the_dealer_pays_is_rejected() -> None:
    """PA 635a.7(p): settling, no card is due; the round in play does not take it."""
    rig = seat_one_dealt()
    press(rig)  # stand
    press(rig)  # reveal: 15 draws
    deal(rig, "KD")  # 25: the dealer busts, seat 1 is paid
    assert rig.table.state is State.SETTLING
    deal(rig, "3S")
    message = rejected(rig, "3S", FaultCode.UNEXPECTED_CARD)
    assert message.startswith("3S out of order: a card was drawn while ")


def test_pa_635a_7_p_a_resume_in_the_final_settlement_prompts_each_seat_still_to_settle() -> None:
    """PA 635a.7(p): the dealer settles seat by seat from the right, each prompted. Seats 1
    (9H 8D, 17) and 2 (KS 9S, 19) stand; the dealer 5C QS draws KD (25) and busts: both
    are paid $10.00. A card drawn while seat 2 is being paid stops play; the supervisor's
    resume comes back to seat 2's prompt, then seat 1's, before the next bets."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    bet(rig, 2)
    press(rig)
    deal(rig, "9H", "KS", "5C", "8D", "9S", "QS")
    press(rig)  # seat 1 stands
    press(rig)  # seat 2 stands
    press(rig)  # the hole card: 15, draws
    deal(rig, "KD")
    paying = [(Led.seat(2), LedMode.STEADY), (Led.PAY, LedMode.STEADY)]
    assert rig.table.state is State.SETTLING
    assert all(rig.panel.lamps.get(led) is mode for led, mode in paying)
    deal(rig, "3S")
    assert rig.table.state is State.FAULT
    supervisor(rig, Button.SUPERVISOR_RESUME)
    prompted = []
    while rig.table.state is State.SETTLING:
        prompted += [s for s in (1, 2) if rig.panel.lamps.get(Led.seat(s)) is LedMode.STEADY]
        assert rig.panel.lamps.get(Led.PAY) is LedMode.STEADY
        press(rig)
    assert prompted == [2, 1]
    assert rig.table.state is State.BETTING
    assert rows(rig, "seat_result") == [
        {"seat": 1, "net_cents": 1000},
        {"seat": 2, "net_cents": 1000},
    ]


def test_pa_635a_7_p_a_resume_in_a_one_seat_final_settlement_still_prompts_that_seat() -> None:
    """PA 635a.7(p), with one payment only: seat 1 (9H 8D, 17) stands, the dealer 5C QS
    draws KD and busts; a card drawn while seat 1 is being paid stops play; the resume
    prompts seat 1's payment again (the round's only one) before the next bets."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "5C", "8D", "QS")
    press(rig)  # seat 1 stands
    press(rig)  # the hole card: 15, draws
    deal(rig, "KD")
    assert rig.table.state is State.SETTLING
    deal(rig, "3S")
    assert rig.table.state is State.FAULT
    supervisor(rig, Button.SUPERVISOR_RESUME)
    assert rig.table.state is State.SETTLING
    assert rig.panel.lamps.get(Led.seat(1)) is LedMode.STEADY
    assert rig.panel.lamps.get(Led.PAY) is LedMode.STEADY
    press(rig)
    assert rig.table.state is State.BETTING
    assert rows(rig, "seat_result") == [{"seat": 1, "net_cents": 1000}]


def test_a_fault_open_in_a_settlement_at_a_restart_resumes_where_the_round_stands() -> None:
    """docs/procedure.md (settle_now): after a restart the settlement rows are in the
    journal already, so the resume goes on where the round stands, not to an empty
    settlement prompt. NJ: seat 1 (KS 6H, 16) surrenders against the up 9C and is being
    collected when the shoe is lost; the station restarts; the resume gives the turn to
    seat 2 (9D 8D, 17)."""
    from controller.table.recovery import read_journal

    rig = make_rig("NJ")
    ready(rig)
    bet(rig, 1)
    bet(rig, 2)
    press(rig)
    deal(rig, "KS", "9D", "9C", "6H", "8D")
    press(rig, Button.SURRENDER)
    assert rig.table.state is State.SETTLE_NOW
    rig.table.handle(DeviceLost(DeviceKind.SHOE, "unplugged"))
    again = make_rig("NJ")
    again.table.restore(read_journal(rig.journal.rows))
    again.table.resume_output()
    supervisor(again, Button.SUPERVISOR_RESUME)
    assert again.table.state is State.PLAYERS
    assert again.panel.lamps.get(Led.seat(2)) is LedMode.BLINK


def test_a_card_when_the_reveal_is_due_is_rejected_with_the_rounds_reason() -> None:
    """PA 635a.7(e)(4),(g): the players done, the hole card is turned before any card is
    drawn for the dealer: a card out of the shoe then is refused by the round."""
    rig = seat_one_dealt()
    press(rig)  # stand: the reveal is due
    deal(rig, "KD")
    message = rejected(rig, "KD", FaultCode.UNEXPECTED_CARD)
    assert message == "KD out of order: waiting for the hole card's reveal"


def test_a_seventh_copy_of_a_card_from_six_decks_is_a_duplicate_even_across_a_restart() -> None:
    """Six decks hold six nine of hearts: the burn, seat 1's 9 9, the hole 9 and the
    dealer's 9 (5 + 9 + 9 = 23) are five; the station restarts between rounds; the next
    round's sixth is dealt, the seventh is refused as a duplicate."""
    rig = make_rig("PA")
    ready(rig, burn="9H")
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "5C", "9H", "9H")
    press(rig)
    press(rig)
    deal(rig, "9H")
    while rig.table.state is State.SETTLING:
        press(rig)
    rig = restarted(rig)
    bet(rig, 2)
    press(rig)
    deal(rig, "9H", "6C")
    assert rig.table.fault is None
    deal(rig, "9H")
    message = rejected(rig, "9H", FaultCode.DUPLICATE_CARD)
    assert message == "9H drawn 7 times; the batch holds 6"


def test_a_foreign_card_is_journaled_as_the_shoe_described_it() -> None:
    """A 10 is no card of a Spanish deck (NY 5324.12(a): 48-card decks): rejected, named."""
    rig = make_rig("PA")
    ready(rig)
    rig.table.handle(ForeignCardDrawn("10S"))
    assert rows(rig, "card") == [{"role": "rejected", "card": "10S"}]
    fault = rig.table.fault
    assert fault is not None and (fault.code, fault.message) == (FaultCode.FOREIGN_CARD, "10S")


def test_a_cover_card_too_early_says_so_and_an_ordinary_one_is_journaled() -> None:
    """PA 635a.7(d), NJ 19.7(j)."""
    rig = make_rig("PA")
    rig.table.begin()
    rig.table.handle(CoverCardSeen())
    fault = rig.table.fault
    assert fault is not None
    assert fault.message == "the cover card came out before the first round of the shoe"
    rig = make_rig("PA")
    ready(rig)
    rig.table.handle(CoverCardSeen())
    assert rows(rig, "cover_card") == [{}]


def test_a_voided_rounds_hole_card_in_the_shoe_is_asked_for_so_every_card_is_accounted() -> None:
    """PA 635a.7(q): every card of a round is accounted for. The round is voided with its
    hole card still withheld by the shoe: the journal asks for it by its commitment and the
    shoe is told to give it."""
    rig = seat_one_dealt(withholding=True)
    commitment = "cd" * 32
    rig.table.handle(HoleCardDealt(commitment))
    rig.table.handle(DeviceFault(DeviceKind.CARD_READER, "door open"))
    supervisor(rig, Button.SUPERVISOR_VOID)
    assert rows(rig, "hole_card_reveal_requested") == [{"commitment": commitment, "reason": "void"}]
    assert rig.shoe is not None and rig.shoe.told[-1] == f"reveal {commitment}"


@pytest.mark.parametrize("new_dealer", [False, True])
def test_a_burn_interrupted_by_a_restart_keeps_its_reason(new_dealer: bool) -> None:
    """PA 635a.7(c), NJ 19.7(c): the burn after a load and a new dealer's burn. The station
    restarts before the card comes out: the burn row still says which burn it was, and a
    cover card at a new dealer's burn is the ordinary one (the shoe's last round), not the
    cover card before the shoe's first round."""

    rig = make_rig("PA")
    if new_dealer:
        ready(rig)
        press(rig, Button.DEALER_CHANGE)
    else:
        rig.table.begin()
        rig.table.handle(full_batch(6))
        rig.table.handle(ShoeLoaded())
    assert rig.table.state is State.BURNING
    again = restarted(rig, up=False)
    again.table.resume_output()
    assert again.table.state is State.BURNING
    if new_dealer:
        again.table.handle(CoverCardSeen())
        assert again.table.fault is None and again.table.reshuffle_pending
    deal(again, "6D")
    reason = "dealer_change" if new_dealer else "load"
    assert rows(again, "burn") == [{"card": "6D", "reason": reason}]
    assert again.table.state is State.BETTING


def test_a_void_after_the_withheld_hole_card_was_revealed_sends_the_shoe_no_cancel() -> None:
    """docs/protocol.md (0x28 HoleCardCancel): the cancel is sent at a void after the hole
    card's draw was named and before that card came out. Here it came out and was revealed
    (6S under the up 5C: the dealer's 11 must draw); the reader faults and the round is
    voided: the shoe holds no hole card and is told nothing more."""
    from controller.rules.commitment import hole_card_commitment

    nonce = "cd" * 16
    commitment = hole_card_commitment("6S", nonce)
    rig = seat_one_dealt(withholding=True)
    rig.table.handle(HoleCardDealt(commitment))
    press(rig)  # seat 1 stands
    assert rig.table.state is State.DEALER
    press(rig)  # the hole card is asked for
    rig.table.handle(HoleCardRevealed(commitment, parse_card("6S"), nonce))
    assert rig.table.state is State.DEALER  # 11: the dealer draws
    rig.table.handle(DeviceFault(DeviceKind.CARD_READER, "door open"))
    supervisor(rig, Button.SUPERVISOR_VOID)
    assert rows(rig, "round_voided") != []
    assert rig.shoe is not None
    assert rig.shoe.told == ["expect_hole_card", f"reveal {commitment}"]


def test_a_voided_rounds_hole_card_given_back_is_journaled_under_that_round() -> None:
    """PA 635a.7(q): the cards of a round can be reconstructed. The shoe gives back the
    voided round's hole card after the void: it is journaled as round 1's hole card."""
    from controller.rules.commitment import hole_card_commitment

    nonce = "ef" * 16
    commitment = hole_card_commitment("QS", nonce)
    rig = seat_one_dealt(withholding=True)
    rig.table.handle(HoleCardDealt(commitment))
    rig.table.handle(DeviceFault(DeviceKind.CARD_READER, "door open"))
    supervisor(rig, Button.SUPERVISOR_VOID)
    rig.table.handle(HoleCardRevealed(commitment, parse_card("QS"), nonce))
    revealed = [r for r in rig.journal.rows if r.kind == "hole_card_revealed"]
    assert [(r.data["card"], r.round_no) for r in revealed] == [("QS", 1)]


def test_a_round_the_station_sealed_found_at_a_restart_names_the_state_it_stopped_in() -> None:
    """The hole card the table sealed itself died with the station: the round can only be
    voided, and the journal's fault says where the round stood (the players' decisions)."""

    rig = seat_one_dealt()
    assert rig.table.state is State.PLAYERS
    again = restarted(rig, up=False)
    assert rows(again, "fault") == [
        {
            "code": "recovered_mid_round",
            "message": "restarted during round 1: a sealed hole card was never revealed",
            "state": "players",
        }
    ]


def test_a_void_of_a_round_found_sealed_at_a_restart_names_the_fault_that_stopped_it() -> None:
    """The round that could not be rebuilt is voided from its journal rows alone: the
    void names the fault it ends (code and text, as the fault row gave them) and returns
    seat 1's $10.00 (one money record, docs/journal.md)."""
    rig = seat_one_dealt()
    again = restarted(rig)
    supervisor(again, Button.SUPERVISOR_VOID)
    (void,) = rows(again, "round_voided")
    assert void["reason"] == (
        "recovered_mid_round: restarted during round 1: a sealed hole card was never revealed"
    )
    assert void["returned"] == [{"seat": 1, "wager": "main", "hand": None, "cents": 1000}]


def test_a_resume_with_two_devices_lost_is_refused_naming_both() -> None:
    """The supervisor may not resume while a device is still lost: the refusal names each
    lost device, in order, so the technician knows what to reconnect."""
    rig = seat_one_dealt()
    rig.table.handle(DeviceLost(DeviceKind.SHOE, "unplugged"))
    rig.table.handle(DeviceLost(DeviceKind.CARD_READER, "unplugged"))
    supervisor(rig, Button.SUPERVISOR_RESUME)
    assert rows(rig, "resolution_refused") == [
        {"resolution": "resume", "reason": "still lost: card_reader, shoe"}
    ]
    assert rig.table.state is State.FAULT


def test_a_journal_whose_open_round_has_no_state_row_restores_to_a_fault() -> None:
    """A journal cut or written by another hand: the round's rows without the state rows
    that go with them. The station still starts, in a fault the supervisor voids."""
    from controller.table.recovery import read_journal

    rig = seat_one_dealt()
    started = next(i for i, r in enumerate(rig.journal.rows) if r.kind == "round_started")
    cut = [r for r in rig.journal.rows[started:] if r.kind != "state"]
    again = make_rig("PA")
    again.table.restore(read_journal(cut))
    fault = again.table.fault
    assert again.table.state is State.FAULT and fault is not None
    assert fault.code is FaultCode.RECOVERED_MID_ROUND
    supervisor(again, Button.SUPERVISOR_VOID)
    assert rows(again, "round_voided") != []


def test_a_fault_open_between_rounds_at_a_restart_stays_open_and_resumes_to_betting() -> None:
    """A shoe lost while betting, the station restarted before the supervisor came: the
    same fault stands (nothing plays), and the supervisor's resume returns to betting."""

    other = make_rig("PA")  # a second table of the station, betting
    ready(other)
    rig = make_rig("PA")
    ready(rig)
    rig.table.handle(DeviceLost(DeviceKind.SHOE, "unplugged"))
    again = restarted(rig, up=False)
    assert other.table.state is State.BETTING
    fault = again.table.fault
    assert again.table.state is State.FAULT and fault is not None
    assert (fault.code, fault.message) == (FaultCode.DEVICE_LOST, "shoe lost: unplugged")
    supervisor(again, Button.SUPERVISOR_RESUME)
    assert again.table.state is State.BETTING


def test_a_restart_of_one_table_with_a_round_open_leaves_the_other_table_alone() -> None:
    """Two tables in one station share the procedure's machine: restoring one into its
    recovered-mid-round fault must not stop the other."""

    other = make_rig("PA")
    ready(other)
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H")
    again = restarted(rig, up=False)
    assert again.table.state is State.FAULT
    assert other.table.state is State.BETTING and rig.table.state is State.DEALING


@pytest.mark.parametrize("begun_only", [False, True])
def test_a_restart_between_rounds_leaves_the_other_table_alone(begun_only: bool) -> None:
    """Restored to betting, or to a shuffle commanded again: the second table of the
    station, in the middle of its deal, stays there."""

    other = make_rig("PA")
    ready(other)
    bet(other, 1)
    press(other)
    rig = make_rig("PA")
    if begun_only:
        rig.table.begin()
    else:
        ready(rig)
    again = restarted(rig, up=False)
    assert again.table.state is (State.SHUFFLING if begun_only else State.BETTING)
    assert other.table.state is State.DEALING


def test_after_a_restart_the_shoe_is_asked_again_for_a_voided_rounds_hole_card() -> None:
    """PA 635a.7(q): the answer to the void's request may have been lost with the station:
    once the devices are up, the shoe is asked again, and the journal says so under the
    voided round."""

    commitment = "ab" * 32
    rig = seat_one_dealt(withholding=True)
    rig.table.handle(HoleCardDealt(commitment))
    rig.table.handle(DeviceFault(DeviceKind.CARD_READER, "door open"))
    supervisor(rig, Button.SUPERVISOR_VOID)
    again = restarted(rig, True, up=False)
    again.table.resume_output()
    assert again.shoe is not None and again.shoe.told[0] == f"reveal {commitment}"
    asked = [r for r in again.journal.rows if r.kind == "hole_card_reveal_requested"]
    assert [(r.data, r.round_no) for r in asked] == [
        ({"commitment": commitment, "reason": "void"}, 1)
    ]


def test_a_round_voided_after_a_restart_keeps_each_seats_settled_match_in_its_result() -> None:
    """PA 635a.7(f): the Match wagers were settled right after the deal (seat 1's 9D
    matches the up 9C's rank: table A 4:1 on $5.00 = +$20.00; seat 2's 4H 6S lose their
    $5.00). The station restarts in the players' turn with the hole card it sealed itself:
    the round is voided, the Spanish 21 wagers go back, and each seat's result is its own
    Match (seat 3, sensed but not weighed, has no known result)."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000, match=500)
    bet(rig, 2, 1000, match=500)
    rig.table.handle(SeatWagerChanged(3, WagerSpot.MAIN, True, None))
    press(rig)
    deal(rig, "9D", "4H", "2C", "9C", "5S", "6S", "3C", "7H")
    while rig.table.state is State.MATCH:
        press(rig)
    assert rig.table.state is State.PLAYERS
    again = restarted(rig)
    supervisor(again, Button.SUPERVISOR_VOID)
    assert [(r["seat"], r["net_cents"]) for r in rows(again, "seat_result")] == [
        (1, 2000),
        (2, -500),
        (3, None),
    ]


def test_a_round_voided_after_the_shoe_ran_out_goes_to_the_shuffle() -> None:
    """The shoe ran out during the round; the supervisor voids it: nothing is left to deal
    from, so the table goes to the shuffle (a fresh shuffle is commanded), not to betting."""
    rig = shoe_ran_out_in_the_deal()
    supervisor(rig, Button.SUPERVISOR_VOID)
    assert rows(rig, "round_voided") != []
    assert rig.table.state is State.SHUFFLING and rig.shuffler.commands == [6, 6]


def test_a_fault_during_a_fault_keeps_the_lost_devices_lamp_and_a_void_names_the_last() -> None:
    """docs/panel.md: in a fault the failing device's lamp blinks beside FAULT. The shoe is
    lost in the deal (its lamp blinks); a card comes while the fault stands: a fault of its
    own, naming no device, that takes the prompt. The shoe is still the failing device, so
    its lamp still blinks; the supervisor's void names the fault that stands, the card's,
    as its fault row gave it (code and text)."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H")
    rig.table.handle(DeviceLost(DeviceKind.SHOE, "unplugged"))
    assert rig.panel.lamps[Led.SHOE_FAULT] is LedMode.BLINK
    deal(rig, "5C")  # drawn while the fault stands
    second = rows(rig, "fault")[-1]
    assert second["code"] == "unexpected_card" and second["state"] == "fault"
    fault = rig.table.fault
    assert fault is not None
    assert (fault.code.value, fault.message) == (second["code"], second["message"])
    assert rig.panel.lamps[Led.SHOE_FAULT] is LedMode.BLINK
    supervisor(rig, Button.SUPERVISOR_VOID)
    (void,) = rows(rig, "round_voided")
    assert void["reason"] == f"unexpected_card: {second['message']}"


def test_ny_5324_12_b_4_a_wager_lifted_during_a_fault_in_the_round_is_a_fault_too() -> None:
    """NY 5324.12(b)(4): no wager withdrawn after the first card until its decision is
    rendered and implemented; a fault stops play but settles nothing. The shoe is lost after
    seat 1's first card; seat 1 lifts its $10.00 while the fault stands: a wager fault
    naming the spot joins the prompt (docs/panel.md), so the supervisor sees it before any
    resume. Between rounds (no round open) a wager lifted during a fault is no fault."""
    rig = make_rig("NY")
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H")
    rig.table.handle(DeviceLost(DeviceKind.SHOE, "unplugged"))
    rig.table.handle(SeatWagerChanged(1, WagerSpot.MAIN, False, 0))
    second = rows(rig, "fault")[-1]
    assert second["code"] == "wager_changed" and second["state"] == "fault"
    assert "seat 1 main" in second["message"]
    fault = rig.table.fault
    assert fault is not None and fault.code is FaultCode.WAGER_CHANGED
    assert rig.panel.lamps[Led.SHOE_FAULT] is LedMode.BLINK  # the shoe is still the one lost

    between = make_rig("NY")
    ready(between)
    bet(between, 1, 1000)
    between.table.handle(DeviceLost(DeviceKind.SHOE, "unplugged"))
    between.table.handle(SeatWagerChanged(1, WagerSpot.MAIN, False, 0))
    assert [r["code"] for r in rows(between, "fault")] == ["device_lost"]


def test_a_lost_wager_collected_during_a_fault_in_the_final_settlement_is_journalled() -> None:
    """docs/journal.md: what a settlement explains is journalled. Seat 1's 9H 8D (17) loses
    to the dealer's 5C QS 3D (18); the shoe is lost in the final settlement and the dealer
    takes seat 1's chips while the fault stands: `wager_collected`, as without the fault,
    and no wager fault (the settlement explains the empty spot)."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "5C", "8D", "QS")
    press(rig)  # seat 1 stands
    press(rig)  # the hole card turned: 15
    deal(rig, "3D")
    assert rig.table.state is State.SETTLING
    rig.table.handle(DeviceLost(DeviceKind.SHOE, "unplugged"))
    # The sensor says the spot is empty (no amount with it): it reads 0 cents.
    rig.table.handle(SeatWagerChanged(1, WagerSpot.MAIN, False))
    assert rows(rig, "wager_collected") == [{"seat": 1, "spot": "main", "cents": 0}]
    assert [r["code"] for r in rows(rig, "fault")] == ["device_lost"]


def test_insurance_put_down_during_a_fault_while_it_is_offered_is_taken_at_its_close() -> None:
    """PA 635a.8: insurance is offered after the deal against an ace. The shoe is lost while
    it is offered; seat 1 puts $5.00 (half its $10.00) on its insurance spot during the
    fault: no fault of its own; resumed, the close takes it."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "AC", "8D", "QS")
    assert rig.table.state is State.INSURANCE
    rig.table.handle(DeviceLost(DeviceKind.SHOE, "unplugged"))
    rig.table.handle(SeatWagerChanged(1, WagerSpot.INSURANCE, True, 500))
    assert [r["code"] for r in rows(rig, "fault")] == ["device_lost"]
    rig.table.handle(DeviceConnected(DeviceKind.SHOE, "S-1", "fw-1.2"))
    supervisor(rig, Button.SUPERVISOR_RESUME)
    assert rig.table.state is State.INSURANCE
    press(rig)
    assert rows(rig, "insurance_taken") == [{"seat": 1, "cents": 500}]


def hole_card_mismatch() -> Rig:
    """Seat 1 9H 8D stands against the up KC; the reader said no blackjack but the hole card
    turns AS (a blackjack): a hole card mismatch."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "KC", "8D", "AS")
    press(rig)
    rig.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))
    press(rig)  # stand
    press(rig)  # reveal
    assert rig.table.fault is not None
    assert rig.table.fault.code is FaultCode.HOLE_CARD_MISMATCH
    return rig


def hole_card_mismatch_then_shoe_lost() -> Rig:
    """The mismatch; the shoe is lost while that fault stands, and comes back: the device's
    fault took the prompt."""
    rig = hole_card_mismatch()
    rig.table.handle(DeviceLost(DeviceKind.SHOE, "unplugged"))
    rig.table.handle(DeviceConnected(DeviceKind.SHOE, "S-1", "fw-1.2"))
    fault = rig.table.fault
    assert fault is not None and fault.code is FaultCode.DEVICE_LOST
    return rig


def test_a_fault_that_cannot_be_resumed_is_not_resumed_once_another_fault_joins_it() -> None:
    """A hole card the reader misread is never played on (the round is voided); a device
    lost and back while that fault stands does not make it resumable: the supervisor's
    resume is refused, naming the mismatch, and the void is taken."""
    rig = hole_card_mismatch_then_shoe_lost()
    supervisor(rig, Button.SUPERVISOR_RESUME)
    assert rig.table.state is State.FAULT
    (refused,) = rows(rig, "resolution_refused")
    assert refused["reason"] == "hole_card_mismatch cannot be resumed: void or reshuffle"
    assert rows(rig, "fault_resolved") == []
    supervisor(rig, Button.SUPERVISOR_VOID)
    assert rig.table.state is State.BETTING and rows(rig, "round_voided") != []


def test_a_wager_lifted_while_a_settled_round_awaits_its_void_is_not_collected() -> None:
    """The hole card AS under the up KC makes a blackjack the reader denied: the rules have
    settled the round (seat 1's 9H 8D loses), but the mismatch stops it before any
    settlement and it can only be voided. Seat 1 lifts its $10.00 meanwhile: nothing was
    collected (no `wager_collected`) and nothing is forbidden (no wager fault); the void
    returns the $10.00 (docs/journal.md, Void)."""
    rig = hole_card_mismatch()
    rig.table.handle(SeatWagerChanged(1, WagerSpot.MAIN, False, 0))
    assert rows(rig, "wager_collected") == []
    assert [r["code"] for r in rows(rig, "fault")] == ["hole_card_mismatch"]
    supervisor(rig, Button.SUPERVISOR_VOID)
    (void,) = rows(rig, "round_voided")
    assert void["returned"] == [{"seat": 1, "wager": "main", "hand": 1, "cents": 1000}]


def test_a_restart_in_the_round_keeps_the_refusal_of_a_fault_that_cannot_be_resumed() -> None:
    """The same stop, the station restarted in the round: the restart's own fault takes the
    prompt, and the resume is refused for the mismatch before it."""
    again = restarted(hole_card_mismatch_then_shoe_lost())
    fault = again.table.fault
    assert fault is not None and fault.code is FaultCode.RECOVERED_MID_ROUND
    supervisor(again, Button.SUPERVISOR_RESUME)
    (refused,) = rows(again, "resolution_refused")
    assert refused["reason"] == "hole_card_mismatch cannot be resumed: void or reshuffle"


def test_a_bad_batch_stays_unresumable_across_a_restart_after_another_fault_joined_it() -> None:
    """NY 5324.12(a): a batch of the wrong composition is never played. A card is drawn
    while that fault stands (a fault of its own, which takes the prompt); the station
    restarts: the restored fault is the card's, and a resume is still refused for the
    batch before it; the reshuffle is taken."""
    rig = make_rig("PA")
    rig.table.begin()
    per_rank = dict(full_batch(6).per_rank)
    per_rank[10] = 1  # a foreign 10 in the batch
    per_rank[7] -= 1
    rig.table.handle(ShuffleDone(288, tuple(per_rank.items())))
    deal(rig, "5C")
    again = restarted(rig)
    fault = again.table.fault
    assert fault is not None and fault.code is FaultCode.UNEXPECTED_CARD
    supervisor(again, Button.SUPERVISOR_RESUME)
    assert again.table.state is State.FAULT
    (refused,) = rows(again, "resolution_refused")
    assert refused["reason"] == "bad_batch cannot be resumed: void or reshuffle"
    supervisor(again, Button.SUPERVISOR_RESHUFFLE)
    assert again.table.state is State.SHUFFLING


def test_a_fault_raised_while_the_station_starts_is_still_open_after_a_restart() -> None:
    """The shuffler reports a jam while the station starts, before any state of play (the
    fault is the journal's first row of the table); the station restarts: the fault is
    still open, as journaled, with starting the table as its resume point."""
    rig = make_rig("PA")
    rig.table.handle(DeviceFault(DeviceKind.SHUFFLER, "jam"))
    assert rows(rig, "state") == [{"state": "fault"}]
    again = restarted(rig)
    assert again.table.state is State.FAULT
    fault = again.table.fault
    assert fault is not None
    assert (fault.code, fault.message) == (FaultCode.DEVICE_FAULT, "shuffler: jam")
    assert again.table.t.resume_to is State.STARTING


def test_a_fault_raised_while_the_station_starts_resumes_into_the_first_shuffle() -> None:
    """The shuffler reports a jam before the first shuffle is commanded; the supervisor's
    resume goes on with the start: the table enters shuffling and commands the shuffle of
    the profile's decks, no fault left (it was left in the fault state with no fault, and
    the next supervisor button failed), before and after a restart."""
    for restart in (False, True):
        rig = make_rig("PA")
        rig.table.handle(DeviceFault(DeviceKind.SHUFFLER, "jam"))
        assert rig.shuffler.commands == []
        if restart:
            rig = restarted(rig)
        supervisor(rig, Button.SUPERVISOR_RESUME)
        assert rig.table.state is State.SHUFFLING, restart
        assert rig.table.fault is None
        assert rig.shuffler.commands == [rig.table.t.settings.decks]
        assert rows(rig, "fault_resolved") == [{"resolution": "resume", "code": "device_fault"}]
        assert rows(rig, "state")[-1] == {"state": "shuffling"}


def test_a_void_after_a_restart_returns_the_insurance_taken_beside_the_main_wager() -> None:
    """docs/journal.md (Void): an unsettled insurance wager is returned. Seat 1 $10.00 on
    9H 8D against the up AC takes $5.00 of insurance; the table, waiting for the peek with
    the hole card it sealed itself, restarts: the round cannot be rebuilt and is voided
    from its rows, both wagers going back and nothing standing (seat 1's net: $0.00)."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "AC", "8D", "QS")
    rig.table.handle(SeatWagerChanged(1, WagerSpot.INSURANCE, True, 500))
    press(rig)  # insurance closes: the peek is asked for
    assert rows(rig, "insurance_taken") == [{"seat": 1, "cents": 500}]
    again = restarted(rig)
    supervisor(again, Button.SUPERVISOR_VOID)
    (void,) = rows(again, "round_voided")
    assert void["stand"] == []
    assert void["returned"] == [
        {"seat": 1, "wager": "main", "hand": None, "cents": 1000},
        {"seat": 1, "wager": "insurance", "hand": None, "cents": 500},
    ]
    assert rows(again, "seat_result") == [{"seat": 1, "net_cents": 0}]


def test_a_void_after_a_restart_lets_a_settled_match_stand_and_returns_only_the_main() -> None:
    """PA 635a.7(f): Match the Dealer is settled right after the deal (seat 1's 9H 8D match
    no rank of the up 5C: its $5.00 is lost). The table restarts with the hole card it
    sealed itself; the void lets the Match settlement stand (docs/journal.md: `stand`) and
    returns the $10.00 main wager alone: the Match wager is not given back as well."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000, match=500)
    press(rig)
    deal(rig, "9H", "5C", "8D", "QS")
    assert rig.table.state is State.MATCH
    again = restarted(rig)
    supervisor(again, Button.SUPERVISOR_VOID)
    (void,) = rows(again, "round_voided")
    assert void["stand"] == [{"seat": 1, "wager": "match", "hand": None, "net_cents": -500}]
    assert void["returned"] == [{"seat": 1, "wager": "main", "hand": None, "cents": 1000}]


def insurance_lost_at_the_peek() -> Rig:
    """PA: seat 1 $10.00 on 9H 8D against the up AC (the hole card QS) takes $5.00 of
    insurance; insurance closes and the reader finds no blackjack."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "AC", "8D", "QS")
    rig.table.handle(SeatWagerChanged(1, WagerSpot.INSURANCE, True, 500))
    press(rig)  # insurance closes
    press(rig)  # the dealer asks the reader
    rig.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))
    return rig


def test_a_void_after_a_restart_lets_insurance_settled_at_the_peek_stand() -> None:
    """PA 635a.7(g): insurance is settled at the peek. Seat 1 $10.00 on 9H 8D against the
    up AC takes $5.00 of insurance; the reader finds no blackjack, the insurance is lost
    (-$5.00). The table restarts with the hole card it sealed itself; the void lets the
    insurance settlement stand and returns the main wager alone, not the insurance too."""
    rig = insurance_lost_at_the_peek()
    again = restarted(rig)
    supervisor(again, Button.SUPERVISOR_VOID)
    (void,) = rows(again, "round_voided")
    assert void["stand"] == [{"seat": 1, "wager": "insurance", "hand": None, "net_cents": -500}]
    assert void["returned"] == [{"seat": 1, "wager": "main", "hand": None, "cents": 1000}]
    assert rows(again, "seat_result") == [{"seat": 1, "net_cents": -500}]


def test_the_deal_lights_no_seat_lamp_and_its_prompt_row_names_the_state() -> None:
    """docs/panel.md: a seat's lamp blinks for the seat to act; in the deal no seat acts
    (the cards go round from the shoe, PA 635a.7(e)): the panel shows the deal's prompt
    alone, and the journal's prompt row names the state it prompts."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    bet(rig, 2)
    press(rig)
    assert rig.table.state is State.DEALING
    dealing = {led.value: mode.value for led, mode in prompt_for(State.DEALING, True).lamps.items()}
    assert rows(rig, "prompt")[-1] == {"state": "dealing", "lamps": dealing}
    assert rig.panel.lamps == dict(prompt_for(State.DEALING, True).lamps)
    deal(rig, "9H")
    assert rig.panel.lamps == dict(prompt_for(State.DEALING, True).lamps)


def test_a_void_during_an_early_settlement_leaves_no_settlement_lamp_lit_for_betting() -> None:
    """PA 635a.7(g): seat 1's lost insurance is being collected (seat 1's lamp with
    COLLECT) when the card reader faults; the supervisor voids the round. Betting opens
    with its own prompt only: the settlement that was prompted belongs to the voided round,
    and no seat or COLLECT lamp stays lit (docs/panel.md)."""
    rig = insurance_lost_at_the_peek()
    assert rig.table.state is State.SETTLE_NOW
    assert rig.panel.lamps[Led.COLLECT] is LedMode.STEADY
    rig.table.handle(DeviceFault(DeviceKind.CARD_READER, "door open"))
    supervisor(rig, Button.SUPERVISOR_VOID)
    assert rig.table.state is State.BETTING
    assert rig.panel.lamps == dict(prompt_for(State.BETTING, True).lamps)
    betting = {led.value: mode.value for led, mode in prompt_for(State.BETTING, True).lamps.items()}
    assert rows(rig, "prompt")[-1] == {"state": "betting", "lamps": betting}


def test_a_match_wager_sensed_but_not_weighed_is_still_settled_after_a_restart_in_the_deal() -> (
    None
):
    """PA 635a.7(f): Match the Dealer is settled right after the deal. Seat 1's sensors
    sense its Spanish 21 and Match wagers but cannot weigh them (docs/procedure.md: the
    journal's amounts are null). The station restarts before the hole card; resumed, the
    deal ends in the Match settlement as it would have without the restart: seat 1's 9H 8D
    match no rank of the up 5C, the Match wager is lost (one stake, amount unknown) and the
    dealer is prompted to collect it."""
    rig = make_rig("PA")
    ready(rig)
    rig.table.handle(SeatWagerChanged(1, WagerSpot.MAIN, True, None))
    rig.table.handle(SeatWagerChanged(1, WagerSpot.MATCH, True, None))
    press(rig)
    deal(rig, "9H", "5C", "8D")
    assert rows(rig, "round_started")[0]["seats"] == [
        {"seat": 1, "wager_cents": None, "match_cents": None}
    ]
    again = restarted(rig)
    supervisor(again, Button.SUPERVISOR_RESUME)
    deal(again, "QS")
    assert again.table.state is State.MATCH
    assert again.panel.lamps[Led.SEAT_1] is LedMode.STEADY
    assert again.panel.lamps[Led.COLLECT] is LedMode.STEADY
    assert rows(again, "match_settled") == [
        {
            "seat": 1,
            "wager": "match",
            "outcome": "lose",
            "odds": None,
            "net_cents": None,
            "net_stakes": "-1",
            "matches": 0,
        }
    ]


def test_a_hole_card_the_station_sealed_is_not_rebuilt_though_the_shoe_now_withholds() -> None:
    """docs/journal.md (restart in the hole-card window): `hole_card_dealt` says who sealed
    the hole card; one the station sealed had its nonce in memory only, so the round cannot
    be rebuilt, whatever shoe the restarted station has, and the shoe is never asked for a
    card it does not hold. Here the station sealed it and restarts with a withholding shoe:
    the resume is refused, and the shoe is told nothing about that hole card."""
    rig = seat_one_dealt()
    assert rows(rig, "hole_card_dealt")[0]["sealed_by"] == "station"
    again = restarted(rig, withholding=True)
    supervisor(again, Button.SUPERVISOR_RESUME)
    assert rows(again, "resolution_refused") == [
        {"resolution": "resume", "reason": "round 1 cannot be rebuilt: void it"}
    ]
    assert again.shoe is not None
    assert not any(told.startswith("reveal") for told in again.shoe.told)


def test_a_journal_from_before_sealed_by_lets_the_stations_shoe_decide_who_sealed_it() -> None:
    """docs/journal.md: a journal from before `sealed_by` was written names neither; then
    the table's shoe decides. A station without a withholding shoe sealed the hole card
    itself: such a round cannot be rebuilt, and the resume is refused."""
    from table_support import JournalRow

    from controller.table.recovery import read_journal

    rig = seat_one_dealt()
    old = [
        JournalRow(r.kind, {k: v for k, v in r.data.items() if k != "sealed_by"}, r.round_no)
        for r in rig.journal.rows
    ]
    again = make_rig("PA")
    again.table.restore(read_journal(old))
    again.table.resume_output()
    supervisor(again, Button.SUPERVISOR_RESUME)
    assert rows(again, "resolution_refused") == [
        {"resolution": "resume", "reason": "round 1 cannot be rebuilt: void it"}
    ]


def test_insurance_taken_before_a_restart_is_settled_at_the_peek_after_the_resume() -> None:
    """PA 635a.7(g): insurance is settled at the peek. Seat 1 $10.00 on 9H 8D against the
    up AC takes $5.00 of insurance; the hole card is the withholding shoe's, so the round is
    rebuilt at the restart. Resumed, the reader's "no blackjack" settles that insurance as
    lost (-$5.00) and prompts seat 1's lamp with COLLECT, as without the restart."""
    rig = make_rig("PA", withholding=True)
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "AC", "8D")
    rig.table.handle(HoleCardDealt("ab" * 32))
    rig.table.handle(SeatWagerChanged(1, WagerSpot.INSURANCE, True, 500))
    press(rig)  # insurance closes: the peek is asked for
    again = restarted(rig, withholding=True)
    supervisor(again, Button.SUPERVISOR_RESUME)
    assert again.table.state is State.PEEKING
    press(again)  # the dealer asks the reader
    assert again.reader.checks != []
    again.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))
    assert rows(again, "insurance") == [
        {"seat": 1, "wager": "insurance", "outcome": "lose", "odds": None, "net_cents": -500}
    ]
    assert again.table.state is State.SETTLE_NOW
    assert again.panel.lamps[Led.SEAT_1] is LedMode.STEADY
    assert again.panel.lamps[Led.COLLECT] is LedMode.STEADY


def test_a_seat_without_a_match_wager_gets_no_match_settlement_after_a_restart_in_the_deal() -> (
    None
):
    """PA 635a.7(f): only a Match the Dealer wager made is settled. Seat 1 wagers $10.00 on
    Spanish 21 alone; the station restarts before the hole card. Resumed, the deal ends in
    the players' turn: no Match settlement is prompted or journaled for seat 1."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "5C", "8D")
    assert rows(rig, "round_started")[0]["seats"] == [
        {"seat": 1, "wager_cents": 1000, "match_cents": 0}
    ]
    again = restarted(rig)
    supervisor(again, Button.SUPERVISOR_RESUME)
    deal(again, "QS")
    assert again.table.state is State.PLAYERS
    assert rows(again, "match_settled") == []


def resumed_without_state_rows(rig: Rig, profile: str, *, withholding: bool = False) -> Rig:
    """The round's journal from its start with every ``state`` row cut (cut, or written by
    another hand), restored on a new station and resumed: the resume is taken (no
    ``resolution_refused``)."""
    from controller.table.recovery import read_journal

    started = next(i for i, r in enumerate(rig.journal.rows) if r.kind == "round_started")
    cut = [r for r in rig.journal.rows[started:] if r.kind != "state"]
    again = make_rig(profile, withholding=withholding)
    again.table.restore(read_journal(cut))
    supervisor(again, Button.SUPERVISOR_RESUME)
    assert rows(again, "resolution_refused") == []
    return again


def test_a_journal_cut_of_its_state_rows_still_closes_insurance_at_the_peek() -> None:
    """A journal without its state rows (cut, or written by another hand): insurance was
    taken and the reader answered, so insurance had closed (PA 635a.7(g)); the round, its
    hole card the withholding shoe's, is still rebuilt from its other rows and can be
    resumed, not left to a void."""
    rig = make_rig("PA", withholding=True)
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "AC", "8D")
    rig.table.handle(HoleCardDealt("ab" * 32))
    rig.table.handle(SeatWagerChanged(1, WagerSpot.INSURANCE, True, 500))
    press(rig)  # insurance closes
    press(rig)  # the dealer asks the reader
    rig.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))
    press(rig)  # seat 1's insurance collected
    assert rig.table.state is State.PLAYERS
    again = resumed_without_state_rows(rig, "PA", withholding=True)
    assert again.table.state is State.PLAYERS


def test_a_journal_cut_of_its_state_rows_closes_insurance_at_the_first_decision() -> None:
    """NJ 19.7(g) deals no hole card, so no peek follows insurance: in a journal without
    its state rows the first decision shows that insurance had closed. Seat 1 $10.00 on
    9H 8D against the up AC takes $5.00 of insurance and stands; the round is rebuilt from
    the cut journal and resumes to the dealer's card."""
    rig = make_rig("NJ")
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "AC", "8D")
    rig.table.handle(SeatWagerChanged(1, WagerSpot.INSURANCE, True, 500))
    press(rig)  # insurance closes
    press(rig)  # seat 1 stands
    assert rig.table.state is State.DEALER
    again = resumed_without_state_rows(rig, "NJ")
    assert again.table.state is State.DEALER


def test_a_journal_cut_of_its_state_rows_closes_insurance_at_the_dealers_card() -> None:
    """NJ 19.7(g): no hole card, no peek. Seat 1's AH KD is a blackjack against the up AC,
    so no decision follows insurance either: in a journal without its state rows, the
    dealer's card shows that insurance had closed. Seat 1 takes $5.00 of insurance, the
    dealer's 5D comes; the round is rebuilt from the cut journal and the resume is taken."""
    rig = make_rig("NJ")
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "AH", "AC", "KD")
    rig.table.handle(SeatWagerChanged(1, WagerSpot.INSURANCE, True, 500))
    press(rig)  # insurance closes: no decision is due
    deal(rig, "5D")
    assert rig.table.state is State.SETTLING
    again = resumed_without_state_rows(rig, "NJ")
    assert again.table.state is State.SETTLING


def test_after_a_restart_the_reveal_asks_the_shoe_for_the_journaled_commitment() -> None:
    """docs/journal.md (restart in the hole-card window): the shoe keeps card and nonce
    across the restart; at the reveal the dealer's NEXT asks it for the card of the
    commitment `hole_card_dealt` journaled, and for no other."""
    commitment = "cd" * 32
    rig = seat_one_dealt(withholding=True)
    rig.table.handle(HoleCardDealt(commitment))
    assert rig.table.state is State.PLAYERS
    again = restarted(rig, True)
    supervisor(again, Button.SUPERVISOR_RESUME)
    press(again)  # seat 1 stands
    assert again.table.state is State.DEALER
    press(again)  # the reveal
    assert again.shoe is not None
    assert [t for t in again.shoe.told if t.startswith("reveal")] == [f"reveal {commitment}"]


def test_a_dealer_blackjack_found_at_the_peek_before_a_restart_still_ends_the_round() -> None:
    """PA 635a.7(g): the reader finds the dealer's blackjack under the up AC: no player
    acts, the hole card is turned next. The station restarts there (the hole card the
    withholding shoe's); resumed, the round stands where it stood, at the dealer's reveal,
    not back at the players' decisions."""
    rig = make_rig("PA", withholding=True)
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "AC", "8D")
    rig.table.handle(HoleCardDealt("ab" * 32))
    press(rig)  # no insurance taken: insurance closes
    press(rig)  # the dealer asks the reader
    rig.table.handle(PeekResult(PeekAnswer.BLACKJACK))
    assert rig.table.state is State.DEALER
    again = restarted(rig, True)
    supervisor(again, Button.SUPERVISOR_RESUME)
    assert again.table.state is State.DEALER


def test_a_restart_during_the_shuffle_commands_the_shuffle_again() -> None:
    """The station stopped after commanding the shuffle, before the batch came back: once
    the devices are up the shuffle is commanded again (the batch is counted before play,
    NY 5324.12(a)); nothing is dealt from a batch the station never counted."""
    rig = make_rig("PA")
    rig.table.begin()
    assert rig.shuffler.commands == [6]
    again = restarted(rig, up=False)
    assert again.table.state is State.SHUFFLING and again.shuffler.commands == []
    again.table.resume_output()
    assert again.shuffler.commands == [6]


def test_a_restart_between_rounds_resumes_showing_the_bets_prompt_without_a_new_state() -> None:
    """Restored to betting, the table shows (and journals) the betting prompt; it enters no
    state (the journal's `state` rows are the procedure's moves: docs/journal.md)."""
    rig = make_rig("PA")
    ready(rig)
    again = restarted(rig, up=False)
    before = len(again.journal.rows)
    again.table.resume_output()
    assert again.table.state is State.BETTING
    assert [r.kind for r in again.journal.rows[before:]] == ["prompt"]
    assert again.panel.lamps == rig.panel.lamps


def test_a_fault_the_table_raises_for_a_device_blinks_that_devices_lamp() -> None:
    """``Table.raise_fault`` with a device: the fault names it and its fault lamp blinks
    (the supervisor sees which device to look at); the message is the one given."""
    rig = make_rig("PA")
    ready(rig)
    rig.table.raise_fault(FaultCode.DEVICE_FAULT, "shuffler: jammed", device="shuffler")
    fault = rig.table.fault
    assert fault is not None and (fault.message, fault.device) == ("shuffler: jammed", "shuffler")
    assert rig.panel.lamps[Led.SHUFFLER_FAULT] is LedMode.BLINK
    assert rows(rig, "fault")[-1]["message"] == "shuffler: jammed"


def test_each_wager_spot_report_is_journaled_as_a_seat_wager_event() -> None:
    """docs/journal.md: a raw device event `event` with `type: seat_wager` and `seat, spot,
    present, cents` (the restore reads the last report of each spot from these rows)."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 2, 1500)
    rig.table.handle(SeatWagerChanged(3, WagerSpot.MAIN, True, None))
    rig.table.handle(SeatWagerChanged(2, WagerSpot.MAIN, False, 0))
    assert rows(rig, "event") == [
        {"type": "seat_wager", "seat": 2, "spot": "main", "present": True, "cents": 1500},
        {"type": "seat_wager", "seat": 3, "spot": "main", "present": True, "cents": None},
        {"type": "seat_wager", "seat": 2, "spot": "main", "present": False, "cents": 0},
    ]


def test_a_closed_table_leaves_the_shared_machine() -> None:
    """``Table.close``: the station's machine no longer holds the table (a closed table is
    not kept alive nor moved by it); the other tables stay."""
    from controller.table.machine import shared_machine

    other = make_rig("PA")
    rig = make_rig("PA")
    rig.table.close()
    models = shared_machine().models
    assert all(m is not rig.table.t for m in models)
    assert any(m is other.table.t for m in models)


def test_the_journal_keeps_the_shoes_count_where_its_draws_rows_do_not_give_it() -> None:
    """docs/protocol.md, "Draw numbers": load 3, then the burn (draw 1), the deal (2..5),
    draw 8 (6 and 7 lost: a gap), draw 4 again as another card (delivered: a rejected card),
    and the cover card (9). A ``shoe_count`` row after the load and before each draw out of
    sequence; every draw's row counts one, so recovery reads 9."""
    rig = make_rig("PA")
    rig.table.begin()
    rig.table.handle(full_batch(rig.table.t.settings.decks))
    rig.table.handle(ShoeLoaded(load=3))
    rig.table.handle(CardDrawn(parse_card("2C"), draw=1))
    bet(rig, 1)
    press(rig)
    for draw, text in enumerate(("9H", "5C", "8D", "QS"), start=2):
        rig.table.handle(CardDrawn(parse_card(text), draw=draw))
    assert rows(rig, "shoe_count") == [{"load": 3, "last": 0}]
    rig.table.handle(CardDrawn(parse_card("3H"), draw=8))  # seat 1 hits: 6 and 7 never came
    rig.table.handle(CardDrawn(parse_card("4H"), draw=4))  # draw 4 again, another card
    rig.table.handle(CoverCardSeen(draw=9))
    assert rows(rig, "shoe_count") == [
        {"load": 3, "last": 0},
        {"load": 3, "last": 7},
        {"load": 3, "last": 7},
    ]
    count = read_journal(rig.journal.rows).shoe_count
    assert (count.load, count.last) == (3, 9)
    assert rig.table.t.shoe_count == count
    # A restart resumes the count: the next draw in sequence writes no row of its own.
    again = restarted(rig)
    assert again.table.t.shoe_count == count
    before = len(rows(again, "shoe_count"))
    again.table.handle(CardDrawn(parse_card("6H"), draw=10))
    assert len(rows(again, "shoe_count")) == before


def test_a_shoe_empty_after_a_number_that_is_not_the_count_sets_it() -> None:
    rig = make_rig("PA")
    rig.table.begin()
    rig.table.handle(full_batch(rig.table.t.settings.decks))
    rig.table.handle(ShoeLoaded(load=1))
    rig.table.handle(CardDrawn(parse_card("2C"), draw=1))
    rig.table.handle(ShoeEmpty(draws=1))  # the count: no row
    assert rows(rig, "shoe_count") == [{"load": 1, "last": 0}]
    rig.table.handle(ShoeEmpty(draws=4))
    assert rows(rig, "shoe_count")[-1] == {"load": 1, "last": 4}
