"""Why a wager or a decision is refused: the checks behind the rules engine's errors."""

from __future__ import annotations

from collections.abc import Mapping

from controller.rules.errors import WagerError
from controller.rules.hands import HandStatus, PlayerHand
from controller.rules.profiles import Profile
from controller.rules.steps import Decision, SeatWager

SEATS = range(1, 8)


def check_wager(w: SeatWager, profile: Profile, seen: Mapping[int, SeatWager]) -> None:
    """Refuse a seat wager the rules do not allow.

    Raises:
        WagerError: naming the seat and the problem.
    """
    if w.seat not in SEATS:
        raise WagerError(f"seat {w.seat}: seats are numbered 1 to 7")
    if w.seat in seen:
        raise WagerError(f"seat {w.seat}: listed twice")
    if w.wager <= 0:
        raise WagerError(f"seat {w.seat}: the Spanish 21 wager must be positive")
    if w.match < 0:
        raise WagerError(f"seat {w.seat}: a Match the Dealer wager cannot be negative")
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
