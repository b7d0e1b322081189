"""Wager sensors during a round: which changes a settlement explains, and which are forbidden.

NY 5324.12(b)(4),(8) forbid making, increasing or withdrawing a wager after the first card
"until a decision has been rendered and implemented with respect to that wager". So a spot
still in play must read what was wagered; a spot the dealer has settled may change the
way the settlement says (docs/panel.md, "Wager sensors during a round"):

- collected (lost): the spot reads empty;
- paid (won): the spot reads the wager plus the win (the payment set on the wager), or
  empty (paid beside it and the player took both);
- partly collected (a surrender's half, a rescue's original wager): the spot reads what is
  returned, or empty;
- a push: the spot reads the wager, or empty.

The main spot holds the seat's whole Spanish 21 stake: every hand of a split and every
double, so a double or a split adds one wager to it (NY 5324.12(b)(9): made and confirmed);
the chips may go down just before the dealer presses DOUBLE or SPLIT. A sensor that reads
presence only (or a seat whose amount is unknown) is checked for presence alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from controller.rules.settlement import Payment, WagerKind
from controller.rules.steps import Decision, NeedDecision
from controller.table.play import RoundPlay
from drivers.hal import SeatWagerChanged, WagerSpot

_SPOT_OF = {
    WagerKind.MAIN: WagerSpot.MAIN,
    WagerKind.SUPER_BONUS_SHARE: WagerSpot.MAIN,
    WagerKind.MATCH: WagerSpot.MATCH,
    WagerKind.INSURANCE: WagerSpot.INSURANCE,
}


def spot_of(payment: Payment) -> WagerSpot:
    """The betting spot a payment settles."""
    return _SPOT_OF[payment.wager]


@dataclass(frozen=True, slots=True)
class Reading:
    """What a sensor change means: ``action`` is the journal kind (``wager_collected``,
    ``wager_paid``, ``wager_taken``, ``wager_added``); ``""`` when the spot reads what it
    held, or with ``problem`` set for a forbidden change."""

    action: str
    problem: str = ""


@dataclass(frozen=True, slots=True)
class _Part:
    """One part of a spot: a stake, and (once settled) its payment's net."""

    stake: int
    net: int | None = None  # None: still in play

    @property
    def readings(self) -> tuple[int, ...]:
        """What this part may contribute to the spot's reading."""
        if self.net is None:
            return (self.stake,)
        return (self.stake + self.net, 0)


def classify(play: RoundPlay, event: SeatWagerChanged, previous: int | None = None) -> Reading:
    """Judge one sensor change during a round (see the module docstring); ``previous`` is
    the spot's last reading in cents, if known."""
    seat, spot = event.seat, event.spot
    where = f"seat {seat} {spot.value}"
    parts: list[_Part] = []
    added = 0
    if seat in play.round.wagers:
        parts, added = _parts(play, seat, spot)
    if not parts:  # nothing of this round lies on the spot
        if event.present and event.cents != 0:
            return Reading("", f"{where} wager placed during the round")
        return Reading("")
    known = seat in play.bets.amounts_known and event.cents is not None
    settled = [p for p in parts if p.net is not None]
    sums = {sum(c) for c in product(*(p.readings for p in parts))}
    reading = event.cents if event.present and known else None
    if not event.present or reading == 0:
        if 0 in sums:
            won = any((p.net or 0) >= 0 for p in settled)
            return Reading("wager_taken" if won else "wager_collected")
        return Reading("", f"{where} wager removed while still in play")
    if reading is None:  # presence only: something lies on the spot
        if any(s > 0 for s in sums) or added:
            return Reading(_positive_action(settled))
        return Reading("", f"{where} wager placed during the round")
    if reading in sums:
        action = _positive_action(settled)
        if not action and previous is not None and reading > previous:
            action = "wager_added"  # a double's or a split's wager, after the button
        return Reading(action)
    if added and reading in {s + added for s in sums}:
        return Reading("wager_added")
    expected = " or ".join(f"{s / 100:.2f}" for s in sorted(sums))
    return Reading("", f"{where} reads {reading / 100:.2f}, expected {expected}")


def _positive_action(settled: list[_Part]) -> str:
    if any((p.net or 0) > 0 for p in settled):
        return "wager_paid"
    if any((p.net or 0) < 0 for p in settled):
        return "wager_collected"
    return "wager_taken" if settled else ""  # "": the spot reads what it held


def _parts(play: RoundPlay, seat: int, spot: WagerSpot) -> tuple[list[_Part], int]:
    """The spot's parts and the amount a pending double or split may add to it."""
    round_ = play.round
    payments = [p for p in round_.payments if p.seat == seat and spot_of(p) is spot]
    if spot is WagerSpot.MATCH:
        stake = round_.wagers[seat].match
        return ([_Part(stake, payments[0].net if payments else None)] if stake else []), 0
    if spot is WagerSpot.INSURANCE:
        stake = round_.insurance.get(seat, 0)
        return ([_Part(stake, payments[0].net if payments else None)] if stake else []), 0
    nets = {p.hand: p.net for p in payments if p.wager is WagerKind.MAIN}
    parts = [
        _Part(hand.wager + hand.double_cents, nets.get(hand.index)) for hand in round_.hands[seat]
    ]
    step = round_.step
    added = 0
    if (
        isinstance(step, NeedDecision)
        and step.seat == seat
        and (Decision.DOUBLE in step.legal or Decision.SPLIT in step.legal)
    ):
        added = round_.hands[seat][step.hand].wager  # chips down before the button
    return parts, added
