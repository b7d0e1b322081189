"""PA 635a.7(h): the dealer walks the table clockwise from the dealer's left, seat by seat,
and whatever is settled during the round is prompted in that walk, whatever order it arose
in; only Match the Dealer goes the other way, from the dealer's right ((f))."""

from __future__ import annotations

from itertools import permutations

import pytest
from table_support import make_rig
from test_procedure import bet, deal, press, ready

from controller.table.prompts import State
from drivers.hal import Button

SEATS = range(1, 8)


def walk(surrendering: int, blackjack: int) -> list[tuple[str, int]]:
    """PA, up card 6H (no peek; a blackjack is paid at once, (h)(1)(i)). Seat
    ``surrendering`` holds 9D 7C and surrenders; seat ``blackjack`` holds AS KD. The
    prompts the dealer sees, in order: ("decide", seat) or ("settle", seat)."""
    rig = make_rig("PA")
    ready(rig)
    for seat in sorted((surrendering, blackjack)):
        bet(rig, seat, 1000)
    press(rig)
    first = {surrendering: "9D", blackjack: "AS"}
    second = {surrendering: "7C", blackjack: "KD"}
    seats = sorted(first)
    deal(rig, *(first[s] for s in seats), "6H", *(second[s] for s in seats), "QS")
    prompts: list[tuple[str, int]] = []
    table = rig.table
    while table.state in (State.PLAYERS, State.SETTLE_NOW):
        assert table.play is not None
        if table.state is State.SETTLE_NOW:
            prompts.append(("settle", table.t.settle_queue[0].seat))
            press(rig)
            continue
        seat = table.play.acting_seat()
        assert seat is not None
        prompts.append(("decide", seat))
        press(rig, Button.SURRENDER if seat == surrendering else Button.NEXT)
    return prompts


@pytest.mark.parametrize(("surrendering", "blackjack"), list(permutations(SEATS, 2)))
def test_pa_635a_7_h_mid_round_settlements_and_decisions_follow_the_walk_at_every_seat_pair(
    surrendering: int, blackjack: int
) -> None:
    # Worked by hand: the walk meets the lower seat first. The surrendering seat is asked
    # for its decision, then settled (half its wager collected); the blackjack seat has no
    # decision to make and is paid 3:2 when the walk reaches it.
    expected = {
        surrendering: [("decide", surrendering), ("settle", surrendering)],
        blackjack: [("settle", blackjack)],
    }
    order = sorted(expected)
    assert walk(surrendering, blackjack) == expected[order[0]] + expected[order[1]]
