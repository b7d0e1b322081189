"""A station journal with the rounds the console's tests look at, written by the real table
procedure (``controller.table``) into a real journal file (``controller.journal.store``),
driven with events as the procedure's own tests drive it (``test_procedure``).

:func:`scripted_journal` deals, at an NY table (6 decks), one round of each kind:

1. the super bonus (NY 5324.12(b)(6)(iv), (7)): seat 1's $25 on 7D 7D 7D against the up
   card 7C, paid 2:1 ($50) and the fixed $5,000; seat 2 ($10 on 9S 9H, 18) wins $10 and is
   paid the $50 share; the dealer (7C 5C KS) busts;
2. a split and a double: seat 1's $10 on 8H 8D against 6C splits; hand 1 (8H 3S) doubles
   and draws KS (21), hand 2 (8D 2C) hits 9D (19); the dealer (6C QS KD) busts: +$20, +$10;
3. a surrender: seat 1's $10 on KH 6D against 9C surrenders (-$5); seat 2's $10 on 9H 9C
   (18) stands; the dealer turns 8S (17) and loses to the 18: +$10;
4. a void: seat 1 with $10 and a $5 Match wager, the hole card disagrees with the card
   reader, the supervisor voids: both wagers go back;
5. Match the Dealer and insurance: seat 1's $10 and $5 Match on 7H 7D against 7S (two
   matches at 4:1 with pay table A: +$40), seat 2 on 9H 8C takes $5 insurance under... see
   :func:`_match_round`.

The expected figures of each round are worked by hand in the tests, from these cards.
"""

from __future__ import annotations

from pathlib import Path

from table_support import RecordingPanel, RecordingReader, RecordingShuffler
from test_procedure import bet, deal, full_batch, press, settle_all, supervisor

from controller.journal.store import Journal
from controller.rules.cards import parse_card
from controller.rules.profiles import get_profile
from controller.table.procedure import Table, TableDevices, TableSettings
from controller.table.prompts import State
from drivers.hal import (
    Button,
    CardDrawn,
    DeviceConnected,
    DeviceKind,
    PeekAnswer,
    PeekResult,
    SeatWagerChanged,
    ShoeLoaded,
    WagerSpot,
)


class _Rig:
    """What ``test_procedure``'s helpers need: ``table`` (and nothing else)."""

    def __init__(self, table: Table) -> None:
        self.table = table


def _ready(rig: _Rig) -> None:
    rig.table.begin()
    rig.table.handle(full_batch(6))
    rig.table.handle(ShoeLoaded())
    rig.table.handle(CardDrawn(parse_card("2C")))  # the burn
    assert rig.table.state is State.BETTING, rig.table.state


def _super_bonus_round(rig: _Rig) -> None:
    bet(rig, 1, cents=2500)  # type: ignore[arg-type]
    bet(rig, 2, cents=1000)  # type: ignore[arg-type]
    press(rig)  # type: ignore[arg-type]
    deal(rig, "7D", "9S", "7C", "7D", "9H", "5C")  # type: ignore[arg-type]
    deal(rig, "7D")  # type: ignore[arg-type]  # seat 1 hits: 7-7-7 of diamonds
    press(rig)  # type: ignore[arg-type]  # seat 2 stands on 18
    press(rig)  # type: ignore[arg-type]  # the hole card: 12
    deal(rig, "KS")  # type: ignore[arg-type]  # 22
    settle_all(rig)  # type: ignore[arg-type]


def _clear(rig: _Rig, *seats: int) -> None:
    for seat in seats:
        for spot in WagerSpot:
            rig.table.handle(SeatWagerChanged(seat, spot, False, 0))


def _split_double_round(rig: _Rig) -> None:
    _clear(rig, 1, 2)
    bet(rig, 1, cents=1000)  # type: ignore[arg-type]
    press(rig)  # type: ignore[arg-type]
    deal(rig, "8H", "6C", "8D", "QS")  # type: ignore[arg-type]
    press(rig, Button.SPLIT)  # type: ignore[arg-type]
    deal(rig, "3S")  # type: ignore[arg-type]  # hand 1: 8H 3S
    press(rig, Button.DOUBLE)  # type: ignore[arg-type]
    deal(rig, "KS")  # type: ignore[arg-type]  # hand 1: 21 on a double
    deal(rig, "2C")  # type: ignore[arg-type]  # hand 2: 8D 2C
    deal(rig, "9D")  # type: ignore[arg-type]  # a hit: 19
    press(rig)  # type: ignore[arg-type]  # stand
    press(rig)  # type: ignore[arg-type]  # the hole card: 16
    deal(rig, "KD")  # type: ignore[arg-type]  # 26
    settle_all(rig)  # type: ignore[arg-type]


def _surrender_round(rig: _Rig) -> None:
    _clear(rig, 1, 2)
    bet(rig, 1, cents=1000)  # type: ignore[arg-type]
    bet(rig, 2, cents=1000)  # type: ignore[arg-type]
    press(rig)  # type: ignore[arg-type]
    deal(rig, "KH", "9H", "9C", "6D", "9C", "8S")  # type: ignore[arg-type]
    press(rig, Button.SURRENDER)  # type: ignore[arg-type]
    press(rig)  # type: ignore[arg-type]  # the dealer collects half the wager at once
    press(rig)  # type: ignore[arg-type]  # seat 2 stands on 18
    press(rig)  # type: ignore[arg-type]  # the hole card: 17
    settle_all(rig)  # type: ignore[arg-type]


def _void_round(rig: _Rig) -> None:
    _clear(rig, 1, 2)
    bet(rig, 1, cents=1000, match=500)  # type: ignore[arg-type]
    press(rig)  # type: ignore[arg-type]
    deal(rig, "9H", "KC", "8D", "AS")  # type: ignore[arg-type]  # the hole card makes 21...
    while rig.table.state is State.MATCH:
        press(rig)  # type: ignore[arg-type]  # the dealer collects the Match wager
    rig.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))  # ...the reader says no
    press(rig)  # type: ignore[arg-type]  # seat 1 stands on 17
    press(rig)  # type: ignore[arg-type]  # the hole card is turned: a mismatch, a fault
    assert rig.table.state is State.FAULT, rig.table.state
    supervisor(rig, Button.SUPERVISOR_VOID)  # type: ignore[arg-type]


def _match_insurance_round(rig: _Rig) -> None:
    _clear(rig, 1, 2)
    bet(rig, 1, cents=1000, match=500)  # type: ignore[arg-type]
    bet(rig, 2, cents=1000)  # type: ignore[arg-type]
    press(rig)  # type: ignore[arg-type]
    deal(rig, "AH", "9H", "AS", "AD", "8C", "5C")  # type: ignore[arg-type]
    while rig.table.state is State.MATCH:
        press(rig)  # type: ignore[arg-type]  # the dealer pays the Match wager
    rig.table.handle(SeatWagerChanged(2, WagerSpot.INSURANCE, True, 500))
    while rig.table.state is State.INSURANCE:
        press(rig)  # type: ignore[arg-type]
    rig.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))
    while rig.table.state is State.SETTLE_NOW:
        press(rig)  # type: ignore[arg-type]  # the insurance is collected
    press(rig)  # type: ignore[arg-type]  # seat 1 stands on soft 12
    press(rig)  # type: ignore[arg-type]  # seat 2 stands on 17
    press(rig)  # type: ignore[arg-type]  # the hole card: soft 16
    deal(rig, "2C")  # type: ignore[arg-type]  # soft 18
    settle_all(rig)  # type: ignore[arg-type]


def scripted_journal(path: Path, table_id: str = "T21", sealing: Path | None = None) -> Path:
    """Write the journal described in the module docstring (sealed as it goes with the
    sealing state file ``sealing``, as ``journal setup-keys`` makes it); returns ``path``."""
    journal = Journal.open(path, sealing=sealing)
    panel = RecordingPanel()
    table = Table(
        TableSettings(get_profile("NY"), 6),
        TableDevices(RecordingShuffler(), panel, RecordingReader()),
        journal,
    )
    rig = _Rig(table)
    try:
        journal.append(
            "station_started",
            {"version": "test", "table_id": table_id, "profile": "NY", "decks": 6,
             "sealed": False, "limits": None},
        )  # fmt: skip
        for device, serial in (("shoe", "SHOE-7"), ("card_reader", "READ-7")):
            table.handle(DeviceConnected(DeviceKind(device), serial, "fw-1.2"))
        _ready(rig)
        _super_bonus_round(rig)
        assert table.state is State.BETTING, table.state
        _split_double_round(rig)
        assert table.state is State.BETTING, table.state
        _surrender_round(rig)
        assert table.state is State.BETTING, table.state
        _void_round(rig)
        assert table.state is State.BETTING, table.state
        _match_insurance_round(rig)
        assert table.state is State.BETTING, table.state
    finally:
        journal.close()
    return path
