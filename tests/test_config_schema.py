"""The building blocks of station.toml's reading (``controller.service.config_schema``): the
one-line error, the typed section reader, the file and password-file readers.

Hostile input is the point: every refusal is one line naming the file and the key, never a
traceback. The expected texts are the documented forms (``FILE: key.path: problem``).
"""

from __future__ import annotations

import datetime
import os
from enum import Enum
from pathlib import Path

import pytest

from controller.service.config_schema import (
    MAX_CONFIG_BYTES,
    MAX_SECRET_BYTES,
    ConfigError,
    Section,
    read_secret,
    read_toml,
)

FILE = Path("/etc/dealer-station/station.toml")


class Colour(Enum):
    RED = "red"
    BLUE = "blue"


def refusal(call: object) -> str:
    assert callable(call)
    with pytest.raises(ConfigError) as caught:
        call()
    text = str(caught.value)
    assert "\n" not in text
    return text


# --- the error ------------------------------------------------------------------------


def test_the_error_is_file_key_problem_and_keeps_its_parts() -> None:
    err = ConfigError(FILE, "devices.shoe.port", "missing (required)")
    assert str(err) == f"{FILE}: devices.shoe.port: missing (required)"
    assert (err.file, err.key, err.problem) == (
        str(FILE),
        "devices.shoe.port",
        "missing (required)",
    )


def test_a_line_break_or_a_control_character_in_the_error_is_written_escaped() -> None:
    err = ConfigError(Path("/tmp/a\nb.toml"), "k\tey", "bad\x1b[2J")
    assert str(err) == "/tmp/a\\nb.toml: k\\tey: bad\\x1b[2J"


def test_a_byte_that_is_not_utf_8_in_the_files_name_is_written_escaped() -> None:
    name = os.fsdecode(b"/tmp/\xff.toml")  # a surrogate escape
    assert str(ConfigError(name, "k", "p")) == "/tmp/\\udcff.toml: k: p"


# --- a section's values -------------------------------------------------------------------


def test_a_nested_section_names_its_keys_by_their_whole_path() -> None:
    top = Section(FILE, {"devices": {"shoe": {"port": 5}}})
    devices = top.section("devices", required=True)
    assert devices is not None and devices.path == "devices"
    shoe = devices.section("shoe", required=True)
    assert shoe is not None and shoe.key("port") == "devices.shoe.port"
    assert refusal(lambda: shoe.get("port", str)) == (
        f"{FILE}: devices.shoe.port: expected a string, got an integer (5)"
    )


def test_a_key_with_a_line_break_is_named_escaped() -> None:
    section = Section(FILE, {"a\nb": 1}, "options")
    assert refusal(section.done) == f"{FILE}: options.'a\\nb': unknown key"


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        (True, int, "expected an integer, got true or false"),
        (1, bool, "expected true or false, got an integer (1)"),
        ("6", int, "expected an integer, got a string ('6')"),
        (6.0, int, "expected an integer, got a float"),
        ([6], int, "expected an integer, got an array"),
        ({"a": 1}, str, "expected a string, got a table"),
        (datetime.date(2026, 12, 3), int, "expected an integer, got date"),
        (3, list, "expected an array, got an integer (3)"),
        (3, float, "expected a float, got an integer (3)"),
    ],
)
def test_a_value_of_the_wrong_type_says_what_was_expected_and_what_came(
    value: object, kind: type, expected: str
) -> None:
    section = Section(FILE, {"decks": value})
    assert refusal(lambda: section.get("decks", kind)) == f"{FILE}: decks: {expected}"


def test_a_value_of_its_type_is_read_and_a_missing_one_takes_its_default() -> None:
    section = Section(FILE, {"decks": 6, "tls": False})
    assert section.get("decks", int) == 6
    assert section.get("tls", bool, True) is False
    assert section.get("baudrate", int, 115200) == 115200
    assert refusal(lambda: section.get("table_id", str)) == f"{FILE}: table_id: missing (required)"


def test_every_key_read_is_known_and_any_other_is_refused_by_name() -> None:
    section = Section(FILE, {"decks": 6, "table_id": "T1", "colour": "red"})
    section.get("decks", int)
    section.get("table_id", str)
    section.get("absent", int, 1)
    assert refusal(section.done) == f"{FILE}: colour: unknown key"
    section.choice("colour", Colour)
    section.done()  # every key read: nothing to refuse


def test_a_choice_is_one_of_its_values_and_anything_else_lists_them() -> None:
    section = Section(FILE, {"colour": "blue", "bad": "green", "wrong": 1})
    assert section.choice("colour", Colour) is Colour.BLUE
    assert section.choice("shade", Colour, Colour.RED) is Colour.RED
    assert refusal(lambda: section.choice("bad", Colour)) == (
        f"{FILE}: bad: 'green' is not one of red, blue"
    )
    assert refusal(lambda: section.choice("wrong", Colour)) == (
        f"{FILE}: wrong: expected a string, got an integer (1)"
    )
    assert (
        refusal(lambda: section.choice("shade2", Colour)) == f"{FILE}: shade2: missing (required)"
    )


def test_a_section_is_a_table_required_or_not() -> None:
    top = Section(FILE, {"journal": {"path": "j"}, "logging": 3, "floor": []})
    journal = top.section("journal", required=False)
    assert journal is not None and journal.data == {"path": "j"} and journal.file == FILE
    assert top.section("pairing", required=False) is None
    assert refusal(lambda: top.section("devices", required=True)) == (
        f"{FILE}: devices: missing (required table)"
    )
    assert refusal(lambda: top.section("logging", required=False)) == (
        f"{FILE}: logging: expected a table, got an integer (3)"
    )
    assert refusal(lambda: top.section("floor", required=False)) == (
        f"{FILE}: floor: expected a table, got an array"
    )
    top.done()  # each section asked for counts as read, present or not


# --- the file --------------------------------------------------------------------------


def test_a_toml_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "station.toml"
    path.write_text('table_id = "T1"\n[devices.shoe]\nport = "/dev/x"\n')
    assert read_toml(path) == {"table_id": "T1", "devices": {"shoe": {"port": "/dev/x"}}}


def test_a_file_of_the_size_limit_is_read_and_a_byte_more_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "station.toml"
    path.write_bytes(b"#" * (MAX_CONFIG_BYTES - 1) + b"\n")
    assert read_toml(path) == {}
    path.write_bytes(b"#" * MAX_CONFIG_BYTES + b"\n")
    assert refusal(lambda: read_toml(path)) == (
        f"{path}: (file): larger than {MAX_CONFIG_BYTES} bytes"
    )


def test_a_file_that_is_missing_a_directory_or_a_nul_path_cannot_be_read(tmp_path: Path) -> None:
    missing = tmp_path / "none.toml"
    assert refusal(lambda: read_toml(missing)) == (
        f"{missing}: (file): cannot read: No such file or directory"
    )
    assert (
        refusal(lambda: read_toml(tmp_path)) == f"{tmp_path}: (file): cannot read: Is a directory"
    )
    nul = Path("/tmp/a\0b")
    assert refusal(lambda: read_toml(nul)).startswith("/tmp/a\\x00b: (file): cannot read: ")


def test_a_file_that_is_not_utf_8_or_not_toml_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "station.toml"
    path.write_bytes(b'table_id = "\xff"\n')
    assert refusal(lambda: read_toml(path)) == f"{path}: (file): not UTF-8 text"
    path.write_text("table_id = \n")
    assert refusal(lambda: read_toml(path)).startswith(f"{path}: (syntax): not valid TOML: ")


def test_a_file_nested_too_deeply_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "station.toml"
    path.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert refusal(lambda: read_toml(path)) == f"{path}: (syntax): nested too deeply"


# --- the password file ---------------------------------------------------------------------


def test_a_password_is_the_first_line_stripped(tmp_path: Path) -> None:
    path = tmp_path / "password"
    path.write_text("  s3cret \nsecond line\n")
    assert read_secret(path) == "s3cret"


def test_a_password_file_of_the_size_limit_is_read_and_a_byte_more_is_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "password"
    path.write_bytes(b"p" * MAX_SECRET_BYTES)
    assert read_secret(path) == "p" * MAX_SECRET_BYTES
    path.write_bytes(b"p" * (MAX_SECRET_BYTES + 1))
    with pytest.raises(OSError) as caught:
        read_secret(path)
    assert str(caught.value) == (
        f"{path}: larger than {MAX_SECRET_BYTES} bytes: not a password file"
    )


@pytest.mark.parametrize("content", [b"", b"\n", b"   \nsecond\n"])
def test_an_empty_password_is_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "password"
    path.write_bytes(content)
    with pytest.raises(OSError) as caught:
        read_secret(path)
    assert str(caught.value) == f"{path}: empty: the password is its first line"


def test_a_password_file_not_utf_8_or_a_nul_path_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "password"
    path.write_bytes(b"\xff\xfe\n")
    with pytest.raises(OSError) as caught:
        read_secret(path)
    assert str(caught.value) == f"{path}: not UTF-8 text"
    with pytest.raises(OSError) as caught:
        read_secret(Path("/tmp/a\0b"))
    assert str(caught.value).startswith("/tmp/a\0b: ") and "null" in str(caught.value)


class Only(Enum):
    ONLY = "only"


def test_a_choice_of_a_single_value_is_read() -> None:
    section = Section(FILE, {"mode": "only", "bad": "other"})
    assert section.choice("mode", Only) is Only.ONLY
    assert (
        refusal(lambda: section.choice("bad", Only)) == f"{FILE}: bad: 'other' is not one of only"
    )


def test_a_file_over_the_limit_is_refused_for_its_size_whatever_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "station.toml"
    path.write_bytes(b"= not toml\n" + b"x" * MAX_CONFIG_BYTES)
    assert refusal(lambda: read_toml(path)) == (
        f"{path}: (file): larger than {MAX_CONFIG_BYTES} bytes"
    )


class HeldFifo:
    """A FIFO whose writer writes ``size`` bytes and then holds it open until the test is
    done: a file with no end, as a device is (``/dev/zero``, a serial port)."""

    def __init__(self, path: Path, size: int) -> None:
        import threading

        os.mkfifo(path)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._write, args=(path, size), daemon=True)
        self.thread.start()

    def _write(self, path: Path, size: int) -> None:
        with path.open("wb") as fifo:
            fifo.write(b"#" * size)
            fifo.flush()
            self.done.wait()

    def close(self) -> None:
        self.done.set()
        self.thread.join(timeout=10)


def test_a_configuration_with_no_end_is_refused_after_one_byte_over_the_limit(
    tmp_path: Path,
) -> None:
    """Read no further than the limit and a byte: a reader that waits for the end (or for a
    byte more) would wait for ever on a device."""
    fifo = HeldFifo(tmp_path / "station.toml", MAX_CONFIG_BYTES + 1)
    try:
        assert refusal(lambda: read_toml(tmp_path / "station.toml")) == (
            f"{tmp_path / 'station.toml'}: (file): larger than {MAX_CONFIG_BYTES} bytes"
        )
    finally:
        fifo.close()


def test_a_password_file_with_no_end_is_refused_after_one_byte_over_the_limit(
    tmp_path: Path,
) -> None:
    fifo = HeldFifo(tmp_path / "password", MAX_SECRET_BYTES + 1)
    try:
        with pytest.raises(OSError) as caught:
            read_secret(tmp_path / "password")
        assert str(caught.value) == (
            f"{tmp_path / 'password'}: larger than {MAX_SECRET_BYTES} bytes: not a password file"
        )
    finally:
        fifo.close()
