"""Wager sensors that report presence only: every wager seen on a spot is settled.

PA 635a.7(g): "each player's Spanish 21 and Insurance Wagers ... shall be settled". A sensor
that sees chips but cannot weigh them still tells the station a wager lies there: insurance
is then the amount the table posts for it, half the seat's wager (docs/procedure.md), and a
seat whose wager is not known in cents has its results counted in its Spanish 21 wagers
(``net_stakes``), never in a field of cents. Amounts are worked by hand in the comments.
"""

from __future__ import annotations

import pytest
from table_support import Rig, make_rig
from test_procedure import deal, press, ready, rows, settle_all, supervisor

from controller.table.prompts import State
from controller.table.recovery import read_journal
from drivers.hal import (
    Button,
    DeviceKind,
    DeviceLost,
    Led,
    LedMode,
    PeekAnswer,
    PeekResult,
    SeatWagerChanged,
    WagerSpot,
)


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


def test_a_void_at_a_table_that_weighs_nothing_names_no_amount_in_cents() -> None:
    """A void (docs/journal.md, ``round_voided``): what was settled stands and every other
    wager is returned, each with its hand; at seats whose sensors only see chips, the cents
    are unknown (null), never a count of wagers written as cents. PA 635a.7(h)(1): seat 1's
    blackjack (AH KD) against the up card 5S is settled at once; then the shoe is lost and
    the supervisor voids: seat 1's blackjack stands, seat 2's wager (9C 9D) is returned."""
    rig = make_rig("PA")
    ready(rig)
    seen(rig, 1, WagerSpot.MAIN)
    seen(rig, 2, WagerSpot.MAIN)
    press(rig)
    deal(rig, "AH", "9C", "5S", "KD", "9D", "QC")
    while rig.table.state is State.SETTLE_NOW:
        press(rig)
    assert rig.table.state is State.PLAYERS
    rig.table.handle(DeviceLost(DeviceKind.SHOE, "unplugged"))
    supervisor(rig, Button.SUPERVISOR_VOID)
    (void,) = rows(rig, "round_voided")
    assert void["stand"] == [{"seat": 1, "wager": "main", "hand": 1, "net_cents": None}]
    assert void["returned"] == [{"seat": 2, "wager": "main", "hand": 1, "cents": None}]


def test_ny_5324_12_b_7_the_super_bonus_at_seats_that_weigh_nothing() -> None:
    """NY 5324.12(b)(7): seat 1's 7D 7D 7D against the up card 7C wins 2:1 (+2 wagers) and
    the super bonus, whose fixed amount ($1,000 or $5,000) depends on the wager in cents: it
    is unknown (null). Seat 2, who also wagered, is paid the fixed $50, in cents even though
    its own wager is counted in wagers: 9S 9H (18) beats the dealer's bust (7C 5C KS), +1."""
    rig = make_rig("NY")
    ready(rig)
    seen(rig, 1, WagerSpot.MAIN)
    seen(rig, 2, WagerSpot.MAIN)
    press(rig)
    deal(rig, "7D", "9S", "7C", "7D", "9H", "5C")  # no peek under a 7
    deal(rig, "7D")  # seat 1 hits: 21
    press(rig)  # seat 2 stands on 18
    press(rig)  # the hole card: 12
    deal(rig, "KS")  # 22
    settle_all(rig)
    by_seat = {(r["seat"], r["wager"]): r for r in rows(rig, "settlement")}
    main = by_seat[(1, "main")]
    assert (main["net_cents"], main["net_stakes"], main["bonus"]) == (None, "2", "777_suited")
    assert (main["super_bonus"], main["super_bonus_cents"]) == (True, None)
    share = by_seat[(2, "super_bonus_share")]
    assert (share["net_cents"], "net_stakes" in share) == (5_000, False)
    assert rows(rig, "seat_result") == [
        {"seat": 1, "net_cents": None, "net_stakes": "2"},
        {"seat": 2, "net_cents": None, "net_stakes": "1", "fixed_cents": 5_000},
    ]


@pytest.mark.parametrize(
    ("main_cents", "insurance_taken", "lost"),
    [
        # $10 weighed, $5 of insurance weighed: lost to no blackjack, -$5.00.
        (1000, {"seat": 1, "cents": 500}, {"net_cents": -500}),
        # Presence only: insurance is the posted half wager, lost: -0.5 wagers.
        (
            None,
            {"seat": 1, "cents": None, "stakes": "0.5", "posted": "half the wager"},
            {"net_cents": None, "net_stakes": "-0.5"},
        ),
    ],
)
def test_nj_insurance_taken_before_a_restart_is_settled_after_it(
    main_cents: int | None, insurance_taken: dict[str, object], lost: dict[str, object]
) -> None:
    """The station restarts after insurance closed (NJ: no hole card; the dealer's second
    card comes after the players, NJ 19.7(g)); the supervisor resumes, and the insurance
    taken before the restart is still settled, at its amount: seat 1 (9D 8S, 17) against
    AH, then 7C (18): the insurance and the wager are lost."""
    rig = make_rig("NJ")
    ready(rig)
    seen(rig, 1, WagerSpot.MAIN, main_cents)
    press(rig)
    deal(rig, "9D", "AH", "8S")
    assert rig.table.state is State.INSURANCE
    seen(rig, 1, WagerSpot.INSURANCE, None if main_cents is None else 500)
    press(rig)  # insurance closes
    assert rows(rig, "insurance_taken") == [insurance_taken]
    again = make_rig("NJ")
    again.table.restore(read_journal(rig.journal.rows))
    again.table.resume_output()
    supervisor(again, Button.SUPERVISOR_RESUME)
    assert again.table.state is State.PLAYERS
    press(again)  # seat 1 stands on 17
    deal(again, "7C")  # the dealer's second card: 18
    while again.table.state in (State.SETTLE_NOW, State.SETTLING):
        press(again)
    (insurance,) = rows(again, "insurance")
    assert insurance == {
        "seat": 1,
        "wager": "insurance",
        "outcome": "lose",
        "odds": None,  # a lost wager is collected: no odds are paid
        **lost,
    }
