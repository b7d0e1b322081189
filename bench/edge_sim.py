"""The Monte Carlo behind ``bench/house_edge.py``: the tally of each round, worker
processes with one seed stream each.

Every round is dealt and played by :mod:`controller.simulation.montecarlo` (its shoe, one
seat following :mod:`controller.simulation.strategy`, through
:class:`controller.rules.round.Round`, the code the station settles with); this module adds
up the results and runs the workers.
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
from controller.rules.profiles import MatchPayTable, Profile
from controller.rules.settlement import WagerKind
from controller.rules.steps import SeatWager
from controller.simulation.montecarlo import Shoe, play_hand

WAGER_CENTS = 2_500  # $25: the super bonus is then $5,000 = 200 wagers, as for a $5 wager
MATCH_CENTS = 500
SEAT = 1
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


def play_round(
    profile: Profile, decks: int, shoe: Shoe, pays: tuple[tuple[int, int], ...], tally: Tally
) -> None:
    """Play one round for one seat and add its results to ``tally``.

    ``pays`` are :func:`match_pays` of Match the Dealer pay tables A and B, in that order.
    """
    round_, initial = play_hand(profile, decks, _WAGERS, SEAT, shoe)
    first, up, second = initial[0], initial[1], initial[2]
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
