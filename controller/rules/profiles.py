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

#: The most hands a seat may split into: no published Spanish 21 rule goes past four, and
#: a number beyond eight is a typing error, not a house rule.
MAX_SPLIT_HANDS: Final = 8

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
    # not (ASSUMPTION: the definition, 635a.1, is not included), so (o) makes it a tie with a
    # dealer 21; NY 5324.12(b)(1)(iii) says "21 in two cards", which a split hand is, so it
    # wins, and (b)(5) pays a (iii) winner no less than 3:2: WIN pays 3:2.
    split_21_vs_dealer_21: SplitTwentyOne = SplitTwentyOne.PUSH
    # PA 635a.7(o): a tie returns the wager; the one exception against a dealer Blackjack is
    # "21 in more than two cards", which a split two-card 21 is not, so it ties too.
    # (Reachable only without a peek: a peeked dealer blackjack ends the round before
    # any split.)
    split_21_vs_dealer_blackjack: SplitTwentyOne = SplitTwentyOne.PUSH
    # ASSUMPTION (no-peek procedures): a dealer blackjack takes the original wagers only.
    dealer_blackjack_takes: DealerBlackjackTakes = DealerBlackjackTakes.ORIGINAL_ONLY
    # PA 635a.7(h)(1)(i): a blackjack against a 2-9 up card is paid at once. NY 5324.12(b)(5):
    # paid with every other wager "after each round of play is complete". NJ: ASSUMPTION, as
    # NY (19.7 orders no early payment).
    blackjack_paid_at_once: bool = True
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
        for name, value in options.items():
            basis = option_basis(self.code, name)
            if basis.kind is Basis.FIXED and not _agrees(value, getattr(self, name)):
                raise ProfileError(
                    f"profile {self.code}: {name} = {_shown(value)} is not allowed: "
                    f"{basis.clause} fixes {name} = {_shown(getattr(self, name))}"
                )
        profile = replace(self, **options)  # type: ignore[arg-type]
        if not 1 <= profile.max_split_hands <= MAX_SPLIT_HANDS:
            raise ProfileError(
                f"profile {self.code}: max_split_hands must be 1 to {MAX_SPLIT_HANDS}, "
                f"not {profile.max_split_hands}"
            )
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
    blackjack_paid_at_once=False,  # ASSUMPTION: 19.7 orders no early payment
    burn_disclosed_on_request=True,  # NJ 19.7(c)
)

NEW_YORK: Final = Profile(
    code="NY",
    name="New York",
    citation="9 NYCRR 5324.12",
    split_21_vs_dealer_21=SplitTwentyOne.WIN,  # NY 5324.12(b)(1)(iii): "21 in two cards"
    split_21_vs_dealer_blackjack=SplitTwentyOne.WIN,  # (b)(1)(iii): "two or more cards"
    blackjack_paid_at_once=False,  # NY 5324.12(b)(5): after the round, with the rest
    burn_disclosed_on_request=True,  # NY 5324.12(c)(3)
)

PROFILES: Final = {p.code: p for p in (PENNSYLVANIA, NEW_JERSEY, NEW_YORK)}


class Basis(Enum):
    """Where a profile field's value comes from (the per-profile table of docs/rules.md)."""

    FIXED = "fixed"  # the regulation fixes it: an option that changes it is refused
    LICENSEE = "licensee"  # the regulation leaves it to the licensee: settable
    ASSUMED = "assumed"  # the included text is silent: the station's reading, settable


@dataclass(frozen=True, slots=True)
class OptionBasis:
    """A field's basis in one profile and the clause (or the silence) behind it."""

    kind: Basis
    clause: str


_F, _L, _A = Basis.FIXED, Basis.LICENSEE, Basis.ASSUMED
_NOT_INCLUDED = "PA 635a.9-635a.11 not included"

#: For each field: its basis and clause in PA, NJ and NY (docs/rules.md carries the same
#: table; tests/test_rules_profiles.py checks that the two agree).
OPTION_BASES: Final[dict[str, dict[str, OptionBasis]]] = {
    name: {
        code: OptionBasis(kind, clause) for code, (kind, clause) in zip(PROFILES, row, strict=True)
    }
    for name, row in {
        "decks_allowed": (
            (_A, "PA 635a.7 silent"),
            (_A, "NJ 19.7 silent"),
            (_F, "NY 5324.12(a)"),
        ),
        "dealer_second_card": (
            (_F, "PA 635a.7(e)(4)"),
            (_L, "NJ 19.7(g), (i)"),
            (_L, "NY 5324.12(c)(4), (c)(7)"),
        ),
        "peek": (
            (_F, "PA 635a.7(g)"),
            (_L, "NJ 19.7(i)"),
            (_A, "NY 5324.12 orders no peek; (d)(3) names a card reader"),
        ),
        "hit_soft_17": (
            (_F, "PA 635a.7(l)"),
            (_A, "NJ 19.12 not included"),
            (_A, "NY 5324.12 silent"),
        ),
        "no_draw_when_decided": (
            (_F, "PA 635a.7(m)"),
            (_A, "NJ 19.12 not included"),
            (_A, "NY 5324.12 silent"),
        ),
        **{
            name: ((_A, _NOT_INCLUDED), (_A, "NJ 19.7 silent"), (_A, "NY 5324.10 not included"))
            for name in (
                "surrender",
                "double_after_split",
                "rescue",
                "max_split_hands",
                "resplit_aces",
                "hit_split_aces",
                "double_split_aces",
            )
        },
        "split_21_vs_dealer_21": (
            (_A, "PA 635a.7(n)(3), (o); 635a.1 not included"),
            (_A, "NJ 19.5 not included"),
            (_F, "NY 5324.12(b)(1)(iii), (b)(5)"),
        ),
        "split_21_vs_dealer_blackjack": (
            (_A, "PA 635a.7(o); 635a.1 not included"),
            (_A, "NJ 19.5 not included"),
            (_F, "NY 5324.12(b)(1)(iii)"),
        ),
        "dealer_blackjack_takes": (
            (_A, "PA 635a.7(g) peeks; 635a.10-11 not included"),
            (_A, "NJ 19.5 not included"),
            (_A, "NY 5324.12 silent"),
        ),
        "blackjack_paid_at_once": (
            (_F, "PA 635a.7(h)(1)(i)"),
            (_A, "NJ 19.7 silent"),
            (_F, "NY 5324.12(b)(5)"),
        ),
        "settlement_order": (
            (_L, "PA 635a.7(p)"),
            (_A, "NJ 19.7 silent"),
            (_A, "NY 5324.12(b)(5)"),
        ),
        "burn_disclosed_on_request": (
            (_A, "PA 635a.7(c) silent"),
            (_F, "NJ 19.7(c)"),
            (_F, "NY 5324.12(c)(3)"),
        ),
        "no_mid_shoe_entry": (
            (_A, "PA 635a.7 silent"),
            (_A, "NJ 19.7 silent"),
            (_L, "NY 5324.12(b)(10)"),
        ),
        "match_the_dealer": (
            (_A, "PA 635a.7(f); 635a.3 not included"),
            (_A, "NJ 19.7 silent"),
            (_L, "NY 5324.12(d)"),
        ),
        "match_tables": (
            (_A, "PA 635a.12(e) not included"),
            (_A, "NJ 19.7 silent"),
            (_F, "NY 5324.12(d)(5)"),
        ),
    }.items()
}


def option_basis(code: str, name: str) -> OptionBasis:
    """The basis of field ``name`` in profile ``code`` (``citation`` and the like: fixed)."""
    row = OPTION_BASES.get(name)
    if row is None:
        return OptionBasis(Basis.FIXED, "the profile's identity")
    return row[code]


def _agrees(value: object, fixed: object) -> bool:
    # A table of pay tables agrees when every entry it names is the fixed one.
    if isinstance(value, dict) and isinstance(fixed, dict):
        return all(fixed.get(k) == v for k, v in value.items())
    return value == fixed


def _shown(value: object) -> str:
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_shown(v)}" for k, v in sorted(value.items()))
    return str(value).lower() if isinstance(value, bool) else str(value)


def get_profile(code: object) -> Profile:
    """The profile for ``PA``, ``NJ`` or ``NY`` (case-insensitive).

    Raises:
        ProfileError: for any other code.
    """
    profile = PROFILES.get(code.upper()) if isinstance(code, str) else None
    if profile is None:
        raise ProfileError(f"unknown profile {code!r} (expected one of PA, NJ, NY)")
    return profile
