"""Profile options as a replay script (JSON) or station.toml (TOML) writes them.

One reader for both: the form an option takes follows the type of the value it replaces
(a bool, a number, a choice, a list of deck counts, a table of pay tables or of bonus
odds, the super bonus's amounts), so a new option needs no reader of its own. What a
value means (ranges, contradictions, what a regulation fixes) is checked by
``Profile.with_options``; here only the form.
"""

from __future__ import annotations

import re
from dataclasses import fields, replace
from enum import Enum
from typing import Final

from controller.rules.errors import ProfileError
from controller.rules.odds import Odds
from controller.rules.options import Bonus, MatchPayTable, SuperBonus

_ODDS: Final = re.compile(r"([1-9][0-9]{0,5}):([1-9][0-9]{0,5})")


def parse_option(name: str, raw: object, current: object) -> object:
    """``raw`` as a value of option ``name``, whose present value is ``current``.

    Raises:
        ProfileError: naming the option and the form it takes.
    """
    if isinstance(current, bool):
        if not isinstance(raw, bool):
            raise ProfileError(f"{name} must be true or false")
        return raw
    if isinstance(current, int):
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise ProfileError(f"{name} must be a whole number")
        return raw
    if isinstance(current, Enum):
        kind = type(current)
        try:
            return kind(raw)
        except ValueError:
            choices = ", ".join(str(m.value) for m in kind)
            raise ProfileError(f"{name} must be one of {choices}, not {raw!r}") from None
    if isinstance(current, tuple):
        if not isinstance(raw, list) or not all(_whole(v) for v in raw) or not raw:
            raise ProfileError(f"{name} must be a list of deck counts, e.g. [6, 8]")
        return tuple(raw)
    if isinstance(current, SuperBonus):
        return _super_bonus(name, raw, current)
    if isinstance(current, dict) and name == "match_tables":
        return _table(name, raw, _deck_count, _pay_table, "decks = pay table, e.g. {6 = 'A'}")
    if isinstance(current, dict):
        return _table(name, raw, _bonus, _odds, "bonus = odds, e.g. {five_card_21 = '3:2'}")
    raise ProfileError(f"{name} cannot be set")  # pragma: no cover - every option has a form


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _table(name: str, raw: object, key: object, value: object, form: str) -> dict[object, object]:
    if not isinstance(raw, dict) or not raw:
        raise ProfileError(f"{name} must be a table of {form}")
    parsed: dict[object, object] = {}
    for k, v in raw.items():
        try:
            parsed[key(k)] = value(v)  # type: ignore[operator]
        except (ValueError, TypeError):
            raise ProfileError(f"{name} must be a table of {form}; not {k!r} = {v!r}") from None
    return parsed


def _deck_count(key: object) -> int:
    number = int(key) if isinstance(key, str) and key.isdigit() else key
    if not _whole(number):
        raise ValueError(key)
    return number  # type: ignore[return-value]


def _pay_table(value: object) -> MatchPayTable:
    return MatchPayTable(value)


def _bonus(key: object) -> str:
    return Bonus(key).value


def _odds(value: object) -> Odds:
    match = _ODDS.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise ValueError(value)
    return Odds(int(match[1]), int(match[2]))


def _super_bonus(name: str, raw: object, current: SuperBonus) -> SuperBonus:
    amounts = [f.name for f in fields(SuperBonus)]
    form = f"{name} must be a table of amounts in cents: {', '.join(amounts)}"
    if not isinstance(raw, dict) or not raw or not set(raw) <= set(amounts):
        raise ProfileError(form)
    if not all(_whole(v) for v in raw.values()):
        raise ProfileError(form)
    return replace(current, **raw)
