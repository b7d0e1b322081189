"""Real servers for the floor tests: mosquitto (TLS, per-station passwords, ACL) and
PostgreSQL, one of each per test module, from ``floor.servers``; and the helpers that
compare a station's journal with the floor database row for row."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from controller.journal.format import Row
from controller.journal.storage import storage_of
from floor.servers import Broker, Database, ServerError, remove

#: Every table name a floor test may use (the broker's accounts and ACL are made for them).
TABLES = tuple(f"T{n:02d}" for n in range(1, 31))


@pytest.fixture(scope="module")
def floor_broker() -> Iterator[Broker]:
    """mosquitto on a loopback port with TLS, a password per table and the ACL."""
    broker = Broker(TABLES)
    broker.start()
    yield broker
    broker.kill()
    remove(broker)


#: The socket directory of a PostgreSQL that runs already (``mutation/run.py`` starts one for
#: a mutation run and names it here). Set, each test module gets a fresh database of its own
#: in that server instead of a server of its own: a mutant's tests then cost no initdb and no
#: server start (a minute under load, which mutmut's time limit counted as a timeout). Unset
#: (``make test``), each module starts its own server, as before.
SHARED_CLUSTER = "DEALER_FLOOR_CLUSTER"


class ClusterDatabase(Database):
    """A fresh database in the running server at ``host`` (a socket directory): what a test
    reads of a :class:`Database` (``conninfo``). Stopping or starting the server is refused:
    the server is shared, and a test that needs that needs a server of its own."""

    def __init__(self, host: str) -> None:  # no initdb: the server runs already
        import secrets

        import psycopg

        self.name = f"floor_test_{secrets.token_hex(8)}"
        self.dir = Path(host)
        self.data = self.dir / "data"
        self.durable = False
        self.admin = f"host={host} dbname=postgres user=postgres"
        self.conninfo = f"host={host} dbname={self.name} user=postgres"
        with psycopg.connect(self.admin, autocommit=True) as conn:
            template = self._template(conn, host)
            conn.execute(f"CREATE DATABASE {self.name} TEMPLATE {template}".encode())

    @staticmethod
    def _template(conn: Any, host: str) -> str:
        """A database with the floor's schema migrated, made once per server (a copy of it
        costs a fraction of a second; migrating a new database, seconds under load). Made
        under another name and renamed once migrated: a copy never starts from half a
        schema. The server lives for one mutation run, so its source's schema."""
        import secrets

        import psycopg

        from floor.schema import migrate

        name = "floor_test_template"
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            return name
        making = f"floor_test_making_{secrets.token_hex(4)}"
        conn.execute(f"CREATE DATABASE {making}".encode())
        with psycopg.connect(f"host={host} dbname={making} user=postgres") as new:
            migrate(new)
        try:
            conn.execute(f"ALTER DATABASE {making} RENAME TO {name}".encode())
        except psycopg.errors.DuplicateDatabase:  # another test module made it meanwhile
            conn.execute(f"DROP DATABASE {making}".encode())
        return name

    def start(self) -> None:
        raise ServerError(f"a shared server ({SHARED_CLUSTER}) is not restarted by a test")

    def stop(self) -> None:
        raise ServerError(f"a shared server ({SHARED_CLUSTER}) is not stopped by a test")

    def drop(self) -> None:
        """Drop the database (its connections ended first)."""
        import psycopg

        with psycopg.connect(self.admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)".encode())


@pytest.fixture(scope="module")
def floor_database() -> Iterator[Database]:
    """PostgreSQL 15 on a unix socket in a temporary directory, schema migrated (a fresh
    database in the server :data:`SHARED_CLUSTER` names, when it names one)."""
    import psycopg

    from floor.schema import migrate

    shared = os.environ.get(SHARED_CLUSTER)
    database = ClusterDatabase(shared) if shared else Database()
    if not shared:
        database.start()
    with psycopg.connect(database.conninfo) as conn:
        migrate(conn)
    yield database
    if isinstance(database, ClusterDatabase):
        database.drop()
        return
    database.stop()
    remove(database)


def simulate(journal: Path, rounds: int, seed: int, *extra: str) -> subprocess.Popen[bytes]:
    """Start the real station simulation writing ``journal`` (a child process; its
    stderr goes to ``JOURNAL.log``). Its table is the journal's name in capitals
    (``t01.sqlite3`` deals as ``T01``): the floor takes a table's rows only from its own
    account."""
    with journal.with_suffix(".log").open("wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "controller.cli.main", "simulate", "--plain", "--rounds",
             str(rounds), "--seed", str(seed), "--journal", str(journal),
             "--table-id", journal.stem.upper(), *extra],
            stdout=subprocess.DEVNULL,
            stderr=log,
        )  # fmt: skip


def simulated(journal: Path, rounds: int, seed: int, *extra: str) -> Path:
    """Run the simulation to its end; ``journal``."""
    process = simulate(journal, rounds, seed, *extra)
    assert process.wait(120) == 0, journal.with_suffix(".log").read_text()
    return journal


def journal_rows(journal: Path) -> list[tuple[Any, ...]]:
    """Every row of a journal: (id, ts, kind, round, data, prev_hash, hash)."""
    with closing(sqlite3.connect(f"{journal.resolve().as_uri()}?mode=ro", uri=True)) as conn:
        return list(storage_of(conn).raw_rows(0))  # either storage format


def database_rows(database: Database, table: str) -> list[tuple[Any, ...]]:
    """Every row the floor holds for ``table``, in the journal's column order."""
    import psycopg

    with psycopg.connect(database.conninfo) as conn:
        return conn.execute(
            "SELECT row_id, ts, kind, round, data, prev_hash, hash FROM journal_row"
            " WHERE table_id = %s ORDER BY row_id",
            (table,),
        ).fetchall()


def query(database: Database, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """Rows of one query on the floor database."""
    import psycopg

    with psycopg.connect(database.conninfo) as conn:
        return conn.execute(sql.encode(), params).fetchall()


def execute(database: Database, sql: str) -> None:
    """One statement on the floor database, committed (a schema change, a crash's loss)."""
    import psycopg

    with psycopg.connect(database.conninfo, autocommit=True) as conn:
        conn.execute(sql.encode())


def collector_config(
    broker: Broker,
    database: Database,
    client_id: str = "collector",
    keys: dict[str, str] | None = None,
    collector: dict[str, Any] | None = None,
) -> Any:
    """A checked ``floor.toml`` for a collector on these servers, with the account
    ``client_id`` (one of ``floor.servers.COLLECTORS``: the broker names each client after
    its account); ``keys``: the tables' verification keys as text; ``collector``: its
    ``[collector]`` section."""
    from floor.config import parse_floor_config

    return parse_floor_config(
        {
            "tables": {t: {"verify_key": k} for t, k in (keys or {}).items()},
            "broker": broker.collector_settings(client_id),
            "database": {"conninfo": database.conninfo},
            "collector": collector or {},
        },
        broker.dir / "floor.toml",
    )


def started(collector: Any) -> Any:
    """``collector`` started, once the broker has granted its subscriptions (a message
    published before that goes to nobody)."""
    collector.start()
    assert collector.subscribed.wait(10)
    return collector


@pytest.fixture(name="collector")
def running_collector(floor_broker: Broker, floor_database: Database) -> Iterator[Any]:
    """One collector (account ``collector``) on the module's servers, holding no key."""
    from floor.collector import Collector

    running = started(Collector(collector_config(floor_broker, floor_database)))
    yield running
    running.stop()


def chained(records: list[tuple[str, Any, int | None]], ts: str | None = None) -> list[Row]:
    """Well-chained rows (the journal's own hash, as anyone with the format can make
    them) of ``(kind, data, round)``; ``data`` a dict or the text itself."""
    from controller.journal.format import GENESIS_HASH, canonical_json, row_hash

    rows: list[Row] = []
    prev = GENESIS_HASH
    for n, (kind, data, round_no) in enumerate(records, 1):
        stamp = ts or f"2026-12-01T04:00:{n % 60:02d}.000000Z"
        text = data if isinstance(data, str) else canonical_json(data)
        digest = row_hash(prev, row_id=n, ts=stamp, kind=kind, round_no=round_no, data_text=text)
        rows.append(Row(n, stamp, kind, round_no, text, prev, digest))
        prev = digest
    return rows


def station_settings(broker: Broker, table: str, **changes: Any) -> Any:
    """The ``[floor]`` settings of station ``table`` on this broker (TLS, its password)."""
    from controller.service.config_floor import FloorSettings

    values: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": broker.station_port,
        "username": table,
        "password_file": broker.password_file(table),
        "ca_file": broker.ca_file,
        "ack_timeout": 1.0,
    }
    values.update(changes)
    return FloorSettings(**values)


def write_floor_toml(broker: Broker, database: Database, path: Path, account: str) -> Path:
    """A ``floor.toml`` file for ``dealer-station floor collect`` on these servers, with
    the collector account ``account`` (one of ``floor.servers.COLLECTORS``)."""
    path.write_text(
        f'[broker]\nhost = "127.0.0.1"\nport = {broker.port}\nusername = "{account}"\n'
        f'password_file = "{broker.password_file(account)}"\n'
        f'ca_file = "{broker.ca_file}"\n'
        f'[database]\nconninfo = "{database.conninfo}"\n',
        encoding="utf-8",
    )
    return path


def start_collector_process(config: Path) -> subprocess.Popen[bytes]:
    """``dealer-station floor collect --config FILE`` as a child process."""
    with config.with_suffix(".log").open("wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "controller.cli.main", "floor", "collect", "--config",
             str(config)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip


def row_count(journal: Path) -> int:
    """How many rows the journal holds now (0 before it exists)."""
    try:
        with closing(sqlite3.connect(f"{journal.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            return storage_of(conn).count()  # either storage format
    except sqlite3.Error:
        return 0


class RawClient:
    """A bare MQTT v5 client with one account's password: what whoever holds a station's
    password can send and see (TLS, the stations' listener unless ``port`` says otherwise).
    A context manager: connected on entry (or ``refused`` set), disconnected on exit."""

    def __init__(
        self,
        broker: Broker,
        user: str,
        *,
        client_id: str | None = None,
        port: int | None = None,
        password: str | None = None,
    ) -> None:
        import threading

        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.port = broker.station_port if port is None else port
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id or f"raw-{user}", protocol=5
        )
        secret = password or broker.password_file(user).read_text().strip()
        self.client.username_pw_set(user, secret)
        self.client.tls_set(ca_certs=str(broker.ca_file))
        self.connected = threading.Event()
        self.refused = threading.Event()
        self.disconnects: list[str] = []
        self.messages: list[tuple[str, bytes]] = []
        self.subscribed = threading.Event()
        self.pubacks: dict[int, int] = {}
        client = self.client
        client.on_connect = self._on_connect
        client.on_disconnect = lambda _c, _u, _f, reason, _p: self.disconnects.append(str(reason))
        client.on_message = lambda _c, _u, m: self.messages.append((m.topic, bytes(m.payload)))
        client.on_subscribe = lambda *_: self.subscribed.set()
        client.on_publish = self._on_publish

    def _on_connect(self, _c: Any, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        (self.refused if reason.is_failure else self.connected).set()

    def _on_publish(self, _c: Any, _u: Any, mid: int, reason: Any, _p: Any) -> None:
        self.pubacks[mid] = reason.value

    def __enter__(self) -> RawClient:
        self.client.connect("127.0.0.1", self.port)
        self.client.loop_start()
        assert self.connected.wait(10) or self.refused.is_set()
        return self

    def __exit__(self, *_: object) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        self.client.reinitialise()

    def publish(self, topic: str, payload: bytes) -> int:
        """Publish at QoS 1 and wait for the broker's PUBACK; its reason code (0: taken)."""
        from floor.servers import wait_for

        info = self.client.publish(topic, payload, qos=1)
        assert wait_for(lambda: info.mid in self.pubacks, 10), "no PUBACK"
        return self.pubacks[info.mid]


def open_alerts(database: Database, table: str) -> dict[str, tuple[str, int]]:
    """The open alerts of ``table``: kind -> (message, repeats)."""
    found = query(
        database,
        "SELECT kind, message, repeats FROM alert WHERE table_id = %s AND cleared IS NULL",
        table,
    )
    return {kind: (message, repeats) for kind, message, repeats in found}


class HeldThread:
    """A worker thread held inside a database call that does not return (it stays alive):
    records the timeout each join gives it."""

    def __init__(self) -> None:
        self.joins: list[float | None] = []

    def is_alive(self) -> bool:
        return True

    def join(self, timeout: float | None = None) -> None:
        self.joins.append(timeout)
