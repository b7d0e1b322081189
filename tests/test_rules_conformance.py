"""Rules-level conformance (docs/rules.md): rounding never below the odds, amounts checked on both
sides, and when a blackjack is paid (PA 635a.7(h)(1)(i) at once, NY 5324.12(b)(5) after the
round). Expected amounts are worked by hand in the comments."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules.cards import parse_card
from controller.rules.errors import WagerError
from controller.rules.odds import EVEN, THREE_TO_ONE, THREE_TO_TWO, TWO_TO_ONE, Odds
from controller.rules.profiles import NEW_JERSEY, NEW_YORK, PENNSYLVANIA, Profile
from controller.rules.round import Round
from controller.rules.settlement import Outcome, WagerKind
from controller.rules.steps import Decision, NeedCard, NeedDecision, NeedInsurance, SeatWager

#: The engine's ceiling for one wager, $1,000,000 in cents (docs/rules.md: no table takes a bet
#: that size; a larger number is a sensor or script error). Written out here, not imported:
#: a test of the boundary must not move with the code's constant.
MAX_WAGER_CENTS = 100_000_000

# --- "no less than" the odds ----------------------------------------------------------------


@given(
    st.integers(0, MAX_WAGER_CENTS),
    st.sampled_from([EVEN, THREE_TO_TWO, TWO_TO_ONE, THREE_TO_ONE, Odds(9, 1), Odds(12, 1)]),
)
def test_ny_5324_12_b_5_odds_never_pay_below_the_stated_odds(cents: int, odds: Odds) -> None:
    """NY 5324.12(b)(5),(6), PA 635a.7(n): paid "no less than" the odds, and by less than a
    cent more."""
    paid = odds.pay(cents)
    assert paid * odds.denominator >= cents * odds.numerator
    assert (paid - 1) * odds.denominator < cents * odds.numerator


def test_ny_5324_12_b_5_five_dollars_one_blackjack_pays_seven_fifty_two() -> None:
    # $5.01 x 3/2 = $7.515; $7.51 would be below 3:2, so $7.52.
    assert THREE_TO_TWO.pay(501) == 752
    # $5.00 x 3/2 = $7.50 exactly: nothing added.
    assert THREE_TO_TWO.pay(500) == 750


# --- amounts on both sides of their range ---------------------------------------------------


def _round(*wagers: SeatWager, profile: Profile = PENNSYLVANIA) -> Round:
    return Round(profile, 6, wagers)


@pytest.mark.parametrize(
    ("wager", "error"),
    [
        (-500, "must be positive, not -500 cents"),
        (0, "must be positive, not 0 cents"),
        (MAX_WAGER_CENTS + 1, f"of {MAX_WAGER_CENTS + 1} cents is over the"),
        (True, "is not a whole number of cents"),
        (12.5, "is not a whole number of cents"),
    ],
)
def test_a_spanish_21_wager_out_of_range_is_refused(wager: object, error: str) -> None:
    with pytest.raises(WagerError, match="seat 1: the Spanish 21 wager") as caught:
        _round(SeatWager(1, wager))  # type: ignore[arg-type]
    assert error in str(caught.value)


@pytest.mark.parametrize("wager", [1, 500, MAX_WAGER_CENTS])
def test_a_spanish_21_wager_in_range_is_taken(wager: int) -> None:
    assert _round(SeatWager(1, wager)).wagers[1].wager == wager


@pytest.mark.parametrize(
    ("match", "error"),
    [
        (-1, "cannot be negative (-1 cents)"),
        (MAX_WAGER_CENTS + 1, "is over the"),
        (False, "is not a whole number of cents"),
    ],
)
def test_pa_635a_7_f_match_wager_out_of_range_is_refused(match: object, error: str) -> None:
    with pytest.raises(WagerError, match="seat 2: the Match the Dealer wager") as caught:
        _round(SeatWager(2, 1000, match))  # type: ignore[arg-type]
    assert error in str(caught.value)


@pytest.mark.parametrize("match", [0, 1, MAX_WAGER_CENTS])
def test_pa_635a_7_f_match_wager_in_range_is_taken(match: int) -> None:
    assert _round(SeatWager(2, 1000, match)).wagers[2].match == match


def test_a_wager_list_changed_after_one_round_is_checked_again() -> None:
    # The seat check is kept for the same tuple of wagers (a table bets the same way round
    # after round); a list can change in place between rounds, so it is checked each time.
    wagers = [SeatWager(1, 500)]
    assert Round(PENNSYLVANIA, 6, wagers).wagers[1].wager == 500
    wagers[0] = SeatWager(1, 0)
    with pytest.raises(WagerError, match="must be positive, not 0 cents"):
        Round(PENNSYLVANIA, 6, wagers)
    wagers[0] = SeatWager(1, MAX_WAGER_CENTS + 1)
    with pytest.raises(WagerError, match="is over the"):
        Round(PENNSYLVANIA, 6, wagers)


def test_the_very_wagers_taken_for_one_profile_are_checked_again_for_another() -> None:
    # PA 635a.7(f) offers Match the Dealer; a profile without it refuses the same tuple of
    # wagers just taken for PA (the kept check is per profile).
    wagers = (SeatWager(7, 500, 100),)
    assert Round(PENNSYLVANIA, 6, wagers).wagers[7].match == 100
    no_match = PENNSYLVANIA.with_options(match_the_dealer=False)
    with pytest.raises(WagerError, match="seat 7: profile PA offers no Match the Dealer"):
        Round(no_match, 6, wagers)


def _at_insurance() -> Round:
    round_ = _round(SeatWager(1, 1000))
    for text in ("9S", "AC", "9H", "5D"):  # seat 1 9S 9H, dealer AC up, hole 5D
        round_.deal(parse_card(text))
    assert isinstance(round_.step, NeedInsurance)
    return round_


@pytest.mark.parametrize(
    ("cents", "error"),
    [
        (-1, "cannot be negative"),
        (501, "more than half the wager"),
        (1.5, "not a whole number of cents"),
    ],
)
def test_pa_635a_8_insurance_out_of_range_is_refused(cents: object, error: str) -> None:
    round_ = _at_insurance()
    with pytest.raises(WagerError, match=error):
        round_.take_insurance({1: cents})  # type: ignore[dict-item]
    assert isinstance(round_.step, NeedInsurance)  # nothing changed


@pytest.mark.parametrize("cents", [0, 1, 500])
def test_pa_635a_8_insurance_in_range_is_taken(cents: int) -> None:
    round_ = _at_insurance()
    round_.take_insurance({1: cents})
    assert round_.insurance == ({1: cents} if cents else {})


# --- when a blackjack is paid -----------------------------------------------------------------


def _deal_initial(round_: Round, shoe: str) -> None:
    for text in shoe.split():
        assert isinstance(round_.step, NeedCard)
        round_.deal(parse_card(text))


def test_pa_635a_7_h_1_i_blackjack_against_two_to_nine_paid_at_once() -> None:
    # Seat 1 AS KH against a 9C up card; seat 2 still to act. $10.00 x 3/2 = $15.00 now.
    round_ = _round(SeatWager(1, 1000), SeatWager(2, 1000))
    _deal_initial(round_, "AS 8D 9C KH 8S 7D")
    assert isinstance(round_.step, NeedDecision) and round_.step.seat == 2
    assert [(p.seat, p.outcome, p.net) for p in round_.payments] == [(1, Outcome.BLACKJACK, 1500)]


@pytest.mark.parametrize("profile", [NEW_YORK, NEW_JERSEY])
def test_ny_5324_12_b_5_blackjack_paid_with_the_rest_after_the_round(profile: Profile) -> None:
    # NY (b)(5): "After each round of play is complete ... pay all winning wagers". Seat 1
    # AS KH against a 9C up card: nothing is paid while seat 2 acts.
    round_ = _round(SeatWager(1, 1000), SeatWager(2, 1000), profile=profile)
    deal = "AS 8D 9C KH 8S 7D" if profile is NEW_YORK else "AS 8D 9C KH 8S"
    _deal_initial(round_, deal)
    assert isinstance(round_.step, NeedDecision) and round_.step.seat == 2
    assert round_.payments == []
    round_.decide(2, Decision.STAND)
    if profile is NEW_YORK:
        round_.reveal_hole()  # 7D
    else:
        round_.deal(parse_card("7D"))  # NJ 19.7(g): the Dealer's Card
    # Dealer 9C 7D = 16 draws 2C = 18; seat 2 16 loses $10.00; seat 1 $15.00.
    round_.deal(parse_card("2C"))
    assert round_.over
    final = round_.payments[round_.final_from :]
    assert [(p.seat, p.wager, p.outcome, p.net) for p in final] == [
        (2, WagerKind.MAIN, Outcome.LOSE, -1000),
        (1, WagerKind.MAIN, Outcome.BLACKJACK, 1500),
    ]
    assert round_.final_from == 0
