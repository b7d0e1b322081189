"""Storage format 2 (docs/journal.md, "Storage format 2"): a commit a row, read through the
one reader of both formats (``controller.journal.storage``).

Every query gives the same rows from a format-1 and a format-2 file of the same appends
(hypothesis); a format-2 file changed in its commit rows, index tables, kinds, codec or
triggers is refused by ``journal verify`` in one line; a program that reads only format 1
refuses a format-2 file in one line; ``journal migrate`` proves the same last hash and
seals and leaves the format-1 file as it was when it fails (a full disk, a kill).
"""

from __future__ import annotations

import itertools
import random
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from journal_compat_support import verification_key
from test_journal_compat import CHECKPOINTS, CURRENT, FIXTURE, fixture_copy
from test_journal_storage import fill_leaving, on_small_disk

from controller.journal.anchor import latest_anchor
from controller.journal.format import TRIGGER_SQL_2, JournalCorruptError, head_path
from controller.journal.migrate import migrate_journal, migrating_path
from controller.journal.reader import JournalReader, open_readonly
from controller.journal.schema import apply_schema
from controller.journal.storage import Format1, Format2, Storage, storage_of
from controller.journal.store import Journal
from controller.journal.verify import VerifyCase, verify

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
KINDS = (
    "card",
    "event",
    "prompt",
    "state",
    "round_started",
    "round_completed",
    "shuffle_commanded",
    "burn",
    "hole_card_dealt",
    "hole_card_revealed",
    "x_custom",
)
SPOTS = ((1, "main"), (1, "match"), (2, "main"))


def fixed_clock() -> Callable[[], datetime]:
    moments = itertools.count()
    start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    return lambda: start + timedelta(milliseconds=1.5 * next(moments))


def _data(draw: st.DrawFn, kind: str) -> dict[str, Any]:
    data: dict[str, Any] = draw(
        st.dictionaries(
            st.text(min_size=1, max_size=6),
            st.one_of(st.integers(-(10**6), 10**6), st.text(max_size=12), st.none()),
            max_size=3,
        )
    )
    if kind == "event" and draw(st.booleans()):
        seat, spot = draw(st.sampled_from(SPOTS))
        data |= {"seat": seat, "spot": spot}
    return data


@st.composite
def commits(draw: st.DrawFn) -> list[list[tuple[str, dict[str, Any], int | None]]]:
    """Commits of rows: (kind, data, round)."""
    found = []
    for _ in range(draw(st.integers(1, 12))):
        commit = []
        for _ in range(draw(st.integers(1, 6))):
            kind = draw(st.sampled_from(KINDS))
            round_no = draw(st.one_of(st.none(), st.integers(0, 4)))
            commit.append((kind, _data(draw, kind), round_no))
        found.append(commit)
    return found


def write(
    path: Path, version: int, appends: list[list[tuple[str, dict[str, Any], int | None]]]
) -> None:
    with Journal.open(path, clock=fixed_clock(), storage_format=version) as journal:
        for commit in appends:
            if len(commit) == 1:
                journal.append(commit[0][0], commit[0][1], commit[0][2])
                continue
            with journal.batch():
                for kind, data, round_no in commit:
                    journal.append(kind, data, round_no)


def answers(storage: Storage) -> Iterator[object]:
    """Every query of the reader, over the whole file."""
    last = storage.last_id() or 0
    yield last, storage.count(), storage.tail()
    yield list(storage.raw_rows(0))
    for after, until in ((0, last // 2), (last // 3, None), (last - 1, last), (last, None)):
        yield list(storage.raw_rows(after, until))
    for row_id in range(0, last + 2):
        yield storage.row(row_id), storage.hash_of(row_id)
    kind_sets: list[list[str] | None] = [
        None,
        [],
        ["burn"],
        ["round_started", "shuffle_commanded"],
        ["card", "burn"],
        ["x_custom"],
        ["event"],
    ]
    for kinds, newest, limit, round_no in itertools.product(
        kind_sets, (False, True), (None, 1, 3), (None, 2)
    ):
        yield list(storage.rows(kinds=kinds, newest_first=newest, limit=limit, round_no=round_no))
    yield list(storage.rows(after_id=2, until_id=max(last - 2, 0)))
    yield list(
        storage.rows(ts_from="2026-12-01T09:00:00.004500Z", ts_to="2026-12-01T09:00:00.012Z")
    )
    for kind in KINDS:
        yield storage.last(kind), storage.last(kind, until_id=last // 2)
    for round_no in range(6):
        yield storage.round_start(round_no)
        yield storage.last_row_before_round(last + 1, round_no)
        yield list(storage.hole_rows(1, last, round_no))
    yield storage.round_starts(1), storage.round_starts(4)
    for (seat, spot), until in itertools.product(SPOTS, (last, last // 2)):
        yield storage.last_spot_report(seat, spot, until)
    yield storage.seals_between("burn", 0, last), storage.seals_between("burn", 1, last // 2)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(appends=commits())
def test_every_query_gives_the_same_rows_from_both_formats(
    tmp_path_factory: pytest.TempPathFactory,
    appends: list[list[tuple[str, dict[str, Any], int | None]]],
) -> None:
    folder = tmp_path_factory.mktemp("both")
    one, two = folder / "one.sqlite3", folder / "two.sqlite3"
    write(one, 1, appends)
    write(two, 2, appends)
    first, second = open_readonly(one), open_readonly(two)
    try:
        assert isinstance(storage_of(first), Format1)
        assert isinstance(storage_of(second), Format2)
        for left, right in zip(
            answers(storage_of(first)), answers(storage_of(second)), strict=True
        ):
            assert left == right
    finally:
        first.close()
        second.close()
    readers = JournalReader.open(one), JournalReader.open(two)
    try:
        for count in (0, 1, 3):
            assert readers[0].last_rounds_start(count) == readers[1].last_rounds_start(count)
        restored = [list(r.rows_for_restore(SPOTS)) for r in readers]
        assert restored[0] == restored[1]
    finally:
        for reader in readers:
            reader.close()
    reports = verify(one), verify(two)
    assert reports[0].case is reports[1].case, reports  # a reveal may lack its commitment
    assert reports[0].message == reports[1].message


# -- a format-2 file changed behind its triggers ---------------------------------------------


@pytest.fixture
def format_2(tmp_path: Path) -> Path:
    """A format-2 journal of a few rounds: milestones, wager spots, commits of many rows."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, clock=fixed_clock(), storage_format=2) as journal:
        journal.append("station_started", {})
        for round_no in range(1, 4):
            with journal.batch():
                journal.append("round_started", {}, round_no)
                journal.append("event", {"seat": 1, "spot": "main", "chips": 5}, round_no)
                journal.append("card", {"card": "8S"}, round_no)
                journal.append("card", {"card": "9S"}, round_no)
            journal.append("burn", {"card": "2C"}, round_no)
            journal.append("round_completed", {"reshuffle": False}, round_no)
    return path


def tamper(path: Path, *statements: str) -> None:
    """Run ``statements`` on the file behind its append-only triggers (dropped, then made
    again as the journal makes them)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for name in TRIGGER_SQL_2:
            conn.execute(f"DROP TRIGGER {name}")
        for statement in statements:
            conn.execute(statement)
        for sql in TRIGGER_SQL_2.values():
            conn.execute(sql)
    finally:
        conn.close()


def body_of(path: Path, first_id: int, change: Callable[[list[Any]], list[Any]]) -> bytes:
    """Commit ``first_id``'s stored value with its rows changed by ``change``."""
    conn = open_readonly(path)
    try:
        storage = storage_of(conn)
        assert isinstance(storage, Format2)
        (body,) = conn.execute(
            "SELECT body FROM journal_commit WHERE first_id = ?", (first_id,)
        ).fetchone()
        rows = storage.codec.decode(body, first_id=first_id)
        return storage.codec.encode(change([list(row) for row in rows]))
    finally:
        conn.close()


def _card_changed(rows: list[Any]) -> list[Any]:
    rows[2][3] = '{"card":"KS"}'  # the third row of the commit: a card
    return [tuple(row) for row in rows]


TAMPERED = {
    "a row of a commit changed": (
        lambda path: [
            f"UPDATE journal_commit SET body = x'{body_of(path, 2, _card_changed).hex()}'"
            " WHERE first_id = 2"
        ],
        VerifyCase.ALTERED,
        "row 5:",
    ),
    "a commit's bytes damaged": (
        lambda path: ["UPDATE journal_commit SET body = x'00ff00ff' WHERE first_id = 2"],
        VerifyCase.ALTERED,
        "row 2: stored commit",
    ),
    "a commit's last hash changed": (
        lambda path: ["UPDATE journal_commit SET last_hash = zeroblob(32) WHERE first_id = 2"],
        VerifyCase.ALTERED,
        "row 5:",
    ),
    "a commit's last id changed": (
        lambda path: ["UPDATE journal_commit SET last_id = 4 WHERE first_id = 2"],
        VerifyCase.ALTERED,
        "row 2: the stored commit holds 4 rows, its ids say 3",
    ),
    "a commit cut out": (
        lambda path: ["DELETE FROM journal_commit WHERE first_id = 6"],
        VerifyCase.REMOVED,
        "row 6: missing",
    ),
    "a milestone removed": (
        lambda path: ["DELETE FROM journal_milestone WHERE id = 6"],
        VerifyCase.ALTERED,
        "row 6: its entry in the index tables",
    ),
    "a milestone's kind changed": (
        lambda path: [
            "UPDATE journal_milestone SET kind = (SELECT code FROM journal_kind"
            " WHERE kind = 'shuffle_commanded') WHERE id = 6"
        ],
        VerifyCase.ALTERED,
        "row 6: its entry in the index tables",
    ),
    "a milestone's round changed": (
        lambda path: ["UPDATE journal_milestone SET round = 7 WHERE id = 2"],
        VerifyCase.ALTERED,
        "row 2: its entry in the index tables",
    ),
    "a milestone added for a card": (
        lambda path: ["INSERT INTO journal_milestone (id, kind, round) VALUES (4, 1, 1)"],
        VerifyCase.ALTERED,
        "row 4: its entry in the index tables",
    ),
    "a wager spot's report moved to another spot": (
        lambda path: ["UPDATE journal_spot SET spot = 'match' WHERE id = 3"],
        VerifyCase.ALTERED,
        "row 3: its entry in the index tables",
    ),
    "a wager spot's report removed": (
        lambda path: ["DELETE FROM journal_spot WHERE id = 9"],
        VerifyCase.ALTERED,
        "row 9: its entry in the index tables",
    ),
    "two kinds' codes swapped": (
        lambda path: [
            "UPDATE journal_kind SET kind = 'x' WHERE kind = 'burn'",
            "UPDATE journal_kind SET kind = 'burn' WHERE kind = 'round_completed'",
            "UPDATE journal_kind SET kind = 'round_completed' WHERE kind = 'x'",
        ],
        VerifyCase.ALTERED,
        "row 6: its entry in the index tables",
    ),
    "the codec's dictionary changed": (
        lambda path: ["UPDATE journal_codec SET dictionary = x'20'"],
        VerifyCase.ALTERED,
        "row 1:",
    ),
}


@pytest.mark.parametrize("case", TAMPERED, ids=list(TAMPERED))
def test_a_format_2_file_changed_behind_its_triggers_is_refused_in_one_line(
    format_2: Path, case: str
) -> None:
    statements, expected, where = TAMPERED[case]
    assert verify(format_2).case is VerifyCase.INTACT
    tamper(format_2, *statements(format_2))
    report = verify(format_2)
    assert report.case is expected, report.message
    assert where in report.message and "\n" not in report.message, report.message
    done = subprocess.run(
        [PYTHON, "-m", "controller.cli.main", "journal", "verify", "--journal", str(format_2)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    said = done.stdout + done.stderr
    assert said.count("\n") == 1 and said.startswith(expected.value), said


@pytest.mark.parametrize(
    ("statement", "named"),
    [
        ("DROP TRIGGER journal_commit_no_delete", "removed (journal_commit_no_delete)"),
        ("DROP TRIGGER journal_spot_no_update", "removed (journal_spot_no_update)"),
        (
            "DROP TRIGGER journal_milestone_no_delete;CREATE TRIGGER journal_milestone_no_delete"
            " BEFORE DELETE ON journal_milestone BEGIN SELECT 1; END",
            "changed (journal_milestone_no_delete)",
        ),
        (
            "CREATE TRIGGER journal_kind_quiet BEFORE INSERT ON journal_kind BEGIN SELECT 1; END",
            "never made (journal_kind_quiet)",
        ),
    ],
)
def test_a_format_2_file_whose_triggers_were_changed_is_refused(
    format_2: Path, statement: str, named: str
) -> None:
    conn = sqlite3.connect(format_2, isolation_level=None)
    try:
        conn.executescript(statement)
    finally:
        conn.close()
    report = verify(format_2)
    assert report.case is VerifyCase.SCHEMA, report.message
    assert named in report.message and "\n" not in report.message


def test_a_commit_cut_out_before_the_checkpoint_is_refused_by_the_starts_count(
    format_2: Path,
) -> None:
    with Journal.open(format_2) as journal:
        journal.checkpoint()
        journal.append("station_started", {})
    assert verify(format_2, since_checkpoint=True).case is VerifyCase.INTACT
    tamper(format_2, "DELETE FROM journal_commit WHERE first_id = 6")
    report = verify(format_2, since_checkpoint=True)
    assert report.case is VerifyCase.REMOVED, report.message
    assert "1 of rows 1..21 are missing" in report.message


def test_the_writer_goes_on_from_a_format_2_file(format_2: Path) -> None:
    with Journal.open(format_2) as journal:  # no storage_format: the file's own
        assert journal.last_id == 19
        journal.append("card", {"card": "AS"}, 4)
    with JournalReader.open(format_2) as reader:
        assert isinstance(reader.storage, Format2)
        last = reader.last()
        assert last is not None and (last.id, last.data) == (20, {"card": "AS"})
    assert verify(format_2).case is VerifyCase.INTACT


# -- a program that reads format 1 only ------------------------------------------------------


def test_format_1_queries_refuse_a_format_2_file_in_one_line(format_2: Path) -> None:
    """``Format1`` holds the queries of a program that reads format 1 only: each of them
    fails on the ``journal`` view in one line naming what is needed."""
    conn = open_readonly(format_2)
    old = Format1(conn)
    reads: list[Callable[[], object]] = [
        old.last_id,
        old.count,
        old.tail,
        lambda: old.row(1),
        lambda: list(old.rows()),
        lambda: list(old.raw_rows(0)),
        lambda: old.round_start(1),
    ]
    try:
        for read in reads:
            with pytest.raises(sqlite3.OperationalError) as caught:
                read()
            assert str(caught.value) == "no such function: format_2_needs_a_newer_program"
    finally:
        conn.close()


def test_a_format_1_writer_refuses_a_format_2_file_and_leaves_it_as_it_was(format_2: Path) -> None:
    """A writer from before the version check adds the format-1 schema: its first index on
    the ``journal`` view fails, and its transaction leaves the file as it was."""
    before = format_2.read_bytes()
    conn = sqlite3.connect(format_2, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        with pytest.raises(sqlite3.OperationalError, match="views may not be indexed"):
            apply_schema(conn, 1)
        conn.execute("ROLLBACK")
    finally:
        conn.close()
    assert format_2.read_bytes() == before
    assert verify(format_2).case is VerifyCase.INTACT


# -- journal migrate ---------------------------------------------------------------------------


def _files(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.parent.iterdir()) if p.is_file()}


@pytest.mark.parametrize("fixture", [FIXTURE, CHECKPOINTS, CURRENT], ids=lambda p: p.name)
def test_migrate_proves_the_same_last_hash_and_seals(tmp_path: Path, fixture: Path) -> None:
    path = fixture_copy(tmp_path, fixture)
    key = verification_key()
    before = verify(path, key=key)
    assert before.case is VerifyCase.INTACT
    with JournalReader.open(path) as reader:
        anchor = reader.query(latest_anchor)
        rows = list(reader.rows())
    head = head_path(path).read_bytes()
    done = migrate_journal(path)
    assert (done.rows, done.last_id, done.last_hash) == (len(rows), rows[-1].id, rows[-1].hash)
    with JournalReader.open(path) as reader:
        assert isinstance(reader.storage, Format2)
        assert reader.query(latest_anchor) == anchor
        assert list(reader.rows()) == rows
    assert head_path(path).read_bytes() == head
    after = verify(path, key=key, anchor=anchor)
    assert after.case is VerifyCase.INTACT, after.message
    assert after.sealed == before.sealed and after.rows == before.rows
    assert not migrating_path(path).exists()
    with pytest.raises(JournalCorruptError, match="storage format 2 already"):
        migrate_journal(path)
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        journal.append("station_started", {})  # the station goes on, sealing
    assert verify(path, key=key).case is VerifyCase.INTACT


def test_migrate_refuses_a_journal_that_does_not_verify_and_leaves_it(tmp_path: Path) -> None:
    path = fixture_copy(tmp_path, CURRENT)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("DROP TRIGGER journal_no_update")
        conn.execute('UPDATE journal SET data = \'{"card":"KS"}\' WHERE id = 5')
    finally:
        conn.close()
    before = _files(path)
    with pytest.raises(JournalCorruptError, match="is not migrated: altered: row 5") as caught:
        migrate_journal(path)
    assert "\n" not in str(caught.value)
    assert {name: _files(path)[name] for name in before} == before


def test_migrate_refuses_while_the_station_writes(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("station_started", {})
        with pytest.raises(Exception, match="open for writing by another process"):
            migrate_journal(path)


_MIGRATE = """
import os, signal, sys
from pathlib import Path
from controller.journal import migrate
from controller.journal.storage import Format2

where = sys.argv[2]
if where == "copy":
    insert, done = Format2.insert, [0]
    def dying(self, rows):
        done[0] += 1
        if done[0] == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        insert(self, rows)
    Format2.insert = dying
else:  # proved and synced, not renamed yet
    settle = migrate._settle
    def dying(copy):
        settle(copy)
        os.kill(os.getpid(), signal.SIGKILL)
    migrate._settle = dying
migrate.migrate_journal(Path(sys.argv[1]))
"""


@pytest.mark.parametrize("where", ["copy", "rename"])
def test_a_migration_killed_leaves_the_format_1_file_and_runs_again(
    tmp_path: Path, where: str
) -> None:
    path = fixture_copy(tmp_path, CHECKPOINTS)
    script = tmp_path / "migrate.py"
    script.write_text(_MIGRATE)
    before = _files(path)
    done = subprocess.run(
        [PYTHON, str(script), str(path), where], cwd=ROOT, timeout=60, check=False
    )
    assert done.returncode == -9
    left = _files(path)
    assert {name: left[name] for name in before} == before  # the format-1 file as it was
    copy = migrating_path(path).name
    readers = {"journal.sqlite3-wal", "journal.sqlite3-shm"}  # a reader's, the WAL empty
    assert set(left) - set(before) <= {copy, f"{copy}-wal", f"{copy}-shm", *readers}
    assert not left.get("journal.sqlite3-wal")
    assert verify(path, key=verification_key()).case is VerifyCase.INTACT
    migrate_journal(path)
    assert not migrating_path(path).exists()
    assert verify(path, key=verification_key()).case is VerifyCase.INTACT


_FULL = """
import sys
from pathlib import Path
from controller.journal.format import JournalError
from controller.journal.migrate import migrate_journal
try:
    migrate_journal(Path(sys.argv[1]))
except JournalError as err:
    print("refused", err)
else:
    print("migrated")
"""


@pytest.mark.parametrize("free_kib", [44, 64, 96])
def test_migrate_on_a_full_disk_leaves_the_format_1_file(tmp_path: Path, free_kib: int) -> None:
    """A format-1 journal of rows that do not compress (the copy is about as large as the
    data) migrated with ``free_kib`` KiB left on its disk: the creation or the copy fails
    on the full disk, in one line, and the format-1 file is left as it was."""
    made = tmp_path / "made"
    made.mkdir()
    noise = random.Random(7)
    with Journal.open(made / "journal.sqlite3", clock=fixed_clock(), storage_format=1) as journal:
        for round_no in range(60):
            with journal.batch():
                for _ in range(5):
                    journal.append("card", {"n": noise.randbytes(48).hex()}, round_no)
    source = made / "journal.sqlite3"
    disk, kept = tmp_path / "disk", tmp_path / "kept"
    script = tmp_path / "migrate.py"
    script.write_text(_FULL)
    done = on_small_disk(
        disk,
        "2m",
        f"cp {source} {source}-head {disk}/ &&"
        f" {fill_leaving(disk, free_kib)} &&"
        f" {PYTHON} {script} {disk}/journal.sqlite3 > {tmp_path}/out 2>&1;"
        f" rm {disk}/filler && cp -a {disk} {kept}",
    )
    assert done.returncode == 0, done.stderr
    out = (tmp_path / "out").read_text()
    assert out.startswith("refused") and out.count("\n") == 1, out
    assert "is not migrated: " in out and "disk" in out.split("is not migrated: ")[1], out
    assert (kept / "journal.sqlite3").read_bytes() == source.read_bytes()
    names = {p.name for p in kept.iterdir()}
    readers = {"journal.sqlite3-wal", "journal.sqlite3-shm"}  # a reader's, the WAL empty
    assert names - readers == {"journal.sqlite3", "journal.sqlite3-head"}, names
    wal = kept / "journal.sqlite3-wal"
    assert not wal.is_file() or wal.stat().st_size == 0
    assert verify(kept / "journal.sqlite3").case is VerifyCase.INTACT


def test_a_copy_that_does_not_prove_the_same_rows_is_not_renamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy that drops a row (a fault of the copying) fails the proof: the format-1 file
    stays, the copy is removed."""
    from controller.journal import migrate

    path = fixture_copy(tmp_path, CHECKPOINTS)
    before = _files(path)
    commits = migrate._commits

    def dropping(rows: Iterator[Any]) -> Iterator[list[Any]]:
        for number, commit in enumerate(commits(rows)):
            yield commit[:-1] if number == 1 and len(commit) > 1 else commit

    monkeypatch.setattr(migrate, "_commits", dropping)
    with pytest.raises(JournalCorruptError, match="is not migrated: the copy: ") as caught:
        migrate_journal(path)
    assert "\n" not in str(caught.value)
    assert {name: _files(path)[name] for name in before} == before
    assert not migrating_path(path).exists()


@pytest.mark.parametrize("workers", [2, 3])
def test_a_format_2_file_reads_the_same_over_the_cores(
    format_2: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """The walk over several workers (every walk, not only those of 200,000 rows) gives
    the serial walk's report, intact and with an index entry changed in a later range."""
    from controller.journal import verify as verify_module

    monkeypatch.setattr(verify_module, "PARALLEL_MIN_ROWS", 1)
    one, many = verify(format_2, workers=1), verify(format_2, workers=workers)
    assert one.case is many.case is VerifyCase.INTACT and one.message == many.message
    tamper(format_2, "UPDATE journal_spot SET seat = 2 WHERE id = 15")
    one, many = verify(format_2, workers=1), verify(format_2, workers=workers)
    assert one.message == many.message
    assert one.message.startswith("altered: row 15: its entry in the index tables"), one.message


def test_a_connection_keeps_its_storage_until_another_connection_commits(
    tmp_path: Path, format_2: Path
) -> None:
    conn = open_readonly(format_2)
    plain = sqlite3.connect(format_2)
    try:
        kept = storage_of(conn)
        assert storage_of(conn) is kept
        assert storage_of(plain) is not storage_of(plain)  # not a journal's connection
        with Journal.open(format_2) as journal:
            journal.append("card", {"card": "AS"}, 4)
        again = storage_of(conn)
        assert again is not kept and again.last_id() == 20
    finally:
        conn.close()
        plain.close()
    # A file migrated (replaced) meanwhile: the connection reads the file it opened, and a
    # new connection the new file with its own format's Storage.
    path = tmp_path / "old.sqlite3"
    with Journal.open(path, storage_format=1) as journal:
        journal.append("card", {"card": "8S"}, 1)
    conn = open_readonly(path)
    try:
        assert isinstance(storage_of(conn), Format1)
        migrate_journal(path)
        assert isinstance(storage_of(conn), Format1) and storage_of(conn).last_id() == 1
        fresh = open_readonly(path)
        try:
            assert isinstance(storage_of(fresh), Format2) and storage_of(fresh).last_id() == 1
        finally:
            fresh.close()
    finally:
        conn.close()


# -- format 2's query plans (format 1's: test_journal_indexes.py) -------------------------------


def test_every_lookup_a_start_makes_reads_an_index_of_format_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a start reads (the verified checkpoint, the last seal, the restore's last
    shuffle, burn, round start and a wager spot's report), the anchor, a round's start and
    the count of rows: by ``journal_milestone``'s key or index, ``journal_spot_seat``,
    ``journal_milestone_round`` and ``journal_commit_count``, never a scan of a table."""
    from test_journal_indexes import a_starts_statements, plan, sealed_shoes

    path, key_file = sealed_shoes(tmp_path, storage_format=2)
    statements = a_starts_statements(
        path, key_file, monkeypatch, lambda reader: reader.storage.round_start(3) is not None
    )
    plans = {
        s: plan(path, s)
        for s in statements
        if s.startswith("SELECT") and ("journal_milestone" in s or "journal_spot" in s)
    }
    counted = [s for s in statements if "sum(last_id - first_id + 1)" in s]
    milestone_kinds = [s for s in plans if "FROM journal_milestone WHERE" in s and "kind =" in s]
    assert milestone_kinds and any("journal_spot WHERE seat" in s for s in plans)
    assert any("round = " in s for s in milestone_kinds)
    for statement, found in plans.items():
        if "FROM journal_spot WHERE seat" in statement:
            assert "INDEX journal_spot_seat" in found, (statement, found)
        elif "FROM journal_milestone WHERE" in statement and "kind = " in statement:
            assert "INDEX journal_milestone_" in found, (statement, found)
    assert counted
    for statement in counted:
        assert "USING COVERING INDEX journal_commit_count" in plan(path, statement), statement
