"""Payout odds and integer-cent arithmetic."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Odds:
    """Payout odds ``numerator:denominator`` (3:2 pays 3 for every 2 wagered)."""

    numerator: int
    denominator: int = 1

    def pay(self, cents: int) -> int:
        """Winnings on ``cents`` at these odds, rounded down to the cent.

        ASSUMPTION: the regulations say "no less than" the odds and are silent on odd
        cents; the station rounds a fractional cent down and shows the exact odds.
        """
        return cents * self.numerator // self.denominator

    def __str__(self) -> str:
        return f"{self.numerator}:{self.denominator}"


EVEN = Odds(1, 1)
THREE_TO_TWO = Odds(3, 2)
TWO_TO_ONE = Odds(2, 1)
THREE_TO_ONE = Odds(3, 1)
