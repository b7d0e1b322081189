"""One money record (docs/journal.md): a void names per seat which settled amounts stand and which
wagers are returned; a fully settled round cannot be voided; a hole-card mismatch settles
nothing before the void."""

from __future__ import annotations

from table_support import Rig, make_rig
from test_procedure import bet, deal, press, ready, rows, settle_all, supervisor

from controller.table.prompts import State
from drivers.hal import (
    Button,
    DeviceConnected,
    DeviceKind,
    DeviceLost,
    HoleCardDealt,
    PeekAnswer,
    PeekResult,
    SeatWagerChanged,
    WagerSpot,
)


def lose_and_find_the_shoe(rig: Rig) -> None:
    rig.table.handle(DeviceLost(DeviceKind.SHOE, "unplugged"))
    assert rig.table.state is State.FAULT


def test_a_void_after_match_the_dealer_keeps_the_match_and_returns_the_main_wager() -> None:
    """PA 635a.7(f): Match the Dealer is settled after the initial cards. Seat 1 (7H 7D)
    against the up card 7S: two off-suit matches at 4:1 (pay table A, 6 decks) on $5 =
    +$40.00, which stands; the $10 main wager is returned."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, cents=1000, match=500)
    press(rig)
    deal(rig, "7H", "7S", "7D", "5C")  # seat 1, up card, seat 1, hole card
    assert rows(rig, "match_settled") == [
        {
            "seat": 1,
            "wager": "match",
            "outcome": "win",
            "odds": "4:1",
            "net_cents": 4000,
            "matches": 2,
            "note": "2 matching cards",
        }
    ]
    while rig.table.state is State.MATCH:
        press(rig)  # the dealer pays the match
    assert rig.table.state is State.PLAYERS
    lose_and_find_the_shoe(rig)
    supervisor(rig, Button.SUPERVISOR_VOID)
    (void,) = rows(rig, "round_voided")
    assert void["stand"] == [{"seat": 1, "wager": "match", "hand": None, "net_cents": 4000}]
    assert void["returned"] == [{"seat": 1, "wager": "main", "hand": 1, "cents": 1000}]
    assert not rows(rig, "settlement")


def test_a_void_before_any_settlement_returns_every_wager() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, cents=1000, match=500)
    bet(rig, 2, cents=2000)
    press(rig)
    deal(rig, "9H")  # seat 1's first card, then the shoe goes
    lose_and_find_the_shoe(rig)
    supervisor(rig, Button.SUPERVISOR_VOID)
    (void,) = rows(rig, "round_voided")
    assert void["stand"] == []
    assert void["returned"] == [
        {"seat": 1, "wager": "main", "hand": 1, "cents": 1000},
        {"seat": 1, "wager": "match", "hand": None, "cents": 500},
        {"seat": 2, "wager": "main", "hand": 1, "cents": 2000},
    ]


def test_a_void_with_the_hole_card_in_the_shoe_says_so_and_one_the_table_sealed_is_turned() -> None:
    """docs/journal.md: `round_voided` carries `hole_card: "withheld by the shoe: asked for
    at the void"` when the shoe still holds the hole card (nothing of it is revealed at the
    station); a hole card the table sealed itself is turned over (`hole_card_revealed`
    with its card) and the void row has no `hole_card`. Seat 1: 9H 8D against the up 5C."""
    voids = {}
    for withholding in (True, False):
        rig = make_rig("PA", withholding=withholding)
        ready(rig)
        bet(rig, 1)
        press(rig)
        deal(rig, "9H", "5C", "8D")
        if withholding:
            rig.table.handle(HoleCardDealt("ab" * 32))
        else:
            deal(rig, "QS")
        lose_and_find_the_shoe(rig)
        supervisor(rig, Button.SUPERVISOR_VOID)
        (void,) = rows(rig, "round_voided")
        revealed = [r["card"] for r in rows(rig, "hole_card_revealed")]
        voids[withholding] = (void.get("hole_card"), revealed)
    assert voids == {
        True: ("withheld by the shoe: asked for at the void", []),
        False: (None, ["QS"]),
    }


def test_a_void_after_a_double_returns_the_doubled_stake() -> None:
    """PA 635a.7(j)(2): seat 1 (5H 4D, 9) doubles its $10 against the up card 6C and takes
    its one card, 2S; the shoe is lost before the hole card is turned and the round is
    voided: the main wager comes back with its double, $20, and the journal kept the
    decision on hand 1."""
    rig = make_rig("PA", rescue=False)
    ready(rig)
    bet(rig, 1, cents=1000)
    press(rig)
    deal(rig, "5H", "6C", "4D", "QS")
    press(rig, Button.DOUBLE)
    deal(rig, "2S")
    assert rows(rig, "decision") == [{"seat": 1, "hand": 1, "decision": "double"}]
    assert rig.table.state is State.DEALER
    lose_and_find_the_shoe(rig)
    supervisor(rig, Button.SUPERVISOR_VOID)
    (void,) = rows(rig, "round_voided")
    assert void["stand"] == []
    assert void["returned"] == [{"seat": 1, "wager": "main", "hand": 1, "cents": 2000}]


def test_a_void_before_the_peek_returns_the_insurance_with_the_wager() -> None:
    """PA 635a.8: seat 1 insures its $10 for $5 under the up card AS; the card reader is
    lost before it answers the peek, so insurance was never settled: the void returns both
    the $10 main wager and the $5 insurance."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, cents=1000)
    press(rig)
    deal(rig, "9H", "AS", "8D", "KC")  # up card ace: insurance is offered
    rig.table.handle(SeatWagerChanged(1, WagerSpot.INSURANCE, True, 500))
    while rig.table.state is State.INSURANCE:
        press(rig)
    assert rig.table.state is State.PEEKING
    rig.table.handle(DeviceLost(DeviceKind.CARD_READER, "unplugged"))
    assert rig.table.state is State.FAULT
    supervisor(rig, Button.SUPERVISOR_VOID)
    (void,) = rows(rig, "round_voided")
    assert void["stand"] == []
    assert void["returned"] == [
        {"seat": 1, "wager": "main", "hand": 1, "cents": 1000},
        {"seat": 1, "wager": "insurance", "hand": None, "cents": 500},
    ]


def test_a_fully_settled_round_cannot_be_voided_only_resumed() -> None:
    """Seat 1 (9 8 = 17) loses to the dealer (5 Q 3 = 18); the shoe is lost while the dealer
    collects: a void would return a wager already settled, so it is refused."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, cents=1000)
    press(rig)
    deal(rig, "9H", "5C", "8D", "QS")
    press(rig)  # stand
    press(rig)  # reveal: 15
    deal(rig, "3D")  # 18
    assert rig.table.state is State.SETTLING
    assert [s["net_cents"] for s in rows(rig, "settlement")] == [-1000]
    lose_and_find_the_shoe(rig)
    supervisor(rig, Button.SUPERVISOR_VOID)
    supervisor(rig, Button.SUPERVISOR_RESHUFFLE)
    refused = rows(rig, "resolution_refused")
    assert [r["resolution"] for r in refused] == ["void", "reshuffle"]
    assert all("fully settled" in r["reason"] for r in refused)
    assert rig.table.state is State.FAULT and not rows(rig, "round_voided")
    rig.table.handle(DeviceConnected(DeviceKind.SHOE, "S1", "1.0"))
    supervisor(rig, Button.SUPERVISOR_RESUME)
    settle_all(rig)
    assert rows(rig, "seat_result") == [{"seat": 1, "net_cents": -1000}]
    assert len(rows(rig, "round_completed")) == 1 and not rows(rig, "round_voided")


def test_a_hole_card_mismatch_settles_nothing_and_the_void_returns_the_wager() -> None:
    """NJ 13:69F-19.7 / PA: the reader said no blackjack, the hole card makes one: nothing is
    settled on a disputed hand; the void returns the main wager."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, cents=1000)
    press(rig)
    deal(rig, "9H", "KC", "8D", "AS")
    press(rig)
    rig.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))
    press(rig)  # stand
    press(rig)  # reveal: mismatch
    assert not rows(rig, "settlement")
    supervisor(rig, Button.SUPERVISOR_VOID)
    (void,) = rows(rig, "round_voided")
    assert void["stand"] == []
    assert void["returned"] == [{"seat": 1, "wager": "main", "hand": 1, "cents": 1000}]


def test_recall_shows_what_the_void_left() -> None:
    from controller.journal.format import Row, canonical_json
    from controller.journal.recall import rebuild, render_text

    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, cents=1000, match=500)
    press(rig)
    deal(rig, "7H", "7S", "7D", "5C")
    lose_and_find_the_shoe(rig)
    supervisor(rig, Button.SUPERVISOR_VOID)
    stored = [
        Row(n, "2026-11-30T10:00:00.000000Z", r.kind, r.round_no, canonical_json(r.data), "", "")
        for n, r in enumerate(rig.journal.rows, start=1)
    ]
    recalled = rebuild(stored)
    (round_,) = recalled["rounds"]
    assert round_["status"] == "voided"
    assert round_["seats"][0]["net_cents"] == 4000  # the match stands
    text = render_text(recalled)
    assert "void: seat 1 match stands, net +$40.00" in text
    assert "void: seat 1 main hand 1 returned, $10.00" in text


def test_recall_shows_the_insurance_wager_and_its_settlement() -> None:
    """PA 635a.8: insurance pays 2:1 on a dealer blackjack: $5 insured wins $10.00."""
    from controller.journal.format import Row, canonical_json
    from controller.journal.recall import rebuild, render_text

    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, cents=1000)
    press(rig)
    deal(rig, "9H", "AS", "8D", "KC")  # up card ace: insurance is offered
    assert rig.table.state is State.INSURANCE
    rig.table.handle(SeatWagerChanged(1, WagerSpot.INSURANCE, True, 500))
    while rig.table.state is State.INSURANCE:
        press(rig)
    if rig.table.state is State.PEEKING:
        rig.table.handle(PeekResult(PeekAnswer.BLACKJACK))
    stored = [
        Row(n, "2026-11-30T10:00:00.000000Z", r.kind, r.round_no, canonical_json(r.data), "", "")
        for n, r in enumerate(rig.journal.rows, start=1)
    ]
    text = render_text(rebuild(stored))
    assert "insurance $5.00: win, net +$10.00" in text, text
