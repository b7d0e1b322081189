"""Rounds with the shoe and the panel board on emulated Cortex-M boards (the long run).

``dealer-station simulate``'s table plays ``--rounds`` rounds twice with the same seed: once
with the shoe and the panel board as the C firmware's Cortex-M images on QEMU's mps2-an385
boards (``--firmware qemu``), once with the Python doubles. Both journals must verify and
hold the same cards and the same settlements in the same order: the two implementations
of the device side give the station the same table. Prints the rounds per second of each.

Run: ``.venv/bin/python bench/firmware_rounds.py --rounds 500`` (the short run of the test
command: ``tests/test_firmware_qemu.py``, a few rounds).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.journal.store import JournalReader, verify  # noqa: E402
from controller.service.logs import configure_logging  # noqa: E402
from controller.simulation.runner import SimulatedTable, SimulationSettings  # noqa: E402
from drivers.simulated.c_firmware import build  # noqa: E402

#: The journal rows that make a table's outcome: every card placed and every settlement.
OUTCOME_KINDS = ("card", "hole_card_revealed", "settlement", "round_completed", "round_voided")


def outcome(journal: Path) -> list[tuple[str, str]]:
    """The outcome rows of ``journal`` in order (kind and data; no times, no commitments)."""
    with JournalReader.open(journal) as reader:
        rows = [(r.kind, dict(r.data)) for r in reader.rows() if r.kind in OUTCOME_KINDS]
    for _kind, data in rows:
        data.pop("nonce", None)  # the shoe draws a fresh nonce for each hole card
    return [(kind, json.dumps(data, sort_keys=True)) for kind, data in rows]


def play(firmware: str | None, rounds: int, seed: int, journal: Path) -> float:
    """Play the rounds; rounds per second."""
    settings = SimulationSettings(rounds=rounds, seed=seed, journal=journal, firmware=firmware)
    result = SimulatedTable(settings).run()
    if result.rounds < rounds:
        raise SystemExit(f"{firmware or 'doubles'}: {result.rounds} of {rounds} rounds played")
    report = verify(journal)
    if not report.ok:
        raise SystemExit(f"{firmware or 'doubles'}: journal does not verify: {report.message}")
    return result.rounds / result.dealing_seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=500)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    configure_logging(level="error", form="console", stream=sys.stderr)
    build("arm")
    with tempfile.TemporaryDirectory(prefix="fw-rounds-") as tmp:
        boards, doubles = Path(tmp) / "boards.sqlite3", Path(tmp) / "doubles.sqlite3"
        boards_rate = play("qemu", args.rounds, args.seed, boards)
        doubles_rate = play(None, args.rounds, args.seed, doubles)
        same = outcome(boards) == outcome(doubles)
        cards = sum(1 for kind, _ in outcome(boards) if kind == "card")
    print(f"{args.rounds} rounds, seed {args.seed}, {cards} cards placed")
    print(f"  emulated boards (QEMU mps2-an385): {boards_rate:.1f} rounds/s")
    print(f"  Python doubles:                    {doubles_rate:.1f} rounds/s")
    print(f"  same cards and settlements in the same order: {'yes' if same else 'NO'}")
    figures = {
        "rounds": args.rounds,
        "boards_rounds_per_s": round(boards_rate, 2),
        "doubles_rounds_per_s": round(doubles_rate, 2),
        "same_outcome_as_doubles": same,
    }
    print("FIGURES " + json.dumps(figures))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
