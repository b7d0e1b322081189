"""What a restart must find, worked out from the journal rows the slow, obvious way."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from controller.rules.cards import ALL_CARDS, Card
from controller.table.prompts import State
from controller.table.recovery import JournalledRow, Recovered


def expected_state(rec: Recovered) -> State:
    """The table's state right after the restore, as docs/journal.md says: inside a round -> fault;
    an active fault stays; between rounds the table goes on (a shuffle that was under way
    is commanded again; an empty journal starts from scratch)."""
    if rec.open_round or rec.fault is not None:
        return State.FAULT
    if rec.state is None:
        return State.STARTING  # the first shuffle is commanded once the devices are up
    if rec.state is State.SHUFFLING:
        return State.SHUFFLING
    if rec.state in (State.BETTING, State.LOADING, State.BURNING):
        return rec.state
    raise AssertionError(f"a journal between rounds in {rec.state}")


def shoe_after(
    rows: Sequence[JournalledRow], rec: Recovered, decks: int, rng: random.Random
) -> tuple[list[Card], bool]:
    """What is physically left in the shoe after a restart: the batch less every card
    journalled since the last shuffle (nothing when the shoe was not loaded since), and
    whether the cover card is still in it."""
    since = 0
    for i, row in enumerate(rows):
        if row.kind == "shuffle_commanded":
            since = i
    after = [row.kind for row in rows[since:]]
    if "shoe_loaded" not in after:
        return [], False
    left = Counter({card: decks for card in ALL_CARDS})
    left.subtract({card: rec.drawn[card.text] for card in ALL_CARDS})
    cards = list(left.elements())
    rng.shuffle(cards)
    return cards, "cover_card" not in after


def state_the_rows_say(rows: Sequence[JournalledRow]) -> State:
    """:func:`expected_state` without ``controller.table.recovery``: from the last ``state`` row
    and the round numbers alone (for journals cut between two events)."""
    started = [row.data["round"] for row in rows if row.kind == "round_started"]
    ended = {row.round_no for row in rows if row.kind in ("round_completed", "round_voided")}
    states = [State(row.data["state"]) for row in rows if row.kind == "state"]
    if (started and started[-1] not in ended) or (states and states[-1] is State.FAULT):
        return State.FAULT
    if not states:
        return State.STARTING
    if states[-1] in (State.BETTING, State.LOADING, State.BURNING):
        return states[-1]
    return State.SHUFFLING
