"""The simulated dealer (``controller.simulation.dealer``): what it does at the table."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest
from table_support import ListJournal
from test_simulate import journal_content, scratch, seeded_part

from controller.rules.profiles import PROFILES, get_profile
from controller.simulation.dealer import (
    Action,
    Press,
    SimulatedDealer,
    TurnKey,
    random_chooser,
)
from controller.simulation.direct import DirectRig
from controller.simulation.runner import SimulatedTable, SimulationSettings
from controller.simulation.split_doubles import ServedSide
from controller.simulation.table_side import RigSide, TableSide
from controller.table.prompts import State
from controller.table.view import TableView
from drivers.hal import Button, DeviceEvent, SeatWagerChanged, WagerSpot

__all__ = ["scratch"]  # the fixture: a journal directory on tmpfs

UNSEEDED = ("commitment", "nonce")  # the table seals its hole cards with fresh nonces


class LookingUpDealer(SimulatedDealer):
    """The dealer as it was: one settlement, one NEXT, then a look at the panel."""

    def act(self, view: TableView) -> list[Action]:
        if view.state in (State.MATCH, State.SETTLE_NOW, State.SETTLING):
            self.wagers_placed = False
            self._insured = False
            return [*self._settle(view, view.settling), Press(Button.NEXT)]
        return super().act(view)


def played(profile: str, seed: int, dealer: type[SimulatedDealer]) -> tuple[list[Any], int]:
    """A seeded run's journal (without the hole cards' nonces) and how often the dealer
    looked at the table."""
    rng = random.Random(seed)
    journal = ListJournal()
    rig = DirectRig(get_profile(profile), 6, journal, random_chooser(rng), rng)
    rig.dealer = dealer(
        rig.seats, rig.chooser, rng, dealer_change_every=7, match_offered=rig.dealer.match_offered
    )
    looks = 0
    act = rig.dealer.act

    def counted(view: TableView) -> list[Action]:
        nonlocal looks
        looks += 1
        return act(view)

    rig.dealer.act = counted  # type: ignore[method-assign]
    try:
        rig.play(12)
    finally:
        rig.close()
    rows = [
        (r.kind, r.round_no, {k: v for k, v in r.data.items() if k not in UNSEEDED})
        for r in journal.rows
    ]
    return rows, looks


@pytest.mark.parametrize("profile", list(PROFILES))
def test_settling_a_whole_queue_in_one_look_journals_what_a_look_per_settlement_does(
    profile: str,
) -> None:
    """PA 635a.7(i)-(n) fix the settlement order; the panel prompts it seat after seat. A
    dealer who settles the whole queue from the layout and presses NEXT after each (one
    link: each NEXT reaches the station after the chips before it) leaves the journal a
    dealer who looks up after each settlement leaves, row for row, with fewer looks."""
    batched, batched_looks = played(profile, 5, SimulatedDealer)
    looking, looking_looks = played(profile, 5, LookingUpDealer)
    assert batched == looking
    kinds = [kind for kind, _, _ in batched]
    assert kinds.count("round_completed") == 12
    assert kinds.count("settlement") >= 12  # seats were settled
    assert batched_looks < looking_looks


def test_a_wager_sensor_reports_only_a_change() -> None:
    """A sensor reports chips put down or taken off, not chips left where they were: the
    dealer leaves a spot alone when it already holds what the player bets (a wager let
    ride, an empty Match spot left empty) and reports every real change."""
    rng = random.Random(8)
    rig = DirectRig(get_profile("PA"), 6, ListJournal(), random_chooser(rng), rng)
    on_spot: dict[tuple[int, WagerSpot], int | None] = {}
    changes = repeats = 0
    handle = rig.table.handle

    def watched(event: DeviceEvent) -> None:
        nonlocal changes, repeats
        if isinstance(event, SeatWagerChanged):
            key = (event.seat, event.spot)
            reading = event.cents if event.present else None
            if key in on_spot and on_spot[key] == reading:
                repeats += 1
            changes += 1
            on_spot[key] = reading
        handle(event)

    rig.table.handle = watched  # type: ignore[method-assign]
    try:
        rig.play(30)
    finally:
        rig.close()
    assert repeats == 0
    assert changes >= 30 * 7  # the chips still move: bets, payouts, collections


def test_bets_taken_with_the_last_settlement_journal_what_a_betting_look_does(
    scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dealer's loop takes the next round's bets in the final settlement's look when
    no reshuffle is due; the station, betting once it has the last NEXT, journals the
    same rows as when the dealer looked at the betting table first (30 rounds: dealer
    changes every 25 and reshuffles included), with a look fewer a round. With the NEXT
    that closes the bets delivered, she deals the round's initial cards in that look too
    (PA 635a.7(e)), except where a new dealer burns a card first (635a.7(c))."""
    dealt = []  # the looks at a table dealing its initial cards

    def on_view(view: TableView) -> None:
        if view.state is State.DEALING:
            dealt.append(view)

    plain = SimulatedTable(
        SimulationSettings(rounds=30, seed=4, journal=scratch / "a.sqlite3"), on_view=on_view
    )
    folded = plain.run()
    dealt_folded = len(dealt)
    monkeypatch.setattr(SimulatedDealer, "bets", lambda self: [])
    looking = SimulatedTable(
        SimulationSettings(rounds=30, seed=4, journal=scratch / "b.sqlite3"), on_view=on_view
    )
    looked = looking.run()
    one, two = journal_content(scratch / "a.sqlite3"), journal_content(scratch / "b.sqlite3")
    assert seeded_part(one) == seeded_part(two)
    kinds = [kind for kind, _, _ in one]
    assert kinds.count("round_completed") == 30
    assert "dealer_change" in kinds and kinds.count("shuffle_commanded") >= 2
    assert looked.looks - folded.looks >= 50  # about two a round (not after a reshuffle)
    # A look at the deal only after a reshuffle, a dealer change or the first bets.
    assert len(dealt) - dealt_folded == 30
    assert dealt_folded <= 1 + kinds.count("shuffle_commanded") + kinds.count("dealer_change")


def test_every_table_side_has_every_hand_the_dealing_loop_uses() -> None:
    """The in-process rig's, the split table's and the boot test's table sides all do
    what :class:`TableSide` names (the dealing loop calls each; a missing one fails only
    in the run that needs it, such as the VM boot test)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vm_tests"))
    try:
        from remote_table import RemoteSide
    finally:
        sys.path.pop(0)
    hands = {n for n, v in vars(TableSide).items() if callable(v) and not n.startswith("_")}
    assert {"draw", "press", "place_wager", "holding", "deliver"} <= hands
    for side in (RigSide, ServedSide, RemoteSide):
        assert hands <= {n for n in dir(side) if callable(getattr(side, n))}, side.__name__


def test_the_simulated_players_wager_on_match_the_dealer_only_where_it_is_offered() -> None:
    """A profile without Match the Dealer (a licensee's PA table that does not offer it):
    the simulated players leave the Match spot alone."""
    for offered in (True, False):
        rng = random.Random(4)
        journal = ListJournal()
        profile = get_profile("PA").with_options(match_the_dealer=offered)
        rig = DirectRig(profile, 6, journal, random_chooser(rng), rng)
        try:
            rig.play(8)
        finally:
            rig.close()
        kinds = journal.kinds()
        assert ("match_settled" in kinds) is offered
        assert "wager_refused" not in kinds


def fault_view(fault: str) -> TableView:
    """A table stopped by ``fault`` (what the supervisor sees on the panel)."""
    return TableView(
        state=State.FAULT,
        prompt=f"fault: {fault}",
        round_no=3,
        lamps=(),
        seats=(1,),
        hands=(),
        dealer_cards=(),
        hole_face_down=False,
        acting_seat=None,
        acting_hand=None,
        legal=(),
        card_due=False,
        reveal_due=False,
        reshuffle_pending=False,
        fault=fault,
        settling_seat=None,
    )


def resolutions(dealer: SimulatedDealer, *views: TableView) -> list[Button]:
    """The button the supervisor presses at each look, the key turned on and off round it."""
    pressed = []
    for view in views:
        actions = dealer.act(view)
        assert actions[0] == TurnKey(True) and actions[2] == TurnKey(False), actions
        assert isinstance(actions[1], Press)
        pressed.append(actions[1].button)
    return pressed


def test_a_refused_resume_of_a_card_fault_is_followed_by_a_void_not_repeated_for_ever() -> None:
    """A card out of order during a restart's fault keeps the round the restart could not
    rebuild, so the table refuses a resume (only a void ends it): the fault still shown
    after the resume is that refusal, and the supervisor voids; a void refused in turn (a
    fully settled round) is followed by a resume. Once the table has left the fault, the
    next card fault starts from a resume again. A lost device is only ever resumed: the
    table refuses until it is back, and a round is not voided for a slow cable."""
    dealer = SimulatedDealer((1,), random_chooser(random.Random(1)), random.Random(1))
    card = fault_view("unexpected_card: a hole card was dealt while betting")
    resume, void = Button.SUPERVISOR_RESUME, Button.SUPERVISOR_VOID
    assert resolutions(dealer, card, card, card) == [resume, void, resume]
    dealer.fault_over()
    assert resolutions(dealer, card) == [resume]
    dealer.fault_over()
    lost = fault_view("device_lost: shoe: unplugged")
    assert resolutions(dealer, lost, lost, lost) == [resume] * 3
