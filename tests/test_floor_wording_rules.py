"""What the console's recall says for each journal row and each payment (``floor.wording``),
without a server: every row of the record vocabulary (docs/journal.md) in words, money in
integer cents shown in dollars with its sign, and the hole card never named before
``hole_card_revealed`` (PA 635a.7(g): the commitment only, docs/journal.md).

Every expected line is written out by hand from the vocabulary's fields.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from floor.wording import JournalLine, Line, cents, describe, payment, rank_counts, word


def row(kind: str, **data: Any) -> JournalLine:
    return JournalLine(7, "2026-12-01T21:27:10.852000Z", kind, 42, data, "h" * 64)


# --- stored columns --------------------------------------------------------------------------


def test_a_line_is_read_from_its_stored_columns() -> None:
    line = JournalLine.of(3, "2026-12-01T21:27:10Z", "burn", 5, '{"card": "7H"}', "ab")
    assert line == JournalLine(3, "2026-12-01T21:27:10Z", "burn", 5, {"card": "7H"}, "ab")


@pytest.mark.parametrize("text", ["[1, 2]", '"card"', "17", "null", "not json", "{"])
def test_data_that_is_not_a_json_object_reads_as_empty(text: str) -> None:
    assert JournalLine.of(3, "t", "burn", None, text, "ab").data == {}


# --- fields as words -------------------------------------------------------------------------


def test_a_field_reads_as_words_only_when_it_is_a_plain_identifier() -> None:
    assert word(None) == ""
    assert word("super_bonus") == "super bonus"
    assert word("looking_for_ace") == "looking for ace"
    assert word("five_card_21") == "five card 21"
    assert word("Super_Bonus") == "Super_Bonus"  # not a plain identifier: as it came
    assert word("a_b<script>") == "a_b<script>"
    assert word("") == ""
    assert word(6) == "6" and word(True) == "true" and word(1.5) == "1.5"
    assert word({"a_b": 1}) == '{"a_b": 1}'
    forty = "a_" + "b" * 38
    assert word(forty) == "a " + "b" * 38
    assert word(forty + "c") == forty + "c"  # 41 characters: as it came


def test_rank_counts_in_rank_order_with_face_names() -> None:
    per_rank = {"13": 24, "2": 24, "10": 24, "1": 24, "11": 24, "12": 24, "x": 1}
    assert rank_counts(per_rank) == "A x24, 2 x24, 10 x24, J x24, Q x24, K x24, x x1"
    assert rank_counts(["1", 24]) == "" and rank_counts(None) == ""


def test_cents_are_integers_only() -> None:
    assert cents(1500) == 1500 and cents(-5) == -5 and cents(0) == 0
    assert cents(True) is None and cents(15.0) is None and cents("1500") is None
    assert cents(None) is None


# --- each row in words -----------------------------------------------------------------------

ROWS = [
    (
        row(
            "station_started",
            table_id="PA-S21-01",
            version="1.4.0",
            profile="pa",
            decks=6,
            sealed=True,
        ),
        "station started: table PA-S21-01, version 1.4.0, profile pa, 6 decks, sealed",
    ),
    (
        row("station_started", table_id="T1", version="1", profile="ny", decks=8, sealed="true"),
        "station started: table T1, version 1, profile ny, 8 decks, not sealed",
    ),
    (
        row(
            "device",
            device="card_reader",
            status="connected",
            serial="SN-1",
            firmware="2.1",
            reason="link_lost",
        ),
        "card reader connected (serial SN-1, firmware 2.1, reason link lost)",
    ),
    (row("device", device="shoe", status="disconnected", serial=""), "shoe disconnected"),
    (row("device", device="shoe", status="connected", firmware="3"), "shoe connected (firmware 3)"),
    (row("shuffle_commanded", decks=6), "shuffle of 6 decks commanded"),
    (row("hand_shuffle_done", decks=2), "hand shuffle of 2 decks confirmed"),
    (
        row("shuffle_done", card_count=96, per_rank={"1": 8, "13": 8}),
        "shuffler counted 96 cards: A x8, K x8",
    ),
    (row("shoe_loaded"), "shoe loaded"),
    (row("shoe_count", load=3, last=0), "shoe count: load 3, 0 cards drawn"),
    (row("shoe_count", load=12, last=287), "shoe count: load 12, 287 cards drawn"),
    (row("burn", card="7H", reason="new_shoe"), "burn 7H (new shoe)"),
    (row("burn_disclosed", card="7H"), "burn card 7H disclosed on request"),
    (row("dealer_change", dealer="d1"), "dealer change"),
    (
        row("fault", code="E_SHOE", state="dealing", message="no card"),
        "FAULT E_SHOE in dealing: no card",
    ),
    (
        row("fault_resolved", resolution="void_round"),
        "fault resolved by the supervisor: void round",
    ),
    (row("clean_shutdown"), "station stopped"),
    (row("peek_requested", target="looking_for_ten"), "card reader asked: looking for ten"),
    (row("peek", answer="no"), "card reader answered: no"),
    (
        row("hole_card_dealt", commitment="9f2c", sealed_by="shoe"),
        "hole card dealt face down, commitment 9f2c",
    ),
    (row("hole_card_revealed", card="KS", nonce="00ff"), "hole card turned: KS"),
    (row("cover_card"), "cover card came out: reshuffle after this round"),
    (row("round_started", seats=[1, 2]), "round started"),
    (row("Odd<Kind>"), "Odd<Kind>"),
]


@pytest.mark.parametrize(("line", "text"), ROWS, ids=[r[0].kind for r in ROWS])
def test_each_row_in_words(line: JournalLine, text: str) -> None:
    assert describe(line) == text


def test_a_row_without_its_fields_still_reads() -> None:
    assert describe(row("station_started")) == (
        "station started: table , version , profile ,  decks, not sealed"
    )
    assert describe(row("fault")) == "FAULT  in : "


# --- the hole card ---------------------------------------------------------------------------

BEFORE_THE_REVEAL = [
    "hole_card_dealt",
    "hole_card_reveal_requested",
    "hole_card_reveal_answer",
    "hole_card_rejected",
    "peek_requested",
    "peek",
    "round_started",
    "card_dealt",
    "decision",
    "settlement",
    "device",
    "fault",
    "station_started",
]
MARK = st.text(alphabet="QWXYZ", min_size=6, max_size=12)


@given(kind=st.sampled_from(BEFORE_THE_REVEAL), card=MARK, nonce=MARK)
def test_the_hole_card_is_never_named_before_its_reveal(kind: str, card: str, nonce: str) -> None:
    # Even a row that carried it by mistake: no line but the reveal reads a "card" field.
    line = row(kind, card=card, nonce=nonce, commitment="9f2c", hole_card=card)
    for text in (describe(line), payment(line, "16:27:10").text):
        assert card not in text and nonce not in text
    assert card in describe(row("hole_card_revealed", card=card, nonce=nonce))


# --- payments --------------------------------------------------------------------------------


def test_a_main_hand_paid_at_bonus_odds() -> None:
    line = row(
        "settlement",
        seat=3,
        wager="main",
        outcome="win",
        odds="3:2",
        total=21,
        net_cents=1500,
        bonus="five_card_21",
    )
    assert payment(line, "16:27:10") == Line(
        7, "16:27:10", "21 win at 3:2 bonus five card 21: +$15.00", 1500
    )


@pytest.mark.parametrize(
    ("data", "text", "net"),
    [
        (
            {"wager": "main", "outcome": "lose", "total": 22, "net_cents": -2500},
            "22 lose: -$25.00",
            -2500,
        ),
        ({"wager": "main", "outcome": "push", "total": 20, "net_cents": 0}, "20 push: $0.00", 0),
        (
            {"wager": "main", "outcome": "win", "net_cents": 123456789},
            "win: +$1,234,567.89",
            123456789,
        ),
        ({"wager": "main", "outcome": "lose", "net_cents": -5}, "lose: -$0.05", -5),
        (
            {"wager": "super_bonus_share", "outcome": "win", "net_cents": 100000},
            "super bonus share win: +$1,000.00",
            100000,
        ),
        (
            {"wager": "match", "outcome": "win", "matches": 2, "odds": "8:1", "net_cents": 4000},
            "Match the Dealer: 2 match(es) win at 8:1: +$40.00",
            4000,
        ),
        (
            {"wager": "match", "outcome": "lose", "matches": 0, "net_cents": -500},
            "Match the Dealer: no match lose: -$5.00",
            -500,
        ),
        (
            {"wager": "insurance", "outcome": "win", "odds": "2:1", "net_cents": 1000},
            "insurance win at 2:1: +$10.00",
            1000,
        ),
        (
            {
                "wager": "main",
                "outcome": "win",
                "total": 21,
                "odds": "3:2",
                "net_cents": 1500,
                "super_bonus": True,
                "super_bonus_cents": 500000,
            },
            "21 win at 3:2 super bonus $5,000.00: +$15.00",
            1500,
        ),
        (
            {
                "wager": "main",
                "outcome": "win",
                "super_bonus": "true",
                "super_bonus_cents": 9,
                "net_cents": 1,
            },
            "win: +$0.01",
            1,
        ),
        (
            {"wager": "main", "outcome": "win", "super_bonus": True, "net_cents": 1},
            "win super bonus ?: +$0.01",
            1,
        ),
        (
            {"wager": "main", "outcome": "win", "net_cents": None, "net_stakes": "1.5"},
            "win: 1.5 wager(s)",
            None,
        ),
        (
            {"wager": "main", "outcome": "win", "net_cents": True, "net_stakes": "1"},
            "win: 1 wager(s)",
            None,
        ),
        ({"wager": "main", "outcome": "win", "net_cents": 150.0}, "win:  wager(s)", None),
        (
            {"wager": "main", "outcome": "lose", "net_cents": -1000, "note": "dealer_error"},
            "lose (dealer error): -$10.00",
            -1000,
        ),
        (
            {
                "wager": "main",
                "outcome": "win",
                "odds": "",
                "bonus": "",
                "note": "",
                "net_cents": 1,
            },
            "win: +$0.01",
            1,
        ),
        ({"wager": "side", "outcome": "win", "net_cents": 1}, "win: +$0.01", 1),
    ],
)
def test_each_payment_in_words_and_cents(data: dict[str, Any], text: str, net: int | None) -> None:
    paid = payment(row("settlement", **data), "16:27:10.852")
    assert (paid.row, paid.at, paid.text, paid.cents) == (7, "16:27:10.852", text, net)


def dollars(text: str) -> int:
    """A shown amount back in cents, worked by hand: sign, dollars without commas, cents."""
    amount = text.rsplit(": ", 1)[1]
    sign = -1 if amount.startswith("-") else 1
    whole, _, part = amount.lstrip("+-").removeprefix("$").partition(".")
    assert len(part) == 2 and all(len(g) == 3 for g in whole.split(",")[1:])
    return sign * (int(whole.replace(",", "")) * 100 + int(part))


@given(st.integers(-(10**12), 10**12))
def test_any_net_in_cents_is_shown_as_exactly_those_cents(net: int) -> None:
    paid = payment(row("settlement", wager="main", outcome="win", net_cents=net), "t")
    assert dollars(paid.text) == net and paid.cents == net
    assert paid.text.endswith(f"${abs(net) // 100:,}.{abs(net) % 100:02d}")
    assert ("+" in paid.text) == (net > 0) and ("-$" in paid.text) == (net < 0)


@given(
    st.dictionaries(
        st.text(max_size=8), st.none() | st.booleans() | st.integers() | st.text(max_size=8)
    )
)
@example({"kind": None, "card": 7, "": "x"})
def test_any_row_data_reads_without_an_error(data: dict[str, Any]) -> None:
    for kind in ("settlement", "match_settled", "device", "fault", "shuffle_done", "x"):
        # Any key a station's row may hold, "kind" and non-identifiers included.
        line = JournalLine(7, "2026-12-01T21:27:10.852000Z", kind, 42, data, "h" * 64)
        assert isinstance(describe(line), str)
        assert isinstance(payment(line, "t").text, str)


def test_a_count_that_is_not_a_rank_comes_after_every_rank() -> None:
    # A station's counts are keyed 1-13; anything else it sends is shown after them all.
    assert rank_counts({"x": 1, "100": 2, "1": 3}) == "A x3, 100 x2, x x1"
