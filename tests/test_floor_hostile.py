"""One station's account against the floor, on a real mosquitto (started from the shipped
configuration) and a real PostgreSQL: nothing it sends stops or slows another table's
ingest or kills a collector thread; it cannot take over another client's connection, join
the collectors' shared subscription, send oversize messages, freeze its status with its
clock, or ship rows under another table's name."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from floor_fixtures import (
    RawClient,
    chained,
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
)

from controller.journal.format import GENESIS_HASH, Row, format_ts
from controller.journal.store import Journal
from controller.journal.wire import Status, encode_rows, encode_status
from controller.service.shipper import Shipper
from floor.collector import Collector
from floor.servers import Broker, Database, wait_for


def _status_payload(table: str, fault: object) -> bytes:
    return json.dumps(
        {"v": 1, "table": table, "ts": format_ts(datetime.now(UTC)), "state": "deal",
         "round": 1, "fault": fault, "devices": {}, "head": [0, ""], "acked": 0}
    ).encode()  # fmt: skip


def _bad_row(table: str, text: str) -> bytes:
    return encode_rows(table, [Row(1, "2026-12-01T04:00:00.000000Z", "device", None, text,
                                   GENESIS_HASH, "a" * 64)])  # fmt: skip


#: What one station's account sends, the topic kind, and the alert it must raise.
POISONS: dict[str, Callable[[str], tuple[str, bytes, str]]] = {
    "lone-surrogate-in-a-row": lambda t: ("rows", _bad_row(t, '{"a":"\ud800"}'), "malformed"),
    "nul-in-a-row": lambda t: ("rows", _bad_row(t, '{"a":"\x00"}'), "malformed"),
    "net-cents-not-whole": lambda t: (
        "rows",
        encode_rows(
            t,
            chained(
                [
                    ("station_started", {"table_id": t}, None),
                    ("settlement", {"net_cents": "12"}, 1),
                ]
            ),
        ),
        "malformed",
    ),
    "status-fault-code-of-the-wrong-type": lambda t: (
        "status",
        _status_payload(t, {"code": 7, "state": "deal"}),
        "malformed",
    ),
    "lone-surrogate-in-a-status-fault-code": lambda t: (
        "status",
        _status_payload(t, {"code": "\ud800", "state": "deal"}),
        "malformed",
    ),
    "200-kB-of-nested-json": lambda t: (
        "rows",
        b'{"v":1,"table":"' + t.encode() + b'","rows":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "malformed",
    ),
}


def shipped(shipper: Shipper, journal: Path, timeout: float = 60) -> bool:
    last = journal_rows(journal)[-1][0]
    return wait_for(lambda: shipper.acked >= last, timeout)


@pytest.mark.parametrize("case", list(POISONS))
def test_a_poisoned_table_never_stops_the_others(
    tmp_path: Path,
    floor_broker: Broker,
    floor_database: Database,
    collector: Collector,
    case: str,
) -> None:
    number = 14 + 2 * list(POISONS).index(case)
    genuine, poisoned = f"T{number:02d}", f"T{number + 1:02d}"
    journal = simulated(tmp_path / f"{genuine.lower()}.sqlite3", 3, number)
    kind, payload, alert = POISONS[case](poisoned)
    stop = threading.Event()
    with RawClient(floor_broker, poisoned) as attacker:

        def again_and_again() -> None:
            while not stop.wait(0.05):  # the attacker's pace: every 50 ms
                attacker.client.publish(f"floor/{poisoned}/{kind}", payload, qos=1)

        pounding = threading.Thread(target=again_and_again)
        pounding.start()
        shipper = Shipper(journal, genuine, station_settings(floor_broker, genuine))
        shipper.start()
        try:
            assert shipped(shipper, journal)
            assert wait_for(lambda: alert in open_alerts(floor_database, poisoned), 15)
            if kind != "rows" or case != "net-cents-not-whole":
                # Each copy is recorded once and counted, never stored as rows.
                assert wait_for(
                    lambda: query(
                        floor_database,
                        "SELECT 1 FROM refused_message WHERE table_id = %s AND times > 1",
                        poisoned,
                    ),
                    15,
                )
        finally:
            stop.set()
            pounding.join()
            shipper.stop()
    assert database_rows(floor_database, genuine) == journal_rows(journal)
    assert collector.healthy() and collector.failure is None
    assert [(r[2]) for r in database_rows(floor_database, poisoned)] in ([], ["station_started"])
    if case == "net-cents-not-whole":
        # Well chained, but not whole cents: held as evidence, never summed, quarantined.
        held = query(
            floor_database, "SELECT kind FROM quarantine_row WHERE table_id = %s", poisoned
        )
        assert ("settlement",) in held
        (why,) = query(floor_database, "SELECT quarantined FROM floor_table WHERE table_id = %s",
                       poisoned)  # fmt: skip
        assert "net_cents '12' is not whole cents" in why[0]
        assert (
            query(floor_database, "SELECT 1 FROM round_result WHERE table_id = %s", poisoned) == []
        )


def test_no_client_can_take_over_another_clients_connection(
    floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    """mosquitto 2.0.11 lets a client with any account disconnect whoever holds the client
    id it names; the shipped configuration makes the id the account name."""
    with RawClient(floor_broker, "T28", client_id="T28") as victim:
        victim.client.subscribe("floor/T28/ack", qos=1)
        assert victim.subscribed.wait(10)
        # T29's password, naming itself after station T28 and after the collector.
        for name in ("T28", "collector", "collector-1"):
            with RawClient(floor_broker, "T29", client_id=name) as thief:
                assert thief.connected.is_set()
        # The victim still delivers, and the collector still takes it in and answers.
        rows = chained([("station_started", {"table_id": "T28"}, None)])
        assert victim.publish("floor/T28/rows", encode_rows("T28", rows)) == 0
        assert wait_for(lambda: victim.messages, 10)
        assert victim.disconnects == []
    assert [r[0] for r in database_rows(floor_database, "T28")] == [1]
    assert collector.disconnects == 0 and collector.healthy()
    # A station's password is no account on the collectors' listener.
    with RawClient(floor_broker, "T29", port=floor_broker.port) as elsewhere:
        assert elsewhere.refused.is_set()


def test_a_station_cannot_join_the_collectors_shared_subscription(
    floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    """Each message of a shared subscription goes to one member: a station among them
    would take a share of every station's rows, and mosquitto (which checks a delivery, not
    a subscription) would drop it. Stations' topics live under the station listener's
    mount point, where "$share/..." is an ordinary topic."""
    with RawClient(floor_broker, "T30") as thief:
        for name in ("$share/collectors/floor/+/rows", "$share/collectors/station/floor/+/rows",
                     "$share/collectors/#", "#"):  # fmt: skip
            thief.subscribed.clear()
            thief.client.subscribe(name, qos=1)
            assert thief.subscribed.wait(10)
        rows = chained([("station_started", {"table_id": "T13"}, None)]
                     + [("device", {"n": n}, None) for n in range(19)])  # fmt: skip
        with RawClient(floor_broker, "T13") as station:
            for row in rows:  # one row a message, each sent once: a lost one is a gap
                assert station.publish("floor/T13/rows", encode_rows("T13", [row])) == 0
        assert wait_for(lambda: len(database_rows(floor_database, "T13")) == len(rows), 15)
    assert [m for m in thief.messages if not m[0].endswith("/ack")] == []


def test_a_message_over_the_brokers_limit_disconnects_its_sender(
    floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    with RawClient(floor_broker, "T12") as big:
        big.client.publish("floor/T12/rows", b"x" * (5 << 20), qos=1)
        assert wait_for(lambda: big.disconnects, 10)
    assert database_rows(floor_database, "T12") == []
    assert query(floor_database, "SELECT 1 FROM refused_message WHERE table_id = 'T12'") == []
    log = (floor_broker.dir / "mosquitto.log").read_text()
    assert "T12 disconnected due to oversize packet" in log


def _limited(broker: Broker, database: Database, limit: int) -> Collector:
    """A collector whose own size limit is ``limit`` bytes (account collector-2), started."""
    config = collector_config(
        broker, database, "collector-2", collector={"max_message_bytes": limit}
    )
    return started(Collector(config))


def test_the_collectors_own_limit_refuses_and_alerts_without_storing(
    floor_broker: Broker, floor_database: Database, tmp_path: Path
) -> None:
    """A broker configured without the limit: the collector's own check stops it."""
    limited = _limited(floor_broker, floor_database, 65536)
    rows = chained([("station_started", {"table_id": "T11", "pad": "x" * 70_000}, None)])
    payload = encode_rows("T11", rows)
    try:
        with RawClient(floor_broker, "T11") as station:
            assert station.publish("floor/T11/rows", payload) == 0
        assert wait_for(lambda: "oversize" in open_alerts(floor_database, "T11"), 15)
    finally:
        limited.stop()
    assert database_rows(floor_database, "T11") == []
    (refused,) = query(
        floor_database, "SELECT size, payload FROM refused_message WHERE table_id = 'T11'"
    )
    assert refused == (len(payload), None)  # its size only: an oversize message is not kept


def _status(table: str, state: str, ts: datetime) -> bytes:
    return encode_status(Status(table, format_ts(ts), state, 1, None, {}, (0, ""), 0))


def _shown(database: Database, table: str) -> tuple[Any, ...]:
    found = query(
        database,
        "SELECT status->>'state', status->>'ts', clock_skew FROM floor_table WHERE table_id = %s",
        table,
    )
    return found[0] if found else (None, None, None)


def test_a_station_clock_stepped_forward_then_back_never_freezes_its_status(
    floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    table, topic = "T10", "floor/T10/status"
    now = datetime.now(UTC)
    with RawClient(floor_broker, table) as station:
        # The clock jumps an hour ahead: the status shows, the skew is recorded, the time
        # shown is clamped to the collector's clock plus the tolerance (120 s).
        station.publish(topic, _status(table, "deal", now + timedelta(hours=1)))
        assert wait_for(lambda: _shown(floor_database, table)[0] == "deal", 10)
        _, shown, skew = _shown(floor_database, table)
        assert 3600 - 60 < skew < 3600 + 60
        assert shown < format_ts(now + timedelta(seconds=300))
        message, _ = open_alerts(floor_database, table)["clock"]
        assert "clock is +36" in message
        # ... and steps back: the next status still shows at once.
        station.publish(topic, _status(table, "settle", now + timedelta(seconds=5)))
        assert wait_for(lambda: _shown(floor_database, table)[0] == "settle", 10)
        assert "clock" not in open_alerts(floor_database, table)  # back within the tolerance
        # A time far in the future, on purpose: shown, clamped, never freezing what follows.
        station.publish(topic, _status(table, "insurance", datetime(2999, 1, 1, tzinfo=UTC)))
        assert wait_for(lambda: _shown(floor_database, table)[0] == "insurance", 10)
        assert _shown(floor_database, table)[1] < "2100"
        station.publish(topic, _status(table, "deal", datetime.now(UTC)))
        assert wait_for(lambda: _shown(floor_database, table)[0] == "deal", 10)


def test_rows_naming_another_table_are_refused_and_alerted(
    tmp_path: Path, floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    """A station configured (or forged) as another table: its account is T09, its journal
    says PA-S21-07. The floor takes nothing from the first row that names another table."""
    journal = simulated(tmp_path / "t09.sqlite3", 1, 9, "--table-id", "PA-S21-07")
    shipper = Shipper(journal, "T09", station_settings(floor_broker, "T09"))
    shipper.start()
    try:
        assert shipped(shipper, journal)  # acknowledged all the same: held as evidence
    finally:
        shipper.stop()
    message, _ = open_alerts(floor_database, "T09")["table"]
    assert "station_started names table 'PA-S21-07', not T09" in message
    kinds = [r[2] for r in database_rows(floor_database, "T09")]
    assert "station_started" not in kinds and "seal" not in kinds
    (why,) = query(floor_database, "SELECT quarantined FROM floor_table WHERE table_id = 'T09'")
    assert why[0] == message


class _Died(BaseException):
    """What no handler of the writer catches (a bug past every check)."""


def test_a_writer_that_dies_takes_the_process_down(
    floor_broker: Broker, floor_database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never a dead thread in a live process: ``floor collect`` returns 1 (systemd restarts
    it) when its writer is gone."""
    from floor import collector as module

    def die(*_: object) -> None:
        raise _Died

    running = Collector(collector_config(floor_broker, floor_database, "collector-3"))
    monkeypatch.setattr(module.Ingest, "apply", die)
    started(running)
    rows = chained([("station_started", {"table_id": "T08"}, None)])
    with RawClient(floor_broker, "T08") as station:
        station.publish("floor/T08/rows", encode_rows("T08", rows))
        assert wait_for(lambda: not running.healthy(), 15)
    assert module.supervise(running, threading.Event(), tick=0.05) == 1
    assert running.failure is not None and "writer" in running.failure


def test_a_station_never_sends_a_message_over_the_limit(
    floor_broker: Broker, floor_database: Database, tmp_path: Path
) -> None:
    """Rows of 300 kB each, 500 to a batch: the shipper cuts its batches to stay within
    1 MiB, so a collector whose own limit is 1 MiB takes every row and refuses nothing."""
    journal = tmp_path / "t07.sqlite3"
    with Journal.open(journal) as station:
        station.append("station_started", {"table_id": "T07"})
        for n in range(12):
            station.append("device", {"blob": "x" * 300_000, "n": n})
    limited = _limited(floor_broker, floor_database, 1 << 20)
    shipper = Shipper(journal, "T07", station_settings(floor_broker, "T07", batch_rows=500))
    shipper.start()
    try:
        assert shipped(shipper, journal)
    finally:
        shipper.stop()
        limited.stop()
    assert database_rows(floor_database, "T07") == journal_rows(journal)
    assert open_alerts(floor_database, "T07") == {}


def test_a_table_the_database_refuses_is_written_alone_and_the_rest_goes_on(
    floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    """A failure nobody foresaw (here a constraint the database was given): the batch is
    written again table by table; the table that fails alone is refused with an alert and
    written on its own from then on; every other table's rows are stored."""
    refuse = (
        "ALTER TABLE journal_entry ADD CONSTRAINT refuse_t06 CHECK (table_id <> 'T06'"
        " OR kind <> 'device')"
    )
    execute(floor_database, refuse)
    good = chained([("station_started", {"table_id": "T05"}, None)]
                 + [("device", {"n": n}, None) for n in range(5)])  # fmt: skip
    bad = chained([("station_started", {"table_id": "T06"}, None)]
                + [("device", {"n": n}, None) for n in range(5)])  # fmt: skip
    try:
        with RawClient(floor_broker, "T05") as one, RawClient(floor_broker, "T06") as other:
            for n in range(len(good)):
                other.client.publish("floor/T06/rows", encode_rows("T06", bad[: n + 1]), qos=1)
                one.client.publish("floor/T05/rows", encode_rows("T05", good[: n + 1]), qos=1)
            assert wait_for(lambda: len(database_rows(floor_database, "T05")) == len(good), 15)
            assert wait_for(lambda: "malformed" in open_alerts(floor_database, "T06"), 15)
    finally:
        execute(floor_database, "ALTER TABLE journal_entry DROP CONSTRAINT refuse_t06")
    message, _ = open_alerts(floor_database, "T06")["malformed"]
    assert "the database refused it" in message and "refuse_t06" in message
    assert "T06" in collector.suspects and collector.healthy()
    assert [r[2] for r in database_rows(floor_database, "T06")] in ([], ["station_started"])
