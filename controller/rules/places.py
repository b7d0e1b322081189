"""Where a round's next card or decision goes: the shared step objects it asks for.

A step is immutable, so a round never builds one it has built before: the initial deal's
places are made once per seating, the players' cards and decisions on first use, and looked
up in a dict after that (with keys that hold no Enum member: an Enum's ``__hash__`` is a
Python-level call, 0.15 us). Also here: the per-table set-up a round reads at its start.
"""

from __future__ import annotations

from typing import Final

from controller.rules.legality import SEATS
from controller.rules.profiles import DealerSecondCard, MatchPayTable, Profile
from controller.rules.steps import CardRole, NeedCard, NeedDecision, NeedInsurance, NeedPeek

# Building a frozen dataclass per step (0.8 us, ~16 a round) was a tenth of the engine's time.
# Final: the compiled build keeps these in C variables (see controller/rules/round.py).
_HIT_ROLE: Final = CardRole.HIT
_DOUBLE_ROLE: Final = CardRole.DOUBLE
INITIAL_CARD: Final = {s: NeedCard(CardRole.INITIAL, s, 0) for s in SEATS}
UP_CARD: Final = NeedCard(CardRole.UP)
HOLE_CARD: Final = NeedCard(CardRole.HOLE)
SECOND_CARD: Final = NeedCard(CardRole.SECOND)
DRAW_CARD: Final = NeedCard(CardRole.DRAW)
PEEK_FOR_ACE: Final = NeedPeek(looking_for_ace=True)
PEEK_FOR_TEN: Final = NeedPeek(looking_for_ace=False)
_PLANS: Final[dict[tuple[tuple[int, ...], bool], tuple[NeedCard, ...]]] = {}
_INSURANCE_STEPS: Final[dict[tuple[int, ...], NeedInsurance]] = {}
_DECISION_STEPS: Final[dict[tuple[int, int, int], NeedDecision]] = {}
_HIT_STEPS: Final[dict[tuple[int, int], NeedCard]] = {}
_DOUBLE_STEPS: Final[dict[tuple[int, int], NeedCard]] = {}
_SPLIT_STEPS: Final[dict[tuple[int, int], NeedCard]] = {}


Setup = tuple[MatchPayTable, bool, tuple[NeedCard, ...]]
# By the profile's id (a profile holds a dict, so it has no hash), with the profile kept in
# the entry so that its id cannot be reused while the entry lives (a profile is frozen; its
# pay-table dict is filled at construction and never changed). Checking the deck count,
# reading the peek rule and looking the plan up per round cost 0.4 us of a 2 us set-up.
_SETUPS: Final[dict[tuple[int, int, tuple[int, ...]], tuple[Profile, Setup]]] = {}
_SETUPS_KEPT: Final = 256


def table_setup(profile: Profile, decks: int, seats: tuple[int, ...]) -> Setup:
    """Match pay table, "the reader peeks on A/K/Q/J", and the initial deal's places.

    Raises:
        ProfileError: for a deck count the profile does not allow.
    """
    entry = _SETUPS.get((id(profile), decks, seats))
    if entry is not None and entry[0] is profile:
        return entry[1]
    # PA 635a.7(g): the reader peeks only where the profile deals a hole card.
    setup = (
        profile.match_table(decks),
        profile.uses_hole_card_peek,
        initial_plan(seats, profile.dealer_second_card),
    )
    if len(_SETUPS) >= _SETUPS_KEPT:
        _SETUPS.clear()
    _SETUPS[id(profile), decks, seats] = (profile, setup)
    return setup


def initial_plan(seats: tuple[int, ...], second: DealerSecondCard) -> tuple[NeedCard, ...]:
    """The places of the initial deal for ``seats`` (sorted), in the order cards come.

    PA 635a.7(e), NY 5324.12(c)(4), NJ 19.7(d): see the comment below.
    """
    # PA 635a.7(e), NY 5324.12(c)(4), NJ 19.7(d): from the dealer's left, one card to
    # each box, the dealer's up card, a second card to each box, then the hole card
    # where the profile deals one.
    with_hole = second is DealerSecondCard.HOLE
    plan = _PLANS.get((seats, with_hole))
    if plan is None:
        boxes = [INITIAL_CARD[s] for s in seats]
        hole = [HOLE_CARD] if with_hole else []
        plan = _PLANS[seats, with_hole] = (*boxes, UP_CARD, *boxes, *hole)
    return plan


def insurance_step(seats: tuple[int, ...]) -> NeedInsurance:
    """The shared insurance offer to ``seats``."""
    step = _INSURANCE_STEPS.get(seats)
    if step is None:
        step = _INSURANCE_STEPS[seats] = NeedInsurance(seats)
    return step


def decision_step(seat: int, hand: int, mask: int) -> NeedDecision:
    """The shared decision step for ``seat``'s hand ``hand`` with legal-moves ``mask``."""
    step = _DECISION_STEPS.get((seat, hand, mask))
    if step is None:
        step = _DECISION_STEPS[seat, hand, mask] = NeedDecision(seat, hand, mask)
    return step


def card_step(role: CardRole, seat: int, hand: int) -> NeedCard:
    """The shared step for a hit, double or split card to ``seat``'s hand ``hand``."""
    steps = (
        _HIT_STEPS if role is _HIT_ROLE else _DOUBLE_STEPS if role is _DOUBLE_ROLE else _SPLIT_STEPS
    )
    step = steps.get((seat, hand))
    if step is None:
        step = steps[seat, hand] = NeedCard(role, seat, hand)
    return step
