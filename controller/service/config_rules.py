"""The rules options of ``station.toml``: every profile option, read from ``[options]`` under
its own name, and the rules profile a configured table plays.

The names are the profile's own (``controller.rules.profiles``; docs/rules.md lists what
each regulation fixes, leaves to the licensee, or is silent on); a few older keys remain as
other names for them (:data:`ALIASES`). An option left out takes the profile's value, unless
the table cannot play it: no card reader (or no hole card) means no peek, and no six- or
eight-deck shuffler where the profile requires one means no Match the Dealer; where the
regulation fixes such a value, the missing device is refused instead. An option the
table's regulation fixes or excludes is refused with the clause, e.g. ``options.hit_soft_17:
profile PA: hit_soft_17 = true is not allowed: PA 635a.7(l) fixes hit_soft_17 = false``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, NamedTuple

from controller.rules.cards import DECK_COUNTS
from controller.rules.errors import ProfileError
from controller.rules.options import Basis, DealerSecondCard, MatchPayTable
from controller.rules.profiles import OPTION_FIELDS, Profile
from controller.service.config_schema import ConfigError, Section

#: Older keys of ``[options]`` and the profile options each sets when true (``match_pay_table``
#: names the pay table for the table's deck count; ``ny_no_mid_shoe_entry`` takes its value).
ALIASES: Final[dict[str, dict[str, Any]]] = {
    "nj_card_reader": {"dealer_second_card": DealerSecondCard.HOLE, "peek": True},
    "ny_determinate_cards": {
        "dealer_second_card": DealerSecondCard.AFTER_PLAYERS,
        "peek": False,
    },
    "ny_no_mid_shoe_entry": {"no_mid_shoe_entry": None},
    "match_pay_table": {"match_tables": None},
}


class Choice(NamedTuple):
    """One option set in ``[options]``: the key written, the profile option, its value."""

    key: str
    name: str
    value: Any


@dataclass(frozen=True, slots=True)
class Options:
    """The options ``[options]`` sets; every other option takes the profile's value."""

    chosen: tuple[Choice, ...] = ()

    @classmethod
    def of(cls, **values: Any) -> Options:
        """Options set under their own names (``Options.of(hit_soft_17=True)``)."""
        return cls(tuple(Choice(name, name, value) for name, value in values.items()))

    def get(self, name: str, default: Any = None) -> Any:
        """The value set for option ``name``, or ``default``."""
        for choice in self.chosen:
            if choice.name == name:
                return choice.value
        return default

    def __contains__(self, name: object) -> bool:
        return any(choice.name == name for choice in self.chosen)


def read_options(section: Section, profile: Profile, decks: int) -> Options:
    """The options set in ``[options]``, in the form the profile holds them.

    Raises:
        ConfigError: for an unknown key, a value of the wrong form, or one option set twice.
    """
    chosen: list[Choice] = []
    for key in section.data:
        if key in OPTION_FIELDS:
            section.seen.add(key)
            try:
                value = profile.parse(key, section.data[key])
            except ProfileError as err:  # "max_split_hands must be ...": the key leads already
                raise section.error(key, str(err).removeprefix(f"{key} ")) from None
            chosen.append(Choice(key, key, value))
        elif key in ALIASES:
            chosen += _alias(section, key, decks)
    section.done()
    names = [c.name for c in chosen]
    for choice in chosen:
        if names.count(choice.name) > 1:
            keys = " and ".join(c.key for c in chosen if c.name == choice.name)
            raise section.error(choice.key, f"{keys} both set it")
    if "match_pay_table" in section.data and section.data.get("match_the_dealer") is False:
        raise section.error("match_pay_table", "set, but options.match_the_dealer is false")
    return Options(tuple(chosen))


def _alias(section: Section, key: str, decks: int) -> list[Choice]:
    if key == "match_pay_table":
        table = section.choice(key, MatchPayTable)
        return [Choice(key, "match_tables", {decks: table})]
    value = section.get(key, bool)
    if key == "ny_no_mid_shoe_entry":
        return [Choice(key, "no_mid_shoe_entry", value)]
    if not value:
        return []  # false: the profile's own procedure
    return [Choice(key, name, setting) for name, setting in ALIASES[key].items()]


def table_profile(
    profile: Profile,
    decks: int,
    options: Options,
    *,
    card_reader: bool,
    shuffler_decks: int | None,
    source: Path | str = "station.toml",
) -> Profile:
    """The rules profile a table plays: the jurisdiction, its options, and what its devices
    allow (see the module docstring). ``shuffler_decks`` is the shuffler's batch (None:
    none fitted).

    Raises:
        ConfigError: naming the option (or the device) the regulation requires otherwise,
            with its clause.
    """
    for choice in options.chosen:
        try:
            profile.check_option(choice.name, choice.value)
        except ProfileError as err:
            raise ConfigError(source, f"options.{choice.key}", str(err)) from None
    try:
        profile.check_decks(decks)
    except ProfileError as err:
        raise ConfigError(source, "decks", str(err)) from None
    changes = {c.name: c.value for c in options.chosen}
    keys = {c.name: c.key for c in options.chosen}
    second = changes.get("dealer_second_card", profile.dealer_second_card)
    if changes.get("peek", profile.peek) and not (card_reader and second is DealerSecondCard.HOLE):
        basis = profile.basis("peek")
        if "peek" not in changes and basis.kind is not Basis.FIXED:
            changes["peek"] = False  # left to the profile: peek only where the table can
        elif not card_reader:
            why = f"options.{keys['peek']}" if "peek" in keys else basis.clause
            raise ConfigError(
                source, "devices.card_reader", f"missing: {why} peeks with a card reader"
            )
    needs = changes.get("match_needs_shuffler", profile.match_needs_shuffler)
    shuffled = shuffler_decks is not None and shuffler_decks >= min(DECK_COUNTS)
    if changes.get("match_the_dealer", profile.match_the_dealer) and needs and not shuffled:
        offered = profile.basis("match_the_dealer")
        if "match_the_dealer" not in changes and offered.kind is not Basis.FIXED:
            changes["match_the_dealer"] = False  # left to the profile: not at this table
        else:
            # The licensee's own requirement is named as the option, not as a clause of a
            # regulation that is silent on it (NJ 19.7, PA 635a.7(f)).
            clause = (
                f"options.{keys['match_needs_shuffler']}"
                if "match_needs_shuffler" in keys
                else profile.basis("match_needs_shuffler").clause
            )
            what = (
                "none is configured" if shuffler_decks is None else f"max_decks = {shuffler_decks}"
            )
            raise ConfigError(
                source,
                f"options.{keys.get('match_the_dealer', 'match_the_dealer')}",
                f"{clause} offers Match the Dealer only with a six- or eight-deck"
                f" multi-shuffle device (devices.shuffler: {what})",
            )
    try:
        return profile.with_options(**changes)
    except ProfileError as err:  # a contradiction between two options (peek, a hole card)
        raise ConfigError(source, "options", str(err)) from None
