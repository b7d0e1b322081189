"""Settlement: outcomes, bonus odds, the super bonus, Match the Dealer and insurance.

Clauses: winning conditions PA 635a.7(n)-(o) and NY 5324.12(b)(1)-(2); bonus odds NY
5324.12(b)(6); super bonus NY 5324.12(b)(7); Match the Dealer PA 635a.7(f), NY 5324.12(d).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from operator import attrgetter
from typing import Final, NamedTuple

from controller.rules.cards import Card, Rank, Suit
from controller.rules.hands import BLACKJACK_TOTAL, HandStatus, PlayerHand
from controller.rules.odds import EVEN, THREE_TO_TWO, TWO_TO_ONE, Odds
from controller.rules.options import NY_SUPER_BONUS, Bonus, SuperBonus
from controller.rules.profiles import (
    DealerBlackjackTakes,
    MatchPayTable,
    Profile,
    SettlementOrder,
    SplitTwentyOne,
)
from controller.rules.steps import SeatWager


class WagerKind(Enum):
    """Which wager a payment settles."""

    MAIN = "main"
    MATCH = "match"
    INSURANCE = "insurance"
    SUPER_BONUS_SHARE = "super_bonus_share"  # NY 5324.12(b)(7): $50 to the other players


class Outcome(Enum):
    """How a wager ended."""

    WIN = "win"
    BLACKJACK = "blackjack"
    LOSE = "lose"
    PUSH = "push"
    SURRENDER = "surrender"
    RESCUE = "rescue"

    @property
    def prompt(self) -> str:
        """The settle prompt the dealer sees: pay, collect or push."""
        if self in (Outcome.WIN, Outcome.BLACKJACK):
            return "pay"
        return "push" if self is Outcome.PUSH else "collect"


_SIX_SEVEN_EIGHT: Final = (Rank.SIX, Rank.SEVEN, Rank.EIGHT)


def bonus_of(cards: Sequence[Card]) -> Bonus | None:
    """The bonus a 21 of ``cards`` earns, or None (NY 5324.12(b)(6))."""
    count = len(cards)
    if count == 3:
        ranks = sorted(c.rank for c in cards)
        suits = {c.suit for c in cards}
        same_suit = len(suits) == 1
        spades = suits == {Suit.SPADES}
        if tuple(ranks) == _SIX_SEVEN_EIGHT:
            if spades:
                return Bonus.SIX_SEVEN_EIGHT_SPADES
            return Bonus.SIX_SEVEN_EIGHT_SUITED if same_suit else Bonus.SIX_SEVEN_EIGHT_MIXED
        if ranks == [Rank.SEVEN] * 3:
            if spades:
                return Bonus.SEVEN_SEVEN_SEVEN_SPADES
            return Bonus.SEVEN_SEVEN_SEVEN_SUITED if same_suit else Bonus.SEVEN_SEVEN_SEVEN_MIXED
        return None
    if count == 5:
        return Bonus.FIVE_CARD_21
    if count == 6:
        return Bonus.SIX_CARD_21
    if count >= 7:
        return Bonus.SEVEN_PLUS_CARD_21
    return None


def super_bonus_cents(wager: int, bonus: SuperBonus = NY_SUPER_BONUS) -> int:
    """The fixed super bonus for an original wager of ``wager`` cents (NY 5324.12(b)(7);
    a profile's ``super_bonus`` gives the amounts)."""
    return bonus.for_wager(wager)


class Payment(NamedTuple):
    """One settled wager: ``net`` is in cents, positive when the player wins.

    A named tuple, not a frozen dataclass: just as immutable, and built in 0.4 us instead
    of 2.2 us (a frozen dataclass sets each of its ten fields through object.__setattr__);
    a round builds two to eleven of them.
    """

    seat: int
    wager: WagerKind
    outcome: Outcome
    net: int
    hand: int | None = None
    odds: Odds | None = None
    bonus: Bonus | None = None
    super_bonus: int = 0
    super_bonus_hand: bool = False  # NY 5324.12(b)(7): the hand earns the super bonus
    note: str = ""
    matches: int = 0  # Match the Dealer: how many of the two cards matched the up card


# Final names (the compiled build keeps them in C variables: controller/rules/round.py; in
# pure Python an Enum member read through its class inside a function costs 73 ns, a
# module name 17 ns).
_PAYMENT: Final = Payment
_MAIN: Final = WagerKind.MAIN
_MATCH: Final = WagerKind.MATCH
_INSURANCE: Final = WagerKind.INSURANCE
_WIN: Final = Outcome.WIN
_LOSE: Final = Outcome.LOSE
_PUSH: Final = Outcome.PUSH
_BLACKJACK: Final = Outcome.BLACKJACK
_SURRENDER: Final = Outcome.SURRENDER
_RESCUE: Final = Outcome.RESCUE
_RIGHT_TO_LEFT: Final = SettlementOrder.RIGHT_TO_LEFT
_SEAT_OF: Final = attrgetter("seat")
_BUST: Final = HandStatus.BUST
_NEW_TUPLE: Final = tuple.__new__


def _main_payment(
    seat: int,
    outcome: Outcome,
    net: int,
    hand: int,
    odds: Odds | None = None,
    *,
    bonus: Bonus | None = None,
    super_bonus: int = 0,
    super_bonus_hand: bool = False,
    note: str = "",
) -> Payment:
    """A main-wager :class:`Payment` (the fields in order) without NamedTuple's ``__new__``:
    that is Python code, a Python frame per payment in the compiled build (0.3 us)."""
    return _NEW_TUPLE(
        _PAYMENT,
        (seat, _MAIN, outcome, net, hand, odds, bonus, super_bonus, super_bonus_hand, note, 0),
    )


class DealerResult(NamedTuple):
    """The dealer's finished hand as settlement needs it (a named tuple: built per round)."""

    total: int
    card_count: int
    blackjack: bool
    up_card: Card


def _split_reading(reading: SplitTwentyOne, stake: int) -> tuple[Outcome, int, Odds | None]:
    if reading is SplitTwentyOne.WIN:
        # NY 5324.12(b)(5): a (b)(1)(iii) winner, "21 in two cards" against a dealer 21, is
        # paid no less than 3:2; it is not a blackjack (the outcome stays WIN).
        return Outcome.WIN, THREE_TO_TWO.pay(stake), THREE_TO_TWO
    if reading is SplitTwentyOne.PUSH:
        return Outcome.PUSH, 0, None
    return Outcome.LOSE, -stake, None


def settle_hand(hand: PlayerHand, dealer: DealerResult, profile: Profile) -> Payment:
    """Settle a finished, still-standing player hand against the dealer's final hand.

    Surrendered and rescued hands are settled when the decision is made (see
    :func:`settle_surrender` and :func:`settle_rescue`).
    """
    stake = hand.wager + hand.double_cents
    seat, index = hand.seat, hand.index
    if hand.status is _BUST:
        return _main_payment(seat, _LOSE, -stake, index)
    if hand.is_blackjack:
        # PA 635a.7(n)(3), NY (b)(1)(iii): a player blackjack beats any dealer 21, even a
        # dealer blackjack; paid 3:2 (NY (b)(5)).
        return _main_payment(seat, _BLACKJACK, THREE_TO_TWO.pay(stake), index, THREE_TO_TWO)
    total = hand.total
    cards = len(hand.cards)
    split_two_card_21 = hand.from_split and cards == 2 and total == BLACKJACK_TOTAL
    if dealer.blackjack:
        if split_two_card_21:
            outcome, net, odds = _split_reading(profile.split_21_vs_dealer_blackjack, stake)
            return _main_payment(seat, outcome, net, index, odds, note="split 21")
        # PA 635a.7(o), NY (b)(2): 21 in more than two cards loses to a dealer blackjack.
        return _main_payment(seat, _LOSE, -stake, index)
    dealer_total = dealer.total
    if dealer_total <= BLACKJACK_TOTAL and total < dealer_total:
        return _main_payment(seat, _LOSE, -stake, index)
    if dealer_total <= BLACKJACK_TOTAL and total == dealer_total:
        if total != BLACKJACK_TOTAL:
            return _main_payment(seat, _PUSH, 0, index)  # PA 635a.7(o)
        if split_two_card_21:
            outcome, net, odds = _split_reading(profile.split_21_vs_dealer_21, stake)
            return _main_payment(seat, outcome, net, index, odds, note="split 21")
        # Dealer 21 here has three or more cards (two would be a blackjack): PA
        # 635a.7(n)(4), NY (b)(1)(iv): player 21 of more than two cards wins.
    return _winning_hand(hand, dealer, stake, profile)


def _winning_hand(hand: PlayerHand, dealer: DealerResult, stake: int, profile: Profile) -> Payment:
    bonus = bonus_of(hand.cards) if hand.total == BLACKJACK_TOTAL else None
    if bonus is None:
        return _main_payment(hand.seat, _WIN, EVEN.pay(stake), hand.index, EVEN)
    if hand.doubled:
        # NY 5324.12(b)(6): a doubled bonus hand is paid only 1:1 (every profile: its
        # bonus_odds are for hands not doubled).
        return _main_payment(
            hand.seat,
            _WIN,
            EVEN.pay(stake),
            hand.index,
            EVEN,
            bonus=bonus,
            note="doubled: bonus paid 1:1",
        )
    # NY 5324.12(b)(7): suited 7-7-7 against a dealer 7, never doubled or split. The fixed
    # amount depends on the wager ($5 or more); the other players' $50 on the hand itself
    # (the profile's super_bonus gives the amounts, its bonus_odds the odds).
    super_hand = (
        bonus in (Bonus.SEVEN_SEVEN_SEVEN_SUITED, Bonus.SEVEN_SEVEN_SEVEN_SPADES)
        and dealer.up_card.rank is Rank.SEVEN
        and not hand.from_split
    )
    extra = profile.super_bonus.for_wager(hand.wager) if super_hand else 0
    odds = profile.bonus_odds[bonus._value_]  # by value: an Enum's own hash is a Python call
    return _main_payment(
        hand.seat,
        _WIN,
        odds.pay(stake) + extra,
        hand.index,
        odds,
        bonus=bonus,
        super_bonus=extra,
        super_bonus_hand=super_hand,
    )


def apply_original_only(
    payments: list[Payment],
    seat_wager: int,
    profile: Profile,
    busted: frozenset[int] = frozenset(),
) -> None:
    """Cap what a dealer blackjack found after play takes from one seat (in place).

    ASSUMPTION (no-peek procedures, N.J.A.C. 13:69F-19.5 not included): with
    ``ORIGINAL_ONLY`` the seat loses its original wager once; doubles and split wagers
    are returned. A busted hand (index in ``busted``) was lost when it busted, before the
    dealer's blackjack was known: it stays lost in full, and counts as the seat's loss.
    """
    if profile.dealer_blackjack_takes is not DealerBlackjackTakes.ORIGINAL_ONLY:
        return
    taken = any(p.hand in busted for p in payments)
    for i, payment in enumerate(payments):
        if payment.outcome is not Outcome.LOSE or payment.hand in busted:
            continue
        if taken:
            payments[i] = Payment(
                payment.seat,
                payment.wager,
                Outcome.PUSH,
                0,
                payment.hand,
                note="returned: dealer blackjack takes the original wager only",
            )
        else:
            taken = True
            payments[i] = Payment(
                payment.seat,
                payment.wager,
                Outcome.LOSE,
                -seat_wager,
                payment.hand,
                note="dealer blackjack: original wager only",
            )


def settle_surrender(hand: PlayerHand) -> Payment:
    """Late surrender: half the wager is returned (ASSUMPTION, PA 635a.9). As with every
    payment (``Odds.pay``), a fractional cent goes to the player: the house keeps the
    half rounded down."""
    return Payment(hand.seat, _MAIN, _SURRENDER, -(hand.wager // 2), hand.index)


def settle_rescue(hand: PlayerHand) -> Payment:
    """Double-down rescue: the original wager is lost, the double returned (PA 635a.10)."""
    return Payment(hand.seat, _MAIN, _RESCUE, -hand.wager, hand.index)


def match_the_dealer(
    seat: int, cents: int, cards: tuple[Card, Card], up_card: Card, table: MatchPayTable
) -> Payment:
    """Settle a Match the Dealer wager (PA 635a.7(f), NY 5324.12(d)(4)).

    Each of the two cards whose rank equals the up card's is paid; J, Q and K match only the
    identical rank, which comparing ranks does (there are no 10s). Suit decides the odds.
    """
    off_suit, same_suit = table.odds
    won = 0
    matches = 0
    odds: Odds | None = None
    for card in cards:
        if card.rank is up_card.rank:
            matches += 1
            odds = same_suit if card.suit is up_card.suit else off_suit
            won += odds.pay(cents)
    if not matches:
        return Payment(seat, _MATCH, _LOSE, -cents)
    note = f"{matches} matching card{'s' if matches > 1 else ''}"
    return Payment(seat, _MATCH, _WIN, won, odds=odds, note=note, matches=matches)


def settle_insurance(seat: int, cents: int, dealer_blackjack: bool) -> Payment:
    """Insurance pays 2:1 on a dealer blackjack and is lost otherwise (PA 635a.8)."""
    if dealer_blackjack:
        return Payment(seat, _INSURANCE, _WIN, TWO_TO_ONE.pay(cents), odds=TWO_TO_ONE)
    return Payment(seat, _INSURANCE, _LOSE, -cents)


def final_settlement(
    seats: Sequence[int],
    hands: Mapping[int, Sequence[PlayerHand]],
    wagers: Mapping[int, SeatWager],
    dealer: DealerResult,
    profile: Profile,
) -> list[Payment]:
    """The payments of the final settlement, in the profile's order: every hand not settled
    yet, the no-peek dealer blackjack cap, and the super bonus shares."""
    final: list[Payment] = []
    # Loops, not list comprehensions: in Python 3.11 each comprehension is a call of its
    # own, and these two ran once per seat and once per round.
    super_hands = False
    dealer_blackjack = dealer.blackjack
    for seat in seats:
        seat_hands = hands[seat]
        seat_payments: list[Payment] = []
        for h in seat_hands:
            if not h.settled:
                payment = settle_hand(h, dealer, profile)
                seat_payments.append(payment)
                if payment.super_bonus_hand:
                    super_hands = True
        if dealer_blackjack:
            busted = frozenset(h.index for h in seat_hands if h.status is _BUST)
            apply_original_only(seat_payments, wagers[seat].wager, profile, busted)
        final += seat_payments
    # NY 5324.12(b)(7): $50 to every other player who wagered this round. (Most rounds
    # have no super bonus hand: the flag saves them a scan of the payments.)
    share = profile.super_bonus.share_cents
    if super_hands and share:
        for payment in [p for p in final if p.super_bonus_hand]:
            final.extend(
                Payment(
                    s,
                    WagerKind.SUPER_BONUS_SHARE,
                    Outcome.WIN,
                    share,
                    note=f"super bonus at seat {payment.seat}",
                )
                for s in seats
                if s != payment.seat
            )
    # One payment is already in order: the one-seat round skips the sort (0.6 us).
    return in_settlement_order(final, profile) if len(final) > 1 else final


def in_settlement_order(payments: list[Payment], profile: Profile) -> list[Payment]:
    """Order final payments as the profile settles them (PA 635a.7(p))."""
    # PA 635a.7(p)(2): from the dealer's right (highest seat) counterclockwise; (p)(1):
    # collect every losing wager first, then pay the winners.
    # Highest seat first by a C key and reverse=True (which keeps equal seats in their
    # order, as the key -seat did), and one loop for the split: with a lambda called per
    # payment and two comprehensions, nine payments took 1.39 us, now 0.70 us.
    by_seat = sorted(payments, key=_SEAT_OF, reverse=True)
    if profile.settlement_order is _RIGHT_TO_LEFT:
        return by_seat
    collect: list[Payment] = []
    pay: list[Payment] = []
    for payment in by_seat:
        if payment.net < 0:
            collect.append(payment)
        else:
            pay.append(payment)
    return collect + pay
