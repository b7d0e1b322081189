"""Every payout, end to end: each worked example in ``examples/`` played through the station.

One example per payout (blackjack 3:2, wins and pushes, five-, six- and seven-card 21s,
6-7-8 and 7-7-7 bonuses, the super bonus and its $50 shares, Match the Dealer tables A and
B, insurance, double down, rescue, surrender, splits and split aces, the cover card,
hit-soft-17): the wagers are placed with their value (the sensor board reads it), the
decisions are pressed on the panel, the cards come out of the shoe double, the dealer moves
the chips at every settlement prompt, and the journal's settlement rows must add up, seat by
seat and wager by wager, to the amounts below. Those are worked by hand from each example's
shoe and the regulations, never computed by the engine under test (a blackjack paid 1:1 or
insurance paid 1:1 fails here).
"""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from table_driver import TableDriver, card_due

from controller.service import config as cfg
from controller.table.prompts import State
from drivers.hal import Button

EXAMPLES = sorted((Path(__file__).parents[1] / "examples").glob("*.json"))
SPARE = " 2D 3C 4S 5H 6D 2H 3S 4C 5S 6C"  # so the shoe never runs dry by accident

M, X, INS, S = "main", "match", "insurance", "super_bonus_share"

#: Net cents by (seat, wager), worked by hand; the arithmetic in the comments.
EXPECTED: dict[str, dict[tuple[int, str], int]] = {
    # PA 635a.7(h)(1)(i): s1 AS KC against a 5: 12.50 x 3/2 = 18.75. s2 9D 9C = 18 ties the
    # dealer's 5 J 3 = 18.
    "blackjack_paid_at_once": {(1, M): 1875, (2, M): 0},
    # s4 JD 8C = 18 beats the dealer's 9S 8H = 17: +15.00.
    "cover_card_first": {(4, M): 1500},
    # s1 5S 6H 3C = 14 against 8D 9C = 17: -10.00.
    "cover_card_mid_round": {(1, M): -1000},
    # PA 635a.7(g): dealer AC KD blackjack. s2 insurance 5.00 x 2 = +10.00, its 9H 9D loses
    # 10.00; s4 AS KS blackjack 10.00 x 3/2 = +15.00 (635a.7(n)(3)).
    "dealer_blackjack_insurance_wins": {(2, M): -1000, (2, INS): 1000, (4, M): 1500},
    # s1 K 6 Q busts: -10.00; s2 5 9 7 = 21 of three cards: +10.00 (the dealer's 4 3 = 7
    # draws nothing, 635a.7(m)).
    "dealer_does_not_draw": {(1, M): -1000, (2, M): 1000},
    # s1 doubled five-card 21 paid 1:1 on 10 + 10 = +20.00 (NY (b)(6)); s2 rescue loses the
    # original 10.00; s3 surrender loses half of 10.00 = 5.00; s4 doubled 19 beats 17 on
    # 10 + 10 = +20.00.
    "double_rescue_surrender": {(1, M): 2000, (2, M): -1000, (3, M): -500, (4, M): 2000},
    # NY option: the dealer's AC 6D soft 17 hits 3S = 20 and beats KH 9S = 19: -10.00.
    "hit_soft_17_option": {(1, M): -1000},
    # s1 insurance 10.00 lost; its KH 9S = 19 beats AC 7H = 18 on 20.00: +20.00. s3 AD QD
    # blackjack paid after the reveal, 10.00 x 3/2 = +15.00.
    "insurance_peek_no_blackjack": {(1, INS): -1000, (1, M): 2000, (3, M): 1500},
    # Up 7S, table A. s1 Match 5.00: 7S suited 9:1 = 45.00 + 7C off-suit 4:1 = 20.00 =
    # +65.00; 7 7 = 14 loses to 17: -10.00. s2 Match: 7D 4:1 = +20.00; 7D 2S 8D = 17
    # pushes. s3 Match: J, 9 no match: -5.00; J 9 = 19 beats 17: +10.00.
    "match_table_a": {
        (1, X): 6500,
        (1, M): -1000,
        (2, X): 2000,
        (2, M): 0,
        (3, X): -500,
        (3, M): 1000,
    },
    # Up KS, table B, dealer KS AH blackjack. s2 Match 5.00: KS suited 12:1 = +60.00; K Q
    # 20 loses 20.00. s5 Match 10.00: KD off-suit 3:1 = +30.00; K 4 loses 20.00.
    "match_table_b_dealer_blackjack": {
        (2, X): 6000,
        (2, M): -2000,
        (5, X): 3000,
        (5, M): -2000,
    },
    # NY (b)(6) on 10.00 each: five-card 21 3:2 = 15.00, six-card 2:1 = 20.00, seven-card
    # 3:1 = 30.00, four-card 21 1:1 = 10.00.
    "multi_card_21_bonuses": {(1, M): 1500, (2, M): 2000, (3, M): 3000, (4, M): 1000},
    # NJ: the Dealer's Card AC makes KD AC a blackjack after play. s1's doubled hand loses
    # its original 10.00 only; s2 AH JH blackjack 10.00 x 3/2 = +15.00; s3 19 loses 10.00.
    "nj_dealers_card_after_players": {(1, M): -1000, (2, M): 1500, (3, M): -1000},
    # The dealer's 7C 8D... 16 draws 9S and busts: s1 +10.00, s3 +25.00.
    "pa_basic": {(1, M): 1000, (3, M): 2500},
    # s1 split 7s: 7-7-7 of hearts 2:1 on 10.00 = +20.00 (no fixed payout on a split hand),
    # 7 9 = 16 wins 10.00 when the dealer busts; s2 doubled 7-7-7 1:1 on 20.00 = +20.00.
    "seven_seven_seven_without_super_bonus": {(1, M): 3000, (2, M): 2000},
    # NY (b)(6) on 10.00 each: 6-7-8 mixed 3:2 = 15.00, suited 2:1 = 20.00, spades 3:1 =
    # 30.00, 7-7-7 mixed 3:2 = 15.00.
    "six_seven_eight_and_seven_seven_seven": {
        (1, M): 1500,
        (2, M): 2000,
        (3, M): 3000,
        (4, M): 1500,
    },
    # PA: s2 split A+K ties the dealer's three-card 21 (0), A+2 = 13 loses 10.00; s3's
    # three-card 21 beats it (635a.7(n)(4)): +10.00.
    "split_21_push_in_pa": {(2, M): -1000, (3, M): 1000},
    # s1 8s on 10.00: doubled 20 pushes the dealer's 20, 18 and 17 lose: -20.00. s5 aces on
    # 20.00: A+K = 21 beats 20 under (b)(1)(ii), 1:1 = +20.00; A+7 = 18 loses 20.00.
    "splits_and_split_aces": {(1, M): -2000, (5, M): 0},
    # Dealer 7 up. s1 25.00: 7-7-7 of diamonds 2:1 = 50.00 + 5,000.00 = +5,050.00, and 50.00
    # from s2's super bonus. s2 10.00: 7-7-7 of spades 3:1 = 30.00 + 1,000.00 = +1,030.00,
    # and 50.00 from s1's. s6 5.00: 19 wins 5.00 when the dealer busts, and 2 x 50.00.
    "super_bonus": {
        (1, M): 505_000,
        (1, S): 5_000,
        (2, M): 103_000,
        (2, S): 5_000,
        (6, M): 500,
        (6, S): 10_000,
    },
}


def test_every_example_has_hand_worked_amounts() -> None:
    assert {p.stem for p in EXAMPLES} == set(EXPECTED)


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_payout_matches_the_hand_worked_amounts(station: Any, example: Path) -> None:
    """Each worked example of ``examples/`` (one per payout: blackjack, 5-6-7 card 21s,
    6-7-8 and 7-7-7, super bonus, Match the Dealer tables A and B, insurance, double,
    rescue, surrender, splits, pushes) played through the station with wager sensors: the
    journal's settlement rows add up to the hand-worked amounts, and the dealer's chip
    moves at every settlement prompt raise no fault."""
    document = json.loads(example.read_text(), parse_float=Decimal)
    options = _station_options(document)
    t = station(document["profile"], document["decks"], options=options)
    shoe = ["2C"] + document["shoe"]  # the burn card first
    cover = shoe.index("CUT") if "CUT" in shoe else None
    cards = " ".join(c for c in shoe if c != "CUT") + SPARE
    t.ready(cards, cover_at=cover)
    _play_script(t, document)
    nets: Counter[tuple[int, str]] = Counter()
    for row in t.data("settlement", "match_settled", "insurance"):
        nets[row["seat"], row["wager"]] += row["net_cents"]
    assert dict(nets) == EXPECTED[example.stem]
    t.finish()


def _station_options(document: dict[str, Any]) -> cfg.Options:
    extra = document.get("options") or {}
    return cfg.Options.of(hit_soft_17=bool(extra.get("hit_soft_17")))


def _cents(amount: Any) -> int:
    return int(Decimal(str(amount)) * 100)


def _play_script(t: TableDriver, document: dict[str, Any]) -> None:
    """Bet and play the example's decisions through the panel and the shoe."""
    seats = {s["seat"]: s for s in document["seats"]}
    decisions = {seat: list(s.get("decisions", [])) for seat, s in seats.items()}
    for seat, s in sorted(seats.items()):
        match = _cents(s["match"]) if s.get("match") else False
        t.bet(seat, _cents(s["wager"]), match=match)
    t.press()
    buttons = {
        "stand": Button.NEXT,
        "double": Button.DOUBLE,
        "split": Button.SPLIT,
        "surrender": Button.SURRENDER,
        "rescue": Button.RESCUE,
    }
    while t.state not in (State.BETTING, State.SHUFFLING, State.LOADING):
        view = t.view
        state = t.state
        if state is State.INSURANCE:
            for seat, s in seats.items():
                if s.get("insurance"):
                    t.insure(seat, _cents(s["insurance"]))
            t.press()
        elif state is State.PEEKING:
            t.peek()
        elif card_due(view):
            t.deal()
        elif state is State.PLAYERS:
            assert view.acting_seat is not None
            queue = decisions[view.acting_seat]
            if set(view.legal) == {"stand", "rescue"} and (not queue or queue[0] != "rescue"):
                t.press()  # a doubled hand ends after its card unless rescued
                continue
            decision = queue.pop(0)
            t.deal() if decision == "hit" else t.press(buttons[decision])
            if decision in ("double", "split"):  # one more wager on the main spot
                t.add_wager(view.acting_seat, _cents(seats[view.acting_seat]["wager"]))
        elif state is State.FAULT:
            raise AssertionError(f"the example faulted: {view.fault}")
        elif state in (State.MATCH, State.SETTLE_NOW, State.SETTLING):
            t.settle()  # the chips move as the prompt says, then NEXT
        else:
            t.press()
    assert all(not q for q in decisions.values()), decisions
