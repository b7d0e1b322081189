"""``dealer-station check-config``: exit 0 for a good file, 2 and one line for a bad one."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli.main import main

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "station.toml"


def test_a_good_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-config", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "ok: table PA-S21-07, profile PA, 6 decks" in out


def test_a_bad_file_gives_exit_2_and_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "station.toml"
    text = EXAMPLE.read_text().replace("decks = 6", "decks = 8")
    bad.write_text(text.replace('profile = "PA"', 'profile = "NY"'))
    assert main(["check-config", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"{bad}: options.match_pay_table: profile NY: match_tables = 8: A is not allowed:"
        " NY 5324.12(d)(5) fixes match_tables = 6: A, 8: B\n"
    )


def test_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-config", str(tmp_path / "nope.toml")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
