"""The broker's configuration as shipped and the runnable copy the tests, the bench and
``make floor-demo`` make of it (``floor.broker``), without starting mosquitto: the copy is the
shipped text with only its directory and two ports changed (each change finds its one line or
the copy is refused), the accounts' password files hashed by ``mosquitto_passwd``, and the
shipped collectors' block once per collector account. docs/floor.md ("The broker") describes
the shipped files; ``tests/test_floor_collector.py`` runs a broker from such a copy.
"""

from __future__ import annotations

import subprocess
from importlib import resources
from pathlib import Path

import pytest

from floor import broker
from floor.broker import (
    COLLECTOR_LISTENER,
    MOUNT_POINT,
    PRODUCTION_DIR,
    STATION_LISTENER,
    broker_config,
    collector_block,
    shipped,
    write_broker_files,
)

BLOCK = (
    "topic read station/floor/+/rows\n"
    "topic read station/floor/+/status\n"
    "topic write station/floor/+/ack\n"
)


def _file(name: str) -> str:
    return (resources.files("floor.broker") / name).read_text(encoding="utf-8")


def test_the_shipped_files_are_read_as_they_are() -> None:
    for name in ("mosquitto.conf", "stations.acl", "collectors.acl"):
        assert shipped(name) == _file(name)
    assert shipped("mosquitto.conf").count("listener 8883\n") == 1
    assert (STATION_LISTENER, COLLECTOR_LISTENER) == ("listener 8883\n", "listener 8884\n")
    assert (PRODUCTION_DIR, MOUNT_POINT) == ("/etc/mosquitto/dealer-station/", "station/")


def test_each_collector_account_reads_the_stations_rows_and_status_and_writes_their_acks() -> None:
    assert collector_block() == BLOCK


@pytest.mark.parametrize(
    "acl",
    [
        "user c1\ntopic read a\n\nuser c2\ntopic read b\n",
        "user c1\ntopic read a\t\nuser c2\ntopic read a\n",  # a tab is a difference
        "user c1\ntopic read aX\nuser c2\ntopic read a\n",
        "# no block at all\n",
        "user c1\ntopic read a\nuser c2\ntopic read a\ntopic write b\n",
    ],
)
def test_collector_blocks_that_differ_or_are_missing_are_refused(
    acl: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(broker, "shipped", lambda name: acl)
    with pytest.raises(
        ValueError, match=r"^collectors\.acl: every collector block must be the same$"
    ):
        collector_block()


def test_blocks_that_differ_only_by_blank_lines_around_them_are_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    acl = "# header\nuser c1\ntopic read a\n\n\nuser c2\n\ntopic read a\nuser c3\ntopic read a"
    monkeypatch.setattr(broker, "shipped", lambda name: acl)
    assert collector_block() == "topic read a\n"


def test_the_copy_listens_on_localhost_at_the_given_ports_with_its_files_in_the_directory(
    tmp_path: Path,
) -> None:
    text = broker_config(tmp_path, 18883, 18884, "log_type all\n")
    expected = (
        _file("mosquitto.conf")
        .replace("listener 8883\n", "listener 18883 127.0.0.1\n")
        .replace("listener 8884\n", "listener 18884 127.0.0.1\n")
        .replace("/etc/mosquitto/dealer-station/", f"{tmp_path}/")
    )
    first = expected.index("\nlistener ")
    assert text == expected[:first] + "\nlog_type all\n" + expected[first:]
    assert "/etc/mosquitto/dealer-station" not in text
    assert f"password_file {tmp_path}/stations.passwd\n" in text
    assert text.index("log_type all") < text.index("listener 18883 127.0.0.1")


def test_without_extra_lines_a_blank_line_comes_before_the_first_listener(tmp_path: Path) -> None:
    text = broker_config(tmp_path, 1, 2, "")
    assert text.count("\n\nlistener 1 127.0.0.1\n") == 1
    assert text.replace("\n\nlistener 1 127.0.0.1\n", "\nlistener 1 127.0.0.1\n") == (
        broker_config(tmp_path, 1, 2, "X\n").replace("\nX\n", "")
    )


@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        (lambda t: t.replace("listener 8883\n", ""), "expected one 'listener 8883'"),
        (lambda t: t + "listener 8883\n", "expected one 'listener 8883'"),
        (lambda t: t.replace("listener 8884\n", "listener 9884\n"), "expected one 'listener 8884'"),
        (lambda t: t.replace("/etc/mosquitto/dealer-station/", "/srv/"), "no file under /etc/"),
    ],
)
def test_a_shipped_file_whose_lines_moved_is_refused_rather_than_copied_wrong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: object, refusal: str
) -> None:
    text = change(_file("mosquitto.conf"))  # type: ignore[operator]
    monkeypatch.setattr(broker, "shipped", lambda name: text)
    with pytest.raises(ValueError, match=f"^mosquitto.conf: {refusal}"):
        broker_config(tmp_path, 1, 2, "")


def test_the_files_written_for_a_broker(tmp_path: Path) -> None:
    config = write_broker_files(
        tmp_path,
        stations={"T01": "pw-one", "T02": "pw-two"},
        collectors={"collector-a": "ca", "collector-b": "cb"},
        station_port=18883,
        collector_port=18884,
        extra="log_dest stderr\n",
    )
    assert config == tmp_path / "mosquitto.conf"
    assert config.read_text(encoding="utf-8") == broker_config(
        tmp_path, 18883, 18884, "log_dest stderr\n"
    )
    assert (tmp_path / "stations.acl").read_text(encoding="utf-8") == _file("stations.acl")
    assert (tmp_path / "collectors.acl").read_text(encoding="utf-8") == (
        f"user collector-a\n{BLOCK}\nuser collector-b\n{BLOCK}\n"
    )
    for name, accounts in (
        ("stations", ["T01", "T02"]),
        ("collectors", ["collector-a", "collector-b"]),
    ):
        lines = (tmp_path / f"{name}.passwd").read_text().splitlines()
        assert [line.split(":")[0] for line in lines] == accounts
        hashes = [line.split(":", 1)[1] for line in lines]
        assert all(h.startswith("$") for h in hashes), "hashed in place, no password in clear"
        assert not any(pw in "".join(lines) for pw in ("pw-one", "pw-two", ":ca", ":cb"))


def test_without_mosquitto_passwd_the_files_are_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    with pytest.raises(FileNotFoundError, match=r"^mosquitto_passwd is not installed"):
        write_broker_files(
            tmp_path,
            stations={"T01": "a"},
            collectors={"c": "b"},
            station_port=1,
            collector_port=2,
        )


def test_a_password_file_mosquitto_passwd_refuses_is_an_error(tmp_path: Path) -> None:
    # An account name holding a line break makes a line mosquitto_passwd cannot read.
    with pytest.raises(subprocess.CalledProcessError):
        write_broker_files(
            tmp_path,
            stations={"T01\nT02": "a"},
            collectors={"c": "b"},
            station_port=1,
            collector_port=2,
        )


def test_the_files_written_without_extra_lines_hold_the_shipped_configuration(
    tmp_path: Path,
) -> None:
    config = write_broker_files(
        tmp_path, stations={"T01": "a"}, collectors={"c": "b"}, station_port=1, collector_port=2
    )
    assert config.read_text(encoding="utf-8") == broker_config(tmp_path, 1, 2, "")


def test_mosquitto_passwds_refusal_is_kept_with_the_error_not_printed(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(subprocess.CalledProcessError) as raised:
        write_broker_files(
            tmp_path,
            stations={"T01\nT02": "a"},
            collectors={"c": "b"},
            station_port=1,
            collector_port=2,
        )
    assert b"Corrupt password file" in raised.value.stderr
    assert capfd.readouterr() == ("", "")


def test_the_shipped_files_are_ascii() -> None:
    for name in ("mosquitto.conf", "stations.acl", "collectors.acl"):
        assert (resources.files("floor.broker") / name).read_bytes().isascii(), name
