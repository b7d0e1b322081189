"""What a round waits for next: the step types, decisions, card roles and seat wagers."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Decision(Enum):
    """A player's decision on a hand; ``bit`` is its bit in a legal-moves mask."""

    bit: int  # set below; not a member

    HIT = "hit"
    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    SURRENDER = "surrender"
    RESCUE = "rescue"


# A legal-moves set is an int mask in the engine: ``decision in frozenset`` calls Enum's
# Python-level __hash__ (0.15 us, 278k calls per 20k rounds); ``mask & decision.bit`` is an
# attribute read and an int AND.
for _i, _decision in enumerate(Decision):
    _decision.bit = 1 << _i
del _i, _decision

#: Every legal set by mask, built once (the step exposes the set, the engine the mask).
LEGAL_SETS: tuple[frozenset[Decision], ...] = tuple(
    frozenset(d for d in Decision if mask & d.bit) for mask in range(1 << len(Decision))
)


class CardRole(Enum):
    """Why a card is dealt."""

    INITIAL = "initial"  # a player's first or second card
    UP = "up"  # the dealer's first card, face up
    HOLE = "hole"  # the dealer's second card, face down (PA 635a.7(e)(4))
    SECOND = "second"  # the dealer's second card after the players (NJ 19.7(g))
    HIT = "hit"
    DOUBLE = "double"
    SPLIT = "split"  # the second card of a split hand
    DRAW = "draw"  # a dealer draw (PA 635a.7(l))


@dataclass(frozen=True, slots=True)
class SeatWager:
    """A seat's wagers at the start of a round, in cents."""

    seat: int
    wager: int
    match: int = 0


@dataclass(frozen=True, slots=True)
class NeedCard:
    """The next card from the shoe goes to this place."""

    role: CardRole
    seat: int | None = None
    hand: int | None = None


@dataclass(frozen=True, slots=True)
class NeedInsurance:
    """The dealer's up card is an ace: insurance is offered to these seats."""

    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class NeedPeek:
    """The card reader must check the hole card for blackjack (PA 635a.7(g))."""

    looking_for_ace: bool  # True for a J/Q/K up card, False for an ace


@dataclass(frozen=True, slots=True)
class NeedDecision:
    """A player decision on ``seat``'s hand ``hand`` (0-based), one of ``legal``.

    ``mask`` is the same set as bits (:attr:`Decision.bit`); ``legal`` is built from it.
    """

    seat: int
    hand: int
    mask: int
    legal: frozenset[Decision] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "legal", LEGAL_SETS[self.mask])


@dataclass(frozen=True, slots=True)
class NeedReveal:
    """The dealer turns the hole card face up (PA 635a.7(k))."""


@dataclass(frozen=True, slots=True)
class RoundOver:
    """Every wager of the round is settled."""


Step = NeedCard | NeedInsurance | NeedPeek | NeedDecision | NeedReveal | RoundOver

ROUND_OVER = RoundOver()
NEED_REVEAL = NeedReveal()


def describe(step: Step) -> str:
    """A short phrase for prompts and errors: what the round is waiting for."""
    if isinstance(step, NeedCard):
        if step.seat is None:
            return f"the dealer's {step.role.value} card"
        return f"a {step.role.value} card for seat {step.seat} hand {(step.hand or 0) + 1}"
    if isinstance(step, NeedDecision):
        return f"a decision for seat {step.seat} hand {step.hand + 1}"
    if isinstance(step, NeedInsurance):
        return "insurance wagers"
    if isinstance(step, NeedPeek):
        return "the card reader's answer"
    if isinstance(step, NeedReveal):
        return "the hole card's reveal"
    return "nothing: the round is over"
