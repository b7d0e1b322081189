"""The table view as plain data (the daemon's debug log): it round-trips, is JSON, and never
carries the hole card before the reveal."""

from __future__ import annotations

import json
import random

from table_support import ListJournal, make_rig
from test_procedure import bet, deal, press, ready

from controller.rules.profiles import get_profile
from controller.simulation.dealer import random_chooser
from controller.simulation.direct import DirectRig
from controller.table.prompts import State
from controller.table.view import table_view, view_from_record, view_record
from drivers.hal import Button


def test_every_view_of_many_rounds_round_trips_through_json_without_the_hole_card() -> None:
    rng = random.Random("view-record")
    rig = DirectRig(get_profile("PA"), 6, ListJournal(), random_chooser(rng), rng)
    seen: set[State] = set()
    checked = 0
    try:
        for rounds in range(1, 40):
            rig.play(rounds)
            view = table_view(rig.table)
            record = json.loads(json.dumps(view_record(view)))
            assert view_from_record(record) == view
            seen.add(view.state)
            checked += 1
        # Mid-round views too: the dealer's own loop hands them out one by one.
        table = rig.table
        for _ in range(400):
            if rig.events:
                table.handle(rig.events.popleft())
            view = table_view(table)
            record = view_record(view)
            assert view_from_record(json.loads(json.dumps(record))) == view
            seen.add(view.state)
            if view.hole_face_down:
                # PA deals the hole card face down: only the up card is on record.
                assert len(record["dealer_cards"]) == 1
            for action in rig.dealer.act(view):
                rig._perform(action)
    finally:
        rig.close()
    assert checked and {State.BETTING, State.PLAYERS} <= seen


def test_a_settlement_view_lists_every_settlement_due_in_the_order_the_panel_prompts() -> None:
    """The panel prompts one settlement at a time (``settling``); ``settlements`` holds it
    first and then the ones still due, so each NEXT the station handles drops exactly the
    first, in the order the views promised, until the state moves on."""
    rng = random.Random("settlements")
    rig = DirectRig(get_profile("PA"), 6, ListJournal(), random_chooser(rng), rng)
    table = rig.table
    promised: tuple[object, ...] = ()
    promised_in = State.STARTING
    shrunk_from = 0
    try:
        table.begin()
        for _ in range(20_000):
            if rig.events:
                table.handle(rig.events.popleft())
                view = table_view(table)
                if view.state is not promised_in:
                    promised = ()  # a new settlement state: a new queue (its look comes)
                if view.settlements and promised:
                    # Still settling what was promised: only its tail is left, in order.
                    assert view.settlements == promised[len(promised) - len(view.settlements) :]
                    assert view.settling == view.settlements[0]
                    if len(view.settlements) == 1:
                        shrunk_from = max(shrunk_from, len(promised))
                continue
            view = table_view(table)
            if view.state in (State.MATCH, State.SETTLING, State.SETTLE_NOW):
                assert view.settlements and view.settling == view.settlements[0]
                assert len({s.index for s in view.settlements}) == len(view.settlements)
                promised, promised_in = view.settlements, view.state
            else:
                assert view.settlements == () and view.settling is None
            for action in rig.dealer.act(view):
                rig._perform(action)
    finally:
        rig.close()
    assert shrunk_from >= 3  # a queue of three or more was settled down to its last


def test_a_snapshot_shows_each_hand_as_it_lies_now_however_seldom_it_is_taken() -> None:
    """The snapshot keeps each hand's view between snapshots; it must still show
    every hand as the round holds it, also when snapshots are skipped across several events
    (a split hand back at two cards with a new second card, a double, a surrender)."""
    rng = random.Random("view-cache")
    rig = DirectRig(get_profile("PA"), 6, ListJournal(), random_chooser(rng), rng)
    table = rig.table
    compared = split_hands = 0
    try:
        table.begin()
        for _ in range(6000):
            if rig.events:
                table.handle(rig.events.popleft())
                if rng.random() < 0.6:
                    continue  # no snapshot after this event: as under group commit
            view = table_view(table)
            play = table.play
            if play is not None:
                expected = [
                    (seat, h.index + 1, tuple(c.text for c in h.cards), h.total, h.status.value)
                    for seat in play.round.seats
                    for h in play.round.hands[seat]
                ]
                shown = [(h.seat, h.hand, h.cards, h.total, h.status) for h in view.hands]
                assert shown == expected
                compared += 1
                split_hands += sum(1 for h in view.hands if h.hand > 1)
            if not rig.events:
                for action in rig.dealer.act(view):
                    rig._perform(action)
    finally:
        rig.close()
    assert compared > 1000 and split_hands > 0


def test_a_split_hand_shows_its_new_second_card_without_a_snapshot_between() -> None:
    """Hand-worked: seat 1 holds 8H 8D against a 5C up card; a snapshot is taken; SPLIT and
    the split hand's next card (3S) come before the next snapshot. The first hand then
    holds 8H 3S (11, two cards as before the split), the second 8D alone."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "8H", "5C", "8D", "QS")
    assert rig.table.state is State.PLAYERS
    before = table_view(rig.table)
    assert [(h.hand, h.cards, h.total) for h in before.hands] == [(1, ("8H", "8D"), 16)]
    press(rig, Button.SPLIT)
    deal(rig, "3S")
    after = table_view(rig.table)
    assert [(h.hand, h.cards, h.total) for h in after.hands] == [
        (1, ("8H", "3S"), 11),
        (2, ("8D",), 8),
    ]
