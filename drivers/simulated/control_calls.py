"""What a double may be asked over the control socket of ``dealer-station doubles``.

Each double declares, beside its methods, the calls it takes (``CONTROL``: name -> a
function of the double and the request's JSON arguments) and the state it shows
(``READABLE``); the C firmware's wrappers (``drivers.simulated.c_devices``) declare the same
as the Python doubles they stand for. :data:`COMMON_CALLS` and :data:`COMMON_READABLE` are
every double's. ``drivers.simulated.serve_control`` serves them; the converters here turn a
request's JSON values into the doubles' arguments, and refuse what does not convert.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, Final, TypeVar

from controller.rules.cards import Card, parse_card

#: A control call: the double, then the request's arguments.
Call = Callable[..., Any]
E = TypeVar("E", bound=Enum)


class RequestError(Exception):
    """A control request that cannot be carried out; the text is one line."""


def enum_arg(kind: type[E], value: Any) -> E:
    """``value`` as a member of ``kind`` (by its value)."""
    try:
        return kind(value)
    except ValueError:
        names = ", ".join(str(m.value) for m in kind)
        raise RequestError(f"{value!r} is not a {kind.__name__} ({names})") from None


def cards_arg(values: Any) -> list[Card]:
    """A list of card texts as cards."""
    if not isinstance(values, list):
        raise RequestError('cards: expected a list such as ["7S", "KH"]')
    return [parse_card(v) for v in values]


def rank_counts_arg(values: Any) -> dict[int, int]:
    """A JSON object of rank number -> count."""
    if not isinstance(values, dict):
        raise RequestError('per_rank: expected an object such as {"1": 24, "10": 1}')
    return {int(rank): int(count) for rank, count in values.items()}


COMMON_CALLS: Final[Mapping[str, Call]] = {
    "unplug": lambda d: d.unplug(),
    "plug": lambda d: d.plug(),
    "power_cycle": lambda d: d.power_cycle(),
    "drop_acks": lambda d, count: d.drop_acks(int(count)),
    "duplicate_acks": lambda d, count: d.duplicate_acks(int(count)),
    "wait_idle": lambda d, timeout=5.0: d.wait_idle(float(timeout)),
}
COMMON_READABLE: Final = frozenset(
    {"connected", "unconfirmed", "sessions", "serial_number", "refusals", "paired_station"}
)
