"""The real-rig side of the fixture layer, checked without a rig: the rig file, the
daemon's drivers built from it, and the person's prompts."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rig_layer import PersonHands, RealRig

from controller.rules.cards import parse_card
from controller.rules.options import MatchPayTable
from controller.service.config_schema import ConfigError
from drivers.hal import Button, WagerSpot
from drivers.shoe import ShoeDriver

EXAMPLE = Path(__file__).parents[1] / "examples" / "station.toml"


def test_a_station_toml_describes_a_real_rig_and_tests_set_the_rest(tmp_path: Path) -> None:
    rig = RealRig(EXAMPLE, PersonHands(io.StringIO(), io.StringIO()))
    config = rig.config("NY", 8, None, tmp_path / "j.sqlite3")
    assert (config.profile.code, config.decks) == ("NY", 8)
    assert config.rules().match_table(8) is MatchPayTable.B
    assert config.journal.path == tmp_path / "j.sqlite3"
    assert config.devices.shoe.serial_number == "SHO-0000042"
    events: list[object] = []
    devices, table_devices = rig.drivers_for(config)(events.append)  # built, not started
    assert len(devices) == len(config.devices.configured) and table_devices.reader is not None
    assert any(isinstance(d, ShoeDriver) for d in devices)
    assert events == []


def test_a_bad_rig_file_is_a_one_line_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "rig.toml"
    bad.write_text('table_id = "X"\nprofile = "PA"\ndecks = 6\n[devices.shoe]\nport = "tty"\n')
    with pytest.raises(ConfigError, match="port"):
        RealRig(bad)


def test_the_person_is_told_each_step_and_answers_with_enter() -> None:
    out = io.StringIO()
    hands = PersonHands(io.StringIO("\n" * 6 + "y\n"), out)
    hands.load([parse_card("9H"), parse_card("KS")], cover_at=1)
    assert hands.deal(parse_card("9H")) == parse_card("9H")
    hands.press(Button.DOUBLE)
    hands.turn_key(True)
    hands.place_wager(3, WagerSpot.MATCH, True, 500)
    hands.insert_hole_card(parse_card("KS"))
    assert hands.confirm("Is the LOAD lamp blinking?")
    text = out.getvalue()
    for words in (
        "Load the shoe, first card out first: 9H COVER KS",
        "(it should be 9H)",
        "Press the DOUBLE button",
        "supervisor key ON",
        "Put $5.00 in chips on seat 3's match spot",
        "face down into the card reader",
    ):
        assert words in text
    reader_line = next(line for line in text.splitlines() if "card reader" in line)
    assert "KS" not in reader_line  # the person is never told the hole card


def test_no_person_answering_is_a_clear_error() -> None:
    with pytest.raises(EOFError, match="run the real-rig suite with -s"):
        PersonHands(io.StringIO(), io.StringIO()).press(Button.NEXT)
