"""Console sessions (``floor.sessions``) on a real PostgreSQL, without the web server: what the
database keeps of a login (the token's hash, never the token), when a cookie stops opening
anything (logout, expiry, a token of the wrong size), and the forms' tokens (bound to one
session or one pre-login cookie, under the console's key). docs/floor.md "Logins, sessions
and what a browser is allowed" states the rules.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import anyio
import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from floor.servers import Database
from floor.sessions import LIFETIME, Sessions, new_token, token_hash

KEY = "console-key-for-the-tests"
T = TypeVar("T")


@pytest.fixture
def database(floor_database: Database) -> Iterator[Database]:
    yield floor_database
    with psycopg.connect(floor_database.conninfo, autocommit=True) as conn:
        conn.execute("DELETE FROM console_session")


def _run(database: Database, body: Callable[[Sessions], Awaitable[T]], key: str = KEY) -> T:
    async def main() -> T:
        pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
            database.conninfo, min_size=1, max_size=2, open=False, kwargs={"autocommit": True}
        )
        await pool.open()
        try:
            return await body(Sessions(pool, key))
        finally:
            await pool.close()

    return anyio.run(main)


def _stored(database: Database) -> list[tuple[Any, ...]]:
    with psycopg.connect(database.conninfo) as conn:
        return conn.execute(
            "SELECT token_hash, user_name, role, address, expires - created, ended"
            " FROM console_session"
        ).fetchall()


def test_a_login_keeps_the_tokens_hash_the_user_role_address_and_eight_hours(
    database: Database,
) -> None:
    async def body(sessions: Sessions) -> str:
        return await sessions.open("ana", "pit_supervisor", "10.1.2.3")

    token = _run(database, body)
    assert 40 <= len(token) <= 50  # 256 random bits, URL-safe base64
    ((stored_hash, user, role, address, lifetime, ended),) = _stored(database)
    assert stored_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in repr(_stored(database))  # the token itself is never stored
    assert (user, role, address, ended) == ("ana", "pit_supervisor", "10.1.2.3", None)
    assert timedelta(hours=8) == LIFETIME
    assert lifetime == timedelta(hours=8)  # expires is created + 8 h, one clock reading


def test_a_long_address_is_kept_to_64_characters(database: Database) -> None:
    async def body(sessions: Sessions) -> str:
        return await sessions.open("ana", "surveillance", "a" * 300)

    _run(database, body)
    ((_, _, _, address, _, _),) = _stored(database)
    assert address == "a" * 64


def test_the_cookie_finds_its_session_until_logout_and_never_after(database: Database) -> None:
    async def body(sessions: Sessions) -> tuple[Any, ...]:
        token = await sessions.open("bea", "surveillance", "10.0.0.1")
        other = await sessions.open("cid", "pit_supervisor", "10.0.0.2")
        found = await sessions.find(token)
        await sessions.end(token)
        after = await sessions.find(token)
        still = await sessions.still_open([token, other])
        return token, found, after, still, other, await sessions.find(other)

    token, found, after, still, other, other_found = _run(database, body)
    assert found is not None
    assert (found.token, found.user, found.role) == (token, "bea", "surveillance")
    now = datetime.now(UTC)
    assert now + LIFETIME - timedelta(minutes=1) < found.expires <= now + LIFETIME
    assert after is None
    assert still == {other}
    assert other_found is not None and other_found.user == "cid"


def test_a_logout_twice_keeps_the_first_time(database: Database) -> None:
    async def body(sessions: Sessions) -> None:
        token = await sessions.open("bea", "surveillance", "x")
        await sessions.end(token)
        with psycopg.connect(database.conninfo) as conn:
            (first,) = conn.execute("SELECT ended FROM console_session").fetchone() or (None,)
        await sessions.end(token)
        with psycopg.connect(database.conninfo) as conn:
            (second,) = conn.execute("SELECT ended FROM console_session").fetchone() or (None,)
        assert first is not None and second == first

    _run(database, body)


def test_an_expired_session_opens_nothing(database: Database) -> None:
    async def body(sessions: Sessions) -> tuple[Any, Any, set[str], str]:
        token = await sessions.open("dan", "pit_supervisor", "x")
        fresh = await sessions.open("eve", "pit_supervisor", "x")
        with psycopg.connect(database.conninfo, autocommit=True) as conn:
            conn.execute(
                "UPDATE console_session SET expires = clock_timestamp() - interval '1 second'"
                " WHERE token_hash = %s",
                (token_hash(token),),
            )
        still = await sessions.still_open([token, fresh])
        return await sessions.find(token), await sessions.find(fresh), still, fresh

    expired, found, still, fresh = _run(database, body)
    assert expired is None
    assert found is not None and found.user == "eve"
    assert still == {fresh}


def _stored_under(database: Database, token: str) -> None:
    """A session stored by hash under ``token`` (of any size), open for an hour."""
    with psycopg.connect(database.conninfo, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO console_session (token_hash, user_name, role, address, expires)"
            " VALUES (%s, 'fay', 'surveillance', 'x', clock_timestamp() + interval '1 hour')",
            (token_hash(token),),
        )


@pytest.mark.parametrize("size", [0, 19, 101, 5000])
def test_a_token_of_a_size_no_login_makes_is_not_looked_up(database: Database, size: int) -> None:
    token = "A" * size
    _stored_under(database, token)  # even were its hash in the table

    async def body(sessions: Sessions) -> Any:
        return await sessions.find(token)

    assert _run(database, body) is None


@pytest.mark.parametrize("size", [20, 100])
def test_a_token_at_either_end_of_the_size_range_is_looked_up(
    database: Database, size: int
) -> None:
    # a session stored by hash under a token of exactly that size is found
    token = "B" * size
    _stored_under(database, token)

    async def body(sessions: Sessions) -> Any:
        return await sessions.find(token)

    found = _run(database, body)
    assert found is not None and found.user == "fay"


def test_no_tokens_asked_about_is_none_open(database: Database) -> None:
    async def body(sessions: Sessions) -> set[str]:
        await sessions.open("gus", "surveillance", "x")
        return await sessions.still_open([])

    assert _run(database, body) == set()


def test_new_tokens_are_random_and_url_safe() -> None:
    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50
    for token in tokens:
        assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        assert len(token) == 43  # 32 random bytes (256 bits) in URL-safe base64


# --- form tokens (no database) ----------------------------------------------------------------


def _sessions(key: str = KEY) -> Sessions:
    return Sessions(None, key)  # type: ignore[arg-type]  # form tokens never touch the pool


def test_a_form_token_is_an_hmac_of_the_sessions_hash_under_the_key() -> None:
    token = "t" * 43
    expected = hmac.new(
        KEY.encode(), f"form:{token_hash(token)}".encode(), hashlib.sha256
    ).hexdigest()
    assert _sessions().form_token(token) == expected
    assert _sessions().check_form(token, expected)


def test_a_form_token_belongs_to_one_session_one_purpose_and_one_key() -> None:
    sessions = _sessions()
    mine, theirs = "a" * 43, "b" * 43
    sent = sessions.form_token(mine)
    assert sessions.check_form(mine, sent)
    assert not sessions.check_form(theirs, sent)  # another session's form
    assert not sessions.check_form(mine, sent[:-1])
    assert not sessions.check_form(mine, "")
    assert not _sessions("another key").check_form(mine, sent)  # another console's key
    # a login form's token is not a session form's token for the same text
    assert not sessions.check_form(mine, sessions.login_form_token(mine))


def test_a_login_form_token_is_bound_to_its_pre_login_cookie() -> None:
    sessions = _sessions()
    cookie = "c" * 43
    sent = sessions.login_form_token(cookie)
    expected = hmac.new(
        KEY.encode(), f"login:{token_hash(cookie)}".encode(), hashlib.sha256
    ).hexdigest()
    assert sent == expected
    assert sessions.check_login_form(cookie, sent)
    assert not sessions.check_login_form("d" * 43, sent)
    assert not sessions.check_login_form(cookie, sessions.form_token(cookie))


def test_no_pre_login_cookie_means_no_login_form() -> None:
    sessions = _sessions()
    # even the token an empty cookie would get is refused: no cookie, no login
    assert sessions.check_login_form("", sessions.login_form_token("")) is False
