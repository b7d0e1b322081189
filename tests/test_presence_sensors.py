"""Wager sensors that report presence only: every wager seen on a spot is settled.

PA 635a.7(g): "each player's Spanish 21 and Insurance Wagers ... shall be settled". A sensor
that sees chips but cannot weigh them still tells the station a wager lies there: insurance
is then the amount the table posts for it, half the seat's wager (docs/procedure.md), and a
seat whose wager is not known in cents has its results counted in its Spanish 21 wagers
(``net_stakes``), never in a field of cents. Amounts are worked by hand in the comments.
"""

from __future__ import annotations

from table_support import Rig, make_rig
from test_procedure import deal, press, ready, rows

from controller.table.prompts import State
from drivers.hal import Button, Led, LedMode, PeekAnswer, PeekResult, SeatWagerChanged, WagerSpot


def seen(rig: Rig, seat: int, spot: WagerSpot, cents: int | None = None) -> None:
    """The spot's sensor reports chips: weighed (``cents``) or presence only (None)."""
    rig.table.handle(SeatWagerChanged(seat, spot, True, cents))


def lit(rig: Rig, seat: int, word: Led) -> bool:
    lamps = rig.panel.lamps
    return lamps.get(Led.seat(seat)) is LedMode.STEADY and lamps.get(word) is LedMode.STEADY


def insured_round(main_cents: int | None) -> Rig:
    """PA: seat 1 (main weighed at ``main_cents``, or presence only) 9D 8S; up AH; the
    player puts chips on the insurance spot, whose sensor reports presence only."""
    rig = make_rig("PA")
    ready(rig)
    seen(rig, 1, WagerSpot.MAIN, main_cents)
    press(rig)
    deal(rig, "9D", "AH", "8S", "KC")  # hole KC: the dealer has a blackjack
    assert rig.table.state is State.INSURANCE
    seen(rig, 1, WagerSpot.INSURANCE)
    press(rig)  # insurance closes
    return rig


def test_pa_635a_7_g_insurance_seen_on_a_presence_only_spot_is_settled_at_the_posted_amount() -> (
    None
):
    # The main spot weighs $10.00; the insurance spot sees chips only: the posted amount is
    # half the wager, $5.00. The reader finds the dealer's blackjack: insurance pays 2:1,
    # +$10.00, and the $10.00 wager is lost: the seat nets $0.00.
    rig = insured_round(1000)
    assert rows(rig, "insurance_taken") == [{"seat": 1, "cents": 500, "posted": "half the wager"}]
    assert rig.table.state is State.PEEKING
    press(rig)
    rig.table.handle(PeekResult(PeekAnswer.BLACKJACK))
    assert rig.table.state is State.SETTLE_NOW and lit(rig, 1, Led.PAY)  # prompted
    (insurance,) = rows(rig, "insurance")
    assert (insurance["outcome"], insurance["odds"], insurance["net_cents"]) == ("win", "2:1", 1000)
    press(rig)
    assert rig.table.state is State.DEALER
    press(rig)  # the hole card is turned (PA 635a.7(g): no further card)
    while rig.table.state is State.SETTLING:
        press(rig)
    assert rows(rig, "seat_result") == [{"seat": 1, "net_cents": 0}]


def test_pa_635a_7_g_insurance_at_a_table_that_weighs_nothing_counts_in_wagers() -> None:
    # Both spots presence only: insurance is half a wager. Lost to no blackjack: -0.5
    # wagers; the amount in cents is unknown (null), never a count in a cents field.
    rig = make_rig("PA")
    ready(rig)
    seen(rig, 1, WagerSpot.MAIN)
    press(rig)
    deal(rig, "9D", "AH", "8S", "7C")  # hole 7C: no blackjack
    seen(rig, 1, WagerSpot.INSURANCE)
    press(rig)
    assert rows(rig, "insurance_taken") == [
        {"seat": 1, "cents": None, "stakes": "0.5", "posted": "half the wager"}
    ]
    press(rig)
    rig.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))
    assert rig.table.state is State.SETTLE_NOW and lit(rig, 1, Led.COLLECT)
    (insurance,) = rows(rig, "insurance")
    assert insurance["net_cents"] is None and insurance["net_stakes"] == "-0.5"


def test_pa_635a_7_f_ny_5324_12_b_9_match_double_and_split_as_chips_are_settled() -> None:
    """Match the Dealer, a split and a double laid as chips on presence-only spots: each is
    prompted and journaled, counted in wagers. Seat 1: 7D 7C against up 7S; Match pays 4:1
    for each of the two off-suit 7s (pay table A): +8 Match wagers. Split: 7D 4D doubled
    with KD (21, 1:1 on two wagers: +2), 7C 3S 9C (19, +1); the dealer 7S 9H 6C busts."""
    rig = make_rig("PA")
    ready(rig)
    seen(rig, 1, WagerSpot.MAIN)
    seen(rig, 1, WagerSpot.MATCH)
    press(rig)
    deal(rig, "7D", "7S", "7C", "9H")
    assert rig.table.state is State.MATCH and lit(rig, 1, Led.PAY)
    (match,) = rows(rig, "match_settled")
    assert (match["matches"], match["net_cents"], match["net_stakes"]) == (2, None, "8")
    press(rig)
    press(rig, Button.SPLIT)  # the second wager goes down beside the first: still "present"
    deal(rig, "4D")
    press(rig, Button.DOUBLE)
    deal(rig, "KD")
    deal(rig, "3S", "9C")  # the second hand: 7C 3S, hit 9C: 19
    press(rig)  # stand
    press(rig)  # the dealer turns the hole card: 7S 9H = 16
    deal(rig, "6C")  # 22: bust
    assert [r["decision"] for r in rows(rig, "decision")] == ["split", "double", "hit", "stand"]
    settled = []
    while rig.table.state is State.SETTLING:
        assert lit(rig, 1, Led.PAY)  # each hand prompted
        press(rig)
        settled = rows(rig, "settlement")
    assert [(s["hand"], s["net_cents"], s["net_stakes"]) for s in settled] == [
        (1, None, "2"),
        (2, None, "1"),
    ]
    assert rows(rig, "seat_result") == [{"seat": 1, "net_cents": None, "net_stakes": "11"}]
