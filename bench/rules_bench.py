"""How many complete random rounds per second the rules engine settles.

Seven seats, one core, random legal decisions, cards from a shuffled Spanish shoe (reshuffled
when fewer than 80 cards remain), the card reader answered from the hole card, insurance
taken at random on an ace. A round counts once it is settled (``Round.over``). The figure
includes this driver (drawing cards and choosing decisions), as the table procedure or a
simulation would pay for it too.

    .venv/bin/python bench/rules_bench.py [--rounds N] [--profile PA|NJ|NY] [--seed S]
    .venv/bin/python bench/rules_bench.py --profile-hot-spots   # cProfile the loop
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import time

from controller.rules.cards import Card, shoe_composition
from controller.rules.hands import is_blackjack_pair
from controller.rules.profiles import get_profile
from controller.rules.round import Round
from controller.rules.steps import (
    Decision,
    NeedCard,
    NeedDecision,
    NeedInsurance,
    NeedPeek,
    NeedReveal,
    SeatWager,
)

SEATS = 7
RESHUFFLE_BELOW = 80


def run(rounds: int, profile_code: str, decks: int, seed: int) -> tuple[int, int, float]:
    """Play ``rounds`` rounds; return (rounds, player hands settled, seconds)."""
    profile = get_profile(profile_code)
    rnd = random.Random(seed)
    batch: list[Card] = list(shoe_composition(decks).elements())
    shoe: list[Card] = []
    wagers = [SeatWager(seat, 1000, 500 if seat % 2 else 0) for seat in range(1, SEATS + 1)]
    ordered: dict[frozenset[Decision], tuple[Decision, ...]] = {}
    hands = 0
    start = time.process_time()  # CPU time of this process: fairer on a shared machine
    for _ in range(rounds):
        if len(shoe) < RESHUFFLE_BELOW:
            shoe = batch[:]
            rnd.shuffle(shoe)
        round_ = Round(profile, decks, wagers)
        while True:
            step = round_.step
            if isinstance(step, NeedCard):
                round_.deal(shoe.pop())
            elif isinstance(step, NeedDecision):
                legal = ordered.get(step.legal)
                if legal is None:  # a set's order follows str hashes: sort it once, by name
                    legal = ordered[step.legal] = tuple(sorted(step.legal, key=lambda d: d.value))
                round_.decide(step.seat, legal[int(rnd.random() * len(legal))])
            elif isinstance(step, NeedInsurance):
                round_.take_insurance({s: 500 for s in step.seats if rnd.random() < 0.3})
            elif isinstance(step, NeedPeek):
                up, hole = round_.up_card, round_.hole
                assert up is not None and hole is not None
                round_.peek(is_blackjack_pair(up, hole.reveal()))
            elif isinstance(step, NeedReveal):
                round_.reveal_hole()
            else:
                break
        hands += sum(len(h) for h in round_.hands.values())
    return rounds, hands, time.process_time() - start


def main() -> None:
    """Print rounds/s and hands/s."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=50_000)
    parser.add_argument("--profile", default="PA")
    parser.add_argument("--decks", type=int, default=6, choices=(6, 8))
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--profile-hot-spots", action="store_true")
    args = parser.parse_args()
    if args.profile_hot_spots:
        profiler = cProfile.Profile()
        profiler.runcall(run, args.rounds, args.profile, args.decks, args.seed)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return
    run(2_000, args.profile, args.decks, args.seed)  # warm up
    rounds, hands, seconds = run(args.rounds, args.profile, args.decks, args.seed)
    print(
        f"rules engine, profile {args.profile}, {args.decks} decks, {SEATS} seats, one core: "
        f"{rounds} rounds in {seconds:.2f} s of CPU time"
    )
    print(f"{rounds / seconds:,.0f} rounds/s")
    print(f"{hands / seconds:,.0f} hands/s ({hands / rounds:.2f} player hands per round)")
    figures = {"rounds_per_s": round(rounds / seconds), "hands_per_s": round(hands / seconds)}
    print("FIGURES " + json.dumps(figures))


if __name__ == "__main__":
    main()
