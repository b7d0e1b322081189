"""The ``[limits]`` section of ``station.toml``: the table limits posted at the table.

NY 5324.12(d)(2): "The minimum and maximum wagers permitted by the gaming facility shall be
inscribed on the table layout or posted on a sign"; ``controller.table.limits`` says what
the station does with them. Every key is optional; a limit left out is no limit::

    [limits]
    main_min_cents = 1000      # $10.00
    main_max_cents = 500000    # $5,000.00
    match_min_cents = 500      # only where the table offers Match the Dealer
    match_max_cents = 10000
"""

from __future__ import annotations

from typing import Final

from controller.rules.errors import WagerError
from controller.rules.legality import check_cents
from controller.service.config_schema import Section
from controller.table.limits import TableLimits

#: ``[limits]`` keys and the :class:`TableLimits` field each sets.
_LIMIT_KEYS: Final = {
    "main_min_cents": "main_min",
    "main_max_cents": "main_max",
    "match_min_cents": "match_min",
    "match_max_cents": "match_max",
}


def parse_limits(section: Section, match_the_dealer: bool) -> TableLimits:
    """The ``[limits]`` section: the posted table limits (NY 5324.12(d)(2)), in whole
    cents; the Match the Dealer limits only where the table offers the wager.

    Raises:
        ConfigError: a limit that is not a whole positive number of cents, a minimum over
            its maximum, or a Match the Dealer limit at a table without the wager.
    """
    values: dict[str, int] = {}
    for key, name in _LIMIT_KEYS.items():
        if key not in section.data:
            continue
        value = section.get(key, int)
        try:
            check_cents(value, "a table limit")
        except WagerError as err:
            raise section.error(key, str(err)) from None
        if name.startswith("match") and not match_the_dealer:
            raise section.error(key, "set, but this table offers no Match the Dealer")
        values[name] = value
    section.done()
    for side in ("main", "match"):
        low, high = values.get(f"{side}_min"), values.get(f"{side}_max")
        if low is not None and high is not None and low > high:
            raise section.error(
                f"{side}_max_cents", f"{high} cents is under {side}_min_cents ({low} cents)"
            )
    return TableLimits(**values)
