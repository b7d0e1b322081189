"""Console logins: scrypt password hashes (``hashlib.scrypt``), the two roles, and the
guard in front of the password check.

A hash is ``scrypt$N$r$p$SALT$KEY`` (base64 salt and key), made by ``dealer-station floor
hash-password`` and kept in ``floor.toml``. A login opens a server-side session
(:mod:`floor.sessions`): the cookie holds a random token, the database its hash.

Roles: ``pit_supervisor`` sees the grid, the pit figures and the alerts and acknowledges
alerts; ``surveillance`` sees the same and also recalls and searches rounds (the cards and
amounts of any completed round), but acknowledges nothing. Nobody can write to a station
or to a table's record: the console has no such path.

:class:`LoginGuard` decides before any hashing: a user name with
:data:`LOCK_AFTER` wrong passwords in a row is locked for :data:`LOCK_SECONDS` (known or
not, so a lock says nothing about which names exist); an address gets :data:`PER_ADDRESS`
attempts a minute; at most :data:`HASHING` checks run at once and :data:`WAITING` wait,
the rest are refused at once. scrypt with N=2^15, r=8 takes 32 MiB a check, so 80 logins
in parallel cost at most ``HASHING`` x 32 MiB, never 80 x 32 MiB.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

import anyio
import anyio.to_thread

N: Final = 2**15  # about 50 ms and 32 MiB per check on a Pi-class core: slows guessing
R: Final = 8
P: Final = 1
_MAXMEM: Final = 64 * 1024 * 1024
ROLE_RIGHTS: Final = {
    "pit_supervisor": frozenset({"grid", "alerts", "pit", "acknowledge"}),
    "surveillance": frozenset({"grid", "alerts", "pit", "recall", "search"}),
}
# Checked for an unknown user, so that a wrong name costs the same as a wrong password.
DUMMY_HASH: Final = f"scrypt${N}$8$1${'A' * 22}==${'A' * 43}="

LOCK_AFTER: Final = 5  # wrong passwords in a row for one user name
LOCK_SECONDS: Final = 15 * 60
PER_ADDRESS: Final = 20  # attempts a minute from one address
HASHING: Final = 2  # password checks at once (the monitor's machine has two cores or more)
WAITING: Final = 8  # checks waiting for one of those
_REMEMBERED: Final = 10_000  # user names and addresses kept in memory at most
_V = TypeVar("_V")


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
    """Does ``role`` have ``right`` (``grid``, ``alerts``, ``pit``, ``recall``, ``search``,
    ``acknowledge``)?"""
    return role is not None and right in ROLE_RIGHTS.get(role, frozenset())


class LoginRefusedError(Exception):
    """A login refused before its password was checked; ``str()`` says why, ``status`` is
    the HTTP status (429 locked or too many attempts, 503 too many checks waiting)."""

    def __init__(self, text: str, status: int) -> None:
        super().__init__(text)
        self.status = status


@dataclass
class _Failures:
    count: int = 0
    locked_until: float = 0.0


class LoginGuard:
    """Lockout, rate limit and a bounded number of password checks (module docstring).

    One per monitor process, used from its event loop; ``clock`` is for tests.
    """

    def __init__(
        self,
        *,
        lock_after: int = LOCK_AFTER,
        lock_seconds: float = LOCK_SECONDS,
        per_address: int = PER_ADDRESS,
        hashing: int = HASHING,
        waiting: int = WAITING,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.lock_after, self.lock_seconds = lock_after, lock_seconds
        self.per_address, self.waiting_limit = per_address, waiting
        self._clock = clock
        self._users: OrderedDict[str, _Failures] = OrderedDict()
        self._addresses: OrderedDict[str, list[float]] = OrderedDict()
        self._limiter = anyio.CapacityLimiter(hashing)
        self.waiting = 0
        self.running = 0
        self.most_running = 0

    def _now(self) -> float:
        return self._clock()

    def admit(self, user: str, address: str) -> None:
        """Count one attempt (every attempt counts against its address); raise
        :class:`LoginRefusedError` when it may not be checked."""
        now = self._now()
        recent = [t for t in self._addresses.pop(address, []) if t > now - 60]
        recent.append(now)
        self._addresses[address] = recent
        _trim(self._addresses)
        if len(recent) > self.per_address:
            raise LoginRefusedError("too many login attempts from this address: wait a minute", 429)
        failures = self._users.get(user)
        if failures is not None and failures.locked_until > now:
            minutes = math.ceil((failures.locked_until - now) / 60)  # 15 min, not 16
            raise LoginRefusedError(f"too many wrong passwords: locked for {minutes} min", 429)

    async def check(self, password: str, stored: str) -> bool:
        """:func:`check_password` in a worker thread, at most ``hashing`` at once.

        A check takes a free place at once when there is one; otherwise it waits, unless
        ``waiting`` checks wait already. A cancelled wait gives its place in the queue back.

        Raises:
            LoginRefusedError: ``waiting`` checks already wait (503).
        """
        try:
            self._limiter.acquire_nowait()
        except anyio.WouldBlock:
            if self.waiting >= self.waiting_limit:
                raise LoginRefusedError(
                    "the console is busy checking logins: try again", 503
                ) from None
            self.waiting += 1
            try:
                await self._limiter.acquire()
            finally:
                self.waiting -= 1
        try:
            self.running += 1
            self.most_running = max(self.most_running, self.running)
            return await anyio.to_thread.run_sync(check_password, password, stored)
        finally:
            self.running -= 1
            self._limiter.release()

    def failed(self, user: str) -> None:
        """A wrong password (or an unknown name): lock the name after ``lock_after``."""
        failures = self._users.pop(user, None) or _Failures()
        failures.count += 1
        if failures.count >= self.lock_after:
            failures.locked_until = self._now() + self.lock_seconds
            failures.count = 0
        self._users[user] = failures
        _trim(self._users)

    def succeeded(self, user: str) -> None:
        """A good password: the name's count starts again."""
        self._users.pop(user, None)


def _trim(remembered: OrderedDict[str, _V]) -> None:
    while len(remembered) > _REMEMBERED:
        remembered.popitem(last=False)
