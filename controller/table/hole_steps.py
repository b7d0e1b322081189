"""The table's hole-card and peek steps: the withheld hole card, the peek, the reveal.

A part of :class:`~controller.table.procedure.Table`: it works on the table's state
(``controller.table.state.TableState``), stops play through the supervision
(``controller.table.supervision.Supervision``) and hands the round back to the table's flow
(``follow_round``), each passed to it. The hole card never reaches the station before the
reveal: the shoe withholds it and reports its own commitment (``HoleCardDealt``), which the
journal keeps; the station tells the shoe beforehand that the next card is the hole card
(:meth:`HoleCardSteps.announce_hole_card`). At the peek (PA 635a.7(g), NJ 19.7(i)) the
card reader answers only whether the dealer has a blackjack; at the reveal (PA 635a.7(k))
the table asks the shoe for card and nonce (``HoleCardRevealed``) and checks them against
the commitment (a mismatch is the fault ``hole_card_commitment``).
"""

from __future__ import annotations

from controller.table.faults import FaultCode
from controller.table.holecard import check_commitment
from controller.table.prompts import State
from controller.table.state import TablePart
from drivers.hal import HoleCardDealt, HoleCardRevealed, PeekResult


class HoleCardSteps(TablePart):
    """The hole-card, peek and reveal handlers of the table's procedure."""

    def on_hole_dealt(self, event: HoleCardDealt) -> None:
        play = self.t.play
        held = play.withheld if play is not None else None
        if held is not None and held.commitment == event.commitment:
            # This round's hole card reported again under a number of its own (a shoe that
            # numbers nothing, or one that lost its count: a report sent again after a
            # restart keeps its number and the driver drops it, docs/protocol.md "Draw
            # numbers"). The same commitment is the same card and nonce: journaled only.
            self.t.record("hole_card_repeated", commitment=event.commitment)
            return
        if play is None or self.t.state is not State.DEALING:
            self.t.record("hole_card_rejected", commitment=event.commitment)
            self.supervision.raise_fault(
                FaultCode.UNEXPECTED_CARD,
                f"a hole card was dealt while {self.t.prompt.text}",
            )
            return
        error = play.hole_withheld(event.commitment)
        if error:
            self.t.record("hole_card_rejected", commitment=event.commitment)
            self.supervision.raise_fault(FaultCode.UNEXPECTED_CARD, error)
            return
        self.follow_round()

    def on_hole_revealed(self, event: HoleCardRevealed) -> None:
        play = self.t.play
        waiting = play.hole_in_shoe() if play is not None else None
        card, nonce = event.card, event.nonce
        voided = self.t.voided_holes.pop(event.commitment, None) if event.asked else None
        if not event.asked or voided is not None or play is None or event.commitment != waiting:
            # Not the answer the round in play waits for: a voided round's card given back,
            # late or not; a repeated answer for a card already turned; or one this station
            # never asked for (asked before a restart: it asks again when it needs it).
            # Journaled, and it acts on nothing: it never faults or settles the round in play.
            self._late_hole_answer(voided, event)
            return
        self.t.record(
            "hole_card_reveal_answer",
            commitment=event.commitment,
            answered=card is not None,
            problem=event.problem,
        )
        if card is None or nonce is None:
            problem = event.problem or "no card"
            self.supervision.raise_fault(FaultCode.HOLE_CARD_COMMITMENT, problem, device="shoe")
            return
        if not check_commitment(waiting, card.text, nonce):
            self.supervision.raise_fault(
                FaultCode.HOLE_CARD_COMMITMENT,
                f"the shoe revealed {card} with a nonce that does not open its commitment",
                device="shoe",
            )
            return
        self.t.drawn[card] += 1
        play.fill_hole(card, nonce)
        if self.t.state is State.DEALER:
            self.reveal()

    def _late_hole_answer(self, round_no: int | None, event: HoleCardRevealed) -> None:
        """The shoe's answer for a hole card that is not the round in play's. A voided
        round's (``round_no``) that opens its commitment is journaled under that round, so
        the journal accounts for the card; one that does not is journaled with its problem
        and otherwise ignored: the round it belonged to is closed and its wagers settled."""
        card, nonce = event.card, event.nonce
        opens = (
            card is not None
            and nonce is not None
            and check_commitment(event.commitment, card.text, nonce)
        )
        problem = event.problem
        if round_no is not None and not opens:
            problem = problem or "the card and nonce do not open the commitment"
        self.t.record(
            "hole_card_reveal_answer",
            commitment=event.commitment,
            answered=card is not None,
            problem=problem,
        )
        if round_no is not None and opens and card is not None:
            self.t.drawn[card] += 1
            self.t.journal.append(
                "hole_card_revealed", {"card": card.text, "nonce": nonce}, round_no
            )

    def announce_hole_card(self) -> None:
        """Tell the shoe, once, that the next card is the hole card (it withholds it)."""
        play, shoe = self.t.play, self.t.devices.shoe
        if play is None or shoe is None or play.hole_announced or not play.hole_card_due():
            return
        play.hole_announced = True
        shoe.expect_hole_card()

    def ask_reader(self) -> None:
        assert self.t.play is not None
        reader = self.t.devices.reader
        if reader is None:  # pragma: no cover - configuration forbids peek without a reader
            self.supervision.raise_fault(
                FaultCode.DEVICE_LOST, "no card reader configured for the peek"
            )
            return
        target = self.t.play.peek_target()
        self.t.record("peek_requested", target=target.value)
        reader.check(target)

    def on_peek(self, event: PeekResult) -> None:
        self.t.record("peek", answer=event.answer.value)
        if self.t.state is not State.PEEKING or self.t.play is None:
            return  # a late or unrequested answer changes nothing
        if self.t.play.peek(event.answer):
            self.follow_round()
            return
        self.t.peek_tries += 1
        if self.t.peek_tries >= self.t.settings.peek_tries:
            self.supervision.raise_fault(
                FaultCode.READER_FAILED,
                f"the card reader answered {event.answer.value} {self.t.peek_tries} times",
                device="card_reader",
            )
            return
        self.supervision.show()  # re-prompt: slide the card in again and press NEXT

    def reveal(self) -> None:
        assert self.t.play is not None
        if not self.t.play.reveal_due():
            self.t.record("button_ignored", button="next", state="dealer", reason="draw a card")
            return
        commitment = self.t.play.hole_in_shoe()
        if commitment is not None:
            # PA 635a.7(k): the dealer turns the hole card; only now does the shoe give it.
            shoe = self.t.devices.shoe
            if shoe is None:  # pragma: no cover - a withheld card came from a shoe
                self.supervision.raise_fault(
                    FaultCode.DEVICE_LOST, "no shoe to reveal the hole card"
                )
                return
            # Asked again on every press until it comes: the shoe answers a repeated
            # request the same way, and an answer for a card already turned is ignored.
            self.t.record("hole_card_reveal_requested", commitment=commitment)
            shoe.reveal_hole_card(commitment)
            return
        error = self.t.play.reveal()
        if error:
            self.supervision.raise_fault(FaultCode.HOLE_CARD_MISMATCH, error, device="card_reader")
            return
        self.follow_round()

    def enter_peeking(self) -> None:
        self.t.peek_tries = 0
