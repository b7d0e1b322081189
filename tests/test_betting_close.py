""" "No more bets": which seats play, and the reason the dealer reads for each refused one.

The reasons are the dealer's and the regulator's record of why chips went back
(``wager_refused`` rows): each names its seat and, where there is one, the clause.
"""

from __future__ import annotations

from table_support import Rig, make_rig
from test_procedure import bet, deal, press, ready, rows, settle_all

from controller.rules.legality import MAX_WAGER_CENTS
from controller.table.prompts import State
from drivers.hal import SeatWagerChanged, WagerSpot


def started_seats(rig: Rig) -> list[int]:
    return [s["seat"] for s in rows(rig, "round_started")[-1]["seats"]]


def refusals(rig: Rig) -> list[tuple[int, str]]:
    return [(r["seat"], r["reason"]) for r in rows(rig, "wager_refused")]


def one_round(rig: Rig, *seats: int) -> None:
    """A round with ``seats`` playing $10.00 each: every seat stands on its first two
    cards (2 and 3, then 4 and 5...), the dealer turns 5 + Q = 15 and draws K (bust)."""
    for seat in seats:
        bet(rig, seat)
    press(rig)
    firsts = ["2H", "3H", "4H", "6H", "7H", "8H"][: len(seats)]
    seconds = ["2D", "3D", "4D", "6D", "7D", "8D"][: len(seats)]
    deal(rig, *firsts, "5C", *seconds, "QS")
    while rig.table.state is State.PLAYERS:
        press(rig)  # stand
    press(rig)  # reveal: 15 draws
    deal(rig, "KD")
    settle_all(rig)
    assert rig.table.state is State.BETTING


def test_a_match_without_a_spanish_21_wager_is_refused_with_the_clause_s_reason() -> None:
    """NY 5324.12(d)(2): "each player who has placed a Spanish 21 wager may make a match the
    dealer wager": chips on the Match spot alone go back, and the dealer is told why."""
    rig = make_rig("NY")
    ready(rig)
    bet(rig, 1)
    rig.table.handle(SeatWagerChanged(4, WagerSpot.MATCH, True, 500))
    press(rig)
    assert refusals(rig) == [(4, "Match the Dealer needs a Spanish 21 wager")]
    assert started_seats(rig) == [1]


def test_a_seat_that_sat_out_is_refused_and_the_seats_after_it_still_play() -> None:
    """NY 5324.12(b)(10), as a licensee's option: seats 2 and 3 played round 1, seats 1 and
    4 did not; in round 2 seat 1 is refused with the clause, and seats 2 and 3 (after it
    at the table) play; seat 4 is refused too."""
    rig = make_rig("NY", no_mid_shoe_entry=True)
    ready(rig)
    one_round(rig, 2, 3)
    for seat in (1, 2, 3, 4):
        bet(rig, seat)
    press(rig)
    reason = "sat out a round since the shuffle (NY 5324.12(b)(10))"
    assert refusals(rig) == [(1, reason), (4, reason)]
    assert started_seats(rig) == [2, 3]


def test_a_no_more_bets_with_no_wager_bars_nobody() -> None:
    """NY 5324.12(b)(10) bars a person "who does not make a wager on a given round of
    play": a "no more bets" pressed with no chips down deals no round, so nobody sat one
    out, and the first wager after it plays."""
    rig = make_rig("NY", no_mid_shoe_entry=True)
    ready(rig)
    press(rig)
    assert rig.table.state is State.BETTING and rows(rig, "round_started") == []
    bet(rig, 5)
    press(rig)
    assert refusals(rig) == [] and started_seats(rig) == [5]


def test_a_seat_that_sat_out_plays_under_a_profile_without_the_bar() -> None:
    """Without the option (PA, silent on it), a seat that sat out round 1 plays round 2."""
    rig = make_rig("PA")
    ready(rig)
    one_round(rig, 2)
    bet(rig, 1)
    bet(rig, 2)
    press(rig)
    assert refusals(rig) == [] and started_seats(rig) == [1, 2]


def test_a_match_read_past_the_ceiling_refuses_the_seat_and_names_the_match() -> None:
    """A Match the Dealer reading no wager can be (a faulty or forged sensor) at a table
    without posted limits: the seat is refused with a reason naming its Match wager, the
    other seats play, and nothing is dealt to a wager the rules cannot take."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 2, 1000, match=MAX_WAGER_CENTS + 1)
    bet(rig, 3, 1000)
    press(rig)
    assert rig.table.state is State.DEALING
    [(seat, reason)] = refusals(rig)
    assert seat == 2
    assert reason.startswith(f"seat 2: the Match the Dealer wager of {MAX_WAGER_CENTS + 1} cents")
    assert started_seats(rig) == [3]
