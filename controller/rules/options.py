"""The values a jurisdiction profile's options take, and the basis each value has.

The option types (when the dealer's second card comes, the settlement order, the pay
tables, the bonus odds, the super bonus) and :class:`OptionBasis`: whether a regulation
fixes a value (``fixed``), leaves it to the licensee (``licensee``), or is silent in the
texts the station follows (``assumed``), with the clause, and the values a clause excludes
even where the rest is open. ``controller.rules.profiles`` declares each profile with these.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from controller.rules.odds import THREE_TO_ONE, THREE_TO_TWO, TWO_TO_ONE, Odds


class DealerSecondCard(Enum):
    """When the dealer's second card is dealt."""

    HOLE = "hole"  # face down after the players' second cards (PA 635a.7(e)(4), NY (c)(4)(iv))
    AFTER_PLAYERS = "after_players"  # face up after the players act (NJ 19.7(g), NY (c)(4))


class SettlementOrder(Enum):
    """How the dealer collects and pays (PA 635a.7(p))."""

    COLLECT_THEN_PAY = "collect_then_pay"  # PA 635a.7(p)(1)
    RIGHT_TO_LEFT = "right_to_left"  # PA 635a.7(p)(2): from the dealer's right, counterclockwise


class SplitTwentyOne(Enum):
    """Outcome of a two-card 21 on a split hand against a dealer 21 (a profile reading)."""

    WIN = "win"
    PUSH = "push"
    LOSE = "lose"


class DealerBlackjackTakes(Enum):
    """What a dealer blackjack found after the players acted takes (no-peek procedures)."""

    ORIGINAL_ONLY = "original_only"  # doubles and split wagers are returned
    ALL = "all"


class MatchPayTable(Enum):
    """Match the Dealer pay tables of NY 5324.12(d)(5)."""

    A = "A"  # six decks: 4:1 different suit, 9:1 same suit
    B = "B"  # eight decks: 3:1 different suit, 12:1 same suit

    @property
    def odds(self) -> tuple[Odds, Odds]:
        """(different suit, same suit) odds per matching card."""
        # Keyed by the value: an Enum member's own hash is a Python-level call (0.15 us).
        return _MATCH_ODDS[self._value_]


_MATCH_ODDS: Final = {
    MatchPayTable.A.value: (Odds(4, 1), Odds(9, 1)),
    MatchPayTable.B.value: (Odds(3, 1), Odds(12, 1)),
}

#: The pay table NY 5324.12(d)(5) pairs with each deck count.
MATCH_TABLE_FOR_DECKS: Final = {6: MatchPayTable.A, 8: MatchPayTable.B}

#: The most hands a seat may split into: no published Spanish 21 rule goes past four, and
#: a number beyond eight is a typing error, not a house rule.
MAX_SPLIT_HANDS: Final = 8


class Bonus(Enum):
    """Bonus hands of NY 5324.12(b)(6); a profile's ``bonus_odds`` pays each."""

    FIVE_CARD_21 = "five_card_21"  # (b)(6)(v)
    SIX_CARD_21 = "six_card_21"  # (b)(6)(vi)
    SEVEN_PLUS_CARD_21 = "seven_plus_card_21"  # (b)(6)(vii)
    SIX_SEVEN_EIGHT_MIXED = "678_mixed"  # (b)(6)(i)
    SIX_SEVEN_EIGHT_SUITED = "678_suited"  # (b)(6)(ii)
    SIX_SEVEN_EIGHT_SPADES = "678_spades"  # (b)(6)(ii)
    SEVEN_SEVEN_SEVEN_MIXED = "777_mixed"  # (b)(6)(iii)
    SEVEN_SEVEN_SEVEN_SUITED = "777_suited"  # (b)(6)(iv)
    SEVEN_SEVEN_SEVEN_SPADES = "777_spades"  # (b)(6)(iv)


#: NY 5324.12(b)(6): the bonus odds, by the bonus's value (a str key: an Enum member's own
#: hash is a Python-level call in the settlement's path).
NY_BONUS_ODDS: Final[dict[str, Odds]] = {
    Bonus.FIVE_CARD_21.value: THREE_TO_TWO,  # (v)
    Bonus.SIX_CARD_21.value: TWO_TO_ONE,  # (vi)
    Bonus.SEVEN_PLUS_CARD_21.value: THREE_TO_ONE,  # (vii)
    Bonus.SIX_SEVEN_EIGHT_MIXED.value: THREE_TO_TWO,  # (i)
    Bonus.SIX_SEVEN_EIGHT_SUITED.value: TWO_TO_ONE,  # (ii)
    Bonus.SIX_SEVEN_EIGHT_SPADES.value: THREE_TO_ONE,  # (ii)
    Bonus.SEVEN_SEVEN_SEVEN_MIXED.value: THREE_TO_TWO,  # (iii)
    Bonus.SEVEN_SEVEN_SEVEN_SUITED.value: TWO_TO_ONE,  # (iv)
    Bonus.SEVEN_SEVEN_SEVEN_SPADES.value: THREE_TO_ONE,  # (iv)
}


@dataclass(frozen=True, slots=True)
class SuperBonus:
    """The fixed super bonus on a suited 7-7-7 against a dealer 7, in cents: ``low_cents``
    for an original wager from ``low_from_cents``, ``high_cents`` from ``high_from_cents``,
    and ``share_cents`` to every other player who wagered (NY 5324.12(b)(7)). Nothing under
    ``low_from_cents``; all zero: no super bonus."""

    low_from_cents: int
    low_cents: int
    high_from_cents: int
    high_cents: int
    share_cents: int

    def for_wager(self, wager: int) -> int:
        """The fixed amount for an original wager of ``wager`` cents."""
        if wager >= self.high_from_cents:
            return self.high_cents
        if wager >= self.low_from_cents:
            return self.low_cents
        return 0

    def __str__(self) -> str:
        return (
            f"{_dollars(self.low_cents)} from {_dollars(self.low_from_cents)},"
            f" {_dollars(self.high_cents)} from {_dollars(self.high_from_cents)},"
            f" {_dollars(self.share_cents)} to each other player"
        )


#: NY 5324.12(b)(7): $1,000 for an original wager of $5 up to $25, $5,000 for $25 and over,
#: $50 to every other player who wagered that round.
NY_SUPER_BONUS: Final = SuperBonus(500, 100_000, 2_500, 500_000, 5_000)


def _dollars(cents: int) -> str:
    whole = f"${cents // 100:,}"
    return whole if cents % 100 == 0 else f"{whole}.{cents % 100:02d}"


class Basis(Enum):
    """Where a profile field's value comes from (the per-profile table of docs/rules.md)."""

    FIXED = "fixed"  # the regulation fixes it: an option that changes it is refused
    LICENSEE = "licensee"  # the regulation leaves it to the licensee: settable
    ASSUMED = "assumed"  # the included text is silent: the station's reading, settable


@dataclass(frozen=True, slots=True)
class OptionBasis:
    """A field's basis in one profile: its kind and the clause (or the silence) behind it;
    ``excludes`` are values a clause rules out even where the rest is open, ``excluded_by``
    that clause and why (PA 635a.7(o): equal totals tie, so no reading lets them lose)."""

    kind: Basis
    clause: str
    excludes: tuple[object, ...] = ()
    excluded_by: str = ""

    def refusal(self, name: str, value: object, current: object) -> str:
        """Why ``value`` is not allowed for field ``name`` whose value is ``current``, or
        ``""`` when it is."""
        if self.kind is Basis.FIXED and not _agrees(value, current):
            return f"{self.clause} fixes {name} = {shown(current)}"
        if any(_agrees(value, excluded) for excluded in self.excludes):
            return f"{self.excluded_by} excludes {name} = {shown(value)}"
        return ""

    def __str__(self) -> str:
        text = f"{self.kind.value}: {self.clause}"
        if self.excludes:
            excluded = " or ".join(f"`{shown(v)}`" for v in self.excludes)
            text += f"; {excluded} excluded: {self.excluded_by}"
        return text


def _agrees(value: object, fixed: object) -> bool:
    # A table (pay tables, bonus odds) agrees when every entry it names is the fixed one.
    if isinstance(value, dict) and isinstance(fixed, dict):
        return all(k in fixed and fixed[k] == v for k, v in value.items())
    return value == fixed


def shown(value: object) -> str:
    """An option value as station.toml, the docs and the error messages write it."""
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {shown(v)}" for k, v in value.items())
    if isinstance(value, tuple):
        return ", ".join(shown(v) for v in value)
    return str(value).lower() if isinstance(value, bool) else str(value)


#: An option's value with its basis, as a profile declares it.
Rule = tuple[object, OptionBasis]


def fixed(value: object, clause: str) -> Rule:
    """An option the regulation fixes: another value is refused naming ``clause``."""
    return value, OptionBasis(Basis.FIXED, clause)


def licensee(value: object, clause: str) -> Rule:
    """An option ``clause`` leaves to the licensee; ``value`` is the station's default."""
    return value, OptionBasis(Basis.LICENSEE, clause)


def assumed(
    value: object, clause: str, excludes: tuple[object, ...] = (), excluded_by: str = ""
) -> Rule:
    """An option the texts are silent on (``clause`` says where): the station's reading,
    settable, but for the values in ``excludes``, which ``excluded_by`` rules out."""
    return value, OptionBasis(Basis.ASSUMED, clause, excludes, excluded_by)
