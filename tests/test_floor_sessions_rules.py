"""Console sessions (``floor.sessions``) without a server: what each call sends the database
(the statement and its parameters: the token's hash, never the token; the address cut to 64
characters; eight hours of life from one clock reading), which tokens are not looked up at
all, what an answer becomes, and the forms' tokens. docs/floor.md "Logins, sessions and what
a browser is allowed" states the rules; ``tests/test_floor_sessions.py`` plays the same
statements on a real PostgreSQL (its expiry, its logout kept once).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from types import TracebackType
from typing import Any, TypeVar

import anyio
import pytest

from floor.sessions import (
    COOKIE,
    LIFETIME,
    LOGIN_COOKIE,
    Session,
    Sessions,
    new_token,
    token_hash,
)

KEY = "console-key-for-the-tests"
T = TypeVar("T")

OPEN_SQL = (
    "insert into console_session (token_hash, user_name, role, address, created, expires)"
    " select %s, %s, %s, %s, now.t, now.t + %s from (select clock_timestamp() as t) as now"
)
FIND_SQL = (
    "select user_name, role, expires from console_session where token_hash = %s"
    " and ended is null and expires > clock_timestamp()"
)
END_SQL = (
    "update console_session set ended = clock_timestamp() where token_hash = %s and ended is null"
)
STILL_OPEN_SQL = (
    "select token_hash from console_session where token_hash = any(%s)"
    " and ended is null and expires > clock_timestamp()"
)


class Pool:
    """The monitor's pool as :class:`Sessions` uses it: each statement recorded (in lower
    case, spaces folded: PostgreSQL reads keywords and unquoted names in any case) with its
    parameters; each query answered with the next of ``answers``."""

    def __init__(self, *answers: list[tuple[Any, ...]]) -> None:
        self.answers = list(answers)
        self.sent: list[tuple[str, tuple[Any, ...]]] = []

    def connection(self) -> Pool:
        return self

    async def __aenter__(self) -> Pool:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        return None

    async def execute(self, sql: str, params: tuple[Any, ...]) -> Pool:
        # psycopg takes %s (and %b, %t) only: %S is refused before anything is sent.
        assert all(p == "%s" for p in re.findall(r"%.", sql)), sql
        self.sent.append((" ".join(sql.lower().split()), params))
        return self

    async def fetchone(self) -> tuple[Any, ...] | None:
        rows = self.answers.pop(0)
        return rows[0] if rows else None

    async def fetchall(self) -> list[tuple[Any, ...]]:
        return self.answers.pop(0)


def _run(pool: Pool, body: Callable[[Sessions], Awaitable[T]], key: str = KEY) -> T:
    async def main() -> T:
        return await body(Sessions(pool, key))  # type: ignore[arg-type]

    return anyio.run(main)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_the_cookies_names() -> None:
    assert (COOKIE, LOGIN_COOKIE) == ("floor_session", "floor_login")


def test_the_database_keeps_the_sha256_of_a_token() -> None:
    assert token_hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert token_hash("\u00e9t\u00e9") == _sha256("\u00e9t\u00e9")


# --- a login -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "kept"),
    [("10.1.2.3", "10.1.2.3"), ("a" * 64, "a" * 64), ("b" * 65, "b" * 64), ("c" * 300, "c" * 64)],
)
def test_a_login_stores_the_tokens_hash_the_user_role_address_and_eight_hours(
    address: str, kept: str
) -> None:
    pool = Pool()
    token = _run(pool, lambda s: s.open("ana", "pit_supervisor", address))
    assert len(token) == 43  # 256 random bits, URL-safe base64
    assert timedelta(hours=8) == LIFETIME
    assert pool.sent == [
        (OPEN_SQL, (_sha256(token), "ana", "pit_supervisor", kept, timedelta(hours=8)))
    ]
    assert token not in repr(pool.sent)  # the token itself is never sent


def test_each_login_draws_a_new_token() -> None:
    pool = Pool()
    tokens = {_run(pool, lambda s: s.open("ana", "surveillance", "x")) for _ in range(5)}
    assert len(tokens) == 5


# --- a cookie looked up ------------------------------------------------------------------------


def test_a_cookie_finds_its_open_session() -> None:
    expires = datetime(2026, 12, 3, 16, 0, tzinfo=UTC)
    token = "T" * 43
    pool = Pool([("bea", "surveillance", expires)])
    found = _run(pool, lambda s: s.find(token))
    assert found == Session(token, "bea", "surveillance", expires)
    assert pool.sent == [(FIND_SQL, (_sha256(token),))]


def test_a_cookie_without_an_open_session_finds_none() -> None:
    pool = Pool([])
    assert _run(pool, lambda s: s.find("U" * 43)) is None
    assert pool.sent == [(FIND_SQL, (_sha256("U" * 43),))]


@pytest.mark.parametrize(
    ("size", "asked"),
    [(0, False), (19, False), (20, True), (100, True), (101, False), (5000, False)],
)
def test_only_a_token_of_20_to_100_characters_is_looked_up(size: int, asked: bool) -> None:
    pool = Pool([("fay", "surveillance", datetime(2026, 12, 3, tzinfo=UTC))])
    found = _run(pool, lambda s: s.find("B" * size))
    assert (found is not None) is asked
    assert len(pool.sent) == int(asked)


def test_a_logout_ends_the_session_of_the_tokens_hash_once() -> None:
    pool = Pool()
    _run(pool, lambda s: s.end("V" * 43))
    assert pool.sent == [(END_SQL, (_sha256("V" * 43),))]


def test_the_streams_ask_which_of_their_sessions_are_still_open() -> None:
    tokens = ["a" * 43, "b" * 43, "c" * 43]
    pool = Pool([(_sha256("c" * 43),), (_sha256("a" * 43),)])
    still = _run(pool, lambda s: s.still_open(tokens))
    assert still == {"a" * 43, "c" * 43}
    assert pool.sent == [(STILL_OPEN_SQL, ([_sha256(t) for t in tokens],))]


def test_no_tokens_asked_about_asks_nothing() -> None:
    pool = Pool()
    assert _run(pool, lambda s: s.still_open([])) == set()
    assert _run(pool, lambda s: s.still_open(set())) == set()
    assert pool.sent == []


# --- form tokens -------------------------------------------------------------------------------


def _mac(key: str, purpose: str, token: str) -> str:
    return hmac.new(
        key.encode(), f"{purpose}:{_sha256(token)}".encode(), hashlib.sha256
    ).hexdigest()


def test_a_sessions_forms_carry_an_hmac_of_its_tokens_hash_under_the_key() -> None:
    sessions = Sessions(Pool(), KEY)  # type: ignore[arg-type]
    token = new_token()
    assert sessions.form_token(token) == _mac(KEY, "form", token)
    assert sessions.check_form(token, _mac(KEY, "form", token))
    assert not sessions.check_form(token, _mac(KEY, "login", token))  # the login form's
    assert not sessions.check_form(token, _mac("another key", "form", token))
    assert not sessions.check_form(new_token(), _mac(KEY, "form", token))  # another session's
    assert not sessions.check_form(token, "")


def test_the_login_form_carries_an_hmac_of_the_pre_login_cookie() -> None:
    sessions = Sessions(Pool(), KEY)  # type: ignore[arg-type]
    cookie = new_token()
    assert sessions.login_form_token(cookie) == _mac(KEY, "login", cookie)
    assert sessions.check_login_form(cookie, _mac(KEY, "login", cookie))
    assert not sessions.check_login_form(cookie, _mac(KEY, "form", cookie))
    assert not sessions.check_login_form(new_token(), _mac(KEY, "login", cookie))
    # No pre-login cookie: no login form checks, not even one made for an empty cookie.
    assert sessions.check_login_form("", _mac(KEY, "login", "")) is False
