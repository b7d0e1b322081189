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


class Moments:
    """The given moments, one a call."""

    def __init__(self, *moments: datetime) -> None:
        self.moments = list(moments)

    def __call__(self) -> datetime:
        return self.moments.pop(0)


@pytest.mark.parametrize("storage_format", [1, 2])
def test_export_dates_below_the_year_1000_and_up_to_9999_select_by_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], storage_format: int
) -> None:
    """docs/journal.md: a timestamp's year has four digits, so "0999-12-31" sorts before
    "2026-..." (format_ts once wrote "999-12-31...": --from 0999-01-01 exported nothing,
    --to 0999-12-31 everything). Rows in the years 999, 1000 and 2026."""
    path = tmp_path / "journal.sqlite3"
    clock = Moments(
        datetime(999, 12, 31, 12, tzinfo=UTC),
        datetime(1000, 1, 1, 12, tzinfo=UTC),
        datetime(2026, 11, 1, 12, tzinfo=UTC),
    )
    with Journal.open(path, clock=clock, storage_format=storage_format) as journal:
        for r in (1, 2, 3):
            journal.append("round_started", {"round": r, "seats": []}, r)
    args = ["journal", "export", "--journal", str(path)]

    def rounds(*extra: str) -> list[int]:
        assert main([*args, *extra]) == 0
        return [json.loads(x)["round"] for x in capsys.readouterr().out.splitlines()]

    assert rounds() == [1, 2, 3]
    assert rounds("--from", "0999-01-01") == [1, 2, 3]
    assert rounds("--from", "0001-01-01", "--to", "9999-12-31") == [1, 2, 3]
    assert rounds("--to", "0999-12-31") == [1]  # the whole day: up to 1000-01-01
    assert rounds("--from", "1000-01-01") == [2, 3]
    assert rounds("--to", "0999-12-30") == []
    assert rounds("--from", "2026-11-02") == []


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("10000-01-01", "not a date: '10000-01-01'"),  # no year past 9999
        ("9999-12-31T23:30:00-01:00", "out of range in UTC"),  # 10000-01-01T00:30Z
        ("0001-01-01T00:30:00+01:00", "out of range in UTC"),  # the year 0 in UTC
        ("-0001-01-01", "not a date"),
    ],
)
def test_export_refuses_a_moment_outside_the_years_1_to_9999_in_one_line(
    journal_path: Path, capsys: pytest.CaptureFixture[str], value: str, problem: str
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["journal", "export", "--journal", str(journal_path), f"--from={value}"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and problem in err and "Traceback" not in err


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
