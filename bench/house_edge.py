"""House-edge validation: Monte Carlo of Spanish 21 through the station's own rules engine.

Every round is played by :class:`controller.rules.round.Round` (the code the station settles
with) for one seat following :mod:`controller.simulation.strategy`; the simulation plays the
shoe and the card reader (it answers the peek from the hole card, as the replay command does).

Printed: the hands played, the house edge of the main wager (expected loss per initial
wager, in %) with its 95% confidence interval, without and with the 7-7-7 super bonus, and
the Match the Dealer house edge for pay tables A and B, simulated from the same initial
cards and computed exactly from the shoe composition.

Shuffle: by default every round is dealt from a freshly shuffled full shoe (``--shuffle
round``). The published house edges are full-shoe ("off the top") expectations, so this
estimates exactly the published quantity. ``--shuffle shoe`` deals continuous shoes with a
cover card 1.5 decks from the end, as at the table, which adds the small cut-card effect.

Workers: ``--workers`` processes (default: one per core), worker ``w`` dealing from its own
seed ``worker_seed(seed, w)``, so a run with the same seed and workers repeats exactly. The
compiled rules engine (``make compiled``) is used when ``PYTHONPATH=build/mypyc`` is set;
the report names the engine it ran.

Usage: ``python bench/house_edge.py --rules PA --decks 6 --hands 10000000``
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# Appended, not inserted: PYTHONPATH=build/mypyc (the compiled rules engine) must come first.
sys.path.append(str(Path(__file__).resolve().parent.parent))

from edge_sim import (
    MATCH_CENTS,
    MAX_WORKERS,
    WAGER_CENTS,
    Tally,
    engine_build,
    run_parallel,
    simulate,
    worker_seed,
)

from controller.rules.cards import CARDS_PER_DECK
from controller.rules.errors import ProfileError
from controller.rules.profiles import MatchPayTable, Profile, get_profile

__all__ = ["MATCH_CENTS", "WAGER_CENTS", "run_parallel", "simulate", "worker_seed"]

Z95 = 1.959963984540054

#: Published house edges (%), dealer stands on soft 17, player may hit and double split
#: aces, no redoubling, no super bonus. Source and reading: docs/house-edge.md.
PUBLISHED_S17 = {6: 0.37, 8: 0.38}
PUBLISHED_H17 = {6: 0.78, 8: 0.80}
#: Published rule change: no draws (hits or doubles) on split aces, in percentage points.
PUBLISHED_NO_DRAW_SPLIT_ACES = 0.28


@dataclass(frozen=True, slots=True)
class Estimate:
    """A house edge in % with the half-width of its 95% confidence interval."""

    edge: float
    half_width: float

    @property
    def low(self) -> float:
        """Lower end of the interval."""
        return self.edge - self.half_width

    @property
    def high(self) -> float:
        """Upper end of the interval."""
        return self.edge + self.half_width

    def __contains__(self, value: float) -> bool:
        return self.low <= value <= self.high

    def __str__(self) -> str:
        return f"{self.edge:+.3f}% ± {self.half_width:.3f}  [{self.low:+.3f}, {self.high:+.3f}]"


def estimate(total: int, total_sq: int, n: int, stake: int) -> Estimate:
    """House edge (loss per ``stake`` in %) from sums of net results in cents."""
    mean = total / n
    variance = max(total_sq / n - mean * mean, 0.0) * n / max(n - 1, 1)
    return Estimate(-100 * mean / stake, 100 * Z95 * math.sqrt(variance / n) / stake)


def match_edge_exact(decks: int, table: MatchPayTable) -> float:
    """Match the Dealer house edge in % from the shoe composition (first two cards)."""
    off_suit, same_suit = table.odds
    n = CARDS_PER_DECK * decks
    same = Fraction(decks - 1, n - 1)  # same rank and suit as the up card
    other = Fraction(3 * decks, n - 1)  # same rank, another suit
    win_per_card = same * Fraction(same_suit.numerator, same_suit.denominator) + other * Fraction(
        off_suit.numerator, off_suit.denominator
    )
    rank_left = 4 * decks - 1
    no_match = Fraction(n - 1 - rank_left, n - 1) * Fraction(n - 2 - rank_left, n - 2)
    return float(-100 * (2 * win_per_card - no_match))


def published_edge(profile: Profile, decks: int) -> float | None:
    """The published figure for the profile's rules, or None when none applies."""
    if (
        profile.double_after_split
        and profile.rescue
        and profile.surrender
        and profile.resplit_aces
        and profile.hit_split_aces == profile.double_split_aces
    ):
        base = (PUBLISHED_H17 if profile.hit_soft_17 else PUBLISHED_S17)[decks]
        return base if profile.hit_split_aces else base + PUBLISHED_NO_DRAW_SPLIT_ACES
    return None


def _parse_option(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or value.lower() not in ("true", "false"):
        raise argparse.ArgumentTypeError(f"expected NAME=true|false, not {text!r}")
    return key.strip(), value.lower() == "true"


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="house_edge", description="Spanish 21 house edge by Monte Carlo through the engine"
    )
    parser.add_argument("--rules", required=True, help="jurisdiction profile: PA, NJ or NY")
    parser.add_argument("--decks", type=int, choices=(6, 8), required=True)
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--shuffle", choices=("round", "shoe"), default="round")
    parser.add_argument(
        "--option",
        action="append",
        type=_parse_option,
        default=[],
        metavar="NAME=true|false",
        help="a boolean profile option, e.g. hit_split_aces=true (repeatable)",
    )
    args = parser.parse_args(argv)
    if args.hands <= 0 or not 0 < args.workers <= MAX_WORKERS:
        parser.error(f"--hands must be positive and --workers from 1 to {MAX_WORKERS}")
    try:
        profile = get_profile(args.rules)
        for key, _value in args.option:
            if not isinstance(getattr(profile, key, None), bool):
                raise ProfileError(f"{key} is not a yes/no profile option")
        if args.option:
            profile = profile.with_options(**dict(args.option))
        profile.check_decks(args.decks)
    except (ProfileError, TypeError) as err:
        parser.error(str(err))
    args.profile = profile
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the simulation and print the figures (exit status 130 when interrupted)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("house_edge: interrupted", file=sys.stderr)
        return 130


def _main(argv: Sequence[str] | None) -> int:
    args = _arguments(argv)
    profile: Profile = args.profile
    started = time.perf_counter()
    cpu_before = _children_cpu()
    if sys.stderr.isatty():
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            transient=True,
        ) as bar:
            task = bar.add_task("hands", total=args.hands)
            tally = run_parallel(
                profile,
                args.decks,
                args.hands,
                args.seed,
                args.workers,
                per_round=args.shuffle == "round",
                on_progress=lambda n: bar.advance(task, n),
            )
    else:
        tally = run_parallel(
            profile,
            args.decks,
            args.hands,
            args.seed,
            args.workers,
            per_round=args.shuffle == "round",
        )
    elapsed = time.perf_counter() - started
    report(profile, args, tally, elapsed, _children_cpu() - cpu_before)
    return 0


def _children_cpu() -> float:
    """CPU seconds of the finished worker processes (user + system)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def report(
    profile: Profile, args: argparse.Namespace, tally: Tally, elapsed: float, cpu: float = 0.0
) -> None:
    """Print the figures of a finished run (``cpu``: the workers' CPU seconds)."""
    n = tally.hands
    main = estimate(tally.main, tally.main_sq, n, WAGER_CENTS)
    with_super = estimate(tally.main + tally.super_bonus, tally.with_super_sq, n, WAGER_CENTS)
    options = " ".join(f"{k}={v}" for k, v in args.option) or "none"
    print(f"rules {profile.code} ({profile.citation}), {args.decks} decks, options: {options}")
    print(
        f"dealer {'hits' if profile.hit_soft_17 else 'stands on'} soft 17, "
        f"hit/double split aces {profile.hit_split_aces}/{profile.double_split_aces}, "
        f"shuffle per {args.shuffle}, seed {args.seed}, workers {args.workers}, "
        f"rules engine {engine_build()}"
    )
    print(f"hands                     {n:,}")
    print(f"time                      {elapsed:.1f} s ({n / elapsed:,.0f} hands/s)")
    if cpu > 0:
        # A shared machine stretches the wall time; CPU-seconds are the fair unit.
        print(
            f"CPU time                  {cpu:.1f} s ({n / cpu:,.0f} hands per CPU-second; "
            f"{cpu / args.workers:.1f} s on {args.workers} idle cores)"
        )
    print(f"main wager house edge     {main}   (95% CI, super bonus excluded)")
    print(f"  with the super bonus    {with_super}   ($25 wager: $5,000 on suited 7-7-7 vs 7)")
    published = published_edge(profile, args.decks)
    figures: dict[str, object] = {
        "rules": profile.code,
        "decks": args.decks,
        "engine": engine_build(),
        "hands": n,
        "seconds": round(elapsed, 2),
        "hands_per_s": round(n / elapsed),
        "cpu_seconds": round(cpu, 2),
        "hands_per_cpu_s": round(n / cpu) if cpu > 0 else None,
        "main_edge_pct": round(main.edge, 4),
        "main_ci95_half_width_pct": round(main.half_width, 4),
        "with_super_bonus_edge_pct": round(with_super.edge, 4),
        "published_pct": published,
        "published_inside_ci95": None if published is None else published in main,
    }
    if published is not None:
        verdict = "inside" if published in main else "OUTSIDE"
        print(f"  published figure        {published:+.3f}%  ({verdict} the 95% interval)")
    for table, total, total_sq in (
        (MatchPayTable.A, tally.match_a, tally.match_a_sq),
        (MatchPayTable.B, tally.match_b, tally.match_b_sq),
    ):
        sim = estimate(total, total_sq, n, MATCH_CENTS)
        exact = match_edge_exact(args.decks, table)
        agree = "agree" if exact in sim else "DISAGREE"
        key = f"match_{table.value.lower()}"
        figures[f"{key}_edge_pct"] = round(sim.edge, 4)
        figures[f"{key}_ci95_half_width_pct"] = round(sim.half_width, 4)
        figures[f"{key}_exact_pct"] = round(exact, 4)
        print(
            f"match the dealer table {table.value}  {sim}   exact {exact:+.3f}% ({agree})"
            + ("  <- this shoe's table" if profile.match_table(args.decks) is table else "")
        )
    if tally.match_engine_mismatch:
        print(f"ENGINE MATCH SETTLEMENT DIFFERS in {tally.match_engine_mismatch:,} rounds")
    figures["engine_match_mismatches"] = tally.match_engine_mismatch
    # One machine-readable line for bench/run_all.py.
    print("FIGURES " + json.dumps(figures))


if __name__ == "__main__":
    sys.exit(main())
