"""The table procedure: a ``transitions`` state machine over the regulated dealing steps.

One thread owns a :class:`Table` and feeds it device events one at a time through
:meth:`Table.handle`. The table knows the hardware only through ``drivers.hal`` interfaces
and decides outcomes only through ``controller.rules``. Every fact is written to the
journal (the :class:`Recorder`) before the table acts on it: the journal is the truth.

Anything the procedure did not expect (a card out of order, a 10, a duplicate card, a
device lost or faulty, a reader/shoe disagreement) stops play in the ``fault`` state with a
distinct prompt; only the supervisor key with a chosen resolution clears it.

The hole card never reaches the station before the reveal: the shoe withholds it and
reports its own commitment (``HoleCardDealt``), which the journal keeps; at the reveal the
table asks the shoe for card and nonce (``HoleCardRevealed``) and checks them against the
commitment (a mismatch is the fault ``hole_card_commitment``). A shoe that reports the hole
card like any card (unit tests, the direct simulation) has it sealed by the table at once.
See ``controller.table.holecard``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import structlog

from controller.rules.cards import Card, composition_problems
from controller.table.faults import FaultCode
from controller.table.hole_steps import HoleCardSteps
from controller.table.holecard import fresh_nonce
from controller.table.machine import (
    ROUND_STATES,
    Recorder,
    TableDevices,
    TableSettings,
    shared_machine,
)
from controller.table.play import RoundPlay
from controller.table.prompts import SUPERVISOR_BUTTONS, State
from controller.table.sensors import classify
from controller.table.supervision import RESOLUTIONS
from drivers.hal import (
    Button,
    ButtonPressed,
    CardDrawn,
    CoverCardSeen,
    DeviceConnected,
    DeviceEvent,
    DeviceFault,
    DeviceLost,
    ForeignCardDrawn,
    ForgedFrame,
    HoleCardDealt,
    HoleCardRevealed,
    PeekResult,
    SeatWagerChanged,
    ShoeEmpty,
    ShoeLoaded,
    ShuffleDone,
    SupervisorKey,
    WagerSpot,
)

_log = structlog.get_logger("dealer_station.procedure")

#: The fault's message (the panel's prompt and the journal's reason; no card in it).
HOLE_CARD_IN_CLEAR = (
    "the shoe sent the hole card face up after it was told to withhold it (old firmware, a"
    " swapped board or a forged frame): void the round and have the shoe checked"
)


class Table(HoleCardSteps):
    """One Spanish 21 table's procedure. Feed it events with :meth:`handle`."""

    state: State

    def __init__(
        self,
        settings: TableSettings,
        devices: TableDevices,
        journal: Recorder,
        *,
        on_state: Callable[[Table], None] | None = None,
        nonces: Callable[[], str] = fresh_nonce,
    ) -> None:
        super().__init__(settings, devices, journal, nonces)
        self.on_state = on_state
        shared_machine().add_model(self)

    def close(self) -> None:
        """Detach from the shared machine."""
        shared_machine().remove_model(self)

    # --- the one entry point --------------------------------------------------------------

    def begin(self) -> None:
        """Start the procedure: command the first shuffle."""
        self._fire("start")

    def handle(self, event: DeviceEvent) -> None:
        """Act on one device event. Never raises for bad input: that is a fault."""
        handler = _HANDLERS.get(type(event))
        if handler is None:  # pragma: no cover - every DeviceEvent type has a handler
            raise TypeError(f"no handler for {type(event).__name__}")
        handler(self, event)

    # --- shuffle, load, burn --------------------------------------------------------------

    def _on_shuffle_done(self, event: ShuffleDone) -> None:
        composition = {str(k): v for k, v in event.per_rank}
        self._record("shuffle_done", card_count=event.card_count, per_rank=composition)
        if self.state is not State.SHUFFLING:
            return  # a late report changes nothing; the journal has it
        problems = composition_problems(self.settings.decks, event.composition, event.card_count)
        if problems:
            self.raise_fault(FaultCode.BAD_BATCH, "; ".join(problems), device="shuffler")
            return
        self._fire("shuffled")

    def _hand_shuffled(self) -> None:
        if self.devices.shuffler is not None:
            self._record(
                "button_ignored",
                button="next",
                state="shuffling",
                reason="the shuffler reports when it is done",
            )
            return
        self._record("hand_shuffle_done", decks=self.settings.decks)
        self._fire("shuffled")

    def _on_shoe_loaded(self, event: ShoeLoaded) -> None:
        self._record("shoe_loaded")
        if self.state is State.LOADING:
            self.burn_reason = "load"
            self._fire("loaded")
        elif self.state is not State.FAULT:
            self.raise_fault(FaultCode.UNEXPECTED_CARD, "the shoe was loaded without a shuffle")

    def _on_shoe_empty(self, event: ShoeEmpty) -> None:
        self._record("shoe_empty")
        self.reshuffle_pending = True
        if self.play is not None and not self.play.round.over:
            self.raise_fault(FaultCode.SHOE_EMPTY, "the shoe ran out during the round")

    def _on_card(self, event: CardDrawn) -> None:
        card = event.card
        self.drawn[card] += 1
        if self.drawn[card] > self.settings.decks:
            self._record("card", role="rejected", card=card.text)
            self.raise_fault(
                FaultCode.DUPLICATE_CARD,
                f"{card} drawn {self.drawn[card]} times; the batch holds {self.settings.decks}",
            )
            return
        if self.state is State.BURNING:
            self._burn(card)
            return
        play = self.play
        if play is None or self.state not in (State.DEALING, State.PLAYERS, State.DEALER):
            self._reject(card, f"a card was drawn while {self.prompt.text}")
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
            self.raise_fault(FaultCode.HOLE_CARD_IN_CLEAR, HOLE_CARD_IN_CLEAR, device="shoe")
            return
        self._follow_round()

    def _burn(self, card: Card) -> None:
        # PA 635a.7(c), NJ 19.7(c), NY 5324.12(c)(3): the first card after each full batch,
        # and one card for each new dealer, go to the discard rack.
        self._record("burn", card=card.text, reason=self.burn_reason)
        self.last_burn = card
        self._fire("burned")

    def _reject(self, card: Card, why: str) -> None:
        self._record("card", role="rejected", card=card.text)
        self.raise_fault(FaultCode.UNEXPECTED_CARD, f"{card} out of order: {why}")

    def _on_foreign(self, event: ForeignCardDrawn) -> None:
        self._record("card", role="rejected", card=event.description)
        self.raise_fault(FaultCode.FOREIGN_CARD, event.description)

    def _on_cover(self, event: CoverCardSeen) -> None:
        # PA 635a.7(d), NJ 19.7(j): set aside, complete the round, then reshuffle. At a new
        # dealer's burn it is an ordinary cover card: the next round is the shoe's last.
        self._record("cover_card")
        first_burn = self.state is State.BURNING and self.burn_reason == "load"
        if self.state in (State.SHUFFLING, State.LOADING) or first_burn:
            self.raise_fault(
                FaultCode.UNEXPECTED_COVER_CARD,
                "the cover card came out before the first round of the shoe",
            )
            return
        self.reshuffle_pending = True
        if self.play is not None and not self.play.round.over:
            self.play.round.cover_card()
        self._show()

    # --- betting and the round ------------------------------------------------------------

    def _on_wager(self, event: SeatWagerChanged) -> None:
        self._record(
            "event",
            type="seat_wager",
            seat=event.seat,
            spot=event.spot.value,
            present=event.present,
            cents=event.cents,
        )
        if self.state is State.INSURANCE and event.spot is WagerSpot.INSURANCE:
            self.book.update(event)
            return
        play = self.play
        in_round = play is not None and not play.round.over and self.state in ROUND_STATES
        if play is not None and (in_round or self.state is State.SETTLING):
            # NY 5324.12(b)(4),(8): no wager made, increased or withdrawn after the first card
            # until its decision is rendered and implemented; a settled spot changes as its
            # settlement says (controller.table.sensors). In the final settlement the spots
            # are free (the next bets may go down): what a settlement explains is journalled.
            reading = classify(play, event, self.book.amount(event.seat, event.spot))
            if reading.problem and in_round:
                self.raise_fault(FaultCode.WAGER_CHANGED, reading.problem)
                return
            if reading.action:
                read = event.cents if event.present else 0
                self._record(reading.action, seat=event.seat, spot=event.spot.value, cents=read)
        self.book.update(event)

    def _on_button(self, event: ButtonPressed) -> None:
        button = event.button
        prompt = self.prompt
        if button not in prompt.buttons or (
            button in SUPERVISOR_BUTTONS and not self.supervisor_key
        ):
            self._record("button_ignored", button=button.value, state=self.state.value)
            _log.info("button not live", button=button.value, state=self.state.value)
            return
        self._record("button", button=button.value, state=self.state.value)
        if self.state is State.FAULT:
            self._resolve(RESOLUTIONS[button])
        elif self.state is State.SHUFFLING:
            self._hand_shuffled()
        elif self.state is State.BETTING:
            self._betting_button(button)
        elif self.state is State.MATCH or self.state is State.SETTLE_NOW:
            self._next_settlement(then=self._follow_round)
        elif self.state is State.INSURANCE:
            self._close_insurance()
        elif self.state is State.PEEKING:
            self._ask_reader()
        elif self.state is State.PLAYERS:
            self._decision(button)
        elif self.state is State.DEALER:
            self._reveal()
        elif self.state is State.SETTLING:
            self._next_settlement(then=self._finish_round)

    def _betting_button(self, button: Button) -> None:
        if button is Button.DEALER_CHANGE:
            # PA 635a.7(c): each new dealer burns one card before dealing.
            self._record("dealer_change")
            self.burn_reason = "dealer_change"
            self._fire("new_dealer")
        elif button is Button.DISCLOSE_BURN:
            if self.profile.burn_disclosed_on_request and self.last_burn is not None:
                # NJ 19.7(c), NY 5324.12(c)(3): disclosed if requested by a player.
                self._record("burn_disclosed", card=self.last_burn.text)
            else:
                self._record("button_ignored", button=button.value, state=self.state.value)
        else:
            self._close_bets()

    def _close_bets(self) -> None:
        closed = self.book.close()
        for refused in closed.refused:
            # ``spot``: only that wager is refused; the seat plays the rest.
            where = {} if refused.spot is None else {"spot": refused.spot.value}
            self._record("wager_refused", seat=refused.seat, reason=refused.reason, **where)
        if not closed.wagers:
            self._record("button_ignored", button="next", state="betting", reason="no wagers")
            return
        self.round_no += 1
        self.play = RoundPlay(
            self.profile, self.settings.decks, closed, self._record_round, self.nonces
        )
        self.play.start(self.round_no)
        self._fire("bets_closed")

    def _follow_round(self) -> None:
        """Move to the state the round's next step belongs to."""
        play = self.play
        assert play is not None
        target = play.state_for_step()
        self._announce_hole_card()
        if target in (State.MATCH, State.SETTLE_NOW) and target is not self.state:
            self.settle_queue = play.due_now()
        if target is self.state:
            self._show()
            return
        trigger = _TRIGGER_FOR[target]
        self._fire(trigger)

    def _close_insurance(self) -> None:
        assert self.play is not None
        seats = self.play.round.seats
        # PA 635a.7(g): every insurance wager seen on its spot is settled. A sensor that
        # reports presence only gives None: the wager is the posted amount (RoundPlay).
        amounts = {
            s: self.book.amount(s, WagerSpot.INSURANCE)
            for s in seats
            if self.book.has(s, WagerSpot.INSURANCE)
        }
        error = self.play.insurance(amounts)
        if error:
            self._record("decision_refused", reason=error)
            self._show()
            return
        self._follow_round()

    def _decision(self, button: Button) -> None:
        assert self.play is not None
        error = self.play.button(button)
        if error:
            self._record("decision_refused", reason=error)
            self._show()
            return
        self._follow_round()

    def _next_settlement(self, then: Callable[[], None]) -> None:
        if self.settle_queue:
            settled = self.settle_queue.pop(0)
            if self.play is not None:
                self.play.acknowledge(settled)
        if self.settle_queue:
            self._show()
        else:
            then()

    def _finish_round(self) -> None:
        assert self.play is not None
        reshuffle = self.reshuffle_pending or self.play.round.reshuffle_due
        self.play.finish()
        self._record("round_completed", reshuffle=reshuffle)
        self.play = None
        self._fire("reshuffle_due" if reshuffle else "round_done")

    # --- entering states ------------------------------------------------------------------

    def _entered(self) -> None:
        _log.info("state", state=self.state.value, round=self.round_no)
        self._record("state", state=self.state.value)
        enter = _ON_ENTER.get(self.state)
        if enter is not None:
            enter(self)
        self._show()
        if self.on_state is not None:
            self.on_state(self)

    def _enter_shuffling(self) -> None:
        self.reshuffle_pending = False
        self.drawn.clear()
        self.book.reshuffled()
        self._record("shuffle_commanded", decks=self.settings.decks)
        if self.devices.shuffler is not None:
            self.devices.shuffler.shuffle(self.settings.decks)

    def _enter_settling(self) -> None:
        assert self.play is not None
        self.settle_queue = self.play.final_payments()
        if not self.settle_queue:
            self._finish_round()


_HANDLERS: dict[type, Callable[[Table, Any], None]] = {
    CardDrawn: Table._on_card,
    HoleCardDealt: Table._on_hole_dealt,
    HoleCardRevealed: Table._on_hole_revealed,
    ForeignCardDrawn: Table._on_foreign,
    CoverCardSeen: Table._on_cover,
    ShoeLoaded: Table._on_shoe_loaded,
    ShoeEmpty: Table._on_shoe_empty,
    ShuffleDone: Table._on_shuffle_done,
    PeekResult: Table._on_peek,
    ButtonPressed: Table._on_button,
    SupervisorKey: Table._on_key,
    SeatWagerChanged: Table._on_wager,
    DeviceConnected: Table._on_connected,
    DeviceLost: Table._on_lost,
    DeviceFault: Table._on_device_fault,
    ForgedFrame: Table._on_forged,
}

_ON_ENTER: dict[State, Callable[[Table], None]] = {
    State.SHUFFLING: Table._enter_shuffling,
    State.PEEKING: Table._enter_peeking,
    State.SETTLING: Table._enter_settling,
}

_TRIGGER_FOR = {
    State.MATCH: "match_due",
    State.INSURANCE: "insurance_due",
    State.PEEKING: "peek_due",
    State.PLAYERS: "players_due",
    State.SETTLE_NOW: "settle_now_due",
    State.DEALER: "dealer_due",
    State.SETTLING: "settle_due",
}
