"""The table limits: the smallest and largest wager the casino takes at this table.

NY 5324.12(d)(2): "The minimum and maximum wagers permitted by the gaming facility shall be
inscribed on the table layout or posted on a sign at each table offering the match the
dealer wager." The station holds the posted limits (``[limits]`` in station.toml), journals
them at every start, and where the wager sensors weigh the chips it checks each wager
against them when the dealer closes betting:

* a Spanish 21 wager under the minimum or over the maximum: the seat sits out the round
  (``wager_refused``; the dealer returns the chips);
* a Match the Dealer wager outside its limits: the seat plays its Spanish 21 wager without
  it (``wager_refused`` with ``spot = "match"``).

A sensor that senses chips but cannot weigh them reports no amount: such a wager cannot be
checked and is taken, as without limits (the dealer enforces the sign). A limit left out is
no limit on that side. PA 635a.7 and NJ 19.7 are silent on table limits; the same check
applies under every profile.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.rules.errors import WagerError
from controller.rules.legality import check_cents

#: The sign's clause, cited in every refusal.
CLAUSE = "NY 5324.12(d)(2)"


def dollars(cents: int) -> str:
    """``cents`` as the sign shows them: ``$25.00``."""
    return f"${cents // 100:,}.{cents % 100:02d}"


@dataclass(frozen=True, slots=True)
class TableLimits:
    """The posted limits in cents (None: no limit on that side)."""

    main_min: int | None = None
    main_max: int | None = None
    match_min: int | None = None
    match_max: int | None = None

    def __post_init__(self) -> None:
        """Each limit a whole positive number of cents; each minimum at most its maximum.

        Raises:
            WagerError: naming the limit and the problem.
        """
        for name in ("main_min", "main_max", "match_min", "match_max"):
            value = getattr(self, name)
            if value is not None:
                check_cents(value, f"the table limit {name}")
        for low, high, what in (
            (self.main_min, self.main_max, "Spanish 21"),
            (self.match_min, self.match_max, "Match the Dealer"),
        ):
            if low is not None and high is not None and low > high:
                raise WagerError(
                    f"the {what} minimum {dollars(low)} is over its maximum {dollars(high)}"
                )

    def posted(self) -> dict[str, int | None]:
        """The limits as the journal records them (``station_started``), in cents."""
        return {
            "main_min_cents": self.main_min,
            "main_max_cents": self.main_max,
            "match_min_cents": self.match_min,
            "match_max_cents": self.match_max,
        }

    def main_problem(self, seat: int, cents: int | None) -> str:
        """Why seat ``seat``'s Spanish 21 wager of ``cents`` is refused ("" when it is not)."""
        return _outside(cents, self.main_min, self.main_max, f"seat {seat}: the Spanish 21 wager")

    def match_problem(self, seat: int, cents: int | None) -> str:
        """Why seat ``seat``'s Match the Dealer wager of ``cents`` is refused ("" if not)."""
        return _outside(
            cents, self.match_min, self.match_max, f"seat {seat}: the Match the Dealer wager"
        )


def _outside(cents: int | None, low: int | None, high: int | None, what: str) -> str:
    if cents is None:  # chips sensed but not weighed: cannot be checked
        return ""
    if low is not None and cents < low:
        return f"{what} of {dollars(cents)} is under the table minimum {dollars(low)} ({CLAUSE})"
    if high is not None and cents > high:
        return f"{what} of {dollars(cents)} is over the table maximum {dollars(high)} ({CLAUSE})"
    return ""


NO_LIMITS = TableLimits()
