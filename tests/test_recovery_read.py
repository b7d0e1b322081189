"""What a restart reads from the journal (``controller.table.recovery.read_journal``), on
journals written out by hand row by row, as docs/journal.md declares each row.

Each test states one thing "Resuming after a stop or a crash" (docs/journal.md) says the
restore keeps: the last round number and the open round's rows, the cards drawn since the
last shuffle, whether a reshuffle is due, the last burn card and why the next one is
burned, the last report of each wager spot, the hole cards of voided rounds the shoe still
holds, and the fault active at the end with its resume point. These run in milliseconds;
``tests/test_recovery.py`` restores whole tables from a cut at every row of seeded runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from table_support import JournalRow

from controller.table.faults import Fault, FaultCode
from controller.table.prompts import State
from controller.table.recovery import read_journal
from drivers.hal import SeatWagerChanged, WagerSpot


def row(kind: str, round_no: int | None = None, **data: Any) -> JournalRow:
    return JournalRow(kind, data, round_no)


def state(name: str, round_no: int | None = None) -> JournalRow:
    return row("state", round_no, state=name)


def started(number: int, seats: list[Mapping[str, Any]] | None = None) -> JournalRow:
    seats = seats if seats is not None else [{"seat": 1, "wager_cents": 500, "match_cents": 0}]
    return row("round_started", number, round=number, seats=seats)


def fault(code: str, resume: str, message: str = "why", round_no: int | None = None) -> JournalRow:
    return row("fault", round_no, code=code, message=message, state=resume)


def card(text: str, round_no: int, role: str = "initial") -> JournalRow:
    return row("card", round_no, role=role, card=text, seat=1, hand=0)


SHOE = [
    row("shuffle_commanded", decks=6),
    state("loading"),
    row("shoe_loaded"),
    state("burning"),
    row("burn", card="7S", reason="load"),
    state("betting"),
]


# --- the round: its number, and its rows while it is open -----------------------------------


def test_an_open_round_keeps_its_number_and_every_row_from_its_start() -> None:
    rows = [
        *SHOE,
        started(3),
        state("dealing", 3),
        card("9H", 3),
        row("seal", epoch=1),  # a row of no round, journaled meanwhile: kept, round_rows sorts
    ]
    rec = read_journal(rows)
    assert rec.round_no == 3
    assert rec.open_round == rows[6:]
    assert rec.state is State.DEALING


def test_a_completed_or_voided_round_leaves_no_open_round_but_its_number() -> None:
    for end in ("round_completed", "round_voided"):
        rows = [*SHOE, started(4), card("9H", 4), row(end, 4), state("betting")]
        rec = read_journal(rows)
        assert rec.round_no == 4, end
        assert rec.open_round == [], end
        assert rec.state is State.BETTING


def test_rows_between_rounds_belong_to_no_round() -> None:
    """A burn for a new dealer between rounds is no round's row: the round after opens with
    its own start, and nothing before it."""
    rows = [*SHOE, started(1), row("round_completed", 1), row("dealer_change"), started(2)]
    rec = read_journal(rows)
    assert rec.round_no == 2
    assert rec.open_round == [rows[-1]]


def test_a_later_round_start_replaces_the_open_round() -> None:
    rows = [*SHOE, started(1), card("9H", 1), started(2), card("5C", 2)]
    assert read_journal(rows).open_round == rows[-2:]


# --- the fault active at the end ----------------------------------------------------------


def test_a_fault_open_at_the_end_comes_back_with_its_resume_point() -> None:
    rows = [
        *SHOE,
        started(1),
        state("players", 1),
        fault("device_lost", "players", "shoe lost", 1),
        state("fault", 1),
    ]
    rec = read_journal(rows)
    assert rec.state is State.FAULT
    assert rec.fault == Fault(FaultCode.DEVICE_LOST, "shoe lost", held=None)
    assert rec.resume_to is State.PLAYERS


def test_a_fault_before_any_state_of_play_comes_back_with_no_refusal_held() -> None:
    """A shuffler's jam while the station starts is the table's first row, before any
    ``state`` row but the fault's own: restored with its resume point, and with no earlier
    fault forbidding a resume (a device fault is resumed once the device is back)."""
    rows = [fault("device_fault", "starting", "shuffler: jam"), state("fault")]
    rec = read_journal(rows)
    assert rec.fault == Fault(FaultCode.DEVICE_FAULT, "shuffler: jam", held=None)
    assert rec.fault.not_resumable() is None
    assert rec.resume_to is State.STARTING


def test_a_fault_cleared_by_a_later_state_is_gone() -> None:
    rows = [
        *SHOE,
        fault("device_lost", "betting", "shoe lost"),
        state("fault"),
        state("betting"),
    ]
    rec = read_journal(rows)
    assert rec.state is State.BETTING
    assert rec.fault is None and rec.resume_to is None


def test_a_fault_after_a_cleared_one_stands_alone() -> None:
    """A cleared fault's resume point and refusal of a resume are forgotten: the next
    fault's own are restored (a bad batch, cleared by a reshuffle, does not forbid
    resuming the next round's lost shoe)."""
    rows = [
        row("shuffle_commanded", decks=6),
        state("loading"),
        fault("bad_batch", "loading", "batch of 287 cards"),
        state("fault"),
        state("shuffling"),
        *SHOE,
        started(1),
        state("players", 1),
        fault("device_lost", "players", "shoe lost", 1),
        state("fault", 1),
    ]
    rec = read_journal(rows)
    assert rec.fault == Fault(FaultCode.DEVICE_LOST, "shoe lost", held=None)
    assert rec.resume_to is State.PLAYERS


def test_a_fault_during_a_fault_keeps_the_first_resume_point_and_the_last_text() -> None:
    rows = [
        *SHOE,
        started(1),
        state("players", 1),
        fault("device_lost", "players", "shoe lost", 1),
        state("fault", 1),
        fault("unexpected_card", "fault", "a card while the shoe is lost", 1),
    ]
    rec = read_journal(rows)
    assert rec.fault == Fault(FaultCode.UNEXPECTED_CARD, "a card while the shoe is lost")
    assert rec.resume_to is State.PLAYERS


def test_a_fault_that_cannot_be_resumed_is_held_when_another_joins_it() -> None:
    """A hole card the reader denied (PA 635a.7(f): the round is voided) is not made
    resumable by a lost shoe that joins it: the first refusal is restored as ``held``."""
    rows = [
        *SHOE,
        started(1),
        state("peeking", 1),
        fault("hole_card_mismatch", "peeking", "reader said no blackjack", 1),
        state("fault", 1),
        fault("device_lost", "fault", "shoe lost", 1),
        fault("hole_card_commitment", "fault", "does not open", 1),
    ]
    rec = read_journal(rows)
    assert rec.fault == Fault(
        FaultCode.HOLE_CARD_COMMITMENT, "does not open", held=FaultCode.HOLE_CARD_MISMATCH
    )
    assert rec.fault.not_resumable() is FaultCode.HOLE_CARD_COMMITMENT
    assert rec.resume_to is State.PEEKING


def test_a_resumable_fault_first_lets_a_later_refusal_be_held() -> None:
    rows = [
        *SHOE,
        started(1),
        state("players", 1),
        fault("device_lost", "players", "shoe lost", 1),
        state("fault", 1),
        fault("bad_batch", "fault", "a batch of 287", 1),
        fault("device_lost", "fault", "shoe lost again", 1),
    ]
    rec = read_journal(rows)
    assert rec.fault == Fault(FaultCode.DEVICE_LOST, "shoe lost again", held=FaultCode.BAD_BATCH)
    assert rec.resume_to is State.PLAYERS


def test_a_fault_row_without_the_fault_state_after_it_is_not_restored() -> None:
    """A journal cut between a ``fault`` row and its ``state`` row cannot happen (one
    commit); a fault row followed by any other state is over."""
    rows = [*SHOE, fault("device_lost", "betting", "shoe lost")]
    rec = read_journal(rows)
    assert rec.state is State.BETTING
    assert rec.fault is None and rec.resume_to is None


def test_the_fault_state_without_a_fault_row_restores_no_fault() -> None:
    rec = read_journal([*SHOE, state("fault")])
    assert rec.state is State.FAULT
    assert rec.fault is None and rec.resume_to is None


# --- the shoe: cards drawn, the reshuffle, the burn ---------------------------------------


def test_the_cards_drawn_count_from_the_last_shuffle_each_copy_once() -> None:
    """Cards out of the shoe since the last shuffle: burns, dealt cards (a second copy of a
    card counts twice: six decks hold six) and revealed hole cards; a foreign card's row
    (the shoe's description) and the hole card's sealed deal count nothing."""
    rows = [
        row("shuffle_commanded", decks=6),
        row("shoe_loaded"),
        row("burn", card="2D", reason="load"),
        *SHOE,
        started(1),
        card("9H", 1),
        card("9H", 1),
        card("foreign card 10C: not in a Spanish deck", 1, role="rejected"),
        card("KD", 1, role="up"),
        row("hole_card_dealt", 1, commitment="ab" * 32, sealed_by="station"),
        row("hole_card_revealed", 1, card="AS", nonce="00" * 16),
    ]
    rec = read_journal(rows)
    assert rec.drawn == Counter({"7S": 1, "9H": 2, "KD": 1, "AS": 1})
    assert rec.last_burn == "7S"


def test_no_cards_drawn_before_any_shuffle_is_an_empty_count() -> None:
    rec = read_journal([])
    assert rec.drawn == Counter()
    assert rec.state is None and rec.round_no == 0 and rec.last_burn is None
    assert rec.fault is None and rec.resume_to is None and not rec.reshuffle_pending
    assert rec.burn_reason == "load" and rec.voided_holes == {} and rec.wagers == {}


def test_the_cover_card_or_an_empty_shoe_makes_a_reshuffle_due_until_the_shuffle() -> None:
    """PA 635a.7(d): once the cover card appears, the round is completed and the cards are
    reshuffled; an empty shoe the same."""
    for due in ("cover_card", "shoe_empty"):
        rows = [*SHOE, started(1), row(due, 1), row("round_completed", 1, reshuffle=True)]
        assert read_journal(rows).reshuffle_pending, due
        assert not read_journal([*rows, row("shuffle_commanded", decks=6)]).reshuffle_pending


def test_the_next_burn_is_a_new_dealers_after_a_dealer_change_until_the_next_shuffle() -> None:
    """PA 635a.7(c), NJ 19.7(c): a card is burned after each load, and by each new dealer
    before dealing."""
    assert read_journal(SHOE).burn_reason == "load"
    changed = [*SHOE, row("dealer_change")]
    assert read_journal(changed).burn_reason == "dealer_change"
    burned = [*changed, row("burn", card="4C", reason="dealer_change")]
    assert read_journal(burned).burn_reason == "dealer_change"
    assert read_journal(burned).last_burn == "4C"
    assert read_journal([*burned, row("shuffle_commanded", decks=6)]).burn_reason == "load"


# --- the wager spots ----------------------------------------------------------------------


def seat_wager(seat: int, spot: str, present: bool, cents: int | None) -> JournalRow:
    return row("event", type="seat_wager", seat=seat, spot=spot, present=present, cents=cents)


def test_each_wager_spots_last_report_is_kept_with_its_amount() -> None:
    rows = [
        seat_wager(2, "main", True, 500),
        seat_wager(2, "match", True, None),
        seat_wager(3, "main", True, 1000),
        row("event", type="device_connected", device="shoe"),
        seat_wager(3, "main", False, 0),
        seat_wager(2, "main", True, 700),
    ]
    assert read_journal(rows).wagers == {
        (2, WagerSpot.MAIN): SeatWagerChanged(2, WagerSpot.MAIN, True, 700),
        (2, WagerSpot.MATCH): SeatWagerChanged(2, WagerSpot.MATCH, True, None),
        (3, WagerSpot.MAIN): SeatWagerChanged(3, WagerSpot.MAIN, False, 0),
    }


# --- the hole cards of voided rounds the shoe still holds ---------------------------------


def void_asked(round_no: int | None, commitment: str, reason: str | None = "void") -> JournalRow:
    data: dict[str, Any] = {"commitment": commitment}
    if reason is not None:
        data["reason"] = reason
    return JournalRow("hole_card_reveal_requested", data, round_no)


def test_a_voided_rounds_hole_card_asked_for_is_kept_until_revealed_or_a_new_batch() -> None:
    rows = [
        *SHOE,
        started(1),
        void_asked(1, "c1"),
        row("round_voided", 1, reason="supervisor", stand=[], returned=[]),
        started(2),
        void_asked(2, "c2"),
        row("round_voided", 2, reason="supervisor", stand=[], returned=[]),
    ]
    assert read_journal(rows).voided_holes == {"c1": 1, "c2": 2}
    revealed = [*rows, row("hole_card_revealed", 1, card="5D", nonce="11" * 16)]
    rec = read_journal(revealed)
    assert rec.voided_holes == {"c2": 2}
    assert rec.drawn["5D"] == 1
    assert read_journal([*rows, row("shoe_loaded")]).voided_holes == {}


def test_only_a_voids_request_of_a_round_is_a_voided_hole_card() -> None:
    """NEXT at the reveal asks the shoe too (no ``reason``); a request with no round is
    none of a round's."""
    rows = [
        *SHOE,
        started(1),
        void_asked(1, "c1", reason=None),
        void_asked(1, "c1", reason="reveal"),
        void_asked(None, "c9"),
    ]
    assert read_journal(rows).voided_holes == {}


def test_a_reveal_of_another_round_leaves_a_voided_hole_card_asked_for() -> None:
    rows = [
        *SHOE,
        started(1),
        void_asked(1, "c1"),
        row("round_voided", 1, reason="supervisor", stand=[], returned=[]),
        started(2),
        row("hole_card_revealed", 2, card="5D", nonce="11" * 16),
    ]
    assert read_journal(rows).voided_holes == {"c1": 1}


def test_the_shoes_count_is_read_back_from_the_count_rows_and_the_draws_rows() -> None:
    # controller.table.shoe_count: load 4 counted from 0; a burn and two cards, a gap set
    # by a count row to 9, then the cover card: 10, and the shoe journaled empty after it.
    rec = read_journal(
        [
            row("shoe_loaded"),
            row("shoe_count", load=4, last=0),
            row("burn", card="2C", reason="load"),
            started(1),
            card("9H", 1),
            card("5C", 1),
            row("shoe_count", 1, load=4, last=9),
            row("cover_card", 1),
            row("shoe_empty"),
        ]
    )
    count = rec.shoe_count
    assert (count.load, count.last, count.empty) == (4, 10, True)
    # A load with no count row after it (a shoe that numbers nothing): no count.
    rec = read_journal([row("shoe_loaded"), row("shoe_count", load=4, last=3), row("shoe_loaded")])
    assert (rec.shoe_count.load, rec.shoe_count.last, rec.shoe_count.empty) == (None, None, False)
