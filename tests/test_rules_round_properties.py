"""Property tests of the round engine over random legal rounds (hypothesis).

Each example builds a random table (profile and options, deck count, seats, wagers, Match
and insurance wagers), a random Spanish shoe, and plays every decision at random from the
step's legal set. The checks do not trust the engine: legality, dealer play and every
payment are recomputed here from the regulations (an independent oracle), and the round
must place every card exactly once, settle every hand exactly once, end, and keep money in
integer cents.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from controller.rules.cards import ALL_CARDS, Card, Rank, SealedCard, Suit, shoe_composition
from controller.rules.errors import IllegalDecisionError
from controller.rules.hands import HandStatus, PlayerHand, hand_total, is_blackjack_pair
from controller.rules.profiles import (
    NEW_JERSEY,
    NEW_YORK,
    PENNSYLVANIA,
    DealerBlackjackTakes,
    DealerSecondCard,
    Profile,
    SettlementOrder,
    SplitTwentyOne,
)
from controller.rules.round import Round
from controller.rules.settlement import WagerKind
from controller.rules.steps import (
    CardRole,
    Decision,
    NeedCard,
    NeedDecision,
    NeedInsurance,
    NeedPeek,
    NeedReveal,
    SeatWager,
)

FACES = {Rank.JACK, Rank.QUEEN, Rank.KING}
MAX_STEPS = 1_000
EXAMPLES = int(os.environ.get("RULES_PROPERTY_EXAMPLES", "400"))
STACKS = [
    ALL_CARDS,
    tuple(c for c in ALL_CARDS if c.rank <= Rank.FIVE),  # small cards: long hands
    tuple(c for c in ALL_CARDS if c.rank in (Rank.SIX, Rank.SEVEN, Rank.EIGHT)),
    tuple(c for c in ALL_CARDS if c.rank is Rank.SEVEN),  # 7-7-7 against a 7
    tuple(c for c in ALL_CARDS if c.rank in (Rank.ACE, Rank.EIGHT) or c.rank in FACES),
]
# Decisions are drawn with these weights so that rounds play out (not all surrenders).
WEIGHTS = {
    Decision.HIT: 6,
    Decision.STAND: 3,
    Decision.DOUBLE: 2,
    Decision.SPLIT: 5,
    Decision.SURRENDER: 1,
    Decision.RESCUE: 1,
}

PROFILE_VARIANTS: list[tuple[Profile, dict[str, Any]]] = [
    (PENNSYLVANIA, {}),
    (NEW_JERSEY, {}),
    (NEW_YORK, {}),
    (PENNSYLVANIA, {"settlement_order": SettlementOrder.RIGHT_TO_LEFT}),
    (NEW_YORK, {"hit_soft_17": True, "settlement_order": SettlementOrder.RIGHT_TO_LEFT}),
    (NEW_JERSEY, {"dealer_second_card": DealerSecondCard.HOLE, "peek": True}),
    (NEW_JERSEY, {"dealer_second_card": DealerSecondCard.HOLE}),
    (NEW_JERSEY, {"dealer_blackjack_takes": DealerBlackjackTakes.ALL}),
    (NEW_YORK, {"dealer_second_card": DealerSecondCard.AFTER_PLAYERS, "peek": False}),
    (
        PENNSYLVANIA,
        {"hit_split_aces": True, "double_split_aces": True, "resplit_aces": False},
    ),
    (PENNSYLVANIA, {"rescue": False, "surrender": False, "double_after_split": False}),
    (NEW_YORK, {"max_split_hands": 2, "no_draw_when_decided": False}),
]


@dataclass
class Trace:
    """What the driver saw: the cards in shoe order and the decisions taken."""

    dealt: list[Card] = field(default_factory=list)
    initial: dict[int, list[Card]] = field(default_factory=dict)  # each seat's first two
    steps: int = 0


# --- the oracle: legality, dealer play, payments -------------------------------------------


def expected_legal(hand: PlayerHand, profile: Profile, hands_at_seat: int) -> set[Decision]:
    if hand.status is HandStatus.DOUBLED:
        return {Decision.STAND, Decision.RESCUE}
    split_aces = hand.from_split and hand.cards[0].rank is Rank.ACE
    legal = {Decision.STAND}
    if not split_aces or profile.hit_split_aces:
        legal.add(Decision.HIT)
    if (not hand.from_split or profile.double_after_split) and (
        not split_aces or profile.double_split_aces
    ):
        legal.add(Decision.DOUBLE)
    pair = len(hand.cards) == 2 and hand.cards[0].rank == hand.cards[1].rank
    if (
        pair
        and hands_at_seat < profile.max_split_hands
        and (not split_aces or profile.resplit_aces)
    ):
        legal.add(Decision.SPLIT)
    if profile.surrender and len(hand.cards) == 2 and not hand.from_split:
        legal.add(Decision.SURRENDER)
    return legal


def split_21(hand: PlayerHand) -> bool:
    return hand.from_split and len(hand.cards) == 2 and hand.total == 21


def dealer_may_draw(round_: Round) -> bool:
    """PA 635a.7(m): some hand's result still depends on the dealer's total."""
    if not round_.profile.no_draw_when_decided:
        return True
    for hands in round_.hands.values():
        for hand in hands:
            if hand.status is HandStatus.STOOD and hand.total < 21:
                return True
            if split_21(hand):
                return True  # a dealer 21 makes it a push (PA) or a 3:2 win (NY (b)(5))
    return False


def dealer_must_draw(cards: list[Card], profile: Profile) -> bool:
    total, soft = hand_total(cards)
    return total < 17 or (total == 17 and soft and profile.hit_soft_17)


def bonus_odds(cards: list[Card]) -> tuple[int, int] | None:
    """NY 5324.12(b)(6) odds of a 21, as (numerator, denominator)."""
    n = len(cards)
    if n == 3:
        ranks = sorted(int(c.rank) for c in cards)
        suits = {c.suit for c in cards}
        if ranks in ([6, 7, 8], [7, 7, 7]):
            if suits == {Suit.SPADES}:
                return (3, 1)
            return (2, 1) if len(suits) == 1 else (3, 2)
        return None
    return {5: (3, 2), 6: (2, 1)}.get(n, (3, 1) if n >= 7 else None)


def up(cents: int, numerator: int, denominator: int) -> int:
    """``cents`` at odds numerator:denominator, a fractional cent to the player ("no less
    than" the odds: PA 635a.7(n), NY 5324.12(b)(5),(6))."""
    return (cents * numerator + denominator - 1) // denominator


def reading(value: SplitTwentyOne, stake: int) -> int:
    # NY 5324.12(b)(5): a (b)(1)(iii) winner is paid 3:2.
    return {
        SplitTwentyOne.WIN: up(stake, 3, 2),
        SplitTwentyOne.PUSH: 0,
        SplitTwentyOne.LOSE: -stake,
    }[value]


def expected_main(hand: PlayerHand, round_: Round) -> tuple[int, int]:
    """(net, super bonus) of one hand, from the regulations."""
    profile = round_.profile
    wager, stake = hand.wager, hand.wager + hand.double_cents
    dealer = round_.dealer_cards
    dealer_total, _ = hand_total(dealer)
    dealer_bj = is_blackjack_pair(dealer[0], dealer[1])
    cards = hand.cards
    total, _ = hand_total(cards)
    if hand.status is HandStatus.SURRENDERED:
        return -(wager // 2), 0  # ASSUMPTION (635a.9): the odd cent to the player
    if hand.status is HandStatus.RESCUED:
        return -wager, 0
    if total > 21:
        return -stake, 0
    if not hand.from_split and len(cards) == 2 and is_blackjack_pair(*cards):
        return up(stake, 3, 2), 0  # PA 635a.7(n)(3): even against a dealer blackjack
    if dealer_bj:
        if split_21(hand):
            return reading(profile.split_21_vs_dealer_blackjack, stake), 0
        return -stake, 0  # PA 635a.7(o)
    if dealer_total <= 21 and total < dealer_total:
        return -stake, 0
    if dealer_total <= 21 and total == dealer_total:
        if total < 21:
            return 0, 0
        if split_21(hand):
            return reading(profile.split_21_vs_dealer_21, stake), 0
    if total == 21 and not hand.doubled:
        odds = bonus_odds(cards)
        if odds is not None:
            extra = 0
            suited_777 = [c.rank for c in cards] == [Rank.SEVEN] * 3 and len(
                {c.suit for c in cards}
            ) == 1
            if suited_777 and dealer[0].rank is Rank.SEVEN and not hand.from_split:
                extra = 500_000 if wager >= 2_500 else 100_000 if wager >= 500 else 0
            return up(stake, *odds) + extra, extra
    return stake, 0


def super_bonus_hand(hand: PlayerHand, round_: Round) -> bool:
    """NY 5324.12(b)(7): a winning 7-7-7 of one suit against a dealer 7, not doubled or
    split (such a hand always wins: the dealer shows a 7, so no dealer blackjack)."""
    cards = hand.cards
    return (
        len(cards) == 3
        and all(c.rank is Rank.SEVEN for c in cards)
        and len({c.suit for c in cards}) == 1
        and round_.dealer_cards[0].rank is Rank.SEVEN
        and not hand.from_split
        and not hand.doubled
        and hand.status not in (HandStatus.SURRENDERED, HandStatus.RESCUED)
    )


def expected_seat_nets(round_: Round, trace: Trace, insurance: dict[int, int]) -> dict[int, int]:
    dealer = round_.dealer_cards
    dealer_bj = is_blackjack_pair(dealer[0], dealer[1])
    up = dealer[0]
    off, same = {6: ((4, 1), (9, 1)), 8: ((3, 1), (12, 1))}[round_.decks]
    nets: dict[int, int] = {}
    supers: list[int] = []
    for seat in round_.seats:
        wager = round_.wagers[seat]
        net = 0
        hand_nets = []
        for hand in round_.hands[seat]:
            main, _extra = expected_main(hand, round_)
            if super_bonus_hand(hand, round_):
                supers.append(seat)  # the $50 shares follow the hand, whatever its wager
            hand_nets.append((hand, main))
        takes_original = (
            dealer_bj
            and not round_.profile.uses_hole_card_peek
            and round_.profile.dealer_blackjack_takes is DealerBlackjackTakes.ORIGINAL_ONLY
        )
        if takes_original:
            # ASSUMPTION (no peek): the seat's still-open losing hands cost the original
            # wager once; settled-at-decision hands (surrender, rescue) keep their result.
            # A hand that busted was lost in full before the dealer's blackjack was known,
            # and counts as the seat's loss.
            final = (HandStatus.SURRENDERED, HandStatus.RESCUED, HandStatus.BUST)
            early = [n for h, n in hand_nets if h.status in final]
            busted = any(h.status is HandStatus.BUST for h, _ in hand_nets)
            rest = [n for h, n in hand_nets if h.status not in final]
            losing = [n for n in rest if n < 0]
            taken = wager.wager if losing and not busted else 0
            net += sum(early) + sum(n for n in rest if n >= 0) - taken
        else:
            net += sum(n for _, n in hand_nets)
        first, second = trace.initial[seat]
        if wager.match:
            for card in (first, second):
                if card.rank is up.rank:
                    num, den = same if card.suit is up.suit else off
                    net += wager.match * num // den
            if up.rank not in (first.rank, second.rank):
                net -= wager.match
        if insurance.get(seat):
            net += 2 * insurance[seat] if dealer_bj else -insurance[seat]
        nets[seat] = net
    for winner in supers:
        for seat in round_.seats:
            if seat != winner:
                nets[seat] += 5_000  # NY 5324.12(b)(7)
    return nets


# --- the driver ----------------------------------------------------------------------------


@st.composite
def tables(draw: st.DrawFn) -> tuple[Round, list[Card | None], random.Random]:
    base, options = draw(st.sampled_from(PROFILE_VARIANTS))
    profile = base.with_options(**options) if options else base
    decks = draw(st.sampled_from([6, 8]))
    seats = draw(st.lists(st.integers(1, 7), min_size=1, max_size=7, unique=True))
    wagers = [
        SeatWager(
            seat,
            draw(st.sampled_from([100, 499, 500, 1000, 1255, 2499, 2500, 10_000])),
            draw(st.sampled_from([0, 0, 500, 1001])),
        )
        for seat in seats
    ]
    # A seeded generator (not st.randoms, whose values lean to the extremes) keeps the
    # decisions evenly spread; the seed makes a failure reproducible.
    rnd = random.Random(draw(st.integers(0, 2**32)))
    shoe: list[Card | None] = list(shoe_composition(decks).elements())
    rnd.shuffle(shoe)
    if draw(st.booleans()):
        # Stack the top of the shoe so that splits, many-card 21s and 6-7-8 / 7-7-7 hands
        # come up often; the cards are still Spanish cards.
        theme = draw(st.sampled_from(STACKS))
        shoe[:0] = draw(st.lists(st.sampled_from(theme), max_size=40))
    if draw(st.booleans()):
        shoe.insert(draw(st.integers(0, 40)), None)  # the cover card
    return Round(profile, decks, wagers), shoe, rnd


def play_randomly(
    round_: Round, shoe: list[Card | None], rnd: random.Random, insurance: dict[int, int]
) -> Trace:
    trace = Trace()
    position = 0
    cover_seen = False
    while not round_.over:
        trace.steps += 1
        assert trace.steps < MAX_STEPS, "the round does not end"
        step = round_.step
        if isinstance(step, NeedCard):
            card = shoe[position]
            position += 1
            if card is None:
                round_.cover_card()
                cover_seen = True
                card = shoe[position]
                position += 1
            assert card is not None
            trace.dealt.append(card)
            check_card_step(round_, step)
            if step.role is CardRole.INITIAL and step.seat is not None:
                trace.initial.setdefault(step.seat, []).append(card)
            if step.role is CardRole.HOLE and rnd.random() < 0.5:
                round_.deal(SealedCard(card))
            else:
                round_.deal(card)
        elif isinstance(step, NeedInsurance):
            assert round_.up_card is not None and round_.up_card.rank is Rank.ACE
            for seat in step.seats:
                if rnd.random() < 0.5:
                    insurance[seat] = rnd.randint(0, round_.wagers[seat].wager // 2)
            round_.take_insurance(insurance)
        elif isinstance(step, NeedPeek):
            assert round_.profile.uses_hole_card_peek
            assert round_.up_card is not None and round_.hole is not None
            assert round_.up_card.rank in FACES | {Rank.ACE}
            round_.peek(is_blackjack_pair(round_.up_card, round_.hole.reveal()))
        elif isinstance(step, NeedDecision):
            decide_randomly(round_, step, rnd)
        elif isinstance(step, NeedReveal):
            round_.reveal_hole()
    assert round_.reshuffle_due is cover_seen
    return trace


def check_card_step(round_: Round, step: NeedCard) -> None:
    if step.role is CardRole.DRAW:
        # PA 635a.7(l), (m): the dealer draws only below 17 (or on a soft 17 with the
        # option), never on a blackjack, and only when an outcome can still change.
        cards = round_.dealer_cards
        assert dealer_must_draw(cards, round_.profile)
        assert not is_blackjack_pair(cards[0], cards[1])
        assert dealer_may_draw(round_)
    elif step.role is CardRole.SPLIT:
        assert step.seat is not None and step.hand is not None
        hand = round_.hands[step.seat][step.hand]
        assert len(hand.cards) == 1 and hand.from_split
    elif step.role in (CardRole.HIT, CardRole.DOUBLE):
        assert step.seat is not None and step.hand is not None
        assert round_.hands[step.seat][step.hand].total < 21


def decide_randomly(round_: Round, step: NeedDecision, rnd: random.Random) -> None:
    hand = round_.hands[step.seat][step.hand]
    assert hand.status in (HandStatus.PLAYING, HandStatus.DOUBLED)
    assert len(hand.cards) >= 2 and hand.total < 21
    assert (hand.total, hand.soft) == hand_total(hand.cards)
    assert not hand.is_blackjack
    assert set(step.legal) == expected_legal(hand, round_.profile, len(round_.hands[step.seat]))
    illegal = sorted(set(Decision) - step.legal, key=lambda d: d.value)
    if illegal and rnd.random() < 0.2:
        wrong = rnd.choice(illegal)
        before = (list(hand.cards), hand.status, len(round_.hands[step.seat]))
        try:
            round_.decide(step.seat, wrong)
        except IllegalDecisionError as err:
            assert f"seat {step.seat} hand {step.hand + 1}" in str(err)
            assert wrong.value in str(err)
        else:
            raise AssertionError(f"{wrong} was accepted but not legal")
        assert (list(hand.cards), hand.status, len(round_.hands[step.seat])) == before
        assert round_.step == step
    legal = sorted(step.legal, key=lambda d: d.value)
    round_.decide(step.seat, rnd.choices(legal, [WEIGHTS[d] for d in legal])[0])


# --- the properties ------------------------------------------------------------------------


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_random_legal_rounds_keep_every_invariant(
    table: tuple[Round, list[Card | None], random.Random],
) -> None:
    round_, shoe, rnd = table
    insurance: dict[int, int] = {}
    trace = play_randomly(round_, shoe, rnd, insurance)
    check_finished_round(round_, trace, insurance)
    for payment in round_.payments:
        event(f"{payment.wager.value} {payment.outcome.value}")
        if payment.bonus:
            doubled = payment.odds is not None and payment.odds.numerator == 1
            event(f"bonus {payment.bonus.value}{' doubled' if doubled else ''}")
        if payment.super_bonus:
            event("super bonus")
    if any(len(h) > 1 for h in round_.hands.values()):
        event("split")
    if round_.dealer_blackjack:
        event(f"dealer blackjack, peek={round_.profile.uses_hole_card_peek}")


def check_finished_round(round_: Round, trace: Trace, insurance: dict[int, int]) -> None:
    # Every card dealt is in exactly one place, the hole card revealed.
    assert round_.hole is None
    placed = list(round_.dealer_cards) + [
        c for hands in round_.hands.values() for h in hands for c in h.cards
    ]
    assert Counter(placed) == Counter(trace.dealt)
    assert len(placed) == len(trace.dealt)

    # Totals agree with hand_total; no hand is left open; at most max_split_hands.
    for seat, hands in round_.hands.items():
        assert 1 <= len(hands) <= max(1, round_.profile.max_split_hands)
        for index, hand in enumerate(hands):
            assert hand.index == index and hand.seat == seat
            assert (hand.total, hand.soft) == hand_total(hand.cards)
            # PA 635a.7(g): a peeked dealer blackjack ends the round before anyone plays.
            peeked_blackjack = round_.peek_answer is True
            assert hand.status.finished or (peeked_blackjack and hand.status is HandStatus.PLAYING)
            assert len(hand.cards) >= 2
            if hand.status is HandStatus.BUST:
                assert hand.total > 21
            if hand.status in (HandStatus.TWENTY_ONE, HandStatus.BLACKJACK):
                assert hand.total == 21
            if hand.status is HandStatus.BLACKJACK:
                assert hand.is_blackjack
            if hand.status is HandStatus.STOOD:
                assert hand.total < 21

    # The dealer stopped where PA 635a.7(l)-(m) say.
    dealer = round_.dealer_cards
    assert len(dealer) >= 2
    dealer_bj = is_blackjack_pair(dealer[0], dealer[1])
    assert round_.dealer_blackjack is dealer_bj
    if dealer_must_draw(dealer, round_.profile) and not dealer_bj:
        assert not dealer_may_draw(round_), "the dealer stopped although an outcome could change"
    if dealer_bj and round_.profile.uses_hole_card_peek:
        assert all(len(h.cards) == 2 for hands in round_.hands.values() for h in hands)

    # Every hand settled exactly once, every side wager once; money in integer cents.
    payments = round_.payments
    assert all(type(p.net) is int and type(p.super_bonus) is int for p in payments)
    main = Counter((p.seat, p.hand) for p in payments if p.wager is WagerKind.MAIN)
    expected = Counter((s, h.index) for s, hands in round_.hands.items() for h in hands)
    assert main == expected
    for seat in round_.seats:
        kinds = Counter(p.wager for p in payments if p.seat == seat)
        assert kinds[WagerKind.MATCH] == (1 if round_.wagers[seat].match else 0)
        assert kinds[WagerKind.INSURANCE] == (1 if insurance.get(seat) else 0)

    # Each seat's net is the sum of its payments, and equals the oracle's.
    nets = expected_seat_nets(round_, trace, insurance)
    for seat in round_.seats:
        mine = [p.net for p in payments if p.seat == seat]
        assert round_.seat_net(seat) == sum(mine)
        assert round_.seat_net(seat) == nets[seat], (seat, round_.hands[seat], dealer)
