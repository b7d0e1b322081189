"""station.toml's paths checked against each other and against the disk
(``controller.service.config_paths``), fast: parsed documents and real files in a temporary
directory, no command line.

Each refusal is one line naming the key to fix; a path that does not exist yet passes (the
station makes the journal and its key files).
"""

from __future__ import annotations

import copy
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

from controller.journal.creation import journal_files
from controller.service.config import StationConfig, parse_config
from controller.service.config_schema import ConfigError
from controller.service.outbox import ack_path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "station.toml"
_EXAMPLE: dict[str, Any] = tomllib.loads(EXAMPLE.read_text())


def document(root: Path, **journal: str) -> dict[str, Any]:
    """The example with its journal, key and pairing directory under ``root`` (each key of
    ``journal`` replaces one of the ``[journal]`` section's)."""
    data = copy.deepcopy(_EXAMPLE)
    data["journal"] = {
        "path": str(root / "journal.sqlite3"),
        "sealing_key": str(root / "sealing-key"),
        **journal,
    }
    data["pairing"] = {"directory": str(root / "pairing")}
    return data


def with_floor(data: dict[str, Any], root: Path, **files: str) -> dict[str, Any]:
    data["floor"] = {
        "broker": "127.0.0.1",
        "username": "PA-S21-07",
        "password_file": str(root / "password"),
        "ca_file": str(root / "ca.pem"),
        **files,
    }
    return data


def parse(data: dict[str, Any], root: Path) -> StationConfig:
    return parse_config(data, root / "station.toml")


def refusal(data: dict[str, Any], root: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        parse(data, root)
    text = str(caught.value)
    assert "\n" not in text and text.startswith(f"{root / 'station.toml'}: ")
    return text.removeprefix(f"{root / 'station.toml'}: ")


def test_paths_that_do_not_exist_yet_pass(tmp_path: Path) -> None:
    config = parse(with_floor(document(tmp_path), tmp_path), tmp_path)
    assert config.journal.path == tmp_path / "journal.sqlite3"


def test_existing_files_and_directories_where_expected_pass(tmp_path: Path) -> None:
    for name in ("journal.sqlite3", "sealing-key", "password", "ca.pem"):
        (tmp_path / name).write_text("x")
    (tmp_path / "pairing").mkdir()
    parse(with_floor(document(tmp_path), tmp_path), tmp_path)


# --- devices ---------------------------------------------------------------------------------


def test_two_devices_on_one_port_are_refused_naming_both(tmp_path: Path) -> None:
    data = document(tmp_path)
    data["devices"]["shoe"]["port"] = "/dev/dealer-shuffler"
    assert refusal(data, tmp_path) == (
        "devices.shoe.port: the same port as devices.shuffler.port: one device a port"
    )


def test_one_port_named_through_a_link_is_the_same_port(tmp_path: Path) -> None:
    """A udev name is a link to the kernel's: the same line by two names."""
    (tmp_path / "ttyS9").write_text("")
    os.symlink(tmp_path / "ttyS9", tmp_path / "dealer-shoe")
    data = document(tmp_path)
    data["devices"]["shuffler"]["port"] = "/dev/../" + str(tmp_path / "ttyS9").lstrip("/")
    data["devices"]["shoe"]["port"] = "/dev/../" + str(tmp_path / "dealer-shoe").lstrip("/")
    assert refusal(data, tmp_path) == (
        "devices.shoe.port: the same port as devices.shuffler.port: one device a port"
    )


def test_a_panel_board_on_another_devices_port_is_refused(tmp_path: Path) -> None:
    data = document(tmp_path)
    del data["devices"]["panel"]
    data["devices"]["panel_board"] = {
        "port": "/dev/dealer-shoe",
        "serial": "PNL-1",
        "firmware": ["pnl-1.0"],
    }
    assert refusal(data, tmp_path) == (
        "devices.panel_board.port: the same port as devices.shoe.port: one device a port"
    )


# --- the journal and its key ------------------------------------------------------------------


def test_the_key_file_may_be_none_of_the_journals_own_files(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite3"
    own = (*journal_files(journal), ack_path(journal))
    assert len(own) > 2
    for path in own:
        data = document(tmp_path, sealing_key=str(path))
        assert refusal(data, tmp_path) == (
            f"journal.sealing_key: {path} is the journal's own file: a key file of its own"
        )


def test_a_key_file_beside_the_journal_under_another_name_passes(tmp_path: Path) -> None:
    data = document(tmp_path, sealing_key=str(tmp_path / "journal.sqlite3-key"))
    assert parse(data, tmp_path).journal.sealing_key == tmp_path / "journal.sqlite3-key"


@pytest.mark.parametrize("key", ["path", "sealing_key"])
def test_neither_the_journal_nor_the_key_is_this_configuration_file(
    tmp_path: Path, key: str
) -> None:
    source = tmp_path / "station.toml"
    data = document(tmp_path, **{key: str(source)})
    assert refusal(data, tmp_path) == f"journal.{key}: {source} is this configuration file"


@pytest.mark.parametrize("key", ["path", "sealing_key"])
def test_a_journal_or_key_that_is_a_symlink_is_refused(tmp_path: Path, key: str) -> None:
    """The station replaces them by rename: a link would leave what it points at behind."""
    (tmp_path / "real").write_text("x")
    link = tmp_path / "link"
    os.symlink(tmp_path / "real", link)
    assert refusal(document(tmp_path, **{key: str(link)}), tmp_path) == (
        f"journal.{key}: {link} is a symlink: name the file itself"
    )
    dangling = tmp_path / "dangling"
    os.symlink(tmp_path / "nowhere", dangling)
    assert refusal(document(tmp_path, **{key: str(dangling)}), tmp_path) == (
        f"journal.{key}: {dangling} is a symlink: name the file itself"
    )


@pytest.mark.parametrize("key", ["path", "sealing_key"])
def test_a_journal_or_key_that_is_a_directory_is_refused(tmp_path: Path, key: str) -> None:
    (tmp_path / "dir").mkdir()
    assert refusal(document(tmp_path, **{key: str(tmp_path / "dir")}), tmp_path) == (
        f"journal.{key}: {tmp_path / 'dir'} is a directory, not a file"
    )


def test_a_journal_that_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert refusal(document(tmp_path, path=str(fifo)), tmp_path) == (
        f"journal.path: {fifo} is not a regular file"
    )
    assert refusal(document(tmp_path, sealing_key=str(fifo)), tmp_path) == (
        f"journal.sealing_key: {fifo} is not a regular file"
    )


# --- the floor's files and the pairing directory ------------------------------------------------


@pytest.mark.parametrize("key", ["password_file", "ca_file"])
def test_a_floor_file_that_is_a_directory_is_refused(tmp_path: Path, key: str) -> None:
    (tmp_path / "dir").mkdir()
    data = with_floor(document(tmp_path), tmp_path, **{key: str(tmp_path / "dir")})
    assert refusal(data, tmp_path) == f"floor.{key}: {tmp_path / 'dir'} is a directory, not a file"


def test_the_floors_files_may_be_links(tmp_path: Path) -> None:
    """Only the journal and its key are replaced by rename: a credential may be a link."""
    (tmp_path / "real-password").write_text("pw\n")
    os.symlink(tmp_path / "real-password", tmp_path / "password")
    os.mkfifo(tmp_path / "ca.pem")  # read by the TLS library, not replaced
    parse(with_floor(document(tmp_path), tmp_path), tmp_path)


def test_without_tls_there_is_no_ca_file_to_check(tmp_path: Path) -> None:
    data = with_floor(document(tmp_path), tmp_path)
    del data["floor"]["ca_file"]
    data["floor"]["tls"] = False
    (tmp_path / "password").write_text("pw\n")
    config = parse(data, tmp_path)
    assert config.floor is not None and config.floor.ca_file is None


def test_a_pairing_directory_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pairing").write_text("x")
    assert refusal(document(tmp_path), tmp_path) == (
        f"pairing.directory: {tmp_path / 'pairing'} is not a directory"
    )
