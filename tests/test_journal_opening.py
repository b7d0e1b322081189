"""Opening a journal for writing (``controller.journal.opening``; docs/journal.md): SQLite's
settings, the storage formats this program writes, the head record and the sealing state
checked against the journal, one writer at a time, and nothing left open by a refusal.
Fast: small journals made in the test."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path

import pytest

from controller.journal.format import (
    JournalCorruptError,
    JournalLockedError,
    JournalTruncatedError,
    JournalWriteError,
    head_path,
    head_record,
)
from controller.journal.opening import JournalSealError
from controller.journal.seal import SealingState, load_state, new_sealing, save_state
from controller.journal.storage import JournalConnection
from controller.journal.store import Journal
from controller.journal.verify import verify


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


def rows(path: Path, count: int, storage_format: int = 2) -> list[tuple[int, str]]:
    """``count`` rows in a new journal at ``path``: their (id, hash)."""
    with Journal.open(path, storage_format=storage_format) as journal:
        for n in range(count):
            journal.append("event", {"n": n})
    conn = sqlite3.connect(path)
    try:
        from controller.journal.storage import storage_of

        return [(row.id, row.hash) for row in storage_of(conn).rows()]
    finally:
        conn.close()


@pytest.mark.parametrize("storage_format", [1, 2])
def test_the_writer_opens_in_wal_mode_syncing_every_commit(path: Path, storage_format: int) -> None:
    """docs/journal.md: durable before acting, WAL mode and ``synchronous=FULL``; the WAL
    shrinks back to 8 MiB after a checkpoint."""
    with Journal.open(path, storage_format=storage_format) as journal:
        conn = journal._conn
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL
        assert conn.execute("PRAGMA journal_size_limit").fetchone() == (8 * 1024 * 1024,)
        assert not conn.in_transaction


#: Format 1's table as its schema makes it (controller.journal.schema.SCHEMA).
FORMAT_1_TABLE = """CREATE TABLE journal (
    id INTEGER PRIMARY KEY, ts TEXT NOT NULL, kind TEXT NOT NULL, round INTEGER,
    data TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL) STRICT"""


def made_by_hand(path: Path, version: str | None) -> None:
    """A file with the journal's two tables (so not half-made) and ``version``."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")  # as the writer makes every journal
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT")
    conn.execute(FORMAT_1_TABLE)
    if version is not None:
        conn.execute("INSERT INTO meta VALUES ('schema_version', ?)", (version,))
    conn.commit()
    conn.close()


@pytest.mark.parametrize("version", ["3", "0", "12", "x"])
def test_a_storage_format_this_program_does_not_write_is_refused_untouched(
    path: Path, version: str
) -> None:
    made_by_hand(path, version)
    before = path.read_bytes()
    fds = open_fds()
    with pytest.raises(JournalCorruptError) as refused:
        Journal.open(path)
    assert str(refused.value) == (
        f"{path}: journal schema version {version} is not supported (this program"
        " writes versions 1, 2)"
    )
    assert path.read_bytes() == before  # refused before the schema touched it
    assert open_fds() == fds


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_journal_keeps_its_storage_format(path: Path, storage_format: int) -> None:
    Journal.open(path, storage_format=storage_format).close()
    with Journal.open(path, storage_format=3 - storage_format) as journal:
        journal.append("station_started", {})
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT value FROM meta").fetchall() == [(str(storage_format),)]
        tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
    assert ("journal_commit" in tables) == (storage_format == 2)
    assert verify(path).ok


def test_a_journal_without_a_version_is_format_1(path: Path) -> None:
    made_by_hand(path, None)
    with Journal.open(path, storage_format=2) as journal:
        journal.append("station_started", {})
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT value FROM meta").fetchall() == [("1",)]
    finally:
        conn.close()
    assert verify(path).ok


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_head_record_at_or_behind_the_last_row_with_its_hash_opens(
    path: Path, storage_format: int
) -> None:
    """The head is written after each commit: a crash between them leaves it one commit
    behind, which is fine; at row 0 it names no row (any hash)."""
    written = rows(path, 3, storage_format)
    for row_id, digest in [*written, (0, "f" * 64)]:
        head_path(path).write_bytes(head_record(row_id, digest))
        with Journal.open(path) as journal:
            assert journal.last_id == 3
        assert head_path(path).read_bytes() == head_record(*written[-1])


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_head_record_ahead_of_the_journal_is_truncation(path: Path, storage_format: int) -> None:
    written = rows(path, 3, storage_format)
    for ahead in (4, 9):
        head_path(path).write_bytes(head_record(ahead, written[-1][1]))
        fds = open_fds()
        with pytest.raises(JournalTruncatedError) as refused:
            Journal.open(path)
        assert str(refused.value) == (
            f"{path}: rows 4..{ahead} are missing (the head record is ahead of the database)"
        )
        assert open_fds() == fds


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_head_record_whose_row_differs_is_corruption(path: Path, storage_format: int) -> None:
    written = rows(path, 3, storage_format)
    for row_id in (1, 3):
        head_path(path).write_bytes(head_record(row_id, "0" * 64))
        with pytest.raises(JournalCorruptError) as refused:
            Journal.open(path)
        assert str(refused.value) == f"{path}: row {row_id} differs from the head record"
    head_path(path).write_bytes(head_record(2, written[1][1]))
    Journal.open(path).close()


def test_one_writer_at_a_time(path: Path) -> None:
    with Journal.open(path):
        fds = open_fds()
        with pytest.raises(JournalLockedError) as refused:
            Journal.open(path)
        assert str(refused.value) == f"{path} is open for writing by another process"
        assert open_fds() == fds
    with Journal.open(path) as journal:  # the lock goes with the writer
        journal.append("station_started", {})


def test_a_new_head_record_is_the_writers_alone(path: Path) -> None:
    umask = os.umask(0o022)
    try:
        Journal.open(path).close()
    finally:
        os.umask(umask)
    assert head_path(path).stat().st_mode & 0o777 == 0o640


def test_a_journal_that_is_a_folder_is_one_line(path: Path) -> None:
    path.mkdir()
    fds = open_fds()
    with pytest.raises(JournalWriteError) as refused:
        Journal.open(path)
    assert str(refused.value).startswith(f"cannot open {path}: ")
    assert open_fds() == fds


def test_a_file_that_is_no_database_is_corrupt_and_left(path: Path) -> None:
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    head_path(path).write_bytes(head_record(5, "a" * 64))
    fds = open_fds()
    with pytest.raises(JournalCorruptError) as refused:
        Journal.open(path)
    assert str(refused.value).startswith(f"{path}: ")
    assert open_fds() == fds
    assert path.read_bytes() == b"SQLite format 3\x00" + b"\xff" * 4000


# --- the sealing state against the journal's last seal -----------------------------------


@pytest.fixture
def sealed(tmp_path: Path, path: Path) -> tuple[Path, SealingState]:
    """A journal with two seals (epochs 0 and 1): its state file holds epoch 2."""
    state, _key = new_sealing("T1")
    state_path = tmp_path / "sealing-key"
    save_state(state_path, state)
    with Journal.open(path, sealing=state_path, storage_format=1) as journal:
        for n in range(2):
            journal.append("event", {"n": n})
            assert journal.seal()
    assert load_state(state_path).epoch == 2
    return state_path, state


def refusal(path: Path, state_path: Path) -> str:
    fds = open_fds()
    with pytest.raises(JournalSealError) as refused:
        Journal.open(path, sealing=state_path)
    assert open_fds() == fds
    return str(refused.value)


def test_a_state_one_epoch_ahead_of_the_last_seal_opens_as_it_is(
    path: Path, sealed: tuple[Path, SealingState]
) -> None:
    state_path, _ = sealed
    text = state_path.read_text()
    with Journal.open(path, sealing=state_path) as journal:
        assert journal.epoch == 2
    assert state_path.read_text() == text


def test_a_state_at_the_last_seals_epoch_is_evolved(
    path: Path, sealed: tuple[Path, SealingState]
) -> None:
    """The station stopped between the seal and the key's evolution: finished at open."""
    state_path, state = sealed
    at_last = state.evolved()  # epoch 1, the last seal's
    save_state(state_path, at_last)
    with Journal.open(path, sealing=state_path) as journal:
        assert journal.epoch == 2
    assert load_state(state_path) == at_last.evolved()


@pytest.mark.parametrize("epoch", [0, 3, 7])
def test_a_state_epochs_away_from_the_last_seal_is_refused(
    path: Path, sealed: tuple[Path, SealingState], epoch: int
) -> None:
    state_path, state = sealed
    save_state(state_path, SealingState("T1", epoch, state.key))
    if epoch == 0:
        assert refusal(path, state_path) == (
            "the sealing key (epoch 0) is older than the journal's last seal (epoch 1):"
            " a restored key file?"
        )
    else:
        assert refusal(path, state_path) == (
            "the journal is behind its sealing key: the seals of epochs 2.."
            f"{epoch - 1} are missing (rows removed at the end, or an older copy)"
        )


def test_a_state_of_another_table_is_refused(path: Path, sealed: tuple[Path, SealingState]) -> None:
    state_path, state = sealed
    save_state(state_path, SealingState("T9", 2, state.key))
    assert refusal(path, state_path) == "the journal is sealed for table T1, the key is T9"


def test_a_new_journal_takes_a_state_of_epoch_0_or_1(tmp_path: Path, path: Path) -> None:
    """No seal yet: a state of epoch 0 (a new table), or 1 (the first seal's key evolved
    and the seal lost with the rest: refused, as a journal behind its key would be)."""
    state, _ = new_sealing("T1")
    state_path = tmp_path / "sealing-key"
    save_state(state_path, state.evolved().evolved())
    assert refusal(path, state_path) == (
        "the journal is behind its sealing key: the seals of epochs 0..1 are missing"
        " (rows removed at the end, or an older copy)"
    )
    save_state(state_path, state)
    with Journal.open(path, sealing=state_path) as journal:
        assert (journal.epoch, journal.sealed_through) == (0, 0)


def test_a_state_file_that_is_a_symlink_is_refused(tmp_path: Path, path: Path) -> None:
    state, _ = new_sealing("T1")
    save_state(tmp_path / "real-key", state)
    (tmp_path / "sealing-key").symlink_to(tmp_path / "real-key")
    assert refusal(path, tmp_path / "sealing-key") == (
        f"sealing state {tmp_path / 'sealing-key'} is a symlink: name the file itself"
    )


@pytest.mark.parametrize("text", ["", "{}", "not json", '{"version": 9}'])
def test_an_unreadable_state_is_refused_naming_the_file(
    tmp_path: Path, path: Path, text: str
) -> None:
    state_path = tmp_path / "sealing-key"
    state_path.write_text(text)
    assert refusal(path, state_path).startswith(f"sealing state {state_path}: the sealing state")
    state_path.unlink()
    assert refusal(path, state_path).startswith(f"sealing state {state_path}: ")


def test_a_state_of_the_earlier_version_is_written_again_in_todays(
    tmp_path: Path, path: Path
) -> None:
    state, _ = new_sealing("T1")
    state_path = tmp_path / "sealing-key"
    version_1 = {"version": 1, "table": "T1", "epoch": 0, "key": state.key.hex()}
    state_path.write_text(json.dumps(version_1))
    with Journal.open(path, sealing=state_path) as journal:
        assert journal.epoch == 0
    assert state_path.read_text() == SealingState("T1", 0, state.key).to_json() + "\n"


def test_a_stale_temporary_of_the_state_is_removed_at_open(
    path: Path, sealed: tuple[Path, SealingState]
) -> None:
    state_path, _ = sealed
    stale = state_path.with_name(f".{state_path.name}.12345.tmp")
    stale.write_text("the next epoch's key")
    Journal.open(path, sealing=state_path).close()
    assert not stale.exists()


def test_an_unreadable_last_seal_is_refused(path: Path, sealed: tuple[Path, SealingState]) -> None:
    state_path, _ = sealed
    conn = sqlite3.connect(path)  # a seal row written by hand (format 1: a row of SQL)
    try:
        (last,) = conn.execute("SELECT max(id) FROM journal").fetchone()
        conn.execute(
            "INSERT INTO journal VALUES (?, '2026-12-01T09:00:00.000000Z', 'seal', NULL,"
            ' \'{"epoch":"two","table":"T1"}\', \'x\', \'y\')',
            (last + 1,),
        )
        conn.commit()
    finally:
        conn.close()
    assert refusal(path, state_path) == f"row {last + 1}: the last seal is unreadable"


def test_the_writer_is_thread_safe_and_each_append_is_committed_when_it_returns(
    path: Path,
) -> None:
    """``Journal`` is thread-safe (its docstring): a row appended from another thread than
    the one that opened it is written, and committed when ``append`` returns (a reader's
    connection sees it while the writer is still open)."""
    with Journal.open(path) as journal:
        errors: list[BaseException] = []

        def append() -> None:
            try:
                journal.append("event", {"from": "worker"})
            except BaseException as err:
                errors.append(err)

        worker = threading.Thread(target=append)
        worker.start()
        worker.join()
        assert errors == []
        journal.append("event", {"from": "opener"})
        reader = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            from controller.journal.storage import storage_of

            seen = [row.data_text for row in storage_of(reader).rows()]
        finally:
            reader.close()
    assert seen == ['{"from":"worker"}', '{"from":"opener"}']


def test_a_state_that_needs_no_change_is_not_written_again(
    path: Path, sealed: tuple[Path, SealingState]
) -> None:
    """The key file is replaced only to evolve it or to write an earlier version in
    today's: an open that needs neither leaves the file itself alone."""
    state_path, _ = sealed
    inode = state_path.stat().st_ino
    Journal.open(path, sealing=state_path).close()
    assert state_path.stat().st_ino == inode


def test_a_key_that_cannot_be_evolved_is_refused_in_one_line(
    path: Path, sealed: tuple[Path, SealingState]
) -> None:
    state_path, state = sealed
    save_state(state_path, state.evolved())  # at the last seal's epoch: to be evolved
    # the temporary save_state writes is taken by a folder
    state_path.with_name(f".{state_path.name}.{os.getpid()}.tmp").mkdir()
    assert refusal(path, state_path) == "cannot write the sealing key: Is a directory"
    assert load_state(state_path) == state.evolved()


def test_a_wal_that_cannot_be_opened_is_a_write_error(path: Path) -> None:
    """Not the file's fault (here its ``-wal`` is a folder; a full disk alike): one line
    naming the journal, nothing left open."""
    Journal.open(path).close()
    path.with_name(path.name + "-wal").mkdir()
    fds = open_fds()
    with pytest.raises(JournalWriteError) as refused:
        Journal.open(path)
    assert str(refused.value) == f"cannot open {path}: unable to open database file"
    assert open_fds() == fds


def test_sqlite_refusing_wal_mode_is_a_write_error(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real connection answers every statement but that one (a file system where
    SQLite cannot keep a WAL answers with the mode it stays in)."""
    Journal.open(path).close()

    class RefusingWal(JournalConnection):
        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
            if sql == "PRAGMA journal_mode=WAL":
                return super().execute("SELECT 'delete'")
            return super().execute(sql, *args)  # type: ignore[arg-type]

    connect = sqlite3.connect
    monkeypatch.setattr(
        sqlite3, "connect", lambda *a, **k: connect(*a, **{**k, "factory": RefusingWal})
    )
    fds = open_fds()
    with pytest.raises(JournalWriteError) as refused:
        Journal.open(path)
    assert str(refused.value) == f"{path}: SQLite refused WAL mode (delete)"
    assert open_fds() == fds


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_schema_whose_text_is_not_utf8_is_damage_in_one_line(
    path: Path, storage_format: int
) -> None:
    """A flipped byte in a schema statement: Python's sqlite3 raises UnicodeDecodeError
    quoting it; the open answers JournalCorruptError naming the file, and leaves it."""
    Journal.open(path, storage_format=storage_format).close()
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"CREATE TABLE") + 3] = 0xFF
    path.write_bytes(bytes(raw))
    fds = open_fds()
    with pytest.raises(JournalCorruptError) as refused:
        Journal.open(path)
    assert str(refused.value) == (
        f"{path}: file is not a database: its schema is damaged (text that is not UTF-8)"
    )
    assert path.read_bytes() == bytes(raw)
    assert open_fds() == fds


def test_the_new_head_records_entry_is_synced_and_an_existing_ones_is_not(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new head record's directory entry is made to survive a power cut (the folder
    synced, then again for the journal's rename); opening what exists syncs no folder."""
    synced: list[str] = []
    fsync = os.fsync

    def recorded(fd: int) -> None:
        target = Path(os.readlink(f"/proc/self/fd/{fd}"))
        if target.is_dir():
            synced.append(target.name)
        fsync(fd)

    monkeypatch.setattr(os, "fsync", recorded)
    Journal.open(path).close()
    assert synced == [path.parent.name, path.parent.name]
    synced.clear()
    Journal.open(path).close()
    assert synced == []


def test_a_head_record_that_cannot_be_opened_is_a_write_error(path: Path) -> None:
    head_path(path).mkdir()
    with pytest.raises(JournalWriteError) as refused:
        Journal.open(path)
    assert str(refused.value) == f"cannot open {head_path(path)}: Is a directory"
    assert not path.exists()


def test_a_leftover_that_cannot_be_removed_fails_only_a_creation(path: Path) -> None:
    """A temporary of a creation cut short that cannot go (here a folder in its name):
    an existing journal opens all the same; a journal to be made is refused in one line."""
    blocked = path.with_name(f".{path.name}.creating")
    blocked.mkdir()
    (blocked / "inside").write_bytes(b"")
    with pytest.raises(JournalWriteError) as refused:
        Journal.open(path)
    assert str(refused.value).startswith(f"cannot create {path}: ")
    blocked.rename(path.with_name("aside"))
    Journal.open(path).close()
    path.with_name("aside").rename(blocked)
    with Journal.open(path) as journal:
        assert journal.replaced_half_made is False
        journal.append("station_started", {})
    assert verify(path).ok
