"""``dealer-station simulate``: the whole station against the doubles, repeatable by seed."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.cli.main import main
from controller.journal.reader import JournalReader
from controller.journal.recall import recall
from controller.journal.verify import verify


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A directory for journals, on tmpfs where there is one (fsync costs ~4 ms on disk)."""
    shm = Path("/dev/shm")
    if not shm.is_dir():
        yield tmp_path
        return
    directory = Path(tempfile.mkdtemp(dir=shm))
    yield directory
    for item in directory.iterdir():
        item.unlink()
    directory.rmdir()


#: What the shoe draws from ``secrets`` even in a seeded simulation (docs/journal.md): otherwise
#: anyone with the seed could open every hole card's commitment before its reveal.
UNSEEDED = ("commitment", "nonce")


def journal_content(path: Path) -> list[tuple[str, int | None, dict[str, Any]]]:
    """Rows without what depends on the time: a seal's MAC and head cover timestamps."""
    with JournalReader.open(path) as reader:
        return [
            (r.kind, r.round_no, {k: v for k, v in r.data.items() if k not in ("mac", "head")})
            for r in reader.rows()
        ]


def seeded_part(rows: list[tuple[str, int | None, dict[str, Any]]]) -> list[Any]:
    """The journal without the hole cards' commitments and nonces."""
    return [
        (kind, round_no, {k: v for k, v in data.items() if k not in UNSEEDED})
        for kind, round_no, data in rows
    ]


def hole_secrets(rows: list[tuple[str, int | None, dict[str, Any]]]) -> list[str]:
    return [data[k] for _, _, data in rows for k in UNSEEDED if k in data]


def simulate(journal: Path, *extra: str) -> int:
    return main(["simulate", "--plain", "--journal", str(journal), *extra])


def test_same_seed_same_journal_apart_from_timestamps(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("--rounds", "12", "--seed", "4", "--profile", "NY", "--decks", "8", "--seats", "5")
    assert simulate(scratch / "a.sqlite3", *args) == 0
    assert simulate(scratch / "b.sqlite3", *args) == 0
    first, second = journal_content(scratch / "a.sqlite3"), journal_content(scratch / "b.sqlite3")
    assert seeded_part(first) == seeded_part(second)
    assert sum(kind == "round_completed" for kind, _, _ in first) == 12
    # NY deals a hole card: every round has a commitment and a nonce, none the same twice.
    assert len(hole_secrets(first)) >= 12 * 2
    assert not set(hole_secrets(first)) & set(hole_secrets(second))
    assert verify(scratch / "a.sqlite3").ok and verify(scratch / "b.sqlite3").ok
    assert simulate(scratch / "c.sqlite3", "--rounds", "12", "--seed", "5") == 0
    assert seeded_part(journal_content(scratch / "c.sqlite3")) != seeded_part(first)


def test_summary_and_recall_work_on_the_journal(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = scratch / "sim.sqlite3"
    assert simulate(journal, "--rounds", "10", "--seed", "2", "--profile", "NJ") == 0
    out = capsys.readouterr().out
    assert "rounds: 10 completed, 0 voided" in out
    assert "house result on main" in out and "reshuffles:" in out and str(journal) in out
    assert verify(journal).ok
    with JournalReader.open(journal) as reader:
        rounds = recall(reader, 3)["rounds"]
    assert [r["round"] for r in rounds] == [8, 9, 10]
    assert all(r["status"] == "completed" for r in rounds)


def test_injected_faults_are_resolved_and_nothing_is_lost(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = scratch / "faults.sqlite3"
    assert simulate(journal, "--rounds", "15", "--seed", "7", "--faults", "0.08") == 0
    out = capsys.readouterr().out
    assert "0 injected" not in out
    report = verify(journal)
    assert report.ok, report.message
    kinds = [kind for kind, _, _ in journal_content(journal)]
    assert kinds.count("fault") == kinds.count("fault_resolved") > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rounds", "0"], "--rounds must be >= 1"),
        (["--faults", "1.5"], "--faults in 0..1"),
    ],
)
def test_bad_options_exit_2_with_one_line(
    scratch: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert simulate(scratch / "x.sqlite3", *args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_an_existing_journal_is_never_overwritten(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = scratch / "kept.sqlite3"
    journal.write_bytes(b"precious")
    assert simulate(journal, "--rounds", "1") == 2
    assert journal.read_bytes() == b"precious"
    assert "exists" in capsys.readouterr().err


def test_split_runs_the_doubles_and_dealer_in_their_own_process(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--split``: the same journal as the in-process run of the seed (hole cards'
    commitments and nonces apart), and the same summary."""
    args = ("--rounds", "3", "--seed", "11")
    assert simulate(scratch / "one.sqlite3", *args) == 0
    one = capsys.readouterr().out
    assert simulate(scratch / "split.sqlite3", *args, "--split") == 0
    split = capsys.readouterr().out
    assert "rounds: 3 completed, 0 voided" in split
    assert seeded_part(journal_content(scratch / "split.sqlite3")) == seeded_part(
        journal_content(scratch / "one.sqlite3")
    )
    timing = re.compile(r"in [\d.]+ s \([\d.]+ rounds/s")  # the one line that differs
    assert timing.sub("", split.replace("split.sqlite3", "one.sqlite3")) == timing.sub("", one)
    assert verify(scratch / "split.sqlite3").ok
