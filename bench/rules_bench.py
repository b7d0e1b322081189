"""How fast the rules engine plays, in two modes, and beside cardsharp when it is installed.

- ``table``: seven seats, random legal decisions, cards from a shuffled Spanish shoe
  (reshuffled below 80 cards), the card reader answered from the hole card, insurance taken at
  random on an ace. A round counts once it is settled (``Round.over``).
- ``like-for-like``: what cardsharp's ``spanish21`` variant plays: one seat, basic strategy
  (:mod:`controller.simulation.strategy`), a new :class:`~controller.rules.round.Round` per
  hand, full settlement with the bonuses, a six-deck shoe reshuffled at 75% penetration
  (cardsharp's default), no insurance.

Both figures include this driver (drawing cards, choosing decisions), as the table procedure
or a simulation pays for it too. Time is CPU time of the process (``time.process_time``): the
machine is shared, and CPU-seconds are the fair unit.

The peer: ``--peer-python PATH`` names the Python of a separate environment, outside this
repository, where cardsharp is installed (docs/performance.md gives the commands). Its own
command line plays the hands (``--simulate --single_cpu --variant spanish21``); its CPU time
is taken from the child's rusage, less the CPU time of a one-game run (interpreter start and
imports). Ours and the peer's runs are interleaved, ``--repeats`` times; the median counts.

    .venv/bin/python bench/rules_bench.py [--rounds N] [--hands N] [--peer-python PATH]
    .venv/bin/python bench/rules_bench.py --profile-hot-spots   # cProfile both loops
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.rules.cards import Card, shoe_composition
from controller.rules.hands import hole_card_gives_blackjack, is_blackjack_pair
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
from controller.simulation.strategy import choose

SEATS = 7
RESHUFFLE_BELOW = 80
PENETRATION = 0.75  # cardsharp's default: reshuffle once 75% of the shoe is dealt
PEER_ARGS = (
    "-m",
    "cardsharp.blackjack.blackjack",
    "--simulate",
    "--single_cpu",
    "--variant",
    "spanish21",
    "--enable_bonus_payouts",
    "--allow_late_surrender",
    "--allow_resplitting",
    "--num_decks",
    "6",
    "--num_games",
)


def run_table(rounds: int, profile_code: str, decks: int, seed: int) -> tuple[int, int, float]:
    """Play ``rounds`` seven-seat rounds; return (rounds, player hands settled, CPU seconds)."""
    profile = get_profile(profile_code)
    rnd = random.Random(seed)
    batch: list[Card] = list(shoe_composition(decks).elements())
    shoe: list[Card] = []
    wagers = [SeatWager(seat, 1000, 500 if seat % 2 else 0) for seat in range(1, SEATS + 1)]
    ordered: dict[frozenset[Decision], tuple[Decision, ...]] = {}
    hands = 0
    start = time.process_time()
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


def run_like_for_like(hands: int, profile_code: str, seed: int) -> tuple[int, int, float]:
    """Play ``hands`` one-seat basic-strategy rounds; return (hands, net cents, CPU seconds)."""
    profile = get_profile(profile_code)
    decks = 6
    rnd = random.Random(seed)
    batch: list[Card] = list(shoe_composition(decks).elements())
    reshuffle_below = int(len(batch) * (1 - PENETRATION))
    shoe: list[Card] = []
    wagers = (SeatWager(1, 1000),)
    net = 0
    start = time.process_time()
    for _ in range(hands):
        if len(shoe) < reshuffle_below:
            shoe = batch[:]
            rnd.shuffle(shoe)
        round_ = Round(profile, decks, wagers)
        pop = shoe.pop
        round_.deal_initial([pop() for _ in range(round_.initial_cards_due)])
        up = round_.dealer_cards[0]
        seat_hands = round_.hands[1]
        while True:
            step = round_.step
            kind = type(step)
            if kind is NeedDecision:
                assert isinstance(step, NeedDecision)
                round_.decide(1, choose(seat_hands[step.hand].cards, up, step.legal, profile))
            elif kind is NeedCard:
                round_.deal(pop())
            elif kind is NeedPeek:
                assert round_.hole is not None
                round_.peek(hole_card_gives_blackjack(up, round_.hole.reveal()))
            elif kind is NeedReveal:
                round_.reveal_hole()
            elif kind is NeedInsurance:
                round_.take_insurance({})  # basic strategy never insures
            else:
                break
        for payment in round_.payments:
            net += payment.net
    return hands, net, time.process_time() - start


def _child_cpu(command: list[str]) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(command, capture_output=True, text=True, check=True, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, proc.stdout


def run_peer(python: str, hands: int) -> float:
    """CPU seconds cardsharp spends on ``hands`` spanish21 hands (start-up subtracted)."""
    base, _ = _child_cpu([python, *PEER_ARGS, "1"])
    cpu, out = _child_cpu([python, *PEER_ARGS, str(hands)])
    if "Games simulated per second" not in out:
        raise RuntimeError(f"cardsharp printed no result:\n{out}")
    return max(cpu - base, 1e-9)


def main() -> None:
    """Print both modes' figures, and the peer's where it is installed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=50_000, help="table mode rounds")
    parser.add_argument("--hands", type=int, default=200_000, help="like-for-like hands")
    parser.add_argument("--profile", default="PA")
    parser.add_argument("--decks", type=int, default=6, choices=(6, 8))
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--peer-python",
        default=os.environ.get("PEER_PYTHON"),
        help="python of an environment with cardsharp (default: $PEER_PYTHON)",
    )
    parser.add_argument("--profile-hot-spots", action="store_true")
    args = parser.parse_args()
    if args.profile_hot_spots:
        for fn, n in ((run_like_for_like, args.hands), (run_table, args.rounds)):
            profiler = cProfile.Profile()
            if fn is run_table:
                profiler.runcall(run_table, n, args.profile, args.decks, args.seed)
            else:
                profiler.runcall(run_like_for_like, n, args.profile, args.seed)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return
    run_table(500, args.profile, args.decks, args.seed)  # warm up
    run_like_for_like(2_000, args.profile, args.seed)
    ours: list[float] = []
    peer: list[float] = []
    table: list[float] = []
    table_hands = 0.0
    for repeat in range(args.repeats):
        rounds, hands, seconds = run_table(args.rounds, args.profile, args.decks, args.seed)
        table.append(rounds / seconds)
        table_hands = hands / rounds
        n, net, seconds = run_like_for_like(args.hands, args.profile, args.seed + repeat)
        ours.append(n / seconds)
        if args.peer_python:
            peer.append(args.hands / run_peer(args.peer_python, args.hands))
    rounds_per_s = statistics.median(table)
    lfl = statistics.median(ours)
    print(f"rules engine, profile {args.profile}, one core, CPU time, median of {args.repeats}:")
    print(
        f"table mode ({SEATS} seats, random decisions, {args.decks} decks): "
        f"{rounds_per_s:,.0f} rounds/s, {rounds_per_s * table_hands:,.0f} hands/s"
    )
    print(
        f"like for like (1 seat, basic strategy, new round per hand, 6 decks): "
        f"{lfl:,.0f} hands/s (runs: {', '.join(f'{x:,.0f}' for x in ours)}; "
        f"player net {net / n / 1000:+.4f} per unit wager in the last run)"
    )
    figures: dict[str, object] = {
        "rounds_per_s": round(rounds_per_s),
        "hands_per_s": round(rounds_per_s * table_hands),
        "lfl_hands_per_s": round(lfl),
        "python": sys.version.split()[0],
        "peer_hands_per_s": None,  # None: cardsharp not measured in this run
        "lfl_vs_peer": None,
    }
    if peer:
        peer_rate = statistics.median(peer)
        print(
            f"cardsharp spanish21 ({args.peer_python}): {peer_rate:,.0f} hands/s "
            f"(runs: {', '.join(f'{x:,.0f}' for x in peer)}), interleaved with ours"
        )
        print(f"ratio ours/cardsharp: {lfl / peer_rate:.2f}x")
        figures["peer_hands_per_s"] = round(peer_rate)
        figures["lfl_vs_peer"] = round(lfl / peer_rate, 2)
    else:
        print("cardsharp: not measured (give --peer-python or $PEER_PYTHON)")
    print("FIGURES " + json.dumps(figures))


if __name__ == "__main__":
    main()
