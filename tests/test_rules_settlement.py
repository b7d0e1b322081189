"""Settlement against PA 635a.7(n)-(o) and NY 5324.12(b), (d); expected amounts by hand."""

from __future__ import annotations

import pytest

from controller.rules.cards import parse_card
from controller.rules.hands import HandStatus, PlayerHand, hand_total, is_blackjack_pair
from controller.rules.odds import EVEN, THREE_TO_TWO, Odds
from controller.rules.profiles import (
    NEW_JERSEY,
    NEW_YORK,
    PENNSYLVANIA,
    PROFILES,
    DealerBlackjackTakes,
    MatchPayTable,
    Profile,
    SettlementOrder,
)
from controller.rules.settlement import (
    Bonus,
    DealerResult,
    Outcome,
    Payment,
    WagerKind,
    apply_original_only,
    bonus_of,
    in_settlement_order,
    match_the_dealer,
    settle_hand,
    settle_insurance,
    settle_rescue,
    settle_surrender,
    super_bonus_cents,
)

PA, NJ, NY = PENNSYLVANIA, NEW_JERSEY, NEW_YORK


def hand(
    text: str,
    wager: int = 1000,
    *,
    split: bool = False,
    doubled: bool = False,
    status: HandStatus | None = None,
) -> PlayerHand:
    h = PlayerHand(3, 0, wager, from_split=split)
    for t in text.split():
        h.add(parse_card(t))
    if doubled:
        h.double_cents = wager
    if status is None:
        if h.total > 21:
            status = HandStatus.BUST
        elif h.total == 21:
            status = HandStatus.BLACKJACK if h.is_blackjack else HandStatus.TWENTY_ONE
        else:
            status = HandStatus.STOOD
    h.status = status
    return h


def dealer(text: str) -> DealerResult:
    cards = [parse_card(t) for t in text.split()]
    total, _ = hand_total(cards)
    blackjack = len(cards) == 2 and is_blackjack_pair(*cards)
    return DealerResult(total, len(cards), blackjack, cards[0])


def settle(player: PlayerHand, dealer_text: str, profile: Profile = PA) -> Payment:
    return settle_hand(player, dealer(dealer_text), profile)


def outcome_net(payment: Payment) -> tuple[Outcome, int]:
    return payment.outcome, payment.net


# --- winning conditions --------------------------------------------------------------------


@pytest.mark.parametrize("profile", list(PROFILES.values()))
def test_pa_635a_7_n_1_player_wins_when_dealer_busts(profile: Profile) -> None:
    assert outcome_net(settle(hand("9S 3H"), "6C QH 9S", profile)) == (Outcome.WIN, 1000)
    assert settle(hand("9S 3H"), "6C QH 9S", profile).odds == EVEN


def test_ny_5324_12_b_1_ii_higher_total_wins_even_money() -> None:
    assert outcome_net(settle(hand("KS 9H"), "7C KH", NY)) == (Outcome.WIN, 1000)


def test_pa_635a_7_n_2_lower_total_loses() -> None:
    assert outcome_net(settle(hand("KS 7H"), "9C KH")) == (Outcome.LOSE, -1000)


@pytest.mark.parametrize("profile", list(PROFILES.values()))
@pytest.mark.parametrize(("player", "dealer_cards"), [("KS 8H", "9C 9D"), ("KS 7H", "AC 6D")])
def test_pa_635a_7_o_equal_totals_push(profile: Profile, player: str, dealer_cards: str) -> None:
    assert outcome_net(settle(hand(player), dealer_cards, profile)) == (Outcome.PUSH, 0)


def test_ny_5324_12_b_2_equal_totals_void() -> None:
    assert outcome_net(settle(hand("9S 9H 2D"), "KC 5D 5H", NY)) == (Outcome.PUSH, 0)


def test_pa_635a_7_n_1_bust_loses_even_when_the_dealer_busts() -> None:
    assert outcome_net(settle(hand("KS 6H 9D"), "6C QH 9S")) == (Outcome.LOSE, -1000)


def test_pa_635a_10_assumed_doubled_bust_loses_wager_and_double() -> None:
    assert outcome_net(settle(hand("KS 6H 9D", doubled=True), "6C QH 9S")) == (
        Outcome.LOSE,
        -2000,
    )


def test_pa_635a_10_assumed_doubled_hand_wins_on_wager_and_double() -> None:
    assert outcome_net(settle(hand("5S 6H 9D", doubled=True), "9C 9H")) == (Outcome.WIN, 2000)


# --- blackjack -----------------------------------------------------------------------------


def test_ny_5324_12_b_5_blackjack_pays_3_to_2() -> None:
    payment = settle(hand("AS KH"), "9C 9H", NY)
    assert outcome_net(payment) == (Outcome.BLACKJACK, 1500)
    assert payment.odds == THREE_TO_TWO


def test_ny_5324_12_b_5_blackjack_3_to_2_odd_cent_rounded_up_never_below_the_odds() -> None:
    # $12.50 x 3/2 = $18.75 exactly; $10.05 x 3/2 = $15.075: no less than 3:2 is $15.08.
    assert settle(hand("AS KH", 1250), "9C 9H").net == 1875
    assert settle(hand("AS KH", 1005), "9C 9H").net == 1508
    # Worked by hand: $5.01 x 3/2 = $7.515, paid $7.52 (never $7.51).
    assert settle(hand("AS KH", 501), "9C 9H").net == 752


@pytest.mark.parametrize("profile", list(PROFILES.values()))
def test_pa_635a_7_n_3_blackjack_beats_dealer_21_of_three_cards(profile: Profile) -> None:
    assert outcome_net(settle(hand("AS QH"), "7C 7D 7H", profile)) == (Outcome.BLACKJACK, 1500)


@pytest.mark.parametrize("profile", list(PROFILES.values()))
def test_ny_5324_12_b_1_iii_blackjack_beats_dealer_blackjack(profile: Profile) -> None:
    assert outcome_net(settle(hand("JS AH"), "AC KD", profile)) == (Outcome.BLACKJACK, 1500)


@pytest.mark.parametrize("profile", list(PROFILES.values()))
def test_pa_635a_7_n_4_21_of_three_cards_beats_dealer_21_of_three(profile: Profile) -> None:
    payment = settle(hand("9S 9H 3D"), "KC 5D 6H", profile)
    assert outcome_net(payment) == (Outcome.WIN, 1000)


def test_ny_5324_12_b_1_iv_21_of_four_cards_beats_dealer_21_of_four_cards() -> None:
    assert outcome_net(settle(hand("2S 9H 3D 7S"), "5C 5D 5H 6S", NY)) == (Outcome.WIN, 1000)


@pytest.mark.parametrize("profile", list(PROFILES.values()))
def test_pa_635a_7_o_21_of_three_cards_loses_to_dealer_blackjack(profile: Profile) -> None:
    assert outcome_net(settle(hand("9S 9H 3D"), "AC KD", profile)) == (Outcome.LOSE, -1000)


def test_ny_5324_12_b_2_21_of_five_cards_loses_to_dealer_blackjack_no_bonus() -> None:
    payment = settle(hand("2S 3H 4D 5C 7S"), "KC AD", NY)
    assert outcome_net(payment) == (Outcome.LOSE, -1000)
    assert payment.bonus is None


def test_pa_635a_7_n_2_twenty_loses_to_dealer_blackjack() -> None:
    assert outcome_net(settle(hand("KS QH"), "AC KD")) == (Outcome.LOSE, -1000)


# --- split two-card 21: the profile readings -----------------------------------------------


def test_pa_635a_7_n_3_split_two_card_21_ties_dealer_21_of_three_cards() -> None:
    payment = settle(hand("AS KH", split=True), "KC 5D 6H", PA)
    assert outcome_net(payment) == (Outcome.PUSH, 0)


def test_ny_5324_12_b_1_iii_b_5_split_two_card_21_beats_dealer_21_paid_3_to_2() -> None:
    # (b)(1)(iii) "21 in two cards" against a dealer 21; (b)(5): a (iii) winner is paid no
    # less than 3:2. $10.00 x 3/2 = $15.00.
    payment = settle(hand("AS KH", split=True), "KC 5D 6H", NY)
    assert outcome_net(payment) == (Outcome.WIN, 1500)
    assert payment.odds == THREE_TO_TWO


def test_ny_5324_12_b_1_iii_b_5_split_two_card_21_beats_dealer_blackjack_paid_3_to_2() -> None:
    assert outcome_net(settle(hand("AS KH", split=True), "AC QD", NY)) == (Outcome.WIN, 1500)


def test_ny_5324_12_b_1_ii_split_two_card_21_beats_dealer_20_paid_1_to_1() -> None:
    # Against a 20 the split 21 wins under (ii), paid no less than 1:1: $10.00.
    payment = settle(hand("AS KH", split=True), "KC QD", NY)
    assert outcome_net(payment) == (Outcome.WIN, 1000)
    assert payment.odds == EVEN


def test_pa_635a_7_o_split_two_card_21_ties_dealer_blackjack() -> None:
    # (o): only "21 in more than two cards" loses to a dealer Blackjack.
    assert outcome_net(settle(hand("AS KH", split=True), "AC QD", PA)) == (Outcome.PUSH, 0)
    assert outcome_net(settle(hand("AS KH", split=True), "AC QD", NJ)) == (Outcome.PUSH, 0)


@pytest.mark.parametrize("profile", list(PROFILES.values()))
def test_pa_635a_7_n_2_split_two_card_21_beats_a_lower_total_1_to_1(profile: Profile) -> None:
    payment = settle(hand("AS KH", split=True), "9C KD", profile)
    assert outcome_net(payment) == (Outcome.WIN, 1000)
    assert payment.outcome is not Outcome.BLACKJACK


# --- bonus odds ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("player", "bonus", "net"),
    [
        ("2S 3H 4D 5C 7S", Bonus.FIVE_CARD_21, 1500),  # (b)(6)(v) 3:2
        ("2S 3H 4D 5C 2D 5S", Bonus.SIX_CARD_21, 2000),  # (b)(6)(vi) 2:1
        ("2S 3H 4D 2C 2D 5S 3S", Bonus.SEVEN_PLUS_CARD_21, 3000),  # (b)(6)(vii) 3:1
        ("AS AH AD AC 2S 2H 3D KS", Bonus.SEVEN_PLUS_CARD_21, 3000),  # eight cards 3:1
        ("6H 7D 8S", Bonus.SIX_SEVEN_EIGHT_MIXED, 1500),  # (b)(6)(i) 3:2
        ("8H 6H 7H", Bonus.SIX_SEVEN_EIGHT_SUITED, 2000),  # (b)(6)(ii) 2:1
        ("7S 8S 6S", Bonus.SIX_SEVEN_EIGHT_SPADES, 3000),  # (b)(6)(ii) spades 3:1
        ("7H 7D 7S", Bonus.SEVEN_SEVEN_SEVEN_MIXED, 1500),  # (b)(6)(iii) 3:2
        ("7C 7C 7C", Bonus.SEVEN_SEVEN_SEVEN_SUITED, 2000),  # (b)(6)(iv) 2:1
        ("7S 7S 7S", Bonus.SEVEN_SEVEN_SEVEN_SPADES, 3000),  # (b)(6)(iv) spades 3:1
    ],
)
def test_ny_5324_12_b_6_bonus_odds(player: str, bonus: Bonus, net: int) -> None:
    payment = settle(hand(player), "9C 8D", NY)  # dealer 17: no 7 up card
    assert outcome_net(payment) == (Outcome.WIN, net)
    assert payment.bonus is bonus
    assert payment.super_bonus == 0


def test_ny_5324_12_b_6_no_bonus_for_four_card_or_other_three_card_21() -> None:
    assert settle(hand("2S 9H 3D 7S"), "9C 8D", NY).net == 1000
    assert settle(hand("9S 9H 3D"), "9C 8D", NY).net == 1000
    assert bonus_of([parse_card(t) for t in ["5S", "7H", "9D"]]) is None


def test_ny_5324_12_b_6_bonus_paid_when_dealer_busts_and_against_dealer_21() -> None:
    assert settle(hand("2S 3H 4D 5C 7S"), "6C QH 9S", NY).net == 1500
    assert settle(hand("6H 7D 8S"), "KC 5D 6H", NY).net == 1500


@pytest.mark.parametrize(
    ("player", "bonus"),
    [
        ("2S 3H 4D 5C 7S", Bonus.FIVE_CARD_21),
        ("2S 3H 4D 5C 2D 5S", Bonus.SIX_CARD_21),
        ("2S 3H 4D 2C 2D 5S 3S", Bonus.SEVEN_PLUS_CARD_21),
        ("6S 7S 8S", Bonus.SIX_SEVEN_EIGHT_SPADES),
        ("7D 7D 7D", Bonus.SEVEN_SEVEN_SEVEN_SUITED),
    ],
)
def test_ny_5324_12_b_6_bonus_paid_1_to_1_when_doubled(player: str, bonus: Bonus) -> None:
    payment = settle(hand(player, doubled=True), "9C 8D", NY)
    assert outcome_net(payment) == (Outcome.WIN, 2000)  # wager 10 + double 10, at 1:1
    assert payment.odds == EVEN
    assert payment.bonus is bonus


def test_ny_5324_12_b_6_bonus_on_a_split_hand() -> None:
    assert settle(hand("6S 7H 8D", split=True), "9C 8D", NY).net == 1500


# --- super bonus ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wager", "extra"),
    [(499, 0), (500, 100_000), (2499, 100_000), (2500, 500_000), (10_000, 500_000)],
)
def test_ny_5324_12_b_7_super_bonus_amount_by_original_wager(wager: int, extra: int) -> None:
    assert super_bonus_cents(wager) == extra


def test_ny_5324_12_b_7_super_bonus_1000_on_a_5_to_25_wager() -> None:
    payment = settle(hand("7H 7H 7H", 1000), "7C 9D", NY)
    assert payment.net == 2000 + 100_000  # 2:1 bonus odds plus $1,000
    assert payment.super_bonus == 100_000
    assert payment.bonus is Bonus.SEVEN_SEVEN_SEVEN_SUITED


def test_ny_5324_12_b_7_super_bonus_5000_on_a_25_wager_spades_3_to_1() -> None:
    payment = settle(hand("7S 7S 7S", 2500), "7D 9D", NY)
    assert payment.net == 7500 + 500_000
    assert payment.super_bonus == 500_000


def test_ny_5324_12_b_7_super_bonus_boundary_just_under_25() -> None:
    assert settle(hand("7D 7D 7D", 2499), "7C 9D", NY).net == 4998 + 100_000


def test_ny_5324_12_b_7_no_super_bonus_under_5() -> None:
    payment = settle(hand("7D 7D 7D", 499), "7C 9D", NY)
    assert payment.net == 998
    assert payment.super_bonus == 0


def test_ny_5324_12_b_7_super_bonus_needs_dealer_7_up() -> None:
    assert settle(hand("7D 7D 7D"), "8C 9D", NY).super_bonus == 0


def test_ny_5324_12_b_7_super_bonus_needs_one_suit() -> None:
    payment = settle(hand("7D 7H 7D"), "7C 9D", NY)
    assert payment.super_bonus == 0
    assert payment.net == 1500  # mixed 7-7-7 3:2


def test_ny_5324_12_b_7_super_bonus_not_on_doubled_hand() -> None:
    payment = settle(hand("7D 7D 7D", doubled=True), "7C 9D", NY)
    assert payment.super_bonus == 0
    assert payment.net == 2000  # 1:1 on wager and double


def test_ny_5324_12_b_7_super_bonus_not_on_split_hand() -> None:
    payment = settle(hand("7D 7D 7D", split=True), "7C 9D", NY)
    assert payment.super_bonus == 0
    assert payment.net == 2000  # the 2:1 bonus odds stay


def test_ny_5324_12_b_7_super_bonus_not_on_a_678() -> None:
    assert settle(hand("6D 7D 8D"), "7C 9D", NY).super_bonus == 0


# --- surrender, rescue, insurance ----------------------------------------------------------


def test_pa_635a_9_assumed_late_surrender_loses_half_the_wager() -> None:
    payment = settle_surrender(hand("KS 6H", 1000, status=HandStatus.SURRENDERED))
    assert outcome_net(payment) == (Outcome.SURRENDER, -500)


def test_pa_635a_9_assumed_late_surrender_odd_cent_goes_to_the_player() -> None:
    # $10.05 / 2 = $5.025: the player gets $5.03 back and loses $5.02.
    assert settle_surrender(hand("KS 6H", 1005)).net == -502


def test_pa_635a_10_assumed_rescue_loses_original_wager_returns_double() -> None:
    payment = settle_rescue(hand("KS 2H 3D", 1000, doubled=True))
    assert outcome_net(payment) == (Outcome.RESCUE, -1000)


def test_pa_635a_8_insurance_pays_2_to_1_on_dealer_blackjack() -> None:
    payment = settle_insurance(2, 500, True)
    assert (payment.wager, payment.outcome, payment.net) == (WagerKind.INSURANCE, Outcome.WIN, 1000)
    assert str(payment.odds) == "2:1"


def test_pa_635a_8_insurance_lost_without_dealer_blackjack() -> None:
    assert outcome_net(settle_insurance(2, 500, False)) == (Outcome.LOSE, -500)


# --- Match the Dealer ----------------------------------------------------------------------


def match(cards: str, up: str, table: MatchPayTable, cents: int = 500) -> Payment:
    first, second = (parse_card(t) for t in cards.split())
    return match_the_dealer(4, cents, (first, second), parse_card(up), table)


@pytest.mark.parametrize(
    ("cards", "up", "table", "net"),
    [
        ("7D 2S", "7S", MatchPayTable.A, 2000),  # off-suit 4:1
        ("7S 2S", "7S", MatchPayTable.A, 4500),  # same suit 9:1
        ("7D 2S", "7S", MatchPayTable.B, 1500),  # off-suit 3:1
        ("7S 2S", "7S", MatchPayTable.B, 6000),  # same suit 12:1
        ("AH AC", "AD", MatchPayTable.A, 4000),  # two off-suit 4:1 each
        ("7S 7C", "7S", MatchPayTable.A, 6500),  # 9:1 + 4:1
        ("KS KS", "KS", MatchPayTable.B, 12000),  # 12:1 + 12:1
    ],
)
def test_ny_5324_12_d_4_each_matching_card_paid(
    cards: str, up: str, table: MatchPayTable, net: int
) -> None:
    payment = match(cards, up, table)
    assert (payment.wager, payment.outcome, payment.net) == (WagerKind.MATCH, Outcome.WIN, net)


def test_pa_635a_7_f_2_both_cards_matching_paid_for_each() -> None:
    assert match("9H 9D", "9C", MatchPayTable.A).net == 4000


@pytest.mark.parametrize(
    ("cards", "up", "matches", "note"),
    [
        ("7D 2S", "7S", 1, "1 matching card"),
        ("2S 7D", "7S", 1, "1 matching card"),
        ("9H 9D", "9C", 2, "2 matching cards"),
        ("8S 9S", "7S", 0, ""),
    ],
)
def test_the_match_payment_counts_the_matching_cards_for_the_record(
    cards: str, up: str, matches: int, note: str
) -> None:
    # PA 635a.7(f): each matching card is paid; the journal recalls how many matched ("2
    # match(es) at 4:1"), so the count is part of the record, not only the amount.
    payment = match(cards, up, MatchPayTable.A)
    assert (payment.matches, payment.note) == (matches, note)


def test_a_main_wager_payment_records_no_matching_cards() -> None:
    for cards in ("7D 7H", "9S 9H", "KS 8H 5D", "AS KD"):  # against the dealer's 7S 5D 6H
        assert settle(hand(cards), "7S 5D 6H").matches == 0


@pytest.mark.parametrize(("cards", "up"), [("JS QS", "KS"), ("QH 2C", "JH"), ("KD JD", "QD")])
def test_pa_635a_7_f_1_ten_value_cards_match_only_identical_rank(cards: str, up: str) -> None:
    assert outcome_net(match(cards, up, MatchPayTable.A)) == (Outcome.LOSE, -500)


def test_ny_5324_12_d_4_no_match_loses_the_match_wager() -> None:
    assert outcome_net(match("8S 9S", "7S", MatchPayTable.B)) == (Outcome.LOSE, -500)


# --- dealer blackjack without a peek: what it takes ----------------------------------------


def test_nj_19_7_g_assumed_original_only_takes_the_original_wager_once() -> None:
    payments = [
        Payment(3, WagerKind.MAIN, Outcome.LOSE, -2000, 0),  # doubled split hand
        Payment(3, WagerKind.MAIN, Outcome.LOSE, -1000, 1),
        Payment(3, WagerKind.MAIN, Outcome.BLACKJACK, 1500, 2),
    ]
    apply_original_only(payments, 1000, NJ)
    assert [(p.outcome, p.net) for p in payments] == [
        (Outcome.LOSE, -1000),
        (Outcome.PUSH, 0),
        (Outcome.BLACKJACK, 1500),
    ]


def test_nj_19_7_g_original_only_not_under_all_option() -> None:
    profile = NJ.with_options(dealer_blackjack_takes=DealerBlackjackTakes.ALL)
    payments = [Payment(3, WagerKind.MAIN, Outcome.LOSE, -2000, 0)]
    apply_original_only(payments, 1000, profile)
    assert payments[0].net == -2000


# --- money ---------------------------------------------------------------------------------


def test_ny_5324_12_b_6_odds_pay_integer_cents_rounded_up() -> None:
    # $10.01 x 3/2 = $15.015: no less than the odds is $15.02.
    assert THREE_TO_TWO.pay(1001) == 1502
    assert THREE_TO_TWO.pay(1) == 2  # 1.5 cents
    assert THREE_TO_TWO.pay(2) == 3
    assert Odds(2, 1).pay(333) == 666
    assert isinstance(THREE_TO_TWO.pay(1001), int)
    assert str(Odds(12, 1)) == "12:1"


def test_pa_635a_7_p_outcome_prompt_for_the_dealer() -> None:
    assert Outcome.WIN.prompt == "pay"
    assert Outcome.BLACKJACK.prompt == "pay"
    assert Outcome.PUSH.prompt == "push"
    assert Outcome.LOSE.prompt == "collect"
    assert Outcome.SURRENDER.prompt == "collect"
    assert Outcome.RESCUE.prompt == "collect"


def test_ny_5324_12_b_7_other_players_get_50_on_every_super_bonus_hand_even_under_5() -> None:
    """The $50 to the other players follows the hand; only the fixed amount depends on the
    wager ($5 or more). A wager under $5 still earns 2:1 (spades 3:1) and the shares."""
    from controller.rules.cards import parse_card
    from controller.rules.profiles import get_profile
    from controller.rules.round import Round
    from controller.rules.settlement import WagerKind
    from controller.rules.steps import Decision, SeatWager

    round_ = Round(get_profile("NY"), 6, [SeatWager(1, 400), SeatWager(2, 1000)])
    for text in ("7D", "9S", "7S", "7D", "8S", "KC"):  # seat 1 7D 7D; seat 2 9S 8S; up 7S
        round_.deal(parse_card(text))
    round_.decide(1, Decision.HIT)
    round_.deal(parse_card("7D"))  # 7-7-7 of diamonds against a dealer 7
    round_.decide(2, Decision.STAND)
    round_.reveal_hole()
    main = next(p for p in round_.payments if p.seat == 1 and p.wager is WagerKind.MAIN)
    assert main.super_bonus_hand and main.super_bonus == 0
    assert main.net == 800  # 2:1 on $4.00
    shares = [p for p in round_.payments if p.wager is WagerKind.SUPER_BONUS_SHARE]
    assert [(p.seat, p.net) for p in shares] == [(2, 5000)]


def test_no_peek_dealer_blackjack_leaves_a_busted_double_lost_in_full() -> None:
    """ASSUMPTION (original wagers only, NJ 13:69F-19.7(g) procedure): a hand that busted
    was collected when it busted, before the dealer's second card; a later dealer
    blackjack does not give its double back."""
    from controller.rules.cards import parse_card
    from controller.rules.profiles import get_profile
    from controller.rules.round import Round
    from controller.rules.settlement import WagerKind
    from controller.rules.steps import Decision, SeatWager

    round_ = Round(get_profile("NJ"), 6, [SeatWager(1, 1000)])
    for text in ("9H", "KC", "5D"):  # seat 1: 9 5; dealer K
        round_.deal(parse_card(text))
    round_.decide(1, Decision.DOUBLE)
    round_.deal(parse_card("QS"))  # 24: the doubled hand busts
    round_.deal(parse_card("AS"))  # dealer's card: blackjack
    main = next(p for p in round_.payments if p.wager is WagerKind.MAIN)
    assert main.net == -2000

    round_ = Round(get_profile("NJ"), 6, [SeatWager(1, 1000)])
    for text in ("6H", "KC", "5D"):  # seat 1: 6 5 = 11; dealer K
        round_.deal(parse_card(text))
    round_.decide(1, Decision.DOUBLE)
    round_.deal(parse_card("KS"))  # 21 on the double
    round_.deal(parse_card("AS"))  # dealer's blackjack takes the original wager only
    main = next(p for p in round_.payments if p.wager is WagerKind.MAIN)
    assert main.net == -1000


def test_pa_635a_7_p_a_split_seats_hands_keep_their_order_within_the_seat() -> None:
    # As the final settlement lists them: seat 2 split into three hands (won, lost, won
    # 3:2), seat 6 into two (lost, pushed). (p)(2): seat 6 first, then seat 2, each seat's
    # hands in their order; (p)(1): the two losing wagers first, in that order, then the rest.
    def main(seat: int, hand: int, net: int) -> Payment:
        return Payment(seat, WagerKind.MAIN, Outcome.WIN, net, hand)

    listed = [main(2, 0, 1000), main(2, 1, -1000), main(2, 2, 1500), main(6, 0, -1000)]
    listed.append(main(6, 1, 0))
    right_to_left = PA.with_options(settlement_order=SettlementOrder.RIGHT_TO_LEFT)
    by_seat = [(p.seat, p.hand) for p in in_settlement_order(listed, right_to_left)]
    assert by_seat == [(6, 0), (6, 1), (2, 0), (2, 1), (2, 2)]
    collect_then_pay = [(p.seat, p.hand) for p in in_settlement_order(listed, PA)]
    assert collect_then_pay == [(6, 0), (2, 1), (6, 1), (2, 0), (2, 2)]


def test_a_profiles_bonus_odds_and_super_bonus_are_what_it_pays() -> None:
    """The bonus and super bonus payouts are profile fields (NY 5324.12(b)(6), (b)(7); PA and
    NJ assumed, settable). Worked by hand: a $10.00 five-card 21 at 2:1 is +$20.00 (NY's
    3:2 would be +$15.00); a suited 7-7-7 against a 7 pays 3:1 on spades ($30.00) plus a
    $2,000 fixed amount, and $25.00 to the other seat."""
    from controller.rules.options import SuperBonus
    from controller.rules.round import Round
    from controller.rules.settlement import WagerKind
    from controller.rules.steps import Decision, SeatWager

    richer = PA.with_options(
        bonus_odds={Bonus.FIVE_CARD_21.value: Odds(2, 1)},
        super_bonus=SuperBonus(500, 200_000, 2_500, 500_000, 2_500),
    )
    five = hand("2S 3H 4D 5C 7S")
    assert settle(five, "9C 8D", richer).net == 2000
    assert settle(five, "9C 8D", PA).net == 1500
    round_ = Round(richer, 6, [SeatWager(1, 1000), SeatWager(2, 1000)])
    for text in ("7S", "9S", "7H", "7S", "8S", "KC"):  # seat 1 7S 7S; seat 2 9S 8S; up 7H
        round_.deal(parse_card(text))
    round_.decide(1, Decision.HIT)
    round_.deal(parse_card("7S"))
    round_.decide(2, Decision.STAND)
    round_.reveal_hole()
    main = next(p for p in round_.payments if p.seat == 1 and p.wager is WagerKind.MAIN)
    assert (main.net, main.super_bonus) == (3000 + 200_000, 200_000)
    shares = [p for p in round_.payments if p.wager is WagerKind.SUPER_BONUS_SHARE]
    assert [(p.seat, p.net) for p in shares] == [(2, 2500)]
