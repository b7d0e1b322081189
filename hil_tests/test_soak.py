"""Soak: many rounds through the doubles with faults injected; no card is lost or doubled.

The simulated table of ``dealer-station simulate`` (real daemon, drivers, transports; a
dealer who follows the panel) plays ``--soak-rounds`` rounds (default in ``conftest.py``:
300, a short soak for the test command; ``bench/soak_bench.py`` runs the long one) with device
faults injected (foreign cards, shoe and reader cables pulled, reader misreads) and a noisy
shoe line. Every card the shoe double dealt, across every load, must be in the journal
exactly once, and the chain must verify.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from table_driver import card_texts

from controller.journal.store import JournalReader, verify
from controller.simulation.runner import SimulatedTable, SimulationSettings
from controller.simulation.table_side import RigSide, TableSide

pytestmark = [pytest.mark.soak, pytest.mark.doubles]


class SoakSide(RigSide):
    """The rig, with a noisy shoe line from the first load, keeping every card the shoe
    double dealt across loads (``load_shuffled`` forgets them)."""

    def __init__(self, rig: Any, dealt: list[str]) -> None:
        super().__init__(rig)
        self.dealt = dealt

    def load_shoe(self, decks: int, seed: int, cover_at: int) -> None:
        # A noisy shoe line: the link layer must recover every damaged frame.
        self.rig.shoe.noise.corrupt_rate = 0.002
        self.rig.shoe.noise.split_rate = 0.05
        self.dealt.extend(c.text for c in self.rig.shoe.dealt)
        super().load_shoe(decks, seed, cover_at)


class SoakTable(SimulatedTable):
    """The simulated table, keeping every card the shoe double dealt across loads."""

    def __init__(self, settings: SimulationSettings) -> None:
        super().__init__(settings)
        self.dealt: list[str] = []

    def table_side(self, rig: Any) -> TableSide:
        return SoakSide(rig, self.dealt)

    def run(self) -> Any:
        result = super().run()
        self.dealt.extend(c.text for c in self.rig.shoe.dealt)
        return result


def fault_rate(rounds: int) -> float:
    """Faults per dealer look-up: 3% in a long soak; more in a short one, so that each kind
    (an unplug happens only while betting, a misread only while peeking) still comes up
    several times: about 40 / rounds, e.g. 13% for the test command's 300 rounds.

    The dealer looks up about 6 times a round (she plays the players' turn and her draws in
    one look each), and a fault fits about one look in those: 2,500 rounds at 1% injected
    about 47 faults, under the ``rounds // 50`` the test asks for, about one run in two; at
    3% about 100. (At 20 / rounds a short soak saw no misread and about one unplugged reader
    in 300 rounds.)"""
    return max(0.03, 40 / rounds)


@pytest.mark.parametrize("profile", ["PA"])
def test_soak_every_dealt_card_is_journalled_once(
    request: pytest.FixtureRequest, journal_dir: Path, profile: str
) -> None:
    rounds = int(request.config.getoption("--soak-rounds"))
    journal = journal_dir / "soak.sqlite3"
    settings = SimulationSettings(
        profile=profile, rounds=rounds, seed=2026, faults=fault_rate(rounds), journal=journal
    )
    table = SoakTable(settings)
    result = table.run()
    assert result.rounds >= rounds
    injected = Counter(result.faults_injected)
    assert sum(injected.values()) >= rounds // 50, "the soak must inject faults"
    assert len(injected) >= 3, injected  # most kinds the simulated table injects
    with JournalReader.open(journal) as reader:
        rows = list(reader.rows())
    assert Counter(card_texts(rows)) == Counter(table.dealt)
    assert table.rig.shoe.noise.chunks_damaged > 0
    report = verify(journal)
    assert report.ok, report.message
