"""The procedure's machine is driven by typed calls: each trigger of ``TRANSITIONS`` is a
method ``Triggers`` declares (and nothing else is), the table's state is the machine's
model, and the parts of the table call triggers, never a name in a string."""

from __future__ import annotations

import ast
import inspect
import logging
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from transitions import MachineError

import controller.table.machine as machine_module
from controller.rules.profiles import get_profile
from controller.table.machine import (
    TRANSITIONS,
    TableDevices,
    TableSettings,
    Triggers,
    _resumes_to,
    shared_machine,
)
from controller.table.prompts import State
from controller.table.state import TablePart, TableState
from drivers.hal import DeviceKind

TABLE = Path(__file__).resolve().parents[1] / "controller" / "table"


class NoPanel:
    def show(self, lamps: Any) -> None:
        pass


class NoJournal:
    def append(self, kind: str, data: Any, round_no: int | None = None) -> int:
        return 0


def new_state() -> TableState:
    settings = TableSettings(get_profile("PA"), 6)
    return TableState(settings, TableDevices(None, NoPanel()), NoJournal(), lambda: "00")  # type: ignore[arg-type]


def declared() -> set[str]:
    return {
        name
        for name, member in vars(Triggers).items()
        # "__mutmut": a mutation run's copies of a mutated method (docs/testing.md) are
        # no triggers.
        if inspect.isfunction(member) and not name.startswith("_") and "__mutmut" not in name
    }


def test_each_trigger_is_declared_and_each_declaration_is_a_trigger() -> None:
    assert {t["trigger"] for t in TRANSITIONS} == declared()


def test_a_trigger_of_a_state_outside_the_machine_is_refused() -> None:
    with pytest.raises(RuntimeError) as raised:
        new_state().start()
    assert str(raised.value) == "a trigger of a table not added to the shared machine"


#: The moves the machine may make, worked from TRANSITIONS: (trigger, source) -> dest,
#: with a resume keyed by where it goes.
def moves() -> dict[tuple[str, State], State]:
    found: dict[tuple[str, State], State] = {}
    for t in TRANSITIONS:
        sources = t["source"] if isinstance(t["source"], list) else [t["source"]]
        name = t["trigger"] if t["trigger"] != "resume" else f"resume:{t['dest'].value}"
        for source in sources:
            found[name, source] = t["dest"]
    return found


_NAMES = sorted(declared() - {"resume"}) + [
    f"resume:{s.value}" for s in State if s not in (State.STARTING, State.FAULT)
]


@given(st.lists(st.sampled_from(_NAMES), max_size=40))
def test_the_typed_triggers_move_the_state_as_the_transitions_say(names: list[str]) -> None:
    machine, table = shared_machine(), moves()
    t = new_state()
    entered: list[State] = []
    t.entered = lambda: entered.append(t.state)
    machine.add_model(t)
    try:
        for name in names:
            before = t.state
            trigger, _, to = name.partition(":")
            call = partial(t.resume, to=State(to)) if to else getattr(t, trigger)
            expected = table.get((name, before))
            if expected is None:
                with pytest.raises(MachineError):
                    call()
                assert t.state is before
            else:
                assert call() is True
                assert t.state is expected
                assert entered[-1] is expected
    finally:
        machine.remove_model(t)


def test_a_resume_goes_to_the_state_it_names_and_no_other() -> None:
    machine = shared_machine()
    for target in State:
        if target in (State.STARTING, State.FAULT):
            continue
        t = new_state()
        machine.add_model(t)
        try:
            machine.set_state(State.FAULT, model=t)
            t.resume(to=target)
            assert t.state is target
        finally:
            machine.remove_model(t)


@pytest.mark.parametrize(
    "module",
    ["procedure.py", "supervision.py", "hole_steps.py", "shoe_steps.py", "state.py", "machine.py"],
)
def test_the_table_fires_no_trigger_by_name(module: str) -> None:
    """No ``getattr``, ``trigger("...")`` or ``_fire``: each move is a call mypy checks."""
    tree = ast.parse((TABLE / module).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            assert name not in ("getattr", "trigger", "_fire"), f"{module}:{node.lineno}"


def test_the_parts_are_handed_the_state_not_a_base_class() -> None:
    """The hole-card steps and the supervision are parts of the table, not its bases."""
    from controller.table.hole_steps import HoleCardSteps
    from controller.table.procedure import Table
    from controller.table.shoe_steps import ShoeSteps
    from controller.table.supervision import Supervision

    for part in (Table, Supervision):
        assert part.__mro__ == (part, object)
    for steps in (HoleCardSteps, ShoeSteps):
        assert steps.__mro__ == (steps, TablePart, object)  # its collaborators, no state
    for part in (TablePart, Supervision):
        assert "t" in inspect.signature(part.__init__).parameters
    modules = ("procedure.py", "hole_steps.py", "shoe_steps.py", "supervision.py")
    assert "NotImplementedError" not in "".join(
        (TABLE / m).read_text(encoding="utf-8") for m in modules
    )


def test_adding_a_table_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    """The station's log carries stdlib logging: a table made at a start writes no line
    there (transitions' notes on the conveniences the typed triggers decline included)."""
    with caplog.at_level(logging.DEBUG):
        shared_machine().add_model(new_state())
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_the_shared_machine_built_afresh_moves_a_table_as_the_procedure_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``shared_machine`` builds the machine on first use (a test process has built it long
    before): built again here, it is built once, has exactly the declared triggers (no
    ``to_<state>`` jumps), starts a table in ``starting``, binds the typed triggers, calls
    the table's ``entered`` after each move and refuses a move ``TRANSITIONS`` lacks."""
    monkeypatch.setattr(machine_module, "_MACHINE", None)
    built = shared_machine()
    assert shared_machine() is built
    assert set(built.events) == declared()
    t = new_state()
    entered: list[State] = []
    t.entered = lambda: entered.append(t.state)
    built.add_model(t)
    try:
        assert t.state is State.STARTING
        assert t.start() is True
        assert (t.state, entered) == (State.SHUFFLING, [State.SHUFFLING])
        with pytest.raises(MachineError):
            t.bets_closed()
        assert t.fail() is True and t.resume(to=State.SHUFFLING) is True
        assert entered == [State.SHUFFLING, State.FAULT, State.SHUFFLING]
    finally:
        built.remove_model(t)


def test_a_resume_condition_holds_for_its_own_target_only() -> None:
    """The condition behind each ``resume`` transition (built once, with the machine):
    true for the state it resumes to, false for any other (a supervisor's resume returns
    to where the fault stopped play, nowhere else)."""
    for target in State:
        condition = _resumes_to(target)
        assert [s for s in State if condition(to=s)] == [target]


def test_the_procedures_devices_are_taken_by_kind() -> None:
    """``TableDevices.of``: the shuffler, panel, card reader and shoe, each the driver of its
    kind; a station without a shuffler, reader or shoe (hand shuffle, no peek device, a
    shoe that withholds nothing) has None for it; a station without a panel cannot run."""
    shuffler, panel, reader, shoe = object(), object(), object(), object()
    every = {
        DeviceKind.SHUFFLER: shuffler,
        DeviceKind.PANEL: panel,
        DeviceKind.CARD_READER: reader,
        DeviceKind.SHOE: shoe,
    }
    found = TableDevices.of(every)  # type: ignore[arg-type]
    assert (found.shuffler, found.panel, found.reader, found.shoe) == (
        shuffler,
        panel,
        reader,
        shoe,
    )
    alone = TableDevices.of({DeviceKind.PANEL: panel})  # type: ignore[dict-item]
    assert (alone.shuffler, alone.panel, alone.reader, alone.shoe) == (None, panel, None, None)
    with pytest.raises(KeyError):
        TableDevices.of({DeviceKind.SHUFFLER: shuffler})  # type: ignore[dict-item]


# --- what a table knows before it starts, and which round its rows belong to ----------------


def test_a_table_just_made_has_no_fault_no_lamps_and_no_reshuffle_due() -> None:
    """Before the first shuffle is commanded (the station reads the journal, then starts
    the devices): its status line and its view report a starting table, nothing more."""
    from table_support import make_rig

    from controller.table.view import table_view

    rig = make_rig("PA")
    assert rig.table.fault is None and rig.table.reshuffle_pending is False
    view = table_view(rig.table)
    assert view.state is State.STARTING and view.lamps == () and view.fault is None
    assert view.reshuffle_pending is False


def test_rows_of_a_round_carry_its_number_and_rows_between_rounds_none() -> None:
    """The journal files each row under its round (docs/journal.md: a round's rows are
    recalled and verified together): the shuffle, the burn and the bets before the first
    round, and the rows after it is over, belong to no round; every row from
    ``round_started`` to ``round_completed`` belongs to round 1."""
    from table_support import make_rig
    from test_procedure import bet, deal, press, ready

    rig = make_rig("PA")
    ready(rig)
    assert {r.round_no for r in rig.journal.rows} == {None}
    bet(rig, 1)
    betting = len(rig.journal.rows)
    press(rig)
    deal(rig, "9H", "5C", "8D", "QS")  # seat 1: 9 8; up 5; hole Q
    press(rig)  # stand
    press(rig)  # reveal: 15 draws
    deal(rig, "KD")
    while rig.table.state is State.SETTLING:
        press(rig)
    assert rig.table.state is State.BETTING
    numbers = [r.round_no for r in rig.journal.rows[betting:]]
    first, last = numbers.index(1), len(numbers) - 1 - numbers[::-1].index(1)
    assert set(numbers[:first]) == {None} and set(numbers[first : last + 1]) == {1}
    assert numbers[last + 1 :] and set(numbers[last + 1 :]) == {None}
    kinds = [r.kind for r in rig.journal.rows[betting:]]
    assert (kinds[first], kinds[last]) == ("round_started", "round_completed")
    assert {"card", "hole_card_dealt", "settlement"} <= set(kinds[first:last])
