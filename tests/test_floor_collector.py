"""The station's shipper and the floor's collector against a real mosquitto (TLS, passwords,
ACL) and a real PostgreSQL: rows arrive row for row, twice never; a station that forges,
rolls back or forks is quarantined with an alert; a station cannot write under another
table's topics."""

from __future__ import annotations

import dataclasses
import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from daemon_support import station_toml
from floor_fixtures import (  # running_collector: the `collector` fixture
    collector_config,
    database_rows,
    journal_rows,
    query,
    running_collector,  # noqa: F401
    simulate,
    simulated,
    station_settings,
)
from journal_tamper_support import tamper
from paho.mqtt.enums import CallbackAPIVersion

from controller.journal.format import Row, canonical_json
from controller.journal.seal import VerificationKey, new_sealing, save_state
from controller.journal.store import Journal
from controller.journal.wire import encode_rows
from controller.service.outbox import ack_path
from controller.service.shipper import Shipper
from floor.collector import Collector
from floor.servers import Broker, Database, free_port, wait_for


def shipped(shipper: Shipper, journal: Path, timeout: float = 30) -> bool:
    """Wait until the collector has acknowledged the journal's last row."""
    last = journal_rows(journal)[-1][0]
    return wait_for(lambda: shipper.acked >= last, timeout)


def test_a_simulated_table_arrives_row_for_row_with_its_house_result(
    tmp_path: Path, floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    journal = tmp_path / "t01.sqlite3"
    # The shipper starts before the station: it waits for the journal, then follows it.
    shipper = Shipper(journal, "T01", station_settings(floor_broker, "T01"))
    shipper.start()
    try:
        station = simulate(journal, 12, 5)
        assert station.wait(120) == 0, journal.with_suffix(".log").read_text()
        assert shipped(shipper, journal)
    finally:
        shipper.stop()
    assert database_rows(floor_database, "T01") == journal_rows(journal)
    # The house result per round, worked from the journal by hand here: minus the net of
    # every settled wager (hands, Match the Dealer, insurance).
    expected: dict[int, int] = {}
    for _id, _ts, kind, round_no, data, *_ in journal_rows(journal):
        if kind in ("settlement", "match_settled", "insurance"):
            net = json.loads(data).get("net_cents")
            expected[round_no] = expected.get(round_no, 0) - (net or 0)
    found = dict(
        query(floor_database, "SELECT round, house_cents FROM round_result WHERE table_id = 'T01'")
    )
    assert found == expected
    assert len(found) == 12
    # The acknowledgement is kept beside the journal, outside it.
    assert json.loads(ack_path(journal).read_text())["row"] == journal_rows(journal)[-1][0]
    (anchor,) = query(
        floor_database,
        "SELECT anchor_row, anchor_hash, quarantined FROM floor_table WHERE table_id = 'T01'",
    )
    assert anchor == (journal_rows(journal)[-1][0], journal_rows(journal)[-1][6], None)


def _raw_client(broker: Broker, user: str, password: str) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"raw-{user}", protocol=5)
    client.username_pw_set(user, password)
    client.tls_set(ca_certs=str(broker.ca_file))
    return client


def test_a_station_may_publish_only_under_its_own_table(
    tmp_path: Path, floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    journal = tmp_path / "t02.sqlite3"
    simulated(journal, 1, 7)
    rows = row_objects(journal)
    client = _raw_client(floor_broker, "T02", floor_broker.password_file("T02").read_text().strip())
    answers: dict[int, Any] = {}
    done = threading.Event()

    def on_publish(_c: Any, _u: Any, mid: int, reason: Any, _p: Any) -> None:
        answers[mid] = reason
        done.set()

    client.on_publish = on_publish
    client.connect("127.0.0.1", floor_broker.station_port)
    client.loop_start()
    try:
        # T02's password, T03's topic: the broker refuses it (MQTT v5 PUBACK 0x87).
        info = client.publish("floor/T03/rows", encode_rows("T03", rows), qos=1)
        assert done.wait(10)
        assert answers[info.mid].value == 0x87  # Not authorized
    finally:
        client.disconnect()
        client.loop_stop()
        client.reinitialise()
    assert database_rows(floor_database, "T03") == []


def row_objects(journal: Path) -> list[Row]:
    """The journal's rows as :class:`Row` objects."""
    from controller.journal.reader import JournalReader

    with JournalReader.open(journal) as reader:
        return list(reader.rows())


@pytest.mark.parametrize(
    ("user", "password", "tls"),
    [("T04", "wrong password", True), ("nobody", "x", True), ("T04", None, False)],
    ids=["wrong-password", "unknown-user", "no-tls"],
)
def test_the_broker_refuses_a_client_without_tls_or_credentials(
    floor_broker: Broker, user: str, password: str | None, tls: bool
) -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bad-{user}", protocol=5)
    client.username_pw_set(user, password or floor_broker.password_file(user).read_text().strip())
    if tls:
        client.tls_set(ca_certs=str(floor_broker.ca_file))
    refused = threading.Event()
    connected = threading.Event()

    def on_connect(_c: Any, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        (refused if reason.is_failure else connected).set()

    client.on_connect = on_connect
    client.on_disconnect = lambda *_: refused.set()
    try:
        client.connect("127.0.0.1", floor_broker.station_port)
        client.loop_start()
        assert refused.wait(10)
    except (OSError, mqtt.WebsocketConnectionError):
        pass  # the TLS port closes on a plain connection
    finally:
        client.loop_stop()
        client.disconnect()
        client.reinitialise()
    assert not connected.is_set()


def test_two_collectors_share_the_stations_without_double_rows(
    tmp_path: Path, floor_broker: Broker, floor_database: Database
) -> None:
    collectors = [
        Collector(collector_config(floor_broker, floor_database, f"collector-{n}")) for n in (1, 2)
    ]
    for each in collectors:
        each.start()
    tables = ("T05", "T06", "T07")
    journals = {t: tmp_path / f"{t}.sqlite3" for t in tables}
    stations = [simulate(journals[t], 6, n) for n, t in enumerate(tables)]
    shippers = [
        Shipper(journals[t], t, station_settings(floor_broker, t, batch_rows=50)) for t in tables
    ]
    try:
        for shipper in shippers:
            shipper.start()
        assert all(s.wait(120) == 0 for s in stations)
        assert all(shipped(s, journals[s.table]) for s in shippers)
    finally:
        for shipper in shippers:
            shipper.stop()
        for each in collectors:
            each.stop()
    for table in tables:
        assert database_rows(floor_database, table) == journal_rows(journals[table])
    # Both collectors took part (the broker shares messages round robin).
    assert all(each.stored > 0 for each in collectors)


def _cut(journal: Path, keep: int, to: Path) -> None:
    """A copy of ``journal`` holding only its first ``keep`` rows (a station restored
    from an old backup, or whose journal lost its end)."""
    shutil.copy(journal, to)
    tamper(to, f"DELETE FROM journal WHERE id > {keep}")


def test_a_station_behind_its_anchor_then_forking_is_quarantined_not_merged(
    tmp_path: Path, floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    journal = tmp_path / "t08.sqlite3"
    simulated(journal, 4, 11)
    shipper = Shipper(journal, "T08", station_settings(floor_broker, "T08"))
    shipper.start()
    try:
        assert shipped(shipper, journal)
    finally:
        shipper.stop()
    original = journal_rows(journal)
    # Restored as it stood after round 2 (a backup is taken between rounds).
    keep = next(r[0] for r in original if r[2] == "round_completed" and r[3] == 2)
    restored = tmp_path / "restored" / "t08.sqlite3"
    restored.parent.mkdir()
    _cut(journal, keep, restored)
    shipper = Shipper(restored, "T08", station_settings(floor_broker, "T08"))
    shipper.start()
    try:
        assert wait_for(
            lambda: query(floor_database, "SELECT 1 FROM alert WHERE table_id = 'T08'"), 15
        )
        # The restored station goes on and writes its own row where the floor has another.
        with Journal.open(restored) as station:
            station.append("dealer_change", {})
        assert wait_for(
            lambda: query(
                floor_database,
                "SELECT 1 FROM quarantine_row WHERE table_id = 'T08' AND row_id = %s",
                keep + 1,
            ),
            15,
        )
    finally:
        shipper.stop()
    alerts = [
        m for (m,) in query(floor_database, "SELECT message FROM alert WHERE table_id = 'T08'")
    ]
    assert alerts[0].startswith("rolled back or truncated")
    assert f"last row is {keep}" in alerts[0]
    (quarantined,) = query(
        floor_database, "SELECT quarantined FROM floor_table WHERE table_id = 'T08'"
    )
    assert quarantined[0] is not None
    # The floor's copy is untouched; the new row sits in quarantine only.
    assert database_rows(floor_database, "T08") == original
    # The quarantine holds what the station sent since: its restored rows and its new one.
    held = query(
        floor_database,
        "SELECT row_id, kind FROM quarantine_row WHERE table_id = 'T08' ORDER BY row_id",
    )
    assert held[-1] == (keep + 1, "dealer_change")
    assert [row_id for row_id, _ in held] == list(range(held[0][0], keep + 2))


def test_a_forged_row_breaks_the_chain_and_quarantines_the_table(
    tmp_path: Path, floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    journal = tmp_path / "t09.sqlite3"
    simulated(journal, 1, 13)
    rows = row_objects(journal)
    # A changed amount with the old hash: what an attacker without the chain would send.
    data = json.loads(rows[5].data_text)
    data["forged"] = 1
    forged = [*rows[:5], dataclasses.replace(rows[5], data_text=canonical_json(data))]
    client = _raw_client(floor_broker, "T09", floor_broker.password_file("T09").read_text().strip())
    client.connect("127.0.0.1", floor_broker.station_port)
    client.loop_start()
    try:
        client.publish("floor/T09/rows", encode_rows("T09", forged), qos=1).wait_for_publish(10)
        assert wait_for(
            lambda: query(floor_database, "SELECT kind FROM alert WHERE table_id = 'T09'"), 15
        )
    finally:
        client.disconnect()
        client.loop_stop()
        client.reinitialise()
    assert query(floor_database, "SELECT kind FROM alert WHERE table_id = 'T09'") == [("chain",)]
    assert database_rows(floor_database, "T09") == journal_rows(journal)[:5]


def _sealed_journal(directory: Path, table: str) -> tuple[Path, VerificationKey]:
    """A journal sealed as a station seals it (``journal setup-keys``), three rounds."""
    state, key = new_sealing(table)
    save_state(directory / "sealing-key", state)
    journal = directory / f"{table}.sqlite3"
    with Journal.open(journal, sealing=directory / "sealing-key") as station:
        station.append("station_started", {"table_id": table})
        for number in (1, 2, 3):
            station.append("round_started", {"round": number, "seats": []}, number)
            station.append("round_completed", {"reshuffle": False}, number)
    return journal, key


@pytest.mark.parametrize("right_key", [True, False], ids=["its-key", "another-key"])
def test_seals_are_checked_with_the_tables_verification_key(
    tmp_path: Path, floor_broker: Broker, floor_database: Database, right_key: bool
) -> None:
    table = "T10" if right_key else "T11"
    journal, key = _sealed_journal(tmp_path, table)
    floor_key = key if right_key else new_sealing(table)[1]
    collector = Collector(
        collector_config(floor_broker, floor_database, keys={table: floor_key.to_text()})
    )
    collector.start()
    shipper = Shipper(journal, table, station_settings(floor_broker, table))
    shipper.start()
    rows = journal_rows(journal)
    seals = [r for r in rows if r[2] == "seal"]
    assert len(seals) == 4  # after the start and after each round
    try:
        # Either way the station's every row is held and acknowledged (merged or evidence).
        assert shipped(shipper, journal)
    finally:
        shipper.stop()
        collector.stop()
    (sealed,) = query(
        floor_database,
        "SELECT sealed_row, seal_epoch, quarantined FROM floor_table WHERE table_id = %s",
        table,
    )
    if right_key:
        assert database_rows(floor_database, table) == rows
        assert sealed == (seals[-1][0], 4, None)
    else:
        # Rows are merged only under a seal that checks: with none, nothing is merged. The
        # first row waits for a seal that checks; the failed seal and all that follows it
        # are held as evidence; the failures raise one alert (counted again).
        assert database_rows(floor_database, table) == []
        assert sealed == (0, 0, None)
        held = query(
            floor_database,
            "SELECT row_id FROM quarantine_row WHERE table_id = %s ORDER BY row_id",
            table,
        )
        assert [r for (r,) in held] == [r[0] for r in rows[1:]]
        waiting = query(floor_database, "SELECT row_id FROM pending_row WHERE table_id = %s", table)
        assert waiting == [(1,)]
        (alert,) = query(
            floor_database, "SELECT kind, message FROM alert WHERE table_id = %s", table
        )
        assert alert[0] == "seal" and "MAC of epoch 0 does not match" in alert[1]


def test_the_daemon_ships_its_journal_when_floor_is_configured(
    tmp_path: Path, floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    """``dealer-station run`` with ``[floor]``: its shipper thread sends the journal while
    the station runs; SIGTERM still ends in a clean shutdown."""
    journal = tmp_path / "t12.sqlite3"
    config = station_toml(tmp_path, journal)
    with config.open("a") as text:
        text.write(
            f'\n[floor]\nbroker = "127.0.0.1"\nport = {floor_broker.station_port}\n'
            f'ca_file = "{floor_broker.ca_file}"\nusername = "T12"\n'
            f'password_file = "{floor_broker.password_file("T12")}"\nack_timeout_seconds = 1\n'
        )
    config.write_text(config.read_text().replace('table_id = "PA-S21-07"', 'table_id = "T12"'))
    daemon = subprocess.Popen(
        [sys.executable, "-m", "controller.cli.main", "run", "--simulated-devices",
         "--config", str(config)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        # Rows before the first round leave at once: the start, the devices, the shuffle.
        assert wait_for(lambda: len(database_rows(floor_database, "T12")) >= 5, 30)
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(30) == 0
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
    stored = database_rows(floor_database, "T12")
    assert stored == journal_rows(journal)[: len(stored)]
    assert [r[2] for r in stored][:2] == ["verified", "station_started"]


def test_a_floor_password_file_that_cannot_be_read_refuses_the_start(tmp_path: Path) -> None:
    config = station_toml(tmp_path, tmp_path / "journal.sqlite3")
    with config.open("a") as text:
        text.write(
            '\n[floor]\nbroker = "127.0.0.1"\ntls = false\nusername = "T13"\n'
            f'password_file = "{tmp_path / "missing"}"\n'
        )
    result = subprocess.run(
        [sys.executable, "-m", "controller.cli.main", "run", "--simulated-devices",
         "--config", str(config)],
        check=False, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("dealer-station run: floor.password_file: ") and "missing" in line


def test_a_station_whose_broker_is_gone_deals_and_stops_as_without_one(tmp_path: Path) -> None:
    """The broker's port is closed: the daemon starts, journals, and stops on SIGTERM as
    usual; the shipper keeps trying in its own thread and holds nothing up."""
    journal = tmp_path / "t14.sqlite3"
    config = station_toml(tmp_path, journal)
    (tmp_path / "password").write_text("secret\n")
    with config.open("a") as text:
        text.write(
            f'\n[floor]\nbroker = "127.0.0.1"\nport = {free_port()}\ntls = false\n'
            f'username = "T14"\npassword_file = "{tmp_path / "password"}"\n'
        )
    daemon = subprocess.Popen(
        [sys.executable, "-m", "controller.cli.main", "run", "--simulated-devices",
         "--config", str(config)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert wait_for(lambda: "shuffle_done" in [r[2] for r in _rows_or_none(journal)], 30)
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(30) == 0
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
    assert journal_rows(journal)[-1][2] == "clean_shutdown"
    assert not ack_path(journal).exists()  # nothing was acknowledged: all of it goes later


def _rows_or_none(journal: Path) -> list[tuple[Any, ...]]:
    try:
        return journal_rows(journal)
    except sqlite3.Error:
        return []
