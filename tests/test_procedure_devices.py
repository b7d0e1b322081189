"""The procedure against what the shuffler and the shoe report out of the ordinary: a NEXT
while the shuffler works, a load nobody shuffled for, the shoe running out, the cover card
before the shoe's first round (PA 635a.7(c),(d), NJ 19.7(c),(j)). Driven with events
directly (tests/table_support.py), each case beside the one the rule allows."""

from __future__ import annotations

import pytest
from table_support import ListJournal, RecordingPanel, RecordingReader, make_rig
from test_procedure import bet, deal, full_batch, play_seat_one_round, press, ready, rows

from controller.rules.profiles import PENNSYLVANIA
from controller.table.faults import FaultCode
from controller.table.procedure import Table, TableDevices, TableSettings
from controller.table.prompts import State
from drivers.hal import (
    Button,
    ButtonPressed,
    CoverCardSeen,
    DeviceEvent,
    ShoeEmpty,
    ShoeLoaded,
)


def test_next_while_the_shuffler_works_is_ignored_and_a_hand_shuffle_is_pressed_through() -> None:
    # With an automatic shuffler its batch report ends the shuffle (its count is checked);
    # without one the dealer shuffles by hand and presses NEXT when done.
    rig = make_rig("PA")
    rig.table.begin()
    assert rig.table.state is State.SHUFFLING
    press(rig)
    assert rig.table.state is State.SHUFFLING
    assert rows(rig, "button_ignored")[-1]["reason"] == "the shuffler reports when it is done"
    assert rows(rig, "hand_shuffle_done") == []
    rig.table.handle(full_batch(6))
    assert rig.table.state is State.LOADING

    journal = ListJournal()
    by_hand = Table(
        TableSettings(PENNSYLVANIA, 6),
        TableDevices(None, RecordingPanel(), RecordingReader()),
        journal,
    )
    by_hand.begin()
    assert by_hand.state is State.SHUFFLING
    by_hand.handle(ButtonPressed(Button.NEXT))
    assert by_hand.state is State.LOADING
    assert [r.data for r in journal.of("hand_shuffle_done")] == [{"decks": 6}]


def test_the_shoe_running_out_in_a_round_faults_and_between_rounds_asks_for_a_reshuffle() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    play_seat_one_round(rig)
    assert rig.table.state is State.BETTING and not rig.table.reshuffle_pending
    rig.table.handle(ShoeEmpty())  # between rounds: nothing is owed a card
    assert rig.table.state is State.BETTING and rig.table.reshuffle_pending

    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H")  # seat 1's first card, then the shoe is empty
    rig.table.handle(ShoeEmpty())
    assert rig.table.state is State.FAULT
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.SHOE_EMPTY
    assert rig.table.reshuffle_pending


def test_a_shoe_loaded_without_a_shuffle_faults_but_not_over_a_fault_already_raised() -> None:
    rig = make_rig("PA")
    ready(rig)
    rig.table.handle(ShoeLoaded())  # in the betting state: no batch was shuffled for it
    assert rig.table.state is State.FAULT
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.UNEXPECTED_CARD
    assert "loaded without a shuffle" in rig.table.fault.message

    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H")
    rig.table.handle(ShoeEmpty())
    rig.table.handle(ShoeLoaded())  # the dealer refills the shoe while the fault stands
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.SHOE_EMPTY


@pytest.mark.parametrize(
    ("events", "state"),
    [
        ((), State.SHUFFLING),
        ((full_batch(6),), State.LOADING),
        ((full_batch(6), ShoeLoaded()), State.BURNING),  # the first burn, after the load
    ],
)
def test_the_cover_card_before_the_shoes_first_round_is_a_fault(
    events: tuple[DeviceEvent, ...], state: State
) -> None:
    # PA 635a.7(d): the cover card goes deep in the shoe; out before the first round (while
    # shuffling, loading, or as the burn card after the load), the shoe was loaded wrong.
    rig = make_rig("PA")
    rig.table.begin()
    for event in events:
        rig.table.handle(event)
    assert rig.table.state is state
    rig.table.handle(CoverCardSeen())
    assert rig.table.fault is not None
    assert rig.table.fault.code is FaultCode.UNEXPECTED_COVER_CARD


def test_the_cover_card_after_the_first_burn_is_an_ordinary_one() -> None:
    rig = make_rig("PA")
    ready(rig)  # the round after it is the shoe's last
    rig.table.handle(CoverCardSeen())
    assert rig.table.state is State.BETTING and rig.table.reshuffle_pending
