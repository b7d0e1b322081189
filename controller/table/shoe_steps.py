"""The table's shuffle, load, burn and card steps: the batch counted against the table's
decks, the shoe loaded, the burn card (PA 635a.7(c), NJ 19.7(c), NY 5324.12(c)(3)), each
card out of the shoe checked against the round's next step, a foreign card, the cover card
(PA 635a.7(d), NJ 19.7(j)).

A part of :class:`~controller.table.procedure.Table`: it works on the table's state
(``controller.table.state.TableState``), stops play through the supervision
(``controller.table.supervision.Supervision``) and hands a dealt card's round back to the
table's flow (``follow_round``), each passed to it.
"""

from __future__ import annotations

from typing import Any

from controller.rules.cards import Card, composition_problems
from controller.table.faults import FaultCode
from controller.table.prompts import State
from controller.table.shoe_count import COUNT_KIND
from controller.table.state import TablePart
from drivers.hal import (
    CardDrawn,
    CoverCardSeen,
    ForeignCardDrawn,
    ShoeEmpty,
    ShoeLoaded,
    ShuffleDone,
)

#: The fault's message (the panel's prompt and the journal's reason; no card in it).
HOLE_CARD_IN_CLEAR = (
    "the shoe sent the hole card face up after it was told to withhold it (old firmware, a"
    " swapped board or a forged frame): void the round and have the shoe checked"
)


class ShoeSteps(TablePart):
    """The shuffle, load, burn and card handlers of the table's procedure."""

    def on_shuffle_done(self, event: ShuffleDone) -> None:
        composition = {str(k): v for k, v in event.per_rank}
        self.t.record("shuffle_done", card_count=event.card_count, per_rank=composition)
        if self.t.state is not State.SHUFFLING:
            return  # a late report changes nothing; the journal has it
        problems = composition_problems(self.t.settings.decks, event.composition, event.card_count)
        if problems:
            self.supervision.raise_fault(
                FaultCode.BAD_BATCH, "; ".join(problems), device="shuffler"
            )
            return
        self.t.shuffled()

    def hand_shuffled(self) -> None:
        if self.t.devices.shuffler is not None:
            self.t.record(
                "button_ignored",
                button="next",
                state="shuffling",
                reason="the shuffler reports when it is done",
            )
            return
        self.t.record("hand_shuffle_done", decks=self.t.settings.decks)
        self.t.shuffled()

    def on_shoe_loaded(self, event: ShoeLoaded) -> None:
        self.t.record("shoe_loaded")
        self.count(self.t.shoe_count.after_load(event.load))
        if self.t.state is State.LOADING:
            self.t.burn_reason = "load"
            self.t.loaded()
        elif self.t.state is not State.FAULT:
            self.supervision.raise_fault(
                FaultCode.UNEXPECTED_CARD, "the shoe was loaded without a shuffle"
            )

    def on_shoe_empty(self, event: ShoeEmpty) -> None:
        self.count(self.t.shoe_count.before_empty(event.draws))
        self.t.record("shoe_empty")
        self.t.reshuffle_pending = True
        if self.t.play is not None and not self.t.play.round.over:
            self.supervision.raise_fault(FaultCode.SHOE_EMPTY, "the shoe ran out during the round")

    def count(self, row: dict[str, Any] | None) -> None:
        """Journal the shoe's count where its draw rows alone would not give it
        (``controller.table.shoe_count``): a restarted station resumes its driver from it."""
        if row is not None:
            self.t.record(COUNT_KIND, **row)

    def on_card(self, event: CardDrawn) -> None:
        card = event.card
        self.t.drawn[card] += 1
        if self.t.drawn[card] > self.t.settings.decks:
            self.t.record("card", role="rejected", card=card.text)
            self.supervision.raise_fault(
                FaultCode.DUPLICATE_CARD,
                f"{card} drawn {self.t.drawn[card]} times; the batch holds {self.t.settings.decks}",
            )
            return
        if self.t.state is State.BURNING:
            self._burn(card)
            return
        play = self.t.play
        if play is None or self.t.state not in (State.DEALING, State.PLAYERS, State.DEALER):
            self._reject(card, f"a card was drawn while {self.t.prompt.text}")
            return
        # The shoe was told to withhold this card (it owes a commitment): a face on the line
        # is a shoe that ignored the instruction. The card is sealed at once, so the round
        # accounts for it, and turned over in the journal when the round is voided.
        in_clear = play.hole_announced and play.hole_card_due()
        error = play.card(card)
        if error:
            self._reject(card, error)
            return
        if in_clear:
            self.supervision.raise_fault(
                FaultCode.HOLE_CARD_IN_CLEAR, HOLE_CARD_IN_CLEAR, device="shoe"
            )
            return
        self.follow_round()

    def _burn(self, card: Card) -> None:
        # PA 635a.7(c), NJ 19.7(c), NY 5324.12(c)(3): the first card after each full batch,
        # and one card for each new dealer, go to the discard rack.
        self.t.record("burn", card=card.text, reason=self.t.burn_reason)
        self.t.last_burn = card
        self.t.burned()

    def _reject(self, card: Card, why: str) -> None:
        self.t.record("card", role="rejected", card=card.text)
        self.supervision.raise_fault(FaultCode.UNEXPECTED_CARD, f"{card} out of order: {why}")

    def on_foreign(self, event: ForeignCardDrawn) -> None:
        self.t.record("card", role="rejected", card=event.description)
        self.supervision.raise_fault(FaultCode.FOREIGN_CARD, event.description)

    def on_cover(self, event: CoverCardSeen) -> None:
        # PA 635a.7(d), NJ 19.7(j): set aside, complete the round, then reshuffle. At a new
        # dealer's burn it is an ordinary cover card: the next round is the shoe's last.
        self.t.record("cover_card")
        first_burn = self.t.state is State.BURNING and self.t.burn_reason == "load"
        if self.t.state in (State.SHUFFLING, State.LOADING) or first_burn:
            self.supervision.raise_fault(
                FaultCode.UNEXPECTED_COVER_CARD,
                "the cover card came out before the first round of the shoe",
            )
            return
        self.t.reshuffle_pending = True
        if self.t.play is not None and not self.t.play.round.over:
            self.t.play.round.cover_card()
        self.supervision.show()

    def enter_shuffling(self) -> None:
        self.t.reshuffle_pending = False
        self.t.drawn.clear()
        self.t.book.reshuffled()
        self.t.record("shuffle_commanded", decks=self.t.settings.decks)
        if self.t.devices.shuffler is not None:
            self.t.devices.shuffler.shuffle(self.t.settings.decks)
