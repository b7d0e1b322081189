"""One round in play at the table: the rules engine plus what the journal must know.

:class:`RoundPlay` feeds the shoe's cards, the panel's buttons and the reader's answers to a
:class:`~controller.rules.round.Round`, journals every placement, decision and payment as it
happens, and seals the hole card the moment it leaves the shoe. Its methods return an error
text instead of raising when the input does not fit the round: the table turns that into a
fault or a refused prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from controller.rules.cards import Card, SealedCard
from controller.rules.errors import HoleCardMismatchError, RulesError
from controller.rules.profiles import Profile
from controller.rules.round import Round
from controller.rules.settlement import Payment, WagerKind
from controller.rules.steps import (
    CardRole,
    Decision,
    NeedCard,
    NeedDecision,
    NeedInsurance,
    NeedPeek,
    NeedReveal,
    describe,
)
from controller.table.betting import UNKNOWN_AMOUNT_STAKE, ClosedBets
from controller.table.holecard import WithheldCard, commit_hole_card, fresh_nonce
from controller.table.prompts import State
from drivers.hal import Button, PeekAnswer, PeekTarget

RecordFn = Callable[[str, Mapping[str, Any]], None]

_DECISION_FOR = {
    Button.NEXT: Decision.STAND,
    Button.DOUBLE: Decision.DOUBLE,
    Button.SPLIT: Decision.SPLIT,
    Button.SURRENDER: Decision.SURRENDER,
    Button.RESCUE: Decision.RESCUE,
}
_DEAL_ROLES = frozenset({CardRole.INITIAL, CardRole.UP, CardRole.HOLE})
_DEALER_ROLES = frozenset({CardRole.SECOND, CardRole.DRAW})
_PAYMENT_KIND = {
    WagerKind.MAIN: "settlement",
    WagerKind.SUPER_BONUS_SHARE: "settlement",
    WagerKind.MATCH: "match_settled",
    WagerKind.INSURANCE: "insurance",
}


class RoundPlay:
    """A round at the table. ``record(kind, data)`` journals one fact of this round."""

    def __init__(
        self,
        profile: Profile,
        decks: int,
        bets: ClosedBets,
        record: RecordFn,
        nonces: Callable[[], str] = fresh_nonce,
    ) -> None:
        self.round = Round(profile, decks, bets.wagers)
        self.nonces = nonces
        self.bets = bets
        self.record = record
        self.match_done = False
        self._journaled = 0
        self.__nonce: str | None = None
        self.withheld: WithheldCard | None = None
        #: The shoe was told that the next card is the hole card.
        self.hole_announced = False

    def start(self, round_no: int) -> None:
        """Journal the round's start with its seats and wagers."""
        seats = [
            {
                "seat": w.seat,
                "wager_cents": w.wager if w.seat in self.bets.amounts_known else None,
                "match_cents": (w.match if w.seat in self.bets.amounts_known else None)
                if w.match
                else 0,
            }
            for w in self.bets.wagers
        ]
        self.record("round_started", {"round": round_no, "seats": seats})

    # --- where the round is ---------------------------------------------------------------

    def state_for_step(self) -> State:
        """The procedure state the round's next step belongs to."""
        step = self.round.step
        if isinstance(step, NeedCard):
            if step.role in _DEAL_ROLES:
                return State.DEALING
            if not self.match_done and self.pending_match():
                return State.MATCH
            return State.DEALER if step.role in _DEALER_ROLES else State.PLAYERS
        if not self.match_done and self.pending_match():
            return State.MATCH  # PA 635a.7(f): before any other card or the card reader
        if isinstance(step, NeedInsurance):
            return State.INSURANCE
        if isinstance(step, NeedPeek):
            return State.PEEKING
        if isinstance(step, NeedDecision):
            return State.PLAYERS
        if isinstance(step, NeedReveal):
            return State.DEALER
        return State.SETTLING

    def acting_seat(self) -> int | None:
        """The seat whose hand is being played, if any."""
        step = self.round.step
        if isinstance(step, NeedDecision | NeedCard):
            return step.seat
        return None

    def pending_match(self) -> list[Payment]:
        """Match the Dealer settlements, from the dealer's right (PA 635a.7(f))."""
        return [p for p in self.round.payments if p.wager is WagerKind.MATCH]

    def final_payments(self) -> list[Payment]:
        """The payments of the final settlement, in the profile's order (PA 635a.7(p))."""
        if not self.round.over:
            return []
        return list(self.round.payments[self.round.final_from :])

    def peek_target(self) -> PeekTarget:
        """What the reader looks for, from the up card."""
        step = self.round.step
        if isinstance(step, NeedPeek) and step.looking_for_ace:
            return PeekTarget.LOOKING_FOR_ACE
        return PeekTarget.LOOKING_FOR_TEN

    def reveal_due(self) -> bool:
        """True when the dealer should turn the hole card now."""
        return isinstance(self.round.step, NeedReveal)

    def hole_card_due(self) -> bool:
        """True when the next card out of the shoe is the dealer's hole card."""
        step = self.round.step
        return isinstance(step, NeedCard) and step.role is CardRole.HOLE

    def hole_in_shoe(self) -> str | None:
        """The commitment of a hole card the shoe still withholds, if any."""
        held = self.withheld
        return held.commitment if held is not None and not held.filled else None

    # --- inputs ---------------------------------------------------------------------------

    def card(self, card: Card) -> str | None:
        """Place a card from the shoe; a card at a decision is a hit. Error text if it does
        not fit."""
        round_ = self.round
        step = round_.step
        if isinstance(step, NeedDecision):
            if Decision.HIT not in step.legal:
                return f"seat {step.seat} hand {step.hand + 1} may not draw"
            self._decide(step, Decision.HIT)
            step = round_.step
        if not isinstance(step, NeedCard):
            return f"waiting for {describe(step)}"
        if step.role is CardRole.HOLE:
            commitment, self.__nonce = commit_hole_card(card, self.nonces())
            round_.deal(SealedCard(card))
            self.record("hole_card_dealt", {"commitment": commitment})
        else:
            round_.deal(card)
            self.record(
                "card",
                {
                    "role": step.role.value,
                    "seat": step.seat,
                    "hand": _hand_no(step.hand),
                    "card": card.text,
                },
            )
        self._flush()
        return None

    def hole_withheld(self, commitment: str) -> str | None:
        """The shoe withheld the hole card under ``commitment``; error text when no hole
        card was due."""
        if not self.hole_card_due():
            return f"a hole card was reported while waiting for {describe(self.round.step)}"
        self.withheld = WithheldCard(commitment)
        self.round.deal(self.withheld)
        self.record("hole_card_dealt", {"commitment": commitment})
        self._flush()
        return None

    def fill_hole(self, card: Card, nonce: str) -> None:
        """The shoe revealed the withheld hole card and ``nonce`` opens its commitment."""
        assert self.withheld is not None
        self.withheld.fill(card)
        self.__nonce = nonce

    def insurance(self, amounts: Mapping[int, int]) -> str | None:
        """Close insurance with these wagers (cents by seat)."""
        try:
            self.round.take_insurance(amounts)
        except RulesError as err:
            return str(err)
        for seat, cents in amounts.items():
            if cents:
                self.record("insurance_taken", {"seat": seat, "cents": cents})
        self._flush()
        return None

    def peek(self, answer: PeekAnswer) -> bool:
        """Apply the reader's answer; False for "no card" or "read error" (ask again)."""
        if answer not in (PeekAnswer.BLACKJACK, PeekAnswer.NO_BLACKJACK):
            return False
        self.round.peek(answer is PeekAnswer.BLACKJACK)
        self._flush()
        return True

    def button(self, button: Button) -> str | None:
        """Apply a decision button to the hand whose turn it is."""
        step = self.round.step
        if not isinstance(step, NeedDecision):
            return f"{button.value}: waiting for {describe(step)}"
        decision = _DECISION_FOR[button]
        if decision not in step.legal:
            allowed = ", ".join(sorted(d.value for d in step.legal))
            return (
                f"seat {step.seat} hand {step.hand + 1}: {decision.value} not allowed ({allowed})"
            )
        self._decide(step, decision)
        self._flush()
        return None

    def reveal(self) -> str | None:
        """Turn the hole card; error text when it disagrees with the reader."""
        error = None
        try:
            card = self.round.reveal_hole()
        except HoleCardMismatchError as err:
            error = str(err)
            card = self.round.dealer_cards[1]
        self.record("hole_card_revealed", {"card": card.text, "nonce": self.__nonce})
        self._flush()
        return error

    def adopt_journalled(self) -> None:
        """After a rebuild from the journal: everything so far is journalled already."""
        self._journaled = len(self.round.payments)

    def void(self, reason: str) -> None:
        """Void the round: every wager stands returned; a sealed hole card is turned over
        so that the journal accounts for it."""
        hole = self.round.hole
        data: dict[str, Any] = {"reason": reason}
        if hole is not None and self.hole_in_shoe() is None:
            self.record("hole_card_revealed", {"card": hole.reveal().text, "nonce": self.__nonce})
        elif hole is not None:
            # Never known to the station: the shoe keeps it (and its nonce) until asked.
            data["hole_card"] = "withheld by the shoe: asked for at the void"
        self.record("round_voided", data)

    def _decide(self, step: NeedDecision, decision: Decision) -> None:
        self.record(
            "decision",
            {"seat": step.seat, "hand": step.hand + 1, "decision": decision.value},
        )
        self.round.decide(step.seat, decision)

    def _flush(self) -> None:
        payments = self.round.payments
        for payment in payments[self._journaled :]:
            self.record(_PAYMENT_KIND[payment.wager], self._payment_data(payment))
        self._journaled = len(payments)

    def _payment_data(self, payment: Payment) -> dict[str, Any]:
        known = payment.seat in self.bets.amounts_known
        data: dict[str, Any] = {
            "seat": payment.seat,
            "wager": payment.wager.value,
            "outcome": payment.outcome.value,
            "odds": str(payment.odds) if payment.odds else None,
            "net_cents": payment.net if known else None,
        }
        if not known:
            # The sensors saw chips but not their value: the result in wagers (stakes).
            data["net_stakes"] = str(Decimal(payment.net) / UNKNOWN_AMOUNT_STAKE)
        if payment.hand is not None:
            hand = self.round.hands[payment.seat][payment.hand]
            data.update(hand=payment.hand + 1, cards=[c.text for c in hand.cards], total=hand.total)
        if payment.bonus is not None:
            data["bonus"] = payment.bonus.value
        if payment.super_bonus_hand:
            data["super_bonus"] = True
            data["super_bonus_cents"] = payment.super_bonus if known else None
        if payment.note:
            data["note"] = payment.note
        return data


def _hand_no(index: int | None) -> int | None:
    return None if index is None else index + 1
