"""The record vocabulary in docs/journal.md and what the station writes are one thing
(docs/journal.md): simulations run, and every kind and field written is checked against the
document, both ways. The recalled seat nets add up to the house result ``simulate`` prints.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from controller.cli.main import main
from controller.journal.reader import JournalReader
from controller.journal.recall import recall, render_text
from controller.journal.seal import VerificationKey
from controller.journal.verify import verify

DOC = Path(__file__).resolve().parents[1] / "docs" / "journal.md"

#: Kinds of the document that a simulation does not write, and why.
NOT_SIMULATED = {
    "shoe_empty": "the simulated dealer reshuffles at the cover card, before the shoe runs out",
    "hand_shuffle_done": "the simulated table has a shuffler",
    "burn_disclosed": "no simulated player asks to see the burn card",
    "wager_refused": "the simulated players wager within the limits",
    "decision_refused": "the simulated dealer presses only legal buttons",
    "resolution_refused": "the simulated supervisor picks a resolution that fits",
    "round_voided": "the simulated supervisor resumes",
    "button_ignored": "the simulated dealer presses buttons only when they mean something",
    "hole_card_rejected": "the simulated shoe reports the hole card only when it is due",
    "hole_card_repeated": (
        "a simulation never restarts its station (tests/test_hole_card_steps.py; the HIL"
        " restarts of hil_tests/test_restart.py)"
    ),
    "clock": "the daemon journals its clock (tests/test_clock.py); a simulation runs no daemon",
}


def documented() -> dict[str, tuple[set[str], set[str], bool]]:
    """kind -> (required fields, optional fields, further fields allowed) from the doc."""
    # The section only: later sections have tables of their own (the archive's cases).
    section = DOC.read_text().split("## Record vocabulary", 1)[1].split("\n## ", 1)[0]
    found: dict[str, tuple[set[str], set[str], bool]] = {}
    for kind, fields in re.findall(r"^\| `([a-z_]+)` \|\s*`?([^|`]*?)`?\s*\|", section, re.M):
        names = [f.strip() for f in fields.split(",") if f.strip()]
        required = {n for n in names if not n.endswith("?") and n != "..."}
        optional = {n[:-1] for n in names if n.endswith("?")}
        found[kind] = (required, optional, "..." in names)
    return found


@pytest.fixture(scope="module")
def simulations() -> Iterator[tuple[list[Path], list[str]]]:
    """A fault-free PA run and an NJ run with injected faults, with their summaries."""
    directory = Path(tempfile.mkdtemp(dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    runs = [
        ("pa.sqlite3", "--rounds", "40", "--seed", "3", "--profile", "PA"),
        ("nj.sqlite3", "--rounds", "15", "--seed", "7", "--faults", "0.08", "--profile", "NJ"),
    ]
    paths, outputs = [], []
    for name, *args in runs:
        path = directory / name
        import contextlib
        import io

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["simulate", "--plain", "--journal", str(path), *args]) == 0
        paths.append(path)
        outputs.append(out.getvalue())
    yield paths, outputs
    for item in directory.iterdir():
        item.unlink()
    directory.rmdir()


def written(paths: list[Path]) -> dict[str, list[dict[str, Any]]]:
    rows: dict[str, list[dict[str, Any]]] = {}
    for path in paths:
        with JournalReader.open(path) as reader:
            for row in reader.rows():
                rows.setdefault(row.kind, []).append(row.data)
    return rows


def test_every_kind_and_field_written_is_documented_and_back(
    simulations: tuple[list[Path], list[str]],
) -> None:
    doc = documented()
    rows = written(simulations[0])
    assert set(rows) - set(doc) == set(), "written but not documented"
    assert set(doc) - set(rows) == set(NOT_SIMULATED), "documented but never written"
    for kind, datas in rows.items():
        required, optional, more = doc[kind]
        seen: set[str] = set()
        for data in datas:
            assert required <= set(data), f"{kind}: {sorted(required - set(data))} missing"
            if not more:
                extra = set(data) - required - optional
                assert not extra, f"{kind}: {sorted(extra)} not in docs/journal.md"
            seen |= set(data)
        assert optional - seen <= _OPTIONAL_NOT_SEEN, f"{kind}: {optional - seen} never written"


#: Optional fields the two simulations do not happen to write (amounts are always sensed).
_OPTIONAL_NOT_SEEN = {
    "net_stakes",
    "stakes",  # insurance_taken at a seat the sensors cannot weigh
    "posted",  # insurance_taken on a presence-only insurance spot
    "fixed_cents",  # seat_result: a super bonus share at a seat the sensors cannot weigh
    "super_bonus",
    "super_bonus_cents",
    "reason",
    "note",
    "bonus",
    "hand",
    "cards",
    "total",
    "seat",
    "serial",
    "firmware",
    "count",  # a device row's forged frames: the simulations forge none
}


def test_the_simulations_are_sealed_and_verify_with_their_key(
    simulations: tuple[list[Path], list[str]],
) -> None:
    for path in simulations[0]:
        key_file = path.with_name(path.name + "-verification-key")
        key = VerificationKey.from_text(key_file.read_text())
        report = verify(path, key=key)
        assert report.ok, report.message
        assert "seals good" in report.message


def _house_cents(summary: str) -> int:
    total = Decimal(0)
    lines = re.findall(r"^house result on \w+: ([+-])\$([\d,]+\.\d\d)", summary, re.M)
    assert len(lines) >= 2, summary  # main and match at least
    for sign, amount in lines:
        value = Decimal(amount.replace(",", ""))
        total += value if sign == "+" else -value
    return int(total * 100)


def test_recalled_seat_nets_add_up_to_the_house_result(
    simulations: tuple[list[Path], list[str]],
) -> None:
    """The sum of every seat's recalled net, over the whole simulation, is minus the house
    result ``simulate`` prints, to the cent."""
    for path, summary in zip(*simulations, strict=True):
        with JournalReader.open(path) as reader:
            recalled = recall(reader, 10_000)
        nets = [
            seat["net_cents"]
            for round_ in recalled["rounds"]
            if round_["status"] == "completed"
            for seat in round_["seats"]
        ]
        assert nets and all(isinstance(n, int) for n in nets)
        assert sum(nets) == -_house_cents(summary)


def test_recall_shows_each_winning_match(simulations: tuple[list[Path], list[str]]) -> None:
    """Every winning Match the Dealer is recalled with its matches, never as "no match"."""
    with JournalReader.open(simulations[0][0]) as reader:
        recalled = recall(reader, 10_000)
    text = render_text(recalled)
    wins = [
        seat["match"]
        for round_ in recalled["rounds"]
        for seat in round_["seats"]
        if seat["match"] and seat["match"]["outcome"] == "win"
    ]
    assert wins, "the fixed seed deals at least one winning match"
    assert all(m["matches"] in (1, 2) for m in wins)
    shown = re.findall(r"match the dealer: (\d) match\(es\) at ([\d:]+), net \+", text)
    assert len(shown) == len(wins)
    losses = text.count("match the dealer: no match, net -")
    assert losses == sum(
        1
        for round_ in recalled["rounds"]
        for seat in round_["seats"]
        if seat["match"] and seat["match"]["outcome"] == "lose"
    )
