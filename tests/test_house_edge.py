"""House-edge benchmark: a short Monte Carlo through the rules engine lands near the
published figure, Match the Dealer agrees with the exact value, runs are reproducible."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from controller.rules.profiles import MatchPayTable, get_profile

BENCH = Path(__file__).resolve().parent.parent / "bench" / "house_edge.py"
HANDS = 200_000
# A wide interval: four standard errors (about +-1.0 percentage point at 200,000 hands).
# Basic blackjack strategy instead of the Spanish 21 charts, or a settlement error such
# as paying 21s at even money, moves the edge by more than that.
WIDTH_IN_STANDARD_ERRORS = 4.0 / 1.96


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("house_edge", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["house_edge"] = module
    spec.loader.exec_module(module)
    return module


he = _load()


@pytest.fixture(scope="module")
def pa_six_decks() -> object:
    return he.run_parallel(get_profile("PA"), 6, HANDS, seed=20261130, workers=2)


def test_main_wager_edge_near_the_published_figure(pa_six_decks: object) -> None:
    tally = pa_six_decks
    assert tally.hands == HANDS
    main = he.estimate(tally.main, tally.main_sq, tally.hands, he.WAGER_CENTS)
    published = he.published_edge(get_profile("PA"), 6)
    assert published == pytest.approx(0.65)
    wide = main.half_width * WIDTH_IN_STANDARD_ERRORS
    assert abs(main.edge - published) < wide, (main, published)
    assert wide < 1.2  # the test keeps some power


def test_match_the_dealer_agrees_with_the_exact_edge(pa_six_decks: object) -> None:
    tally = pa_six_decks
    assert tally.match_engine_mismatch == 0  # the round settled Match as table A does
    for table, total, total_sq in (
        (MatchPayTable.A, tally.match_a, tally.match_a_sq),
        (MatchPayTable.B, tally.match_b, tally.match_b_sq),
    ):
        sim = he.estimate(total, total_sq, tally.hands, he.MATCH_CENTS)
        exact = he.match_edge_exact(6, table)
        assert abs(sim.edge - exact) < sim.half_width * WIDTH_IN_STANDARD_ERRORS


def test_exact_match_edges() -> None:
    # Table A on six decks and on eight (the figure the Wizard of Odds quotes: 1.42%).
    assert he.match_edge_exact(6, MatchPayTable.A) == pytest.approx(3.0555, abs=1e-4)
    assert he.match_edge_exact(8, MatchPayTable.A) == pytest.approx(1.4189, abs=1e-4)
    assert he.match_edge_exact(8, MatchPayTable.B) == pytest.approx(2.9855, abs=1e-4)


def test_same_seed_same_result_and_workers_are_independent() -> None:
    profile = get_profile("NY")
    first = he.simulate(profile, 8, 2_000, seed=7)
    again = he.simulate(profile, 8, 2_000, seed=7)
    other = he.simulate(profile, 8, 2_000, seed=8)
    assert first == again
    assert first != other


def test_runs_with_different_seeds_never_share_a_worker_stream() -> None:
    streams = {he.worker_seed(seed, w) for seed in range(1, 50) for w in range(8)}
    assert len(streams) == 49 * 8


def test_continuous_shoe_with_cover_card() -> None:
    profile = get_profile("NJ")
    seen: list[int] = []
    tally = he.simulate(profile, 6, 3_000, seed=3, per_round=False, progress=seen.append)
    assert tally.hands == 3_000
    assert sum(seen) == 3_000
    assert tally.match_engine_mismatch == 0


def test_published_figure_only_for_matching_rules() -> None:
    pa = get_profile("PA")
    assert he.published_edge(pa.with_options(hit_split_aces=True, double_split_aces=True), 8) == (
        pytest.approx(0.38)
    )
    assert he.published_edge(pa.with_options(surrender=False), 6) is None


def test_command_line_prints_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert he.main(["--rules", "ny", "--decks", "8", "--hands", "3000", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "hands                     3,000" in out
    assert "main wager house edge" in out
    assert "match the dealer table B" in out and "<- this shoe's table" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--rules", "XX", "--decks", "6"],
        ["--rules", "PA", "--decks", "7"],
        ["--rules", "PA", "--decks", "6", "--hands", "0"],
        ["--rules", "PA", "--decks", "6", "--option", "no_such=true"],
        ["--rules", "PA", "--decks", "6", "--option", "hit_split_aces"],
    ],
)
def test_bad_arguments_give_a_usage_error(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        he.main(argv)
    assert exit_info.value.code == 2
