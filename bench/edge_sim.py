"""The Monte Carlo behind ``bench/house_edge.py``: shoes, one round through the engine,
worker processes with one seed stream each.

Every round is played by :class:`controller.rules.round.Round` (the code the station settles
with) for one seat following :mod:`controller.simulation.strategy`; the simulation plays the
shoe and the card reader (it answers the peek from the hole card, as the replay command does).
"""

from __future__ import annotations

import importlib.machinery
import multiprocessing as mp
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from queue import Empty

# Appended, not inserted: PYTHONPATH=build/mypyc (the compiled rules engine) must come first.
sys.path.append(str(Path(__file__).resolve().parent.parent))

from controller.rules import round as round_module
from controller.rules.cards import ALL_CARDS, CARDS_PER_DECK, Card
from controller.rules.profiles import MatchPayTable, Profile
from controller.rules.round import Round
from controller.rules.settlement import WagerKind
from controller.rules.steps import SeatWager
from controller.simulation.strategy import play_seat

WAGER_CENTS = 2_500  # $25: the super bonus is then $5,000 = 200 wagers, as for a $5 wager
MATCH_CENTS = 500
SEAT = 1
COVER_DECKS_BEHIND = 1.5  # decks left behind the cover card in --shuffle shoe
PROGRESS_EVERY = 5_000
MAX_WORKERS = 1_000
_WAGERS = (SeatWager(SEAT, WAGER_CENTS, MATCH_CENTS),)
_MAIN, _MATCH = WagerKind.MAIN, WagerKind.MATCH
_TABLE_A = MatchPayTable.A


def engine_build() -> str:
    """Which rules engine this process loaded: ``compiled`` (the mypyc build, see
    ``make compiled``) or ``pure`` (the ``.py`` modules)."""
    path = round_module.__file__ or ""
    return "compiled" if path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) else "pure"


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
        self.size = len(self.cards)
        self.rng = rng
        self.random = rng.random  # bound once: draw() runs ~6 times a round
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
            j = i + int(self.random() * (self.size - i))
            cards[i], cards[j] = cards[j], cards[i]
        elif i == self.cover_at:
            self.cover_seen = True
        self.next = i + 1
        return cards[i]


def play_round(
    profile: Profile, decks: int, shoe: Shoe, pays: tuple[tuple[int, int], ...], tally: Tally
) -> None:
    """Play one round for one seat and add its results to ``tally``.

    ``pays`` are :func:`match_pays` of Match the Dealer pay tables A and B, in that order.
    """
    shoe.new_round()
    round_ = Round(profile, decks, _WAGERS)
    draw = shoe.draw
    # The initial deal in one call, in shoe order: the seat, the up card, the seat, the
    # hole card where the profile deals one (NJ deals three cards here).
    initial = [draw() for _ in range(round_.initial_cards_due)]
    first, up, second = initial[0], initial[1], initial[2]
    round_.deal_initial(initial)
    play_seat(round_, SEAT, draw, profile)
    if shoe.cover_seen:
        # The cover card came out during this round (PA 635a.7(d)): the shoe reshuffles
        # before the next one. Told once the round is played: nothing in it depends on it.
        round_.cover_card()
    main = extra = match = 0
    for payment in round_.payments:
        if payment.wager is _MAIN:
            main += payment.net - payment.super_bonus
            extra += payment.super_bonus
        elif payment.wager is _MATCH:
            match += payment.net
    tally.hands += 1
    tally.main += main
    tally.main_sq += main * main
    tally.super_bonus += extra
    tally.with_super_sq += (main + extra) * (main + extra)
    # Both pay tables from the same two cards, worked out here from NY 5324.12(d)(5)
    # (per matching card: same suit or not), and the engine's own Match payment checked
    # against the shoe's table. Two more engine settlements per round cost 1.5 us.
    same = off = 0
    for card in (first, second):
        if card.rank is up.rank:
            if card.suit is up.suit:
                same += 1
            else:
                off += 1
    if same or off:
        (a_off, a_same), (b_off, b_same) = pays
        a = same * a_same + off * a_off
        b = same * b_same + off * b_off
    else:
        a = b = -MATCH_CENTS
    tally.match_a += a
    tally.match_a_sq += a * a
    tally.match_b += b
    tally.match_b_sq += b * b
    if match != (a if round_.match_table is _TABLE_A else b):
        tally.match_engine_mismatch += 1


def match_pays(tables: Sequence[MatchPayTable]) -> tuple[tuple[int, int], ...]:
    """Winnings per matching card on ``MATCH_CENTS`` (off suit, same suit) of each table."""
    return tuple(
        (off.pay(MATCH_CENTS), same.pay(MATCH_CENTS)) for off, same in (t.odds for t in tables)
    )


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
    pays = match_pays((MatchPayTable.A, MatchPayTable.B))
    tally = Tally()
    done = 0
    while done < hands:
        batch = min(PROGRESS_EVERY, hands - done)
        for _ in range(batch):
            play_round(profile, decks, shoe, pays, tally)
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
