"""The table view as plain data (the daemon's debug log): it round-trips, is JSON, and never
carries the hole card before the reveal."""

from __future__ import annotations

import json
import random

from table_support import ListJournal

from controller.rules.profiles import get_profile
from controller.simulation.dealer import random_chooser
from controller.simulation.direct import DirectRig
from controller.table.prompts import State
from controller.table.view import table_view, view_from_record, view_record


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
