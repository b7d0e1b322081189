"""Jurisdiction profiles: the rule set each regulation imposes, declared once, as data.

The registry: each profile is one :func:`declare` call below, giving every option its value
and its basis together (the clause that fixes it or leaves it to the licensee, or the
silence the station reads: ``assumed``). Where the three regulations the station follows
are silent (they cite PA 635a.8-635a.12, N.J.A.C. 13:69F-19.5 and 19.12 without including
them), the basis is ``assumed`` and the value is the station's reading; a licensee changes
it through the station's configuration. Everything that enumerates profiles (the
configuration's choices, the CLI, the error texts, the docs table of docs/rules.md, the
tests' parameters) reads :data:`PROFILES`; a new profile is one more ``declare`` and its
column in docs/rules.md.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Final

from controller.rules.cards import DECK_COUNTS
from controller.rules.errors import ProfileError
from controller.rules.odds import EVEN, Odds
from controller.rules.option_values import parse_option
from controller.rules.options import (
    MATCH_TABLE_FOR_DECKS,
    MAX_SPLIT_HANDS,
    NY_BONUS_ODDS,
    NY_SUPER_BONUS,
    Basis,
    Bonus,
    DealerBlackjackTakes,
    DealerSecondCard,
    MatchPayTable,
    OptionBasis,
    Rule,
    SettlementOrder,
    SplitTwentyOne,
    SuperBonus,
    assumed,
    fixed,
    licensee,
    shown,
)

__all__ = [
    "MATCH_TABLE_FOR_DECKS",
    "MAX_SPLIT_HANDS",
    "OPTION_BASES",
    "OPTION_FIELDS",
    "PROFILES",
    "Basis",
    "DealerBlackjackTakes",
    "DealerSecondCard",
    "MatchPayTable",
    "OptionBasis",
    "Profile",
    "Rule",
    "SettlementOrder",
    "SplitTwentyOne",
    "SuperBonus",
    "assumed",
    "declare",
    "fixed",
    "get_profile",
    "licensee",
    "option_basis",
    "option_table_markdown",
    "parse_option",
    "profile_codes",
    "variant",
]

#: No fixed payout beyond $1,000,000 (the largest wager the engine takes): a bigger number
#: is a typing error.
MAX_FIXED_PAYOUT_CENTS: Final = 100_000_000


@dataclass(frozen=True, slots=True)
class Profile:
    """A jurisdiction's Spanish 21 rule set. ``bases`` gives each option's basis (see
    :func:`declare` and docs/rules.md); the values below are what each option means."""

    code: str
    name: str
    citation: str
    decks_allowed: tuple[int, ...]  # six or eight decks of 48 cards
    dealer_second_card: DealerSecondCard  # a hole card, or the dealer's card after the players
    peek: bool  # card reader peek on A/K/Q/J before the players act
    hit_soft_17: bool  # the dealer draws on a soft 17
    no_draw_when_decided: bool  # no dealer draw when no outcome can change
    surrender: bool  # late surrender on the initial two cards, not after a split
    double_after_split: bool  # double on any number of cards, after a split too
    rescue: bool  # a doubled hand may take back the double for the original wager
    max_split_hands: int  # hands a seat may split into, aces included
    resplit_aces: bool
    hit_split_aces: bool  # split aces get one card each unless this is true
    double_split_aces: bool
    split_21_vs_dealer_21: SplitTwentyOne  # a two-card 21 on a split hand, dealer 21
    split_21_vs_dealer_blackjack: SplitTwentyOne  # the same against a dealer blackjack
    dealer_blackjack_takes: DealerBlackjackTakes  # found after play (no peek)
    blackjack_paid_at_once: bool  # a blackjack against a 2-9 up card is paid at once
    settlement_order: SettlementOrder  # how the final settlement collects and pays
    burn_disclosed_on_request: bool  # the burn card is shown to a player who asks
    no_mid_shoe_entry: bool  # a seat that sat out waits for the reshuffle
    match_the_dealer: bool  # the Match the Dealer wager is offered
    match_tables: dict[int, MatchPayTable]  # its pay table by deck count
    match_needs_shuffler: bool  # Match only with a six- or eight-deck shuffling device
    bonus_odds: dict[str, Odds]  # the bonus hands' odds, by Bonus value (1:1 when doubled)
    super_bonus: SuperBonus  # suited 7-7-7 against a dealer 7, never doubled or split
    bases: dict[str, OptionBasis]

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

    def basis(self, name: str) -> OptionBasis:
        """The basis of option ``name`` (``code``, ``name``, ``citation``: fixed)."""
        found = self.bases.get(name)
        return found if found is not None else OptionBasis(Basis.FIXED, "the profile's identity")

    def with_options(self, **options: object) -> Profile:
        """A copy with some options changed (the licensee's choices).

        Raises:
            ProfileError: for an unknown option, a value the profile's regulation fixes
                otherwise or excludes (one line naming the clause), a value out of range,
                or a contradiction.
        """
        profile = self
        for name, value in options.items():
            profile = profile._with(name, value)
        if self.peek_contradicted(profile):
            raise ProfileError(
                f"profile {self.code}: peek needs a hole card, but the dealer's second card"
                " is dealt after the players"
            )
        return profile

    def check_option(self, name: str, value: object) -> None:
        """Check one option on its own: known, allowed by the regulation, in range.

        Raises:
            ProfileError: as :meth:`with_options`, contradictions between options apart.
        """
        self._with(name, value)

    @staticmethod
    def peek_contradicted(profile: Profile) -> bool:
        """True when ``profile`` peeks without a hole card to peek at."""
        return profile.peek and profile.dealer_second_card is DealerSecondCard.AFTER_PLAYERS

    def _with(self, name: str, value: object) -> Profile:
        if name not in OPTION_FIELDS and name not in ("code", "name"):
            raise ProfileError(f"unknown profile option(s): {name}")
        refusal = self.basis(name).refusal(name, value, getattr(self, name))
        if refusal:
            raise ProfileError(
                f"profile {self.code}: {name} = {shown(value)} is not allowed: {refusal}"
            )
        if name in ("match_tables", "bonus_odds") and isinstance(value, dict):
            value = {**getattr(self, name), **value}  # a table names the entries it changes
        profile = replace(self, **{name: value})  # type: ignore[arg-type]
        problem = profile.problem()
        if problem:
            raise ProfileError(f"profile {self.code}: {problem}")
        return profile

    def problem(self) -> str:
        """What makes this rule set impossible, or ``""``."""
        if not self.decks_allowed or not set(self.decks_allowed) <= set(DECK_COUNTS):
            return f"decks_allowed must be 6, 8 or both, not {shown(self.decks_allowed)}"
        missing = [d for d in self.decks_allowed if d not in self.match_tables]
        if missing or not set(self.match_tables) <= set(DECK_COUNTS):
            return f"match_tables needs a pay table for 6 and 8 decks: {shown(self.match_tables)}"
        if not 1 <= self.max_split_hands <= MAX_SPLIT_HANDS:
            return f"max_split_hands must be 1 to {MAX_SPLIT_HANDS}, not {self.max_split_hands}"
        names = {b.value for b in Bonus}
        if set(self.bonus_odds) != names:
            return f"bonus_odds must name every bonus: {', '.join(sorted(names))}"
        low = [k for k, o in self.bonus_odds.items() if o.numerator < o.denominator]
        if low:
            # PA 635a.7(n), NY 5324.12(b)(5): a winning hand is paid at least 1:1.
            return f"bonus_odds: {low[0]} pays less than {EVEN}, which any win pays"
        bonus = self.super_bonus
        amounts = (fld.name for fld in fields(bonus))
        for amount in amounts:
            if not 0 <= getattr(bonus, amount) <= MAX_FIXED_PAYOUT_CENTS:
                return f"super_bonus: {amount} must be 0 to {MAX_FIXED_PAYOUT_CENTS} cents"
        if bonus.low_from_cents > bonus.high_from_cents:
            return "super_bonus: low_from_cents is above high_from_cents"
        return ""

    def parse(self, name: str, raw: object) -> object:
        """Option ``name`` as a script or station.toml writes it, as this profile holds it.

        Raises:
            ProfileError: for an unknown option or a value of the wrong form.
        """
        if name not in OPTION_FIELDS:
            raise ProfileError(f"unknown profile option {name!r}")
        return parse_option(name, raw, getattr(self, name))


#: The options of a profile, in declaration order (every field but its identity and bases).
OPTION_FIELDS: Final = tuple(
    f.name for f in fields(Profile) if f.name not in ("code", "name", "citation", "bases")
)

#: The registry: every declared profile by code, in declaration order.
PROFILES: Final[dict[str, Profile]] = {}


def declare(code: str, name: str, citation: str, **rules: Rule) -> Profile:
    """Declare and register a profile: every option as ``fixed(...)``, ``licensee(...)``
    or ``assumed(...)``.

    Raises:
        ProfileError: for a code already declared or not upper case, a missing or unknown
            option, or a rule set :meth:`Profile.problem` refuses.
    """
    if code in PROFILES or code != code.upper():
        raise ProfileError(f"profile {code!r}: codes are upper case and declared once")
    missing = [n for n in OPTION_FIELDS if n not in rules]
    unknown = sorted(set(rules) - set(OPTION_FIELDS))
    if missing or unknown:
        raise ProfileError(f"profile {code}: missing {missing}, unknown {unknown}")
    values: dict[str, Any] = {n: rules[n][0] for n in OPTION_FIELDS}
    bases = {n: rules[n][1] for n in OPTION_FIELDS}
    profile = Profile(code=code, name=name, citation=citation, bases=bases, **values)
    problem = profile.problem() or ("peek without a hole card" * profile.peek_contradicted(profile))
    if problem:
        raise ProfileError(f"profile {code}: {problem}")
    PROFILES[code] = profile
    return profile


def variant(base: Profile, code: str, name: str, citation: str, **rules: Rule) -> Profile:
    """Declare and register a profile that takes ``base``'s options but those in ``rules``
    (see :func:`declare`)."""
    inherited = {n: (getattr(base, n), base.bases[n]) for n in OPTION_FIELDS}
    return declare(code, name, citation, **(inherited | rules))


# Shared readings where every text we hold is silent: the sections on surrender, doubling
# and splitting (PA 635a.9-635a.11, NY 5324.10) are cited but not included.
def _not_included(surrender: str, double: str, split: str) -> dict[str, Rule]:
    return {
        "surrender": assumed(True, surrender),
        "double_after_split": assumed(True, f"{double}; {split}" if double != split else split),
        "rescue": assumed(True, double),
        "max_split_hands": assumed(4, split),
        "resplit_aces": assumed(True, split),
        "hit_split_aces": assumed(False, split),
        "double_split_aces": assumed(False, split),
    }


PENNSYLVANIA: Final = declare(
    "PA",
    "Pennsylvania",
    "58 Pa. Code 635a.7",
    decks_allowed=assumed(DECK_COUNTS, "PA 635a.7 silent"),
    dealer_second_card=fixed(DealerSecondCard.HOLE, "PA 635a.7(e)(4)"),
    peek=fixed(True, "PA 635a.7(g)"),
    hit_soft_17=fixed(False, "PA 635a.7(l)"),
    no_draw_when_decided=fixed(True, "PA 635a.7(m)"),
    **_not_included("PA 635a.9 not included", "PA 635a.10 not included", "PA 635a.11 not included"),
    # (n)(3) wins only with a "Blackjack" (635a.1, the definition, is not included: a split
    # hand is none in the station's reading); (o) makes equal totals a tie: never a loss.
    split_21_vs_dealer_21=assumed(
        SplitTwentyOne.PUSH,
        "PA 635a.7(n)(3), (o); 635a.1 not included",
        (SplitTwentyOne.LOSE,),
        "PA 635a.7(o) (equal totals tie)",
    ),
    split_21_vs_dealer_blackjack=assumed(
        SplitTwentyOne.PUSH,
        "PA 635a.7(o); 635a.1 not included",
        (SplitTwentyOne.LOSE,),
        "PA 635a.7(o) (only 21 in more than two cards loses to a Blackjack)",
    ),
    # (g): the reader finds a dealer blackjack before any double or split: nothing else to take.
    dealer_blackjack_takes=fixed(DealerBlackjackTakes.ORIGINAL_ONLY, "PA 635a.7(g)"),
    blackjack_paid_at_once=fixed(True, "PA 635a.7(h)(1)(i)"),
    settlement_order=licensee(SettlementOrder.COLLECT_THEN_PAY, "PA 635a.7(p)"),
    burn_disclosed_on_request=assumed(False, "PA 635a.7(c) silent"),
    no_mid_shoe_entry=assumed(False, "PA 635a.7 silent"),
    match_the_dealer=assumed(True, "PA 635a.7(f); 635a.3 not included"),
    match_tables=assumed(dict(MATCH_TABLE_FOR_DECKS), "PA 635a.12(e) not included"),
    match_needs_shuffler=assumed(False, "PA 635a.7(f) silent"),
    # (n) pays "in accordance with the payout odds in 635a.12(a)-(c)", not included: the
    # station pays NY 5324.12(b)(6) and (b)(7).
    bonus_odds=assumed(dict(NY_BONUS_ODDS), "PA 635a.12(a)-(c) not included"),
    super_bonus=assumed(NY_SUPER_BONUS, "PA 635a.12(a)-(c) not included"),
)

NEW_JERSEY: Final = declare(
    "NJ",
    "New Jersey",
    "N.J.A.C. 13:69F-19.7",
    decks_allowed=assumed(DECK_COUNTS, "NJ 19.7 silent"),
    # (d), (g): no hole card, the "Dealer's Card" after the players; (i): the licensee may
    # deal a hole card instead, and peek where it uses a card reader.
    dealer_second_card=licensee(DealerSecondCard.AFTER_PLAYERS, "NJ 19.7(g), (i)"),
    peek=licensee(False, "NJ 19.7(i)"),
    hit_soft_17=assumed(False, "NJ 19.12 not included"),
    no_draw_when_decided=assumed(True, "NJ 19.12 not included"),
    **_not_included("NJ 19.7 silent", "NJ 19.7 silent", "NJ 19.7 silent"),
    split_21_vs_dealer_21=assumed(SplitTwentyOne.PUSH, "NJ 19.5 not included"),
    split_21_vs_dealer_blackjack=assumed(SplitTwentyOne.PUSH, "NJ 19.5 not included"),
    dealer_blackjack_takes=assumed(DealerBlackjackTakes.ORIGINAL_ONLY, "NJ 19.5 not included"),
    blackjack_paid_at_once=assumed(False, "NJ 19.7 silent"),
    settlement_order=assumed(SettlementOrder.COLLECT_THEN_PAY, "NJ 19.7 silent"),
    burn_disclosed_on_request=fixed(True, "NJ 19.7(c)"),
    no_mid_shoe_entry=assumed(False, "NJ 19.7 silent"),
    match_the_dealer=assumed(True, "NJ 19.7 silent"),
    match_tables=assumed(dict(MATCH_TABLE_FOR_DECKS), "NJ 19.7 silent"),
    match_needs_shuffler=assumed(False, "NJ 19.7 silent"),
    bonus_odds=assumed(dict(NY_BONUS_ODDS), "NJ 19.7 silent; its payout odds not included"),
    super_bonus=assumed(NY_SUPER_BONUS, "NJ 19.7 silent; its payout odds not included"),
)

NEW_YORK: Final = declare(
    "NY",
    "New York",
    "9 NYCRR 5324.12",
    decks_allowed=fixed(DECK_COUNTS, "NY 5324.12(a)"),
    dealer_second_card=licensee(DealerSecondCard.HOLE, "NY 5324.12(c)(4), (c)(7)"),
    # NY orders no peek; (d)(3) names "any card reader device": the station peeks where a
    # reader is configured.
    peek=assumed(True, "NY 5324.12 orders no peek; (d)(3) names a card reader"),
    hit_soft_17=assumed(False, "NY 5324.12 silent"),
    no_draw_when_decided=assumed(True, "NY 5324.12 silent"),
    **_not_included(*["NY 5324.10 not included"] * 3),
    # (b)(1)(iii): "21 in two cards", which a split hand has, against a dealer 21 "in two or
    # more cards"; (b)(5) pays it no less than 3:2.
    split_21_vs_dealer_21=fixed(SplitTwentyOne.WIN, "NY 5324.12(b)(1)(iii), (b)(5)"),
    split_21_vs_dealer_blackjack=fixed(SplitTwentyOne.WIN, "NY 5324.12(b)(1)(iii)"),
    dealer_blackjack_takes=assumed(DealerBlackjackTakes.ORIGINAL_ONLY, "NY 5324.12 silent"),
    blackjack_paid_at_once=fixed(False, "NY 5324.12(b)(5)"),
    settlement_order=assumed(SettlementOrder.COLLECT_THEN_PAY, "NY 5324.12(b)(5)"),
    burn_disclosed_on_request=fixed(True, "NY 5324.12(c)(3)"),
    no_mid_shoe_entry=licensee(False, "NY 5324.12(b)(10)"),
    match_the_dealer=licensee(True, "NY 5324.12(d)"),
    match_tables=fixed(dict(MATCH_TABLE_FOR_DECKS), "NY 5324.12(d)(5)"),
    match_needs_shuffler=fixed(True, "NY 5324.12(d)(1)"),
    bonus_odds=fixed(dict(NY_BONUS_ODDS), "NY 5324.12(b)(6)"),
    super_bonus=fixed(NY_SUPER_BONUS, "NY 5324.12(b)(7)"),
)

#: For each option: its basis in each profile (docs/rules.md's table; a test checks both).
OPTION_BASES: Final[dict[str, dict[str, OptionBasis]]] = {
    name: {code: p.bases[name] for code, p in PROFILES.items()} for name in OPTION_FIELDS
}


def option_basis(code: str, name: str) -> OptionBasis:
    """The basis of option ``name`` in profile ``code``."""
    return get_profile(code).basis(name)


def profile_codes(separator: str = ", ", last: str = ", ") -> str:
    """The declared codes as text, for error messages: ``PA, NJ, NY``."""
    codes = list(PROFILES)
    if len(codes) < 2:
        return "".join(codes)
    return separator.join(codes[:-1]) + last + codes[-1]


def get_profile(code: object) -> Profile:
    """The declared profile for ``code`` (case-insensitive).

    Raises:
        ProfileError: for any other code.
    """
    profile = PROFILES.get(code.upper()) if isinstance(code, str) else None
    if profile is None:
        raise ProfileError(f"unknown profile {code!r} (expected one of {profile_codes()})")
    return profile


def option_table_markdown() -> str:
    """docs/rules.md's table: each option's value and basis in every profile."""
    lines = [
        "| field | " + " | ".join(PROFILES) + " |",
        "|---" * (len(PROFILES) + 1) + "|",
    ]
    for name in OPTION_FIELDS:
        cells = [f"`{shown(getattr(p, name))}` {p.bases[name]}" for p in PROFILES.values()]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
