"""Why a wager or a decision is refused: the checks behind the rules engine's errors."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from operator import attrgetter
from typing import Final

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


# A SeatWager's fields as they came, untyped: compiled code (mypyc) reading ``w.wager`` as
# the int it is declared would turn True into 1 and refuse 12.5 with a TypeError before
# the checks below could refuse either with a WagerError.
_AS_GIVEN: Final = attrgetter("seat", "wager", "match")


def check_wager(w: SeatWager, profile: Profile, seen: Mapping[int, SeatWager]) -> None:
    """Refuse a seat wager the rules do not allow.

    Raises:
        WagerError: naming the seat and the problem.
    """
    seat, wager, match = _AS_GIVEN(w)
    if type(seat) is not int or seat not in SEATS:
        raise WagerError(f"seat {seat!r}: seats are numbered 1 to 7")
    if seat in seen:
        raise WagerError(f"seat {seat}: listed twice")
    check_cents(wager, f"seat {seat}: the Spanish 21 wager")
    check_cents(match, f"seat {seat}: the Match the Dealer wager", allow_zero=True)
    if match and not profile.match_the_dealer:
        raise WagerError(f"seat {seat}: profile {profile.code} offers no Match the Dealer")


Seated = tuple[tuple[SeatWager, ...], tuple[int, ...], bool]
# The last wagers seated, kept with the profile they were checked against and compared by
# identity: a simulation deals thousands of rounds to one tuple of wagers, and sorting and
# checking it again each round cost 0.7 us of a 7 us round. Only a tuple of SeatWagers (frozen)
# is kept, so what was checked cannot have changed.
_LAST_SEATED: Final[list[tuple[object, Profile, Seated]]] = []
_SEAT_OF: Final = attrgetter("seat")  # a C getter: a lambda sort key costs a Python call per seat


def seat_wagers(profile: Profile, wagers: Iterable[SeatWager]) -> Seated:
    """The wagers in seat order, each checked (:func:`check_wager`), their seats, and
    whether any seat has a Match the Dealer wager.

    Raises:
        WagerError: for a wager :func:`check_wager` refuses, or no wager at all.
    """
    if _LAST_SEATED:
        last, last_profile, seated = _LAST_SEATED[0]
        if last is wagers and last_profile is profile:
            return seated
    ordered = tuple(sorted(wagers, key=_SEAT_OF))
    seen: dict[int, SeatWager] = {}
    has_match = False
    for w in ordered:
        check_wager(w, profile, seen)
        seen[w.seat] = w
        if w.match:
            has_match = True
    if not ordered:
        raise WagerError("a round needs at least one seat with a wager")
    seated = (ordered, tuple(seen), has_match)
    if type(wagers) is tuple and all(type(w) is SeatWager for w in ordered):
        _LAST_SEATED[:] = [(wagers, profile, seated)]
    return seated


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
