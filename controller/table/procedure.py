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

A :class:`Table` is made of parts, each handed what it works on: its state
(``controller.table.state.TableState``, the machine's model: every field is set there, and
every trigger is one of its typed methods), the supervision (``controller.table.supervision``),
the shuffle, load, burn and card steps (``controller.table.shoe_steps``) and the hole-card
steps (``controller.table.hole_steps``). This module is the round's flow and the entry point.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import structlog

from controller.table.faults import Fault, FaultCode
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
from controller.table.recovery import Recovered
from controller.table.sensors import classify
from controller.table.shoe_steps import ShoeSteps
from controller.table.state import TableState
from controller.table.supervision import RESOLUTIONS, Supervision
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


class Table:
    """One Spanish 21 table's procedure. Feed it events with :meth:`handle`.

    Its parts are explicit: the state (:attr:`t`, the machine's model), the supervision
    (:attr:`supervision`), the shuffle, load, burn and card steps (:attr:`shoe`) and the
    hole-card steps (:attr:`hole`), each handed what it
    works on; this class is the round's flow: betting, the round's steps, the
    settlements. The read-only properties below are what the
    station, the view and the tests read of a table."""

    def __init__(
        self,
        settings: TableSettings,
        devices: TableDevices,
        journal: Recorder,
        *,
        on_state: Callable[[Table], None] | None = None,
        nonces: Callable[[], str] = fresh_nonce,
    ) -> None:
        self.t = TableState(settings, devices, journal, nonces)
        self.supervision = Supervision(self.t)
        self.hole = HoleCardSteps(self.t, self.supervision, self._follow_round)
        self.shoe = ShoeSteps(self.t, self.supervision, self._follow_round)
        self.on_state = on_state
        self.t.entered = self._entered
        shared_machine().add_model(self.t)

    def close(self) -> None:
        """Detach from the shared machine."""
        shared_machine().remove_model(self.t)

    # --- what a table shows -----------------------------------------------------------------

    @property
    def state(self) -> State:
        """The procedure's state."""
        return self.t.state

    @property
    def fault(self) -> Fault | None:
        """The fault that stopped play, if any."""
        return self.t.fault

    @property
    def play(self) -> RoundPlay | None:
        """The round in play, if any."""
        return self.t.play

    @property
    def round_no(self) -> int:
        """The number of the last round started."""
        return self.t.round_no

    @property
    def reshuffle_pending(self) -> bool:
        """A reshuffle is due after this round (the cover card came out)."""
        return self.t.reshuffle_pending

    def raise_fault(self, code: FaultCode, message: str, device: str | None = None) -> None:
        """Stop play with a fault (``Supervision.raise_fault``)."""
        self.supervision.raise_fault(code, message, device)

    def restore(self, rec: Recovered) -> None:
        """Take the state the journal tells (``Supervision.restore``); no device is
        commanded until :meth:`resume_output`."""
        self.supervision.restore(rec)

    def resume_output(self) -> None:
        """Once the devices are up: show the prompt, and command what the state needs; ask
        the shoe again for the hole cards of voided rounds it still holds."""
        self.supervision.ask_voided_holes_again()
        if self.t.state is State.STARTING:
            self.begin()
        elif self.t.state is State.SHUFFLING:
            self._entered()
        else:
            self.supervision.show()

    # --- the one entry point --------------------------------------------------------------

    def begin(self) -> None:
        """Start the procedure: command the first shuffle."""
        self.t.start()

    def handle(self, event: DeviceEvent) -> None:
        """Act on one device event. Never raises for bad input: that is a fault."""
        handler = _HANDLERS.get(type(event))
        if handler is None:  # pragma: no cover - every DeviceEvent type has a handler
            raise TypeError(f"no handler for {type(event).__name__}")
        if isinstance(event, _DRAWS) and event.draw is not None:
            # A numbered draw: the journal's count first, where its rows would not give it.
            self.shoe.count(self.t.shoe_count.before_draw(event.draw))
        handler(self, event)

    # --- betting and the round ------------------------------------------------------------

    def _on_wager(self, event: SeatWagerChanged) -> None:
        self.t.record(
            "event",
            type="seat_wager",
            seat=event.seat,
            spot=event.spot.value,
            present=event.present,
            cents=event.cents,
        )
        # A fault stops play and settles nothing: its wagers are judged as in the state it
        # stopped (NY 5324.12(b)(4): a wager lifted during it is a fault of its own, which
        # joins the prompt before any resume; a settlement's chips move as it says).
        state = self.t.resume_to if self.t.state is State.FAULT else self.t.state
        if state is State.INSURANCE and event.spot is WagerSpot.INSURANCE:
            self.t.book.update(event)
            return
        play = self.t.play
        in_round = play is not None and not play.round.over and state in ROUND_STATES
        if play is not None and (in_round or state is State.SETTLING):
            # NY 5324.12(b)(4),(8): no wager made, increased or withdrawn after the first card
            # until its decision is rendered and implemented; a settled spot changes as its
            # settlement says (controller.table.sensors). In the final settlement the spots
            # are free (the next bets may go down): what a settlement explains is journalled.
            reading = classify(play, event, self.t.book.amount(event.seat, event.spot))
            if reading.problem and in_round:
                self.raise_fault(FaultCode.WAGER_CHANGED, reading.problem)
                return
            if reading.action:
                read = event.cents if event.present else 0
                self.t.record(reading.action, seat=event.seat, spot=event.spot.value, cents=read)
        self.t.book.update(event)

    def _on_button(self, event: ButtonPressed) -> None:
        button = event.button
        prompt = self.t.prompt
        if button not in prompt.buttons or (
            button in SUPERVISOR_BUTTONS and not self.t.supervisor_key
        ):
            # docs/journal.md: every ignored button's row says why.
            why = "no supervisor key" if button in prompt.buttons else "not live in this state"
            self.t.record(
                "button_ignored", button=button.value, state=self.t.state.value, reason=why
            )
            _log.info("button not live", button=button.value, state=self.t.state.value)
            return
        self.t.record("button", button=button.value, state=self.t.state.value)
        if self.t.state is State.FAULT:
            self.supervision.resolve(RESOLUTIONS[button])
        elif self.t.state is State.SHUFFLING:
            self.shoe.hand_shuffled()
        elif self.t.state is State.BETTING:
            self._betting_button(button)
        elif self.t.state is State.MATCH or self.t.state is State.SETTLE_NOW:
            self._next_settlement(then=self._follow_round)
        elif self.t.state is State.INSURANCE:
            self._close_insurance()
        elif self.t.state is State.PEEKING:
            self.hole.ask_reader()
        elif self.t.state is State.PLAYERS:
            self._decision(button)
        elif self.t.state is State.DEALER:
            self.hole.reveal()
        elif self.t.state is State.SETTLING:
            self._next_settlement(then=self._finish_round)

    def _betting_button(self, button: Button) -> None:
        if button is Button.DEALER_CHANGE:
            # PA 635a.7(c): each new dealer burns one card before dealing.
            self.t.record("dealer_change")
            self.t.burn_reason = "dealer_change"
            self.t.new_dealer()
        elif button is Button.DISCLOSE_BURN:
            if self.t.profile.burn_disclosed_on_request and self.t.last_burn is not None:
                # NJ 19.7(c), NY 5324.12(c)(3): disclosed if requested by a player.
                self.t.record("burn_disclosed", card=self.t.last_burn.text)
            else:
                self.t.record(
                    "button_ignored",
                    button=button.value,
                    state=self.t.state.value,
                    reason=(
                        "no card burned yet"
                        if self.t.profile.burn_disclosed_on_request
                        else "this table does not disclose the burn card"
                    ),
                )
        else:
            self._close_bets()

    def _close_bets(self) -> None:
        closed = self.t.book.close()
        for refused in closed.refused:
            # ``spot``: only that wager is refused; the seat plays the rest.
            where = {} if refused.spot is None else {"spot": refused.spot.value}
            self.t.record("wager_refused", seat=refused.seat, reason=refused.reason, **where)
        if not closed.wagers:
            self.t.record("button_ignored", button="next", state="betting", reason="no wagers")
            return
        self.t.round_no += 1
        self.t.play = RoundPlay(
            self.t.profile, self.t.settings.decks, closed, self.t.record_round, self.t.nonces
        )
        self.t.play.start(self.t.round_no)
        self.t.bets_closed()

    def _follow_round(self) -> None:
        """Move to the state the round's next step belongs to."""
        play = self.t.play
        assert play is not None
        target = play.state_for_step()
        self.hole.announce_hole_card()
        if target in (State.MATCH, State.SETTLE_NOW) and target is not self.t.state:
            self.t.settle_queue = play.due_now()
        if target is self.t.state:
            self.supervision.show()
            return
        _TRIGGER_FOR[target](self.t)

    def _close_insurance(self) -> None:
        assert self.t.play is not None
        seats = self.t.play.round.seats
        # PA 635a.7(g): every insurance wager seen on its spot is settled. A sensor that
        # reports presence only gives None: the wager is the posted amount (RoundPlay).
        amounts = {
            s: self.t.book.amount(s, WagerSpot.INSURANCE)
            for s in seats
            if self.t.book.has(s, WagerSpot.INSURANCE)
        }
        error = self.t.play.insurance(amounts)
        if error:
            self.t.record("decision_refused", reason=error)
            self.supervision.show()
            return
        self._follow_round()

    def _decision(self, button: Button) -> None:
        assert self.t.play is not None
        error = self.t.play.button(button)
        if error:
            self.t.record("decision_refused", reason=error)
            self.supervision.show()
            return
        self._follow_round()

    def _next_settlement(self, then: Callable[[], None]) -> None:
        if self.t.settle_queue:
            settled = self.t.settle_queue.pop(0)
            if self.t.play is not None:
                self.t.play.acknowledge(settled)
        if self.t.settle_queue:
            self.supervision.show()
        else:
            then()

    def _finish_round(self) -> None:
        assert self.t.play is not None
        reshuffle = self.t.reshuffle_pending or self.t.play.round.reshuffle_due
        self.t.play.finish()
        self.t.record("round_completed", reshuffle=reshuffle)
        self.t.play = None
        if reshuffle:
            self.t.reshuffle_due()
        else:
            self.t.round_done()

    # --- entering states ------------------------------------------------------------------

    def _entered(self) -> None:
        _log.info("state", state=self.t.state.value, round=self.t.round_no)
        self.t.record("state", state=self.t.state.value)
        enter = _ON_ENTER.get(self.t.state)
        if enter is not None:
            enter(self)
        self.supervision.show()
        if self.on_state is not None:
            self.on_state(self)

    def _enter_settling(self) -> None:
        assert self.t.play is not None
        # A resume after a fault in the final settlement comes back with the payments still
        # to prompt (final_payments gives each only once): those of this round stay queued.
        payments = self.t.play.round.payments
        left = [p for p in self.t.settle_queue if any(p is q for q in payments)]
        self.t.settle_queue = left + self.t.play.final_payments()
        if not self.t.settle_queue:
            self._finish_round()


#: The events of a draw out of the shoe, each with the shoe's number of it (or None).
_DRAWS = (CardDrawn, ForeignCardDrawn, CoverCardSeen, HoleCardDealt)

_HANDLERS: dict[type, Callable[[Table, Any], None]] = {
    CardDrawn: lambda table, event: table.shoe.on_card(event),
    HoleCardDealt: lambda table, event: table.hole.on_hole_dealt(event),
    HoleCardRevealed: lambda table, event: table.hole.on_hole_revealed(event),
    ForeignCardDrawn: lambda table, event: table.shoe.on_foreign(event),
    CoverCardSeen: lambda table, event: table.shoe.on_cover(event),
    ShoeLoaded: lambda table, event: table.shoe.on_shoe_loaded(event),
    ShoeEmpty: lambda table, event: table.shoe.on_shoe_empty(event),
    ShuffleDone: lambda table, event: table.shoe.on_shuffle_done(event),
    PeekResult: lambda table, event: table.hole.on_peek(event),
    ButtonPressed: Table._on_button,
    SupervisorKey: lambda table, event: table.supervision.on_key(event),
    SeatWagerChanged: Table._on_wager,
    DeviceConnected: lambda table, event: table.supervision.on_connected(event),
    DeviceLost: lambda table, event: table.supervision.on_lost(event),
    DeviceFault: lambda table, event: table.supervision.on_device_fault(event),
    ForgedFrame: lambda table, event: table.supervision.on_forged(event),
}

_ON_ENTER: dict[State, Callable[[Table], None]] = {
    State.SHUFFLING: lambda table: table.shoe.enter_shuffling(),
    State.PEEKING: lambda table: table.hole.enter_peeking(),
    State.SETTLING: Table._enter_settling,
}

#: The trigger that moves a round on to each state its steps belong to.
_TRIGGER_FOR: dict[State, Callable[[TableState], bool]] = {
    State.MATCH: lambda t: t.match_due(),
    State.INSURANCE: lambda t: t.insurance_due(),
    State.PEEKING: lambda t: t.peek_due(),
    State.PLAYERS: lambda t: t.players_due(),
    State.SETTLE_NOW: lambda t: t.settle_now_due(),
    State.DEALER: lambda t: t.dealer_due(),
    State.SETTLING: lambda t: t.settle_due(),
}
