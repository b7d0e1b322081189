"""A round's money as the journal records it: each payment's row, each seat's result, what a
void leaves, the insurance taken.

Amounts are integer cents where the wager sensors weighed the seat's wagers. Where they saw
chips but could not weigh them, the rules engine plays the seat with a stake of
:data:`~controller.table.betting.UNKNOWN_AMOUNT_STAKE` units, and the journal counts its
results in the seat's Spanish 21 wagers (``net_stakes``, decimal text) with ``net_cents``
null. A fixed payout (the $50 super bonus share of NY 5324.12(b)(7)) is in cents whatever
the sensors could weigh: amounts in cents and counts of wagers never share a field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, Final

from controller.rules.round import Round
from controller.rules.settlement import Payment, WagerKind
from controller.table.betting import UNKNOWN_AMOUNT_STAKE, ClosedBets

#: Insurance on a spot whose sensor reports presence only: the amount the table posts for
#: it, half the seat's wager (docs/procedure.md, "Wager sensors that cannot weigh").
POSTED_INSURANCE: Final = "half the wager"


def fixed_amount(payment: Payment) -> bool:
    """A payment of a fixed amount in cents, whatever the wager (NY 5324.12(b)(7): the $50
    super bonus share)."""
    return payment.wager is WagerKind.SUPER_BONUS_SHARE


def stakes(units: int) -> str:
    """An amount of the engine's units at a seat whose wager is not known in cents, as the
    count of its Spanish 21 wagers (decimal text)."""
    return str(Decimal(units) / UNKNOWN_AMOUNT_STAKE)


def stake_units(data: Mapping[str, Any]) -> int:
    """The engine's amount for a journaled wager: ``cents``, or ``stakes`` (a count of the
    seat's Spanish 21 wagers) where the sensors could not weigh it."""
    if data.get("cents") is not None:
        return int(data["cents"])
    return int(Decimal(str(data["stakes"])) * UNKNOWN_AMOUNT_STAKE)


def hand_no(index: int | None) -> int | None:
    """A hand's number as the journal writes it (1-based), or None."""
    return None if index is None else index + 1


def insurance_row(bets: ClosedBets, seat: int, cents: int, posted: bool) -> dict[str, Any]:
    """``insurance_taken``: the seat's insurance in cents (or in wagers); ``posted`` where
    the sensor saw chips it could not weigh and the amount is the posted one."""
    data: dict[str, Any] = {"seat": seat, "cents": cents}
    if seat not in bets.amounts_known:
        data.update(cents=None, stakes=stakes(cents))
    if posted:
        data["posted"] = POSTED_INSURANCE
    return data


def payment_row(round_: Round, bets: ClosedBets, payment: Payment) -> dict[str, Any]:
    """The journal row of one settled wager (``settlement``, ``match_settled``,
    ``insurance``; docs/journal.md)."""
    known = payment.seat in bets.amounts_known or fixed_amount(payment)
    data: dict[str, Any] = {
        "seat": payment.seat,
        "wager": payment.wager.value,
        "outcome": payment.outcome.value,
        "odds": str(payment.odds) if payment.odds else None,
        "net_cents": payment.net if known else None,
    }
    if not known:
        data["net_stakes"] = stakes(payment.net)
    if payment.hand is not None:
        hand = round_.hands[payment.seat][payment.hand]
        data.update(hand=payment.hand + 1, cards=[c.text for c in hand.cards], total=hand.total)
    if payment.bonus is not None:
        data["bonus"] = payment.bonus.value
    if payment.super_bonus_hand:
        data["super_bonus"] = True
        data["super_bonus_cents"] = payment.super_bonus if known else None
    if payment.note:
        data["note"] = payment.note
    if payment.wager is WagerKind.MATCH:
        data["matches"] = payment.matches  # recall: "2 match(es) at 4:1" (PA 635a.7(f))
    return data


def seat_results(bets: ClosedBets, journaled: Sequence[Payment]) -> list[dict[str, Any]]:
    """One ``seat_result`` per seat: the sum of its journaled settlements, in cents where
    its amounts are known; else ``net_stakes`` in wagers and ``fixed_cents`` beside it."""
    results = []
    for wager in bets.wagers:
        mine = [p for p in journaled if p.seat == wager.seat]
        data: dict[str, Any] = {"seat": wager.seat}
        if wager.seat in bets.amounts_known:
            data["net_cents"] = sum(p.net for p in mine)
        else:
            fixed = sum(p.net for p in mine if fixed_amount(p))
            data["net_cents"] = None
            data["net_stakes"] = stakes(sum(p.net for p in mine if not fixed_amount(p)))
            if fixed:
                data["fixed_cents"] = fixed
        results.append(data)
    return results


def void_accounts(
    round_: Round, bets: ClosedBets, journaled: Sequence[Payment]
) -> dict[str, list[dict[str, Any]]]:
    """What a void leaves, per seat: the settlements journaled so far stand (Match the
    Dealer, insurance, a surrender, a blackjack paid at once...), every other wager on the
    layout is returned (``cents``: the stake, doubles and splits included; null where the
    sensors could not weigh it)."""
    stand = [
        {
            "seat": p.seat,
            "wager": p.wager.value,
            "hand": hand_no(p.hand),
            "net_cents": p.net if p.seat in bets.amounts_known or fixed_amount(p) else None,
        }
        for p in journaled
    ]
    returned: list[dict[str, Any]] = []
    for wager in bets.wagers:
        seat = wager.seat
        known = seat in bets.amounts_known
        paid = {(p.wager, p.hand) for p in journaled if p.seat == seat}
        for hand in round_.hands[seat]:
            if (WagerKind.MAIN, hand.index) not in paid:
                stake = hand.wager + hand.double_cents
                returned.append(_returned(seat, "main", hand.index + 1, stake, known))
        if wager.match and (WagerKind.MATCH, None) not in paid:
            returned.append(_returned(seat, "match", None, wager.match, known))
        insured = round_.insurance.get(seat)
        if insured and (WagerKind.INSURANCE, None) not in paid:
            returned.append(_returned(seat, "insurance", None, insured, known))
    return {"stand": stand, "returned": returned}


def _returned(seat: int, wager: str, hand: int | None, cents: int, known: bool) -> dict[str, Any]:
    return {"seat": seat, "wager": wager, "hand": hand, "cents": cents if known else None}
