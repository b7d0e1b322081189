"""Hostile input at the commands of a rotated journal: ``journal rotate --archive DIR``
(and ``--check``), ``journal verify --archive DIR``, ``journal verify-archive DIR`` and
``journal migrate`` (docs/journal.md, "Rotation" and "Storage format 2").

Each answers with its documented status and one line (never a traceback), and a command
that refuses leaves the journal and the archive as they were: every file is hashed before
and after. Hypothesis damages a real sealed journal and its archive (both storage formats,
rotated or not): a segment byte-flipped, cut short, with bytes after it or gone, garbage
files named like segments, the journal file, its head record or its base record flipped;
and feeds the commands hostile arguments (a folder that is a file or missing, a device,
names with a newline or bytes that are not UTF-8, numbers out of range).

stdout is a strict UTF-8 stream here, as a UTF-8 locale's is (pytest's capture and
``tests/test_cli_hostile.py``'s StringIO accept any text): a name of bytes that are not
UTF-8 once ended a command in UnicodeEncodeError there.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from journal_tamper_support import behind_the_triggers
from test_journal_rotate import rows_of

from controller.cli.main import main
from controller.journal.archive import archive, segments
from controller.journal.base import BASE_KEY
from controller.journal.format import JournalCorruptError
from controller.journal.rotate import rotate_journal
from controller.journal.seal import load_state, new_sealing, save_state
from controller.journal.store import Journal
from controller.service.daemon import WAGER_SPOTS

SEGMENT_ROWS = 60
#: A name of bytes that are not UTF-8, as Python hands it over (surrogate escapes).
NOT_UTF8 = os.fsdecode(b"j\xff\xfe")
#: Each example copies a journal of about 900 rows and runs one command in-process.
HYPOTHESIS = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def run(argv: Sequence[str]) -> tuple[int, list[str], list[str]]:
    """The command line in-process, stdout a strict UTF-8 stream and stderr one that
    escapes as Python's own does: status, stdout lines, stderr lines."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="\n")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace", newline="\n")
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exit_:  # argparse's usage errors
            status = int(exit_.code or 0)
        out.flush()
        err.flush()
    return status, _lines(out), _lines(err)


def _lines(stream: io.TextIOWrapper) -> list[str]:
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    text = buffer.getvalue().decode()
    return text.split("\n")[:-1] if text else []


def digests(root: Path) -> dict[str, str]:
    """Every entry under ``root`` and its content's digest. SQLite's WAL index (``-shm``)
    is left out, and so is an empty WAL (a reader's open makes one, its close removes it:
    neither holds a row)."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        if path.name.endswith("-shm") or (path.name.endswith("-wal") and info.st_size == 0):
            continue
        if stat.S_ISREG(info.st_mode):
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif stat.S_ISLNK(info.st_mode):
            found[str(path)] = "-> " + os.readlink(path)
        else:
            found[str(path)] = stat.filemode(info.st_mode)
    return found


def one_line_answer(result: tuple[int, list[str], list[str]], statuses: set[int]) -> None:
    """The status is one of ``statuses``; a refusal is one line on stderr, a success (or
    ``rotate --check``'s "no") at most one line on stdout and nothing on stderr."""
    status, out, err = result
    assert status in statuses, result
    assert not any("Traceback" in line for line in out + err), result
    if err:
        assert status != 0 and len(err) == 1 and out == [], result
    else:
        assert len(out) <= 1, result


def _write(folder: Path, storage_format: int) -> None:
    """A sealed journal of 12 simulated rounds (shuffles, burns, wager reports, a
    checkpoint about every 120 rows), archived in segments of about 60 rows."""
    folder.mkdir(parents=True)
    state, _key = new_sealing("T1")
    save_state(folder / "sealing-key", state)
    path = folder / "journal.sqlite3"
    with Journal.open(
        path, sealing=folder / "sealing-key", storage_format=storage_format
    ) as journal:
        journal.checkpoint()
        since = 0
        with journal.batch():
            for row in rows_of(12, 7):
                journal.append(row.kind, row.data, row.round_no)
                since += 1
                if since >= 120 and row.kind == "round_completed":
                    journal.checkpoint()
                    since = 0
    archive(path, folder / "archive", table="T1", segment_rows=SEGMENT_ROWS)
    for leftover in folder.glob("*-shm"):
        leftover.unlink()


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A journal and its archive in storage formats 1 and 2, each as written ("live") and
    rotated once."""
    root = tmp_path_factory.mktemp("trees")
    found: dict[str, Path] = {}
    for storage_format in (1, 2):
        live = root / f"live{storage_format}"
        _write(live, storage_format)
        rotated = root / f"rotated{storage_format}"
        shutil.copytree(live, rotated)
        done = rotate_journal(
            rotated / "journal.sqlite3",
            rotated / "archive",
            wager_spots=WAGER_SPOTS,
            floor_acked=None,
            sealing=load_state(rotated / "sealing-key"),
        )
        assert done.cut_rows > 0
        for leftover in rotated.glob("*-shm"):
            leftover.unlink()
        found[live.name], found[rotated.name] = live, rotated
    return found


@contextmanager
def copy_of(tree: Path) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "t"
        shutil.copytree(tree, copy)
        yield copy


COMMANDS = {
    "rotate": ["journal", "rotate", "--archive", "{A}", "--journal", "{J}", "--sealing-key", "{K}"],
    "rotate --check": ["journal", "rotate", "--check", "--archive", "{A}", "--journal", "{J}"],
    "verify --archive": ["journal", "verify", "--journal", "{J}", "--archive", "{A}"],
    "verify-archive": ["journal", "verify-archive", "{A}", "--workers", "1"],
    "migrate": ["journal", "migrate", "--journal", "{J}"],
}  # fmt: skip
#: What each may answer: 0 done (or nothing to do), 1 a problem found, 2 a usage error.
STATUSES = {"rotate": {0, 1, 2}, "rotate --check": {0, 1}, "migrate": {0, 1, 2}}


def command(name: str, root: Path) -> list[str]:
    values = {
        "{A}": str(root / "archive"),
        "{J}": str(root / "journal.sqlite3"),
        "{K}": str(root / "sealing-key"),
    }
    return [values.get(part, part) for part in COMMANDS[name]]


def _flip(path: Path, data: st.DataObject, *, start: int = 0) -> None:
    raw = bytearray(path.read_bytes())
    at = data.draw(st.integers(start, len(raw) - 1), label="offset")
    raw[at] ^= 1 << data.draw(st.integers(0, 7), label="bit")
    path.write_bytes(bytes(raw))


def damage(root: Path, kind: str, data: st.DataObject) -> None:
    """Damage the journal or the archive in ``root`` as ``kind`` says."""
    folder = root / "archive"
    found = segments(folder)
    segment = found[data.draw(st.integers(0, len(found) - 1), label="segment")]
    path = root / "journal.sqlite3"
    if kind == "segment-flip":
        _flip(segment, data)
    elif kind == "segment-truncate":
        raw = segment.read_bytes()
        segment.write_bytes(raw[: data.draw(st.integers(0, len(raw) - 1), label="length")])
    elif kind == "segment-append":
        segment.write_bytes(segment.read_bytes() + data.draw(st.binary(min_size=1, max_size=40)))
    elif kind == "segment-delete":
        segment.unlink()
    elif kind == "garbage-files":
        names = st.one_of(
            st.tuples(st.integers(0, 10**12 - 1), st.integers(0, 10**12 - 1)).map(
                lambda pair: f"{pair[0]:012d}-{pair[1]:012d}.dsa"
            ),
            st.sampled_from(["x.dsa", ".dsa", "000000000001-000000000001.dsa", "notes.txt"]),
        )
        for name in data.draw(st.lists(names, min_size=1, max_size=3, unique=True)):
            (folder / name).write_bytes(data.draw(st.binary(max_size=300), label=name))
    elif kind == "journal-flip":
        _flip(path, data, start=100)  # past SQLite's file header: a damaged page
    elif kind == "journal-truncate":
        raw = path.read_bytes()
        path.write_bytes(raw[: data.draw(st.integers(0, len(raw) - 1), label="length")])
    elif kind == "head-flip":
        _flip(path.with_name(path.name + "-head"), data)
    elif kind == "base-flip":
        conn = sqlite3.connect(path)
        (text,) = conn.execute("SELECT value FROM meta WHERE key = ?", (BASE_KEY,)).fetchone()
        conn.close()
        raw = bytearray(text.encode())
        at = data.draw(st.integers(0, len(raw) - 1), label="offset")
        raw[at] ^= 1 << data.draw(st.integers(0, 6), label="bit")  # stays ASCII
        changed = raw.decode("ascii")
        behind_the_triggers(
            path,
            lambda c: c.execute("UPDATE meta SET value = ? WHERE key = ?", (changed, BASE_KEY)),
        )


DAMAGES = (
    "segment-flip",
    "segment-truncate",
    "segment-append",
    "segment-delete",
    "garbage-files",
    "journal-flip",
    "journal-truncate",
    "head-flip",
)


@HYPOTHESIS
@given(
    tree=st.sampled_from(["live1", "live2", "rotated1", "rotated2"]),
    name=st.sampled_from(sorted(COMMANDS)),
    data=st.data(),
)
def test_a_damaged_journal_or_archive_is_answered_in_one_line_and_left_as_it_was(
    trees: dict[str, Path], tree: str, name: str, data: st.DataObject
) -> None:
    kinds = DAMAGES + (("base-flip",) if tree.startswith("rotated") else ())
    kind = data.draw(st.sampled_from(kinds), label="damage")
    with copy_of(trees[tree]) as root:
        damage(root, kind, data)
        before = digests(root)
        result = run(command(name, root))
        one_line_answer(result, STATUSES.get(name, {0, 1}))
        if result[0] != 0:
            assert digests(root) == before, result
        if name == "verify-archive" and kind in ("segment-truncate", "segment-append"):
            assert result[0] == 1, result  # the archive's own check finds it


@HYPOTHESIS
@given(tree=st.sampled_from(["live1", "live2", "rotated1", "rotated2"]), data=st.data())
def test_verify_archive_finds_any_change_to_a_segment_s_header_line(
    trees: dict[str, Path], tree: str, data: st.DataObject
) -> None:
    """A segment's first line (its header: format, table, rows, hashes, open hole cards)
    is checked whole: any one bit of it flipped is found."""
    with copy_of(trees[tree]) as root:
        found = segments(root / "archive")
        segment = found[data.draw(st.integers(0, len(found) - 1), label="segment")]
        raw = bytearray(segment.read_bytes())
        at = data.draw(st.integers(0, raw.index(b"\n") - 1), label="offset")
        raw[at] ^= 1 << data.draw(st.integers(0, 7), label="bit")
        segment.write_bytes(bytes(raw))
        before = digests(root)
        result = run(command("verify-archive", root))
        one_line_answer(result, {1})
        assert digests(root) == before


# -- hostile arguments --------------------------------------------------------------------

#: What a folder or file argument may be: (kind, how it is made in the tree).
HOSTILE_PATHS = (
    "missing",
    "file",
    "journal",
    "head",
    "empty-folder",
    "garbage-folder",
    "device",
    "newline",
    "not-utf8",
    "empty",
)


def hostile_path(root: Path, kind: str) -> str:
    if kind == "missing":
        return str(root / "missing" / "x")
    if kind == "file":
        (root / "file").write_text("keep me\n")
        return str(root / "file")
    if kind == "journal":
        return str(root / "journal.sqlite3")
    if kind == "head":
        return str(root / "journal.sqlite3-head")
    if kind == "empty-folder":
        (root / "empty").mkdir(exist_ok=True)
        return str(root / "empty")
    if kind == "garbage-folder":
        folder = root / "garbage"
        folder.mkdir(exist_ok=True)
        (folder / "000000000001-000000000060.dsa").write_bytes(b"\x00\xff" * 50)
        (folder / "000000000061-000000000001.dsa").write_text("dealer-station segment v1\n")
        return str(folder)
    if kind == "device":
        return "/dev/null"
    if kind == "newline":
        (root / "a\nb").mkdir(exist_ok=True)
        return str(root / "a\nb")
    if kind == "not-utf8":
        (root / NOT_UTF8).mkdir(exist_ok=True)
        return str(root / NOT_UTF8)
    return ""


#: The hostile paths that are folders without a segment file.
EMPTY_FOLDERS = ("empty-folder", "not-utf8", "newline")
ARGUMENT_COMMANDS = {
    "rotate --archive": (["journal", "rotate", "--journal", "{J}", "--sealing-key", "{K}",
                          "--archive"], {1, 2}),
    "rotate --check --archive": (["journal", "rotate", "--check", "--journal", "{J}",
                                  "--archive"], {1, 2}),
    "rotate --journal": (["journal", "rotate", "--archive", "{A}", "--sealing-key", "{K}",
                          "--journal"], {1, 2}),
    "rotate --sealing-key": (["journal", "rotate", "--archive", "{A}", "--journal", "{J}",
                              "--sealing-key"], {1, 2}),
    "rotate --config": (["journal", "rotate", "--archive", "{A}", "--config"], {2}),
    "verify --archive": (["journal", "verify", "--journal", "{J}", "--archive"], {1, 2}),
    "verify --journal": (["journal", "verify", "--archive", "{A}", "--journal"], {1, 2}),
    "verify-archive": (["journal", "verify-archive"], {1, 2}),
    "migrate --journal": (["journal", "migrate", "--journal"], {1, 2}),
    "migrate --config": (["journal", "migrate", "--config"], {2}),
}  # fmt: skip


def argument_command(name: str, root: Path, value: str) -> list[str]:
    values = {
        "{A}": str(root / "archive"),
        "{J}": str(root / "journal.sqlite3"),
        "{K}": str(root / "sealing-key"),
    }
    return [values.get(part, part) for part in ARGUMENT_COMMANDS[name][0]] + [value]


@HYPOTHESIS
@given(
    tree=st.sampled_from(["live2", "rotated1"]),
    name=st.sampled_from(sorted(ARGUMENT_COMMANDS)),
    kind=st.sampled_from(HOSTILE_PATHS),
)
# The empty archive folder each way, always (the answers differ by the journal's rotation).
@example(tree="live2", name="rotate --archive", kind="empty-folder")
@example(tree="rotated1", name="rotate --archive", kind="empty-folder")
@example(tree="live2", name="verify --archive", kind="empty-folder")
@example(tree="rotated1", name="verify --archive", kind="empty-folder")
def test_a_hostile_path_argument_is_refused_in_one_line_and_nothing_is_written(
    trees: dict[str, Path], tree: str, name: str, kind: str
) -> None:
    """No path of these is a journal, an archive or a sealing state the command can use
    (the archive folders hold no segment the journal's rotation or base can use); the
    journal named where a folder is wanted is the journal itself."""
    assume(not (name.endswith("--journal") and kind == "journal"))  # the journal: it works
    with copy_of(trees[tree]) as root:
        value = hostile_path(root, kind)
        before = digests(root)
        result = run(argument_command(name, root, value))
        if name == "verify --archive" and kind in EMPTY_FOLDERS:
            # An archive with no segment yet: a journal not rotated verifies (its last
            # segment is not there to link), a rotated one misses its base's segment.
            one_line_answer(result, {0} if tree.startswith("live") else {1})
        elif name == "rotate --archive" and kind in EMPTY_FOLDERS:
            if tree.startswith("live"):
                one_line_answer(result, {0})  # no segment: nothing to rotate, the file as it was
                assert "nothing to rotate" in result[1][0]
            else:  # a rotated journal's archive must hold the segment its base names
                one_line_answer(result, {1})
                assert "the segment the base names" in result[2][0]
        else:
            one_line_answer(result, ARGUMENT_COMMANDS[name][1])
        assert digests(root) == before, result


@HYPOTHESIS
@given(
    option=st.sampled_from(["--idle", "--workers"]),
    value=st.one_of(
        st.integers(-(2**70), 2**70).map(str),
        st.sampled_from(["-1", "0", "1441", "65", "1e3", "0x10", "", " 5", "\u0665"]),
        st.text(max_size=12),
    ),
)
def test_a_number_out_of_range_is_a_usage_error_in_one_line(
    trees: dict[str, Path], option: str, value: str
) -> None:
    with copy_of(trees["live2"]) as root:
        if option == "--idle":
            argv = ["journal", "rotate", "--check", "--archive", str(root / "archive"),
                    "--journal", str(root / "journal.sqlite3"), f"--idle={value}"]  # fmt: skip
        else:
            argv = ["journal", "verify-archive", str(root / "archive"), f"--workers={value}"]
        before = digests(root)
        result = run(argv)
        try:
            number = int(value)
        except ValueError:
            number = None
        good = (0, 1440) if option == "--idle" else (1, 64)
        if number is not None and good[0] <= number <= good[1]:
            one_line_answer(result, {0, 1})  # a number it takes
        else:
            one_line_answer(result, {2})
            assert option in result[2][0]
        assert digests(root) == before


# -- the answers known by hand ----------------------------------------------------------


@pytest.mark.parametrize("tree", ["live2", "rotated1"])
@pytest.mark.parametrize(("kind", "problem"), [("missing", "no such directory"),
                                               ("file", "not a directory"),
                                               ("journal", "not a directory")])  # fmt: skip
def test_verify_with_an_archive_that_is_no_folder_is_a_usage_error(
    trees: dict[str, Path], tree: str, kind: str, problem: str
) -> None:
    """``verify --archive DIR`` once took a DIR that was not there as an archive without
    segments: "intact" (status 0) for a journal not rotated, "removed: rows 1..K" (status 1,
    the journal blamed) for a rotated one."""
    with copy_of(trees[tree]) as root:
        value = hostile_path(root, kind)
        before = digests(root)
        result = run(["journal", "verify", "--journal", str(root / "journal.sqlite3"),
                      "--archive", value])  # fmt: skip
        one_line_answer(result, {2})
        assert result[2] == [f"journal verify: --archive {value}: {problem}"]
        assert digests(root) == before


@pytest.mark.parametrize("tree", ["live1", "live2"])
def test_sqlite_s_report_of_a_damaged_page_is_one_line(trees: dict[str, Path], tree: str) -> None:
    """SQLite's integrity check reports a page whose free-space count is wrong on two
    lines ("*** in database main ***", then the page): verify once printed both."""
    with copy_of(trees[tree]) as root:
        path = root / "journal.sqlite3"
        raw = bytearray(path.read_bytes())
        page = int.from_bytes(raw[16:18], "big")
        raw[page + 7] = 0xFF  # page 2's b-tree header: its fragmented free bytes
        path.write_bytes(bytes(raw))
        result = run(["journal", "verify", "--journal", str(path)])
        one_line_answer(result, {1})
        assert result[2] == [
            f"corrupt: {path}: *** in database main ***; Page 2: free space corruption"
        ]


@pytest.mark.parametrize(
    "argv",
    [
        ["journal", "verify", "--journal", "{P}"],
        ["journal", "recall", "--journal", "{P}"],
        ["journal", "anchor", "--journal", "{P}"],
        ["journal", "export", "--journal", "{P}"],
        ["journal", "migrate", "--journal", "{P}"],
        ["journal", "rotate", "--archive", "{A}", "--journal", "{P}"],
        ["journal", "migrate", "--config", "{P}"],
        ["journal", "verify", "--journal", "{J}", "--archive", "{P}"],
    ],
)
def test_a_newline_in_a_path_is_escaped_not_a_second_line(
    trees: dict[str, Path], argv: list[str]
) -> None:
    with copy_of(trees["live2"]) as root:
        bad = str(root / "no\nsuch")
        values = {"{P}": bad, "{A}": str(root / "archive"), "{J}": str(root / "journal.sqlite3")}
        result = run([values.get(part, part) for part in argv])
        one_line_answer(result, {1, 2})
        assert str(root / "no\\nsuch") in result[2][0], result


def test_rotate_names_a_missing_sealing_state_in_plain_words(trees: dict[str, Path]) -> None:
    with copy_of(trees["live2"]) as root:
        before = digests(root)
        journal, folder = str(root / "journal.sqlite3"), str(root / "archive")
        result = run(
            ["journal", "rotate", "--archive", folder, "--journal", journal, "--sealing-key",
             str(root / "nokey")]
        )  # fmt: skip
        one_line_answer(result, {2})
        assert result[2] == [
            f"journal rotate: the sealing state {root / 'nokey'}: No such file or directory"
        ]
        assert digests(root) == before


def test_a_name_that_is_not_utf8_is_printed_escaped_on_a_utf8_stdout(
    trees: dict[str, Path],
) -> None:
    """``journal migrate`` and ``journal setup-keys`` name a path on stdout when they are
    done: on a strict UTF-8 stdout a name of bytes that are not UTF-8 once raised
    UnicodeEncodeError after the work was done (a traceback, status 1)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / NOT_UTF8
        shutil.copytree(trees["live1"], folder)
        status, out, err = run(["journal", "migrate", "--journal", str(folder / "journal.sqlite3")])
        assert (status, err) == (0, []) and len(out) == 1
        assert out[0].startswith(f"migrated: {Path(tmp)}/j\\udcff\\udcfe/journal.sqlite3 is ")
        key_file = folder / "new-key"
        status, out, err = run(["journal", "setup-keys", "--table", "T9", "--key-file",
                                str(key_file)])  # fmt: skip
        assert (status, err) == (0, []) and key_file.exists()
        escaped = f"{Path(tmp)}/j\\udcff\\udcfe/new-key"
        assert out[0] == f"Sealing state for table T9 written to {escaped}."


@pytest.mark.parametrize("tree", ["live1", "live2"])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_schema_whose_text_is_not_utf8_is_a_damaged_journal_in_one_line(
    trees: dict[str, Path], tree: str, name: str
) -> None:
    """SQLite quotes a schema statement it cannot parse in its message; when a flipped
    byte makes that text not UTF-8, Python's sqlite3 raises UnicodeDecodeError: a
    traceback (and an open file left behind) from verify, rotate and migrate once."""
    with copy_of(trees[tree]) as root:
        path = root / "journal.sqlite3"
        raw = bytearray(path.read_bytes())
        raw[raw.index(b"CREATE TABLE") + 3] = 0xFF  # "CRE\xffTE TABLE ...": not UTF-8
        path.write_bytes(bytes(raw))
        before = digests(root)
        result = run(command(name, root))
        if name == "verify-archive":  # reads the archive only
            one_line_answer(result, {0})
        else:
            one_line_answer(result, {1})
            line = (result[2] or result[1])[0]
            assert line.endswith("its schema is damaged (text that is not UTF-8)"), line
        assert digests(root) == before


@pytest.mark.parametrize("value", ["", ".", "/", "a\0b"])
@pytest.mark.parametrize("name", ["recall", "verify", "migrate", "rotate", "rotate --check"])
def test_a_journal_path_that_names_no_file_is_a_usage_error(
    trees: dict[str, Path], name: str, value: str
) -> None:
    """``--journal ''`` (or ``.``, ``/``) once ended verify and rotate in ValueError
    ("PosixPath('.') has an empty name") when they named the head record beside it."""
    with copy_of(trees["live2"]) as root:
        argv = {
            "recall": ["journal", "recall"],
            "verify": ["journal", "verify"],
            "migrate": ["journal", "migrate"],
            "rotate": ["journal", "rotate", "--archive", str(root / "archive")],
            "rotate --check": ["journal", "rotate", "--check", "--archive", str(root / "archive")],
        }[name]
        before = digests(root)
        result = run([*argv, f"--journal={value}"])
        one_line_answer(result, {2})
        assert "argument --journal: " in result[2][0], result
        assert digests(root) == before


@pytest.mark.parametrize("tree", ["live1", "live2"])
def test_the_station_s_open_of_a_schema_that_is_not_utf8_is_a_damaged_journal(
    trees: dict[str, Path], tree: str
) -> None:
    """The writer's open (``dealer-station run``'s start) reads the same schema: the same
    one-line JournalCorruptError, never UnicodeDecodeError, and the file left as it was."""
    with copy_of(trees[tree]) as root:
        path = root / "journal.sqlite3"
        raw = bytearray(path.read_bytes())
        raw[raw.index(b"CREATE TABLE") + 3] = 0xFF
        path.write_bytes(bytes(raw))
        before = digests(root)
        with pytest.raises(JournalCorruptError, match="not UTF-8") as caught:
            Journal.open(path, sealing=root / "sealing-key")
        assert "\n" not in str(caught.value)
        assert digests(root) == before


@pytest.mark.parametrize("tree", ["live1", "live2"])
@pytest.mark.parametrize("forged", ["garbage", "another-segment"])
def test_rotate_check_reads_the_header_of_the_segment_it_would_cut_at(
    trees: dict[str, Path], tree: str, forged: str
) -> None:
    """``--check`` once said "would cut rows up to K" (0) of any file named like a segment
    ending at K (garbage bytes; a name ``...61-...01.dsa`` ending before it begins), which
    the rotation then refuses: the nightly unit's condition was met by garbage. Its header
    is read now: "no" (1) naming the file."""
    with copy_of(trees[tree]) as root:
        argv = ["journal", "rotate", "--check", "--archive", str(root / "archive"),
                "--journal", str(root / "journal.sqlite3")]  # fmt: skip
        status, out, _err = run(argv)
        assert status == 0 and out[0].startswith("journal rotate: would cut rows up to ")
        end = int(out[0].split("up to ")[1].split()[0])
        (chosen,) = [p for p in segments(root / "archive") if p.name.endswith(f"-{end:012d}.dsa")]
        if forged == "garbage":
            chosen.write_bytes(b"\x00\xff" * 40)
        else:
            other = next(p for p in segments(root / "archive") if p != chosen)
            shutil.copy(other, chosen)  # a whole segment, of other rows
        before = digests(root)
        result = run(argv)
        one_line_answer(result, {1})
        assert chosen.name in result[1][0], result
        assert ("does not read" if forged == "garbage" else "not its name's") in result[1][0]
        assert digests(root) == before
