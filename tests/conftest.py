"""Shared fixtures: a test that leaks a thread or an open file descriptor fails; no
hypothesis deadlines.

Modelled on pymodbus's autouse health check: drivers own reader threads and ports, and a
leak in a test is a leak in the daemon.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator

import pytest
from hypothesis import Phase, settings

# No timed assertions in tests: hypothesis's default 200 ms deadline per example is one,
# and it fails at random on a loaded 2-core machine (seen on the bridge's payload tests).
settings.register_profile("project", deadline=None)
# A mutation run (mutation/run.py sets DEALER_MUTATION=1) asks only whether a test fails: a
# failing example is not shrunk (shrinking a PostgreSQL test's example takes minutes a mutant).
settings.register_profile(
    "mutation",
    parent=settings.get_profile("project"),
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
)
settings.load_profile("mutation" if os.environ.get("DEALER_MUTATION") == "1" else "project")

#: Threads that finish on their own get this long to end after the test (not a device wait).
_SETTLE_SECONDS = 2.0


def _open_fds() -> set[str]:
    fds = set()
    for fd in os.listdir("/proc/self/fd"):
        # The listdir's own fd is gone by the time it is read.
        with contextlib.suppress(OSError):
            fds.add(f"{fd}->{os.readlink(f'/proc/self/fd/{fd}')}")
    return fds


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    """Fail the test if it leaves threads running or file descriptors open."""
    threads_before = set(threading.enumerate())
    fds_before = _open_fds()
    yield
    deadline = time.monotonic() + _SETTLE_SECONDS
    while True:
        leaked_threads = [
            t for t in threading.enumerate() if t not in threads_before and t.is_alive()
        ]
        leaked_fds = _open_fds() - fds_before
        if not leaked_threads and not leaked_fds:
            return
        if time.monotonic() > deadline:
            break
        time.sleep(0.01)
    problems = []
    if leaked_threads:
        problems.append("threads: " + ", ".join(t.name for t in leaked_threads))
    if leaked_fds:
        problems.append("fds: " + ", ".join(sorted(leaked_fds)))
    pytest.fail("test leaked " + "; ".join(problems))


# The floor tests' real servers (mosquitto, PostgreSQL), shared per module.
from floor_fixtures import floor_broker, floor_database  # noqa: E402, F401


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--journal-format",
        type=int,
        choices=(1, 2),
        default=2,
        help="the storage format of every journal the tests create (docs/journal.md;"
        " default 2, the station's own)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # For the whole process (each xdist worker runs this too): a module's or a session's
    # fixture makes its journals in the chosen format as well.
    from controller.journal import creation

    creation.DEFAULT_FORMAT = config.getoption("--journal-format")
    config.addinivalue_line(
        "markers",
        "journal_format(n): every journal the test creates is storage format n, whatever"
        " --journal-format says (a test of that format's own storage)",
    )


@pytest.fixture(autouse=True)
def journal_format(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test marked ``journal_format(n)`` makes its journals in format ``n`` (a test of a
    format's own tables, triggers or query plans); every other test in the format
    ``--journal-format`` names (2 when it names none: the whole suite runs on either)."""
    marker = request.node.get_closest_marker("journal_format")
    if marker is not None:
        from controller.journal import creation

        monkeypatch.setattr(creation, "DEFAULT_FORMAT", marker.args[0])
