"""The rules options of ``station.toml``: every profile option the engine and the regulation
allow, read from ``[options]``, and the rules profile a configured table plays.

The names are the profile's own (``controller.rules.profiles.Profile``; docs/rules.md lists
what each regulation fixes, leaves to the licensee, or is silent on). An option the
table's regulation fixes is refused with the clause, e.g. ``options.hit_soft_17: profile
PA: hit_soft_17 = true is not allowed: PA 635a.7(l) fixes hit_soft_17 = false``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any, Final

from controller.rules.errors import ProfileError
from controller.rules.profiles import (
    MAX_SPLIT_HANDS,
    DealerBlackjackTakes,
    DealerSecondCard,
    MatchPayTable,
    Profile,
    SettlementOrder,
    SplitTwentyOne,
    get_profile,
)
from controller.service.config_schema import ConfigError, Section

#: The profile options ``[options]`` takes under their own names, with their TOML type.
RULE_OPTIONS: Final[Mapping[str, type]] = {
    "no_draw_when_decided": bool,
    "surrender": bool,
    "double_after_split": bool,
    "rescue": bool,
    "max_split_hands": int,
    "resplit_aces": bool,
    "hit_split_aces": bool,
    "double_split_aces": bool,
    "split_21_vs_dealer_21": SplitTwentyOne,
    "split_21_vs_dealer_blackjack": SplitTwentyOne,
    "dealer_blackjack_takes": DealerBlackjackTakes,
    "blackjack_paid_at_once": bool,
    "settlement_order": SettlementOrder,
    "burn_disclosed_on_request": bool,
}


def read_rule_options(section: Section) -> tuple[tuple[str, Any], ...]:
    """The rule options set in ``[options]`` (absent ones keep the profile's value).

    Raises:
        ConfigError: for a wrong type, an unknown choice or a number out of range.
    """
    chosen: list[tuple[str, Any]] = []
    for name, kind in RULE_OPTIONS.items():
        if name not in section.data:
            continue
        if isinstance(kind, type) and issubclass(kind, Enum):
            value: Any = section.choice(name, kind)
        else:
            value = section.get(name, kind)
        if name == "max_split_hands" and not 1 <= value <= MAX_SPLIT_HANDS:
            raise section.error(name, f"{value} is not 1 to {MAX_SPLIT_HANDS} hands")
        chosen.append((name, value))
    return tuple(chosen)


def rules_profile(
    code: str,
    decks: int,
    options: Any,
    *,
    card_reader: bool,
    source: Path | str = "station.toml",
) -> Profile:
    """The rules profile of a table: the jurisdiction, its options and its devices.

    ``options`` is the configuration's ``Options``. A NY table without a card reader runs
    the procedure NY 5324.12(c)(4)(iv), (c)(7) describe: the hole card dealt face down and
    turned after the players, with no peek (NY orders none; docs/rules.md).

    Raises:
        ConfigError: naming the option the regulation fixes otherwise, with its clause.
    """
    base = get_profile(code)
    requested: dict[str, Any] = {
        "hit_soft_17": options.hit_soft_17,
        "match_the_dealer": options.match_the_dealer,
        "no_mid_shoe_entry": options.ny_no_mid_shoe_entry,
        **dict(options.rules),
    }
    if options.match_pay_table is not None:
        requested["match_tables"] = {decks: MatchPayTable(options.match_pay_table.value)}
    for name, value in requested.items():
        try:
            base.with_options(**{name: value})
        except ProfileError as err:
            raise ConfigError(source, f"options.{_key(name)}", str(err)) from None
    changes = dict(requested)
    if options.nj_card_reader:
        changes.update(dealer_second_card=DealerSecondCard.HOLE, peek=True)
    if options.ny_determinate_cards:
        changes.update(dealer_second_card=DealerSecondCard.AFTER_PLAYERS, peek=False)
    elif code == "NY" and not card_reader:
        changes["peek"] = False
    try:
        return base.with_options(**changes)
    except ProfileError as err:  # pragma: no cover - each option was checked above
        raise ConfigError(source, "options", str(err)) from None


def _key(name: str) -> str:
    return {"no_mid_shoe_entry": "ny_no_mid_shoe_entry", "match_tables": "match_pay_table"}.get(
        name, name
    )
