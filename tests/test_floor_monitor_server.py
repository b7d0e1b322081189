"""The console's server (``floor.monitor``): ``MonitorServer`` (uvicorn in a thread, for the
tests and the demo) and ``dealer-station floor serve``: where each listens, what it hands
uvicorn, that it says where it serves at once, that a shutdown ends an open event stream,
and the bound on open streams it is given. The routes themselves:
``tests/test_floor_monitor_routes.py`` (in-process) and ``tests/test_floor_monitor_rules.py``
(over HTTP).
"""

from __future__ import annotations

import io
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from console_web import (
    PASSWORDS,
    EventStream,
    http_login,
    monitor_config,
    no_leaks,
    nothing_left_after_the_module,
    request,
)

from floor import monitor as monitor_module
from floor.auth import LoginGuard, hash_password
from floor.config import FloorConfig
from floor.console import session_key
from floor.feed import MAX_STREAMS
from floor.monitor import MonitorServer, build_app
from floor.servers import Database, free_port, wait_for

__all__ = ["no_leaks", "nothing_left_after_the_module"]


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory, floor_database: Database) -> FloorConfig:
    return monitor_config(tmp_path_factory.mktemp("server"), floor_database.conninfo)


def _login(server: MonitorServer, user: str) -> str:
    status, cookie = http_login(server.url, user)
    assert status == 303 and cookie, status
    return cookie


def _get(server: MonitorServer, path: str, cookie: str | None = None) -> Any:
    return request(server.url, path, cookies={"floor_session": cookie} if cookie else None)


def test_the_feed_takes_the_bound_on_streams_the_app_is_given(config: FloorConfig) -> None:
    assert build_app(config, "k" * 48, max_streams=3).state.console.feed.max_streams == 3
    assert build_app(config, "k" * 48).state.console.feed.max_streams == MAX_STREAMS


def test_one_stream_more_than_the_bound_is_refused_in_one_line(config: FloorConfig) -> None:
    server = MonitorServer(config, max_streams=1)
    server.console.guard = LoginGuard(per_address=10_000)
    server.start()
    try:
        sam = _login(server, "sam")
        stream = EventStream(server.port, sam)
        try:
            assert stream.block() == "retry: 2000"
            refused = _get(server, "/events", sam)
            assert (refused.status, refused.text) == (
                503, "too many open console pages (1): close one and reload\n"
            )  # fmt: skip
        finally:
            stream.close()
    finally:
        server.stop()


def test_the_console_serves_on_its_configured_port_in_a_thread_named_for_it(
    config: FloorConfig,
) -> None:
    server = MonitorServer(config)
    assert server.port == config.monitor.port
    assert server.url == f"http://127.0.0.1:{config.monitor.port}/"
    assert server.thread.name == "floor-monitor"
    server.start()
    try:
        assert server.server.started
        assert request(server.url, "/login").status == 200
    finally:
        server.stop()
    assert not server.thread.is_alive()


# --- the periods and the pages with a table ---------------------------------------------------


def test_serve_answers_on_the_configured_address_until_sigterm(
    tmp_path: Path, floor_database: Database
) -> None:
    port = free_port()
    (tmp_path / "session.key").write_text("k" * 48)
    (tmp_path / "broker.pw").write_text("unused")
    (tmp_path / "floor.toml").write_text(
        '[broker]\nhost = "127.0.0.1"\ntls = false\nusername = "collector"\n'
        'password_file = "broker.pw"\n'
        f'[database]\nconninfo = "{floor_database.conninfo}"\n'
        f'[monitor]\nport = {port}\nsession_key_file = "session.key"\n'
        '[monitor.users.pat]\nrole = "pit_supervisor"\n'
        f'password_hash = "{hash_password(PASSWORDS["pat"], n=2**12)}"\n',
        encoding="utf-8",
    )
    # -P: the working directory is not put first on the path, so a mutation run's tree on
    # PYTHONPATH is the one imported (the run's directory links the checkout's packages).
    process = subprocess.Popen(
        [sys.executable, "-P", "-m", "controller.cli.main", "floor", "serve", "--config",
         str(tmp_path / "floor.toml")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()  # said before it serves, not at its exit
        assert line == f"floor console on http://127.0.0.1:{port}/\n"
        url = f"http://127.0.0.1:{port}/"

        def answers() -> bool:
            try:
                return request(url, "/login", timeout=2).status == 200
            except OSError:
                return process.poll() is not None

        assert wait_for(answers, 60) and process.poll() is None
        status, cookie = http_login(url, "pat")
        assert status == 303 and cookie
        assert request(url, "/", cookies={"floor_session": cookie}).status == 200
        process.send_signal(signal.SIGTERM)
        # uvicorn shuts down, then raises the signal it caught again.
        assert process.wait(30) in (0, -signal.SIGTERM)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def test_serve_hands_uvicorn_the_console_on_its_configured_address(
    config: FloorConfig, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What ``serve`` asks of uvicorn (the test above runs it for real in a child process,
    where a mutation run's stats cannot see it)."""
    asked: list[tuple[Any, dict[str, Any]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: asked.append((app, kw)))
    monitor_module.serve(config)
    assert capsys.readouterr().out == f"floor console on http://127.0.0.1:{config.monitor.port}/\n"
    ((app, settings),) = asked
    assert settings == {
        "host": "127.0.0.1",
        "port": config.monitor.port,
        "log_level": "warning",
        "timeout_graceful_shutdown": 2,  # open event streams are ended after 2 s
    }
    console = app.state.console
    assert console.config is config
    cookie = "c" * 43
    assert console.sessions.form_token(cookie) == build_app(
        config, session_key(config)
    ).state.console.sessions.form_token(cookie)


def test_a_server_given_a_port_and_an_address_serves_there_and_stops_with_a_stream_open(
    tmp_path: Path, floor_database: Database
) -> None:
    config = monitor_config(tmp_path, floor_database.conninfo, listen="127.0.0.2")
    port = free_port()
    server = MonitorServer(config, port=port)
    assert (server.port, server.url) == (port, f"http://127.0.0.2:{port}/")
    server.console.guard = LoginGuard(per_address=10_000)
    server.start()
    stream = None
    try:
        assert request(server.url, "/login").status == 200
        stream = EventStream(server.port, _login(server, "sam"), host="127.0.0.2")
        assert stream.block() == "retry: 2000"
        # The open stream is ended 1 s into the shutdown rather than waited for.
        server.stop()
        assert not server.thread.is_alive()
    finally:
        server.stop()
        if stream is not None:
            stream.close()


def test_a_servers_open_streams_are_given_one_second_at_its_stop(config: FloorConfig) -> None:
    """uvicorn ends the application's lifespan (and with it the feed's streams) only once its
    connections are closed: an open event stream is cut after the grace uvicorn is given,
    1 s, so that ``stop`` returns within about a second whatever pages are open (a stop with
    a stream open: ``test_a_server_given_a_port_and_an_address_serves_there_and_stops_with_a_
    stream_open``). Read from the server's settings: a stop's length measured here would
    depend on the machine's load."""
    assert MonitorServer(config).server.config.timeout_graceful_shutdown == 1


def test_serve_says_where_it_serves_at_once(
    config: FloorConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Recording(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.flushed = ""

        def flush(self) -> None:
            self.flushed = self.getvalue()

    out = Recording()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    monitor_module.serve(config)
    assert out.flushed == f"floor console on http://127.0.0.1:{config.monitor.port}/\n"
