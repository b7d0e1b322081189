"""One round in play at the table: the rules engine plus what the journal must know.

:class:`RoundPlay` feeds the shoe's cards, the panel's buttons and the reader's answers to a
:class:`~controller.rules.round.Round`, journals every placement, decision and payment as it
happens, and seals the hole card the moment it leaves the shoe. Its methods return an error
text instead of raising when the input does not fit the round: the table turns that into a
fault or a refused prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any

from controller.rules.cards import Card
from controller.rules.errors import HoleCardMismatchError, RulesError
from controller.rules.profiles import Profile
from controller.rules.round import Round
from controller.rules.sealed import SealedCard
from controller.rules.settlement import Outcome, Payment, WagerKind
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
from controller.table import accounts
from controller.table.betting import ClosedBets
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
_SEAT = attrgetter("seat")
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
        self._journaled = 0
        # Indices into ``round.payments`` the dealer has been prompted for (PA 635a.7(f),
        # (g), (h)(1)(i), NY 5324.12(d)(3)): a mid-round settlement is prompted once.
        self._prompted: set[int] = set()
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

    @property
    def match_done(self) -> bool:
        """True once every Match the Dealer settlement has been prompted."""
        return not any(p.wager is WagerKind.MATCH for p in self._unprompted())

    @match_done.setter
    def match_done(self, done: bool) -> None:
        if done:
            for i, payment in enumerate(self.round.payments):
                if payment.wager is WagerKind.MATCH:
                    self._prompted.add(i)

    def state_for_step(self) -> State:
        """The procedure state the round's next step belongs to."""
        step = self.round.step
        if isinstance(step, NeedCard) and step.role in _DEAL_ROLES:
            return State.DEALING
        due = self.due_now()
        if due:
            # PA 635a.7(f), NY 5324.12(d)(3): Match the Dealer before any other card or the
            # card reader; then any other settlement the regulation orders at once.
            return State.MATCH if due[0].wager is WagerKind.MATCH else State.SETTLE_NOW
        if isinstance(step, NeedCard):
            return State.DEALER if step.role in _DEALER_ROLES else State.PLAYERS
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

    def due_now(self) -> list[Payment]:
        """The settlements the dealer must make now, before play goes on; empty once the
        round is over (the final settlement takes the rest).

        Match the Dealer first and alone, from the dealer's right (PA 635a.7(f)); then
        insurance at the peek (PA 635a.7(g)), a surrender or rescue at the decision, and a
        blackjack against a 2-9 up card when play reaches its seat (PA 635a.7(h)(1)(i)), in
        the walk of (h): seat by seat from the dealer's left, whatever order they arose in
        (a surrender at seat 1 before the blackjack at seat 2 paid once seat 1 has acted).
        """
        if self.round.over:
            return []
        unprompted = self._unprompted()
        match = [p for p in unprompted if p.wager is WagerKind.MATCH]
        if match:
            return match
        acting = self.acting_seat()
        due = [
            p
            for p in unprompted
            if not (p.outcome is Outcome.BLACKJACK and acting is not None and p.seat > acting)
        ]
        # PA 635a.7(h): clockwise from the dealer's left, the seats' order (stable: a seat's
        # own settlements keep the order they arose in).
        return sorted(due, key=_SEAT)

    def acknowledge(self, payment: Payment) -> None:
        """The dealer has been prompted for ``payment`` (NEXT pressed on it)."""
        for i, p in enumerate(self.round.payments):
            if p is payment:
                self._prompted.add(i)

    def final_payments(self) -> list[Payment]:
        """The payments of the final settlement: any not yet prompted (e.g. insurance
        settled by the dealer's second card, which ends the round), then the final ones in
        the profile's order (PA 635a.7(p)). Each is prompted once."""
        if not self.round.over:
            return []
        payments = self._unprompted()
        self._prompted.update(range(len(self.round.payments)))
        return payments

    def _unprompted(self) -> list[Payment]:
        prompted = self._prompted
        return [p for i, p in enumerate(self.round.payments) if i not in prompted]

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
            # The shoe gave the hole card in the open (it was not told in time, or it
            # does not withhold): the station seals it itself, its nonce in memory only.
            commitment, self.__nonce = commit_hole_card(card, self.nonces())
            round_.deal(SealedCard(card))
            self.record("hole_card_dealt", {"commitment": commitment, "sealed_by": "station"})
        else:
            round_.deal(card)
            self.record(
                "card",
                {
                    "role": step.role.value,
                    "seat": step.seat,
                    "hand": accounts.hand_no(step.hand),
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
        self.record("hole_card_dealt", {"commitment": commitment, "sealed_by": "shoe"})
        self._flush()
        return None

    def fill_hole(self, card: Card, nonce: str) -> None:
        """The shoe revealed the withheld hole card and ``nonce`` opens its commitment."""
        assert self.withheld is not None
        self.withheld.fill(card)
        self.__nonce = nonce

    def insurance(self, amounts: Mapping[int, int | None]) -> str | None:
        """Close insurance with these wagers (cents by seat). ``None``: the spot's sensor
        saw chips it cannot weigh; the wager is the posted amount, half the seat's wager
        (PA 635a.7(g): the insurance wager seen is settled, whatever the sensor measures),
        journaled with ``posted`` and, where the seat's wager is not known in cents either,
        as a count of the seat's Spanish 21 wagers."""
        wagers = self.round.wagers
        try:
            self.round.take_insurance(
                {
                    seat: wagers[seat].wager // 2 if cents is None and seat in wagers else cents
                    for seat, cents in amounts.items()
                }
            )
        except RulesError as err:
            return str(err)
        for seat, cents in self.round.insurance.items():  # the seats insured, by seat
            posted = amounts[seat] is None
            self.record("insurance_taken", accounts.insurance_row(self.bets, seat, cents, posted))
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
        if error is None:
            # On a mismatch nothing is settled: the round can only be voided, and the
            # void returns the wagers (one money record: docs/journal.md).
            self._flush()
        return error

    def adopt_journalled(self, payments: int) -> None:
        """After a rebuild from the journal, whose rows held the first ``payments`` of the
        round's payments: journal the rest now (a crash cut the event that settled them
        short), so that each payment is journaled exactly once."""
        self._journaled = min(payments, len(self.round.payments))
        # The mid-round settlements journaled so far count as prompted (their rows are
        # written); the final settlement is prompted when it comes.
        settled = self._journaled
        if self.round.over:
            settled = min(settled, self.round.final_from)
        self._prompted.update(range(settled))
        self._flush()

    @property
    def fully_settled(self) -> bool:
        """True once every wager of the round is settled and journaled: a void would take
        back payments already made, so only a resume (which finishes paying) fits."""
        return self.round.over and self._journaled == len(self.round.payments)

    def void_accounts(self) -> dict[str, list[dict[str, Any]]]:
        """What a void leaves (``controller.table.accounts.void_accounts``)."""
        return accounts.void_accounts(self.round, self.bets, self._journaled_payments())

    def void(self, reason: str) -> None:
        """Void the round: the settlements journaled so far stand and every other wager is
        returned (:meth:`void_accounts`, journaled with the void); a hole card the table
        sealed is turned over so that the journal accounts for it (one the shoe withholds
        stays in the shoe)."""
        hole = self.round.hole
        data: dict[str, Any] = {"reason": reason}
        if hole is not None and self.hole_in_shoe() is None:
            self.record("hole_card_revealed", {"card": hole.reveal().text, "nonce": self.__nonce})
        elif hole is not None:
            # Never known to the station: the shoe keeps it (and its nonce) until asked.
            data["hole_card"] = "withheld by the shoe: asked for at the void"
        self.finish()
        self.record("round_voided", {**data, **self.void_accounts()})

    def finish(self) -> None:
        """Journal each seat's result for the round: the sum of its journaled settlements
        (main, Match the Dealer, insurance, super bonus shares; after a void, those that
        stand), in cents where the amounts are known, else in wagers."""
        for data in accounts.seat_results(self.bets, self._journaled_payments()):
            self.record("seat_result", data)

    def _journaled_payments(self) -> list[Payment]:
        return self.round.payments[: self._journaled]

    def _decide(self, step: NeedDecision, decision: Decision) -> None:
        self.record(
            "decision",
            {"seat": step.seat, "hand": step.hand + 1, "decision": decision.value},
        )
        self.round.decide(step.seat, decision)

    def _flush(self) -> None:
        payments = self.round.payments
        for payment in payments[self._journaled :]:
            row = accounts.payment_row(self.round, self.bets, payment)
            self.record(_PAYMENT_KIND[payment.wager], row)
        self._journaled = len(payments)
