"""Wager sensor readings during a round, case by case (controller.table.sensors), as
docs/panel.md ("Wager sensors during a round") states them.

NY 5324.12(b)(4),(8): no wager is made, increased or withdrawn after the first card until a
decision has been rendered and implemented; (b)(9): a double's chips are made and confirmed.

- A sensor that reports presence only is checked for presence: chips on a spot that holds
  nothing of this round are a wager placed during the round; chips left on a paid or a
  partly collected spot are that settlement, not a new wager.
- A push may be taken back: the emptied spot is ``wager_taken``, never ``wager_collected``
  (the house collected nothing); a lost wager emptied is ``wager_collected``.
- Chips are added only for the double or split of the seat whose decision it is, before or
  right after the button: not on another seat, and not once the seat's double is made.
"""

from __future__ import annotations

from table_support import Rig, make_rig
from test_procedure import bet, deal, press, ready, rows

from controller.table.faults import FaultCode
from controller.table.prompts import State
from drivers.hal import Button, Led, LedMode, SeatWagerChanged, WagerSpot


def presence(rig: Rig, seat: int, spot: WagerSpot, present: bool) -> None:
    """A presence-only sensor: chips seen, or the spot empty; never an amount."""
    rig.table.handle(SeatWagerChanged(seat, spot, present, None))


def weighed(rig: Rig, seat: int, spot: WagerSpot, cents: int | None) -> None:
    rig.table.handle(SeatWagerChanged(seat, spot, cents is not None, cents))


def fault_message(rig: Rig) -> str | None:
    fault = rig.table.fault
    if fault is None:
        return None
    assert fault.code is FaultCode.WAGER_CHANGED
    return fault.message


def lit(rig: Rig, seat: int, word: Led) -> bool:
    lamps = rig.panel.lamps
    return lamps.get(Led.seat(seat)) is LedMode.STEADY and lamps.get(word) is LedMode.STEADY


def presence_only_match_round() -> Rig:
    """PA, every spot presence only. Seat 1 main + Match 9D 5S, seat 2 main + Match 4H 6S,
    up 9C, hole 7H: seat 1's Match is paid (9D matches the 9C), seat 2's is collected."""
    rig = make_rig("PA")
    ready(rig)
    for seat in (1, 2):
        presence(rig, seat, WagerSpot.MAIN, True)
        presence(rig, seat, WagerSpot.MATCH, True)
    press(rig)
    deal(rig, "9D", "4H", "9C", "5S", "6S", "7H")
    assert rig.table.state is State.MATCH
    return rig


def test_presence_only_chips_on_an_empty_seat_are_a_wager_placed_during_the_round() -> None:
    rig = presence_only_match_round()
    presence(rig, 5, WagerSpot.MAIN, False)  # the sensor settles on nothing: no news
    assert fault_message(rig) is None
    presence(rig, 5, WagerSpot.MAIN, True)
    assert fault_message(rig) == "seat 5 main wager placed during the round"


def test_presence_only_chips_still_on_a_spot_in_play_are_no_change() -> None:
    rig = presence_only_match_round()
    presence(rig, 1, WagerSpot.MAIN, True)  # the main wager is still in play
    assert fault_message(rig) is None
    assert rows(rig, "wager_paid") + rows(rig, "wager_collected") + rows(rig, "wager_added") == []


def test_presence_only_chips_left_on_a_paid_match_are_the_payment_not_a_new_wager() -> None:
    rig = presence_only_match_round()
    # From the dealer's right: seat 2's Match (4H 6S against a 9C) is collected first.
    assert lit(rig, 2, Led.COLLECT)
    presence(rig, 2, WagerSpot.MATCH, False)
    # An empty spot reads nothing: 0 cents, even on a sensor that cannot weigh.
    assert rows(rig, "wager_collected") == [{"seat": 2, "spot": "match", "cents": 0}]
    press(rig)
    assert lit(rig, 1, Led.PAY)
    presence(rig, 1, WagerSpot.MATCH, True)  # the payment set on the wager
    assert fault_message(rig) is None
    assert rows(rig, "wager_paid") == [{"seat": 1, "spot": "match", "cents": None}]
    presence(rig, 1, WagerSpot.MATCH, False)  # the player takes wager and win
    assert rows(rig, "wager_taken") == [{"seat": 1, "spot": "match", "cents": 0}]
    # Chips put back on the collected Match spot of seat 2: a new wager, forbidden.
    presence(rig, 2, WagerSpot.MATCH, True)
    assert fault_message(rig) == "seat 2 match wager placed during the round"


def seen_seat_one(*cards: str) -> Rig:
    """PA: seat 1's main spot seen by a presence-only sensor, dealt ``cards`` (seat 1, up
    card, seat 1, hole card)."""
    rig = make_rig("PA")
    ready(rig)
    presence(rig, 1, WagerSpot.MAIN, True)
    press(rig)
    deal(rig, *cards)
    return rig


def test_presence_only_chips_left_after_a_surrender_are_the_returned_half() -> None:
    rig = seen_seat_one("KS", "9C", "6H", "5C")  # seat 1 16 against a 9
    press(rig, Button.SURRENDER)
    assert rig.table.state is State.SETTLE_NOW and lit(rig, 1, Led.COLLECT)
    presence(rig, 1, WagerSpot.MAIN, True)  # half collected, half still lies there
    assert fault_message(rig) is None
    assert rows(rig, "wager_collected") == [{"seat": 1, "spot": "main", "cents": None}]


def two_seats(*cards: str) -> Rig:
    """PA, weighed: seats 1 and 2 at $10 each, dealt ``cards`` (seat 1, seat 2, up card,
    seat 1, seat 2, hole card)."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000)
    bet(rig, 2, 1000)
    press(rig)
    deal(rig, *cards)
    return rig


def push_round() -> Rig:
    """Seat 1 9D 9S = 18; seat 2 7H QS = 17; up 8C, hole QH = 18: the dealer stands; seat 2
    loses, seat 1 pushes."""
    rig = two_seats("9D", "7H", "8C", "9S", "QS", "QH")
    press(rig)  # seat 1 stands
    press(rig)  # seat 2 stands
    press(rig)  # the hole card turned: 18
    assert rig.table.state is State.SETTLING
    return rig


def test_a_push_taken_back_is_wager_taken_and_a_loss_emptied_is_wager_collected() -> None:
    rig = push_round()
    assert lit(rig, 2, Led.COLLECT)  # from the dealer's right: seat 2 first
    weighed(rig, 2, WagerSpot.MAIN, None)
    press(rig)
    assert lit(rig, 1, Led.PUSH)
    weighed(rig, 1, WagerSpot.MAIN, None)
    assert rows(rig, "wager_collected") == [{"seat": 2, "spot": "main", "cents": 0}]
    assert rows(rig, "wager_taken") == [{"seat": 1, "spot": "main", "cents": 0}]
    assert fault_message(rig) is None


def double_round() -> Rig:
    """Seat 1 9D 2S = 11, seat 2 4H 6S = 10, up 6C, hole 5C."""
    rig = two_seats("9D", "4H", "6C", "2S", "6S", "5C")
    assert rig.table.state is State.PLAYERS
    return rig


def test_chips_for_a_double_on_another_seat_than_the_deciding_one_fault() -> None:
    rig = double_round()  # seat 1 decides; seat 2 (10) waits its turn
    weighed(rig, 2, WagerSpot.MAIN, 2000)
    assert fault_message(rig) == "seat 2 main reads 20.00, expected 10.00"


def test_chips_added_once_the_double_is_made_fault() -> None:
    rig = double_round()
    press(rig, Button.DOUBLE)
    weighed(rig, 1, WagerSpot.MAIN, 2000)  # the double's wager: expected
    deal(rig, "3D")  # the one card of the double; rescue or stand is what is left
    assert rows(rig, "wager_added") == [{"seat": 1, "spot": "main", "cents": 2000}]
    weighed(rig, 1, WagerSpot.MAIN, 3000)
    assert fault_message(rig) == "seat 1 main reads 30.00, expected 20.00"


def test_chips_added_after_the_seat_stood_fault() -> None:
    rig = double_round()
    press(rig)  # seat 1 stands on 11; play passes to seat 2
    weighed(rig, 1, WagerSpot.MAIN, 2000)
    assert fault_message(rig) == "seat 1 main reads 20.00, expected 10.00"


def test_a_seat_whose_amount_is_unknown_is_checked_for_presence_only() -> None:
    # docs/panel.md: a seat whose amounts are unknown (seen, not weighed, at no more bets) is
    # checked for presence, whatever amount its sensor reports later in the round.
    rig = seen_seat_one("9D", "6C", "2S", "5C")
    assert rig.table.state is State.PLAYERS
    weighed(rig, 1, WagerSpot.MAIN, 2500)
    assert fault_message(rig) is None
    weighed(rig, 1, WagerSpot.MAIN, None)  # emptied while in play: still forbidden
    assert fault_message(rig) == "seat 1 main wager removed while still in play"
