"""``journal setup-keys``, ``journal anchor`` and ``journal verify --key/--anchor`` through the
command line (docs/journal.md), with hypothesis on the new arguments."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from journal_tamper_support import tamper

from controller.cli.main import main
from controller.journal.store import Journal

KEY = re.compile(r"ds1:T7:[A-Z2-7-]+:[A-Z2-7]{4}")


@pytest.fixture
def station(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    """A sealed journal of three rounds made after ``setup-keys``, and the printed key."""
    key_file = tmp_path / "sealing-key"
    assert main(["journal", "setup-keys", "--table", "T7", "--key-file", str(key_file)]) == 0
    out = capsys.readouterr().out
    found = KEY.search(out)
    assert found is not None, out
    assert "\u2580" in out or "\u2584" in out or "\u2588" in out  # the QR code's blocks
    assert key_file.stat().st_mode & 0o777 == 0o600
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=key_file) as journal:
        for round_no in (1, 2, 3):
            journal.append("round_started", {"round": round_no, "seats": []}, round_no)
            journal.append("round_completed", {"reshuffle": False}, round_no)
    return path, found.group(0)


def test_setup_keys_refuses_to_replace_a_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key_file = tmp_path / "k"
    assert main(["journal", "setup-keys", "--table", "T7", "--key-file", str(key_file)]) == 0
    before = key_file.read_bytes()
    capsys.readouterr()
    assert main(["journal", "setup-keys", "--table", "T7", "--key-file", str(key_file)]) == 2
    assert "exists" in capsys.readouterr().err
    assert key_file.read_bytes() == before
    assert (
        main(["journal", "setup-keys", "--table", "bad/id", "--key-file", str(tmp_path / "x")]) == 2
    )
    assert "bad table id" in capsys.readouterr().err


def test_verify_with_the_printed_key_and_an_anchor(
    station: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, key = station
    assert main(["journal", "verify", "--journal", str(path)]) == 0
    assert "seals not checked (no --key)" in capsys.readouterr().out
    assert main(["journal", "verify", "--key", key, "--journal", str(path)]) == 0
    assert "3 seals good" in capsys.readouterr().out
    assert main(["journal", "anchor", "--journal", str(path)]) == 0
    anchor = capsys.readouterr().out.strip()
    assert re.fullmatch(r"T7:9:2:[0-9a-f]{64}", anchor), anchor
    assert main(["journal", "verify", "--anchor", anchor, "--journal", str(path)]) == 0
    capsys.readouterr()
    # The last round and its seal removed behind the triggers: behind the anchor.
    tamper(path, "DELETE FROM journal WHERE id > 6")
    path.with_name(path.name + "-head").unlink()
    code = main(["journal", "verify", "--key", key, "--anchor", anchor, "--journal", str(path)])
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith("behind:") and err.count("\n") == 1


def test_verify_key_from_a_file_and_a_wrong_key(
    tmp_path: Path, station: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, key = station
    key_text = tmp_path / "verification.txt"
    key_text.write_text(key + "\n")
    assert main(["journal", "verify", "--key", f"@{key_text}", "--journal", str(path)]) == 0
    capsys.readouterr()
    body = key.split(":")[2]
    other = key.replace(body, ("B" if body[0] == "A" else "A") + body[1:])
    with pytest.raises(SystemExit) as caught:
        main(["journal", "verify", "--key", other, "--journal", str(path)])
    assert caught.value.code == 2
    assert "checksum" in capsys.readouterr().err


def test_anchor_of_an_unsealed_journal_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "j.sqlite3"
    with Journal.open(path) as journal:
        journal.append("shuffle_commanded", {"decks": 6})
    assert main(["journal", "anchor", "--journal", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no seal" in err


@given(text=st.text(max_size=120))
def test_any_key_or_anchor_text_is_a_usage_error_or_accepted(text: str) -> None:
    """Hostile --key / --anchor values: argparse's one-line usage error, never a traceback."""
    for option in ("--key", "--anchor"):
        try:
            main(["journal", "verify", option, text, "--journal", "/nonexistent/j.sqlite3"])
        except SystemExit as exit_:
            assert exit_.code == 2
