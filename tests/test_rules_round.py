"""The round engine: deal order, peek, Match, insurance, decisions, dealer play, settlement.

Shoes are written in the order the cards leave the shoe; for seats s1, s2 under PA/NY the
first cards are: s1, s2, up card, s1, s2, hole card, then the play. Expected money is
worked out by hand from the regulations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pytest

from controller.rules.cards import SealedCard, parse_card
from controller.rules.errors import (
    HoleCardMismatchError,
    IllegalDecisionError,
    OutOfTurnError,
    ProfileError,
    RulesError,
    WagerError,
)
from controller.rules.hands import HandStatus, hole_card_gives_blackjack
from controller.rules.profiles import (
    NEW_JERSEY,
    NEW_YORK,
    PENNSYLVANIA,
    PROFILES,
    DealerBlackjackTakes,
    DealerSecondCard,
    Profile,
    SettlementOrder,
)
from controller.rules.round import Round
from controller.rules.settlement import Outcome, Payment, WagerKind
from controller.rules.steps import (
    CardRole,
    Decision,
    NeedCard,
    NeedDecision,
    NeedInsurance,
    NeedPeek,
    NeedReveal,
    SeatWager,
    Step,
    describe,
)

PA, NJ, NY = PENNSYLVANIA, NEW_JERSEY, NEW_YORK


@dataclass
class Played:
    """A driven round and what it asked for, in order."""

    round: Round
    steps: list[Step] = field(default_factory=list)

    def net(self, seat: int) -> int:
        return self.round.seat_net(seat)

    def main(self, seat: int, hand: int = 0) -> Payment:
        (payment,) = [
            p
            for p in self.round.payments
            if p.seat == seat and p.wager is WagerKind.MAIN and p.hand == hand
        ]
        return payment

    def card_steps(self) -> list[tuple[str, int | None]]:
        return [(s.role.value, s.seat) for s in self.steps if isinstance(s, NeedCard)]


def start(profile: Profile, wagers: Mapping[int, int | tuple[int, int]], decks: int = 6) -> Round:
    seat_wagers = [
        SeatWager(seat, *(w if isinstance(w, tuple) else (w,))) for seat, w in wagers.items()
    ]
    return Round(profile, decks, seat_wagers)


def drive(
    round_: Round,
    shoe: str,
    decisions: Mapping[int, Sequence[str]] | None = None,
    insurance: Mapping[int, int] | None = None,
    *,
    stop: type | None = None,
) -> Played:
    """Drive ``round_`` with the cards of ``shoe`` and the seats' decisions.

    The card reader answers from the hole card. With ``stop``, the drive halts (leaving the
    step unapplied, as the last step) at a step of that type it has no input for: a card
    with the shoe empty, a decision with the seat's list empty; insurance, peek and reveal
    steps always halt. Every card and decision given must be used.
    """
    cards = shoe.split()
    cards.reverse()
    queues = {seat: list(ds) for seat, ds in (decisions or {}).items()}
    played = Played(round_)
    while not round_.over:
        step = round_.step
        played.steps.append(step)
        if stop is not None and isinstance(step, stop):
            starved = (isinstance(step, NeedCard) and not cards) or (
                isinstance(step, NeedDecision) and not queues.get(step.seat)
            )
            if starved or not isinstance(step, NeedCard | NeedDecision):
                break
        if isinstance(step, NeedCard):
            text = cards.pop()
            while text == "CUT":
                round_.cover_card()
                text = cards.pop()
            round_.deal(parse_card(text))
        elif isinstance(step, NeedInsurance):
            round_.take_insurance(dict(insurance or {}))
        elif isinstance(step, NeedPeek):
            assert round_.up_card is not None and round_.hole is not None
            round_.peek(hole_card_gives_blackjack(round_.up_card, round_.hole.reveal()))
        elif isinstance(step, NeedDecision):
            round_.decide(step.seat, Decision(queues[step.seat].pop(0)))
        elif isinstance(step, NeedReveal):
            round_.reveal_hole()
    assert cards == [], f"cards left over: {cards}"
    assert all(not q for q in queues.values()), f"decisions left over: {queues}"
    return played


def play(
    profile: Profile,
    wagers: Mapping[int, int | tuple[int, int]],
    shoe: str,
    decisions: Mapping[int, Sequence[str]] | None = None,
    insurance: Mapping[int, int] | None = None,
    *,
    decks: int = 6,
) -> Played:
    return drive(start(profile, wagers, decks), shoe, decisions, insurance)


def dealer(played: Played) -> str:
    return " ".join(c.text for c in played.round.dealer_cards)


# --- deal order ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "profile", [p for p in PROFILES.values() if p.dealer_second_card is DealerSecondCard.HOLE]
)
def test_pa_635a_7_e_deal_order_with_hole_card(profile: Profile) -> None:
    played = play(
        profile,
        {5: 1000, 1: 1000, 3: 1000},
        "9S 9H 9D 5C 8S 8H 8D 4C 9C",
        {1: ["stand"], 3: ["stand"], 5: ["stand"]},
    )
    assert played.card_steps()[:8] == [
        ("initial", 1),
        ("initial", 3),
        ("initial", 5),
        ("up", None),
        ("initial", 1),
        ("initial", 3),
        ("initial", 5),
        ("hole", None),
    ]
    # The dealer's 9 (5+4) draws 9C: 18 against three 17s.
    assert dealer(played) == "5C 4C 9C"
    assert [played.net(s) for s in (1, 3, 5)] == [-1000, -1000, -1000]


def test_ny_5324_12_c_4_deal_order_hole_card_after_second_cards() -> None:
    played = play(NY, {2: 1000}, "9S 5C 8S 4C 9C", {2: ["stand"]})
    assert played.card_steps() == [
        ("initial", 2),
        ("up", None),
        ("initial", 2),
        ("hole", None),
        ("draw", None),
    ]


def test_nj_19_7_g_dealers_card_after_the_players_act() -> None:
    played = play(
        NJ, {1: 1000, 4: 1000}, "9S 8D 6C 8S 9D 3H 5H 9H", {1: ["stand"], 4: ["hit", "stand"]}
    )
    assert played.card_steps() == [
        ("initial", 1),
        ("initial", 4),
        ("up", None),
        ("initial", 1),
        ("initial", 4),
        ("hit", 4),
        ("second", None),
        ("draw", None),
    ]
    first_decision = next(i for i, s in enumerate(played.steps) if isinstance(s, NeedDecision))
    second_card = next(
        i
        for i, s in enumerate(played.steps)
        if isinstance(s, NeedCard) and s.role is CardRole.SECOND
    )
    assert first_decision < second_card
    assert not any(isinstance(s, NeedPeek | NeedReveal) for s in played.steps)


def test_nj_19_7_d_g_whole_round_without_hole_card() -> None:
    # s1 9S 8S = 17 stands; s4 8D 9D = 17 hits 3H = 20; dealer 6C + second 5H = 11,
    # draws 9H = 20: s1 loses, s4 pushes.
    played = play(
        NJ, {1: 1000, 4: 1000}, "9S 8D 6C 8S 9D 3H 5H 9H", {1: ["stand"], 4: ["hit", "stand"]}
    )
    assert dealer(played) == "6C 5H 9H"
    assert (played.net(1), played.net(4)) == (-1000, 0)


def test_nj_19_7_i_card_reader_alternative_peeks() -> None:
    profile = NJ.with_options(dealer_second_card=DealerSecondCard.HOLE, peek=True)
    played = play(profile, {1: 1000}, "9S KC 8S AD")
    assert played.card_steps() == [("initial", 1), ("up", None), ("initial", 1), ("hole", None)]
    assert any(isinstance(s, NeedPeek) for s in played.steps)
    assert played.net(1) == -1000


def test_seats_are_numbered_1_to_7_and_listed_once() -> None:
    for seat in (0, 8):
        with pytest.raises(WagerError, match="1 to 7"):
            start(PA, {seat: 1000})
    with pytest.raises(WagerError, match="listed twice"):
        Round(PA, 6, [SeatWager(2, 1000), SeatWager(2, 500)])
    with pytest.raises(WagerError, match="at least one seat"):
        Round(PA, 6, [])
    with pytest.raises(WagerError, match="must be positive"):
        start(PA, {2: 0})
    with pytest.raises(ProfileError, match="not 7"):
        start(PA, {2: 1000}, decks=7)


# --- Match the Dealer ----------------------------------------------------------------------


def test_pa_635a_7_f_match_settled_before_peek() -> None:
    # s2 KS QH, s5 KD 4C, up KS, hole AH: the reader is asked only after Match is settled.
    round_ = start(NY, {2: (2000, 500), 5: (2000, 1000)}, decks=8)
    played = drive(round_, "KS KD KS QH 4C AH", stop=NeedPeek)
    assert isinstance(played.steps[-1], NeedPeek)
    assert [(p.seat, p.wager, p.net) for p in round_.payments] == [
        (5, WagerKind.MATCH, 3000),  # off-suit K, table B 3:1
        (2, WagerKind.MATCH, 6000),  # suited K 12:1; the Q does not match
    ]


def test_ny_5324_12_d_3_match_settled_right_to_left_before_any_other_card() -> None:
    # Up card 7D with no peek: s1 7D 7C (9:1 + 4:1), s3 2S 7H (4:1), s6 9S 9C (lose).
    round_ = start(PA, {1: (1000, 500), 3: (1000, 500), 6: (1000, 500)})
    played = drive(round_, "7D 2S 9S 7D 7C 7H 9C 5S", stop=NeedDecision)
    assert [(p.seat, p.net) for p in round_.payments] == [(6, -500), (3, 2000), (1, 6500)]
    assert played.card_steps()[-1] == ("hole", None)


def test_ny_5324_12_d_1_dealer_blackjack_has_no_effect_on_match() -> None:
    played = play(NY, {3: (1000, 500)}, "AS AC 2D KH")
    match = [p for p in played.round.payments if p.wager is WagerKind.MATCH]
    assert [(p.outcome, p.net) for p in match] == [(Outcome.WIN, 2000)]  # off-suit A 4:1
    assert played.net(3) == 2000 - 1000


def test_ny_5324_12_d_5_pay_table_b_with_eight_decks() -> None:
    played = play(NY, {3: (1000, 500)}, "9S 9S 9D 5C 3C", {3: ["stand"]}, decks=8)
    # Two 9s against a 9S up card: 12:1 suited + 3:1 off-suit = 7500; main 18 vs 17 wins.
    assert played.net(3) == 7500 + 1000


def test_ny_5324_12_d_2_match_needs_a_main_wager() -> None:
    with pytest.raises(WagerError):
        start(NY, {3: (0, 500)})
    with pytest.raises(WagerError, match="cannot be negative"):
        start(NY, {3: (1000, -500)})


def test_ny_5324_12_d_match_not_offered_by_profile_option() -> None:
    with pytest.raises(WagerError, match="offers no Match"):
        start(PA.with_options(match_the_dealer=False), {3: (1000, 500)})


# --- insurance and the peek ----------------------------------------------------------------


def test_pa_635a_7_g_insurance_offered_on_ace_then_peek() -> None:
    round_ = start(PA, {1: 2000, 2: 1000})
    played = drive(round_, "9S 9H AC 9D 9C 7H", stop=NeedInsurance)
    step = played.steps[-1]
    assert isinstance(step, NeedInsurance) and step.seats == (1, 2)
    round_.take_insurance({1: 1000})
    assert round_.step == NeedPeek(looking_for_ace=False)


@pytest.mark.parametrize("up", ["KS", "QS", "JS"])
def test_pa_635a_7_g_peek_on_face_up_card_without_insurance(up: str) -> None:
    round_ = start(PA, {1: 1000})
    drive(round_, f"9S {up} 9D 5C", stop=NeedPeek)
    assert round_.step == NeedPeek(looking_for_ace=True)


@pytest.mark.parametrize("up", ["2S", "5H", "7D", "9C"])
def test_pa_635a_7_g_no_peek_on_two_to_nine(up: str) -> None:
    played = drive(start(PA, {1: 1000}), f"9S {up} 9D KC", stop=NeedDecision)
    assert isinstance(played.steps[-1], NeedDecision)
    assert not any(isinstance(s, NeedPeek | NeedInsurance) for s in played.steps)


def test_pa_635a_7_g_dealer_blackjack_no_additional_cards() -> None:
    # s1 9S 9D, s2 5H 6H (would double), up KS, hole AH: no decision is asked.
    played = play(PA, {1: 1000, 2: 1000}, "9S 5H KS 9D 6H AH")
    assert not any(isinstance(s, NeedDecision) for s in played.steps)
    assert dealer(played) == "KS AH"
    assert (played.net(1), played.net(2)) == (-1000, -1000)


def test_pa_635a_8_insurance_pays_2_to_1_on_dealer_blackjack() -> None:
    played = play(PA, {2: 1000}, "9H AC 9D KD", insurance={2: 500})
    insurance = [p for p in played.round.payments if p.wager is WagerKind.INSURANCE]
    assert [(p.outcome, p.net) for p in insurance] == [(Outcome.WIN, 1000)]
    assert played.net(2) == 0  # insurance +10, main -10


def test_pa_635a_8_insurance_lost_when_reader_says_no_blackjack() -> None:
    played = play(PA, {1: 2000}, "KH AC 9S 7H", {1: ["stand"]}, insurance={1: 1000})
    # Insurance -10; 19 beats 18: +20.
    assert played.net(1) == -1000 + 2000


def test_pa_635a_8_insurance_at_most_half_the_wager() -> None:
    round_ = start(PA, {1: 1001})
    drive(round_, "9S AC 9D 7H", stop=NeedInsurance)
    with pytest.raises(WagerError, match="more than half"):
        round_.take_insurance({1: 501})
    assert isinstance(round_.step, NeedInsurance)  # unchanged: it may be offered again
    round_.take_insurance({1: 500})
    assert isinstance(round_.step, NeedPeek)


def test_pa_635a_8_insurance_for_seat_without_wager_or_negative_refused() -> None:
    round_ = start(PA, {1: 1000})
    drive(round_, "9S AC 9D 7H", stop=NeedInsurance)
    with pytest.raises(WagerError, match="seat 4"):
        round_.take_insurance({4: 100})
    with pytest.raises(WagerError):
        round_.take_insurance({1: -100})


def test_pa_635a_7_g_insurance_only_when_offered() -> None:
    round_ = start(PA, {1: 1000})
    drive(round_, "9S 7C 9D 7H", stop=NeedDecision)
    with pytest.raises(OutOfTurnError, match="insurance is not offered"):
        round_.take_insurance({1: 500})


def test_nj_19_7_g_insurance_settled_when_the_dealers_card_comes() -> None:
    # NJ: s1 KH 9S = 19 stands; up AC, dealer's card KD after the players: blackjack.
    played = play(NJ, {1: 2000}, "KH AC 9S KD", {1: ["stand"]}, insurance={1: 1000})
    assert played.net(1) == 2000 - 2000


def test_pa_635a_7_h_1_i_blackjack_against_two_to_nine_paid_at_once() -> None:
    round_ = start(PA, {1: 1000, 2: 1000})
    drive(round_, "AS 9D 5H KC 9C JD", stop=NeedDecision)
    assert [(p.seat, p.outcome, p.net) for p in round_.payments] == [(1, Outcome.BLACKJACK, 1500)]


def test_pa_635a_7_h_1_ii_blackjack_against_face_paid_after_reveal() -> None:
    round_ = start(PA, {1: 1000, 2: 1000})
    played = drive(round_, "AS 9D KH KC 9C 7D", stop=NeedDecision)
    assert isinstance(played.steps[-1], NeedDecision)
    assert round_.payments == []
    drive(round_, "", {2: ["stand"]})
    assert round_.seat_net(1) == 1500
    assert round_.seat_net(2) == 1000  # 18 against 17


def test_pa_635a_7_g_hole_card_is_sealed_until_the_reveal() -> None:
    round_ = start(PA, {1: 1000})
    drive(round_, "9S 5C 9D KH", stop=NeedDecision)
    assert isinstance(round_.hole, SealedCard)
    assert "KH" not in repr(round_.hole)
    assert [c.text for c in round_.dealer_cards] == ["5C"]


def test_hole_card_may_be_dealt_sealed_but_no_other_card() -> None:
    round_ = start(PA, {1: 1000})
    with pytest.raises(OutOfTurnError, match="face down"):
        round_.deal(SealedCard(parse_card("9S")))
    round_.deal(parse_card("9S"))
    round_.deal(parse_card("5C"))
    round_.deal(parse_card("9D"))
    round_.deal(SealedCard(parse_card("KH")))
    assert isinstance(round_.step, NeedDecision)


def test_pa_635a_7_k_reader_answer_contradicting_the_hole_card_is_an_error() -> None:
    round_ = start(PA, {1: 1000})
    drive(round_, "9S KC 9D 5H", stop=NeedPeek)
    round_.peek(True)  # the reader says blackjack, the hole card is a 5
    with pytest.raises(HoleCardMismatchError, match="said blackjack"):
        round_.reveal_hole()


def test_peek_and_reveal_only_when_due() -> None:
    round_ = start(PA, {1: 1000})
    with pytest.raises(OutOfTurnError, match="no peek"):
        round_.peek(False)
    with pytest.raises(OutOfTurnError, match="no reveal"):
        round_.reveal_hole()
    with pytest.raises(OutOfTurnError, match="out of turn"):
        round_.decide(1, Decision.STAND)


def test_pa_635a_7_k_the_hole_card_is_not_turned_while_a_player_still_acts() -> None:
    # Seat 1 9S 9D against the up card 7C (no peek on a 7), the hole card 5H dealt face
    # down: the players' turn comes first, and the hole card stays sealed until it is over.
    round_ = start(PA, {1: 1000})
    drive(round_, "9S 7C 9D 5H", stop=NeedDecision)
    with pytest.raises(OutOfTurnError, match="no reveal"):
        round_.reveal_hole()
    assert round_.hole is not None and round_.dealer_cards == [parse_card("7C")]
    assert isinstance(round_.step, NeedDecision)  # the round goes on where it was
    round_.decide(1, Decision.STAND)
    round_.reveal_hole()
    assert round_.dealer_cards == [parse_card("7C"), parse_card("5H")]


# --- player decisions ----------------------------------------------------------------------


def test_pa_635a_7_j_1_hand_reaching_21_takes_no_more_decisions() -> None:
    # s1 5S 6D = 11 hits KH = 21: the hand ends itself; dealer 9+8 = 17.
    played = play(PA, {1: 1000}, "5S 9C 6D 8H KH", {1: ["hit"]})
    decisions = [s for s in played.steps if isinstance(s, NeedDecision)]
    assert len(decisions) == 1
    assert played.net(1) == 1000


def test_pa_635a_7_j_1_soft_21_ends_the_hand() -> None:
    played = play(PA, {1: 1000}, "AS 9C 5D 8H 5C", {1: ["hit"]})
    assert played.round.hands[1][0].status is HandStatus.TWENTY_ONE


def test_pa_635a_7_j_1_blackjack_takes_no_decision() -> None:
    played = play(PA, {1: 1000}, "AS 9C KD 8H")
    assert not any(isinstance(s, NeedDecision) for s in played.steps)
    assert played.net(1) == 1500


def test_pa_635a_7_j_bust_ends_the_hand() -> None:
    played = play(PA, {1: 1000}, "KS 9C 6D 8H 9H", {1: ["hit"]})
    assert played.round.hands[1][0].status is HandStatus.BUST
    assert played.net(1) == -1000


def test_pa_635a_7_j_2_one_card_after_a_double() -> None:
    round_ = start(PA, {1: 1000})
    drive(round_, "5S 9C 3D 8H 4H", {1: ["double"]}, stop=NeedDecision)
    step = round_.step
    assert isinstance(step, NeedDecision)
    assert step.legal == {Decision.STAND, Decision.RESCUE}
    with pytest.raises(IllegalDecisionError, match=r"seat 1 hand 1: hit .*after a double"):
        round_.decide(1, Decision.HIT)
    with pytest.raises(IllegalDecisionError, match="seat 1 hand 1: double"):
        round_.decide(1, Decision.DOUBLE)
    drive(round_, "", {1: ["stand"]})
    # 5+3+4 = 12 doubled, dealer 17: loses wager and double.
    assert round_.seat_net(1) == -2000


def test_pa_635a_10_assumed_double_down_on_any_number_of_cards() -> None:
    # 2+3 = 5, hit 4 = 9, hit 2 = 11, double on four cards: KS = 21 (5 cards, doubled).
    played = play(PA, {1: 1000}, "2S 9C 3D 8H 4C 2H KS", {1: ["hit", "hit", "double"]})
    payment = played.main(1)
    assert payment.net == 2000  # bonus hand doubled: 1:1 on 20 (NY 5324.12(b)(6))
    assert payment.odds is not None and str(payment.odds) == "1:1"


def test_pa_635a_10_assumed_rescue_returns_the_double() -> None:
    played = play(PA, {2: 1000}, "6H 9S 5S 8H 2C", {2: ["double", "rescue"]})
    assert played.main(2).outcome is Outcome.RESCUE
    assert played.net(2) == -1000


def test_pa_635a_10_assumed_rescue_only_after_a_double() -> None:
    round_ = start(PA, {3: 1000})
    drive(round_, "KC 9S 6C 8H", stop=NeedDecision)
    with pytest.raises(IllegalDecisionError, match=r"seat 3 hand 1: rescue.*follows a double"):
        round_.decide(3, Decision.RESCUE)


def test_pa_635a_7_j_2_no_rescue_option_doubled_hand_ends_after_one_card() -> None:
    played = play(PA.with_options(rescue=False), {2: 1000}, "6H 9S 5S 8H 2C", {2: ["double"]})
    decisions = [s for s in played.steps if isinstance(s, NeedDecision)]
    assert len(decisions) == 1
    assert played.net(2) == -2000  # 13 against 17


def test_pa_635a_9_assumed_late_surrender_on_initial_two_cards_loses_half() -> None:
    played = play(PA, {3: 1000}, "KC 9S 6C 8H", {3: ["surrender"]})
    assert played.main(3).outcome is Outcome.SURRENDER
    assert played.net(3) == -500
    # Nothing else stands: the dealer's 17 draws nothing anyway.
    assert dealer(played) == "9S 8H"


def test_pa_635a_9_assumed_late_surrender_not_after_a_hit() -> None:
    round_ = start(PA, {3: 1000})
    drive(round_, "2C 9S 3C 8H 4D", {3: ["hit"]}, stop=NeedDecision)
    with pytest.raises(IllegalDecisionError, match="seat 3 hand 1: surrender"):
        round_.decide(3, Decision.SURRENDER)


def test_pa_635a_9_assumed_late_surrender_not_after_a_split() -> None:
    round_ = start(PA, {3: 1000})
    drive(round_, "8C 9S 8D 8H 3D", {3: ["split"]}, stop=NeedDecision)
    step = round_.step
    assert isinstance(step, NeedDecision) and step.hand == 0
    assert Decision.SURRENDER not in step.legal
    with pytest.raises(IllegalDecisionError, match="seat 3 hand 1: surrender"):
        round_.decide(3, Decision.SURRENDER)


def test_pa_635a_11_assumed_split_only_a_pair_of_identical_rank() -> None:
    round_ = start(PA, {4: 1000})
    drive(round_, "JC 9S QC 8H", stop=NeedDecision)
    with pytest.raises(IllegalDecisionError, match=r"seat 4 hand 1: split is not allowed on JC QC"):
        round_.decide(4, Decision.SPLIT)
    assert isinstance(round_.step, NeedDecision)  # the round is unchanged
    assert [c.text for c in round_.hands[4][0].cards] == ["JC", "QC"]


def test_pa_635a_7_i_split_first_hand_played_out_before_next_gets_its_card() -> None:
    # 8C 8D split; hand 1 gets 3S (11) and hits 9D (20), stands; then hand 2 gets 2S.
    played = play(
        PA,
        {1: 1000},
        "8C 9S 8D 8H 3S 9D 2S KC",
        {1: ["split", "hit", "stand", "hit", "stand"]},
    )
    roles = [
        (s.role.value, s.hand) for s in played.steps if isinstance(s, NeedCard) and s.seat == 1
    ]
    assert roles == [
        ("initial", 0),
        ("initial", 0),
        ("split", 0),
        ("hit", 0),
        ("split", 1),
        ("hit", 1),
    ]
    hands = played.round.hands[1]
    assert [[c.text for c in h.cards] for h in hands] == [["8C", "3S", "9D"], ["8D", "2S", "KC"]]
    # Hand 1: 20 beats 17 (+10); hand 2: 8+2+K = 20 (+10).
    assert played.net(1) == 2000


def test_pa_635a_11_assumed_split_up_to_four_hands() -> None:
    # 8s split three times into four hands; the fourth pair may not split again.
    round_ = start(PA, {1: 1000})
    drive(round_, "8C 9S 8D 8H 8S 8H 8C", {1: ["split", "split", "split"]}, stop=NeedDecision)
    assert len(round_.hands[1]) == 4
    step = round_.step
    assert isinstance(step, NeedDecision)
    # Hand 1 now holds 8C 8C (its card after the third split): no fifth hand. Each new
    # hand lies next to the hand it was split from, and is played in that order.
    assert [c.text for c in round_.hands[1][0].cards] == ["8C", "8C"]
    assert [h.cards[0].text for h in round_.hands[1]] == ["8C", "8H", "8S", "8D"]
    assert Decision.SPLIT not in step.legal
    with pytest.raises(IllegalDecisionError, match="at most 4 hands"):
        round_.decide(1, Decision.SPLIT)


def test_pa_635a_11_assumed_split_aces_take_one_card_each_no_decision() -> None:
    # AS AH split: hand 1 gets 5D (16), hand 2 gets 9C (20); no decision after the split.
    played = play(PA, {1: 1000}, "AS 9S AH 8H 5D 9C", {1: ["split"]})
    decisions = [s for s in played.steps if isinstance(s, NeedDecision)]
    assert len(decisions) == 1
    assert [h.status for h in played.round.hands[1]] == [HandStatus.STOOD, HandStatus.STOOD]
    assert played.net(1) == -1000 + 1000


def test_pa_635a_11_assumed_split_aces_resplit_offered_on_a_second_ace() -> None:
    round_ = start(PA, {1: 1000})
    drive(round_, "AS 9S AH 8H AD", {1: ["split"]}, stop=NeedDecision)
    step = round_.step
    assert isinstance(step, NeedDecision)
    assert step.legal == {Decision.STAND, Decision.SPLIT}
    with pytest.raises(IllegalDecisionError, match=r"seat 1 hand 1: hit.*split aces take one card"):
        round_.decide(1, Decision.HIT)


def test_pa_635a_11_split_aces_no_resplit_under_option() -> None:
    played = play(
        PA.with_options(resplit_aces=False), {1: 1000}, "AS 9S AH 8H AD 9C", {1: ["split"]}
    )
    # A+A = 12 and A+9 = 20 against 17: -10 +10.
    assert played.net(1) == 0


def test_pa_635a_11_hit_split_aces_option() -> None:
    profile = PA.with_options(hit_split_aces=True)
    played = play(
        profile, {1: 1000}, "AS 9S AH 8H 5D 3C 9C", {1: ["split", "hit", "stand", "stand"]}
    )
    # Hand 1: A 5 3 = 19 (+10); hand 2: A 9 = 20 (+10).
    assert played.net(1) == 2000


def test_ny_5324_12_b_1_iii_split_two_card_21_ends_itself_paid_1_to_1() -> None:
    played = play(NY, {1: 1000}, "AS 9S AH 8H KD 5C", {1: ["split"]})
    assert played.round.hands[1][0].status is HandStatus.TWENTY_ONE
    assert played.main(1, 0).outcome is Outcome.WIN
    assert played.main(1, 0).net == 1000  # 1:1, not 3:2
    assert played.main(1, 1).net == -1000  # A+5 = 16 against 17


def test_pa_635a_10_assumed_double_after_split_allowed() -> None:
    played = play(
        PA, {1: 1000}, "8C 9S 8D 8H 3S 9D 2S KC", {1: ["split", "double", "stand", "hit", "stand"]}
    )
    # Hand 1: 8 3 double 9 = 20 doubled (+20); hand 2: 8 2 K = 20 (+10).
    assert played.net(1) == 3000


def test_illegal_decision_error_names_seat_hand_and_decision() -> None:
    round_ = start(PA, {6: 1000})
    drive(round_, "8C 8S 8D 9S 3H 9D", {6: ["split", "stand"]}, stop=NeedDecision)
    with pytest.raises(IllegalDecisionError) as caught:
        round_.decide(6, Decision.SURRENDER)
    message = str(caught.value)
    assert "seat 6 hand 2" in message and "surrender" in message and "8D 9D" in message
    assert isinstance(caught.value, RulesError)


def test_decision_for_another_seat_is_out_of_turn() -> None:
    round_ = start(PA, {1: 1000, 2: 1000})
    drive(round_, "9C 8C 7S 9D 8D 5H", stop=NeedDecision)
    with pytest.raises(OutOfTurnError, match="seat 2: stand out of turn: it is seat 1 hand 1"):
        round_.decide(2, Decision.STAND)


def test_card_while_waiting_for_a_decision_is_out_of_turn() -> None:
    round_ = start(PA, {1: 1000})
    drive(round_, "9C 7S 9D 5H", stop=NeedDecision)
    with pytest.raises(OutOfTurnError, match="while waiting for a decision for seat 1 hand 1"):
        round_.deal(parse_card("2C"))
    assert describe(round_.step) == "a decision for seat 1 hand 1"


# --- dealer play ---------------------------------------------------------------------------


def test_pa_635a_7_l_dealer_stands_on_soft_17() -> None:
    played = play(PA, {1: 1000}, "KH AC 9S 6D", {1: ["stand"]})
    assert dealer(played) == "AC 6D"
    assert played.net(1) == 1000


def test_pa_635a_7_l_dealer_draws_to_hard_17() -> None:
    played = play(PA, {1: 1000}, "KH 5C 9S 6D 3H 2S 4D", {1: ["stand"]})
    # 5+6 = 11, +3 = 14, +2 = 16, +4 = 20 against 19.
    assert dealer(played) == "5C 6D 3H 2S 4D"
    assert played.net(1) == -1000


def test_pa_635a_7_l_dealer_soft_hand_turning_hard() -> None:
    # A+5 = soft 16 draws KD: hard 16 draws 3C: 19.
    played = play(PA, {1: 1000}, "KH AC 9S 5D KD 3C", {1: ["stand"]})
    assert dealer(played) == "AC 5D KD 3C"


def test_pa_635a_7_l_hit_soft_17_option_draws_on_soft_17_only() -> None:
    profile = NY.with_options(hit_soft_17=True)  # PA 635a.7(l) refuses it; NY is silent
    played = play(profile, {1: 1000}, "KH AC 9S 6D 3S", {1: ["stand"]})
    assert dealer(played) == "AC 6D 3S"
    played = play(profile, {1: 1000}, "KH KC 9S 7D", {1: ["stand"]})
    assert dealer(played) == "KC 7D"  # hard 17 stands


@pytest.mark.parametrize(
    ("shoe", "decisions"),
    [
        ("KH 5C 4S 6D 9H 3C QS 7H", {1: ["hit"], 2: ["hit"]}),  # bust and a 21 of 3 cards
        ("AS 5C 4S KD 9H 3C", {2: ["surrender"]}),  # blackjack and a surrender
        ("9S 5C 3S 6D 9H 3C KD 7D", {1: ["hit"], 2: ["hit"]}),  # bust and a 21 of 3 cards
    ],
)
def test_pa_635a_7_m_dealer_does_not_draw_when_outcome_cannot_change(
    shoe: str, decisions: dict[int, list[str]]
) -> None:
    played = play(PA, {1: 1000, 2: 1000}, shoe, decisions)
    assert len(played.round.dealer_cards) == 2  # the dealer's 6 to 8 draws nothing
    assert not any(isinstance(s, NeedCard) and s.role is CardRole.DRAW for s in played.steps)


def test_pa_635a_7_m_dealer_draws_when_a_standing_hand_can_win_or_lose() -> None:
    played = play(PA, {1: 1000, 2: 1000}, "KH 5C 4S 6D 9H 3C 7H QD", {1: ["hit"], 2: ["stand"]})
    # s1 K+6+7 = 23 busts; s2 5+9 = 14 stands; the dealer's 4+3 = 7 draws QD = 17.
    assert dealer(played) == "4S 3C QD"
    assert played.net(2) == -1000


def test_pa_635a_7_m_dealer_draws_for_a_pa_split_21_that_could_tie() -> None:
    # PA: a split two-card 21 ties a dealer 21, so the dealer's draw can change it.
    played = play(PA, {1: 1000}, "AS 5C AH 6D KD QC KC", {1: ["split"]})
    # Hand 1 A+K = 21; hand 2 A+Q = 21; dealer 11 draws KC = 21 of three: both push.
    assert dealer(played) == "5C 6D KC"
    assert played.net(1) == 0


def test_ny_5324_12_b_5_split_21_draws_the_dealer_a_21_would_pay_3_to_2() -> None:
    # NY: a split two-card 21 wins 1:1 against a dealer 20 ((b)(1)(ii)) but 3:2 against a
    # dealer 21 ((b)(1)(iii), (b)(5)), so the dealer's draw changes the outcome: it draws.
    played = play(NY, {1: 1000}, "AS 5C AH 6D KD QC KC", {1: ["split"]})
    assert dealer(played) == "5C 6D KC"  # 21 of three cards
    assert played.net(1) == 3000  # two hands of $10 at 3:2: 1500 + 1500
    played = play(NY, {1: 1000}, "AS 5C AH 6D KD QC 9C", {1: ["split"]})
    assert dealer(played) == "5C 6D 9C"  # 20
    assert played.net(1) == 2000  # two hands of $10 at 1:1: 1000 + 1000


def test_pa_635a_7_m_option_off_draws_anyway() -> None:
    profile = NY.with_options(no_draw_when_decided=False)  # assumed in NY, fixed in PA
    played = play(profile, {1: 1000}, "KH 5C 6D 3C QS 9H", {1: ["hit"]})
    assert dealer(played) == "5C 3C 9H"


def test_nj_19_7_g_dealers_card_dealt_even_when_all_players_bust() -> None:
    played = play(NJ, {1: 1000}, "KH 5C 6D QS 3C", {1: ["hit"]})
    assert dealer(played) == "5C 3C"  # the second card, no draw on 8


def test_nj_19_7_g_assumed_dealer_blackjack_after_play_takes_original_wager_only() -> None:
    # s1 6S 5C = 11 doubles 3D = 14; s2 AH JH blackjack; s3 9D QS = 19; dealer KD + AC.
    played = play(
        NJ,
        {1: 1000, 2: 1000, 3: 1000},
        "6S AH 9D KD 5C JH QS 3D AC",
        {1: ["double", "stand"], 3: ["stand"]},
    )
    assert played.round.dealer_blackjack
    assert [played.net(s) for s in (1, 2, 3)] == [-1000, 1500, -1000]


def test_nj_19_7_g_dealer_blackjack_takes_all_under_option() -> None:
    profile = NJ.with_options(dealer_blackjack_takes=DealerBlackjackTakes.ALL)
    played = play(profile, {1: 1000}, "6S KD 5C 3D AC", {1: ["double", "stand"]})
    assert played.net(1) == -2000


def test_pa_635a_7_o_nj_split_21_ties_dealer_blackjack_found_after_play() -> None:
    # NJ (default reading, PA 635a.7(o)): s1 AS AH split: A+K = 21, A+5 = 16; dealer K + A.
    played = play(NJ, {1: 1000}, "AS KH AH KD 5C AC", {1: ["split"]})
    assert played.main(1, 0).outcome is Outcome.PUSH
    assert played.main(1, 1).net == -1000
    assert played.net(1) == -1000


# --- cover card ----------------------------------------------------------------------------


def test_pa_635a_7_d_cover_card_first_round_completed_then_reshuffle() -> None:
    played = play(PA, {4: 1500}, "CUT JD 9S 8C 8H", {4: ["stand"]})
    assert played.round.reshuffle_due
    assert played.net(4) == 1500


def test_nj_19_7_j_cover_card_during_play() -> None:
    played = play(NJ, {1: 1000}, "5S 8D 6H 3C CUT 9C", {1: ["hit", "stand"]})
    # 5+6+3 = 14; dealer 8 + 9 = 17.
    assert played.round.reshuffle_due
    assert dealer(played) == "8D 9C"
    assert played.net(1) == -1000


def test_pa_635a_7_d_no_reshuffle_without_cover_card() -> None:
    assert not play(PA, {4: 1500}, "JD 9S 8C 8H", {4: ["stand"]}).round.reshuffle_due


# --- super bonus at the table --------------------------------------------------------------


def test_ny_5324_12_b_7_fifty_to_every_other_seat_that_wagered() -> None:
    # s1 7D 7D hits 7D against dealer 7C: $25 wager, 2:1 + $5,000. s3 surrenders, s5 loses.
    played = play(
        NY,
        {1: 2500, 3: 1000, 5: 1000},
        "7D KS 9H 7C 7D 6S 8H 9D 7D 9C",
        {1: ["hit"], 3: ["surrender"], 5: ["stand"]},
    )
    # s5 9H 8H = 17 against dealer 7C 9D = 16 draws 9C = 25: s5 wins.
    assert played.net(1) == 5000 + 500_000
    assert played.net(3) == -500 + 5000
    assert played.net(5) == 1000 + 5000
    shares = [p for p in played.round.payments if p.wager is WagerKind.SUPER_BONUS_SHARE]
    assert sorted(p.seat for p in shares) == [3, 5]


def test_ny_5324_12_b_7_two_super_bonuses_pay_each_other() -> None:
    played = play(NY, {1: 2500, 2: 1000}, "7D 7S 7C 7D 7S 9D 7D 7S", {1: ["hit"], 2: ["hit"]})
    assert played.net(1) == 5000 + 500_000 + 5000
    assert played.net(2) == 3000 + 100_000 + 5000


def test_ny_5324_12_b_7_super_bonus_not_on_split_hand_at_the_table() -> None:
    # s1 7D 7D split: hand 1 gets 7D (14) and hits 7D: 7-7-7 of diamonds on a split hand;
    # hand 2 gets 2C and hits 5D (14). s2 8S 9S = 17. Dealer 7C 9D = 16 draws KC: bust.
    played = play(
        NY,
        {1: 1000, 2: 1000},
        "7D 9S 7C 7D 8S 9D 7D 7D 2C 5D KC",
        {1: ["split", "hit", "hit", "stand"], 2: ["stand"]},
    )
    hand1 = played.main(1, 0)
    assert hand1.super_bonus == 0
    assert hand1.net == 2000  # 7-7-7 suited 2:1, no fixed payout (NY 5324.12(b)(7))
    assert not any(p.wager is WagerKind.SUPER_BONUS_SHARE for p in played.round.payments)


def test_ny_5324_12_b_7_super_bonus_not_on_doubled_hand_at_the_table() -> None:
    played = play(NY, {1: 1000, 2: 1000}, "7D 9S 7C 7D 8S 9D 7D KC", {1: ["double"], 2: ["stand"]})
    assert played.main(1).super_bonus == 0
    assert played.net(1) == 2000
    assert played.net(2) == 1000  # 17 against the dealer's 16 + K = 26


# --- settlement order and money ------------------------------------------------------------


def _final_payments(played: Played) -> list[Payment]:
    return [p for p in played.round.payments if p.wager is WagerKind.MAIN]


def test_pa_635a_7_p_1_collect_all_losing_wagers_then_pay() -> None:
    # Dealer 9C 9H = 18: s1 19 wins, s2 15 loses, s3 18 pushes, s4 20 wins, s5 16 loses.
    played = play(
        PA,
        dict.fromkeys((1, 2, 3, 4, 5), 1000),
        "KS 9S 9H KD 7D 9C 9D 6D 9S KC 9H 9H",
        {s: ["stand"] for s in (1, 2, 3, 4, 5)},
    )
    order = [(p.seat, p.net) for p in _final_payments(played)]
    assert dealer(played) == "9C 9H"
    assert order == [(5, -1000), (2, -1000), (4, 1000), (3, 0), (1, 1000)]


def test_pa_635a_7_p_2_settle_from_the_dealers_right_counterclockwise() -> None:
    profile = PA.with_options(settlement_order=SettlementOrder.RIGHT_TO_LEFT)
    played = play(
        profile,
        dict.fromkeys((1, 2, 3, 4, 5), 1000),
        "KS 9S 9H KD 7D 9C 9D 6D 9S KC 9H 9H",
        {s: ["stand"] for s in (1, 2, 3, 4, 5)},
    )
    order = [(p.seat, p.net) for p in _final_payments(played)]
    assert order == [(5, -1000), (4, 1000), (3, 0), (2, -1000), (1, 1000)]


def test_ny_5324_12_b_5_money_is_integer_cents_3_to_2_never_below_the_odds() -> None:
    played = play(PA, {1: 1255, 2: 1005}, "AS 5S 9D KC 6D 8H 3C", {2: ["double", "stand"]})
    # s1 blackjack 3:2 on 12.55 = 18.825: "no less than" 3:2, so 18.83 (18.82 is below the
    # odds); s2 doubles 11 to 14 and loses 10.05 twice against 17.
    assert played.net(1) == 1883
    assert played.net(2) == -2010
    for payment in played.round.payments:
        assert type(payment.net) is int
        assert type(payment.super_bonus) is int


def test_illegal_decision_reasons_name_the_profile_rule() -> None:
    round_ = start(PA.with_options(surrender=False), {1: 1000})
    drive(round_, "KC 9S 6C 8H", stop=NeedDecision)
    with pytest.raises(IllegalDecisionError, match="profile PA allows no surrender"):
        round_.decide(1, Decision.SURRENDER)
    round_ = start(PA.with_options(double_after_split=False), {1: 1000})
    drive(round_, "8C 9S 8D 8H 3S", {1: ["split"]}, stop=NeedDecision)
    with pytest.raises(IllegalDecisionError, match=r"seat 1 hand 1: double .*no double after a"):
        round_.decide(1, Decision.DOUBLE)
    round_ = start(PA.with_options(hit_split_aces=True), {1: 1000})
    drive(round_, "AC 9S AD 8H 3S", {1: ["split"]}, stop=NeedDecision)
    with pytest.raises(IllegalDecisionError, match="no double on split aces"):
        round_.decide(1, Decision.DOUBLE)


def test_insurance_settled_by_seat_whatever_the_order_given() -> None:
    round_ = start(PA, {1: 1000, 3: 1000, 5: 1000})
    drive(round_, "9S 9H 9D AC 9C 8H 8D KD", stop=NeedInsurance)
    round_.take_insurance({5: 500, 1: 200, 3: 0})
    drive(round_, "")
    insurance = [(p.seat, p.net) for p in round_.payments if p.wager is WagerKind.INSURANCE]
    assert insurance == [(1, 400), (5, 1000)]


def test_pa_635a_7_h_1_ii_no_peek_blackjack_against_face_paid_after_dealers_card() -> None:
    # NJ (no hole card): s1 AS KC blackjack against a KH up card is announced, not paid,
    # until the dealer's second card is known; against a 2-9 it is paid at once.
    round_ = start(NJ, {1: 1000, 2: 1000})
    drive(round_, "AS 9D KH KC 9C", stop=NeedDecision)
    assert round_.payments == []
    drive(round_, "8D", {2: ["stand"]})
    assert round_.seat_net(1) == 1500
    assert round_.seat_net(2) == 0  # 18 against K 8


def test_wagers_dealt_again_are_checked_against_each_profile() -> None:
    # Round keeps the last tuple of wagers it checked (a simulation deals thousands of rounds
    # to one tuple): the same tuple under a profile without Match the Dealer is refused
    # (PA 635a.7(f) offers it; the option match_the_dealer=False does not), and a refused
    # tuple stays refused.
    wagers = (SeatWager(2, 1000, 500), SeatWager(1, 1000))
    first = Round(PENNSYLVANIA, 6, wagers)
    assert first.seats == (1, 2)
    assert Round(PENNSYLVANIA, 6, wagers).wagers == first.wagers
    no_match = PENNSYLVANIA.with_options(match_the_dealer=False)
    for _ in range(2):
        with pytest.raises(WagerError, match="seat 2: profile PA offers no Match the Dealer"):
            Round(no_match, 6, wagers)
    assert Round(PENNSYLVANIA, 6, wagers).seats == (1, 2)
    repeated = (SeatWager(1, 1000), SeatWager(1, 500))
    for _ in range(2):
        with pytest.raises(WagerError, match="seat 1: listed twice"):
            Round(PENNSYLVANIA, 6, repeated)
