"""The visual recall's round (``floor.recall``) built from journal rows without a server: the
layout (the dealer's cards with the hole card until its reveal, each seat's wagers, hands,
decisions and payments), a split's numbering, the card reader, burns, faults and a void,
the timeline, the plain-text view and what the database is asked. docs/journal.md ("Record
vocabulary") gives each row's fields; the expected lines are written from it by hand.

``tests/test_floor_console.py`` shows the same recall in Chromium on a floor fed by a
station (seconds a mutant); this file pins each rule in milliseconds.
"""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
import pytest

from controller.journal.recall import BETWEEN_ROUNDS
from floor.casino import Casino
from floor.recall import (
    LOOK_BACK,
    SEATS,
    CardFace,
    HandView,
    RoundView,
    build,
    card_face,
    load,
    render_text,
)
from floor.wording import JournalLine, Line

UTC_FLOOR = Casino("UTC")
NEW_YORK = Casino("America/New_York")
TABLE = "T01"


def _ts(second: int, ms: int = 0) -> str:
    return f"2026-12-01T21:27:{second:02d}.{ms:03d}000Z"


def _line(row: int, kind: str, data: dict[str, Any] | None = None, second: int = 0) -> JournalLine:
    return JournalLine(row, _ts(second, row % 1000), kind, 7, data or {}, f"h{row}")


def _card(row: int, card: Any, role: str, seat: Any = None, hand: Any = None) -> JournalLine:
    return _line(row, "card", {"role": role, "card": card, "seat": seat, "hand": hand})


def _round(*rows: JournalLine, before: tuple[JournalLine, ...] = ()) -> RoundView:
    return build(TABLE, 7, before, rows, UTC_FLOOR)


def _texts(lines: list[Line]) -> list[str]:
    return [x.text for x in lines]


def _cards(faces: list[CardFace]) -> list[str]:
    return [c.text for c in faces]


# --- a card's face and a hand's total ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rank", "suit", "red"),
    [
        ("8H", "8", "\u2665", True),
        ("KS", "K", "\u2660", False),
        ("AD", "A", "\u2666", True),
        ("2C", "2", "\u2663", False),
        ("qh", "Q", "\u2665", True),
    ],
)
def test_a_card_is_drawn_with_its_rank_and_suit_symbol_red_or_black(
    text: str, rank: str, suit: str, red: bool
) -> None:
    face = card_face(12, "21:27:01.012", text, "hit")
    assert face == CardFace(12, "21:27:01.012", text.upper(), rank, suit, red, True, "hit")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("TH", "TH"),
        ("10H", "10H"),
        ("joker-from-another-deck", "joker-from-anoth"),
        (12, "12"),
        ({"rank": "A"}, '{"rank": "A"}'),
        (None, "null"),
    ],
)
def test_a_card_that_is_not_a_spanish_card_is_shown_as_it_came_and_unknown(
    text: Any, shown: str
) -> None:
    face = card_face(3, "t", text, "rejected")
    assert face == CardFace(3, "t", shown, known=False, role="rejected")
    assert len(face.text) <= 16


@pytest.mark.parametrize(
    ("cards", "total"),
    [
        (["AS", "6H"], "soft 17"),
        (["KS", "7C"], "17"),
        (["AS", "6H", "9D"], "16"),
        (["9S", "8H", "7C"], "24"),
        ([], ""),
        (["8H", "TH"], ""),
        (["8H", "hole"], ""),
    ],
)
def test_a_hands_total_is_shown_only_when_every_card_is_a_spanish_card(
    cards: list[str], total: str
) -> None:
    hand = HandView(1, [card_face(1, "t", c) for c in cards])
    assert hand.total == total


# --- the layout --------------------------------------------------------------------------------


def _played_round() -> RoundView:
    """A round of seats 1 and 3 (docs/journal.md's rows): seat 1 splits its eights, the
    dealer's hole card is turned and the dealer draws; both seats lose."""
    return _round(
        _line(
            101,
            "round_started",
            {
                "round": 7,
                "seats": [
                    {"seat": 1, "wager_cents": 1000, "match_cents": 500},
                    {"seat": 3, "wager_cents": 2500, "match_cents": None},
                ],
            },
        ),
        _card(102, "8H", "initial", 1, 1),
        _card(103, "KS", "initial", 3, 1),
        _card(104, "6D", "up"),
        _card(105, "8D", "initial", 1, 1),
        _card(106, "7C", "initial", 3, 1),
        _line(107, "hole_card_dealt", {"commitment": "c0ffee", "sealed_by": "station"}),
        _line(108, "decision", {"seat": 1, "hand": 1, "decision": "split"}),
        _card(109, "3S", "split", 1, 1),
        _card(110, "2C", "split", 1, 2),
        _line(111, "decision", {"seat": 1, "hand": 1, "decision": "stand"}),
        _line(112, "decision", {"seat": 1, "hand": 2, "decision": "stand"}),
        _line(113, "decision", {"seat": 3, "hand": 1, "decision": "stand"}),
        _line(114, "hole_card_revealed", {"card": "KH", "nonce": "n"}),
        _card(115, "5C", "draw"),
        _line(
            116,
            "settlement",
            {
                "seat": 1,
                "wager": "main",
                "hand": 1,
                "outcome": "loss",
                "odds": None,
                "net_cents": -1000,
                "total": 11,
            },
        ),
        _line(
            117,
            "settlement",
            {
                "seat": 1,
                "wager": "main",
                "hand": 2,
                "outcome": "loss",
                "odds": None,
                "net_cents": -1000,
                "total": 10,
            },
        ),
        _line(
            118,
            "match_settled",
            {
                "seat": 1,
                "wager": "match",
                "outcome": "loss",
                "matches": 0,
                "odds": None,
                "net_cents": -500,
            },
        ),
        _line(
            119,
            "settlement",
            {
                "seat": 3,
                "wager": "main",
                "hand": 1,
                "outcome": "loss",
                "odds": None,
                "net_cents": -2500,
                "total": 17,
            },
        ),
        _line(120, "seat_result", {"seat": 1, "net_cents": -2500}),
        _line(121, "seat_result", {"seat": 3, "net_cents": -2500}),
        _line(122, "round_completed", {"reshuffle": False}),
    )


def test_the_layout_of_a_played_round() -> None:
    view = _played_round()
    assert view.status == "completed"
    assert (view.first_row, view.end_row, view.end_hash) == (101, 122, "h122")
    assert view.started == "2026-12-01 21:27:00.101 UTC"
    assert view.ended == "2026-12-01 21:27:00.122 UTC"
    # The hole card in its place among the dealer's cards, once turned.
    assert _cards(view.dealer) == ["6D", "KH", "5C"]
    assert [c.role for c in view.dealer] == ["up", "hole", "draw"]
    assert view.dealer[1].row == 114 and view.dealer_total == "21"
    assert [c.at for c in view.dealer] == ["21:27:00.104", "21:27:00.114", "21:27:00.115"]
    # Seats as the layout lies seen from the players' side: seat 1 on the right.
    assert [s.seat for s in view.seats] == [3, 1]
    seat1, seat3 = view.seat(1), view.seat(3)
    assert seat1 is not None and seat3 is not None and view.seat(2) is None
    assert (seat1.wager, seat1.match, seat1.result) == ("$10.00", "$5.00", "-$25.00")
    assert (seat3.wager, seat3.match, seat3.result) == ("$25.00", "", "-$25.00")
    # The split: the second eight moved to hand 2, each hand drew its own card.
    assert [h.number for h in seat1.hands] == [1, 2]
    assert [_cards(h.cards) for h in seat1.hands] == [["8H", "3S"], ["8D", "2C"]]
    assert [_texts(h.decisions) for h in seat1.hands] == [["split", "stand"], ["stand"]]
    assert [h.total for h in seat1.hands] == ["11", "10"]
    assert [_texts(h.payments) for h in seat1.hands] == [
        ["11 loss: -$10.00"],
        ["10 loss: -$10.00"],
    ]
    assert [(x.row, x.cents) for x in seat1.hands[1].payments] == [(117, -1000)]
    assert _texts(seat1.side) == ["Match the Dealer: no match loss: -$5.00"]
    assert _cards(seat3.hands[0].cards) == ["KS", "7C"] and seat3.hands[0].total == "17"
    assert view.hole == [
        Line(107, "21:27:00.107", "hole card dealt face down, commitment c0ffee"),
        Line(114, "21:27:00.114", "hole card turned: KH"),
    ]
    assert view.burns == [] and view.faults == [] and view.void == [] and view.reader == []


def test_the_timeline_says_every_row_of_the_round_in_order() -> None:
    view = _played_round()
    assert [x.row for x in view.timeline] == list(range(101, 123))
    assert view.timeline[0] == Line(101, "21:27:00.101", "no more bets")
    assert _texts(view.timeline)[1:] == [
        "card 8H (initial) to seat 1 hand 1",
        "card KS (initial) to seat 3 hand 1",
        "card 6D (up) to the dealer",
        "card 8D (initial) to seat 1 hand 1",
        "card 7C (initial) to seat 3 hand 1",
        "hole card dealt face down, commitment c0ffee",
        "seat 1 hand 1: split",
        "card 3S (split) to seat 1 hand 1",
        "card 2C (split) to seat 1 hand 2",
        "seat 1 hand 1: stand",
        "seat 1 hand 2: stand",
        "seat 3 hand 1: stand",
        "hole card turned: KH",
        "card 5C (draw) to the dealer",
        "seat 1: 11 loss: -$10.00",
        "seat 1: 10 loss: -$10.00",
        "seat 1: Match the Dealer: no match loss: -$5.00",
        "seat 3: 17 loss: -$25.00",
        "seat 1 result -$25.00",
        "seat 3 result -$25.00",
        "round completed",
    ]


def test_a_round_not_ended_is_in_progress_and_the_hole_card_unknown() -> None:
    view = _round(
        _line(1, "round_started", {"seats": [{"seat": 2, "wager_cents": 500}]}),
        _card(2, "9S", "up"),
        _line(3, "hole_card_dealt", {"commitment": "aa"}),
    )
    assert (view.status, view.ended, view.end_row, view.end_hash) == ("in progress", "", 0, "")
    assert view.dealer[1] == CardFace(3, "21:27:00.003", "hole", known=False, role="hole")
    assert view.dealer_total == ""  # not while a card is face down
    seat = view.seat(2)
    assert seat is not None and (seat.wager, seat.match) == ("$5.00", "")
    assert [h.number for h in seat.hands] == [1] and seat.hands[0].cards == []


def test_a_hole_card_revealed_without_its_deal_is_added_to_the_dealers_cards() -> None:
    view = _round(_card(1, "9S", "up"), _line(2, "hole_card_revealed", {"card": "AH"}))
    assert _cards(view.dealer) == ["9S", "AH"] and view.dealer_total == "soft 20"


def test_only_the_hole_card_face_down_is_replaced_by_the_reveal() -> None:
    # A card shown as "hole" from the shoe (a foreign card's text) is not the hole card.
    view = _round(
        _card(1, "hole", "up"),
        _line(2, "hole_card_dealt", {}),
        _line(3, "hole_card_revealed", {"card": "5D"}),
    )
    assert [(c.row, c.text, c.role) for c in view.dealer] == [
        (1, "hole", "up"),
        (3, "5D", "hole"),
    ]


def test_a_second_reveal_does_not_replace_the_first() -> None:
    view = _round(
        _line(1, "hole_card_dealt", {}),
        _line(2, "hole_card_revealed", {"card": "5D"}),
        _line(3, "hole_card_revealed", {"card": "6D"}),
    )
    assert _cards(view.dealer) == ["5D", "6D"]


def test_a_split_moves_the_hands_to_its_right_up_a_number() -> None:
    view = _round(
        _card(1, "8H", "initial", 4, 1),
        _card(2, "8D", "initial", 4, 1),
        _line(3, "decision", {"seat": 4, "hand": 1, "decision": "split"}),
        _card(4, "8S", "split", 4, 1),
        _card(5, "4C", "split", 4, 2),
        _line(6, "decision", {"seat": 4, "hand": 1, "decision": "split"}),  # the new pair
        _card(7, "2H", "split", 4, 1),
        _card(8, "3H", "split", 4, 2),
    )
    seat = view.seat(4)
    assert seat is not None
    assert [h.number for h in seat.hands] == [1, 2, 3]
    assert [_cards(h.cards) for h in seat.hands] == [["8H", "2H"], ["8S", "3H"], ["8D", "4C"]]
    assert [_texts(h.decisions) for h in seat.hands] == [["split", "split"], [], []]


def test_a_split_of_a_hand_of_fewer_than_two_cards_moves_nothing() -> None:
    view = _round(
        _card(1, "8H", "initial", 4, 1),
        _line(2, "decision", {"seat": 4, "hand": 1, "decision": "split"}),
    )
    seat = view.seat(4)
    assert seat is not None and [_cards(h.cards) for h in seat.hands] == [["8H"]]


@pytest.mark.parametrize(
    ("hand", "number"),
    [(1, 1), (2, 2), (16, 16), (17, 1), (0, 1), (-1, 1), ("2", 1), (2.0, 1), (None, 1), (True, 1)],
)
def test_a_cards_hand_is_its_number_from_1_to_16_else_the_first(hand: Any, number: int) -> None:
    view = _round(_card(1, "9C", "initial", 5, hand))
    seat = view.seat(5)
    assert seat is not None
    assert [h.number for h in seat.hands] == list(range(1, number + 1))
    assert [_cards(h.cards) for h in seat.hands][number - 1] == ["9C"]


@pytest.mark.parametrize("seat", ["1", 1.0, None, [1]])
def test_a_seat_that_is_not_a_number_is_seat_0_shown_after_the_layouts_seats(seat: Any) -> None:
    view = _round(
        _line(1, "seat_result", {"seat": 1, "net_cents": 100}),
        _line(2, "decision", {"seat": seat, "hand": 1, "decision": "stand"}),
        _line(3, "seat_result", {"seat": 7, "net_cents": 100}),
    )
    assert [s.seat for s in view.seats] == [7, 1, 0]


def test_the_seats_lie_from_seat_7_to_seat_1() -> None:
    assert list(SEATS) == [7, 6, 5, 4, 3, 2, 1]
    view = _round(*(_line(n, "seat_result", {"seat": s}) for n, s in enumerate([2, 6, 1, 7, 4])))
    assert [s.seat for s in view.seats] == [7, 6, 4, 2, 1]


def test_round_started_ignores_entries_that_are_not_seats() -> None:
    view = _round(
        _line(
            1,
            "round_started",
            {"seats": ["seat 1", None, {"seat": 6, "wager_cents": 2500, "match_cents": 0}]},
        ),
    )
    assert [(s.seat, s.wager, s.match) for s in view.seats] == [(6, "$25.00", "")]
    assert _round(_line(1, "round_started", {"seats": None})).seats == []


def test_money_that_is_not_whole_cents_is_shown_as_unknown() -> None:
    view = _round(
        _line(
            1, "round_started", {"seats": [{"seat": 2, "wager_cents": "1000", "match_cents": 2.5}]}
        ),
    )
    seat = view.seat(2)
    assert seat is not None and (seat.wager, seat.match) == ("?", "?")


# --- payments, results and wagers ------------------------------------------------------------


def test_each_payment_goes_under_what_it_pays_for() -> None:
    view = _round(
        _line(
            1,
            "settlement",
            {
                "seat": 2,
                "wager": "main",
                "hand": 2,
                "outcome": "win",
                "odds": "1:1",
                "net_cents": 1000,
                "total": 19,
            },
        ),
        _line(
            2,
            "settlement",
            {"seat": 1, "wager": "super_bonus_share", "outcome": "win", "net_cents": 5000},
        ),
        _line(
            3,
            "insurance",
            {"seat": 2, "wager": "insurance", "outcome": "loss", "odds": "2:1", "net_cents": -250},
        ),
        _line(4, "insurance_taken", {"seat": 2, "cents": 250}),
        _line(
            5,
            "match_settled",
            {
                "seat": 2,
                "wager": "match",
                "outcome": "win",
                "matches": 2,
                "odds": "4:1",
                "net_cents": 2000,
            },
        ),
    )
    seat2, seat1 = view.seat(2), view.seat(1)
    assert seat2 is not None and seat1 is not None
    assert [_texts(h.payments) for h in seat2.hands] == [[], ["19 win at 1:1: +$10.00"]]
    assert _texts(seat2.side) == [
        "insurance loss at 2:1: -$2.50",
        "insurance taken: $2.50",
        "Match the Dealer: 2 match(es) win at 4:1: +$20.00",
    ]
    assert seat1.hands == [] and _texts(seat1.side) == ["super bonus share win: +$50.00"]
    assert [(x.row, x.at) for x in seat2.side] == [(n, f"21:27:00.00{n}") for n in (3, 4, 5)]
    assert _texts(view.timeline) == [
        "seat 2: 19 win at 1:1: +$10.00",
        "seat 1: super bonus share win: +$50.00",
        "seat 2: insurance loss at 2:1: -$2.50",
        "seat 2: insurance taken: $2.50",
        "seat 2: Match the Dealer: 2 match(es) win at 4:1: +$20.00",
    ]


def test_a_seat_result_in_wagers_is_shown_in_wagers_when_its_cents_are_not_known() -> None:
    view = _round(
        _line(1, "seat_result", {"seat": 1, "net_cents": None, "net_stakes": 1.5}),
        _line(2, "seat_result", {"seat": 2, "net_cents": 0, "net_stakes": 1.5}),
        _line(3, "seat_result", {"seat": 3, "net_cents": None}),
        _line(4, "seat_result", {"seat": 4, "net_cents": 750}),
    )
    results = {s.seat: s.result for s in view.seats}
    assert results == {1: "1.5 wager(s)", 2: "$0.00", 3: "?", 4: "+$7.50"}
    assert _texts(view.timeline) == [
        "seat 1 result 1.5 wager(s)",
        "seat 2 result $0.00",
        "seat 3 result ?",
        "seat 4 result +$7.50",
    ]


@pytest.mark.parametrize("kind", ["wager_collected", "wager_paid", "wager_taken", "wager_added"])
def test_a_wager_sensors_change_is_said_with_what_it_reads(kind: str) -> None:
    view = _round(_line(1, kind, {"seat": 3, "spot": "match", "cents": 1500}))
    said = f"seat 3 match: {kind.replace('_', ' ')}, sensor reads $15.00"
    assert _texts(view.timeline) == [said]
    assert view.seats == []  # said, not laid out


def test_a_refused_wager_is_said_with_its_reason() -> None:
    view = _round(_line(1, "wager_refused", {"seat": 4, "reason": "over_the_limit"}))
    assert _texts(view.timeline) == ["seat 4 wager refused: over the limit"]


# --- the card reader, burns, faults, void -----------------------------------------------------


def test_the_card_readers_questions_and_answers_are_listed() -> None:
    view = _round(
        _line(1, "peek_requested", {"target": "looking_for_ace"}),
        _line(2, "peek", {"answer": "no"}),
    )
    assert view.reader == [
        Line(1, "21:27:00.001", "card reader asked: looking for ace"),
        Line(2, "21:27:00.002", "card reader answered: no"),
    ]
    assert view.timeline == view.reader


def test_burns_rejected_cards_cover_card_and_faults_have_their_own_lists() -> None:
    view = _round(
        _line(1, "burn", {"card": "2C", "reason": "dealer_change"}),
        _card(2, "9H", "burn"),
        _card(3, "XX-99", "rejected"),
        _line(4, "cover_card", {}),
        _line(5, "fault", {"code": "shoe_jam", "state": "dealing", "message": "jam"}),
        _line(6, "fault_resolved", {"resolution": "continue"}),
    )
    assert [(c.row, c.at, c.text, c.role) for c in view.burns] == [
        (1, "21:27:00.001", "2C", "dealer change"),
        (2, "21:27:00.002", "9H", "burn"),
    ]
    assert view.dealer == [] and view.seats == []
    assert _texts(view.faults) == [
        "card rejected (foreign or out of order): XX-99",
        "cover card came out: reshuffle after this round",
        "FAULT shoe jam in dealing: jam",
        "fault resolved by the supervisor: continue",
    ]
    assert [(x.row, x.at) for x in view.faults] == [(n, f"21:27:00.00{n}") for n in (3, 4, 5, 6)]
    assert _texts(view.timeline) == [
        "burn 2C (dealer change)",
        "card 9H (burn) to the dealer",
        "card XX-99 (rejected) to the dealer",
        "cover card came out: reshuffle after this round",
        "FAULT shoe jam in dealing: jam",
        "fault resolved by the supervisor: continue",
    ]


def test_a_completed_round_says_when_a_reshuffle_follows() -> None:
    assert _texts(_round(_line(1, "round_completed", {"reshuffle": True})).timeline) == [
        "round completed, reshuffle follows"
    ]
    assert _texts(_round(_line(1, "round_completed", {"reshuffle": "yes"})).timeline) == [
        "round completed"
    ]


def test_a_void_lists_what_stands_what_went_back_and_the_hole_card() -> None:
    view = _round(
        _line(1, "round_started", {"seats": [{"seat": 1, "wager_cents": 1000}]}),
        _line(
            9,
            "round_voided",
            {
                "reason": "shoe_fault",
                "stand": [
                    {"seat": 1, "wager": "match", "hand": None, "net_cents": -500},
                    "not an entry",
                ],
                "returned": [
                    {"seat": 1, "wager": "main", "hand": 1, "cents": 1000},
                    {"seat": 2, "wager": "main", "hand": None, "cents": None},
                ],
                "hole_card": "withheld by the shoe: asked for at the void",
            },
            second=5,
        ),
    )
    assert (view.status, view.end_row, view.end_hash) == ("voided", 9, "h9")
    assert view.ended == "2026-12-01 21:27:05.009 UTC"
    assert view.void == [
        Line(9, "21:27:05.009", "voided by the supervisor: shoe fault"),
        Line(9, "21:27:05.009", "stands: seat 1 match, net -$5.00"),
        Line(9, "21:27:05.009", "returned: seat 1 main hand 1, $10.00"),
        Line(9, "21:27:05.009", "returned: seat 2 main, ?"),
        Line(9, "21:27:05.009", "hole card: withheld by the shoe: asked for at the void"),
    ]
    assert _texts(view.timeline)[-1] == "round voided: shoe fault"


def test_a_void_with_nothing_listed_says_only_who_voided_it() -> None:
    view = _round(_line(3, "round_voided", {"reason": "supervisor", "stand": None}))
    assert _texts(view.void) == ["voided by the supervisor: supervisor"]


def test_a_row_the_recall_does_not_know_is_not_said() -> None:
    view = _round(_line(1, "dealer_change", {}), _line(2, "shoe_loaded", {}))
    assert view.timeline == [] and view.faults == [] and view.before == []


# --- times -------------------------------------------------------------------------------------


def test_times_are_on_the_casinos_clock_to_the_millisecond() -> None:
    rows = [
        JournalLine(1, "2026-12-01T21:27:10.852999Z", "round_started", 7, {}, "a"),
        JournalLine(2, "2026-12-01T21:27:11.000001+00:00", "peek", 7, {}, "b"),
        JournalLine(3, "2026-12-01T21:27:12.5", "round_completed", 7, {}, "c"),  # no zone: UTC
    ]
    view = build(TABLE, 7, [], rows, NEW_YORK)
    assert [x.at for x in view.timeline] == ["16:27:10.852", "16:27:11.000", "16:27:12.500"]
    assert view.started == "2026-12-01 16:27:10.852 EST"
    assert view.ended == "2026-12-01 16:27:12.500 EST"


def test_a_time_that_cannot_be_read_is_shown_as_it_came_cut_to_40_characters() -> None:
    odd = "yesterday, about teatime, give or take a quarter of an hour"
    rows = [JournalLine(1, odd, "round_completed", 7, {}, "a")]
    view = build(
        TABLE, 7, [JournalLine(0, odd, "shuffle_commanded", None, {}, "z")], rows, NEW_YORK
    )
    assert view.timeline[0].at == odd[:40] and view.ended == odd[:40]
    assert view.before[0].at == odd[:40]


# --- before the round --------------------------------------------------------------------------


def test_before_the_round_only_the_between_round_rows_are_listed_with_their_date() -> None:
    assert {"shuffle_commanded", "shuffle_done", "burn"} <= BETWEEN_ROUNDS
    before = (
        _line(90, "shuffle_commanded", {"decks": 6}),
        _line(91, "settlement", {"seat": 1, "net_cents": 5}),  # another round's: not listed
        _line(92, "burn", {"card": "2C", "reason": "load"}, second=3),
    )
    view = _round(_line(100, "round_started", {}), before=before)
    assert view.before == [
        Line(90, "2026-12-01 21:27:00.090 UTC", "shuffle of 6 decks commanded"),
        Line(92, "2026-12-01 21:27:03.092 UTC", "burn 2C (load)"),
    ]
    assert view.burns == []  # the load's burn is before the round, not in it


# --- the text view ---------------------------------------------------------------------------


def test_the_text_view_of_a_played_round() -> None:
    view = _played_round()
    view.before.append(Line(90, "2026-12-01 21:26:00.000 UTC", "shuffle of 6 decks commanded"))
    view.burns.append(CardFace(95, "21:26:30.000", "2C", role="load"))
    view.faults.append(Line(96, "21:26:40.000", "cover card came out"))
    assert render_text(view).split("\n") == [
        "Table T01 round 7: completed, 2026-12-01 21:27:00.101 UTC to 2026-12-01 21:27:00.122 UTC",
        "Before the round:",
        "  row 90  2026-12-01 21:26:00.000 UTC  shuffle of 6 decks commanded",
        "Burn: 2C (load)  row 95  21:26:30.000",
        "Dealer: 6D KH 5C  (21)",
        "  row 107  21:27:00.107  hole card dealt face down, commitment c0ffee",
        "  row 114  21:27:00.114  hole card turned: KH",
        "Seat 1: wager $10.00, match $5.00, result -$25.00",
        "  hand 1: 8H 3S  (11)",
        "    decision: split  row 108  21:27:00.108",
        "    decision: stand  row 111  21:27:00.111",
        "    paid: 11 loss: -$10.00  row 116  21:27:00.116",
        "  hand 2: 8D 2C  (10)",
        "    decision: stand  row 112  21:27:00.112",
        "    paid: 10 loss: -$10.00  row 117  21:27:00.117",
        "  Match the Dealer: no match loss: -$5.00  row 118  21:27:00.118",
        "Seat 3: wager $25.00, result -$25.00",
        "  hand 1: KS 7C  (17)",
        "    decision: stand  row 113  21:27:00.113",
        "    paid: 17 loss: -$25.00  row 119  21:27:00.119",
        "cover card came out  row 96  21:26:40.000",
        "Journal rows 101-122, end row hash h122",
    ]


def test_the_text_view_of_a_round_cut_short() -> None:
    view = _round(
        _line(1, "round_started", {"seats": [{"seat": 2, "wager_cents": 500}]}),
        _card(2, "9S", "up"),
        _line(3, "hole_card_dealt", {"commitment": "aa"}),
        _card(4, "AH", "hole"),  # a card whose role says hole but is known: shown as it is
        _line(
            5,
            "round_voided",
            {
                "reason": "power",
                "returned": [{"seat": 2, "wager": "main", "hand": None, "cents": 500}],
            },
        ),
    )
    assert render_text(view).split("\n") == [
        "Table T01 round 7: voided, 2026-12-01 21:27:00.001 UTC to 2026-12-01 21:27:00.005 UTC",
        "Dealer: 9S [hole] AH",
        "  row 3  21:27:00.003  hole card dealt face down, commitment aa",
        "Seat 2: wager $5.00",
        "  hand 1: -",
        "Void: voided by the supervisor: power  row 5",
        "Void: returned: seat 2 main, $5.00  row 5",
        "Journal rows 1-5, end row hash h5",
    ]
    assert render_text(_round()).split("\n") == [
        "Table T01 round 7: in progress,  to ",
        "Dealer: -",
        "Journal rows 0-0, end row hash ",
    ]


def test_the_text_view_lists_the_seats_by_number_and_the_readers_answers() -> None:
    view = _round(
        _line(1, "seat_result", {"seat": 1, "net_cents": 0}),
        _line(2, "seat_result", {"seat": 5, "net_cents": 0}),
        _line(3, "peek", {"answer": "no"}),
    )
    lines = render_text(view).split("\n")
    assert [x for x in lines if x.startswith("Seat")] == [
        "Seat 1: wager , result $0.00",
        "Seat 5: wager , result $0.00",
    ]
    assert "  row 3  21:27:00.003  card reader answered: no" in lines


# --- what the database is asked --------------------------------------------------------------


class Connection:
    """psycopg's async connection as :func:`floor.recall.load` uses it: each query's answer
    by its SQL's first words."""

    def __init__(self, answers: dict[str, list[tuple[Any, ...]]]) -> None:
        self.answers = answers
        self.asked: list[tuple[str, tuple[Any, ...]]] = []

    async def execute(self, sql: str, params: tuple[Any, ...]) -> Connection._Cursor:
        self.asked.append((sql, params))
        key = "before" if "kind = ANY" in sql else "previous" if "round_stat" in sql else "round"
        return Connection._Cursor(self.answers.get(key, []))

    class _Cursor:
        def __init__(self, rows: list[tuple[Any, ...]]) -> None:
            self.rows = rows

        async def fetchall(self) -> list[tuple[Any, ...]]:
            return self.rows

        async def fetchone(self) -> tuple[Any, ...] | None:
            return self.rows[0] if self.rows else None


def _stored(row: int, kind: str, data: dict[str, Any], round_no: int | None = 7) -> tuple[Any, ...]:
    return (row, _ts(1), kind, round_no, json.dumps(data), f"h{row}")


def _load(conn: Connection, round_no: int = 7) -> RoundView | None:
    async def run() -> RoundView | None:
        return await load(conn, UTC_FLOOR, TABLE, round_no)

    return anyio.run(run)


def test_a_round_the_floor_does_not_hold_is_none_and_nothing_more_is_asked() -> None:
    conn = Connection({})
    assert _load(conn, 8) is None
    assert [params for _, params in conn.asked] == [(TABLE, 8)]


def test_the_rows_before_a_round_are_those_since_the_previous_rounds_end() -> None:
    conn = Connection(
        {
            "round": [
                _stored(7001, "round_started", {"seats": []}),
                _stored(7002, "round_completed", {}),
            ],
            "previous": [(6990,)],
            "before": [_stored(6995, "shuffle_commanded", {"decks": 6}, None)],
        }
    )
    view = _load(conn)
    assert view is not None and (view.table, view.round, view.status) == (TABLE, 7, "completed")
    assert (view.first_row, view.end_row) == (7001, 7002)
    assert _texts(view.before) == ["shuffle of 6 decks commanded"]
    assert [params for _, params in conn.asked] == [
        (TABLE, 7),
        (TABLE, 7),
        (TABLE, 6990, 7001, sorted(BETWEEN_ROUNDS)),
    ]


@pytest.mark.parametrize(("first", "since"), [(7001, 7001 - 5000), (5001, 1), (5000, 0), (12, 0)])
def test_without_a_previous_round_the_rows_before_are_looked_for_5000_rows_back(
    first: int, since: int
) -> None:
    assert LOOK_BACK == 5000
    conn = Connection({"round": [_stored(first, "round_started", {})]})
    assert _load(conn) is not None
    assert conn.asked[-1][1] == (TABLE, since, first, sorted(BETWEEN_ROUNDS))


def test_rows_whose_data_is_not_an_object_read_as_empty() -> None:
    conn = Connection(
        {
            "round": [
                (5, _ts(0), "round_started", 7, "[1, 2]", "h5"),
                (6, _ts(0), "seat_result", 7, "not json", "h6"),
            ]
        }
    )
    view = _load(conn)
    assert view is not None and [s.seat for s in view.seats] == [0]
    assert view.seats[0].result == "?"


def test_the_text_view_shows_a_foreign_card_as_it_came_and_only_the_hole_as_hole() -> None:
    view = _round(
        _card(1, "ZZ-joker", "up"),  # not a Spanish card: shown as the shoe described it
        _line(2, "hole_card_dealt", {"commitment": "aa"}),
    )
    assert render_text(view).split("\n")[1] == "Dealer: ZZ-joker [hole]"


def test_a_card_drawn_without_a_role_has_none() -> None:
    assert card_face(4, "t", "9C") == CardFace(4, "t", "9C", "9", "\u2663", False, True, "")


def test_a_void_shows_a_winning_settlement_that_stands_with_its_sign() -> None:
    view = _round(
        _line(
            9,
            "round_voided",
            {"reason": "x", "stand": [{"seat": 3, "wager": "main", "hand": 2, "net_cents": 1500}]},
        )
    )
    assert _texts(view.void)[1] == "stands: seat 3 main hand 2, net +$15.00"


def test_a_time_with_another_offset_is_the_same_moment_on_the_casinos_clock() -> None:
    rows = [JournalLine(1, "2026-12-01T23:27:10.250+02:00", "round_started", 7, {}, "a")]
    view = build(TABLE, 7, [], rows, NEW_YORK)
    assert view.timeline[0].at == "16:27:10.250" and view.started.endswith("16:27:10.250 EST")


def test_a_time_without_a_zone_is_utc_whatever_the_machines_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        rows = [JournalLine(1, "2026-12-01T21:27:12.5", "round_completed", 7, {}, "c")]
        view = build(TABLE, 7, [], rows, NEW_YORK)
        assert view.timeline[0].at == "16:27:12.500"
    finally:
        monkeypatch.undo()
        time.tzset()
