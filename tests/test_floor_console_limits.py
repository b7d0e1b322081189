"""The console's cost is bounded by what it is configured for, not by what its clients do:
60 open event streams share one PostgreSQL listener and a pool of four (a PostgreSQL with
60 connections at most keeps room for everyone else), one stream past the cap is refused
in one line; 80 wrong logins at once, from 80 addresses, leave the console's peak memory
within a few scrypt checks (two run at once, eight wait, the rest are told to come back).
Real PostgreSQL; the console in-process and as ``dealer-station floor serve``."""

from __future__ import annotations

import http.client
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest
from console_web import (
    console_config,
    http_login,
    no_leaks,
    nothing_left_after_the_module,
    serve_process,
    write_console_toml,
)

from floor.auth import HASHING, WAITING
from floor.config import FloorConfig
from floor.console import POOL_SIZE
from floor.monitor import MonitorServer
from floor.servers import Broker, Database, free_port, wait_for

STREAMS = 60
__all__ = ["no_leaks", "nothing_left_after_the_module"]


@pytest.fixture(scope="module")
def config(
    tmp_path_factory: pytest.TempPathFactory, floor_broker: Broker, floor_database: Database
) -> FloorConfig:
    return console_config(tmp_path_factory.mktemp("limits"), floor_broker, floor_database)


def _console_connections(database: Database) -> int:
    with psycopg.connect(database.conninfo) as conn:
        (count,) = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'floor-console%'"
        ).fetchone() or (0,)
    return int(count)


def _open_stream(port: int, cookie: str) -> tuple[http.client.HTTPConnection, int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/events", headers={"Cookie": f"floor_session={cookie}"})
    answer = conn.getresponse()
    first = answer.readline() if answer.status == 200 else answer.read()
    return conn, answer.status, first


def test_event_streams_share_one_listener_and_a_capped_number_are_open(
    config: FloorConfig, floor_database: Database
) -> None:
    server = MonitorServer(config, max_streams=STREAMS + 2)
    server.start()
    opened: list[http.client.HTTPConnection] = []
    try:
        _status, cookie = http_login(server.url, "pat")
        assert cookie
        for _ in range(STREAMS):
            conn, status, first = _open_stream(server.port, cookie)
            opened.append(conn)
            assert status == 200 and first == b"retry: 2000\n"
        assert len(server.console.feed.streams) == STREAMS
        # The database sees the pool and the one listener, not one connection a stream, and
        # still takes other clients (its limit is 60 connections: servers.Database).
        assert _console_connections(floor_database) <= POOL_SIZE + 1
        with psycopg.connect(floor_database.conninfo) as other:
            assert other.execute("SELECT 1").fetchone() == (1,)
        for _ in range(2):
            conn, status, _first = _open_stream(server.port, cookie)
            opened.append(conn)
            assert status == 200
        conn, status, body = _open_stream(server.port, cookie)
        opened.append(conn)
        assert status == 503
        assert body == b"too many open console pages (62): close one and reload\n"
        # One closed, one may open again.
        opened.pop(0).close()
        assert wait_for(lambda: len(server.console.feed.streams) < STREAMS + 2, 10)
        conn, status, _first = _open_stream(server.port, cookie)
        opened.append(conn)
        assert status == 200
    finally:
        for conn in opened:
            conn.close()
        server.stop()


def _peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_eighty_wrong_logins_at_once_stay_within_a_few_password_checks(
    tmp_path: Path, floor_broker: Broker, floor_database: Database
) -> None:
    port = free_port()
    # The real cost: scrypt N=2^15, r=8, 32 MiB a check (floor.auth.N).
    path = write_console_toml(tmp_path, floor_broker, floor_database, port, n=2**15)
    console = serve_process(path, port)
    url = f"http://127.0.0.1:{port}/"
    try:
        assert http_login(url, "pat", source="127.0.1.1")[0] == 303  # warmed up: one check
        before = _peak_kib(console.pid)
        # 80 names, 80 addresses: neither the lockout nor the rate limit stops any of them.
        with ThreadPoolExecutor(80) as pool:
            statuses = list(
                pool.map(
                    lambda i: http_login(url, f"guess{i}", "wrong", source=f"127.0.2.{i + 1}")[0],
                    range(80),
                )
            )
        after = _peak_kib(console.pid)
        grown_mib = (after - before) / 1024
        # Two checks at 32 MiB each, and the answers' buffers; 80 at once were 2.5 GiB.
        assert grown_mib < 2 * 32 + 96, grown_mib
        assert set(statuses) <= {401, 503}, statuses
        assert statuses.count(401) >= HASHING + WAITING  # those checked answer "wrong"
        assert console.poll() is None
    finally:
        console.terminate()
        console.wait(10)
