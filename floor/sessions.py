"""Console sessions, kept in PostgreSQL (``console_session``), and the forms' CSRF tokens.

A login draws a random token (``secrets``, 256 bits) for the session cookie
(``floor_session``: ``HttpOnly``, ``SameSite=Strict``, ``Secure`` behind HTTPS) and stores
only its sha256 with the user, the role, the address and an expiry (:data:`LIFETIME`). Every
request looks the hash up: a logout ends the session in the database, so a copied cookie
opens nothing afterwards, and an open event stream is closed within a second
(:mod:`floor.feed` checks its sessions each second).

Forms carry a token the server can check without storing it: an HMAC (``session_key_file``)
of the session's token hash for the forms of a session (logout, acknowledge), and of a
pre-login cookie (``floor_login``, ``SameSite=Strict``) for the login form. A page of
another site can neither read such a token nor send the ``SameSite=Strict`` cookie it is
bound to, so it cannot log a browser in as someone else (login CSRF) or act for the user.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from psycopg_pool import AsyncConnectionPool

COOKIE: Final = "floor_session"
LOGIN_COOKIE: Final = "floor_login"
LIFETIME: Final = timedelta(hours=8)


@dataclass(frozen=True, slots=True)
class Session:
    """An open session: whose, which role, until when."""

    token: str
    user: str
    role: str
    expires: datetime


def token_hash(token: str) -> str:
    """What the database keeps of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A fresh random token for a cookie."""
    return secrets.token_urlsafe(32)


class Sessions:
    """Sessions in ``console_session`` through the monitor's pool; form tokens from ``key``."""

    def __init__(self, pool: AsyncConnectionPool[Any], key: str) -> None:
        self.pool = pool
        self._key = key.encode()

    async def open(self, user: str, role: str, address: str) -> str:
        """Open a session; returns the cookie's token."""
        token = new_token()
        async with self.pool.connection() as conn:
            await conn.execute(
                # One reading of the clock for both: the session lasts exactly LIFETIME.
                "INSERT INTO console_session"
                " (token_hash, user_name, role, address, created, expires)"
                " SELECT %s, %s, %s, %s, now.t, now.t + %s"
                " FROM (SELECT clock_timestamp() AS t) AS now",
                (token_hash(token), user, role, address[:64], LIFETIME),
            )
        return token

    async def find(self, token: str) -> Session | None:
        """The open session of ``token``, or None (unknown, ended or expired)."""
        if not 20 <= len(token) <= 100:
            return None
        async with self.pool.connection() as conn:
            cursor = await conn.execute(
                "SELECT user_name, role, expires FROM console_session WHERE token_hash = %s"
                " AND ended IS NULL AND expires > clock_timestamp()",
                (token_hash(token),),
            )
            found = await cursor.fetchone()
        if found is None:
            return None
        return Session(token, found[0], found[1], found[2])

    async def end(self, token: str) -> None:
        """Log out: the session's cookie opens nothing from now on."""
        async with self.pool.connection() as conn:
            await conn.execute(
                "UPDATE console_session SET ended = clock_timestamp()"
                " WHERE token_hash = %s AND ended IS NULL",
                (token_hash(token),),
            )

    async def still_open(self, tokens: Collection[str]) -> set[str]:
        """Those of ``tokens`` whose sessions are still open."""
        if not tokens:
            return set()
        by_hash = {token_hash(t): t for t in tokens}
        async with self.pool.connection() as conn:
            cursor = await conn.execute(
                "SELECT token_hash FROM console_session WHERE token_hash = ANY(%s)"
                " AND ended IS NULL AND expires > clock_timestamp()",
                (list(by_hash),),
            )
            return {by_hash[h] for (h,) in await cursor.fetchall()}

    def _mac(self, purpose: str, token: str) -> str:
        message = f"{purpose}:{token_hash(token)}".encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def form_token(self, token: str) -> str:
        """The token the forms of session ``token`` carry."""
        return self._mac("form", token)

    def login_form_token(self, login_token: str) -> str:
        """The token the login form carries, bound to the pre-login cookie."""
        return self._mac("login", login_token)

    def check_form(self, token: str, sent: str) -> bool:
        """Does ``sent`` belong to session ``token``'s forms?"""
        return hmac.compare_digest(self.form_token(token), sent)

    def check_login_form(self, login_token: str, sent: str) -> bool:
        """Does ``sent`` belong to the login form shown with that pre-login cookie?"""
        return bool(login_token) and hmac.compare_digest(self.login_form_token(login_token), sent)
