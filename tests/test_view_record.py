"""The table view as plain data (the daemon's debug log): it round-trips, is JSON, and never
carries the hole card before the reveal."""

from __future__ import annotations

import json
import random

from table_support import ListJournal, make_rig
from test_procedure import bet, deal, press, ready

from controller.rules.profiles import get_profile
from controller.simulation.dealer import random_chooser
from controller.simulation.direct import DirectRig
from controller.table.prompts import State, prompt_for
from controller.table.view import table_view, view_from_record, view_record
from drivers.hal import (
    Button,
    DeviceFault,
    DeviceKind,
    HoleCardDealt,
    SeatWagerChanged,
    ShoeEmpty,
    WagerSpot,
)


def test_every_view_of_many_rounds_round_trips_through_json_without_the_hole_card() -> None:
    rng = random.Random("view-record")
    rig = DirectRig(get_profile("PA"), 6, ListJournal(), random_chooser(rng), rng)
    seen: set[State] = set()
    checked = 0
    try:
        for rounds in range(1, 40):
            rig.play(rounds)
            view = table_view(rig.table)
            record = json.loads(json.dumps(view_record(view)))
            assert view_from_record(record) == view
            seen.add(view.state)
            checked += 1
        # Mid-round views too: the dealer's own loop hands them out one by one.
        table = rig.table
        for _ in range(400):
            if rig.events:
                table.handle(rig.events.popleft())
            view = table_view(table)
            record = view_record(view)
            assert view_from_record(json.loads(json.dumps(record))) == view
            seen.add(view.state)
            if view.hole_face_down:
                # PA deals the hole card face down: only the up card is on record.
                assert len(record["dealer_cards"]) == 1
            for action in rig.dealer.act(view):
                rig._perform(action)
    finally:
        rig.close()
    assert checked and {State.BETTING, State.PLAYERS} <= seen


def test_a_settlement_view_lists_every_settlement_due_in_the_order_the_panel_prompts() -> None:
    """The panel prompts one settlement at a time (``settling``); ``settlements`` holds it
    first and then the ones still due, so each NEXT the station handles drops exactly the
    first, in the order the views promised, until the state moves on."""
    rng = random.Random("settlements")
    rig = DirectRig(get_profile("PA"), 6, ListJournal(), random_chooser(rng), rng)
    table = rig.table
    promised: tuple[object, ...] = ()
    promised_in = State.STARTING
    shrunk_from = 0
    try:
        table.begin()
        for _ in range(20_000):
            if rig.events:
                table.handle(rig.events.popleft())
                view = table_view(table)
                if view.state is not promised_in:
                    promised = ()  # a new settlement state: a new queue (its look comes)
                if view.settlements and promised:
                    # Still settling what was promised: only its tail is left, in order.
                    assert view.settlements == promised[len(promised) - len(view.settlements) :]
                    assert view.settling == view.settlements[0]
                    if len(view.settlements) == 1:
                        shrunk_from = max(shrunk_from, len(promised))
                continue
            view = table_view(table)
            if view.state in (State.MATCH, State.SETTLING, State.SETTLE_NOW):
                assert view.settlements and view.settling == view.settlements[0]
                assert len({s.index for s in view.settlements}) == len(view.settlements)
                promised, promised_in = view.settlements, view.state
            else:
                assert view.settlements == () and view.settling is None
            for action in rig.dealer.act(view):
                rig._perform(action)
    finally:
        rig.close()
    assert shrunk_from >= 3  # a queue of three or more was settled down to its last


def test_a_snapshot_shows_each_hand_as_it_lies_now_however_seldom_it_is_taken() -> None:
    """The snapshot keeps each hand's view between snapshots; it must still show
    every hand as the round holds it, also when snapshots are skipped across several events
    (a split hand back at two cards with a new second card, a double, a surrender)."""
    rng = random.Random("view-cache")
    rig = DirectRig(get_profile("PA"), 6, ListJournal(), random_chooser(rng), rng)
    table = rig.table
    compared = split_hands = 0
    try:
        table.begin()
        for _ in range(6000):
            if rig.events:
                table.handle(rig.events.popleft())
                if rng.random() < 0.6:
                    continue  # no snapshot after this event: as under group commit
            view = table_view(table)
            play = table.play
            if play is not None:
                expected = [
                    (seat, h.index + 1, tuple(c.text for c in h.cards), h.total, h.status.value)
                    for seat in play.round.seats
                    for h in play.round.hands[seat]
                ]
                shown = [(h.seat, h.hand, h.cards, h.total, h.status) for h in view.hands]
                assert shown == expected
                compared += 1
                split_hands += sum(1 for h in view.hands if h.hand > 1)
            if not rig.events:
                for action in rig.dealer.act(view):
                    rig._perform(action)
    finally:
        rig.close()
    assert compared > 1000 and split_hands > 0


def test_a_split_hand_shows_its_new_second_card_without_a_snapshot_between() -> None:
    """Hand-worked: seat 1 holds 8H 8D against a 5C up card; a snapshot is taken; SPLIT and
    the split hand's next card (3S) come before the next snapshot. The first hand then
    holds 8H 3S (11, two cards as before the split), the second 8D alone."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "8H", "5C", "8D", "QS")
    assert rig.table.state is State.PLAYERS
    before = table_view(rig.table)
    assert [(h.hand, h.cards, h.total) for h in before.hands] == [(1, ("8H", "8D"), 16)]
    press(rig, Button.SPLIT)
    deal(rig, "3S")
    after = table_view(rig.table)
    assert [(h.hand, h.cards, h.total) for h in after.hands] == [
        (1, ("8H", "3S"), 11),
        (2, ("8D",), 8),
    ]


# --- what the view shows at each point of a round, worked by hand ---------------------------


def test_between_rounds_the_view_shows_no_round_and_nothing_due() -> None:
    """Open for bets, nothing dealt: no seat acts, no card is due, no hole card lies on the
    layout or in the shoe, and the panel's words are the betting prompt."""
    rig = make_rig("PA", withholding=True)
    ready(rig)
    view = table_view(rig.table)
    assert view.state is State.BETTING and view.round_no == 0
    assert view.prompt == prompt_for(State.BETTING, True).text
    assert (view.seats, view.hands, view.dealer_cards, view.legal) == ((), (), (), ())
    assert view.acting_seat is None and view.acting_hand is None
    assert view.hole_face_down is False and view.hole_in_shoe is False
    assert view.card_due is False and view.reveal_due is False
    assert view.hole_card_due is False and view.reshuffle_pending is False
    assert view.fault is None and view.settling_seat is None and view.settlements == ()


def test_the_view_follows_the_deal_seat_by_seat_and_the_hole_card_into_the_shoe() -> None:
    """PA 635a.7(e): seat 1's first card, the dealer's up card, seat 1's second card, then
    the hole card face down (withheld by the shoe: the view says it lies there, never what
    it is)."""
    rig = make_rig("PA", withholding=True)
    ready(rig)
    bet(rig, 1)
    press(rig)
    view = table_view(rig.table)
    assert view.round_no == 1 and view.seats == (1,)
    assert view.card_due is True and (view.acting_seat, view.acting_hand) == (1, 1)
    deal(rig, "9H")
    view = table_view(rig.table)
    assert view.card_due is True and view.acting_seat is None  # the up card: the dealer's
    deal(rig, "5C", "8D")
    view = table_view(rig.table)
    assert view.hole_card_due is True and view.acting_seat is None
    assert view.hole_face_down is False and view.hole_in_shoe is False
    rig.table.handle(HoleCardDealt("ab" * 32))
    view = table_view(rig.table)
    assert view.state is State.PLAYERS and view.dealer_cards == ("5C",)
    assert view.hole_face_down is True and view.hole_in_shoe is True
    assert view.hole_card_due is False and view.card_due is False
    assert (view.acting_seat, view.acting_hand) == (1, 1) and "stand" in view.legal


def test_a_split_hands_second_card_is_due_to_hand_two() -> None:
    """Seat 1 splits 8 8 (PA 635a.11 by the profile): the card due after the first hand's
    is the second hand's, and the view names hand 2 of seat 1."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "8H", "5C", "8D", "QS")  # seat 1: 8 8; up 5; hole Q
    press(rig, Button.SPLIT)
    deal(rig, "3C")  # hand 1: 8 3
    hands = {h.hand: h.cards for h in table_view(rig.table).hands}
    assert hands[1] == ("8H", "3C")
    press(rig)  # hand 1 stands
    view = table_view(rig.table)
    assert view.card_due is True and (view.acting_seat, view.acting_hand) == (1, 2)


def test_a_doubled_hand_shows_doubled_as_soon_as_the_double_is_made() -> None:
    """Seat 1 doubles on 9 2 = 11: the view says so before the double's card is dealt, and
    says "not doubled" of a hand that was not."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    bet(rig, 2)
    press(rig)
    deal(rig, "9H", "7C", "5C", "2D", "8S", "QS")  # seat 1: 9 2; seat 2: 7 8; up 5; hole Q
    (before,) = [h for h in table_view(rig.table).hands if h.seat == 1]
    assert before.doubled is False
    press(rig, Button.DOUBLE)
    hands = {h.seat: h for h in table_view(rig.table).hands}
    assert hands[1].doubled is True and hands[1].cards == ("9H", "2D")
    assert hands[2].doubled is False


def test_a_new_rounds_hand_with_the_same_last_card_shows_its_own_cards() -> None:
    """Round 2's seat 1 ends on the same card (8D) as round 1's, with as many cards: the
    view shows round 2's first card, not round 1's."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "5C", "8D", "QS")  # seat 1: 9 8; up 5; hole Q
    assert [h.cards for h in table_view(rig.table).hands] == [("9H", "8D")]
    press(rig)  # stand
    press(rig)  # reveal: 15 draws
    deal(rig, "KD")
    while rig.table.state is State.SETTLING:
        press(rig)
    press(rig)
    deal(rig, "7C", "6C", "8D", "QH")
    assert [h.cards for h in table_view(rig.table).hands] == [("7C", "8D")]


def test_the_match_settlements_name_their_word_and_the_amount_the_sensors_weighed() -> None:
    """PA 635a.7(f): seat 1 (9D against the up 9C, pay table A 4:1) is paid $20.00 on its
    $5.00 Match; seat 2 (4H 6S) loses a Match its sensor sensed but could not weigh: the
    payment's amount is unknown (None), its word is still "collect". From the dealer's
    right: seat 2 first."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000, match=500)
    rig.table.handle(SeatWagerChanged(2, WagerSpot.MAIN, True, None))
    rig.table.handle(SeatWagerChanged(2, WagerSpot.MATCH, True, None))
    press(rig)
    deal(rig, "9D", "4H", "9C", "5S", "6S", "7H")
    view = table_view(rig.table)
    assert view.state is State.MATCH and view.settling_seat == 2
    assert [(s.seat, s.spot, s.word, s.net_cents) for s in view.settlements] == [
        (2, "match", "collect", None),
        (1, "match", "pay", 2000),
    ]
    assert view.settling == view.settlements[0]
    rig.table.handle(DeviceFault(DeviceKind.SHUFFLER, "door open"))
    view = table_view(rig.table)
    # Play stopped: the panel shows the fault, no payment is prompted.
    assert view.state is State.FAULT and view.fault == "device_fault: shuffler: door open"
    assert view.settling_seat is None and view.settling is None and view.settlements == ()


def test_a_shoe_that_ran_out_between_rounds_shows_the_reshuffle_due() -> None:
    rig = make_rig("PA")
    ready(rig)
    rig.table.handle(ShoeEmpty())
    assert table_view(rig.table).reshuffle_pending is True


def test_a_view_record_from_before_the_settlement_queue_still_reads() -> None:
    """A record written before ``settlements``, ``hole_card_due`` and ``hole_in_shoe``
    were added (an older station's debug log): read with those empty, and the payment it
    prompted kept."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000, match=500)
    press(rig)
    deal(rig, "9D", "9C", "5S", "7H")
    view = table_view(rig.table)
    assert view.settling is not None
    record = json.loads(json.dumps(view_record(view)))
    for newer in ("settlements", "hole_card_due", "hole_in_shoe"):
        del record[newer]
    old = view_from_record(record)
    assert old.settling == view.settling and old.settlements == ()
    assert old.hands == view.hands and old.state is view.state


def test_a_hand_never_decoded_before_is_decoded_whole() -> None:
    """A remote dealer decodes a view whose hand it has never met (a new hand each time,
    whatever it decoded before in this process): the decoded hand is that hand."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "5C", "8D", "QS")
    record = json.loads(json.dumps(view_record(table_view(rig.table))))
    fresh = random.Random().getrandbits(64)  # a total no hand has: a key never kept
    record["hands"][0]["total"] = fresh
    (hand,) = view_from_record(record).hands
    assert (hand.seat, hand.hand, hand.cards, hand.total) == (1, 1, ("9H", "8D"), fresh)
