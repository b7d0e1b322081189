"""Why a wager or a decision is refused: the checks behind the rules engine's errors."""

from __future__ import annotations

from collections.abc import Mapping

from controller.rules.errors import WagerError
from controller.rules.hands import HandStatus, PlayerHand
from controller.rules.profiles import Profile
from controller.rules.steps import Decision, SeatWager

SEATS = range(1, 8)

#: The largest amount the engine takes for one wager, in cents ($1,000,000). No table takes
#: a bet that size; a larger number is a sensor or script error, refused before any payout
#: is computed from it. Table limits (the licensee's) are narrower.
MAX_WAGER_CENTS = 100_000_000


def check_cents(cents: object, what: str, *, allow_zero: bool = False) -> int:
    """Return ``cents`` if it is a whole number of cents in range, on both sides.

    The low side is 1 cent (0 where ``allow_zero``: an optional wager not made); the
    high side :data:`MAX_WAGER_CENTS`. A bool or a float is not an amount.

    Raises:
        WagerError: naming ``what`` and the problem.
    """
    if type(cents) is not int:
        raise WagerError(f"{what} of {cents!r} is not a whole number of cents")
    if allow_zero and cents < 0:
        raise WagerError(f"{what} cannot be negative ({cents} cents)")
    if not allow_zero and cents < 1:
        raise WagerError(f"{what} must be positive, not {cents} cents")
    if cents > MAX_WAGER_CENTS:
        raise WagerError(f"{what} of {cents} cents is over the {MAX_WAGER_CENTS} cent ceiling")
    return cents


def check_wager(w: SeatWager, profile: Profile, seen: Mapping[int, SeatWager]) -> None:
    """Refuse a seat wager the rules do not allow.

    Raises:
        WagerError: naming the seat and the problem.
    """
    if type(w.seat) is not int or w.seat not in SEATS:
        raise WagerError(f"seat {w.seat!r}: seats are numbered 1 to 7")
    if w.seat in seen:
        raise WagerError(f"seat {w.seat}: listed twice")
    check_cents(w.wager, f"seat {w.seat}: the Spanish 21 wager")
    check_cents(w.match, f"seat {w.seat}: the Match the Dealer wager", allow_zero=True)
    if w.match and not profile.match_the_dealer:
        raise WagerError(f"seat {w.seat}: profile {profile.code} offers no Match the Dealer")


def why_illegal(hand: PlayerHand, decision: Decision, profile: Profile, hands_at_seat: int) -> str:
    """Why ``decision`` is not allowed on ``hand`` (for the error message)."""
    if hand.status is HandStatus.DOUBLED:
        return "after a double only stand or rescue"
    if decision is Decision.RESCUE:
        return "rescue follows a double only"
    if decision is Decision.SPLIT:
        if len(hand.cards) != 2 or hand.cards[0].rank is not hand.cards[1].rank:
            return "only a pair of identical rank splits"
        if hands_at_seat >= profile.max_split_hands:
            return f"at most {profile.max_split_hands} hands"
        return "split aces may not be resplit"
    if decision is Decision.SURRENDER:
        if not profile.surrender:
            return f"profile {profile.code} allows no surrender"
        return "surrender only on the initial two cards, not after a split"
    if decision is Decision.HIT:
        return "split aces take one card"
    if decision is Decision.DOUBLE:
        if hand.is_split_aces and not profile.double_split_aces:
            return f"profile {profile.code} allows no double on split aces"
        return f"profile {profile.code} allows no double after a split"
    return "not allowed"
