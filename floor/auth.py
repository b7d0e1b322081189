"""Monitor logins: scrypt password hashes (``hashlib.scrypt``) and the two roles.

A hash is ``scrypt$N$r$p$SALT$KEY`` (base64 salt and key), made by ``dealer-station floor
hash-password`` and kept in ``floor.toml``. The session cookie that follows a login is
signed (Starlette's ``SessionMiddleware``, itsdangerous) with the key in
``session_key_file``; it carries the user's name and role, nothing else.

Roles: ``pit_supervisor`` sees the grid and the alerts; ``surveillance`` also recalls
rounds (the cards and amounts of any completed round). Nobody can write to a station:
the monitor has no such path.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import Final

N: Final = 2**15  # about 50 ms and 32 MiB per check on a Pi-class core: slows guessing
R: Final = 8
P: Final = 1
_MAXMEM: Final = 64 * 1024 * 1024
ROLE_RIGHTS: Final = {
    "pit_supervisor": frozenset({"grid", "alerts"}),
    "surveillance": frozenset({"grid", "alerts", "recall"}),
}


def hash_password(password: str, *, n: int = N) -> str:
    """A new salted scrypt hash of ``password``."""
    salt = secrets.token_bytes(16)
    key = hashlib.scrypt(password.encode(), salt=salt, n=n, r=R, p=P, maxmem=_MAXMEM)
    return "$".join(
        [
            "scrypt",
            str(n),
            str(R),
            str(P),
            base64.b64encode(salt).decode(),
            base64.b64encode(key).decode(),
        ]
    )


def check_password(password: str, stored: str) -> bool:
    """Does ``password`` match ``stored``? False for a malformed hash, never an exception."""
    try:
        scheme, n, r, p, salt, key = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(key, validate=True)
        actual = hashlib.scrypt(
            password.encode(),
            salt=base64.b64decode(salt, validate=True),
            n=int(n),
            r=int(r),
            p=int(p),
            maxmem=_MAXMEM,
            dklen=len(expected),
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)


def may(role: str | None, right: str) -> bool:
    """Does ``role`` have ``right`` (``grid``, ``alerts``, ``recall``)?"""
    return role is not None and right in ROLE_RIGHTS.get(role, frozenset())
