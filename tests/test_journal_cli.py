"""``dealer-station journal recall|verify|export`` through the command line."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from journal_tamper_support import tamper

from controller.cli.main import main
from controller.journal.store import Journal

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "station.toml"


class StepClock:
    """One day per call, from 2026-11-01 noon UTC."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        moment = self.now
        self.now += timedelta(days=1)
        return moment


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, clock=StepClock()) as journal:
        for r in range(1, 6):  # rounds 1..5 on 1..5 November
            journal.append("round_started", {"round": r, "seats": [{"seat": 1}]}, r)
    return path


def test_recall_text_and_json(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["journal", "recall", "2", "--journal", str(journal_path)]) == 0
    out = capsys.readouterr().out
    assert "Round 4 " in out and "Round 5 " in out and "Round 3 " not in out
    assert main(["journal", "recall", "--json", "--journal", str(journal_path)]) == 0
    recalled = json.loads(capsys.readouterr().out)
    assert [r["round"] for r in recalled["rounds"]] == [1, 2, 3, 4, 5]


def test_recall_refuses_a_bad_count(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["journal", "recall", "0", "--journal", str(journal_path)])
    assert caught.value.code == 2
    assert "at least 1" in capsys.readouterr().err


def test_verify_exit_status(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["journal", "verify", "--journal", str(journal_path)]) == 0
    assert capsys.readouterr().out.startswith("intact: 5 rows")
    assert main(["journal", "verify", "--tail", "2", "--journal", str(journal_path)]) == 0
    assert capsys.readouterr().out.startswith("intact: rows 4..5")
    tamper(journal_path, """UPDATE journal SET data = '{"round":3,"seats":[]}' WHERE id = 3""")
    assert main(["journal", "verify", "--journal", str(journal_path)]) == 1
    assert capsys.readouterr().err == "altered: row 3: content does not match its hash\n"


def test_export_a_date_range(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["journal", "export", "--journal", str(journal_path)]
    assert main([*args, "--from", "2026-11-02", "--to", "2026-11-04"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [json.loads(line) for line in lines]
    assert [r["round"] for r in rows] == [2, 3, 4]  # --to takes the whole day
    assert rows[0]["data"] == {"round": 2, "seats": [{"seat": 1}]}
    assert rows[0]["ts"] == "2026-11-02T12:00:00.000000Z" and len(rows[0]["hash"]) == 64
    assert main([*args, "--from", "2026-11-04T12:00:01"]) == 0
    assert [json.loads(x)["round"] for x in capsys.readouterr().out.splitlines()] == [5]


def test_export_to_a_file(
    journal_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "export.jsonl"
    assert main(["journal", "export", "--journal", str(journal_path), "--output", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 5
    assert capsys.readouterr().out == ""


def test_export_refuses_bad_dates(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["journal", "export", "--journal", str(journal_path)]
    with pytest.raises(SystemExit):
        main([*args, "--from", "yesterday"])
    assert "not a date: 'yesterday'" in capsys.readouterr().err
    assert main([*args, "--from", "2026-11-05", "--to", "2026-11-01"]) == 2
    assert "--from must come before --to" in capsys.readouterr().err


def test_the_journal_named_by_a_config_file(
    journal_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "station.toml"
    config.write_text(
        EXAMPLE.read_text().replace(
            'path = "/var/lib/dealer-station/journal.sqlite3"', 'path = "journal.sqlite3"'
        )
    )
    assert main(["journal", "verify", "--config", str(config)]) == 0
    assert "intact: 5 rows" in capsys.readouterr().out
    config.write_text("profile = 3\n")
    assert main(["journal", "recall", "--config", str(config)]) == 2
    assert "station.toml: table_id: missing (required)" in capsys.readouterr().err


def test_missing_and_corrupt_journals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    absent = tmp_path / "absent.sqlite3"
    assert main(["journal", "recall", "--journal", str(absent)]) == 2
    assert main(["journal", "verify", "--journal", str(absent)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"dealer-station journal: no journal at {absent}",
        f"missing: no journal at {absent}",
    ]
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"\x00" * 50 + b"garbage" * 1000)
    assert main(["journal", "export", "--journal", str(garbage)]) == 1
    assert "run 'journal verify'" in capsys.readouterr().err
    assert main(["journal", "verify", "--journal", str(garbage)]) == 1
    assert capsys.readouterr().err.startswith("corrupt: ")
