"""The supervised side of the table: faults, the supervisor's resolutions, device status,
recovery from the journal, and what the panel shows.

:class:`Supervised` is the base of :class:`~controller.table.procedure.Table`; it holds the state
both share. The procedure's flow (cards, buttons, the round) is in ``controller.table.procedure``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, cast

import structlog

from controller.rules.cards import Card, parse_card
from controller.rules.profiles import DealerSecondCard
from controller.rules.settlement import Payment
from controller.table.betting import BettingBook
from controller.table.faults import Fault, FaultCode, Resolution
from controller.table.machine import Recorder, TableDevices, TableSettings, shared_machine
from controller.table.play import RoundPlay
from controller.table.prompts import (
    SETTLE_LAMPS,
    SETTLE_STATES,
    Prompt,
    State,
    prompt_for,
    settle_word,
)
from controller.table.recovery import (
    JournalledRow,
    Recovered,
    rebuild_round,
    void_accounts_from_rows,
)
from drivers.hal import (
    Button,
    DeviceConnected,
    DeviceFault,
    DeviceFaultKind,
    DeviceKind,
    DeviceLost,
    ForgedFrame,
    Led,
    LedMode,
    SupervisorKey,
)

_log = structlog.get_logger("dealer_station.procedure")


class Supervised:
    """State shared by the procedure and its supervision (see the module docstring)."""

    state: State

    def __init__(
        self,
        settings: TableSettings,
        devices: TableDevices,
        journal: Recorder,
        nonces: Callable[[], str],
    ) -> None:
        self.settings = settings
        self.profile = settings.profile
        self.devices = devices
        self.journal = journal
        self.nonces = nonces  # hole-card commitment nonces (controller.table.holecard)
        self.book = BettingBook(
            no_mid_shoe_entry=self.profile.no_mid_shoe_entry,
            limits=settings.limits,
            match_offered=self.profile.match_the_dealer,
        )
        self.play: RoundPlay | None = None
        # A round found open at a restart that cannot be rebuilt (its hole card was sealed):
        # it can only be voided, and its rows keep its number until then.
        self.unbuilt_round: int | None = None
        self.unbuilt_rows: list[JournalledRow] = []
        self.round_no = 0
        self.fault: Fault | None = None
        self.resume_to: State | None = None
        self.supervisor_key = False
        self.reshuffle_pending = False
        self.burn_reason = "load"
        self.last_burn: Card | None = None
        self.drawn: Counter[Card] = Counter()
        self.lost: set[DeviceKind] = set()
        self.peek_tries = 0
        self.settle_queue: list[Payment] = []
        self.lamps: dict[Led, LedMode] = {}
        #: (seat, hand) -> (the hand, its card count, its last card, status, double, its
        #: view): the snapshots' cache (``controller.table.view.table_view``), checked
        #: against the hand each time.
        self.hand_views: dict[tuple[int, int], tuple[Any, int, Any, Any, int, Any]] = {}
        #: Hole cards of voided rounds still in the shoe: commitment -> round number. The
        #: shoe is asked for them at the void so that the journal accounts for every card.
        self.voided_holes: dict[str, int] = {}

    def begin(self) -> None:
        """Start the procedure (``controller.table.procedure.Table`` commands the shuffle)."""
        raise NotImplementedError

    def _entered(self) -> None:
        raise NotImplementedError

    def _record_round(self, kind: str, data: Any) -> None:
        self.journal.append(kind, data, self.round_no)

    def restore(self, rec: Recovered) -> None:
        """Take the state the journal tells (see ``controller.table.recovery``); no device is
        commanded until :meth:`resume_output`."""
        self.round_no = rec.round_no
        self.last_burn = parse_card(rec.last_burn) if rec.last_burn else None
        self.drawn = Counter({parse_card(t): n for t, n in rec.drawn.items()})
        self.reshuffle_pending = rec.reshuffle_pending
        self.voided_holes = dict(rec.voided_holes)
        for event in rec.wagers.values():
            self.book.update(event)
        machine = shared_machine()
        if rec.open_round:
            self.play = rebuild_round(
                self.profile,
                self.settings.decks,
                rec.open_round,
                self._record_round,
                shoe_withholds=self.devices.shoe is not None,
            )
            at = rec.resume_to if rec.fault is not None else rec.state
            if self.play is not None and rec.fault is None:
                # The rebuilt round says where it stands: a journal whose last event was
                # cut short (its state row never written) must not resume to a stale state.
                at = self.play.state_for_step()
            self.resume_to = at if at is not None else State.DEALING
            if self.play is None:
                self.unbuilt_round = self.round_no
                self.unbuilt_rows = list(rec.open_round)
            self.fault = Fault(
                FaultCode.RECOVERED_MID_ROUND,
                f"restarted during round {self.round_no}"
                + ("" if self.play else ": a sealed hole card was never revealed"),
            )
            machine.set_state(State.FAULT, model=self)
            self._record(
                "fault",
                code=self.fault.code.value,
                message=self.fault.message,
                state=self.resume_to.value,
            )
        elif rec.fault is not None:
            self.fault, self.resume_to = rec.fault, rec.resume_to
            machine.set_state(State.FAULT, model=self)
        elif rec.state in (State.BETTING, State.LOADING, State.BURNING):
            machine.set_state(rec.state, model=self)
        elif rec.state is not None:
            machine.set_state(State.SHUFFLING, model=self)  # the shuffle is commanded again
        self._record("recovered", state=self.state.value, round=self.round_no)

    def resume_output(self) -> None:
        """Once the devices are up: show the prompt, and command what the state needs; ask
        the shoe again for the hole cards of voided rounds it still holds (its answer
        before the stop may have been lost with the station)."""
        shoe = self.devices.shoe
        for commitment, round_no in self.voided_holes.items():
            if shoe is not None:
                self.journal.append(
                    "hole_card_reveal_requested",
                    {"commitment": commitment, "reason": "void"},
                    round_no,
                )
                shoe.reveal_hole_card(commitment)
        if self.state is State.STARTING:
            self.begin()
        elif self.state is State.SHUFFLING:
            self._entered()
        else:
            self._show()

    def _on_connected(self, event: DeviceConnected) -> None:
        self._record(
            "device",
            device=event.device.value,
            status="connected",
            serial=event.serial_number,
            firmware=event.firmware,
        )
        self.lost.discard(event.device)
        if self.state is State.FAULT:
            self._show()

    def _on_lost(self, event: DeviceLost) -> None:
        self._record("device", device=event.device.value, status="lost", reason=event.reason)
        self.lost.add(event.device)
        self.raise_fault(
            FaultCode.DEVICE_LOST,
            f"{event.device.value} lost: {event.reason}",
            device=event.device.value,
        )

    def _on_device_fault(self, event: DeviceFault) -> None:
        self._record(
            "device",
            device=event.device.value,
            status="fault",
            reason=event.reason,
            **dict(event.details),
        )
        code = FaultCode.DEVICE_FAULT
        if event.kind is DeviceFaultKind.AUTHENTICATION:
            code = FaultCode.DEVICE_AUTHENTICATION
        self.raise_fault(code, f"{event.device.value}: {event.reason}", device=event.device.value)

    def _on_forged(self, event: ForgedFrame) -> None:
        # Journaled, not a fault: only a rate no line noise reaches stops play (the driver
        # raises the DeviceFault then; docs/protocol.md section 4c).
        self._record(
            "device",
            device=event.device.value,
            status="forged",
            reason=event.reason,
            count=event.count,
        )

    def _on_key(self, event: SupervisorKey) -> None:
        self.supervisor_key = event.on
        self._record("supervisor_key", on=event.on)

    def raise_fault(self, code: FaultCode, message: str, device: str | None = None) -> None:
        """Stop play with a fault (journalled first). A fault during a fault is recorded
        and joins the prompt; the first fault's resume point is kept."""
        self._record("fault", code=code.value, message=message, state=self.state.value)
        _log.warning("fault", code=code.value, message=message, state=self.state.value)
        if self.state is State.FAULT:
            self.fault = Fault(code, message, device or (self.fault.device if self.fault else None))
            self._show()
            return
        self.fault = Fault(code, message, device)
        self.resume_to = self.state
        self._fire("fail")

    def _resolve(self, resolution: Resolution) -> None:
        fault = self.fault
        assert fault is not None
        refusal = self._refuse_resolution(fault, resolution)
        if refusal:
            self._record("resolution_refused", resolution=resolution.value, reason=refusal)
            self._show()
            return
        self._record("fault_resolved", resolution=resolution.value, code=fault.code.value)
        self.fault = None
        if resolution is Resolution.RESUME:
            assert self.resume_to is not None
            target = self.resume_to
            if self.play is not None and target in SETTLE_STATES and target is not State.SETTLING:
                # The settlements still to prompt (a restart rebuilt the round without its
                # queue); none left: on to where the round stands.
                self.settle_queue = self.play.due_now()
                if not self.settle_queue:
                    target = self.play.state_for_step()
            self._fire(f"resume_{target.value}")
            return
        if self.play is not None:
            self.reshuffle_pending |= self.play.round.reshuffle_due
            self.play.void(f"{fault.code.value}: {fault.message}")
            hole = self.play.hole_in_shoe()
            self._ask_voided_hole(hole)
            if self.play.hole_announced and hole is None:
                self._cancel_hole_card()
            self.play = None
        elif self.unbuilt_round is not None:
            accounts = void_accounts_from_rows(self.unbuilt_rows)
            for seat in self.unbuilt_rows[0].data["seats"]:
                nets = [a["net_cents"] for a in accounts["stand"] if a["seat"] == seat["seat"]]
                known = None not in nets and seat.get("wager_cents") is not None
                self._record(
                    "seat_result", seat=seat["seat"], net_cents=sum(nets) if known else None
                )
            self._record("round_voided", reason=f"{fault.code.value}: {fault.message}", **accounts)
            self.unbuilt_round, self.unbuilt_rows = None, []
            self._cancel_hole_card()  # the shoe may still be told to withhold its next card
        if (
            resolution is Resolution.RESHUFFLE
            or self.reshuffle_pending
            or self.resume_to
            in (
                State.STARTING,
                State.SHUFFLING,
                State.LOADING,
                State.BURNING,
            )
        ):
            self._fire("reshuffle")
        else:
            self._fire("void")

    def _refuse_resolution(self, fault: Fault, resolution: Resolution) -> str:
        if resolution is not Resolution.RESUME:
            if self.play is not None and self.play.fully_settled:
                # Every wager is settled and journaled: a void would return wagers already
                # paid or collected (one money record); resume finishes paying.
                return f"round {self.round_no} is fully settled: resume to finish paying"
            return ""
        if self.lost:
            return "still lost: " + ", ".join(sorted(d.value for d in self.lost))
        if fault.code in (
            FaultCode.BAD_BATCH,
            FaultCode.HOLE_CARD_MISMATCH,
            FaultCode.HOLE_CARD_COMMITMENT,
            FaultCode.HOLE_CARD_IN_CLEAR,
        ):
            return f"{fault.code.value} cannot be resumed: void or reshuffle"
        if self.unbuilt_round is not None:
            return f"round {self.unbuilt_round} cannot be rebuilt: void it"
        return ""

    def _cancel_hole_card(self) -> None:
        """A voided round's hole card was announced to the shoe but never dealt: the shoe
        must not withhold the next round's first card as a hole card (PA 635a.7(e), NJ
        19.7(d), NY 5324.12(c)(4): the dealer's second card is the last of the deal)."""
        shoe = self.devices.shoe
        if shoe is not None:
            shoe.cancel_hole_card()

    def _ask_voided_hole(self, commitment: str | None) -> None:
        """Ask the shoe for a voided round's withheld hole card (journaled when it comes)."""
        shoe = self.devices.shoe
        if commitment is None or shoe is None:
            return
        self.voided_holes[commitment] = self.round_no
        self._record("hole_card_reveal_requested", commitment=commitment, reason="void")
        shoe.reveal_hole_card(commitment)

    def _show(self) -> None:
        lamps = dict(self.prompt.lamps)
        if self.reshuffle_pending or (self.play is not None and self.play.round.reshuffle_due):
            lamps[Led.RESHUFFLE] = LedMode.STEADY
        if self.state is State.FAULT and self.fault is not None:
            device_lamp = _DEVICE_LAMPS.get(self.fault.device or "")
            if device_lamp is not None:
                lamps[device_lamp] = LedMode.BLINK
        elif self.state in SETTLE_STATES and self.settle_queue:
            payment = self.settle_queue[0]
            lamps[Led.seat(payment.seat)] = LedMode.STEADY
            lamps[SETTLE_LAMPS[settle_word(payment)]] = LedMode.STEADY
        elif self.play is not None and self.state is State.PLAYERS:
            seat = self.play.acting_seat()
            if seat is not None:
                lamps[Led.seat(seat)] = LedMode.BLINK
        if lamps != self.lamps:
            self.lamps = lamps
            self._record(
                "prompt",
                state=self.state.value,
                lamps={led.value: mode.value for led, mode in lamps.items()},
            )
            self.devices.panel.show(lamps)

    @property
    def prompt(self) -> Prompt:
        """What the panel prompts now, for this table's procedure (NJ 19.7(g): no hole card)."""
        return prompt_for(self.state, self.profile.dealer_second_card is DealerSecondCard.HOLE)

    def _record(self, kind: str, **data: Any) -> None:
        in_round = self.play is not None or self.unbuilt_round is not None
        self.journal.append(kind, data, self.round_no if in_round else None)

    def _fire(self, trigger: str) -> None:
        cast(Callable[[], bool], getattr(self, trigger))()


RESOLUTIONS = {
    Button.SUPERVISOR_RESUME: Resolution.RESUME,
    Button.SUPERVISOR_VOID: Resolution.VOID,
    Button.SUPERVISOR_RESHUFFLE: Resolution.RESHUFFLE,
}

_DEVICE_LAMPS = {
    "shuffler": Led.SHUFFLER_FAULT,
    "shoe": Led.SHOE_FAULT,
    "card_reader": Led.READER_FAULT,
}
