"""What each payment records besides its amount: the seat and the hand it settles, the wager
(main, Match the Dealer, insurance, a super bonus share), the odds it was paid at and the
bonus (the journal's ``settlement``, ``match_settled`` and ``insurance`` rows,
docs/journal.md, and the replay's ``seats[].hands[]``, docs/replay.md). And the money cases
next to a boundary: a 20 against a dealer 21 of three cards, a five-card 20, a split hand
of three cards against a dealer blackjack, a split 21 under a profile that has it lose.

Every expected payment is worked by hand from the clause cited beside it; the seat (5) and
the hand (the second, index 1) are not the defaults of ``tests/test_rules_settlement.py``,
so a payment that names another seat or hand is seen.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.rules.cards import parse_card
from controller.rules.hands import HandStatus, PlayerHand, hand_total, is_blackjack_pair
from controller.rules.odds import EVEN, THREE_TO_TWO, TWO_TO_ONE, Odds
from controller.rules.options import Bonus, MatchPayTable, SplitTwentyOne
from controller.rules.profiles import NEW_JERSEY, NEW_YORK, PENNSYLVANIA, Profile, get_profile
from controller.rules.round import Round
from controller.rules.settlement import (
    DealerResult,
    Outcome,
    Payment,
    WagerKind,
    apply_original_only,
    match_the_dealer,
    settle_hand,
    settle_insurance,
    settle_rescue,
    settle_surrender,
)
from controller.rules.steps import Decision, SeatWager

PA, NJ, NY = PENNSYLVANIA, NEW_JERSEY, NEW_YORK
SEAT, INDEX, WAGER = 5, 1, 1000  # seat 5's second hand, $10.00
MAIN, LOSE, WIN, PUSH = WagerKind.MAIN, Outcome.LOSE, Outcome.WIN, Outcome.PUSH


def hand(
    text: str, *, split: bool = False, doubled: bool = False, index: int = INDEX
) -> PlayerHand:
    """A finished hand of seat 5 (stood, or bust over 21)."""
    h = PlayerHand(SEAT, index, WAGER, from_split=split)
    for t in text.split():
        h.add(parse_card(t))
    if doubled:
        h.double_cents = WAGER
    if h.total > 21:
        h.status = HandStatus.BUST
    elif h.total == 21:
        h.status = HandStatus.BLACKJACK if h.is_blackjack else HandStatus.TWENTY_ONE
    else:
        h.status = HandStatus.STOOD
    return h


def dealer(text: str) -> DealerResult:
    cards = [parse_card(t) for t in text.split()]
    total, _ = hand_total(cards)
    return DealerResult(total, len(cards), len(cards) == 2 and is_blackjack_pair(*cards), cards[0])


def main(outcome: Outcome, net: int, odds: Odds | None = None, **more: object) -> Payment:
    """The main-wager payment of seat 5's second hand."""
    return Payment(SEAT, MAIN, outcome, net, INDEX, odds, **more)  # type: ignore[arg-type]


def without_note(payment: Payment) -> Payment:
    return payment._replace(note="")


def suited_777_round(profile: Profile, other_seat: int = 2) -> Round:
    """NY 5324.12(b)(7)'s hand: seat 1 ($10.00) draws to 7-7-7 of diamonds against a dealer
    7 (7S, then KC: 17); ``other_seat`` ($10.00) stands on 9S 8S. The round is settled."""
    round_ = Round(profile, 6, [SeatWager(1, 1000), SeatWager(other_seat, 1000)])
    for text in ("7D", "9S", "7S", "7D", "8S", "KC"):
        round_.deal(parse_card(text))
    round_.decide(1, Decision.HIT)
    round_.deal(parse_card("7D"))
    round_.decide(other_seat, Decision.STAND)
    round_.reveal_hole()
    return round_


@pytest.mark.parametrize(
    ("player", "dealer_cards", "profile", "expected"),
    [
        # PA 635a.7(n)(1): over 21 loses, whatever the dealer holds.
        (hand("KS 9H 5D"), "KC 7D", PA, main(LOSE, -1000)),
        # PA 635a.7(n)(3), NY (b)(5): a blackjack is paid 3:2 ($15.00 on $10.00).
        (hand("AS KH"), "9C KD", PA, main(Outcome.BLACKJACK, 1500, THREE_TO_TWO)),
        # PA 635a.7(o), NY (b)(2): 21 in three cards loses to a dealer blackjack.
        (hand("5S 6H KD"), "AC QD", PA, main(LOSE, -1000)),
        # PA 635a.7(n)(2): the lower total loses.
        (hand("KS 8H"), "KC QD", PA, main(LOSE, -1000)),
        # PA 635a.7(n)(2): a 20 is lower than a dealer 21 of three cards, and loses.
        (hand("KS QH"), "5C 6D KH", PA, main(LOSE, -1000)),
        (hand("KS QH"), "5C 6D KH", NY, main(LOSE, -1000)),
        # PA 635a.7(o): equal totals under 21 push.
        (hand("KS 8H"), "9C 9D", PA, main(PUSH, 0)),
        # NY (b)(1)(ii): the higher total wins 1:1, a five-card 20 too (only a 21 earns a
        # bonus, (b)(6)).
        (hand("2S 3H 4D 5C 6S"), "KC 9D", NY, main(WIN, 1000, EVEN)),
        (hand("2S 3H 4D 5C 6S"), "KC 9D", PA, main(WIN, 1000, EVEN)),
        # NY (b)(6)(v): a five-card 21 not doubled is paid 3:2.
        (
            hand("2S 3H 4D 5C 7S"),
            "KC 9D",
            NY,
            main(WIN, 1500, THREE_TO_TWO, bonus=Bonus.FIVE_CARD_21),
        ),
        # NY (b)(6): a doubled bonus hand is paid 1:1 on the wager and the double ($20.00).
        (
            hand("6H 7D 8S", doubled=True),
            "KC 9D",
            NY,
            main(WIN, 2000, EVEN, bonus=Bonus.SIX_SEVEN_EIGHT_MIXED),
        ),
        # NY (b)(1)(iii), (b)(5): a split hand's 21 in two cards beats a dealer 21 and a
        # dealer blackjack, paid 3:2; it is no blackjack (the outcome is a win).
        (hand("AS KH", split=True), "5C 6D KH", NY, main(WIN, 1500, THREE_TO_TWO)),
        (hand("AS KH", split=True), "AC QD", NY, main(WIN, 1500, THREE_TO_TWO)),
        # NY (b)(2): a split hand's 21 in three cards is "21 in more than two cards": it loses
        # to a dealer blackjack, whatever a split two-card 21 would do.
        (hand("5S 6H KD", split=True), "AC QD", NY, main(LOSE, -1000)),
        (hand("5S 6H KD", split=True), "AC QD", NJ, main(LOSE, -1000)),
        # PA 635a.7(n)(4): the same hand beats a dealer 21 of three cards.
        (hand("5S 6H KD", split=True), "4C 7D KH", NJ, main(WIN, 1000, EVEN)),
        # A profile whose split two-card 21 loses (NJ allows the option): the wager is lost,
        # never paid.
        (
            hand("AS KH", split=True),
            "AC QD",
            NJ.with_options(split_21_vs_dealer_blackjack=SplitTwentyOne.LOSE),
            main(LOSE, -1000),
        ),
        (
            hand("AS KH", split=True),
            "5C 6D KH",
            NJ.with_options(split_21_vs_dealer_21=SplitTwentyOne.LOSE),
            main(LOSE, -1000),
        ),
        # PA 635a.7(o): under PA's reading a split two-card 21 ties a dealer 21.
        (hand("AS KH", split=True), "5C 6D KH", PA, main(PUSH, 0)),
    ],
)
def test_a_hand_is_settled_for_its_seat_and_hand_at_the_odds_of_its_clause(
    player: PlayerHand, dealer_cards: str, profile: Profile, expected: Payment
) -> None:
    assert without_note(settle_hand(player, dealer(dealer_cards), profile)) == expected


def test_the_decisions_settled_at_once_name_their_seat_hand_and_wager() -> None:
    # Late surrender (ASSUMPTION, PA 635a.9): half of $10.00 is lost.
    assert settle_surrender(hand("KS 6H")) == main(Outcome.SURRENDER, -500)
    # Double-down rescue (PA 635a.10): the original $10.00 is lost, the double returned.
    assert settle_rescue(hand("5S 6H 4D", doubled=True)) == main(Outcome.RESCUE, -1000)


def test_insurance_is_recorded_as_the_seats_insurance() -> None:
    # PA 635a.8: $5.00 of insurance pays 2:1 on a dealer blackjack, and is lost otherwise.
    assert settle_insurance(SEAT, 500, True) == Payment(
        SEAT, WagerKind.INSURANCE, WIN, 1000, odds=TWO_TO_ONE
    )
    assert settle_insurance(SEAT, 500, False) == Payment(SEAT, WagerKind.INSURANCE, LOSE, -500)


def test_match_the_dealer_is_recorded_as_the_seats_match_wager_with_its_odds() -> None:
    # NY 5324.12(d)(4), (d)(5) table A: one card of the up card's rank and suit is paid 9:1
    # ($45.00 on $5.00); no match loses the $5.00.
    up = parse_card("7H")
    won = match_the_dealer(SEAT, 500, (parse_card("7H"), parse_card("KS")), up, MatchPayTable.A)
    assert without_note(won) == Payment(
        SEAT, WagerKind.MATCH, WIN, 4500, odds=Odds(9, 1), matches=1
    )
    lost = match_the_dealer(SEAT, 500, (parse_card("8H"), parse_card("KS")), up, MatchPayTable.A)
    assert lost == Payment(SEAT, WagerKind.MATCH, LOSE, -500)


def test_a_dealer_blackjack_after_a_bust_returns_the_seats_other_wagers() -> None:
    """ASSUMPTION (original wager only, docs/rules.md ``dealer_blackjack_takes``): a seat's
    hand that busted lost its wager and double when it busted; a dealer blackjack found
    later takes nothing more from the seat, so its other losing hand is returned."""
    payments = [
        Payment(SEAT, MAIN, LOSE, -2000, 0),  # busted after a double
        Payment(SEAT, MAIN, LOSE, -2000, 1),  # stood on a double, lost to the blackjack
    ]
    apply_original_only(payments, WAGER, NJ, busted=frozenset({0}))
    assert [without_note(p) for p in payments] == [
        Payment(SEAT, MAIN, LOSE, -2000, 0),
        Payment(SEAT, MAIN, PUSH, 0, 1),
    ]


def test_a_dealer_blackjack_after_play_takes_the_original_wager_from_the_first_losing_hand() -> (
    None
):
    """ASSUMPTION (original wager only): a seat's first losing hand gives up the original
    $10.00, the doubled and split wagers of its hands are returned; a hand that won stays
    won (the blackjack of another seat's hand does not concern it)."""
    payments = [
        Payment(SEAT, MAIN, PUSH, 0, 0),
        Payment(SEAT, MAIN, LOSE, -2000, 1),
        Payment(SEAT, MAIN, LOSE, -1000, 2),
    ]
    apply_original_only(payments, WAGER, NJ)
    assert [without_note(p) for p in payments] == [
        Payment(SEAT, MAIN, PUSH, 0, 0),
        Payment(SEAT, MAIN, LOSE, -1000, 1),
        Payment(SEAT, MAIN, PUSH, 0, 2),
    ]


def test_a_super_bonus_share_is_a_win_of_the_other_seat_naming_the_hand_it_follows() -> None:
    # NY 5324.12(b)(7): suited 7-7-7 against a dealer 7 on seat 1's $10.00 earns seat 1 the
    # $1,000 super bonus and seat 2, who also wagered, $50.00.
    round_ = suited_777_round(get_profile("NY"))
    shares = [p for p in round_.payments if p.wager is WagerKind.SUPER_BONUS_SHARE]
    assert [without_note(p) for p in shares] == [Payment(2, WagerKind.SUPER_BONUS_SHARE, WIN, 5000)]
    assert "seat 1" in shares[0].note
    first = next(p for p in round_.payments if p.seat == 1 and p.wager is MAIN)
    # 2:1 on $10.00 and the $1,000 super bonus (NY (b)(6)(iv), (b)(7)).
    assert (first.outcome, first.net, first.super_bonus) == (WIN, 2000 + 100_000, 100_000)


def test_a_profile_without_a_share_pays_the_other_seats_nothing() -> None:
    """A PA table (NY's bonuses as an assumption, settable: docs/rules.md) that sets its
    super bonus without the other players' share (``share_cents = 0``): the suited 7-7-7
    earns its own hand's bonus, and no other seat gets a payment for it (not even $0.00)."""
    from controller.rules.options import SuperBonus

    profile = PENNSYLVANIA.with_options(super_bonus=SuperBonus(500, 100_000, 2_500, 500_000, 0))
    round_ = suited_777_round(profile)
    assert [p.seat for p in round_.payments if p.wager is WagerKind.SUPER_BONUS_SHARE] == []
    # Seat 1: 2:1 on $10.00 and the $1,000; seat 2's 17 ties the dealer's 17 (PA 635a.7(o)).
    assert sorted((p.seat, p.net) for p in round_.payments) == [(1, 2000 + 100_000), (2, 0)]


def documented_notes() -> list[str]:
    """The payment notes docs/journal.md lists, each as written there (`super bonus at seat
    N` with N as written)."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "journal.md").read_text()
    block = text.split("<!-- payment notes: ")[1].split("<!-- payment notes end -->")[0]
    return [item.split("`")[1] for item in block.split("\n- ")[1:]] + ["2 matching cards"]


def test_each_payment_that_is_not_its_outcome_alone_carries_the_note_the_journal_documents() -> (
    None
):
    notes = documented_notes()
    # A split two-card 21 against a dealer 21 and a dealer blackjack (NY (b)(1)(iii)).
    split_21 = hand("AS KH", split=True)
    assert settle_hand(split_21, dealer("5C 6D KH"), NY).note == notes[0]
    assert settle_hand(split_21, dealer("AC QD"), NY).note == notes[0]
    assert settle_hand(split_21, dealer("AC QD"), PA).note == notes[0]
    # A doubled 6-7-8 (NY (b)(6)).
    assert settle_hand(hand("6H 7D 8S", doubled=True), dealer("KC 9D"), NY).note == notes[1]
    # A dealer blackjack after play: the first losing hand gives up the original wager, the
    # other is returned.
    payments = [Payment(SEAT, MAIN, LOSE, -2000, 0), Payment(SEAT, MAIN, LOSE, -2000, 1)]
    apply_original_only(payments, WAGER, NJ)
    assert [p.note for p in payments] == [notes[2], notes[3]]
    # A plain win, loss or push says nothing more.
    for player, shown in (("KS 9H", "KC 7D"), ("KS 6H", "KC 8D"), ("KS 8H", "9C 9D")):
        assert settle_hand(hand(player), dealer(shown), NY).note == ""
    # Match the Dealer: the number of matching cards.
    up = parse_card("7H")
    one = match_the_dealer(SEAT, 500, (parse_card("7H"), parse_card("KS")), up, MatchPayTable.A)
    two = match_the_dealer(SEAT, 500, (parse_card("7H"), parse_card("7C")), up, MatchPayTable.A)
    assert (one.note, two.note) == (notes[5], notes[6])


def test_the_super_bonus_share_note_names_the_seat_of_the_hand() -> None:
    round_ = suited_777_round(get_profile("NY"), 3)
    (share,) = [p for p in round_.payments if p.wager is WagerKind.SUPER_BONUS_SHARE]
    assert share.seat == 3
    assert share.note == documented_notes()[4].replace("N", "1")
