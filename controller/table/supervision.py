"""The supervised side of the table: faults, the supervisor's resolutions, device status,
recovery from the journal, and what the panel shows.

:class:`Supervision` is one of the parts of :class:`~controller.table.procedure.Table`; it
works on the table's state (``controller.table.state.TableState``), which it is handed, and
moves the procedure only through the machine's typed triggers. The procedure's flow (cards,
buttons, the round) is in ``controller.table.procedure``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import structlog

from controller.rules.cards import parse_card
from controller.table.faults import Fault, FaultCode, Resolution
from controller.table.machine import shared_machine
from controller.table.prompts import (
    SETTLE_LAMPS,
    SETTLE_STATES,
    State,
    settle_word,
)
from controller.table.recovery import (
    Recovered,
    rebuild_round,
    void_accounts_from_rows,
)
from controller.table.state import TableState
from drivers.hal import (
    FAULT_LAMPS,
    Button,
    DeviceConnected,
    DeviceFault,
    DeviceFaultKind,
    DeviceLost,
    ForgedFrame,
    Led,
    LedMode,
    SupervisorKey,
)

_log = structlog.get_logger("dealer_station.procedure")


class Supervision:
    """Faults, the supervisor's resolutions, the devices' status, the restore from the
    journal and what the panel shows, over the table's state ``t`` (see the module
    docstring)."""

    def __init__(self, t: TableState) -> None:
        self.t = t

    def restore(self, rec: Recovered) -> None:
        """Take the state the journal tells (see ``controller.table.recovery``); no device is
        commanded until the table's ``resume_output``."""
        self.t.round_no = rec.round_no
        self.t.last_burn = parse_card(rec.last_burn) if rec.last_burn else None
        self.t.burn_reason = rec.burn_reason
        self.t.drawn = Counter({parse_card(text): n for text, n in rec.drawn.items()})
        self.t.reshuffle_pending = rec.reshuffle_pending
        self.t.voided_holes = dict(rec.voided_holes)
        self.t.shoe_count = replace(rec.shoe_count)
        for event in rec.wagers.values():
            self.t.book.update(event)
        machine = shared_machine()
        if rec.open_round:
            self.t.play = rebuild_round(
                self.t.profile,
                self.t.settings.decks,
                rec.open_round,
                self.t.record_round,
                shoe_withholds=self.t.devices.shoe is not None,
            )
            at = rec.resume_to if rec.fault is not None else rec.state
            if self.t.play is not None and rec.fault is None:
                # The rebuilt round says where it stands: a journal whose last event was
                # cut short (its state row never written) must not resume to a stale state.
                at = self.t.play.state_for_step()
            self.t.resume_to = at if at is not None else State.DEALING
            if self.t.play is None:
                self.t.unbuilt_round = self.t.round_no
                self.t.unbuilt_rows = list(rec.open_round)
            self.t.fault = Fault(
                FaultCode.RECOVERED_MID_ROUND,
                f"restarted during round {self.t.round_no}"
                + ("" if self.t.play else ": a sealed hole card was never revealed"),
                held=rec.fault.not_resumable() if rec.fault else None,
            )
            machine.set_state(State.FAULT, model=self.t)
            self.t.record(
                "fault",
                code=self.t.fault.code.value,
                message=self.t.fault.message,
                state=self.t.resume_to.value,
            )
        elif rec.fault is not None:
            self.t.fault, self.t.resume_to = rec.fault, rec.resume_to
            machine.set_state(State.FAULT, model=self.t)
        elif rec.state in (State.BETTING, State.LOADING, State.BURNING):
            machine.set_state(rec.state, model=self.t)
        elif rec.state is not None:
            machine.set_state(State.SHUFFLING, model=self.t)  # the shuffle is commanded again
        self.t.record("recovered", state=self.t.state.value, round=self.t.round_no)

    def ask_voided_holes_again(self) -> None:
        """Ask the shoe again for the hole cards of voided rounds it still holds (its answer
        before the stop may have been lost with the station)."""
        shoe = self.t.devices.shoe
        for commitment, round_no in self.t.voided_holes.items():
            if shoe is not None:
                self.t.journal.append(
                    "hole_card_reveal_requested",
                    {"commitment": commitment, "reason": "void"},
                    round_no,
                )
                shoe.reveal_hole_card(commitment)

    def on_connected(self, event: DeviceConnected) -> None:
        self.t.record(
            "device",
            device=event.device.value,
            status="connected",
            serial=event.serial_number,
            firmware=event.firmware,
        )
        self.t.lost.discard(event.device)
        if self.t.state is State.FAULT:
            self.show()

    def on_lost(self, event: DeviceLost) -> None:
        self.t.record("device", device=event.device.value, status="lost", reason=event.reason)
        self.t.lost.add(event.device)
        self.raise_fault(
            FaultCode.DEVICE_LOST,
            f"{event.device.value} lost: {event.reason}",
            device=event.device.value,
        )

    def on_device_fault(self, event: DeviceFault) -> None:
        self.t.record(
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

    def on_forged(self, event: ForgedFrame) -> None:
        # Journaled, not a fault: only a rate no line noise reaches stops play (the driver
        # raises the DeviceFault then; docs/protocol.md section 4c).
        self.t.record(
            "device",
            device=event.device.value,
            status="forged",
            reason=event.reason,
            count=event.count,
        )

    def on_key(self, event: SupervisorKey) -> None:
        self.t.supervisor_key = event.on
        self.t.record("supervisor_key", on=event.on)

    def raise_fault(self, code: FaultCode, message: str, device: str | None = None) -> None:
        """Stop play with a fault (journalled first). A fault during a fault is recorded
        and joins the prompt; the first fault's resume point is kept."""
        self.t.record("fault", code=code.value, message=message, state=self.t.state.value)
        _log.warning("fault", code=code.value, message=message, state=self.t.state.value)
        if self.t.state is State.FAULT:
            standing = self.t.fault
            earlier = standing.device if standing else None
            held = standing.not_resumable() if standing else None
            self.t.fault = Fault(code, message, device or earlier, held)
            self.show()
            return
        self.t.fault = Fault(code, message, device)
        self.t.resume_to = self.t.state
        self.t.fail()

    def resolve(self, resolution: Resolution) -> None:
        fault = self.t.fault
        assert fault is not None
        refusal = self._refuse_resolution(fault, resolution)
        if refusal:
            self.t.record("resolution_refused", resolution=resolution.value, reason=refusal)
            self.show()
            return
        self.t.record("fault_resolved", resolution=resolution.value, code=fault.code.value)
        self.t.fault = None
        if resolution is Resolution.RESUME:
            assert self.t.resume_to is not None
            target = self.t.resume_to
            if target is State.STARTING:
                # A fault before the first shuffle was commanded (a device's fault while
                # the station starts): the start goes on, and its next step is that shuffle.
                self.t.reshuffle()
                return
            if self.t.play is not None and target in SETTLE_STATES and target is not State.SETTLING:
                # The settlements still to prompt (a restart rebuilt the round without its
                # queue); none left: on to where the round stands.
                self.t.settle_queue = self.t.play.due_now()
                if not self.t.settle_queue:
                    target = self.t.play.state_for_step()
            self.t.resume(to=target)
            return
        if self.t.play is not None:
            self.t.reshuffle_pending |= self.t.play.round.reshuffle_due
            self.t.play.void(f"{fault.code.value}: {fault.message}")
            hole = self.t.play.hole_in_shoe()
            self.ask_voided_hole(hole)
            if self.t.play.hole_announced and self.t.play.hole_card_due():
                self.cancel_hole_card()  # named to the shoe, not yet out (docs/protocol.md)
            self.t.play = None
        elif self.t.unbuilt_round is not None:
            accounts = void_accounts_from_rows(self.t.unbuilt_rows)
            for seat in self.t.unbuilt_rows[0].data["seats"]:
                nets = [a["net_cents"] for a in accounts["stand"] if a["seat"] == seat["seat"]]
                known = None not in nets and seat.get("wager_cents") is not None
                self.t.record(
                    "seat_result", seat=seat["seat"], net_cents=sum(nets) if known else None
                )
            self.t.record("round_voided", reason=f"{fault.code.value}: {fault.message}", **accounts)
            self.t.unbuilt_round, self.t.unbuilt_rows = None, []
            self.cancel_hole_card()  # the shoe may still be told to withhold its next card
        if (
            resolution is Resolution.RESHUFFLE
            or self.t.reshuffle_pending
            or self.t.resume_to
            in (
                State.STARTING,
                State.SHUFFLING,
                State.LOADING,
                State.BURNING,
            )
        ):
            self.t.reshuffle()
        else:
            self.t.void()

    def _refuse_resolution(self, fault: Fault, resolution: Resolution) -> str:
        if resolution is not Resolution.RESUME:
            if self.t.play is not None and self.t.play.fully_settled:
                # Every wager is settled and journaled: a void would return wagers already
                # paid or collected (one money record); resume finishes paying.
                return f"round {self.t.round_no} is fully settled: resume to finish paying"
            return ""
        if self.t.lost:
            return "still lost: " + ", ".join(sorted(d.value for d in self.t.lost))
        held = fault.not_resumable()
        if held is not None:
            return f"{held.value} cannot be resumed: void or reshuffle"
        if self.t.unbuilt_round is not None:
            return f"round {self.t.unbuilt_round} cannot be rebuilt: void it"
        return ""

    def cancel_hole_card(self) -> None:
        """A voided round's hole card was announced to the shoe but never dealt: the shoe
        must not withhold the next round's first card as a hole card (PA 635a.7(e), NJ
        19.7(d), NY 5324.12(c)(4): the dealer's second card is the last of the deal)."""
        shoe = self.t.devices.shoe
        if shoe is not None:
            shoe.cancel_hole_card()

    def ask_voided_hole(self, commitment: str | None) -> None:
        """Ask the shoe for a voided round's withheld hole card (journaled when it comes)."""
        shoe = self.t.devices.shoe
        if commitment is None or shoe is None:
            return
        self.t.voided_holes[commitment] = self.t.round_no
        self.t.record("hole_card_reveal_requested", commitment=commitment, reason="void")
        shoe.reveal_hole_card(commitment)

    def show(self) -> None:
        """Show the prompt on the panel (journaled when it changes): the state's lamps, the
        reshuffle lamp, a faulty device's lamp, the payment to make or the acting seat."""
        lamps = dict(self.t.prompt.lamps)
        play = self.t.play
        if self.t.reshuffle_pending or (play is not None and play.round.reshuffle_due):
            lamps[Led.RESHUFFLE] = LedMode.STEADY
        if self.t.state is State.FAULT and self.t.fault is not None:
            device_lamp = _DEVICE_LAMPS.get(self.t.fault.device or "")
            if device_lamp is not None:
                lamps[device_lamp] = LedMode.BLINK
        elif self.t.state in SETTLE_STATES and self.t.settle_queue:
            payment = self.t.settle_queue[0]
            lamps[Led.seat(payment.seat)] = LedMode.STEADY
            lamps[SETTLE_LAMPS[settle_word(payment)]] = LedMode.STEADY
        elif self.t.play is not None and self.t.state is State.PLAYERS:
            seat = self.t.play.acting_seat()
            if seat is not None:
                lamps[Led.seat(seat)] = LedMode.BLINK
        if lamps != self.t.lamps:
            self.t.lamps = lamps
            self.t.record(
                "prompt",
                state=self.t.state.value,
                lamps={led.value: mode.value for led, mode in lamps.items()},
            )
            self.t.devices.panel.show(lamps)


RESOLUTIONS = {
    Button.SUPERVISOR_RESUME: Resolution.RESUME,
    Button.SUPERVISOR_VOID: Resolution.VOID,
    Button.SUPERVISOR_RESHUFFLE: Resolution.RESHUFFLE,
}

_DEVICE_LAMPS = {kind.value: lamp for kind, lamp in FAULT_LAMPS.items()}
