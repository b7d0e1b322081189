"""The split simulated table: the station in this process, the serial doubles and the
dealer in another (``controller.simulation.split``), over real ptys and socket pairs."""

from __future__ import annotations

import os
import signal
import socket
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as settings_for_hypothesis
from hypothesis import strategies as st
from test_simulate import journal_content, scratch, seeded_part

from controller.rules.cards import parse_card
from controller.simulation.pacer import Pacer
from controller.simulation.runner import SimulatedTable, SimulationSettings
from controller.simulation.split import DoublesProcessDiedError, SplitTable, served_devices
from controller.simulation.split_link import ObservationFeed, ObservationRelay
from controller.table.prompts import State
from controller.table.view import HandView, TableView, view_from_record
from drivers.hal import (
    Button,
    ButtonPressed,
    CardDrawn,
    DeviceEvent,
    DeviceKind,
    DeviceLost,
    Led,
    LedMode,
)
from drivers.simulated.serve import SERVED

__all__ = ["scratch"]  # the fixture: a journal directory on tmpfs

#: How long a test lets a run take before calling it hung (the runner's own waits are 30 s).
DEADLINE = 120.0


def settings(journal: Path, **changes: Any) -> SimulationSettings:
    return SimulationSettings(**{"rounds": 4, "seed": 3, "journal": journal, **changes})


def test_split_table_plays_the_same_rounds_as_the_in_process_table(scratch: Path) -> None:
    """Same seed, same round script and decisions: the same journal (cards, decisions,
    settlements, faults) apart from timestamps and the hole cards' commitments. PA deals a
    hole card (PA 635a.7(e)), so the reader in the station's process gets it from the
    dealer in the other one every round."""
    in_process = SimulatedTable(settings(scratch / "one.sqlite3")).run()
    split = SplitTable(settings(scratch / "two.sqlite3"))
    result = split.run()
    assert result.rounds == in_process.rounds == 4
    one, two = journal_content(scratch / "one.sqlite3"), journal_content(scratch / "two.sqlite3")
    assert seeded_part(two) == seeded_part(one)
    kinds = [kind for kind, _, _ in two]
    assert kinds.count("round_completed") == 4
    assert "fault" not in kinds
    assert any(kind == "card" for kind in kinds)
    # Each process measured its own share of the work.
    assert split.cpu.station_process > 0 and split.cpu.doubles_process > 0
    assert "station" in split.cpu.station_threads and "pty-shoe" in split.cpu.doubles_threads
    assert "pty-shoe" not in split.cpu.station_threads


def test_split_table_injected_reader_faults_cross_the_process_boundary(scratch: Path) -> None:
    """Faults on the reader (in the station's process) asked for by the dealer (in the
    other): each is raised and resolved, nothing is lost."""
    table = SplitTable(settings(scratch / "faults.sqlite3", rounds=15, seed=7, faults=0.08))
    result = table.run()
    assert result.rounds == 15
    assert result.faults_injected
    kinds = [kind for kind, _, _ in journal_content(scratch / "faults.sqlite3")]
    assert kinds.count("fault") == kinds.count("fault_resolved") > 0


@pytest.mark.parametrize(
    "states",
    [(State.MATCH, State.PLAYERS), (State.PEEKING,), (State.DEALING,)],
    ids=["match-or-players", "peeking", "dealing"],
)
def test_doubles_process_dying_mid_round_gives_the_device_lost_fault(
    scratch: Path, states: tuple[State, ...]
) -> None:
    """Killing the doubles' process mid-round, while the dealer settles Match the Dealer
    or the players act, while the hole card goes to the reader (the station's process
    answers the dealer's reader calls: its answer then meets a closed pipe) or while the
    cards are dealt: the station journals its devices lost and faults in that round,
    no earlier than where the kill saw it (as when a real table loses its USB hub), and
    the run ends with a clear error naming the loss instead of hanging (it once ended
    "the journal could not be written: Broken pipe"). (The dealer may play the players'
    turn out in the Match settlement's look, so the station need not wait in the players'
    state at all in a given round.)"""
    journal = scratch / "killed.sqlite3"
    killed = threading.Event()
    killed_in: list[State] = []
    table: SplitTable

    def kill_in_round_two(event: DeviceEvent, view: TableView | None, idle: bool) -> None:
        mid_round = view is not None and view.round_no >= 2 and view.state in states
        if mid_round and not killed.is_set() and table.doubles_pid is not None:
            assert view is not None
            killed_in.append(view.state)
            killed.set()
            os.kill(table.doubles_pid, signal.SIGKILL)

    table = SplitTable(settings(journal, rounds=50), observer=kill_in_round_two)
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            table.run()
        except BaseException as err:
            outcome.append(err)

    runner = threading.Thread(target=run, name="split-run")
    runner.start()
    runner.join(DEADLINE)
    assert not runner.is_alive(), "the split table hung after its doubles died"
    assert killed.is_set()
    assert len(outcome) == 1 and isinstance(outcome[0], DoublesProcessDiedError)
    assert "exit code -9" in str(outcome[0])
    assert f"lost its {served_devices()} with it" in str(outcome[0])
    # The registry's serial devices, each named as the dealer knows it.
    assert "shuffler, shoe" in served_devices() and "panel board" in served_devices()
    rows = journal_content(journal)
    lost = [d for kind, _, d in rows if kind == "device" and d.get("status") == "lost"]
    assert {d["device"] for d in lost} & set(SERVED)
    faults = [(n, d) for kind, n, d in rows if kind == "fault"]
    device_lost = [(n, d) for n, d in faults if d["code"] == "device_lost"]
    assert device_lost and device_lost[0][0] is not None and device_lost[0][0] >= 2
    # Where the station was when its links dropped: no earlier than where the kill saw
    # it (the dealer may have acted on that view before she died), still in the round.
    in_round = (
        "dealing",
        "match",
        "insurance",
        "peeking",
        "players",
        "settle_now",
        "dealer",
        "settling",
    )
    assert device_lost[0][1]["state"] in in_round[in_round.index(killed_in[0].value) :]


def view_of_round(round_no: int) -> TableView:
    """A public view, told apart by its round number."""
    return TableView(
        state=State.PLAYERS,
        prompt="draw a card or press NEXT",
        round_no=round_no,
        lamps=((Led.DEAL, LedMode.STEADY),),
        seats=(1, 2),
        hands=(HandView(1, 1, ("7S", "5H"), 12, "playing", False),),
        dealer_cards=("9D",),
        hole_face_down=True,
        acting_seat=1,
        acting_hand=1,
        legal=("hit", "stand"),
        card_due=True,
        reveal_due=False,
        reshuffle_pending=False,
        fault=None,
        settling_seat=None,
    )


def test_relay_never_blocks_the_station_while_the_dealer_does_not_read() -> None:
    """With nobody reading the other end (a slow or stopped dealer), every observe call
    returns (the socket fills, the rest waits for the relay's thread); once the dealer
    reads, its pacer gets every event type, in order and counted, and the latest view
    (drop-to-latest), in fewer frames than there were idle events."""
    station_end, dealer_end = socket.socketpair()
    relay = ObservationRelay(station_end)
    events = 20_000
    card, button = CardDrawn(parse_card("7S")), ButtonPressed(Button.NEXT)
    kinds = [card if i % 2 else button for i in range(events)]
    done = threading.Event()

    def station() -> None:
        for i, event in enumerate(kinds):
            relay.observe(event, view_of_round(i), True)
        relay.observe(DeviceLost(DeviceKind.SHOE, "unplugged"), view_of_round(events), True)
        done.set()

    thread = threading.Thread(target=station, name="station")
    thread.start()
    thread.join(DEADLINE)
    assert done.is_set(), "observe blocked while the dealer did not read"
    assert relay.deferred > 0  # the socket did fill up: the dealer really was slow
    assert relay.device_lost.is_set()
    pacer = Pacer()
    pacer.expect(*[type(e) for e in kinds], DeviceLost)  # every one must arrive, in order
    feed = ObservationFeed(dealer_end, pacer)
    try:
        view, seq = pacer.wait(0, timeout=DEADLINE)
        assert seq == events + 1
        assert view == view_of_round(events)
        assert relay.sent < events
    finally:
        relay.close()
        feed.close()


def test_pacer_batches_match_expectations_as_single_events() -> None:
    """``observe_kinds`` counts each type as ``observe`` would, subclasses included."""
    one, batched = Pacer(), Pacer()
    for pacer in (one, batched):
        pacer.expect(CardDrawn, ButtonPressed)
    view = view_of_round(1)
    one.observe(ButtonPressed(Button.NEXT), None, False)
    one.observe(CardDrawn(parse_card("7S")), view, True)
    batched.observe_kinds((ButtonPressed, CardDrawn), view, True)
    assert one.wait(0, timeout=DEADLINE) == batched.wait(0, timeout=DEADLINE) == (view, 2)


class RecordingPacer(Pacer):
    """A pacer that also keeps every batch it is fed (the view decoded here: the pacer
    itself decodes only the one a waiter looks at)."""

    def __init__(self) -> None:
        super().__init__()
        self.fed: list[tuple[tuple[type, ...], TableView | None, bool]] = []

    def observe_record(self, kinds: Any, record: Any, queue_empty: bool) -> None:
        view = None if record is None else view_from_record(record)
        self.fed.append((tuple(kinds), view, queue_empty))
        super().observe_record(kinds, record, queue_empty)


EVENTS = (ButtonPressed(Button.NEXT), CardDrawn(parse_card("7S")), DeviceLost(DeviceKind.SHOE, "x"))


@settings_for_hypothesis(max_examples=25)
@given(st.lists(st.tuples(st.integers(0, 2), st.booleans()), min_size=1, max_size=40))
def test_relay_hands_the_pacer_every_event_in_order_and_each_idle_view(
    script: list[tuple[int, bool]],
) -> None:
    """Whatever the station's sequence of events (idle or not; the last one leaves it
    idle), the dealer's pacer gets every event type once and in order, in batches that
    end where the station was idle, each with the view the station was left in."""
    script = [*script[:-1], (script[-1][0], True)]
    station_end, dealer_end = socket.socketpair()
    relay = ObservationRelay(station_end)
    pacer = RecordingPacer()
    feed = ObservationFeed(dealer_end, pacer)
    try:
        expected_batches = []
        batch: list[type] = []
        for i, (which, idle) in enumerate(script):
            event = EVENTS[which]
            batch.append(type(event))
            view = view_of_round(i) if idle else None
            relay.observe(event, view, idle)
            if idle:
                expected_batches.append((tuple(batch), view, True))
                batch = []
        pacer.expect(*[type(EVENTS[which]) for which, _ in script])
        _view, seq = pacer.wait(0, timeout=DEADLINE)
        assert seq == len(script)
        # Batches may merge when the socket was full, never reorder or lose one.
        kinds = [k for fed, _, _ in pacer.fed for k in fed]
        assert kinds == [type(EVENTS[which]) for which, _ in script]
        assert pacer.fed[-1][1:] == expected_batches[-1][1:]
        if not relay.deferred:  # the socket took every batch at once: none merged
            assert pacer.fed == expected_batches
    finally:
        relay.close()
        feed.close()
