"""Storage faults (docs/journal.md): a full disk while a journal is made or written, a
half-made journal, and the journal CLI's hostile arguments.

A full disk is a real one: a small tmpfs mounted in a private mount namespace
(``unshare -rm``, no root needed), with the real station code writing to it.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from journal_tamper_support import behind_the_triggers

from controller.cli.main import main
from controller.journal.format import JournalCorruptError, JournalTruncatedError, head_path
from controller.journal.store import Journal
from controller.journal.verify import verify
from controller.service.daemon import open_journal

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable


def on_small_disk(directory: Path, size: str, script: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (sh) with a tmpfs of ``size`` mounted at ``directory``."""
    unshare = shutil.which("unshare")
    assert unshare is not None, "util-linux's unshare is part of the base system"
    directory.mkdir(exist_ok=True)
    return subprocess.run(
        [
            unshare,
            "-rm",
            "sh",
            "-c",
            f"mount -t tmpfs -o size={size} tmpfs {directory} && {script}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )


def fill_leaving(disk: Path, free_kib: int) -> str:
    """The sh fragment, for an ``on_small_disk`` script, that fills ``disk`` with a file
    ``disk/filler`` until ``free_kib`` KiB are left."""
    return (
        f"avail=$(df --output=avail -B1 {disk} | tail -1) &&"
        f" head -c $((avail - {free_kib} * 1024)) /dev/zero > {disk}/filler"
    )


def test_simulate_on_a_full_disk_reports_the_disk(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    done = on_small_disk(
        disk,
        "400k",
        f"{PYTHON} -m controller.cli.main simulate --plain --rounds 500 --journal {disk}/j.sqlite3",
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "disk is full" in done.stderr and "bytes free on its disk" in done.stderr
    assert "stopped answering" not in done.stderr


#: Run on the small disk by the next test: the daemon's start (journal check, open,
#: checkpoint, the start's row and seal) on a sealed table's new journal; prints the
#: outcome and what is on the disk.
_START = """
import os, sys
from pathlib import Path
from controller.journal.seal import new_sealing, save_state
from controller.journal.format import JournalError
from controller.service.daemon import StartError, open_journal
disk, key = Path(sys.argv[1]), Path(sys.argv[2])
if not key.exists():
    state, verification = new_sealing("T1")
    save_state(key, state)
    (key.parent / "verification-key").write_text(verification.to_text())
try:
    journal = open_journal(disk / "j.sqlite3", key)
    try:
        journal.append("station_started", {"table_id": "T1"})  # and the start's seal
    finally:
        journal.close()
    print("started", sorted(os.listdir(disk)))
except (StartError, JournalError) as err:  # what `dealer-station run` reports in one line
    print("refused", sorted(os.listdir(disk)), str(err).count(chr(10)))
"""


@pytest.mark.parametrize("kib", range(48, 113, 8))
def test_a_start_on_a_full_disk_leaves_no_broken_journal_and_starts_once_there_is_room(
    tmp_path: Path, kib: int
) -> None:
    """A new journal made on a disk with ``kib`` KiB free (80-96 KiB once left a renamed
    but damaged journal and the temporary's side files, and every later start refused):
    the start either works or refuses in one line, leaves no temporary file, and once there
    is room the station starts, its journal intact with its seals."""
    disk = tmp_path / "disk"
    keys = tmp_path / "keys"
    keys.mkdir()
    (tmp_path / "start.py").write_text(_START)
    start = f"{PYTHON} {tmp_path}/start.py {disk} {keys}/sealing-key"
    done = on_small_disk(
        disk,
        f"{kib}k",
        f"{start} > {tmp_path}/full.out 2>&1; mount -o remount,size=1m {disk} &&"
        f" {start} > {tmp_path}/room.out 2>&1 && {start} >> {tmp_path}/room.out 2>&1 &&"
        f" cp -a {disk} {tmp_path}/kept",
    )
    assert done.returncode == 0, done.stderr
    full = (tmp_path / "full.out").read_text()
    assert full.startswith(("started", "refused")) and "Traceback" not in full, full
    assert ".j.sqlite3.creating" not in full  # no temporary left, nor its side files
    if full.startswith("refused"):
        assert full.rstrip().endswith(" 0"), full  # one line
    room = (tmp_path / "room.out").read_text().splitlines()
    assert [line.split()[0] for line in room] == ["started", "started"], room
    assert ".j.sqlite3.creating" not in "".join(room)
    from controller.journal.seal import VerificationKey

    key = VerificationKey.from_text((keys / "verification-key").read_text())
    report = verify(tmp_path / "kept" / "j.sqlite3", key=key)
    assert report.ok, report.message


def test_a_new_journal_is_made_with_1_kib_pages(tmp_path: Path) -> None:
    """Each commit writes whole pages to the WAL: 1 KiB pages write about 256 KB a round
    instead of 406 KB (docs/performance.md, "A busy table's journal"). The durability of a
    commit does not depend on the page size (WAL, synchronous=FULL)."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("button", {"button": "next", "state": "betting"})
        journal.append("round_completed", {"reshuffle": False}, 1)
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA page_size").fetchone() == (1024,)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        conn.close()
    assert verify(path).case.name == "INTACT"


@pytest.mark.parametrize("half", ["empty file", "no tables", "meta only"])
def test_a_half_made_journal_is_made_again(tmp_path: Path, half: str) -> None:
    path = tmp_path / "journal.sqlite3"
    head_path(path).write_bytes(b"")
    if half == "empty file":
        path.write_bytes(b"")
    else:
        conn = sqlite3.connect(path)
        if half == "meta only":
            conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("PRAGMA user_version = 1")  # an SQLite file with a header
        conn.close()
    journal = open_journal(path)  # the daemon's start: no refusal
    try:
        assert journal.replaced_half_made
        journal.append("station_started", {})
    finally:
        journal.close()
    assert verify(path).ok


def test_what_is_not_half_made_is_never_replaced(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"not a database at all, but a damaged journal" * 100)
    with pytest.raises(JournalCorruptError):
        Journal.open(path)
    assert path.read_bytes().startswith(b"not a database")
    empty = tmp_path / "cut.sqlite3"
    empty.write_bytes(b"")
    head_path(empty).write_bytes(b'{"hash":"' + b"a" * 64 + b'","id":7}'.ljust(127) + b"\n")
    with pytest.raises(JournalTruncatedError):
        Journal.open(empty)  # the head names rows: they are missing, not never written


# --- the journal CLI -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "journal.sqlite3"
    with Journal.open(path) as journal:
        for round_no in (1, 2, 3):
            journal.append("round_started", {"round": round_no, "seats": []}, round_no)
            journal.append("round_completed", {"reshuffle": False}, round_no)
    return path


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exit_:
            code = int(exit_.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_recall_of_a_huge_count_recalls_everything(small_journal: Path) -> None:
    code, out, err = run_cli(
        "journal", "recall", "99999999999999999999", "--journal", str(small_journal)
    )
    assert (code, err) == (0, "")
    assert "Round 1 " in out and "Round 3 " in out


def test_export_to_the_last_day_of_the_calendar(small_journal: Path) -> None:
    code, out, err = run_cli(
        "journal", "export", "--to", "9999-12-31", "--journal", str(small_journal)
    )
    assert (code, err) == (0, "")
    assert len(out.splitlines()) == 6


def test_recall_into_head_ends_quietly(small_journal: Path) -> None:
    done = subprocess.run(
        f"{PYTHON} -m controller.cli.main journal recall --journal {small_journal} | head -1",
        shell=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.stdout.startswith("Round 1 ") and done.stdout.count("\n") == 1
    assert done.stderr == ""


@pytest.mark.parametrize(
    "damage",
    [
        "garbage",
        "no journal table",
        # A row's text column (format 1; format 2's codec stores canonical JSON only).
        pytest.param("row not JSON", marks=pytest.mark.journal_format(1)),
        # A commit's stored bytes (format 2).
        pytest.param("commit not readable", marks=pytest.mark.journal_format(2)),
    ],
)
def test_recall_on_a_corrupt_file_exits_non_zero(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "journal.sqlite3"
    if damage == "garbage":
        path.write_bytes(bytes(range(256)) * 64)
    elif damage == "no journal table":
        sqlite3.connect(path).execute("CREATE TABLE other (x)").connection.close()
    else:
        with Journal.open(path) as journal:
            journal.append("round_started", {"round": 1, "seats": []}, 1)
        behind_the_triggers(
            path,
            lambda conn: conn.execute(
                "UPDATE journal SET data = '{not json' WHERE id = 1"
                if damage == "row not JSON"
                else "UPDATE journal_commit SET body = x'00ff00ff' WHERE first_id = 1"
            ),
        )
    code, _, err = run_cli("journal", "recall", "--journal", str(path))
    assert code == 1
    assert err.count("\n") == 1 and "Traceback" not in err


@given(
    count=st.text(max_size=30),
    moment=st.one_of(st.text(max_size=40), st.dates().map(str), st.datetimes().map(str)),
)
def test_hostile_recall_and_export_arguments(small_journal: Path, count: str, moment: str) -> None:
    """Any text as N, --from or --to: an answer or argparse's usage error, no traceback."""
    for args in (
        ["journal", "recall", "--journal", str(small_journal), "--", count],
        ["journal", "export", "--journal", str(small_journal), f"--from={moment}"],
        ["journal", "export", "--journal", str(small_journal), f"--to={moment}"],
    ):
        code, _, err = run_cli(*args)
        assert code in (0, 2), (args, err)
        assert "Traceback" not in err


def test_a_journal_of_another_storage_format_is_refused_untouched(tmp_path: Path) -> None:
    """A file whose ``meta`` names a schema version this program does not write (a later
    program's storage, after formats 1 and 2 of docs/journal.md) is refused in one line
    before this program adds its schema or an index to it, and its bytes stay as they
    were."""
    path = tmp_path / "journal.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        PRAGMA journal_mode=WAL;
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
        INSERT INTO meta VALUES ('schema_version', '3');
        CREATE TABLE journal (id INTEGER PRIMARY KEY, rows BLOB NOT NULL) STRICT;
        INSERT INTO journal VALUES (1, x'00');
        """
    )
    conn.close()
    before = path.read_bytes()
    with pytest.raises(JournalCorruptError, match="schema version 3 is not supported") as caught:
        Journal.open(path)
    assert "\n" not in str(caught.value)
    assert path.read_bytes() == before
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        names = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
    assert names == {"meta", "journal", "sqlite_autoindex_meta_1"}
