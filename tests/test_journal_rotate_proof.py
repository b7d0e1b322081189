"""What ``journal rotate`` proves of the archive before it cuts and how it writes the new
file (docs/journal.md, "Rotation": it "proves the segments from the base up to K (each
alone and linked, the last one's head the journal's hash of K)", then writes the base and
the rows after K, "format 2: commit rows of at most 32 rows ending at seals"), and when a
journal is sealed, on small hand-made cases: each refusal is one line and leaves the
journal as it was.

Two journals of 20 sealed rounds (a shuffle, a round and a checkpoint each) are built once
and archived in segments of at least 20 rows (rows 1..21, 22..42, 43..63, ...): ``plain``
(storage format 2, its round 17 dealt 40 cards: more rows than a commit row holds between
two seals) never rotated, ``rotated`` (format 1) cut once at row 21 after its first 15
rounds. Each test works on a copy, changes a segment by hand and rotates (a second or so).
The end-to-end cases (the restore, the floor, recall after a rotation) are in
``tests/test_journal_rotate.py``.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from hashlib import sha256
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from journal_tamper_support import damage_first_page, tamper
from test_journal_base import TABLE, _canonical
from test_journal_seal import write_round
from test_journal_storage import PYTHON, fill_leaving, on_small_disk

import controller.journal.creation as creation_module
import controller.journal.rotate as rotate_module
from controller.journal.archive import archive, segments
from controller.journal.archive.segment import lines, segment_name
from controller.journal.base import Base
from controller.journal.format import (
    GENESIS_HASH,
    JournalCorruptError,
    JournalWriteError,
    head_path,
    head_record,
)
from controller.journal.migrate import MIGRATED_COMMIT_ROWS
from controller.journal.reader import JournalReader, open_readonly
from controller.journal.rotate import NothingToRotateError, plan_cut, rotate_journal
from controller.journal.seal import SEAL_KIND, load_state, new_sealing, save_state
from controller.journal.storage import RawRow, Storage
from controller.journal.store import Journal
from controller.journal.verify import verify

SEGMENT_ROWS = 20


@dataclass(frozen=True)
class Copy:
    """A journal with its sealing state and archive, copied for one test."""

    path: Path
    archive: Path
    sealing: Path

    def segment(self, first: int) -> Path:
        (found,) = [p for p in segments(self.archive) if int(p.name[:12]) == first]
        return found

    def rotate(self, floor_acked: int | None = None) -> int:
        """Rotate with the station's key; the row cut up to."""
        done = rotate_journal(
            self.path,
            self.archive,
            wager_spots=(),
            floor_acked=floor_acked,
            sealing=load_state(self.sealing),
        )
        return done.base.row


def _rounds(folder: Path, path: Path, rounds: range, storage_format: int) -> None:
    """Each round after a shuffle, a checkpoint after it; round 17 deals 40 cards."""
    with Journal.open(path, sealing=folder / "sealing-key", storage_format=storage_format) as j:
        if rounds.start == 1:
            j.checkpoint()
        for round_no in rounds:
            j.append("shuffle_commanded", {"decks": 6})
            if round_no == 17:
                for _ in range(39):
                    j.append("card", {"seat": 1, "hand": 1, "role": "hit", "card": "2S"}, 17)
            write_round(j, round_no)
            j.checkpoint()


def _journal(folder: Path, storage_format: int) -> Path:
    state, _ = new_sealing(TABLE)
    save_state(folder / "sealing-key", state)
    path = folder / "journal.sqlite3"
    _rounds(folder, path, range(1, 16), storage_format)
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    plain = tmp_path_factory.mktemp("plain")
    path = _journal(plain, 2)
    _rounds(plain, path, range(16, 21), 2)
    archive(path, plain / "archive", table=TABLE, segment_rows=SEGMENT_ROWS)
    rotated = tmp_path_factory.mktemp("rotated")
    path = _journal(rotated, 1)
    archive(path, rotated / "archive", table=TABLE, segment_rows=SEGMENT_ROWS)
    assert Copy(path, rotated / "archive", rotated / "sealing-key").rotate() == 21
    _rounds(rotated, path, range(16, 21), 1)
    archive(path, rotated / "archive", table=TABLE, segment_rows=SEGMENT_ROWS)
    return {"plain": plain, "rotated": rotated}


def _copy(built: dict[str, Path], which: str, tmp_path: Path) -> Copy:
    folder = tmp_path / which
    shutil.copytree(built[which], folder)
    return Copy(folder / "journal.sqlite3", folder / "archive", folder / "sealing-key")


def _with_header(segment: Path, **change: object) -> None:
    """The segment's header line with fields changed (its rows as they were)."""
    header, _, body = segment.read_bytes().partition(b"\n")
    segment.write_bytes(_canonical(json.loads(header) | change).encode() + b"\n" + body)


def _files(copy: Copy) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in copy.path.parent.iterdir() if p.is_file()}


def _refused(copy: Copy, floor_acked: int | None = None) -> str:
    """The rotation's one line; the journal's files are left as they were."""
    before = _files(copy)
    with pytest.raises(JournalCorruptError) as caught:
        copy.rotate(floor_acked)
    assert _files(copy) == before
    text = str(caught.value)
    assert "\n" not in text
    prefix = f"{copy.path} is not rotated: "
    assert text.startswith(prefix)
    return text.removeprefix(prefix)


def test_the_copies_rotate_as_they_are(built: dict[str, Path], tmp_path: Path) -> None:
    """The cases below change one thing each: unchanged, both copies rotate at the segment
    asked for and verify."""
    for which, after in (("plain", 0), ("rotated", 21)):
        copy = _copy(built, which, tmp_path)
        with JournalReader.open(copy.path) as reader:
            last = reader.storage.tail()[0]
        done = rotate_journal(
            copy.path,
            copy.archive,
            wager_spots=(),
            floor_acked=63,
            sealing=load_state(copy.sealing),
        )
        assert (done.base.row, done.live_rows, done.cut_rows) == (63, last - 63, 63 - after)
        assert verify(copy.path, archive=copy.archive).case.value == "intact"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"seals": [4, 3]}, "seal: 000000000022-000000000042.dsa: its epochs do not go on"),
        (
            {"open": [[99, 5, "cc" * 32]]},
            "altered: 000000000022-000000000042.dsa: its open hole cards are not those left",
        ),
    ],
)
def test_the_segment_after_the_base_must_go_on_from_the_bases_own_segment(
    built: dict[str, Path], tmp_path: Path, change: dict[str, object], problem: str
) -> None:
    """A rotated journal rotated again at the segment after its base's: that segment's
    header (its first seal's epoch, the hole cards open before it: fields no row's hash
    covers) must go on from the base's segment, or the new base, sealed by the station,
    would carry a wrong epoch or a hole card never dealt (`journal verify --key` then calls
    the rotated journal altered)."""
    copy = _copy(built, "rotated", tmp_path)
    after_base = copy.segment(22)
    assert json.loads(after_base.read_bytes().partition(b"\n")[0])["seals"] == [3, 3]
    _with_header(after_base, **change)
    assert _refused(copy, floor_acked=42) == f"the archive does not check: {problem}"


def test_a_segment_of_another_table_among_those_to_cut_is_refused(
    built: dict[str, Path], tmp_path: Path
) -> None:
    """Every segment up to the cut checks and links: one whose header names another table
    (its rows' hashes do not cover the name) is named."""
    copy = _copy(built, "plain", tmp_path)
    _with_header(copy.segment(22), table="T2")
    assert _refused(copy, floor_acked=63) == (
        "the archive does not check: altered: 000000000022-000000000042.dsa: a segment of"
        " table 'T2', not 'T1'"
    )


def test_one_row_missing_before_the_first_segment_is_named(
    built: dict[str, Path], tmp_path: Path
) -> None:
    """A journal never rotated is cut from row 1: an archive whose first segment holds rows
    2..21 (checking alone: its `prev` is row 1's hash) lacks row 1, and nothing is cut."""
    copy = _copy(built, "plain", tmp_path)
    first = copy.segment(1)
    header = json.loads(first.read_bytes().partition(b"\n")[0])
    rows = list(lines(first))
    assert header["first"] == 1 and header["prev"] == GENESIS_HASH
    row_1_hash = sha256(GENESIS_HASH.encode() + rows[0]).hexdigest()
    body = zlib.compress(b"".join(r + b"\n" for r in rows[1:]))
    short = header | {"first": 2, "rows": header["rows"] - 1, "prev": row_1_hash}
    first.unlink()
    (copy.archive / segment_name(2, header["last"])).write_bytes(
        _canonical(short).encode() + b"\n" + body
    )
    assert _refused(copy, floor_acked=42) == f"rows 1..1 are in no segment in {copy.archive}"


def test_segments_of_another_journal_up_to_the_cut_are_refused(
    built: dict[str, Path], tmp_path: Path
) -> None:
    """The segments up to the cut check alone and link, but are another journal's (the
    same rows sealed under another key): the last one's head is not the journal's hash of
    its last row. The archive's last segment, which `journal verify --archive` checks, is
    the journal's own."""
    copy = _copy(built, "plain", tmp_path)
    theirs = built["rotated"] / "archive"
    for name in ("000000000001-000000000021.dsa", "000000000022-000000000042.dsa"):
        shutil.copy(theirs / name, copy.archive / name)
    assert verify(copy.path, archive=copy.archive).case.value == "intact"
    assert _refused(copy, floor_acked=42) == (
        "000000000022-000000000042.dsa: its last row is not the journal's row 42: another journal?"
    )


def test_a_journal_never_sealed_is_rotated_without_a_key_and_cut_nowhere(tmp_path: Path) -> None:
    """docs/journal.md, "Forward-secure sealing": a station without a sealing state writes
    unsealed checkpoints and no seal; such a journal asks for no key (it is not sealed),
    and no row of it is cut (the writer's open needs the last seal, and there is none)."""
    path = tmp_path / "journal.sqlite3"
    arch = tmp_path / "archive"
    arch.mkdir()
    with Journal.open(path) as journal:
        write_round(journal, 1)
    for checkpoints in (0, 1):
        with pytest.raises(NothingToRotateError) as caught:
            rotate_journal(path, arch, wager_spots=(), floor_acked=None, sealing=None)
        assert str(caught.value) == (
            f"nothing to rotate in {path}: no segment of {arch} ends after row 0 and at or"
            " before row 0 (no seal in the file)"
        ), checkpoints
        with Journal.open(path) as journal:
            journal.checkpoint()


def _commits(path: Path) -> list[tuple[int, int]]:
    conn = open_readonly(path)
    try:
        query = "SELECT first_id, last_id FROM journal_commit ORDER BY first_id"
        return [(int(a), int(b)) for a, b in conn.execute(query)]
    finally:
        conn.close()


def test_a_format_2_journal_is_copied_in_commit_rows_that_end_at_seals_or_at_32_rows(
    built: dict[str, Path], tmp_path: Path
) -> None:
    """docs/journal.md, "Rotation": the rows after K go into commit rows of at most 32
    rows each ending at a seal, as `journal migrate` writes them; worked out here from the
    rows' kinds (round 17's 40 cards make a commit end at its 32nd row)."""
    copy = _copy(built, "plain", tmp_path)
    with JournalReader.open(copy.path) as reader:
        kinds = [(row.id, row.kind) for row in reader.rows() if row.id > 63]
    assert MIGRATED_COMMIT_ROWS == 32
    expected, first = [], kinds[0][0]
    for row_id, kind in kinds:
        if kind == SEAL_KIND or row_id - first + 1 == 32:
            expected.append((first, row_id))
            first = row_id + 1
    if first <= kinds[-1][0]:
        expected.append((first, kinds[-1][0]))
    assert any(last - first + 1 == 32 for first, last in expected)
    assert copy.rotate(floor_acked=63) == 63
    assert _commits(copy.path) == expected


def test_a_format_2_copys_times_are_stored_after_its_first_rows_second(
    built: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/journal.md, "Storage format 2": a file stores its rows' times after its own time
    base (``journal_codec.ts_base``). The rotated file's base is the second its first row
    (row 64, after the cut at 63) was written in, not the time of the rotation (a clock
    set far off for the new file's creation here), so its times stay small; every time
    reads back as it was."""
    copy = _copy(built, "plain", tmp_path)
    with JournalReader.open(copy.path) as reader:
        rows = {row.id: row.ts for row in reader.rows(after_id=63)}
    when = datetime.strptime(rows[64], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    second = int(when.timestamp()) * 1_000_000
    monkeypatch.setattr(creation_module, "time", SimpleNamespace(time_ns=lambda: 4 * 10**18))
    assert copy.rotate(floor_acked=63) == 63
    conn = open_readonly(copy.path)
    try:
        assert conn.execute("SELECT ts_base FROM journal_codec").fetchone() == (second,)
    finally:
        conn.close()
    with JournalReader.open(copy.path) as reader:
        assert {row.id: row.ts for row in reader.rows(after_id=63)} == rows


@pytest.mark.parametrize("which", ["plain", "rotated"])
def test_rows_copied_over_several_transactions_are_all_there(
    built: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    """The new file is written a transaction per 16,384 rows (a night of a busy table is
    more); with transactions of 40 rows here, the 120-odd rows after the cut span
    several, and the new file holds every row after the cut, each as it was."""
    copy = _copy(built, which, tmp_path)
    with JournalReader.open(copy.path) as reader:
        before = [row for row in reader.rows() if row.id > 63]
    monkeypatch.setattr(rotate_module, "_ROWS_A_TRANSACTION", 40)
    assert copy.rotate(floor_acked=63) == 63
    with JournalReader.open(copy.path) as reader:
        assert list(reader.rows()) == before
    assert verify(copy.path, archive=copy.archive).case.value == "intact"


_ROTATE = """
import sys
from pathlib import Path
from controller.journal.format import JournalError
from controller.journal.rotate import rotate_journal
from controller.journal.seal import load_state
journal, folder, key = map(Path, sys.argv[1:])
try:
    rotate_journal(journal, folder, wager_spots=(), floor_acked=63, sealing=load_state(key))
except JournalError as err:
    print("refused", err)
else:
    print("rotated")
"""


@pytest.mark.parametrize("free_kib", [48, 64, 96])
def test_a_rotation_on_a_full_disk_leaves_the_journal_as_it_was(
    built: dict[str, Path], tmp_path: Path, free_kib: int
) -> None:
    """The module's docstring: a full disk leaves the journal as it was and no temporary.
    The journal (48 KiB) on a small tmpfs with ``free_kib`` KiB left: the new file's
    creation (48), its switch to a rollback journal before the copy (64) or its proof (96)
    fails, in one line that names the disk."""
    copy = _copy(built, "plain", tmp_path)
    disk, kept = tmp_path / "disk", tmp_path / "kept"
    script = tmp_path / "rotate.py"
    script.write_text(_ROTATE)
    done = on_small_disk(
        disk,
        "1m",
        f"cp {copy.path} {copy.path}-head {disk}/ &&"
        f" {fill_leaving(disk, free_kib)} &&"
        f" {PYTHON} {script} {disk}/journal.sqlite3 {copy.archive} {copy.sealing}"
        f" > {tmp_path}/out 2>&1; rm {disk}/filler && cp -a {disk} {kept}",
    )
    assert done.returncode == 0, done.stderr
    out = (tmp_path / "out").read_text()
    assert out.startswith("refused") and out.count("\n") == 1, out
    assert "is not rotated: " in out and "disk" in out.split("is not rotated: ")[1], out
    assert (kept / "journal.sqlite3").read_bytes() == copy.path.read_bytes()
    names = {p.name for p in kept.iterdir()}
    readers = {"journal.sqlite3-wal", "journal.sqlite3-shm"}  # a reader's, the WAL empty
    assert names - readers == {"journal.sqlite3", "journal.sqlite3-head"}, names


def test_a_copy_that_loses_the_last_row_past_the_head_record_is_not_put_in_place(
    built: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The head record of a station stopped between a commit and its head record names a
    row before the journal's last (docs/journal.md, "journal verify": the rows after it
    verify). A copy that loses that last row (a fault of the copying) still verifies
    against the head record; the rotation's own comparison refuses it, and the journal and
    its head record are left as they were."""
    copy = _copy(built, "plain", tmp_path)
    with JournalReader.open(copy.path) as reader:
        rows = list(reader.rows())
    head_path(copy.path).write_bytes(head_record(rows[-2].id, rows[-2].hash))
    assert verify(copy.path).case.value == "intact"
    copy_rows = rotate_module._copy_rows

    class LastRowLost:
        def __init__(self, source: Storage) -> None:
            self.source, self.version = source, source.version

        def raw_rows(self, after_id: int) -> Iterator[RawRow]:
            return iter(list(self.source.raw_rows(after_id))[:-1])

    def losing(source: Storage, new: Path, base: Base) -> None:
        copy_rows(LastRowLost(source), new, base)  # type: ignore[arg-type]

    monkeypatch.setattr(rotate_module, "_copy_rows", losing)
    assert _refused(copy, floor_acked=63) == "the new file's rows or last hash differ"
    assert not list(copy.path.parent.glob(".*.rotating*"))


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"header": "ab" * 32}, "its header is not the one the base names"),
        ({"open": ((99, 5, "cc" * 32),)}, "the hole cards it leaves open are not the base's"),
    ],
    ids=["another-header", "a-card-never-dealt"],
)
def test_a_new_file_whose_base_does_not_match_its_segment_is_not_put_in_place(
    built: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    change: dict[str, Any],
    problem: str,
) -> None:
    """docs/journal.md, "Rotation": the new file is proved against the archive before it
    is put in place. A base written wrong (a fault of the copying: another segment header's
    digest, or a hole card open that the segment does not leave open) holds the same rows
    and last hash, so only that proof refuses it; the journal is left as it was."""
    copy = _copy(built, "plain", tmp_path)
    copy_rows = rotate_module._copy_rows

    def miswritten(source: Storage, new: Path, base: Base) -> None:
        copy_rows(source, new, replace(base, **change))

    monkeypatch.setattr(rotate_module, "_copy_rows", miswritten)
    assert _refused(copy, floor_acked=63) == (
        "the new file: altered: the base record (rows 1..63 archived):"
        f" 000000000043-000000000063.dsa: {problem}"
    )
    assert not list(copy.path.parent.glob(".*.rotating*"))


def _write_refused(copy: Copy) -> str:
    """The rotation's one line for a new file it could not write; the journal's files are
    left as they were and no temporary stays."""
    before = _files(copy)
    with pytest.raises(JournalWriteError) as caught:
        copy.rotate(floor_acked=63)
    assert _files(copy) == before
    assert not list(copy.path.parent.glob(".*.rotating*"))
    text = str(caught.value)
    assert "\n" not in text
    prefix = f"{copy.path} is not rotated: "
    assert text.startswith(prefix)
    return text.removeprefix(prefix)


@pytest.mark.parametrize("which", ["plain", "rotated"])
def test_a_source_that_fails_in_the_middle_of_the_copy_is_refused_with_its_own_error(
    built: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    """The old journal's read fails after some rows, the copy's transaction open (a disk
    I/O error): the copy's transaction is rolled back and the rotation refused with that
    error's line, not another one of the clean-up."""
    copy = _copy(built, which, tmp_path)
    copy_rows = rotate_module._copy_rows

    class FailsAfterTen:
        def __init__(self, source: Storage) -> None:
            self.source, self.version = source, source.version

        def raw_rows(self, after_id: int) -> Iterator[RawRow]:
            for count, row in enumerate(self.source.raw_rows(after_id)):
                if count == 10:
                    raise sqlite3.OperationalError("disk I/O error")
                yield row

    def failing(source: Storage, new: Path, base: Base) -> None:
        copy_rows(FailsAfterTen(source), new, base)  # type: ignore[arg-type]

    monkeypatch.setattr(rotate_module, "_copy_rows", failing)
    assert _write_refused(copy) == "disk I/O error"


def test_a_copy_whose_rollback_fails_too_is_refused_with_the_copys_own_error(
    built: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old journal's read fails in the middle of the copy, and the rollback of the
    copy's transaction fails after it (SQLite interrupts it: a progress handler on the
    copy's connection that stops every statement): the rotation is refused with the
    copy's error, not the clean-up's, and no temporary stays."""
    copy = _copy(built, "plain", tmp_path)
    copy_rows, connect = rotate_module._copy_rows, sqlite3.connect
    opened: list[sqlite3.Connection] = []

    def kept(database: Path, **options: Any) -> sqlite3.Connection:
        conn: sqlite3.Connection = connect(database, **options)
        opened.append(conn)
        return conn

    class FailsAfterTen:
        def __init__(self, source: Storage) -> None:
            self.source, self.version = source, source.version

        def raw_rows(self, after_id: int) -> Iterator[RawRow]:
            for count, row in enumerate(self.source.raw_rows(after_id)):
                if count == 10:
                    (new,) = opened
                    assert new.in_transaction
                    new.set_progress_handler(lambda: 1, 1)  # its next statement interrupted
                    raise sqlite3.OperationalError("disk I/O error")
                yield row

    def failing(source: Storage, new: Path, base: Base) -> None:
        with monkeypatch.context() as patch:
            patch.setattr(sqlite3, "connect", kept)
            copy_rows(FailsAfterTen(source), new, base)  # type: ignore[arg-type]

    monkeypatch.setattr(rotate_module, "_copy_rows", failing)
    assert _write_refused(copy) == "disk I/O error"


def test_a_new_file_sqlite_cannot_make_wal_is_refused_naming_its_mode(
    built: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/journal.md, "Rotation": the new file is made WAL again before its proof (the
    journal's mode). Where the file system gives SQLite no shared memory for a WAL's index
    (its ``unix-none`` file system layer here, for the copy alone), SQLite keeps the
    rollback journal and answers with that mode: the rotation is refused naming it."""
    copy = _copy(built, "plain", tmp_path)
    copy_rows, connect = rotate_module._copy_rows, sqlite3.connect

    def without_shared_memory(database: Path, **options: Any) -> sqlite3.Connection:
        opened: sqlite3.Connection = connect(f"file:{database}?vfs=unix-none", uri=True, **options)
        return opened

    def copied_without_shared_memory(source: Storage, new: Path, base: Base) -> None:
        # The new file is made WAL: put it in rollback mode first, which that layer opens.
        conn = connect(new, isolation_level=None)
        try:
            assert conn.execute("PRAGMA journal_mode=DELETE").fetchone() == ("delete",)
        finally:
            conn.close()
        with monkeypatch.context() as patch:
            patch.setattr(sqlite3, "connect", without_shared_memory)
            copy_rows(source, new, base)

    monkeypatch.setattr(rotate_module, "_copy_rows", copied_without_shared_memory)
    assert _write_refused(copy) == "SQLite refused WAL mode (delete)"


def test_the_check_names_the_row_a_rotation_would_cut_up_to_or_why_none(
    built: dict[str, Path], tmp_path: Path
) -> None:
    """`journal rotate --check` (`plan_cut`, read-only): the end of the newest segment a
    cut may reach, or one line that names the journal and what holds the cut back, or
    why the segment there cannot be read or is not the one its name says."""
    copy = _copy(built, "plain", tmp_path)
    conn = open_readonly(copy.path)
    try:
        assert plan_cut(conn, copy.path, copy.archive, wager_spots=(), floor_acked=63) == 63
        assert plan_cut(conn, copy.path, copy.archive, wager_spots=(), floor_acked=10) == (
            f"nothing to rotate in {copy.path}: no segment of {copy.archive} ends after row 0"
            " and at or before row 10 (the floor acknowledged rows up to 10)"
        )
        segment = copy.segment(43)
        segment.write_bytes(copy.segment(22).read_bytes())
        assert plan_cut(conn, copy.path, copy.archive, wager_spots=(), floor_acked=63) == (
            f"the archive's segment {segment.name} holds rows 22..42, not its name's"
            " (journal verify-archive)"
        )
        segment.unlink()
        segment.symlink_to(tmp_path / "gone")
        assert plan_cut(conn, copy.path, copy.archive, wager_spots=(), floor_acked=63) == (
            f"the archive's segment {segment.name} cannot be read: No such file or directory"
        )
    finally:
        conn.close()


def plan_in_an_empty_archive(path: Path, tmp_path: Path) -> object:
    """`journal rotate --check`'s plan for ``path``, an empty archive beside it."""
    (tmp_path / "archive").mkdir()
    conn = open_readonly(path)
    try:
        return plan_cut(conn, path, tmp_path / "archive", wager_spots=(), floor_acked=None)
    finally:
        conn.close()


def no_seal_line(path: Path, tmp_path: Path) -> str:
    """The plan's one line for a file with no seal: the cut stays at row 0."""
    return (
        f"nothing to rotate in {path}: no segment of {tmp_path / 'archive'} ends after row 0"
        " and at or before row 0 (no seal in the file)"
    )


def test_the_check_of_a_journal_with_no_row_names_no_seal_as_what_holds_the_cut(
    tmp_path: Path,
) -> None:
    """`journal rotate --check` on a journal that has no row yet (no round, no seal): the
    cut stays at row 0, held there by the seal it does not have (the module docstring:
    rows after the last seal stay), in one line."""
    path = tmp_path / "journal.sqlite3"
    Journal.open(path).close()
    assert plan_in_an_empty_archive(path, tmp_path) == no_seal_line(path, tmp_path)


def test_a_format_2_copys_time_base_is_its_first_rows_second_not_a_neighbours(
    tmp_path: Path,
) -> None:
    """docs/journal.md, "Storage format 2": the rotated file's time base is the second
    its first row was written in. Here each row is written 1.25 s after the one before
    (a clock given to the writer), so the rows about the cut are each of a second of their
    own: the cut at row 21 makes row 22 the first row, written at 09:00:27.9 (the first
    row at 09:00:01.65, 21 steps of 1.25 s later), so the base is 09:00:27 exactly."""
    state, _ = new_sealing(TABLE)
    save_state(tmp_path / "sealing-key", state)
    path = tmp_path / "journal.sqlite3"
    moment = [datetime(2026, 11, 30, 9, 0, 0, 400_000, tzinfo=UTC)]

    def clock() -> datetime:
        moment[0] += timedelta(microseconds=1_250_000)
        return moment[0]

    with Journal.open(
        path, sealing=tmp_path / "sealing-key", storage_format=2, clock=clock
    ) as journal:
        journal.checkpoint()
        for round_no in range(1, 16):
            journal.append("shuffle_commanded", {"decks": 6})
            write_round(journal, round_no)
            journal.checkpoint()
    archive(path, tmp_path / "archive", table=TABLE, segment_rows=SEGMENT_ROWS)
    with JournalReader.open(path) as reader:
        rows = {row.id: row.ts for row in reader.rows(after_id=20)}
    assert [rows[n] for n in (21, 22, 23)] == [
        "2026-11-30T09:00:26.650000Z",
        "2026-11-30T09:00:27.900000Z",
        "2026-11-30T09:00:29.150000Z",
    ]
    copy = Copy(path, tmp_path / "archive", tmp_path / "sealing-key")
    assert copy.rotate() == 21
    second = int(datetime(2026, 11, 30, 9, 0, 27, tzinfo=UTC).timestamp()) * 1_000_000
    conn = open_readonly(path)
    try:
        assert conn.execute("SELECT ts_base FROM journal_codec").fetchone() == (second,)
    finally:
        conn.close()
    with JournalReader.open(path) as reader:
        assert {row.id: row.ts for row in reader.rows(after_id=21)} == {
            n: ts for n, ts in rows.items() if n > 21
        }


def test_the_check_of_a_journal_that_ends_a_round_it_never_started_answers_in_one_line(
    tmp_path: Path,
) -> None:
    """A journal whose rows end a round none of them starts (written by hand: the station
    writes a round's start first): the restore reads the end, no round start makes it
    one that may go, and the check answers what holds the cut (no seal) in one line."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("shuffle_commanded", {"decks": 6})
        journal.append("round_voided", {"reason": "test", "stand": [], "returned": []}, 1)
    assert plan_in_an_empty_archive(path, tmp_path) == no_seal_line(path, tmp_path)


@pytest.mark.parametrize("storage_format", [1, 2])
def test_the_check_of_a_journal_whose_index_of_milestones_is_damaged_names_the_file(
    tmp_path: Path, storage_format: int
) -> None:
    """The first page of the index the restore's rows are found by (the milestones: the
    last shuffle, the last round's start) overwritten: the check's read of those rows stops
    with the journal's name and SQLite's words, one line (`journal rotate --check` prints
    it)."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=storage_format) as journal:
        for round_no in range(1, 4):
            journal.append("shuffle_commanded", {"decks": 6})
            write_round(journal, round_no)
    damage_first_page(
        path, "type = 'index' AND name LIKE 'journal_milestone%' AND name NOT LIKE '%round'"
    )
    (tmp_path / "archive").mkdir()
    conn = open_readonly(path)
    try:
        with pytest.raises(JournalCorruptError) as caught:
            plan_cut(conn, path, tmp_path / "archive", wager_spots=(), floor_acked=None)
    finally:
        conn.close()
    assert str(caught.value) == f"{path}: database disk image is malformed"


def _sealed_journal(folder: Path) -> tuple[Path, Journal]:
    state, _ = new_sealing(TABLE)
    save_state(folder / "sealing-key", state)
    path = folder / "journal.sqlite3"
    return path, Journal.open(path, sealing=folder / "sealing-key")


def _cut_limit(path: Path) -> tuple[int, str]:
    conn = open_readonly(path)
    try:
        return rotate_module.cut_limit(conn, path, wager_spots=(), floor_acked=None)
    finally:
        conn.close()


def test_the_restore_holds_the_cut_before_the_last_round_start_ahead_of_its_shuffle(
    tmp_path: Path,
) -> None:
    """The module docstring: the restore reads from the last shuffle, after the last round
    start, round end and void before it; a round's end before the last round start read may
    go (that start opens the round again). Worked out: round 1 (rows 2..5, sealed in 6),
    round 2 voided (7, 8; seal 9), round 3 (10..13; seal 14), the shoe's second shuffle
    (15), then rounds 4..15. The last round start is round 15's, so round 3's end (13) and
    round 2's void (8) may go; round 3's start (10) may not: the cut stops at row 9, below
    the last seal and recall's last 10 rounds."""
    path, journal = _sealed_journal(tmp_path)
    with journal:
        journal.append("shuffle_commanded", {"decks": 6})  # 1
        write_round(journal, 1)  # 2..5, seal 6
        journal.append("round_started", {"round": 2, "seats": []}, 2)  # 7
        journal.append("round_voided", {"reason": "x", "stand": [], "returned": []}, 2)  # 8
        write_round(journal, 3)  # 10..13, seal 14
        journal.append("shuffle_commanded", {"decks": 6})  # 15
        for round_no in range(4, 16):
            write_round(journal, round_no)
    with JournalReader.open(path) as reader:
        kinds = {row.id: row.kind for row in reader.rows(until_id=15)}
    assert (kinds[8], kinds[9], kinds[10], kinds[13], kinds[15]) == (
        "round_voided",
        SEAL_KIND,
        "round_started",
        "round_completed",
        "shuffle_commanded",
    )
    assert _cut_limit(path) == (9, "the restore reads from row 10")


@pytest.mark.parametrize("damaged", [False, True])
def test_the_last_checkpoint_holds_the_cut_before_it_even_one_that_does_not_read(
    tmp_path: Path, damaged: bool
) -> None:
    """The module docstring: the start walks from the last checkpoint, so the rows it
    checks stay. Twelve rounds each after a shuffle (4 rows and a seal each), a checkpoint
    after the first round's seal (row 7): the cut stops at row 6, below the last seal, the
    restore's last round and recall's last 10 rounds. A checkpoint whose data no longer
    reads (an empty object written over it) holds it there too (the row before it)."""
    path, journal = _sealed_journal(tmp_path)
    with journal:
        for round_no in range(1, 13):
            journal.append("shuffle_commanded", {"decks": 6})
            write_round(journal, round_no)
            if round_no == 1:
                assert journal.checkpoint() == 7
    if damaged:
        tamper(path, "UPDATE journal SET data = '{}' WHERE id = 7")
    assert _cut_limit(path) == (6, "the start walks from the checkpoint in row 7")


def test_the_last_seal_holds_the_cut_before_it_when_rows_after_it_went_unsealed(
    tmp_path: Path,
) -> None:
    """The module docstring: the rows after the last seal stay. Two sealed rounds (a
    shuffle, 4 rows and a seal each: the last seal is row 12), then twelve more rounds
    written by a station started without its sealing state (no seal): the cut stops at
    row 11, below the restore's last round and recall's last 10 rounds."""
    path, journal = _sealed_journal(tmp_path)
    with journal:
        for round_no in (1, 2):
            journal.append("shuffle_commanded", {"decks": 6})
            write_round(journal, round_no)
    with Journal.open(path) as journal:
        for round_no in range(3, 15):
            journal.append("shuffle_commanded", {"decks": 6})
            write_round(journal, round_no)
    assert _cut_limit(path) == (11, "the last seal is row 12")


def test_the_check_of_a_rotated_journal_does_not_offer_its_bases_own_segment_again(
    built: dict[str, Path], tmp_path: Path
) -> None:
    """A journal cut at row 21 (its base, the end of segment 1..21) whose floor has
    acknowledged rows up to 30 only: the next segment ends at row 42, past that, and the
    base's own segment ends at the base, where nothing is left to cut: nothing to rotate,
    in one line."""
    copy = _copy(built, "rotated", tmp_path)
    conn = open_readonly(copy.path)
    try:
        found = plan_cut(conn, copy.path, copy.archive, wager_spots=(), floor_acked=30)
        assert plan_cut(conn, copy.path, copy.archive, wager_spots=(), floor_acked=42) == 42
    finally:
        conn.close()
    assert found == (
        f"nothing to rotate in {copy.path}: no segment of {copy.archive} ends after row 21"
        " and at or before row 30 (the floor acknowledged rows up to 30)"
    )
