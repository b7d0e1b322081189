"""The pacer that keeps an actor in step with the station's loop (no station needed)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from controller.rules.cards import parse_card
from controller.simulation.pacer import Pacer, SimulationStuckError
from controller.table.prompts import State
from controller.table.view import TableView, view_record
from drivers.hal import Button, ButtonPressed, CardDrawn, CoverCardSeen, ShoeEmpty


def view(state: State = State.BETTING) -> TableView:
    return TableView(
        state, "", 0, (), (), (), (), False, None, None, (), False, False, False, None, None
    )


def test_wait_returns_once_every_expected_event_is_handled_and_the_station_idles() -> None:
    pacer = Pacer()
    pacer.expect(ButtonPressed, CardDrawn)
    pacer.observe(ButtonPressed(Button.NEXT), None, False)  # more queued: no view yet
    with pytest.raises(SimulationStuckError, match=r"waiting for \['CardDrawn'\]"):
        pacer.wait(0, timeout=0.01)
    pacer.observe(CardDrawn(parse_card("9H")), view(State.DEALING), True)
    got, seq = pacer.wait(0, timeout=0.01)
    assert (got.state, seq) == (State.DEALING, 2)


def test_the_default_deadline_is_the_pacers_stuck_seconds() -> None:
    pacer = Pacer(stuck_seconds=0.02)  # a station in an emulated machine is given longer
    pacer.expect(CardDrawn)
    with pytest.raises(SimulationStuckError, match=r"no progress for 0 s"):
        pacer.wait(0)
    with pytest.raises(SimulationStuckError, match=r"no progress for 0 s"):
        pacer.until(lambda _view: True)


def test_an_event_seen_before_its_expectation_counts_for_it() -> None:
    pacer = Pacer()
    pacer.expect(CardDrawn)
    pacer.observe(CoverCardSeen(), None, False)  # the cover card came out first
    pacer.expect(CoverCardSeen)  # the actor learns it only now
    pacer.observe(CardDrawn(parse_card("9H")), view(), True)
    assert pacer.wait(0, timeout=0.01)[1] == 2


def test_what_nobody_expected_before_the_actor_looked_is_not_counted_later() -> None:
    pacer = Pacer()
    pacer.observe(ShoeEmpty(), view(), True)  # unexplained
    pacer.wait(0, timeout=0.01)
    pacer.expect(ShoeEmpty)  # a later action's event must really come
    with pytest.raises(SimulationStuckError, match="ShoeEmpty"):
        pacer.wait(1, timeout=0.01)


def test_withdraw_and_until_and_a_waiter_woken_from_another_thread() -> None:
    pacer = Pacer()
    pacer.expect(CardDrawn)
    pacer.withdraw(CardDrawn)  # the shoe was empty: nothing came out
    pacer.observe(ButtonPressed(Button.NEXT), view(State.BETTING), True)
    got: list[State] = []
    waiter = threading.Thread(
        target=lambda: got.append(pacer.until(lambda v: v.state is State.DEALING, 0, 5.0)[0].state)
    )
    waiter.start()
    pacer.observe(ButtonPressed(Button.NEXT), view(State.DEALING), True)
    waiter.join(5.0)
    assert got == [State.DEALING]


def test_a_view_record_is_decoded_only_when_a_waiter_looks_at_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Idle views of a batch that no waiter looks at (its events are still expected) stay
    records; the one the waiter returns is decoded once and equals the view it recorded."""
    import controller.simulation.pacer as pacer_module

    decoded: list[dict[str, Any]] = []
    real = pacer_module.view_from_record

    def counting(record: dict[str, Any]) -> TableView:
        decoded.append(record)
        return real(record)

    monkeypatch.setattr(pacer_module, "view_from_record", counting)
    pacer = Pacer()
    pacer.expect(ButtonPressed, ButtonPressed, CardDrawn)
    first, last = view(State.BETTING), view(State.DEALING)
    pacer.observe_record((ButtonPressed,), view_record(first), True)  # idle, more to come
    pacer.observe_record((ButtonPressed,), view_record(first), True)
    pacer.observe_record((CardDrawn,), view_record(last), True)
    got, seq = pacer.wait(0, timeout=0.01)
    assert (got, seq) == (last, 3)
    assert decoded == [view_record(last)]
    assert pacer.view == last and len(decoded) == 1  # decoded once
