"""Game recall rebuilt from rows given by hand (``controller/journal/recall.py``): which rows
go before a round, into it or after the last one, a split's renumbering, each payment under
what it pays for, and the text a terminal shows, worked out line by line. No journal file:
each rule is stated on the fewest rows that show it (the journal-read recall is
``tests/test_recall.py``'s).

The hole card's identity appears nowhere before its reveal: the recall shows its
commitment until a ``hole_card_revealed`` row holds the card (docs/journal.md). NY
5324.12(b)(7): each super bonus share is its own line, never in place of a hand's result.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.journal.format import Row
from controller.journal.recall import money, rebuild, render_text

Spec = tuple[str, int | None, dict[str, Any]]


def rows(*specs: Spec) -> list[Row]:
    """Rows 1, 2, ... of ``specs``; row N's ts is second N of one minute."""
    return [
        Row(i, f"2026-12-02T10:00:{i:02d}.000000Z", kind, round_no, json.dumps(data), "", "")
        for i, (kind, round_no, data) in enumerate(specs, start=1)
    ]


def ts(row_id: int) -> str:
    return f"2026-12-02T10:00:{row_id:02d}.000000Z"


def card(round_no: int, seat: int | None, role: str, text: str, hand: int | None = 1) -> Spec:
    return ("card", round_no, {"card": text, "hand": hand, "role": role, "seat": seat})


#: A completed round with everything recall shows, and the rows around it (row ids in the
#: comments).
ROUND_5: list[Spec] = [
    ("station_started", None, {"version": "1"}),  # 1
    ("prompt", None, {"state": "bets"}),  # 2: not recalled
    ("burn", None, {"card": "4S", "reason": "load"}),  # 3
    ("burn_disclosed", None, {"card": "4S"}),  # 4: marks row 3
    ("fault", None, {"code": "device_lost", "message": "shoe", "state": "idle"}),  # 5
    ("fault_resolved", None, {"resolution": "reconnected"}),  # 6: resolves row 5
    (
        "round_started",
        5,
        {
            "round": 5,
            "seats": [
                {"match_cents": 500, "seat": 1, "wager_cents": 2500},
                {"match_cents": None, "seat": 3, "wager_cents": None},
                "not a seat",
            ],
        },
    ),  # 7
    card(5, None, "burn", "2C", None),  # 8
    card(5, 1, "initial", "8S"),  # 9
    card(5, 3, "initial", "5H"),  # 10
    card(5, None, "up", "KH", None),  # 11
    card(5, 1, "initial", "8D"),  # 12
    card(5, 3, "initial", "9C"),  # 13
    ("hole_card_dealt", 5, {"commitment": "abc"}),  # 14
    ("match_settled", 5, {"matches": 2, "net_cents": 4000, "odds": "4:1", "seat": 1}),  # 15
    ("insurance_taken", 5, {"posted": "late", "seat": 3, "stakes": 1}),  # 16
    ("insurance_taken", 5, {"cents": 500, "seat": 1, "stakes": 1}),  # 17: weighed
    ("peek", 5, {"answer": "no_blackjack", "target": "looking_for_ace"}),  # 18
    ("decision", 5, {"decision": "split", "hand": 1, "seat": 1}),  # 19
    card(5, 1, "split", "3S", 1),  # 20
    ("decision", 5, {"decision": "stand", "hand": 1, "seat": 1}),  # 21
    card(5, 1, "split", "KD", 2),  # 22
    ("decision", 5, {"decision": "stand", "hand": 2, "seat": 1}),  # 23
    card(5, None, "rejected", "XX", None),  # 24
    ("hole_card_revealed", 5, {"card": "7C", "nonce": "n"}),  # 25
    ("insurance", 5, {"net_stakes": -1, "outcome": "lose", "seat": 3}),  # 26
    ("insurance", 5, {"net_cents": -500, "net_stakes": -1, "outcome": "lose", "seat": 1}),  # 27
    (
        "settlement",
        5,
        {
            "bonus": None,
            "cards": ["8S", "3S"],
            "hand": 1,
            "net_cents": -2500,
            "odds": "1:1",
            "outcome": "lose",
            "seat": 1,
            "super_bonus_cents": 0,
            "total": 11,
        },
    ),  # 28
    (
        "settlement",
        5,
        {
            "bonus": "6-7-8 mixed",
            "hand": 2,
            "net_cents": 2500,
            "odds": "1:1",
            "outcome": "win",
            "seat": 1,
            "super_bonus_cents": 0,
            "total": 18,
        },
    ),  # 29
    (
        "settlement",
        5,
        {
            "bonus": "suited 7-7-7",
            "fixed_cents": 500000,
            "hand": 1,
            "net_cents": None,
            "net_stakes": 1,
            "odds": "3:2",
            "outcome": "win",
            "seat": 3,
            "super_bonus_cents": 500000,
            "total": 21,
        },
    ),  # 30
    (
        "settlement",
        5,
        {"net_cents": 100000, "note": "NY 5324.12(b)(7)", "seat": 3, "wager": "super_bonus_share"},
    ),  # 31
    ("seat_result", 5, {"net_cents": 3500, "net_stakes": 1.4, "seat": 1}),  # 32
    ("seat_result", 5, {"net_cents": None, "net_stakes": 2, "seat": 3}),  # 33
    ("cover_card", 5, {}),  # 34
    ("fault", 5, {"code": "card_out_of_order", "message": "9D", "state": "deal"}),  # 35
    ("fault_resolved", 5, {"resolution": "continue"}),  # 36
    ("state", 5, {"state": "settling"}),  # 37: not recalled
    ("round_completed", 5, {"reshuffle": True}),  # 38
    ("shuffle_done", None, {"card_count": 288}),  # 39
    ("fault", None, {"code": "device_lost", "message": "shoe", "state": "idle"}),  # 40
]

ROUND_5_TEXT = f"""\
Round 5  {ts(7)}  completed, reshuffle follows
  before the round:
    {ts(1)} station_started version=1
    {ts(3)} burn card=4S reason=load disclosed=True
    {ts(5)} fault code=device_lost message=shoe state=idle resolution=reconnected
  burn 2C (round)
  dealer: KH 7C(hole)
  peek looking_for_ace: no_blackjack
  seat 1: wager $25.00, match $5.00, net +$35.00
    match the dealer: 2 match(es) at 4:1, net +$40.00
    insurance $5.00: lose, net -$5.00
    hand 1: 8S 3S  decisions: split, stand
      11: lose at 1:1, net -$25.00
    hand 2: 8D KD  decisions: stand
      18: win at 1:1, bonus 6-7-8 mixed, net +$25.00
  seat 3: wager ?, net 2 wager(s)
    insurance 1 wager(s) (posted: late): lose, net -1 wager(s)
    hand 1: 5H 9C
      21: win at 3:2, bonus suited 7-7-7, super bonus $5000.00, net 1 wager(s) and +$5000.00
    super bonus share (NY 5324.12(b)(7)): net +$1000.00
  cover card came out
  cards rejected (out of order or foreign): XX
  FAULT card_out_of_order in deal: 9D -> continue

Since the last round:
  {ts(39)} shuffle_done card_count=288
  {ts(40)} fault code=device_lost message=shoe state=idle"""


def test_a_round_and_the_rows_around_it_as_a_terminal_shows_them() -> None:
    assert render_text(rebuild(rows(*ROUND_5))) == ROUND_5_TEXT


def test_a_round_rebuilt_holds_each_row_where_it_belongs() -> None:
    recalled = rebuild(rows(*ROUND_5))
    (r,) = recalled["rounds"]
    assert (r["round"], r["started"], r["ended"], r["status"]) == (5, ts(7), ts(38), "completed")
    assert (r["reshuffle"], r["voided"], r["void"], r["cover_card"]) == (True, None, None, True)
    assert [e["row"] for e in r["before"]] == [1, 3, 5]
    assert r["before"][1]["disclosed"] is True and r["before"][2]["resolution"] == "reconnected"
    assert r["burns"] == [{"card": "2C", "reason": "round"}]
    assert r["dealer"] == {
        "cards": [{"card": "KH", "role": "up"}, r["dealer"]["hole"]],
        "hole": {"card": "7C", "role": "hole", "commitment": "abc"},
    }
    seat_1, seat_3 = r["seats"]
    assert [h["hand"] for h in seat_1["hands"]] == [1, 2]
    assert [h["cards"] for h in seat_1["hands"]] == [["8S", "3S"], ["8D", "KD"]]
    assert seat_1["hands"][1]["settlement"]["total"] == 18
    assert "seat" not in seat_1["hands"][1]["settlement"]
    assert "hand" not in seat_1["hands"][1]["settlement"]
    assert seat_1["match"] == {"matches": 2, "net_cents": 4000, "odds": "4:1"}
    assert seat_3["insurance"] == {
        "posted": "late",
        "stakes": 1,
        "net_stakes": -1,
        "outcome": "lose",
    }
    assert seat_3["super_bonus_shares"] == [
        {"net_cents": 100000, "note": "NY 5324.12(b)(7)", "wager": "super_bonus_share"}
    ]
    assert seat_3["hands"][0]["settlement"]["total"] == 21  # the share left the hand alone
    assert (seat_3["net_cents"], seat_3["net_stakes"]) == (None, 2)
    assert r["faults"] == [
        {"row": 35, "code": "card_out_of_order", "message": "9D", "state": "deal",
         "resolution": "continue"}
    ]  # fmt: skip
    assert [e["row"] for e in recalled["after"]] == [39, 40]
    assert recalled["after"][1]["resolution"] is None


def test_a_split_hand_s_second_card_becomes_the_hand_right_of_it() -> None:
    """docs/journal.md: the pair's second card becomes a new hand right of the split one;
    hands further right move up a number."""
    recalled = rebuild(
        rows(
            ("round_started", 1, {"round": 1, "seats": [{"seat": 2}]}),
            card(1, 2, "initial", "8S", 1),
            card(1, 2, "initial", "8D", 1),
            ("decision", 1, {"decision": "split", "hand": 1, "seat": 2}),
            card(1, 2, "split", "8C", 1),
            ("decision", 1, {"decision": "split", "hand": 1, "seat": 2}),  # 8S 8C split again
            card(1, 2, "split", "2H", 1),
            card(1, 2, "split", "3H", 2),
            card(1, 2, "split", "4H", 3),
        )
    )
    hands = recalled["rounds"][0]["seats"][0]["hands"]
    assert hands == [
        {"hand": 1, "cards": ["8S", "2H"], "decisions": ["split", "split"], "settlement": None},
        {"hand": 2, "cards": ["8C", "3H"], "decisions": [], "settlement": None},
        {"hand": 3, "cards": ["8D", "4H"], "decisions": [], "settlement": None},
    ]
    assert render_text(recalled).splitlines()[-4:] == [
        "  seat 2: wager ?",
        "    hand 1: 8S 2H  decisions: split, split",
        "    hand 2: 8C 3H",
        "    hand 3: 8D 4H",
    ]


def test_a_split_of_a_hand_without_cards_moves_nothing() -> None:
    recalled = rebuild(
        rows(
            ("round_started", 1, {"round": 1, "seats": []}),
            ("decision", 1, {"decision": "split", "hand": 2, "seat": 4}),
        )
    )
    hands = recalled["rounds"][0]["seats"][0]["hands"]
    assert [(h["hand"], h["cards"], h["decisions"]) for h in hands] == [
        (1, [], []),
        (2, [], ["split"]),
    ]
    assert render_text(recalled).splitlines()[-3:] == [
        "  seat 4: wager ?",
        "    hand 1: -",
        "    hand 2: -  decisions: split",
    ]


@pytest.mark.parametrize("number", [None, "2", 0, -1, 1.0, True])
def test_a_hand_number_that_is_no_positive_integer_is_hand_1(number: Any) -> None:
    recalled = rebuild(
        rows(
            ("round_started", 1, {"round": 1, "seats": []}),
            card(1, 6, "initial", "9S", number),
        )
    )
    hands = recalled["rounds"][0]["seats"][0]["hands"]
    assert [(h["hand"], h["cards"]) for h in hands] == [(1, ["9S"])]


def test_a_voided_round_shows_what_stands_and_what_is_returned() -> None:
    recalled = rebuild(
        rows(
            ("round_started", 2, {"round": 2, "seats": []}),
            ("hole_card_dealt", 2, {"commitment": "c0ffee"}),
            (
                "round_voided",
                2,
                {
                    "reason": "supervisor void",
                    "returned": [
                        {"cents": 2500, "hand": 1, "seat": 1, "wager": "main"},
                        {"cents": None, "seat": 3, "wager": "insurance"},
                    ],
                    "stand": [
                        {"net_cents": -500, "seat": 1, "wager": "match"},
                        {"hand": 2, "net_cents": 1000, "seat": 2, "wager": "main"},
                    ],
                },
            ),
        )
    )
    r = recalled["rounds"][0]
    assert (r["status"], r["ended"], r["voided"]) == ("voided", ts(3), "supervisor void")
    assert render_text(recalled) == (
        f"Round 2  {ts(1)}  voided (supervisor void)\n"
        "  dealer: [hole]\n"
        "    hole card sealed, commitment c0ffee\n"
        "  void: seat 1 match stands, net -$5.00\n"
        "  void: seat 2 main hand 2 stands, net +$10.00\n"
        "  void: seat 1 main hand 1 returned, $25.00\n"
        "  void: seat 3 insurance returned, ?"
    )


def test_a_hand_paid_nothing_shows_no_odds() -> None:
    """docs/replay.md: a hand's `odds` is null when nothing is paid (a push), and recall
    then names no odds for it (a paid hand's line reads `19: win at 1:1`)."""
    seat = {"match_cents": None, "seat": 2, "wager_cents": 1000}
    push = {"hand": 1, "net_cents": 0, "odds": None, "outcome": "push", "seat": 2, "total": 18}
    recalled = rebuild(
        rows(
            ("round_started", 4, {"round": 4, "seats": [seat]}),
            card(4, 2, "initial", "TS"),
            card(4, 2, "initial", "8H"),
            ("settlement", 4, push),
            ("round_completed", 4, {"reshuffle": False}),
        )
    )
    assert render_text(recalled) == (
        f"Round 4  {ts(1)}  completed\n"
        "  dealer: -\n"
        "  seat 2: wager $10.00\n"
        "    hand 1: TS 8H\n"
        "      18: push, net $0.00"
    )


def test_each_card_rejected_in_a_round_is_listed_in_the_order_it_came() -> None:
    recalled = rebuild(
        rows(
            ("round_started", 3, {"round": 3, "seats": []}),
            card(3, None, "rejected", "9D", None),
            card(3, None, "rejected", "QS", None),
        )
    )
    assert render_text(recalled).splitlines()[-1] == (
        "  cards rejected (out of order or foreign): 9D, QS"
    )


def test_a_burn_row_journalled_in_a_round_is_one_of_its_burns() -> None:
    """docs/journal.md: a `burn` row holds `card, reason` (a dealer change in the round
    burns a card): recall shows it among the round's burns, with the burn card's own."""
    recalled = rebuild(
        rows(
            ("round_started", 6, {"round": 6, "seats": []}),
            card(6, None, "burn", "5D", None),
            ("burn", 6, {"card": "JC", "reason": "dealer_change"}),
        )
    )
    assert recalled["rounds"][0]["burns"] == [
        {"card": "5D", "reason": "round"},
        {"card": "JC", "reason": "dealer_change"},
    ]
    assert render_text(recalled).splitlines()[1:3] == [
        "  burn 5D (round)",
        "  burn JC (dealer_change)",
    ]


def test_a_seat_keeps_the_number_its_round_start_gave_it() -> None:
    """A seat's result names the seat by a number equal to the round's (here 1.0 for 1):
    it is the same seat, shown as the round's start named it."""
    recalled = rebuild(
        rows(
            ("round_started", 8, {"round": 8, "seats": [{"seat": 1, "wager_cents": 500}]}),
            ("seat_result", 8, {"net_cents": 500, "seat": 1.0}),
        )
    )
    (seat,) = recalled["rounds"][0]["seats"]
    assert (repr(seat["seat"]), seat["net_cents"]) == ("1", 500)
    assert render_text(recalled).splitlines()[-1] == "  seat 1: wager $5.00, net +$5.00"


def test_a_round_without_cards_an_end_or_seats() -> None:
    recalled = rebuild(rows(("round_started", 9, {"round": 9}), ("state", 9, {"state": "bets"})))
    r = recalled["rounds"][0]
    assert (r["status"], r["started"], r["ended"], r["seats"]) == ("in_progress", ts(1), None, [])
    assert render_text(recalled) == f"Round 9  {ts(1)}  in_progress\n  dealer: -"


def test_a_reveal_without_its_dealt_row_still_shows_the_card() -> None:
    """verify reports the missing commitment; recall shows the card revealed."""
    recalled = rebuild(
        rows(
            ("round_started", 1, {"round": 1, "seats": []}),
            ("hole_card_revealed", 1, {"card": "QH", "nonce": "n"}),
        )
    )
    dealer = recalled["rounds"][0]["dealer"]
    assert dealer == {
        "cards": [{"card": "QH", "role": "hole", "commitment": None}],
        "hole": {"card": "QH", "role": "hole", "commitment": None},
    }
    assert "  dealer: QH(hole)" in render_text(recalled).splitlines()


def test_faults_are_resolved_last_opened_first_and_a_lone_resolution_is_shown() -> None:
    recalled = rebuild(
        rows(
            ("fault", None, {"code": "a"}),
            ("fault", None, {"code": "b"}),
            ("fault_resolved", None, {"resolution": "for b"}),
            ("fault_resolved", None, {"resolution": "for a"}),
            ("fault_resolved", None, {"resolution": "for none"}),
            ("round_started", 1, {"round": 1, "seats": []}),
            ("fault_resolved", 1, {"resolution": "no fault open"}),
            ("fault", 1, {"code": "c"}),
            ("fault", 1, {"code": "d"}),
            ("fault_resolved", 1, {"resolution": "for d"}),
        )
    )
    r = recalled["rounds"][0]
    assert [(e["kind"], e.get("code"), e["resolution"]) for e in r["before"]] == [
        ("fault", "a", "for a"),
        ("fault", "b", "for b"),
        ("fault_resolved", None, "for none"),
    ]
    assert [(f["code"], f["resolution"]) for f in r["faults"]] == [("c", None), ("d", "for d")]
    assert render_text(recalled).splitlines()[-2:] == [
        "  FAULT c in None: None -> unresolved",
        "  FAULT d in None: None -> for d",
    ]


def test_a_burn_disclosed_marks_the_last_burn_of_that_card_only() -> None:
    recalled = rebuild(
        rows(
            ("burn", None, {"card": "QC", "reason": "load"}),
            ("burn", None, {"card": "4S", "reason": "dealer_change"}),
            ("burn", None, {"card": "QC", "reason": "dealer_change"}),
            ("burn_disclosed", None, {"card": "QC"}),
            ("burn_disclosed", None, {"card": "9D"}),  # no such burn: shown as it is
        )
    )
    assert [(e["row"], e["kind"], e.get("disclosed")) for e in recalled["after"]] == [
        (1, "burn", False),
        (2, "burn", False),
        (3, "burn", True),
        (5, "burn_disclosed", None),
    ]
    assert recalled["rounds"] == []
    assert render_text(recalled).splitlines()[0] == "Since the last round:"


def test_a_journal_without_rows_recalls_no_round() -> None:
    assert rebuild([]) == {"rounds": [], "after": []}
    assert render_text(rebuild([])) == "no rounds in the journal"


def test_rounds_are_separate_blocks_each_with_the_rows_before_it() -> None:
    recalled = rebuild(
        rows(
            ("shoe_loaded", None, {}),
            ("round_started", 1, {"round": 1, "seats": []}),
            ("round_completed", 1, {"reshuffle": False}),
            ("dealer_change", None, {"dealer": None}),
            ("round_started", 2, {"round": 2, "seats": []}),
            ("round_completed", 2, {}),
        )
    )
    assert [r["reshuffle"] for r in recalled["rounds"]] == [False, False]
    assert render_text(recalled) == (
        f"Round 1  {ts(2)}  completed\n  before the round:\n    {ts(1)} shoe_loaded\n"
        "  dealer: -\n\n"
        f"Round 2  {ts(5)}  completed\n  before the round:\n    {ts(4)} dealer_change\n"
        "  dealer: -"
    )


@pytest.mark.parametrize(
    ("cents", "signed", "text"),
    [
        (0, False, "$0.00"),
        (0, True, "$0.00"),
        (1, True, "+$0.01"),
        (-1, True, "-$0.01"),
        (-1, False, "-$0.01"),
        (105, False, "$1.05"),
        (-250075, True, "-$2500.75"),
        (None, False, "?"),
        (True, False, "?"),  # a flag is no amount
        (12.5, False, "?"),
    ],
)
def test_money_in_integer_cents(cents: Any, signed: bool, text: str) -> None:
    assert money(cents, signed=signed) == text
