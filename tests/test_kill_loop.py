"""A short kill loop (``bench/kill_loop.py`` is the long one): the real daemon
(``dealer-station run``) on doubles served by their own process, so the shoe keeps its
hole card across every restart, killed with SIGKILL at fixed points: inside its start
(after its 8th log line), at the dealer's 12th and 30th looks (the station idle, every
event handled) and at its 150th and 400th log lines (inside an event's handling). The
supervisor resumes a round found open at a restart. No sleep: each kill point is an event
of the station's own output.

Every start succeeds, every seal and checkpoint checks with the verification key, and no
round is settled on a hole card other than the one the shoe withheld for it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from controller.journal.reader import JournalReader
from controller.journal.store import Journal

BENCH = Path(__file__).resolve().parent.parent / "bench" / "kill_loop.py"
PLAN = [("line", 8), ("look", 12), ("line", 150), ("look", 30), ("line", 400)]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_kill_loop", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_kill_loop"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_station_killed_at_fixed_points_always_starts_again_on_the_right_card(
    storage_format: int,
) -> None:
    """The journal is made in ``storage_format`` before the first start (docs/journal.md,
    "Storage format 2": format 2 is a new station's, format 1 every station's from before):
    the daemon keeps the file's format."""
    bench = _bench()
    with bench.folder(None) as path:
        loop = bench.KillLoop(path, seed=5, seats=2)
        Journal.open(path / "journal.sqlite3", storage_format=storage_format).close()
        try:
            loop.run(PLAN, rounds_after=2)
            figures = loop.check()
            with JournalReader.open(path / "journal.sqlite3") as reader:
                version = reader.storage.version
        finally:
            loop.close()
    assert figures["start_failures"] == 0, figures.get("first_failure")
    assert figures["stuck"] == 0, figures.get("first_stuck")
    assert figures["kills"] == len(PLAN)
    assert figures["starts"] == len(PLAN) + 1
    assert figures["kills_in_start"] >= 1  # the 8th line comes before the station is ready
    assert figures["verify_key"] == "intact"
    assert figures["wrong_card_rounds"] == 0
    assert figures["rounds_completed"] >= 2
    # A restart found a round open and the supervisor resumed or voided it.
    assert figures["faults"].get("recovered_mid_round", 0) >= 1
    assert version == storage_format
