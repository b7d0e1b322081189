"""House-edge validation: Monte Carlo of Spanish 21 through the station's own rules engine.

Every round is played by :class:`controller.rules.round.Round` (the code the station settles
with) for one seat following :mod:`controller.strategy`; the simulation plays the shoe and
the card reader (it answers the peek from the hole card, as the replay command does).

Printed: the hands played, the house edge of the main wager (expected loss per initial
wager, in %) with its 95% confidence interval, without and with the 7-7-7 super bonus, and
the Match the Dealer house edge for pay tables A and B, simulated from the same initial
cards and computed exactly from the shoe composition.

Shuffle: by default every round is dealt from a freshly shuffled full shoe (``--shuffle
round``). The published house edges are full-shoe ("off the top") expectations, so this
estimates exactly the published quantity. ``--shuffle shoe`` deals continuous shoes with a
cover card 1.5 decks from the end, as at the table, which adds the small cut-card effect.

Usage: ``python bench/house_edge.py --rules PA --decks 6 --hands 10000000``
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from pathlib import Path
from queue import Empty

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.rules.cards import ALL_CARDS, CARDS_PER_DECK, Card
from controller.rules.errors import ProfileError
from controller.rules.hands import hole_card_gives_blackjack
from controller.rules.profiles import MatchPayTable, Profile, get_profile
from controller.rules.round import Round
from controller.rules.settlement import WagerKind, match_the_dealer
from controller.rules.steps import (
    NeedCard,
    NeedDecision,
    NeedInsurance,
    NeedPeek,
    NeedReveal,
    SeatWager,
)
from controller.strategy import choose

WAGER_CENTS = 2_500  # $25: the super bonus is then $5,000 = 200 wagers, as for a $5 wager
MATCH_CENTS = 500
SEAT = 1
COVER_DECKS_BEHIND = 1.5  # decks left behind the cover card in --shuffle shoe
PROGRESS_EVERY = 5_000
MAX_WORKERS = 1_000
Z95 = 1.959963984540054

#: Published house edges (%), dealer stands on soft 17, player may hit and double split
#: aces, no redoubling, no super bonus. Source and reading: docs/house-edge.md.
PUBLISHED_S17 = {6: 0.37, 8: 0.38}
PUBLISHED_H17 = {6: 0.78, 8: 0.80}
#: Published rule change: no draws (hits or doubles) on split aces, in percentage points.
PUBLISHED_NO_DRAW_SPLIT_ACES = 0.28


@dataclass(slots=True)
class Tally:
    """Running sums of one worker's rounds, in cents (exact integers)."""

    hands: int = 0
    main: int = 0  # main wager net, super bonus excluded
    main_sq: int = 0
    super_bonus: int = 0
    with_super_sq: int = 0
    match_a: int = 0
    match_a_sq: int = 0
    match_b: int = 0
    match_b_sq: int = 0
    match_engine_mismatch: int = 0  # rounds where the round's own Match payment differs

    def add(self, other: Tally) -> None:
        """Fold another tally into this one."""
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


class Shoe:
    """The cards, dealt either from a fresh shuffle each round or from continuous shoes."""

    def __init__(self, decks: int, rng: random.Random, *, per_round: bool) -> None:
        self.cards: list[Card] = [c for c in ALL_CARDS for _ in range(decks)]
        self.rng = rng
        self.per_round = per_round
        self.cover_at = len(self.cards) - int(COVER_DECKS_BEHIND * CARDS_PER_DECK)
        self.next = 0
        self.cover_seen = False
        if not per_round:
            rng.shuffle(self.cards)

    def new_round(self) -> None:
        """Start a round: a fresh shuffle (per round), or a reshuffle after the cover card."""
        if self.per_round:
            self.next = 0
        elif self.cover_seen:
            self.rng.shuffle(self.cards)
            self.next = 0
            self.cover_seen = False

    def draw(self) -> Card:
        """The next card. Per round, a partial Fisher-Yates shuffle draws it uniformly."""
        cards, i = self.cards, self.next
        if self.per_round:
            j = i + int(self.rng.random() * (len(cards) - i))
            cards[i], cards[j] = cards[j], cards[i]
        elif i == self.cover_at:
            self.cover_seen = True
        self.next = i + 1
        return cards[i]


def play_round(
    profile: Profile, decks: int, shoe: Shoe, tables: Sequence[MatchPayTable], tally: Tally
) -> None:
    """Play one round for one seat and add its results to ``tally``."""
    shoe.new_round()
    round_ = Round(profile, decks, (SeatWager(SEAT, WAGER_CENTS, MATCH_CENTS),))
    initial: list[Card] = []
    decide, deal, hands = round_.decide, round_.deal, round_.hands[SEAT]
    while True:
        step = round_.step
        kind = type(step)
        if kind is NeedCard:
            card = shoe.draw()
            if len(initial) < 3:
                initial.append(card)
            if shoe.cover_seen and not round_.reshuffle_due:
                round_.cover_card()
            deal(card)
        elif kind is NeedDecision:
            assert isinstance(step, NeedDecision)
            decide(SEAT, choose(hands[step.hand].cards, initial[1], step.legal, profile))
        elif kind is NeedPeek:
            assert round_.hole is not None
            round_.peek(hole_card_gives_blackjack(initial[1], round_.hole.reveal()))
        elif kind is NeedReveal:
            round_.reveal_hole()
        elif kind is NeedInsurance:
            round_.take_insurance({})  # basic strategy never insures
        else:
            break
    main = extra = match = 0
    for payment in round_.payments:
        if payment.wager is WagerKind.MAIN:
            main += payment.net - payment.super_bonus
            extra += payment.super_bonus
        elif payment.wager is WagerKind.MATCH:
            match += payment.net
    tally.hands += 1
    tally.main += main
    tally.main_sq += main * main
    tally.super_bonus += extra
    tally.with_super_sq += (main + extra) * (main + extra)
    first, up, second = initial
    results = [match_the_dealer(SEAT, MATCH_CENTS, (first, second), up, t).net for t in tables]
    a, b = results
    tally.match_a += a
    tally.match_a_sq += a * a
    tally.match_b += b
    tally.match_b_sq += b * b
    if match != results[tables.index(round_.match_table)]:
        tally.match_engine_mismatch += 1


def simulate(
    profile: Profile,
    decks: int,
    hands: int,
    seed: int,
    *,
    per_round: bool = True,
    progress: Callable[[int], None] | None = None,
) -> Tally:
    """Play ``hands`` rounds with ``random.Random(seed)``; report progress every few rounds."""
    rng = random.Random(seed)
    shoe = Shoe(decks, rng, per_round=per_round)
    tables = (MatchPayTable.A, MatchPayTable.B)
    tally = Tally()
    done = 0
    while done < hands:
        batch = min(PROGRESS_EVERY, hands - done)
        for _ in range(batch):
            play_round(profile, decks, shoe, tables, tally)
        done += batch
        if progress is not None:
            progress(batch)
    return tally


def worker_seed(seed: int, worker: int) -> int:
    """The seed of one worker's stream: ``seed + worker`` on a grid that keeps runs with
    different ``--seed`` apart (seeds 1 and 2 with two workers would otherwise share one
    stream, and two runs dealing from one stream are not independent)."""
    return seed * MAX_WORKERS + worker


@dataclass(frozen=True, slots=True)
class Job:
    """One worker's share of a run."""

    profile: Profile
    decks: int
    hands: int
    seed: int
    per_round: bool


def _worker(job: Job, queue: mp.Queue[tuple[str, object]]) -> None:
    try:
        tally = simulate(
            job.profile,
            job.decks,
            job.hands,
            job.seed,
            per_round=job.per_round,
            progress=lambda n: queue.put(("progress", n)),
        )
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group: the parent reports
        sys.exit(130)
    queue.put(("done", tally))


def run_parallel(
    profile: Profile,
    decks: int,
    hands: int,
    seed: int,
    workers: int,
    *,
    per_round: bool = True,
    on_progress: Callable[[int], None] | None = None,
) -> Tally:
    """Split ``hands`` over ``workers`` processes, worker ``w`` seeded ``worker_seed(seed, w)``."""
    workers = max(1, min(workers, hands, MAX_WORKERS))
    ctx = mp.get_context("fork")
    queue: mp.Queue[tuple[str, object]] = ctx.Queue()
    shares = [hands // workers + (1 if w < hands % workers else 0) for w in range(workers)]
    procs = [
        ctx.Process(
            target=_worker,
            args=(Job(profile, decks, share, worker_seed(seed, w), per_round), queue),
            daemon=True,
        )
        for w, share in enumerate(shares)
    ]
    for p in procs:
        p.start()
    total = Tally()
    finished = 0
    try:
        while finished < workers:
            try:
                kind, payload = queue.get(timeout=1.0)
            except Empty:
                dead = [p for p in procs if p.exitcode not in (None, 0)]
                if dead:
                    code = dead[0].exitcode
                    raise RuntimeError(f"a worker failed with exit code {code}") from None
                continue
            if kind == "progress":
                if on_progress is not None:
                    assert isinstance(payload, int)
                    on_progress(payload)
            else:
                assert isinstance(payload, Tally)
                total.add(payload)
                finished += 1
    finally:
        for p in procs:
            p.join(timeout=5.0)
            if p.is_alive():
                p.terminate()
    return total


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
    report(profile, args, tally, elapsed)
    return 0


def report(profile: Profile, args: argparse.Namespace, tally: Tally, elapsed: float) -> None:
    """Print the figures of a finished run."""
    n = tally.hands
    main = estimate(tally.main, tally.main_sq, n, WAGER_CENTS)
    with_super = estimate(tally.main + tally.super_bonus, tally.with_super_sq, n, WAGER_CENTS)
    options = " ".join(f"{k}={v}" for k, v in args.option) or "none"
    print(f"rules {profile.code} ({profile.citation}), {args.decks} decks, options: {options}")
    print(
        f"dealer {'hits' if profile.hit_soft_17 else 'stands on'} soft 17, "
        f"hit/double split aces {profile.hit_split_aces}/{profile.double_split_aces}, "
        f"shuffle per {args.shuffle}, seed {args.seed}, workers {args.workers}"
    )
    print(f"hands                     {n:,}")
    print(f"time                      {elapsed:.1f} s ({n / elapsed:,.0f} hands/s)")
    print(f"main wager house edge     {main}   (95% CI, super bonus excluded)")
    print(f"  with the super bonus    {with_super}   ($25 wager: $5,000 on suited 7-7-7 vs 7)")
    published = published_edge(profile, args.decks)
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
        print(
            f"match the dealer table {table.value}  {sim}   exact {exact:+.3f}% ({agree})"
            + ("  <- this shoe's table" if profile.match_table(args.decks) is table else "")
        )
    if tally.match_engine_mismatch:
        print(f"ENGINE MATCH SETTLEMENT DIFFERS in {tally.match_engine_mismatch:,} rounds")


if __name__ == "__main__":
    sys.exit(main())
