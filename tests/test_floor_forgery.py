"""Forged rows against a floor that holds the tables' verification keys, on a real broker
and PostgreSQL, with real sealed journals: rows between seals are never trusted, so a
round forged with a station's password alone is never merged and never displaces the
station's sealed rows; a history re-sealed with a copied key is caught (its seals are
checked even as evidence) and quarantined; and the floor's operator commands release a
quarantine and clear an alert, recorded."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from floor_fixtures import (
    RawClient,
    collector_config,
    database_rows,
    execute,
    journal_rows,
    open_alerts,
    query,
    running_collector,  # noqa: F401 (the collector fixture)
    simulated,
    started,
    station_settings,
    write_floor_toml,
)

from controller.journal.format import Row, canonical_json, row_hash
from controller.journal.reader import JournalReader
from controller.journal.seal import VerificationKey, new_sealing, save_state
from controller.journal.store import Journal
from controller.journal.wire import Status, encode_rows, encode_status
from controller.service.outbox import ack_path, save_ack
from controller.service.shipper import Shipper
from controller.simulation.runner import verification_key_path
from floor.collector import Collector
from floor.servers import Broker, Database, wait_for

#: Tables whose verification key the floor holds in this module.
SEALED = ("T02", "T03", "T04", "T05", "T06")


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, VerificationKey]]:
    """A sealing state file and verification key per sealing table (``journal setup-keys``)."""
    made = {}
    for table in SEALED:
        state, key = new_sealing(table)
        path = tmp_path_factory.mktemp(table) / "sealing-key"
        save_state(path, state)
        made[table] = (path, key)
    return made


def collector_with(broker: Broker, database: Database, keys: dict[str, str]) -> Collector:
    return Collector(collector_config(broker, database, keys=keys))


def rows_of(journal: Path) -> list[Row]:
    with JournalReader.open(journal) as reader:
        return list(reader.rows())


def ship(journal: Path, table: str, broker: Broker, timeout: float = 60) -> None:
    """Ship the whole journal with the station's real shipper, until acknowledged."""
    shipper = Shipper(journal, table, station_settings(broker, table))
    shipper.start()
    try:
        last = rows_of(journal)[-1].id
        assert wait_for(lambda: shipper.acked >= last, timeout)
    finally:
        shipper.stop()


def forged_round(after: Row, number: int, net_cents: int) -> list[Row]:
    """A round chained after ``after`` as anyone with the journal format can make it: the
    chain hash has no key. The house loses ``-net_cents``."""
    records = [
        ("round_started", {"round": number, "seats": [1]}, number),
        ("settlement", {"seat": 1, "net_cents": net_cents}, number),
        ("round_completed", {"reshuffle": False}, number),
    ]
    rows: list[Row] = []
    prev = after
    for kind, fields, round_no in records:
        row_id, text = prev.id + 1, canonical_json(fields)
        ts = prev.ts  # as good a time as any
        digest = row_hash(prev.hash, row_id=row_id, ts=ts, kind=kind, round_no=round_no,
                          data_text=text)  # fmt: skip
        prev = Row(row_id, ts, kind, round_no, text, prev.hash, digest)
        rows.append(prev)
    return rows


def house(database: Database, table: str) -> dict[int, int]:
    found = query(
        database, "SELECT round, house_cents FROM round_result WHERE table_id = %s", table
    )
    return dict(found)


@pytest.mark.parametrize("with_seal", [False, True], ids=["no-seal", "forged-seal"])
def test_a_round_forged_with_a_password_alone_never_displaces_the_sealed_one(
    tmp_path: Path, floor_broker: Broker, floor_database: Database, with_seal: bool
) -> None:
    table = "T05" if with_seal else "T06"
    journal = simulated(tmp_path / f"{table.lower()}.sqlite3", 1, 5)
    key = verification_key_path(journal).read_text().strip()
    collector = collector_with(floor_broker, floor_database, {table: key})
    started(collector)
    genuine = rows_of(journal)
    first_seal = next(r for r in genuine if r.kind == "seal")
    # Whoever holds T's password (not its key) sends the journal's sealed start, then a
    # round of its own, chained: the house loses $50,000.
    forged = forged_round(first_seal, 1, 5_000_000)
    if with_seal:
        bogus = canonical_json({"epoch": 1, "head": forged[-1].hash, "mac": "0" * 64,
                                "row": forged[-1].id, "table": table})  # fmt: skip
        digest = row_hash(forged[-1].hash, row_id=forged[-1].id + 1, ts=forged[-1].ts,
                          kind="seal", round_no=None, data_text=bogus)  # fmt: skip
        forged.append(Row(forged[-1].id + 1, forged[-1].ts, "seal", None, bogus,
                          forged[-1].hash, digest))  # fmt: skip
    try:
        with RawClient(floor_broker, table) as forger:
            head = genuine[: first_seal.id]
            assert forger.publish(f"floor/{table}/rows", encode_rows(table, head + forged)) == 0
            # The sealed start is merged; the forged round only waits for a seal.
            assert wait_for(lambda: len(database_rows(floor_database, table)) == first_seal.id, 15)
            assert wait_for(
                lambda: query(floor_database, "SELECT 1 FROM pending_row WHERE table_id = %s",
                              table), 15)  # fmt: skip
        assert house(floor_database, table) == {}
        ship(journal, table, floor_broker)  # the station's own rows and seals
    finally:
        collector.stop()
    assert database_rows(floor_database, table) == journal_rows(journal)
    # The house result is the station's (worked from its journal), not the forger's.
    expected = -sum(
        r.data.get("net_cents") or 0
        for r in genuine
        if r.kind in ("settlement", "match_settled", "insurance")
    )
    assert house(floor_database, table) == {1: expected}
    sql = "SELECT row_id, hash FROM quarantine_row WHERE table_id = %s"
    held = set(query(floor_database, sql, table))
    assert {(r.id, r.hash) for r in forged} <= held
    message, _ = open_alerts(floor_database, table)["seal"]
    assert "never sealed" in message or "MAC" in message
    assert query(floor_database, "SELECT 1 FROM pending_row WHERE table_id = %s", table) == []
    (why,) = query(floor_database, "SELECT quarantined FROM floor_table WHERE table_id = %s", table)
    assert why == (None,)  # the table goes on: the branch with valid seals won


def _sealed_rounds(journal: Journal, first: int, net_cents: int, rounds: int = 1) -> None:
    for number in range(first, first + rounds):
        journal.append("round_started", {"round": number, "seats": [1]}, number)
        journal.append("settlement", {"seat": 1, "net_cents": net_cents}, number)
        journal.append("round_completed", {"reshuffle": False}, number)


def two_histories(
    directory: Path, table: str, key_file: Path, rounds_before_copy: int
) -> tuple[Path, Path]:
    """The station's sealed journal, and an insider's copy of it and its key file taken
    after ``rounds_before_copy`` rounds; then each deals one more round of its own (the
    copy's house losing $50,000). Returns (the station's journal, the copy)."""
    station, insider = directory / "station", directory / "insider"
    station.mkdir()
    shutil.copy(key_file, station / "sealing-key")
    journal = station / f"{table.lower()}.sqlite3"
    with Journal.open(journal, sealing=station / "sealing-key") as writer:
        writer.append("station_started", {"table_id": table})
        _sealed_rounds(writer, 1, 100, rounds_before_copy)
    shutil.copytree(station, insider)  # journal, head record and key file, as they stand
    copy = insider / journal.name
    for path, net in ((journal, 100), (copy, 5_000_000)):
        with Journal.open(path, sealing=path.with_name("sealing-key")) as writer:
            _sealed_rounds(writer, rounds_before_copy + 1, net)
    return journal, copy


def test_a_history_resealed_with_a_copied_key_is_caught_and_quarantined(
    tmp_path: Path,
    floor_broker: Broker,
    floor_database: Database,
    keys: dict[str, tuple[Path, VerificationKey]],
) -> None:
    """An insider copies the journal and its key file after round 1; the station deals
    round 2 and ships it; the insider deals another round 2 on the copy (its seals are
    valid: the key of that epoch) and ships it with the station's password. The floor keeps
    the station's sealed rows, holds the copy's as evidence, checks their seals, and
    quarantines the table: a sealed history that is not the floor's."""
    table = "T04"
    key_file, key = keys[table]
    journal, copy = two_histories(tmp_path, table, key_file, 1)
    collector = collector_with(floor_broker, floor_database, {table: key.to_text()})
    started(collector)
    try:
        ship(journal, table, floor_broker)
        ship(copy, table, floor_broker)  # acknowledged: held as evidence
    finally:
        collector.stop()
    assert database_rows(floor_database, table) == journal_rows(journal)
    (why,) = query(floor_database, "SELECT quarantined FROM floor_table WHERE table_id = %s", table)
    assert "forked with a valid seal of epoch 2" in why[0]
    assert "rollback" in open_alerts(floor_database, table)


def test_an_anchor_that_disagrees_with_the_sealed_rows_raises_a_fork_alert(
    tmp_path: Path,
    floor_broker: Broker,
    floor_database: Database,
    keys: dict[str, tuple[Path, VerificationKey]],
) -> None:
    """The station's status carries its latest seal as soon as it is written. Here the
    floor hears the station's anchor first, then a copy re-sealed with a copied key wins
    the race with its rows: the rows merge (their seals check), and the anchor shows the
    floor they are not the station's."""
    table = "T03"
    key_file, key = keys[table]
    journal, copy = two_histories(tmp_path, table, key_file, 0)
    seal = rows_of(journal)[-1]
    assert seal.kind == "seal"
    collector = collector_with(floor_broker, floor_database, {table: key.to_text()})
    started(collector)
    try:
        with RawClient(floor_broker, table) as status:
            # The station's status with its anchor: the row is not on the floor yet.
            anchor = (seal.id, 1, seal.hash)
            message = Status(table, seal.ts, "deal", 1, None, {}, (seal.id, seal.hash), 0, anchor)
            assert status.publish(f"floor/{table}/status", encode_status(message)) == 0
            assert wait_for(
                lambda: query(floor_database, "SELECT station_anchors FROM floor_table"
                              " WHERE table_id = %s", table) == [([[seal.id, 1, seal.hash]],)],
                15,
            )  # fmt: skip
        ship(copy, table, floor_broker)
    finally:
        collector.stop()
    message, _ = open_alerts(floor_database, table)["rollback"]
    # Whichever the floor saw first: the anchor against the merged row, or two anchors
    # for one row (the copy's shipper sends its own).
    assert message.startswith("forked") and f"row {seal.id} (epoch 1)" in message
    (why,) = query(floor_database, "SELECT quarantined FROM floor_table WHERE table_id = %s", table)
    assert why == (message,)


def floor_command(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli.main", "floor", *args, "--config", str(config)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_an_operator_releases_a_quarantine_and_clears_an_alert_on_the_record(
    tmp_path: Path, floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    table = "T07"
    config = write_floor_toml(floor_broker, floor_database, tmp_path / "floor.toml", "collector-3")
    journal = tmp_path / "t07.sqlite3"
    with Journal.open(journal) as writer:
        writer.append("station_started", {"table_id": table})
    # A forged row with a broken hash: the table is quarantined.
    first = rows_of(journal)[0]
    with RawClient(floor_broker, table) as forger:
        broken = Row(1, first.ts, first.kind, None, first.data_text, first.prev_hash, "f" * 64)
        forger.publish(f"floor/{table}/rows", encode_rows(table, [broken]))
    assert wait_for(lambda: "chain" in open_alerts(floor_database, table), 15)
    listed = floor_command(config, "alerts")
    assert listed.returncode == 0, listed.stderr
    line = next(x for x in listed.stdout.splitlines() if f"\t{table}\tchain\t" in x)
    alert = line.split("\t")[0]
    assert f"quarantined\t{table}\tchain broken: row 1" in listed.stdout
    # Refused without a reason (2), for a table that is not quarantined, an alert not open (1).
    assert floor_command(config, "release", table).returncode == 2
    for args in (["release", "T08", "--reason", "x"], ["clear-alert", "999999", "--reason", "x"]):
        refused = floor_command(config, *args)
        assert refused.returncode == 1 and len(refused.stderr.splitlines()) == 1
    released = floor_command(config, "release", table, "--reason", "forged row, password changed",
                             "--by", "pat")  # fmt: skip
    assert released.returncode == 0, released.stderr
    assert "released T07 (was: chain broken: row 1" in released.stdout
    again = floor_command(config, "release", table, "--reason", "twice")
    assert again.returncode == 1 and "not quarantined" in again.stderr
    cleared = floor_command(config, "clear-alert", alert, "--reason", "seen", "--by", "pat")
    assert cleared.returncode == 0, cleared.stderr
    assert open_alerts(floor_database, table) == {}
    actions = query(
        floor_database,
        "SELECT operator, action, reason FROM operator_action WHERE table_id = %s ORDER BY id",
        table,
    )
    assert actions == [
        ("pat", "release", "forged row, password changed"),
        ("pat", "clear-alert", "seen"),
    ]
    # Released: the station's own rows are checked from the anchor again, and merged.
    ship(journal, table, floor_broker)
    assert database_rows(floor_database, table) == journal_rows(journal)


def test_waiting_rows_lost_in_a_crash_are_asked_for_again(
    tmp_path: Path, floor_broker: Broker, floor_database: Database
) -> None:
    """``pending_row`` is unlogged: a crash of PostgreSQL empties it. The station's next
    rows then miss their parent, the floor asks for the rows after the last checked seal,
    and the station's journal arrives whole."""
    table = "T02"
    journal = simulated(tmp_path / "t02.sqlite3", 2, 2)
    key = verification_key_path(journal).read_text().strip()
    collector = started(collector_with(floor_broker, floor_database, {table: key}))
    rows = rows_of(journal)
    first_round_end = next(r.id for r in rows if r.kind == "round_completed")
    try:
        with RawClient(floor_broker, table) as station:
            # Up to the middle of round 1: its rows wait for their seal, acknowledged.
            part = encode_rows(table, rows[: first_round_end - 5])
            assert station.publish(f"floor/{table}/rows", part) == 0
            waiting = "SELECT 1 FROM pending_row WHERE table_id = %s"
            assert wait_for(lambda: query(floor_database, waiting, table), 15)
        execute(floor_database, f"DELETE FROM pending_row WHERE table_id = '{table}'")
        # The station goes on from what was acknowledged (its ack file says so): the floor
        # lacks the parent of its next row and asks for the rows after the last seal.
        held = rows[first_round_end - 6]
        save_ack(ack_path(journal), held.id, held.hash)
        ship(journal, table, floor_broker)
    finally:
        collector.stop()
    assert database_rows(floor_database, table) == journal_rows(journal)
