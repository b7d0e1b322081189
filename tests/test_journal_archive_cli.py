"""``journal archive`` and ``journal verify-archive`` against hostile input: every path they
take (the archive folder, ``--to``, ``--journal``, an entry named like a segment) as a
device, a FIFO, a directory, a file, a symlink (to a file, to a directory, dangling, to
itself) or the journal's own files; arbitrary arguments; arbitrary segment bytes, a zlib
bomb, a segment of another format; and the journals earlier writers wrote
(``tests/data/``), which archive and verify with their key.

Each answers with its documented status (0 good, 1 a problem found, 2 a usage error) and
one line on stderr, never hangs (a FIFO opened for reading waits for a writer), and writes
nothing it was not asked to. The in-process runner is ``tests/test_cli_hostile.py``'s.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from journal_compat_support import verification_key
from test_cli_hostile import assert_refused, invoke
from test_cli_paths import snapshot
from test_journal_archive import play

from controller.journal.archive import Header, archive, read_header, segments
from controller.journal.seal import new_sealing, save_state
from controller.journal.store import Journal

DATA = Path(__file__).parent / "data"
#: Every journal an earlier writer left in ``tests/data/`` (each with its sealing key).
EARLIER_WRITERS = ("journal-1ac22a8", "journal-checkpoints", "journal-kinds")
SEGMENT = 60
# A FIFO left open would hang a test rather than fail it: each is bounded.
pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A sealed journal of 40 rounds and its archive (4 segments), built once: the folder
    and the verification key's text."""
    root = tmp_path_factory.mktemp("built")
    state, key = new_sealing("T1")
    save_state(root / "sealing-key", state)
    with Journal.open(root / "journal.sqlite3", sealing=root / "sealing-key") as journal:
        journal.checkpoint()
        play(journal, 1, 40, void_at=9)
    archive(root / "journal.sqlite3", root / "archive", table="T1", segment_rows=SEGMENT)
    assert len(segments(root / "archive")) >= 3
    return root, key.to_text()


@pytest.fixture
def tree(built: tuple[Path, str], tmp_path: Path) -> Iterator[tuple[Path, dict[str, Path]]]:
    """A copy of the built journal and archive, and one path of each hostile kind."""
    root = tmp_path / "t"
    shutil.copytree(built[0], root)
    for leftover in root.glob("*-shm"):
        leftover.unlink()
    paths = {
        "device": root / "device",
        "fifo": root / "fifo",
        "directory": root / "directory",
        "file": root / "file",
        "link-to-file": root / "link-to-file",
        "link-to-directory": root / "link-to-directory",
        "dangling-link": root / "dangling-link",
        "link-to-itself": root / "link-to-itself",
        "journal": root / "journal.sqlite3",
        "journal-head": root / "journal.sqlite3-head",
        "missing": root / "missing",
    }
    try:
        os.mknod(paths["device"], stat.S_IFCHR | 0o600, os.makedev(1, 5))  # a zero device
    except PermissionError:
        paths["device"] = Path("/dev/zero")
    os.mkfifo(paths["fifo"])
    paths["directory"].mkdir()
    paths["file"].write_text("keep me\n")
    paths["link-to-file"].symlink_to(paths["file"])
    paths["link-to-directory"].symlink_to(paths["directory"])
    paths["dangling-link"].symlink_to(root / "nowhere")
    paths["link-to-itself"].symlink_to(paths["link-to-itself"])
    yield root, paths


NOT_A_FOLDER = (
    "device",
    "fifo",
    "file",
    "link-to-file",
    "dangling-link",
    "link-to-itself",
    "journal",
    "journal-head",
    "missing",
)


@pytest.mark.parametrize("kind", NOT_A_FOLDER)
def test_verify_archive_of_what_is_no_folder_is_a_usage_error(
    tree: tuple[Path, dict[str, Path]], kind: str
) -> None:
    root, paths = tree
    before = snapshot(root)
    result = invoke(["journal", "verify-archive", str(paths[kind])])
    assert_refused(result, {2})
    assert str(paths[kind]) in result[2][0]
    assert result[2][0].endswith(("not a directory", "no such directory")), result[2][0]
    assert snapshot(root) == before


@pytest.mark.parametrize("kind", ["directory", "link-to-directory"])
def test_verify_archive_of_a_folder_without_segments_finds_none(
    tree: tuple[Path, dict[str, Path]], kind: str
) -> None:
    result = invoke(["journal", "verify-archive", str(tree[1][kind])])
    assert_refused(result, {1})
    assert result[2][0].startswith("missing: no archive segment in ")


def test_verify_archive_through_a_symlinked_folder_verifies(
    tree: tuple[Path, dict[str, Path]], built: tuple[Path, str]
) -> None:
    root, _paths = tree
    (root / "linked").symlink_to(root / "archive")
    status, out, err = invoke(
        ["journal", "verify-archive", str(root / "linked"), "--key", built[1]]
    )
    assert (status, err) == (0, []) and out[0].startswith("intact: ")


@pytest.mark.parametrize(
    "kind",
    ["device", "fifo", "file", "link-to-file", "journal", "journal-head", "dangling-link",
     "link-to-itself"],
)  # fmt: skip
def test_archive_to_what_is_no_folder_is_refused_in_one_line_and_writes_nothing(
    tree: tuple[Path, dict[str, Path]], kind: str
) -> None:
    """A usage error (2) naming the path; a broken symlink, which mkdir cannot follow, is
    one line too (1: "File exists" or "Too many levels")."""
    root, paths = tree
    before = snapshot(root)
    journal = str(paths["journal"])
    result = invoke(["journal", "archive", "--journal", journal, "--to", str(paths[kind])])
    if kind.startswith(("dangling", "link-to-itself")):
        assert_refused(result, {1})
    else:
        assert_refused(result, {2})
        assert result[2][0].endswith(f"{paths[kind]}: not a directory"), result[2][0]
    assert snapshot(root) == before


@pytest.mark.parametrize(
    "kind",
    ["device", "fifo", "directory", "file", "link-to-file", "link-to-directory", "dangling-link",
     "link-to-itself", "journal-head", "missing"],
)  # fmt: skip
def test_archive_of_what_is_no_journal_is_one_line_and_writes_nothing(
    tree: tuple[Path, dict[str, Path]], kind: str
) -> None:
    root, paths = tree
    before = snapshot(root)
    result = invoke(
        ["journal", "archive", "--journal", str(paths[kind]), "--to", str(root / "new")]
    )
    assert_refused(result, {1, 2})
    assert snapshot(root) == before  # "new" not made either


#: An entry named like a segment that is no segment file: what verify-archive says of it.
ENTRIES = {
    "directory": "a directory, not a segment file",
    "fifo": "a FIFO, not a segment file",
    "device": "a device, not a segment file",
    "link-to-device": "a device, not a segment file",
    "link-to-directory": "a directory, not a segment file",
    "link-to-itself": "cannot be read (Too many levels of symbolic links)",
    "dangling-link": "cannot be read (No such file or directory)",
}


def _plant(folder: Path, kind: str, paths: dict[str, Path]) -> Path:
    """An entry of ``kind`` named like the segment after the archive's last."""
    last = read_header(segments(folder)[-1]).last
    entry = folder / f"{last + 1:012d}-{last + 100:012d}.dsa"
    if kind == "directory":
        entry.mkdir()
    elif kind == "fifo":
        os.mkfifo(entry)
    elif kind == "device":
        try:
            os.mknod(entry, stat.S_IFCHR | 0o600, os.makedev(1, 5))
        except PermissionError:
            entry.symlink_to("/dev/zero")
    elif kind == "link-to-device":
        entry.symlink_to("/dev/zero")
    elif kind == "link-to-directory":
        entry.symlink_to(paths["directory"])
    elif kind == "link-to-itself":
        entry.symlink_to(entry)
    else:
        entry.symlink_to(folder / "nowhere")
    return entry


@pytest.mark.parametrize("kind", sorted(ENTRIES))
@pytest.mark.parametrize("workers", ["1", "2"])
def test_an_entry_named_like_a_segment_that_is_no_file_is_named_in_one_line(
    tree: tuple[Path, dict[str, Path]], kind: str, workers: str
) -> None:
    root, paths = tree
    entry = _plant(root / "archive", kind, paths)
    before = snapshot(root)
    result = invoke(["journal", "verify-archive", str(root / "archive"), "--workers", workers])
    assert_refused(result, {1})
    assert result[2][0] == f"corrupt: {entry.name}: {ENTRIES[kind]}", result[2][0]
    assert snapshot(root) == before


@pytest.mark.parametrize("kind", sorted(ENTRIES))
def test_archive_onto_an_entry_that_is_no_segment_file_is_refused_in_one_line(
    tree: tuple[Path, dict[str, Path]], kind: str
) -> None:
    """The archive goes on from its last segment: when that is no file, nothing is
    written and the line names it."""
    root, paths = tree
    entry = _plant(root / "archive", kind, paths)
    before = snapshot(root)
    journal = str(paths["journal"])
    result = invoke(["journal", "archive", "--journal", journal, "--to", str(root / "archive")])
    assert_refused(result, {1})
    assert entry.name in result[2][0], result[2][0]
    assert snapshot(root) == before


#: Run in a child: verify-archive of the folder in argv[1], then the child's peak memory.
# The peak is the process's own resident high-water mark (VmHWM, of the memory it has since
# exec), not getrusage's ru_maxrss: Linux carries ru_maxrss across exec, so under a test
# worker that had grown to 330 MiB the child reported the worker's peak, not its own.
_PEAK = """
import re, sys
from pathlib import Path
from controller.cli.main import main
status = main(["journal", "verify-archive", sys.argv[1]])
hwm = re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text())
print(status, int(hwm.group(1)) // 1024)
"""


def test_a_zlib_bomb_or_a_line_without_end_is_refused_in_bounded_memory(
    tree: tuple[Path, dict[str, Path]],
) -> None:
    """A segment of 300 KB whose rows inflate to 320 MiB without a line end: refused at
    the line limit (16 MiB), and the check's peak memory stays far below what inflating
    it whole takes (the rows are inflated a MiB at a time)."""
    root, _paths = tree
    folder = root / "bomb"
    folder.mkdir()
    deflate = zlib.compressobj(9)
    body = b"".join(deflate.compress(b"a" * (1 << 20)) for _ in range(320)) + deflate.flush()
    assert len(body) < 1 << 20  # one read of the walk
    header = Header("T1", 1, 3, 3, "0" * 64, "0" * 64, (0, 0), ())
    (folder / "000000000001-000000000003.dsa").write_bytes(header.to_line() + body)
    result = invoke(["journal", "verify-archive", str(folder)])
    assert_refused(result, {1})
    assert "a row line longer than 16777216 bytes" in result[2][0], result[2][0]
    child = subprocess.run(
        [sys.executable, "-c", _PEAK, str(folder)], capture_output=True, text=True, check=False
    )
    status, peak_mib = child.stdout.split()
    assert status == "1" and int(peak_mib) < 200, (child.stdout, child.stderr)


def test_bytes_after_the_rows_are_found(tree: tuple[Path, dict[str, Path]]) -> None:
    root, _paths = tree
    last = segments(root / "archive")[-1]
    last.write_bytes(last.read_bytes() + b"x")
    result = invoke(["journal", "verify-archive", str(root / "archive")])
    assert_refused(result, {1})
    assert result[2][0] == f"altered: {last.name}: bytes after the rows"


@pytest.mark.parametrize("other", ["dealer-station segment v0", "dealer-station segment v2", ""])
def test_a_segment_of_another_format_is_refused_in_one_line(
    tree: tuple[Path, dict[str, Path]], other: str
) -> None:
    """The segment format is v1, the first: a segment that names another (an older
    draft's, a later program's) is refused by name, never read as v1."""
    root, _paths = tree
    first = segments(root / "archive")[0]
    raw = first.read_bytes()
    head, _, body = raw.partition(b"\n")
    first.write_bytes(head.replace(b"dealer-station segment v1", other.encode()) + b"\n" + body)
    result = invoke(["journal", "verify-archive", str(root / "archive")])
    assert_refused(result, {1})
    assert result[2][0] == (
        f"corrupt: {first.name}: its format is {other!r}: this program reads"
        " 'dealer-station segment v1' segments only"
    )


def test_a_segment_of_another_table_is_found(
    tree: tuple[Path, dict[str, Path]], built: tuple[Path, str]
) -> None:
    """The seals do not cover the header's table name: it is held to the key's and to the
    other segments'."""
    root, _paths = tree
    second = segments(root / "archive")[1]
    raw = second.read_bytes()
    second.write_bytes(raw.replace(b'"table":"T1"', b'"table":"T2"', 1))
    for extra in ([], ["--key", built[1]]):
        result = invoke(["journal", "verify-archive", str(root / "archive"), *extra])
        assert_refused(result, {1})
        assert f"altered: {second.name}: a segment of table 'T2', not 'T1'" in result[2][0]
    # Every segment named T2: they agree among themselves, and only the key's table tells.
    for path in segments(root / "archive"):
        path.write_bytes(path.read_bytes().replace(b'"table":"T1"', b'"table":"T2"', 1))
    first = segments(root / "archive")[0]
    result = invoke(["journal", "verify-archive", str(root / "archive"), "--key", built[1]])
    assert_refused(result, {1})
    assert result[2][0].endswith(
        f"altered: {first.name}: a segment of table 'T2', not 'T1' (the key's)"
    )
    assert invoke(["journal", "verify-archive", str(root / "archive")])[0] == 0


@pytest.mark.parametrize("name", EARLIER_WRITERS)
def test_the_earlier_writers_journals_archive_and_verify_with_their_key(
    tmp_path: Path, name: str
) -> None:
    """Each journal in ``tests/data/`` (the writers of 1ac22a8 and a3b7df6, and today's)
    archives as written: its segments verify with the fixture's key, each row's hash the
    one the journal stores."""
    for part in ("journal.sqlite3", "journal.sqlite3-head", "sealing-key"):
        shutil.copy(DATA / name / part, tmp_path / part)
    path = tmp_path / "journal.sqlite3"
    written = archive(path, tmp_path / "archive", table="T1", segment_rows=1)
    # Rows 1..14 end at round 1's seal, 15..25 at round 2's; the rest waits for a round.
    assert [(read_header(p).first, read_header(p).last) for p in written] == [(1, 14), (15, 25)]
    key = verification_key().to_text()
    status, out, err = invoke(
        ["journal", "verify-archive", str(tmp_path / "archive"), "--key", key]
    )
    assert (status, err) == (0, []), err
    assert out[0].startswith("intact: 2 segments, rows 1..25, ")
    assert "; 3 seals good (epochs 0..2)" in out[0]  # rows 3, 14 and 25
    status, out, err = invoke(["journal", "verify", "--journal", str(path), "--key", key])
    assert (status, err) == (0, []), err


ARGUMENT = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["--key", "--workers", "--to", "--journal", "--config", "-h", "0", "65"]),
    st.sampled_from(["/dev/zero", "/dev/null", ".", "..", "/", "@/dev/zero", "ds1:T1:AAAA:BB"]),
)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(command=st.sampled_from(["archive", "verify-archive"]), argv=st.lists(ARGUMENT, max_size=6))
def test_any_arguments_are_answered_in_one_line(
    tree: tuple[Path, dict[str, Path]],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    argv: list[str],
) -> None:
    """Arbitrary arguments (text, options, devices, the root folder): a status and one
    line; nothing is written (no argument names a journal that opens)."""
    root, _paths = tree
    monkeypatch.chdir(root)  # a relative path lands in the tree, never the repository
    before = snapshot(root)
    status, out, err = invoke(["journal", command, *argv])
    if status == 0:
        assert err == [] and out, argv  # --help
    else:
        assert_refused((status, out, err), {1, 2})
    assert snapshot(root) == before
