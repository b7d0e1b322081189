"""Payout odds and integer-cent arithmetic."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Odds:
    """Payout odds ``numerator:denominator`` (3:2 pays 3 for every 2 wagered)."""

    numerator: int
    denominator: int = 1

    def pay(self, cents: int) -> int:
        """Winnings on ``cents`` at these odds, a fractional cent rounded UP.

        PA 635a.7(n), NY 5324.12(b)(5),(6): winners are paid "no less than" the odds, so a
        fractional cent goes to the player ($5.01 at 3:2 pays $7.52, never $7.515 cut to
        $7.51). ``cents`` must not be negative (a wager is positive).
        """
        return -(-cents * self.numerator // self.denominator)

    def __str__(self) -> str:
        return f"{self.numerator}:{self.denominator}"


EVEN: Final = Odds(1, 1)
THREE_TO_TWO: Final = Odds(3, 2)
TWO_TO_ONE: Final = Odds(2, 1)
THREE_TO_ONE: Final = Odds(3, 1)
