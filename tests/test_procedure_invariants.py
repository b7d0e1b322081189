"""Thousands of seeded random rounds through the procedure, and the hole card's secrecy."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
import structlog
from table_support import ListJournal, make_rig
from test_procedure import full_batch

from controller.rules.cards import parse_card
from controller.rules.profiles import PROFILES, get_profile
from controller.simulation.dealer import random_chooser
from controller.simulation.direct import DirectRig
from controller.table.holecard import check_commitment
from controller.table.machine import ROUND_STATES
from controller.table.procedure import Table
from controller.table.prompts import State
from controller.table.view import table_view
from drivers.hal import (
    Button,
    ButtonPressed,
    CardDrawn,
    DeviceEvent,
    PeekAnswer,
    PeekResult,
    SeatWagerChanged,
    WagerSpot,
)


def _checked(table: Table, seen: list[State]) -> Callable[[DeviceEvent], None]:
    handle = table.handle

    def checked(event: DeviceEvent) -> None:
        handle(event)
        state = table.state
        seen.append(state)
        assert isinstance(state, State)
        if state in ROUND_STATES:
            assert table.play is not None, f"{state} without a round"
            assert not table.play.round.over
        if state is State.FAULT:
            assert table.fault is not None
        else:
            assert table.fault is None

    return checked


@pytest.mark.parametrize("profile", list(PROFILES))
def test_random_rounds_with_faults_keep_a_legal_state_and_account_for_every_card(
    profile: str,
) -> None:
    rng = random.Random(f"procedure-{profile}")
    journal = ListJournal()
    rig = DirectRig(get_profile(profile), 6, journal, random_chooser(rng), rng, fault_rate=0.01)
    seen: list[State] = []
    rig.table.handle = _checked(rig.table, seen)  # type: ignore[method-assign]
    try:
        rig.play(1_000)
    finally:
        rig.close()

    # Every card that left the shoe is in the journal exactly once: burned, placed,
    # rejected, or (the hole card) revealed.
    journalled: Counter[str] = Counter()
    for row in journal.rows:
        if row.kind in ("burn", "card", "hole_card_revealed"):
            journalled[row.data["card"]] += 1
    foreign = {t for t in journalled if "foreign" in t}
    for text in foreign:
        del journalled[text]
    assert journalled == Counter(c.text for c in rig.drawn)

    dealt = journal.of("hole_card_dealt")
    revealed = journal.of("hole_card_revealed")
    assert len(dealt) == len(revealed)
    for commit_row, reveal_row in zip(dealt, revealed, strict=True):
        assert commit_row.round_no == reveal_row.round_no
        assert check_commitment(
            commit_row.data["commitment"], reveal_row.data["card"], reveal_row.data["nonce"]
        )
    assert len(journal.of("round_completed")) + len(journal.of("round_voided")) == 1_000
    assert len(rig.injected) > 20, "the test must actually inject faults"
    assert {State.PLAYERS, State.DEALER, State.SETTLING, State.FAULT} <= set(seen)
    if profile != "NJ":
        assert State.PEEKING in seen


def _round_outputs(hole: str) -> list[Any]:
    """Everything the station emits before the reveal, for a round with ``hole``."""
    rig = make_rig("PA")
    outputs: list[Any] = []
    with structlog.testing.capture_logs() as logs:
        from test_procedure import ready

        ready(rig)
        for seat in (1, 3):
            rig.table.handle(SeatWagerChanged(seat, WagerSpot.MAIN, True, 1000))
        rig.table.handle(ButtonPressed(Button.NEXT))
        for text in ("9H", "8C", "KS", "7D", "9D", hole):
            rig.table.handle(CardDrawn(parse_card(text)))
            outputs.append(table_view(rig.table))
        rig.table.handle(ButtonPressed(Button.NEXT))
        rig.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))  # the reader's yes/no
        rig.table.handle(ButtonPressed(Button.NEXT))  # seat 1 stands
        outputs.append(table_view(rig.table))
        rig.table.handle(ButtonPressed(Button.NEXT))  # seat 3 stands
        outputs.append(table_view(rig.table))
        assert rig.table.state is State.DEALER
    for row in rig.journal.rows:
        data = dict(row.data)
        if row.kind == "hole_card_dealt":
            data["commitment"] = "<random>"  # a hash under a fresh random nonce
        outputs.append((row.kind, data, row.round_no))
    outputs.extend(rig.panel.shown)
    outputs.extend(rig.reader.checks)
    outputs.extend(logs)
    rig.table.close()
    return outputs


def test_nothing_differs_before_the_reveal_when_only_the_hole_card_differs() -> None:
    base = _round_outputs("5C")
    for hole in ("6D", "QH", "2S", "9S"):
        assert _round_outputs(hole) == base
    assert "5C" not in repr(base)


def test_sealed_card_never_shows_itself() -> None:
    from controller.rules.cards import SealedCard

    sealed = SealedCard(parse_card("AS"))
    for text in (repr(sealed), str(sealed), f"{sealed}", f"{sealed!r:>40}"):
        assert "AS" not in text
    with pytest.raises(TypeError):
        __import__("pickle").dumps(sealed)
    assert full_batch(6).card_count == 288
