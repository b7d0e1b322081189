"""The betting book: what the seat sensors say, and who may play the next round.

Seat sensors report presence (and, where the sensor can tell, the amount). When the
dealer closes betting, the seats with a Spanish 21 wager take part (PA 635a.7(e)(1): "each
box ... in which a Spanish 21 Wager is contained"). A Match the Dealer wager needs a main
wager (NY 5324.12(d)(2)). Where the profile enables NY 5324.12(b)(10), a seat that sat out
a round after the shuffle may not wager again until the next reshuffle. Wagers the sensors
weigh are checked against the posted table limits (NY 5324.12(d)(2);
``controller.table.limits``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.rules.errors import WagerError
from controller.rules.legality import SEATS, check_cents
from controller.rules.steps import SeatWager
from controller.table.limits import NO_LIMITS, TableLimits
from drivers.hal import SeatWagerChanged, WagerSpot

#: Stake used by the rules engine for a seat whose sensor reports presence but no amount:
#: outcomes and odds are exact, the amounts are then unknown (journalled as null).
UNKNOWN_AMOUNT_STAKE = 100


@dataclass(frozen=True, slots=True)
class RefusedWager:
    """A wager the station flags instead of dealing to it: the seat's whole stake, or only
    the wager on ``spot`` (the seat plays without it)."""

    seat: int
    reason: str
    spot: WagerSpot | None = None


@dataclass(frozen=True, slots=True)
class ClosedBets:
    """The result of "no more bets": who plays, whose amounts are known, who is refused."""

    wagers: tuple[SeatWager, ...]
    amounts_known: frozenset[int]
    refused: tuple[RefusedWager, ...]
    insurance_known: bool = True


@dataclass
class BettingBook:
    """Seat sensor state between rounds."""

    no_mid_shoe_entry: bool = False
    limits: TableLimits = NO_LIMITS
    match_offered: bool = True  # the profile offers Match the Dealer
    present: dict[tuple[int, WagerSpot], bool] = field(default_factory=dict)
    cents: dict[tuple[int, WagerSpot], int | None] = field(default_factory=dict)
    barred: set[int] = field(default_factory=set)

    def update(self, event: SeatWagerChanged) -> None:
        """Record a sensor change."""
        key = (event.seat, event.spot)
        self.present[key] = event.present
        self.cents[key] = event.cents if event.present else None

    def amount(self, seat: int, spot: WagerSpot) -> int | None:
        """Cents on a spot, None when absent or unknown."""
        return self.cents.get((seat, spot)) if self.present.get((seat, spot)) else None

    def has(self, seat: int, spot: WagerSpot) -> bool:
        """True when the spot's sensor reports a wager."""
        return self.present.get((seat, spot), False)

    def reshuffled(self) -> None:
        """A fresh shuffle: every seat may wager again (NY 5324.12(b)(10))."""
        self.barred.clear()

    def close(self) -> ClosedBets:
        """No more bets: the seats that play this round."""
        wagers: list[SeatWager] = []
        known: set[int] = set()
        refused: list[RefusedWager] = []
        for seat in SEATS:
            main = self.has(seat, WagerSpot.MAIN)
            match = self.has(seat, WagerSpot.MATCH)
            if not main:
                if match:
                    refused.append(RefusedWager(seat, "Match the Dealer needs a Spanish 21 wager"))
                continue
            if self.no_mid_shoe_entry and seat in self.barred:
                refused.append(
                    RefusedWager(seat, "sat out a round since the shuffle (NY 5324.12(b)(10))")
                )
                continue
            main_cents = self.amount(seat, WagerSpot.MAIN)
            match_cents = self.amount(seat, WagerSpot.MATCH) if match else 0
            problem = _out_of_range(seat, main_cents, match_cents) or (
                self.limits.main_problem(seat, main_cents)
            )
            if problem:
                refused.append(RefusedWager(seat, problem))
                continue
            problem = self.limits.match_problem(seat, match_cents) if match else ""
            if match and not self.match_offered:
                problem = "this table offers no Match the Dealer"
            if problem:
                # NY 5324.12(d)(2): the posted limits; the main wager plays on its own.
                refused.append(RefusedWager(seat, problem, WagerSpot.MATCH))
                match, match_cents = False, 0
            if main_cents and (not match or match_cents):
                known.add(seat)
            wagers.append(
                SeatWager(
                    seat,
                    main_cents or UNKNOWN_AMOUNT_STAKE,
                    (match_cents or UNKNOWN_AMOUNT_STAKE) if match else 0,
                )
            )
        if self.no_mid_shoe_entry and wagers:
            playing = {w.seat for w in wagers}
            # A seat that does not wager this round is barred from the next ones.
            self.barred.update(s for s in SEATS if s not in playing)
        return ClosedBets(tuple(wagers), frozenset(known), tuple(refused))


def _out_of_range(seat: int, main: int | None, match: int | None) -> str:
    """Why a sensor's reading is no wager the rules take (a sensor that cannot weigh the
    chips reads None, which is fine)."""
    try:
        if main is not None:
            check_cents(main, f"seat {seat}: the Spanish 21 wager")
        if match is not None:
            check_cents(match, f"seat {seat}: the Match the Dealer wager", allow_zero=True)
    except WagerError as err:
        return str(err)
    return ""
