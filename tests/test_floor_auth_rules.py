"""The console's logins, rule by rule, without a server (``floor.auth``): the password hash,
the two roles' rights, and the guard in front of the password check (lockout, a rate limit
per address, a bounded number of checks). docs/floor.md "Logins, sessions and what a browser
is allowed" states them; the numbers below are its (5 wrong passwords lock a name for 15
minutes, 20 attempts a minute from one address, 2 checks at once and 8 waiting).

``tests/test_floor_monitor.py`` and ``tests/test_floor_console_limits.py`` play the same
rules through the real monitor and browser; these fail in milliseconds when a rule moves.
"""

from __future__ import annotations

import base64
import hashlib

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from floor.auth import (
    DUMMY_HASH,
    LOCK_AFTER,
    LOCK_SECONDS,
    PER_ADDRESS,
    LoginGuard,
    LoginRefusedError,
    check_password,
    hash_password,
    may,
)

FAST_N = 2**4  # a cheap scrypt for the tests' own hashes; the format is the same


class Clock:
    """A hand-driven monotonic clock (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# --- the hash -----------------------------------------------------------------------------


def test_a_hash_is_scrypt_n_r_p_salt_key_and_checks_only_its_own_password() -> None:
    stored = hash_password("correct horse", n=FAST_N)
    scheme, n, r, p, salt, key = stored.split("$")
    assert (scheme, n, r, p) == ("scrypt", str(FAST_N), "8", "1")
    assert len(base64.b64decode(salt)) == 16
    # the key is scrypt of the password with that salt: anyone with hashlib can check it
    expected = hashlib.scrypt(
        b"correct horse", salt=base64.b64decode(salt), n=FAST_N, r=8, p=1, dklen=64
    )
    assert base64.b64decode(key) == expected
    assert check_password("correct horse", stored)
    assert not check_password("correct horse ", stored)
    assert not check_password("", stored)


def test_the_default_cost_is_two_to_the_fifteenth() -> None:
    stored = hash_password("pw")
    assert stored.split("$")[1:4] == ["32768", "8", "1"]
    assert check_password("pw", stored)


def test_two_hashes_of_one_password_differ_by_their_salt() -> None:
    first, second = hash_password("pw", n=FAST_N), hash_password("pw", n=FAST_N)
    assert first != second
    assert first.split("$")[4] != second.split("$")[4]


@pytest.mark.parametrize(
    "stored",
    [
        "",
        "scrypt",
        "bcrypt$16$8$1$AAAAAAAAAAAAAAAAAAAAAA==$" + "A" * 43 + "=",
        "scrypt$16$8$1$not base64!$" + "A" * 43 + "=",
        "scrypt$16$8$1$AAAAAAAAAAAAAAAAAAAAAA==$not base64!",
        "scrypt$sixteen$8$1$AAAAAAAAAAAAAAAAAAAAAA==$" + "A" * 43 + "=",
        "scrypt$15$8$1$AAAAAAAAAAAAAAAAAAAAAA==$" + "A" * 43 + "=",  # N not a power of two
        "scrypt$16$8$1$AAAAAAAAAAAAAAAAAAAAAA==$" + "A" * 43 + "=$extra",
        "scrypt$1073741824$8$1$AAAAAAAAAAAAAAAAAAAAAA==$" + "A" * 43 + "=",  # past maxmem
    ],
)
def test_a_malformed_hash_matches_no_password_and_never_raises(stored: str) -> None:
    assert check_password("pw", stored) is False


def test_the_dummy_hash_for_unknown_names_is_well_formed_and_matches_nothing() -> None:
    # an unknown name costs a real scrypt check at the full cost, so it answers as slowly
    assert DUMMY_HASH.split("$")[:4] == ["scrypt", "32768", "8", "1"]
    assert check_password("", DUMMY_HASH) is False
    assert check_password("AAAA", DUMMY_HASH) is False


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=80))
def test_any_stored_text_is_an_answer_never_an_exception(stored: str) -> None:
    assert check_password("pw", stored) in (True, False)


# --- roles --------------------------------------------------------------------------------


@pytest.mark.parametrize("right", ["grid", "alerts", "pit", "acknowledge"])
def test_a_pit_supervisor_sees_the_floor_and_acknowledges(right: str) -> None:
    assert may("pit_supervisor", right)


@pytest.mark.parametrize("right", ["recall", "search"])
def test_a_pit_supervisor_recalls_and_searches_nothing(right: str) -> None:
    assert not may("pit_supervisor", right)


@pytest.mark.parametrize("right", ["grid", "alerts", "pit", "recall", "search"])
def test_surveillance_sees_the_floor_and_recalls_rounds(right: str) -> None:
    assert may("surveillance", right)


def test_surveillance_acknowledges_nothing() -> None:
    assert not may("surveillance", "acknowledge")


@pytest.mark.parametrize("role", [None, "", "admin", "Pit_Supervisor", "dealer"])
@pytest.mark.parametrize("right", ["grid", "alerts", "pit", "recall", "search", "acknowledge"])
def test_no_session_or_another_role_has_no_right(role: str | None, right: str) -> None:
    assert not may(role, right)


@pytest.mark.parametrize("role", ["pit_supervisor", "surveillance"])
@pytest.mark.parametrize("right", ["write", "release", "", "grid "])
def test_no_role_has_a_right_the_console_does_not_name(role: str, right: str) -> None:
    assert not may(role, right)


# --- the guard: lockout -------------------------------------------------------------------


def test_the_documented_limits() -> None:
    assert (LOCK_AFTER, LOCK_SECONDS, PER_ADDRESS) == (5, 15 * 60, 20)


def test_four_wrong_passwords_leave_the_name_open_and_the_fifth_locks_it() -> None:
    clock = Clock()
    guard = LoginGuard(clock=clock)
    for _ in range(LOCK_AFTER - 1):
        guard.admit("ana", "10.0.0.1")
        guard.failed("ana")
    guard.admit("ana", "10.0.0.2")  # four wrong: still admitted
    guard.failed("ana")
    with pytest.raises(LoginRefusedError) as refused:
        guard.admit("ana", "10.0.0.3")  # from any address
    assert refused.value.status == 429
    assert str(refused.value) == "too many wrong passwords: locked for 15 min"
    guard.admit("bea", "10.0.0.3")  # another name is not locked


def test_a_lock_lasts_fifteen_minutes_to_the_second_and_says_the_minutes_left() -> None:
    clock = Clock()
    guard = LoginGuard(clock=clock)
    for _ in range(LOCK_AFTER):
        guard.failed("ana")
    locked_at = clock.now
    clock.now = locked_at + LOCK_SECONDS - 61  # 61 s short: two minutes, rounded up
    with pytest.raises(LoginRefusedError, match="locked for 2 min"):
        guard.admit("ana", "a")
    clock.now = locked_at + LOCK_SECONDS - 1
    with pytest.raises(LoginRefusedError, match="locked for 1 min"):
        guard.admit("ana", "b")
    clock.now = locked_at + LOCK_SECONDS  # the lock has ended
    guard.admit("ana", "c")


def test_after_a_lock_the_count_starts_again_from_zero() -> None:
    clock = Clock()
    guard = LoginGuard(clock=clock)
    for _ in range(LOCK_AFTER):
        guard.failed("ana")
    clock.now += LOCK_SECONDS
    for _ in range(LOCK_AFTER - 1):
        guard.failed("ana")
    guard.admit("ana", "a")  # four after the lock: not locked again
    guard.failed("ana")
    with pytest.raises(LoginRefusedError):
        guard.admit("ana", "b")


def test_a_good_password_clears_the_names_count() -> None:
    guard = LoginGuard(clock=Clock())
    for _ in range(LOCK_AFTER - 1):
        guard.failed("ana")
    guard.succeeded("ana")
    for _ in range(LOCK_AFTER - 1):
        guard.failed("ana")
    guard.admit("ana", "a")  # 4 + 4 with a good one between: never 5 in a row


def test_a_name_nobody_has_locks_like_a_real_one() -> None:
    # a lock says nothing about which names exist (docs/floor.md)
    guard = LoginGuard(clock=Clock())
    for _ in range(LOCK_AFTER):
        guard.failed("nobody-at-all")
    with pytest.raises(LoginRefusedError, match="too many wrong passwords"):
        guard.admit("nobody-at-all", "a")


# --- the guard: per address ---------------------------------------------------------------


def test_twenty_attempts_a_minute_from_one_address_and_the_twenty_first_refused() -> None:
    clock = Clock()
    guard = LoginGuard(clock=clock)
    for k in range(PER_ADDRESS):
        guard.admit(f"user{k}", "10.0.0.9")
    with pytest.raises(LoginRefusedError) as refused:
        guard.admit("user99", "10.0.0.9")
    assert refused.value.status == 429
    assert str(refused.value) == "too many login attempts from this address: wait a minute"
    guard.admit("user99", "10.0.0.10")  # another address is not limited


def test_the_address_window_is_one_minute_sliding() -> None:
    clock = Clock()
    guard = LoginGuard(clock=clock)
    start = clock.now
    for k in range(PER_ADDRESS):
        clock.now = start + k  # one a second
        guard.admit("u", "a")
    clock.now = start + 60  # the first attempt is exactly a minute old: it no longer counts
    guard.admit("u", "a")
    clock.now = start + 60.5  # the second (at start + 1) is still inside the minute
    with pytest.raises(LoginRefusedError, match="this address"):
        guard.admit("u", "a")


def test_refused_attempts_count_against_the_address_too() -> None:
    clock = Clock()
    guard = LoginGuard(clock=clock, per_address=3)
    for _ in range(3):
        guard.admit("u", "a")
    for _ in range(5):
        with pytest.raises(LoginRefusedError):
            guard.admit("u", "a")
    clock.now += 59  # still the hammering of the last minute
    with pytest.raises(LoginRefusedError):
        guard.admit("u", "a")


def test_memory_is_bounded_to_the_most_recent_names_and_addresses() -> None:
    clock = Clock()
    guard = LoginGuard(clock=clock)
    for _ in range(LOCK_AFTER):
        guard.failed("first")
    for k in range(10_000):
        guard.failed(f"n{k}")
        guard.admit(f"n{k}", f"addr{k}")
    # "first" was the oldest of 10,001 names: forgotten, so no longer locked
    guard.admit("first", "fresh")
    assert len(guard._users) == 10_000
    assert len(guard._addresses) == 10_000


def test_a_lock_is_remembered_while_other_names_come_and_go_below_the_bound() -> None:
    guard = LoginGuard(clock=Clock())
    for _ in range(LOCK_AFTER):
        guard.failed("ana")
    for k in range(9_999):
        guard.failed(f"n{k}")
    with pytest.raises(LoginRefusedError):
        guard.admit("ana", "x")


# --- the guard: bounded checks ------------------------------------------------------------


def test_checks_run_at_most_two_at_once_and_past_eight_waiting_are_refused() -> None:
    stored = hash_password("pw", n=2**12)

    async def main() -> tuple[list[bool], list[int], int]:
        guard = LoginGuard(clock=Clock())
        assert (guard.waiting, guard.running, guard.most_running) == (0, 0, 0)
        answers: list[bool] = []
        refused: list[int] = []

        async def one(password: str) -> None:
            try:
                answers.append(await guard.check(password, stored))
            except LoginRefusedError as err:
                assert str(err) == "the console is busy checking logins: try again"
                refused.append(err.status)

        async with anyio.create_task_group() as tasks:
            for k in range(14):
                tasks.start_soon(one, "pw" if k % 2 == 0 else "wrong")
        return answers, refused, guard.most_running

    answers, refused, most = anyio.run(main)
    # 2 checking, 8 waiting, 4 refused at once with 503; the checked ones answered truly
    assert most == 2
    assert sorted(refused) == [503] * 4
    assert len(answers) == 10
    assert answers.count(True) == 5 and answers.count(False) == 5


def test_a_finished_check_frees_its_place() -> None:
    stored = hash_password("pw", n=FAST_N)

    async def main() -> LoginGuard:
        guard = LoginGuard(clock=Clock(), hashing=1, waiting=1)
        for _ in range(5):  # one after another: never more than one waiting
            assert await guard.check("pw", stored)
        return guard

    guard = anyio.run(main)
    assert (guard.waiting, guard.running, guard.most_running) == (0, 0, 1)


def test_a_cancelled_wait_gives_its_place_back() -> None:
    stored = hash_password("pw", n=2**12)

    async def main() -> LoginGuard:
        guard = LoginGuard(clock=Clock(), hashing=1, waiting=1)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(guard.check, "pw", stored)
            await anyio.sleep(0)  # the first is checking
            with anyio.move_on_after(0):  # the second waits, then is cancelled
                await guard.check("pw", stored)
        assert guard.waiting == 0
        assert await guard.check("pw", stored)  # the place is free again
        return guard

    guard = anyio.run(main)
    assert guard.waiting == 0 and guard.running == 0


# --- what a hash holds, exactly -----------------------------------------------------------


def _with_stray_character(stored: str, field: int) -> str:
    parts = stored.split("$")
    parts[field] = parts[field][:4] + "!" + parts[field][4:]
    return "$".join(parts)


@pytest.mark.parametrize(("field", "name"), [(4, "salt"), (5, "key")])
def test_a_hash_with_a_stray_character_is_malformed_not_repaired(field: int, name: str) -> None:
    # base64 that would decode once the stray "!" is dropped: floor.toml holds exactly what
    # hash-password printed, or the hash matches nothing
    stored = hash_password("pw", n=FAST_N)
    assert check_password("pw", stored)
    assert not check_password("pw", _with_stray_character(stored, field)), name


def test_the_key_length_is_the_stored_keys() -> None:
    # a hash made with a 32-byte key (another tool's choice) checks with 32 bytes
    salt = b"0123456789abcdef"
    key = hashlib.scrypt(b"pw", salt=salt, n=FAST_N, r=8, p=1, dklen=32)
    stored = "$".join(
        [
            "scrypt",
            str(FAST_N),
            "8",
            "1",
            base64.b64encode(salt).decode(),
            base64.b64encode(key).decode(),
        ]
    )
    assert check_password("pw", stored)
    assert not check_password("pW", stored)


def test_a_good_password_for_a_name_that_never_failed_changes_nothing() -> None:
    guard = LoginGuard(clock=Clock())
    guard.succeeded("never-failed")  # no count to clear: not an error
    guard.admit("never-failed", "a")
