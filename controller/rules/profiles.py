"""Jurisdiction profiles: the rule set each regulation imposes, as data.

Every field names the clause it comes from. Where the three regulations in
``shared/regulations`` are silent (they cite 635a.8-635a.12, N.J.A.C. 13:69F-19.5 and 19.12
without including them), the field says ``ASSUMPTION`` and gives the reading the station
takes; a licensee changes it through the station's configuration.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Final

from controller.rules.cards import DECK_COUNTS
from controller.rules.errors import ProfileError
from controller.rules.odds import Odds


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


@dataclass(frozen=True, slots=True)
class Profile:
    """A jurisdiction's Spanish 21 rule set. Field comments cite the clause or the assumption."""

    code: str
    name: str
    citation: str
    # NY 5324.12(a): six or eight decks of 48 cards. PA/NJ: ASSUMPTION, the same.
    decks_allowed: tuple[int, ...] = DECK_COUNTS
    # PA 635a.7(e)(4), NY (c)(4)(iv): hole card face down; NJ 19.7(d),(g): after the players.
    dealer_second_card: DealerSecondCard = DealerSecondCard.HOLE
    # PA 635a.7(g), NJ 19.7(i): card reader peek on A/K/Q/J. NY: ASSUMPTION (5324.12(d)(3)
    # names "any card reader device", so the NY table peeks as PA does).
    peek: bool = True
    # PA 635a.7(l): dealer draws to hard or soft 17, i.e. stands on soft 17.
    # NJ/NY: ASSUMPTION, the same (NJ 19.12 is not included; NY is silent).
    hit_soft_17: bool = False
    # PA 635a.7(m): no draw when the dealer's total cannot change any outcome.
    # NJ/NY: ASSUMPTION, the same (NJ 19.12 is not included; NY is silent).
    no_draw_when_decided: bool = True
    # ASSUMPTION (PA 635a.9): late surrender on the initial two cards, not after a split.
    surrender: bool = True
    # ASSUMPTION (PA 635a.10): double on any number of cards, after a split too; rescue allowed.
    double_after_split: bool = True
    rescue: bool = True
    # ASSUMPTION (PA 635a.11): split to at most 4 hands, aces included; split aces get one
    # card each unless this option lets them be hit; pairs are of identical rank.
    max_split_hands: int = 4
    resplit_aces: bool = True
    hit_split_aces: bool = False
    double_split_aces: bool = False
    # Two-card 21 on a split hand. PA 635a.7(n)(3) says "Blackjack", which a split hand is
    # not, so (o) makes it a tie with a dealer 21; NY 5324.12(b)(1)(iii) says "21 in two
    # cards", which a split hand is, so it wins (paid 1:1: it is not a blackjack).
    split_21_vs_dealer_21: SplitTwentyOne = SplitTwentyOne.PUSH
    # PA 635a.7(o): a tie returns the wager; the one exception against a dealer Blackjack is
    # "21 in more than two cards", which a split two-card 21 is not, so it ties too.
    # (Reachable only without a peek: a peeked dealer blackjack ends the round before
    # any split.)
    split_21_vs_dealer_blackjack: SplitTwentyOne = SplitTwentyOne.PUSH
    # ASSUMPTION (no-peek procedures): a dealer blackjack takes the original wagers only.
    dealer_blackjack_takes: DealerBlackjackTakes = DealerBlackjackTakes.ORIGINAL_ONLY
    # PA 635a.7(p): the licensee designates one of two settlement orders.
    settlement_order: SettlementOrder = SettlementOrder.COLLECT_THEN_PAY
    # NJ 19.7(c), NY (c)(3): the burn card is disclosed if a player asks. PA 635a.7(c): silent.
    burn_disclosed_on_request: bool = False
    # NY 5324.12(b)(10): a seat that sat out after the shuffle may not wager until reshuffle.
    no_mid_shoe_entry: bool = False
    # NY 5324.12(d), PA 635a.7(f): Match the Dealer offered. NY (d)(1): only with a six- or
    # eight-deck shuffling device. NJ: ASSUMPTION, offered (19.7 does not mention it).
    match_the_dealer: bool = True
    # NY 5324.12(d)(5): pay table A for six decks, B for eight.
    match_tables: dict[int, MatchPayTable] = field(
        default_factory=lambda: dict(MATCH_TABLE_FOR_DECKS)
    )

    def match_table(self, decks: int) -> MatchPayTable:
        """The Match the Dealer pay table for a ``decks``-deck shoe.

        Raises:
            ProfileError: for a deck count the profile does not allow.
        """
        self.check_decks(decks)
        return self.match_tables[decks]

    def check_decks(self, decks: int) -> None:
        """Raise :class:`ProfileError` unless the profile allows ``decks`` decks."""
        if decks not in self.decks_allowed:
            allowed = " or ".join(str(d) for d in self.decks_allowed)
            raise ProfileError(f"profile {self.code} deals from {allowed} decks, not {decks}")

    @property
    def uses_hole_card_peek(self) -> bool:
        """True when the dealer checks the hole card with the reader before players act."""
        return self.peek and self.dealer_second_card is DealerSecondCard.HOLE

    def with_options(self, **options: object) -> Profile:
        """A copy with some fields changed (the licensee's choices).

        Raises:
            ProfileError: for an unknown option or a contradiction.
        """
        unknown = sorted(set(options) - set(self.__dataclass_fields__) - {"code", "name"})
        if unknown:
            raise ProfileError(f"unknown profile option(s): {', '.join(unknown)}")
        profile = replace(self, **options)  # type: ignore[arg-type]
        if profile.max_split_hands < 1:
            raise ProfileError(f"profile {self.code}: max_split_hands must be at least 1")
        if profile.peek and profile.dealer_second_card is DealerSecondCard.AFTER_PLAYERS:
            raise ProfileError(
                f"profile {self.code}: peek needs a hole card, but the dealer's second card "
                "is dealt after the players"
            )
        return profile


PENNSYLVANIA: Final = Profile(
    code="PA",
    name="Pennsylvania",
    citation="58 Pa. Code 635a.7",
)

NEW_JERSEY: Final = Profile(
    code="NJ",
    name="New Jersey",
    citation="N.J.A.C. 13:69F-19.7",
    # NJ 19.7(d),(g): no hole card; "Dealer's Card" after the players act. The card-reader
    # alternative of 19.7(i) is the option dealer_second_card=HOLE, peek=True.
    dealer_second_card=DealerSecondCard.AFTER_PLAYERS,
    peek=False,
    burn_disclosed_on_request=True,  # NJ 19.7(c)
)

NEW_YORK: Final = Profile(
    code="NY",
    name="New York",
    citation="9 NYCRR 5324.12",
    split_21_vs_dealer_21=SplitTwentyOne.WIN,  # NY 5324.12(b)(1)(iii): "21 in two cards"
    split_21_vs_dealer_blackjack=SplitTwentyOne.WIN,  # (b)(1)(iii): "two or more cards"
    burn_disclosed_on_request=True,  # NY 5324.12(c)(3)
)

PROFILES: Final = {p.code: p for p in (PENNSYLVANIA, NEW_JERSEY, NEW_YORK)}


def get_profile(code: str) -> Profile:
    """The profile for ``PA``, ``NJ`` or ``NY`` (case-insensitive).

    Raises:
        ProfileError: for any other code.
    """
    profile = PROFILES.get(code.upper()) if isinstance(code, str) else None
    if profile is None:
        raise ProfileError(f"unknown profile {code!r} (expected one of PA, NJ, NY)")
    return profile
