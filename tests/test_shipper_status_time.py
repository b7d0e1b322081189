"""The status's time is when the shipper read the journal for its head (docs/floor.md,
"Status"): every row committed by that time is in the head, so a collector that merged a
row the status does not hold knows the row was committed after the status's time.

The real shipper's reading (``Shipper._open``, ``Shipper._scan``) on a real journal
(SQLite, WAL, the station's writer in the same process), and the status as the shipper
publishes it (``Outbox.status``, built after the scan, as ``Shipper._publish`` does). No
broker: nothing here is sent. The station commits a row at the chosen moment: as the
shipper reads its clock, or between its read and the status.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from controller.journal.format import Row, format_ts, utc_now
from controller.journal.reader import JournalReader, select_rows
from controller.journal.store import Journal
from controller.journal.wire import Status
from controller.service.config_floor import FloorSettings
from controller.service.shipper import Shipper

TABLE = "T41"


def settings(tmp_path: Path) -> FloorSettings:
    """Settings of a shipper that is never started (no broker, no password read)."""
    return FloorSettings("127.0.0.1", 1, TABLE, tmp_path / "no-password", None)


def rows_of(path: Path) -> list[Row]:
    with JournalReader.open(path) as reader:
        return list(reader.query(lambda conn: list(select_rows(conn))))


def claimed_but_missing(status: Status, rows: list[Row]) -> list[int]:
    """The rows stamped before the status's time that its head does not hold (a station
    whose status says so would have lost them)."""
    return [r.id for r in rows if r.ts < status.ts and r.id > status.head[0]]


@contextmanager
def reading(path: Path, shipper: Shipper) -> Iterator[Callable[[], Status]]:
    """The shipper's connection to the journal at ``path``: yields one step of its loop,
    a scan then the status it would publish."""
    conn = shipper._open()
    assert conn is not None
    try:

        def step() -> Status:
            shipper._scan(conn)
            return shipper.outbox.status()

        yield step
    finally:
        conn.close()


def test_a_row_committed_as_the_shipper_reads_its_clock_is_in_the_head(tmp_path: Path) -> None:
    """The time is read before the journal: a row committed by then is in the head."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("station_started", {"table_id": TABLE})
        committed: list[int] = []

        def clock() -> datetime:
            # The station commits a row (stamped now) at the instant the shipper reads
            # the time; the time is after its commit.
            committed.append(journal.append("device", {"device": "shoe", "status": "lost"}))
            return utc_now()

        shipper = Shipper(path, TABLE, settings(tmp_path), clock=clock)
        with reading(path, shipper) as step:
            status = step()
    rows = rows_of(path)
    assert committed == [2]
    assert status.head == (2, rows[1].hash)
    assert rows[1].ts < status.ts  # the row's time is before the status's ...
    assert claimed_but_missing(status, rows) == []  # ... and the head holds it
    assert shipper.outbox.devices == {"shoe": "lost"}


def test_a_row_committed_after_the_read_is_after_the_status_time(tmp_path: Path) -> None:
    """A row committed between the shipper's read and its status (``_publish`` builds the
    status after sending rows) is not in the head, and its time is after the status's:
    the status does not claim it. A time taken when the status is built would."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("station_started", {"table_id": TABLE})
        shipper = Shipper(path, TABLE, settings(tmp_path))
        conn = shipper._open()
        assert conn is not None
        try:
            shipper._scan(conn)
            journal.append("device", {"device": "shoe", "status": "lost"})  # row 2, now
            status = shipper.outbox.status()
        finally:
            conn.close()
    rows = rows_of(path)
    assert status.head == (1, rows[0].hash)
    assert status.ts < rows[1].ts
    assert claimed_but_missing(status, rows) == []


def test_with_no_commit_since_the_last_read_the_time_moves_on_and_the_head_stays(
    tmp_path: Path,
) -> None:
    """``PRAGMA data_version`` unchanged: nothing was committed since the last read, so
    the head read then is the head at the new time; the next commit is read at once."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("station_started", {"table_id": TABLE})
        shipper = Shipper(path, TABLE, settings(tmp_path))
        with reading(path, shipper) as step:
            first = step()
            while format_ts(utc_now()) <= first.ts:
                pass  # the clock's next microsecond (a status at the same time proves nothing)
            between = format_ts(utc_now())
            second = step()
            assert first.head == second.head and first.head[0] == 1
            assert first.ts < between <= second.ts  # a time read again, not kept
            journal.append("device", {"device": "shoe", "status": "lost"})  # row 2
            third = step()
    rows = rows_of(path)
    assert third.head == (2, rows[1].hash) and second.ts < rows[1].ts < third.ts
    for status in (first, second, third):
        assert claimed_but_missing(status, rows) == []
