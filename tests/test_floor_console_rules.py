"""The console's shared pieces (``floor.console``) without a server: the forms' key, the
cookies' attributes, the one-line errors, a form body read or refused, whether a POST came
from the console's own pages (``Origin``, ``Sec-Fetch-Site``), the caller's address, and
the pool and feed the console is built with. docs/floor.md "Logins, sessions and what a
browser is allowed" states the rules; tests/test_floor_monitor_rules.py plays them through
the routes.
"""

from __future__ import annotations

import asyncio
import locale
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import AsyncConnectionPool
from starlette.requests import Request
from starlette.responses import Response

from controller.service.config_schema import ConfigError
from floor.config import FloorConfig, parse_floor_config
from floor.console import (
    MAX_FORM_BYTES,
    POOL_SIZE,
    POOL_WAIT,
    Console,
    address,
    error,
    form_of,
    from_here,
    session_key,
    set_cookie,
    unreachable,
)
from floor.feed import MAX_STREAMS

CONNINFO = "host=/nonexistent dbname=floor"


def _config(directory: Path, key: str | None = "k" * 48) -> FloorConfig:
    (directory / "broker.pw").write_text("unused")
    sections: dict[str, Any] = {
        "broker": {"host": "h", "tls": False, "username": "c", "password_file": "broker.pw"},
        "database": {"conninfo": CONNINFO},
        "casino": {"time_zone": "America/New_York"},
    }
    if key is not None:  # else no [monitor] section: a collector's file
        (directory / "session.key").write_text(key, encoding="utf-8")
        sections["monitor"] = {"session_key_file": "session.key", "silent_after_seconds": 17}
    return parse_floor_config(sections, directory / "floor.toml")


def _request(
    headers: dict[str, str] | None = None,
    body: bytes = b"",
    scheme: str = "http",
    client: tuple[str, int] | None = ("127.0.0.5", 40000),
) -> Request:
    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    scope = {
        "type": "http",
        "method": "POST",
        "scheme": scheme,
        "path": "/login",
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
        "server": ("console.example", 8080),
        "client": client,
    }
    return Request(scope, receive)


# --- the forms' key --------------------------------------------------------------------------


def test_the_key_is_the_files_text_without_its_line_end(tmp_path: Path) -> None:
    config = _config(tmp_path, " " + "k" * 32 + "\n")
    assert session_key(config) == "k" * 32


def test_a_key_under_32_characters_is_refused(tmp_path: Path) -> None:
    config = _config(tmp_path, "k" * 31 + "   \n")
    with pytest.raises(ConfigError) as refused:
        session_key(config)
    assert str(refused.value) == (
        f"{tmp_path / 'floor.toml'}: monitor.session_key_file: key under 32 characters"
    )


def test_a_key_is_read_as_utf_8_whatever_the_locale(tmp_path: Path) -> None:
    config = _config(tmp_path, "\u00e9" * 32)
    before = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C")  # an ASCII locale (outside Python's UTF-8 mode)
        assert session_key(config) == "\u00e9" * 32
    finally:
        locale.setlocale(locale.LC_CTYPE, before)


def test_a_file_without_a_monitor_section_has_no_key(tmp_path: Path) -> None:
    config = _config(tmp_path, None)
    assert config.monitor.session_key_file is None
    with pytest.raises(ConfigError) as refused:
        session_key(config)
    assert str(refused.value) == (
        f"{tmp_path / 'floor.toml'}: monitor.session_key_file: missing (required)"
    )


# --- answers ---------------------------------------------------------------------------------


def _set_cookie(response: Response) -> str:
    return response.headers["set-cookie"]


def test_a_cookie_is_http_only_same_site_strict_for_the_whole_console() -> None:
    response = Response()
    set_cookie(response, "floor_session", "abc", False, 60)
    assert _set_cookie(response) == (
        "floor_session=abc; HttpOnly; Max-Age=60; Path=/; SameSite=strict"
    )
    secure = Response()
    set_cookie(secure, "floor_login", "xyz", True, 3600)
    assert _set_cookie(secure) == (
        "floor_login=xyz; HttpOnly; Max-Age=3600; Path=/; SameSite=strict; Secure"
    )


def test_an_error_is_one_line_of_plain_text_with_its_status() -> None:
    answer = error("no such pit", 404)
    assert (answer.status_code, answer.body) == (404, b"no such pit\n")
    assert answer.headers["content-type"] == "text/plain; charset=utf-8"
    down = unreachable()
    assert (down.status_code, down.body) == (
        503,
        b"the floor database is unreachable: try again in a moment\n",
    )


# --- a form body -----------------------------------------------------------------------------


def _form(body: bytes) -> dict[str, str] | None:
    return asyncio.run(form_of(_request(body=body)))


def test_a_form_is_each_fields_first_value() -> None:
    assert _form(b"user=pat&password=a%26b+c&user=other&empty=&form_token=f") == {
        "user": "pat",
        "password": "a&b c",
        "form_token": "f",
    }
    assert _form(b"") == {}
    assert _form(b"\xff=\xfe") == {"\ufffd": "\ufffd"}


def test_a_form_of_4096_bytes_is_read_and_one_byte_more_is_refused() -> None:
    assert MAX_FORM_BYTES == 4096
    head = b"user=pat&pad="
    at_limit = head + b"x" * (4096 - len(head))
    assert _form(at_limit) == {"user": "pat", "pad": "x" * (4096 - len(head))}
    assert _form(at_limit + b"x") is None


def test_a_form_of_twenty_fields_is_read_and_more_is_refused_not_raised() -> None:
    twenty = b"&".join(b"f%d=%d" % (n, n) for n in range(20))
    assert _form(twenty) == {f"f{n}": str(n) for n in range(20)}
    assert _form(twenty + b"&f20=20") is None
    assert _form(b"&" * 25) is None  # empty fields count too


# --- where a POST comes from -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "here"),
    [
        ({}, True),  # an older browser or a script: the form's token still has to match
        ({"Sec-Fetch-Site": "same-origin"}, True),
        ({"Sec-Fetch-Site": "none"}, True),  # typed in the address bar
        ({"Sec-Fetch-Site": "same-site"}, False),
        ({"Sec-Fetch-Site": "cross-site"}, False),
        ({"Sec-Fetch-Site": "Same-Origin"}, False),
        ({"Origin": "http://console.example:8080", "Host": "console.example:8080"}, True),
        ({"Origin": "https://console.example:8080", "Host": "console.example:8080"}, False),
        ({"Origin": "http://console.example", "Host": "console.example:8080"}, False),
        ({"Origin": "http://evil.example", "Host": "console.example:8080"}, False),
        ({"Origin": "null", "Host": "console.example:8080"}, False),
        ({"Origin": "http://"}, True),  # no Host: only the empty one matches
        ({"Origin": "http://console.example:8080"}, False),
        (
            {
                "Origin": "http://console.example:8080",
                "Host": "console.example:8080",
                "Sec-Fetch-Site": "cross-site",
            },
            False,
        ),
        (
            {
                "Origin": "http://evil.example",
                "Host": "console.example:8080",
                "Sec-Fetch-Site": "same-origin",
            },
            False,
        ),
    ],
)
def test_a_post_comes_from_here_when_the_browser_says_so(
    headers: dict[str, str], here: bool
) -> None:
    assert from_here(_request(headers)) is here


def test_the_origin_of_a_tls_console_is_https() -> None:
    headers = {"Origin": "https://console.example", "Host": "console.example"}
    assert from_here(_request(headers, scheme="https")) is True
    assert from_here(_request({**headers, "Origin": "http://console.example"}, scheme="https")) is (
        False
    )


def test_the_address_is_the_callers_or_unknown() -> None:
    assert address(_request()) == "127.0.0.5"
    assert address(_request(client=None)) == "unknown"


# --- the console's pool and feed -------------------------------------------------------------


def test_the_pool_holds_four_connections_waits_three_seconds_and_never_prepares(
    tmp_path: Path,
) -> None:
    console = Console(_config(tmp_path), "k" * 48)
    pool = console.pool
    assert (POOL_SIZE, POOL_WAIT) == (4, 3.0)
    assert (pool.min_size, pool.max_size, pool.timeout) == (1, 4, 3.0)
    assert pool.conninfo == CONNINFO
    assert pool.kwargs == {
        "autocommit": True,
        "application_name": "floor-console",
        "prepare_threshold": None,
    }
    assert pool._check == AsyncConnectionPool.check_connection
    assert pool.closed  # opened by the lifespan, not by the constructor


def test_the_feed_and_sessions_are_the_consoles(tmp_path: Path) -> None:
    config = _config(tmp_path)
    console = Console(config, "k" * 48)
    assert console.config is config
    assert console.casino is config.casino and console.casino.time_zone == "America/New_York"
    assert console.sessions.pool is console.pool
    assert console.sessions.form_token("t") != Console(config, "j" * 48).sessions.form_token("t")
    feed = console.feed
    assert (feed.conninfo, feed.casino, feed.silent_after) == (CONNINFO, config.casino, 17.0)
    assert feed.still_open == console.sessions.still_open
    assert feed.max_streams == MAX_STREAMS
    assert Console(config, "k" * 48, max_streams=3).feed.max_streams == 3
    assert console.guard.lock_after == 5
