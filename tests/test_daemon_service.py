"""``dealer-station run`` as systemd runs it: the real daemon in a subprocess, all devices
simulated, talking sd_notify to a socket this test binds.

Start -> READY=1 -> STATUS= and WATCHDOG=1 -> SIGTERM -> exit 0 with a verified journal
ending in ``clean_shutdown``; the start refusals (bad configuration, a journal that fails
verification, a journal another writer holds) are one line and exit status 2; and the
watchdog is fed only by the main loop, so a hung loop stops feeding it. A SIGTERM during
the start, in-process, is in ``tests/test_daemon_start.py``.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from daemon_support import (
    DEALER_STATION,
    NotifyListener,
    assignments,
    journal_dir,
    station_toml,
)
from journal_tamper_support import tamper
from table_support import RecordingPanel, RecordingReader, RecordingShuffler

from controller.journal.store import Journal, JournalReader
from controller.journal.verify import VerifyCase, verify
from controller.rules.profiles import get_profile
from controller.service.sdnotify import Notifier
from controller.service.station import Station
from controller.table.machine import TableDevices, TableSettings
from controller.table.procedure import Table
from controller.table.view import TableView
from drivers.hal import DeviceEvent, SupervisorKey

START_TIMEOUT = 20.0  # generous for a loaded CI machine; READY normally comes in ~1 s
WATCHDOG_USEC = 200_000  # pings every 0.1 s


@pytest.fixture
def journals(tmp_path: Path) -> Iterator[Path]:
    with journal_dir(tmp_path) as path:
        yield path


@pytest.fixture
def listener() -> Iterator[NotifyListener]:
    sock = NotifyListener()
    yield sock
    sock.close()


def start_daemon(
    tmp_path: Path, config: Path, listener: NotifyListener | None = None
) -> subprocess.Popen[bytes]:
    env = dict(os.environ, TMPDIR=str(tmp_path))  # the rig's ptys land under tmp_path
    env.pop("NOTIFY_SOCKET", None)
    if listener is not None:
        env.update(NOTIFY_SOCKET=listener.address, WATCHDOG_USEC=str(WATCHDOG_USEC))
    with (tmp_path / "daemon.log").open("ab") as log:
        return subprocess.Popen(
            [str(DEALER_STATION), "run", "--config", str(config), "--simulated-devices"],
            stdout=log,
            stderr=subprocess.PIPE,
            env=env,
        )


@contextmanager
def running(
    tmp_path: Path, config: Path, listener: NotifyListener | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """The daemon, killed if the test leaves it running."""
    child = start_daemon(tmp_path, config, listener)
    try:
        yield child
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        assert child.stderr is not None
        child.stderr.close()


def stderr_until(child: subprocess.Popen[bytes], pattern: str, timeout: float) -> str:
    """What ``child`` has written on stderr once it matches ``pattern`` (a regular
    expression), read in a thread to the child's end, so a silent child cannot hang the
    test past ``timeout``.

    Raises:
        TimeoutError: no match within ``timeout`` seconds.
    """
    assert child.stderr is not None
    fd = child.stderr.fileno()
    chunks: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: [chunks.put(c) for c in iter(lambda: os.read(fd, 65536), b"")],
                     daemon=True).start()  # fmt: skip
    seen = ""
    deadline = time.monotonic() + timeout
    while not re.search(pattern, seen):
        try:
            seen += chunks.get(timeout=max(deadline - time.monotonic(), 0.0)).decode()
        except queue.Empty:
            raise TimeoutError(f"{pattern!r} not on stderr within {timeout} s: {seen!r}") from None
    return seen


def refused(tmp_path: Path, config: Path) -> str:
    """Run the daemon expecting a refusal: exit 2 and exactly one line on stderr."""
    child = start_daemon(tmp_path, config)
    _, err = child.communicate(timeout=START_TIMEOUT)
    lines = err.decode().splitlines()
    assert child.returncode == 2, err.decode()
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    return lines[0]


def test_start_ready_watchdog_sigterm_clean_shutdown(
    tmp_path: Path, journals: Path, listener: NotifyListener
) -> None:
    journal = journals / "journal.sqlite3"
    with running(tmp_path, station_toml(tmp_path, journal), listener) as child:
        ready = listener.wait_for(lambda m: "READY=1" in m.split("\n"), START_TIMEOUT)
        # READY carries the state: the first shuffle was commanded at start.
        assert assignments(ready)["STATUS"].startswith(("shuffling, round 0", "loading, round 0"))
        # The double finishes the shuffle: the state change is reported in STATUS=.
        listener.wait_for(lambda m: m == "STATUS=loading, round 0", START_TIMEOUT)
        for _ in range(3):
            listener.wait_for(lambda m: m == "WATCHDOG=1", 5.0)
        assert child.poll() is None
        # SIGUSR1 (docs/operations.md, "Running"): every thread's stack on stderr, the
        # station's loop among them, and the station goes on feeding the watchdog.
        child.send_signal(signal.SIGUSR1)
        stacks = stderr_until(
            child, r'(?s)most recent call first.*station\.py", line \d+ in run\n', START_TIMEOUT
        )
        assert "Current thread" in stacks or "Thread 0x" in stacks, stacks
        listener.wait_for(lambda m: m == "WATCHDOG=1", 5.0)
        assert child.poll() is None
        child.send_signal(signal.SIGTERM)
        listener.wait_for(lambda m: m.startswith("STOPPING=1"), 5.0)
        assert child.wait(timeout=5.0) == 0
    report = verify(journal)
    assert report.case is VerifyCase.INTACT, report.message
    with JournalReader.open(journal) as reader:
        rows = list(reader.rows())
    kinds = [r.kind for r in rows]
    assert kinds[:2] == ["verified", "station_started"] and kinds[-1] == "clean_shutdown"
    assert "recovered" in kinds and "shuffle_commanded" in kinds and "shuffle_done" in kinds
    # NY 5324.12(d)(2): the limits posted at the table (examples/station.toml's [limits]).
    assert rows[1].data["limits"] == {
        "main_min_cents": 1000,
        "main_max_cents": 500_000,
        "match_min_cents": 500,
        "match_max_cents": 10_000,
    }
    # Write-ahead: nothing is commanded before the journal check and the restore are done.
    assert kinds.index("recovered") < kinds.index("shuffle_commanded")
    # JSON lines on stdout (not a terminal), each with the table id, from every thread.
    lines = [json.loads(line) for line in (tmp_path / "daemon.log").read_text().splitlines()]
    assert {"device connected", "ready", "stopped"} <= {line["event"] for line in lines}
    assert {line["table_id"] for line in lines} == {"PA-S21-07"}


def test_restart_after_clean_shutdown_continues_where_it_stood(
    tmp_path: Path, journals: Path, listener: NotifyListener
) -> None:
    journal = journals / "journal.sqlite3"
    config = station_toml(tmp_path, journal)
    for ready in ("STATUS=loading, round 0", "READY=1\nSTATUS=loading, round 0"):
        with running(tmp_path, config, listener) as child:
            listener.wait_for(lambda m, wanted=ready: m == wanted, START_TIMEOUT)
            child.send_signal(signal.SIGTERM)
            assert child.wait(timeout=5.0) == 0
    assert verify(journal).ok
    with JournalReader.open(journal) as reader:
        recovered = [r.data for r in reader.rows(kinds=("recovered",))]
        assert [r.kind for r in reader.rows()][-1] == "clean_shutdown"
    # The second start found the table waiting for the shoe and kept it there.
    assert recovered == [{"state": "starting", "round": 0}, {"state": "loading", "round": 0}]


def test_a_bad_configuration_is_one_line_naming_file_and_key(tmp_path: Path) -> None:
    config = station_toml(tmp_path, tmp_path / "journal.sqlite3", extra="tabel_id = 'X'\n")
    line = refused(tmp_path, config)
    assert str(config) in line and "tabel_id" in line
    assert not (tmp_path / "journal.sqlite3").exists()  # nothing started


def test_a_wrong_type_is_one_line_too(tmp_path: Path) -> None:
    config = station_toml(tmp_path, tmp_path / "journal.sqlite3")
    config.write_text(config.read_text().replace("decks = 6", 'decks = "six"'))
    line = refused(tmp_path, config)
    assert str(config) in line and "decks" in line


def test_a_journal_that_fails_verification_refuses_the_start(
    tmp_path: Path, journals: Path
) -> None:
    journal = journals / "journal.sqlite3"
    with Journal.open(journal) as writer:
        for n in range(5):
            writer.append("note", {"n": n})
    # Someone edits row 3 behind the journal's back (dropping the append-only trigger).
    tamper(journal, "UPDATE journal SET data = '{\"n\":30}' WHERE id = 3")
    before = journal.read_bytes()
    line = refused(tmp_path, station_toml(tmp_path, journal))
    assert str(journal) in line and "failed verification" in line and "row 3" in line
    assert journal.read_bytes() == before  # not a row added


def _sealed_config(tmp_path: Path, journal: Path) -> tuple[Path, Path]:
    """station.toml with the sealing state in ``tmp_path``, made by ``journal setup-keys``."""
    from controller.cli.main import main

    key = tmp_path / "sealing-key"
    assert main(["journal", "setup-keys", "--table", "PA-S21-07", "--key-file", str(key)]) == 0
    config = station_toml(tmp_path, journal)
    text = config.read_text()
    default = 'sealing_key = "/var/lib/dealer-station/sealing-key"'
    assert default in text
    config.write_text(text.replace(default, f'sealing_key = "{key}"'))
    return config, key


def _start_and_stop(
    tmp_path: Path, config: Path, journal: Path, listener: NotifyListener
) -> list[dict[str, Any]]:
    """Run the daemon to READY, stop it with SIGTERM; its journal's station_started rows."""
    with running(tmp_path, config, listener) as child:
        listener.wait_for(lambda m: "READY=1" in m.split("\n"), START_TIMEOUT)
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=5.0) == 0
    with JournalReader.open(journal) as reader:
        return [r.data for r in reader.rows(kinds=("station_started",))]


def test_a_sealed_journal_whose_key_is_gone_refuses_the_start(
    tmp_path: Path, journals: Path, listener: NotifyListener
) -> None:
    """Forward-secure sealing: the key of a sealed journal removed (to go on unsealed and
    rewrite what follows) stops the start, one line, the journal untouched. A journal never
    sealed still starts unsealed, with a warning (docs/operations.md)."""
    journal = journals / "journal.sqlite3"
    config, key = _sealed_config(tmp_path, journal)
    _start_and_stop(tmp_path, config, journal, listener)
    with JournalReader.open(journal) as reader:
        assert any(r.kind == "seal" for r in reader.rows())
    key.unlink()
    before = journal.read_bytes()
    line = refused(tmp_path, config)
    assert str(journal) in line and str(key) in line and "is sealed" in line
    assert journal.read_bytes() == before  # not a row added
    # docs/operations.md, "Starting a new journal": archive the journal (its key is gone),
    # make a new key, start: a new journal, sealed from its first row.
    archive = journals / "archive"
    archive.mkdir()
    for part in journals.glob("journal.sqlite3*"):
        part.rename(archive / part.name)
    from controller.cli.main import main

    assert main(["journal", "setup-keys", "--config", str(config)]) == 0
    started = _start_and_stop(tmp_path, config, journal, listener)
    assert [s["sealed"] for s in started] == [True]
    assert (archive / "journal.sqlite3").read_bytes() == before
    # A journal never sealed, the same missing key: it starts unsealed, as before.
    key.unlink()
    other = journals / "never-sealed.sqlite3"
    with Journal.open(other) as writer:
        writer.append("note", {"n": 1})
    unsealed = station_toml(tmp_path, other)
    started = _start_and_stop(tmp_path, unsealed, other, listener)
    assert started[-1]["sealed"] is False


def test_a_journal_held_by_another_writer_refuses_the_start(tmp_path: Path, journals: Path) -> None:
    journal = journals / "journal.sqlite3"
    with Journal.open(journal) as writer:
        writer.append("note", {"n": 1})
        line = refused(tmp_path, station_toml(tmp_path, journal))
        assert str(journal) in line and "another process" in line
        assert writer.last_id == 1
    with JournalReader.open(journal) as reader:
        assert [r.kind for r in reader.rows()] == ["note"]


def test_a_hung_main_loop_stops_feeding_the_watchdog(
    tmp_path: Path, journals: Path, listener: NotifyListener
) -> None:
    """The watchdog is fed from the loop itself, not a timer: block the loop (an observer
    that does not return, as a handler stuck on a dead disk would) and the pings stop."""
    interval = 0.02
    notifier = Notifier(
        {"NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": str(int(interval * 2e6))}
    )
    journal = Journal.open(journals / "journal.sqlite3")
    table = Table(
        TableSettings(get_profile("PA"), 6),
        TableDevices(RecordingShuffler(), RecordingPanel(), RecordingReader()),
        journal,
    )
    release, blocked = threading.Event(), threading.Event()

    def observer(event: DeviceEvent, view: TableView, idle: bool) -> None:
        blocked.set()
        release.wait(timeout=30)

    events: queue.Queue[DeviceEvent] = queue.Queue()
    station = Station(table, journal, [], events, notifier, observer=observer, poll_seconds=0.005)
    loop = threading.Thread(target=station.run, name="station-loop")
    loop.start()
    try:
        listener.wait_for(lambda m: m.startswith("READY=1"), START_TIMEOUT)
        listener.wait_for(lambda m: m == "WATCHDOG=1", 5.0)
        events.put(SupervisorKey(True))
        assert blocked.wait(timeout=5)
        listener.drain()  # a ping sent just before the loop took the event
        with pytest.raises(TimeoutError):  # 15 intervals without one ping
            listener.wait_for(lambda m: m == "WATCHDOG=1", 15 * interval)
        release.set()
        listener.wait_for(lambda m: m == "WATCHDOG=1", 5.0)
    finally:
        release.set()
        station.stop()
        loop.join(timeout=5)
        journal.close()
        notifier.close()
        table.close()
    assert not loop.is_alive()


class SilentDevice:
    """A device that opens and never reports in (a shoe that does not answer)."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.closed = False

    def start(self) -> None:
        self.started.set()

    def close(self) -> None:
        self.closed = True


def test_sigterm_while_waiting_for_a_device_stops_at_once(journals: Path) -> None:
    """A stop asked for during the start is not kept waiting for the device timeout, and
    still ends with a clean shutdown; the table is not commanded and READY is not sent."""
    journal = Journal.open(journals / "journal.sqlite3")
    shuffler = RecordingShuffler()
    table = Table(
        TableSettings(get_profile("PA"), 6),
        TableDevices(shuffler, RecordingPanel(), RecordingReader()),
        journal,
    )
    silent, never_started = SilentDevice(), SilentDevice()
    station = Station(table, journal, [silent, never_started], queue.Queue(), connect_timeout=60.0)
    loop = threading.Thread(target=station.run, name="station-loop")
    loop.start()
    try:
        assert silent.started.wait(timeout=5)
        station.stop()
        loop.join(timeout=5)
        assert not loop.is_alive()
    finally:
        station.stop()
        loop.join(timeout=5)
        table.close()
        journal.close()
    assert silent.closed and not never_started.started.is_set()
    assert not station.stats.started and shuffler.commands == []
    with JournalReader.open(journals / "journal.sqlite3") as reader:
        assert [r.kind for r in reader.rows()] == ["clean_shutdown"]
