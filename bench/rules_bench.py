"""How fast the rules engine plays, in two modes, pure Python and compiled, beside cardsharp.

- ``table``: seven seats, random legal decisions, cards from a shuffled Spanish shoe
  (reshuffled below 80 cards), the card reader answered from the hole card, insurance taken at
  random on an ace. A round counts once it is settled (``Round.over``).
- ``like-for-like``: what cardsharp's ``spanish21`` variant plays: one seat, basic strategy
  (:mod:`controller.simulation.strategy`), a new :class:`~controller.rules.round.Round` per
  hand, full settlement with the bonuses, a six-deck shoe reshuffled at 75% penetration
  (cardsharp's default), no insurance. The shoe and the round are
  :mod:`controller.simulation.montecarlo`'s, as in the house-edge run.

Both figures include this driver (drawing cards, choosing decisions), as the table procedure
or a simulation pays for it too; so does the peer's. Time is CPU time (``time.process_time``
around the loop, in a child process per engine): the machine is shared, and CPU-seconds are
the fair unit.

Engines: ``pure`` runs the ``.py`` modules; ``compiled`` the mypyc build in ``build/mypyc``
(``make compiled``; the child runs with ``PYTHONPATH=build/mypyc``), measured when that build
exists; there the like-for-like shoe and seat loop (``montecarlo``) and the strategy are
compiled with the engine, and only this file's loop over hands stays Python. With
``--compiled-python PATH`` the compiled child runs that Python instead (an environment where
``DEALER_STATION_MYPYC=1 pip install`` put the build, as on a Pi: vm_tests/arm64.py), and the
pure child runs this one; each child checks which build it loaded.

The peer: ``--peer-python PATH`` names the Python of a separate environment, outside this
repository, where cardsharp is installed (docs/performance.md gives the commands). Its own
command line plays the hands (``--simulate --single_cpu --variant spanish21``), its own
strategy and shoe included, as our driver is in ours; its CPU time is taken from the
child's rusage, less the CPU time of a one-game run (interpreter start and imports). The
engines and the peer run interleaved, ``--repeats`` times; the median counts.

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

# Appended, not inserted: PYTHONPATH=build/mypyc (the compiled rules engine) must come first.
sys.path.append(str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # edge_sim beside this script

from edge_sim import engine_build

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
from controller.simulation.montecarlo import Shoe, play_hand

SEATS = 7
RESHUFFLE_BELOW = 80
COMPILED_BUILD = Path(__file__).resolve().parent.parent / "build" / "mypyc"
CHILD_PREFIX = "CHILD "
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
    # Six decks dealt down to the cover card 1.5 decks from the end: 75% penetration, as
    # cardsharp deals by default.
    shoe = Shoe(6, random.Random(seed), per_round=False)
    wagers = (SeatWager(1, 1000),)
    net = 0
    start = time.process_time()
    for _ in range(hands):
        round_, _initial = play_hand(profile, 6, wagers, 1, shoe)
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


def run_engine(
    engine: str, args: argparse.Namespace, seed: int, repeat: int
) -> dict[str, float | str]:
    """Both modes once in a child process on ``engine`` (``pure`` or ``compiled``)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    python = sys.executable
    if engine == "compiled" and args.compiled_python:
        python = args.compiled_python  # its environment holds the compiled build
    elif engine == "compiled":
        env["PYTHONPATH"] = str(COMPILED_BUILD)
    command = [python, __file__, "--child", "--rounds", str(args.rounds)]
    command += ["--hands", str(args.hands), "--profile", args.profile, "--decks", str(args.decks)]
    command += ["--seed", str(seed), "--repeats", str(repeat)]
    out = subprocess.run(command, capture_output=True, text=True, check=True, env=env).stdout
    figures: dict[str, float | str] = json.loads(out.rsplit(CHILD_PREFIX, 1)[1])
    if figures["engine"] != engine:
        raise RuntimeError(f"asked for the {engine} engine, the child loaded {figures['engine']}")
    return figures


def child(args: argparse.Namespace) -> None:
    """One measurement in this process (``--child``): warm up, then each mode once."""
    run_table(500, args.profile, args.decks, args.seed)
    run_like_for_like(2_000, args.profile, args.seed)
    rounds, hands, seconds = run_table(args.rounds, args.profile, args.decks, args.seed)
    # --repeats carries the repeat's index here: each repeat deals other like-for-like cards.
    n, net, lfl_seconds = run_like_for_like(args.hands, args.profile, args.seed + args.repeats)
    figures = {
        "engine": engine_build(),
        "rounds_per_s": rounds / seconds,
        "hands_per_round": hands / rounds,
        "lfl_hands_per_s": n / lfl_seconds,
        "lfl_net_per_wager": net / n / 1000,
    }
    print(CHILD_PREFIX + json.dumps(figures))


def _runs(values: list[float]) -> str:
    return ", ".join(f"{x:,.0f}" for x in values)


def main() -> None:
    """Print both modes' figures per engine, and the peer's where it is installed."""
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
    parser.add_argument(
        "--engine",
        choices=("both", "pure", "compiled"),
        default="both",
        help="which rules engine to measure (both: compiled only where build/mypyc exists)",
    )
    parser.add_argument(
        "--compiled-python",
        help="python of an environment with the compiled engine installed (default: "
        "this python with PYTHONPATH=build/mypyc)",
    )
    parser.add_argument("--profile-hot-spots", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    if args.profile_hot_spots:
        for fn, n in ((run_like_for_like, args.hands), (run_table, args.rounds)):
            profiler = cProfile.Profile()
            if fn is run_table:
                profiler.runcall(run_table, n, args.profile, args.decks, args.seed)
            else:
                profiler.runcall(run_like_for_like, n, args.profile, args.seed)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return
    engines = ["pure", "compiled"] if args.engine == "both" else [args.engine]
    compiled_build = args.compiled_python or (COMPILED_BUILD / ".built").exists()
    if args.engine == "both" and not compiled_build:
        engines = ["pure"]
        print(f"compiled engine: not measured ({COMPILED_BUILD} missing: make compiled)")
    runs: dict[str, list[dict[str, float | str]]] = {e: [] for e in engines}
    peer: list[float] = []
    for repeat in range(args.repeats):
        for engine in engines:
            runs[engine].append(run_engine(engine, args, args.seed, repeat))
        if args.peer_python:
            peer.append(args.hands / run_peer(args.peer_python, args.hands))
    peer_rate = statistics.median(peer) if peer else None
    print(f"rules engine, profile {args.profile}, one core, CPU time, median of {args.repeats}:")
    figures: dict[str, object] = {"python": sys.version.split()[0]}
    for key in ("compiled_rounds_per_s", "compiled_lfl_hands_per_s", "compiled_lfl_vs_peer"):
        figures[key] = None  # None: the compiled engine was not measured in this run
    figures["compiled_vs_pure"] = None
    lfl_rates: dict[str, float] = {}
    for engine in engines:
        table = [float(r["rounds_per_s"]) for r in runs[engine]]
        lfl = [float(r["lfl_hands_per_s"]) for r in runs[engine]]
        rounds_per_s, lfl_rate = statistics.median(table), statistics.median(lfl)
        lfl_rates[engine] = lfl_rate
        hands_per_round = float(runs[engine][-1]["hands_per_round"])
        print(
            f"[{engine}] table mode ({SEATS} seats, random decisions, {args.decks} decks): "
            f"{rounds_per_s:,.0f} rounds/s, {rounds_per_s * hands_per_round:,.0f} hands/s"
        )
        ratio = f"; {lfl_rate / peer_rate:.2f}x cardsharp" if peer_rate else ""
        print(
            f"[{engine}] like for like (1 seat, basic strategy, new round per hand, 6 decks): "
            f"{lfl_rate:,.0f} hands/s (runs: {_runs(lfl)}; player net "
            f"{float(runs[engine][-1]['lfl_net_per_wager']):+.4f} per unit wager){ratio}"
        )
        prefix = "" if engine == "pure" else "compiled_"
        figures[f"{prefix}rounds_per_s"] = round(rounds_per_s)
        figures[f"{prefix}hands_per_s"] = round(rounds_per_s * hands_per_round)
        figures[f"{prefix}lfl_hands_per_s"] = round(lfl_rate)
        figures[f"{prefix}lfl_vs_peer"] = round(lfl_rate / peer_rate, 2) if peer_rate else None
    if "compiled" in runs and "pure" in runs:
        gain = lfl_rates["compiled"] / lfl_rates["pure"]
        print(f"compiled / pure, like for like: {gain:.2f}x")
        figures["compiled_vs_pure"] = round(gain, 2)
    if peer_rate:
        print(
            f"cardsharp spanish21 ({args.peer_python}): {peer_rate:,.0f} hands/s "
            f"(runs: {_runs(peer)}), interleaved with ours"
        )
        figures["peer_hands_per_s"] = round(peer_rate)
    else:
        print("cardsharp: not measured (give --peer-python or $PEER_PYTHON)")
        figures["peer_hands_per_s"] = None
    print("FIGURES " + json.dumps(figures))


if __name__ == "__main__":
    main()
