"""The base record of a rotated journal and its links to the archive (docs/journal.md,
"Rotation"): ``controller/journal/base.py`` reads and writes the record, and
``controller/journal/archive/link.py`` checks it against the verification key and the
segment it names, and the journal against the archive's last segment. Each forged base
here is refused in one line.

One small sealed journal (15 rounds, a checkpoint after each) is archived in segments of
at least 20 rows and rotated once per module (about a second); the tests change copies of
its base, or of its archive, and call the checks directly.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_journal_seal import _hkdf_expand_32, write_round

from controller.journal.archive import archive, segments
from controller.journal.archive.link import check_archive_link, check_base, header_digest
from controller.journal.archive.segment import FORMAT
from controller.journal.base import Base, base_of, start_of
from controller.journal.format import GENESIS_HASH, JournalCorruptError
from controller.journal.reader import JournalReader, open_readonly
from controller.journal.rotate import rotate_journal
from controller.journal.seal import VerificationKey, load_state, new_sealing, save_state
from controller.journal.store import Journal

TABLE = "T1"


@dataclass(frozen=True)
class Rotated:
    path: Path
    folder: Path
    key: VerificationKey
    base: Base


def _journal(folder: Path) -> tuple[Path, VerificationKey]:
    state, key = new_sealing(TABLE)
    save_state(folder / "sealing-key", state)
    path = folder / "journal.sqlite3"
    with Journal.open(path, sealing=folder / "sealing-key") as journal:
        journal.checkpoint()
        for round_no in range(1, 16):
            journal.append("shuffle_commanded", {"decks": 6})
            write_round(journal, round_no)
            journal.checkpoint()
    return path, key


@pytest.fixture(scope="module")
def rotated(tmp_path_factory: pytest.TempPathFactory) -> Rotated:
    folder = tmp_path_factory.mktemp("rotated")
    path, key = _journal(folder)
    arch = folder / "archive"
    archive(path, arch, table=TABLE, segment_rows=20)
    done = rotate_journal(
        path, arch, wager_spots=(), floor_acked=None, sealing=load_state(folder / "sealing-key")
    )
    return Rotated(path, arch, key, done.base)


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sealed_as(base: Base, key: VerificationKey, key_epoch: int) -> Base:
    """``base`` sealed under the checkpoint key of ``key_epoch``, by docs/journal.md's
    formula written out: HMAC-SHA256(HKDF-Expand(k_e, "dealer-station checkpoint key v1"),
    canonical_json(["dealer-station base v1", table, row, hash, segment, header, epoch,
    open, key_epoch]))."""
    checkpoint_key = _hkdf_expand_32(key.epoch_key(key_epoch), b"dealer-station checkpoint key v1")
    message = _canonical(
        [
            "dealer-station base v1",
            key.table,
            base.row,
            base.hash,
            base.segment,
            base.header,
            base.epoch,
            [list(o) for o in base.open],
            key_epoch,
        ]
    )
    mac = hmac.new(checkpoint_key, message.encode(), hashlib.sha256).hexdigest()
    return replace(base, key_epoch=key_epoch, mac=mac)


# -- the record ---------------------------------------------------------------------------------

SAMPLE = Base(21, "aa" * 32, "000000000001-000000000021.dsa", "bb" * 32, 3, ((1, 2, "cc" * 32),))


def test_the_record_is_the_documented_canonical_json() -> None:
    plain = {
        "row": 21,
        "hash": "aa" * 32,
        "segment": "000000000001-000000000021.dsa",
        "header": "bb" * 32,
        "epoch": 3,
        "open": [[1, 2, "cc" * 32]],
    }
    assert SAMPLE.to_text() == _canonical(plain)
    sealed = replace(SAMPLE, key_epoch=0, mac="dd" * 32)
    assert sealed.to_text() == _canonical(plain | {"key_epoch": 0, "mac": "dd" * 32})
    assert Base.parse(SAMPLE.to_text()) == SAMPLE
    assert Base.parse(sealed.to_text()) == sealed
    assert (
        SAMPLE.message(TABLE)
        == _canonical(
            [
                "dealer-station base v1",
                TABLE,
                21,
                "aa" * 32,
                "000000000001-000000000021.dsa",
                "bb" * 32,
                3,
                [[1, 2, "cc" * 32]],
                None,
            ]
        ).encode()
    )


GOOD = json.loads(replace(SAMPLE, key_epoch=0, mac="dd" * 32).to_text())


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"row": 0}, "a field out of form"),  # rows run from 1
        ({"row": -1}, "a field out of form"),
        ({"row": True}, "a field out of form"),
        ({"epoch": -1}, "a field out of form"),
        ({"epoch": "3"}, "a field out of form"),
        ({"key_epoch": -1}, "a field out of form"),
        ({"key_epoch": None}, "a field out of form"),
        ({"hash": "aa" * 31}, "a field out of form"),
        ({"hash": "AA" * 32}, "a field out of form"),
        ({"header": "b" * 63 + "g"}, "a field out of form"),
        ({"segment": 7}, "a field out of form"),
        ({"mac": "dd" * 33}, "a field out of form"),
        ({"open": [[1, 2]]}, "not enough values to unpack (expected 3, got 2)"),
        ({"open": 5}, "'int' object is not iterable"),
    ],
)
def test_a_record_with_one_field_out_of_form_is_refused_in_one_line(
    change: dict[str, object], why: str
) -> None:
    assert Base.parse(_canonical(GOOD)).row == 21  # the good one beside it reads
    with pytest.raises(JournalCorruptError) as caught:
        Base.parse(_canonical(GOOD | change))
    assert str(caught.value) == f"the base record is unreadable ({why})"


def test_the_smallest_record_reads_row_1_and_epoch_0() -> None:
    smallest = GOOD | {"row": 1, "epoch": 0, "key_epoch": 0}
    found = Base.parse(_canonical(smallest))
    assert (found.row, found.epoch, found.key_epoch) == (1, 0, 0)


def test_a_record_missing_a_field_or_not_canonical_is_refused() -> None:
    missing = {k: v for k, v in GOOD.items() if k != "segment"}
    with pytest.raises(JournalCorruptError) as caught:
        Base.parse(_canonical(missing))
    assert str(caught.value) == "the base record is unreadable ('segment')"
    spaced = json.dumps(GOOD, sort_keys=True)  # the same values, not the canonical text
    with pytest.raises(JournalCorruptError) as caught:
        Base.parse(spaced)
    assert str(caught.value) == "the base record is unreadable (a field out of form)"
    # An unsealed record may carry no key epoch at all.
    unsealed = {k: v for k, v in GOOD.items() if k not in ("key_epoch", "mac")}
    assert Base.parse(_canonical(unsealed)).key_epoch is None


@given(st.text(max_size=300))
def test_any_text_is_a_record_or_one_line(text: str) -> None:
    try:
        Base.parse(text)
    except JournalCorruptError as err:
        assert "\n" not in str(err)


def test_the_mac_is_checked_under_the_checkpoint_key(rotated: Rotated) -> None:
    key, base = rotated.key, rotated.base
    assert base.key_epoch is not None
    checkpoint_key = key.checkpoint_key(base.key_epoch)
    assert base.check_mac(TABLE, checkpoint_key) == ""
    assert replace(base, mac=None).check_mac(TABLE, checkpoint_key) == (
        "the base record is not sealed"
    )
    moved = replace(base, epoch=base.epoch + 1)
    assert moved.check_mac(TABLE, checkpoint_key) == "the base record's MAC does not match"
    assert base.check_mac("T2", checkpoint_key) == "the base record's MAC does not match"


def test_base_of_and_start_of_a_rotated_journal_and_of_one_never_rotated(
    rotated: Rotated, tmp_path: Path
) -> None:
    conn = open_readonly(rotated.path)
    try:
        assert base_of(conn) == rotated.base
        assert start_of(conn) == (rotated.base.row, rotated.base.hash)
    finally:
        conn.close()
    fresh, _ = _journal(tmp_path)
    conn = open_readonly(fresh)
    try:
        assert base_of(conn) is None
        assert start_of(conn) == (0, GENESIS_HASH)
    finally:
        conn.close()
    # A database with no meta table at all (an older journal): no base. A meta table of
    # another shape is an error, not "never rotated".
    plain = sqlite3.connect(":memory:")
    assert base_of(plain) is None
    plain.execute("CREATE TABLE meta (key TEXT)")
    with pytest.raises(sqlite3.OperationalError, match="no such column"):
        base_of(plain)
    plain.close()


# -- the base against the key and the archive (link.check_base) --------------------------------


def test_the_good_base_is_checked_whole(rotated: Rotated) -> None:
    base, cut = rotated.base, f"rows 1..{rotated.base.row}"
    assert check_base(base, key=rotated.key, archive=rotated.folder) == (
        f"{cut} archived (segment {base.segment}, its link checked)"
    )
    assert check_base(base, key=rotated.key, archive=None) == (
        f"{cut} archived (segment {base.segment}; not checked: no --archive)"
    )


def test_a_base_not_sealed_or_sealed_by_another_key_is_refused(rotated: Rotated) -> None:
    base, key, cut = rotated.base, rotated.key, f"rows 1..{rotated.base.row}"
    for unsealed in (replace(base, mac=None, key_epoch=None), replace(base, key_epoch=None)):
        assert check_base(unsealed, key=key, archive=None) == (
            "seal",
            f"seal: the base record ({cut} archived) is not sealed",
        )
    _, other = new_sealing(TABLE)
    assert check_base(sealed_as(base, other, 0), key=key, archive=None) == (
        "seal",
        f"seal: the base record's MAC does not match ({cut} archived): rows cut without the key",
    )


def test_a_base_key_epoch_may_be_its_seals_epoch_and_not_past_it(rotated: Rotated) -> None:
    """docs/journal.md: the base's MAC is under the checkpoint key of its key_epoch, an
    epoch the station held by then: at most the epoch of the next seal, not past it."""
    base, key = rotated.base, rotated.key
    at = sealed_as(base, key, base.epoch)
    assert check_base(at, key=key, archive=None) == (
        f"rows 1..{base.row} archived (segment {base.segment}; not checked: no --archive)"
    )
    past = sealed_as(base, key, base.epoch + 1)
    assert check_base(past, key=key, archive=None) == (
        "seal",
        f"seal: the base record names key epoch {base.epoch + 1}, past its seals",
    )


def altered(rotated: Rotated, base: Base, problem: str) -> tuple[str, str]:
    return (
        "altered",
        f"altered: the base record (rows 1..{base.row} archived): {base.segment}: {problem}",
    )


def test_a_base_that_does_not_fit_its_segment_is_altered(rotated: Rotated) -> None:
    """Without the key (an unsealed station, or the archive alone): the segment the base
    names must end at its row with its hash, run its epochs on to it, leave its hole cards
    open, and be the segment whose header it names."""
    base, folder = rotated.base, rotated.folder
    cases = {
        "its header is not the one the base names": replace(base, header="ee" * 32),
        f"it does not end at row {base.row + 7} with the base's hash": replace(
            base, row=base.row + 7
        ),
        f"it does not end at row {base.row} with the base's hash": replace(base, hash="ee" * 32),
        "its seals do not run on to the base's epoch": replace(base, epoch=base.epoch + 1),
        "the hole cards it leaves open are not the base's": replace(
            base, open=((1, 2, "cc" * 32),)
        ),
    }
    for problem, forged in cases.items():
        assert check_base(forged, key=None, archive=folder) == altered(rotated, forged, problem)


def test_a_base_naming_a_missing_or_unreadable_segment_is_refused(
    rotated: Rotated, tmp_path: Path
) -> None:
    base = rotated.base
    cut = f"rows 1..{base.row}"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert check_base(base, key=None, archive=empty) == (
        "removed",
        f"removed: {cut}: the segment the base names ({base.segment}) is not in {empty}",
    )
    # A name that is no segment's, even of a file that is there.
    (empty / "notes.txt").write_text("x")
    named = replace(base, segment="notes.txt")
    assert check_base(named, key=None, archive=empty)[0] == "removed"
    # The segment there, but its header is no header.
    (empty / base.segment).write_bytes(b"not a header\n")
    assert check_base(base, key=None, archive=empty) == (
        "corrupt",
        f"corrupt: {base.segment}: the segment's header is unreadable",
    )


def test_a_segment_whose_rows_were_changed_under_its_header_is_altered(
    rotated: Rotated, tmp_path: Path
) -> None:
    """The named segment's header kept (its digest the base's), a row inside rewritten:
    the segment's own walk refuses it, with the key and without."""
    base = rotated.base
    copy = tmp_path / "archive"
    shutil.copytree(rotated.folder, copy)
    segment = copy / base.segment
    header, _, body = segment.read_bytes().partition(b"\n")
    import zlib

    rows = zlib.decompress(body).replace(b'"net_cents":500', b'"net_cents":900', 1)
    segment.write_bytes(header + b"\n" + zlib.compress(rows))
    assert header_digest(segment) == base.header
    for key in (None, rotated.key):
        case, line = check_base(base, key=key, archive=copy)  # type: ignore[misc]
        assert case == "altered", line
        assert line.startswith(f"altered: the base record (rows 1..{base.row} archived)")


# -- the journal against the archive's last segment (link.check_archive_link) ------------------


def test_the_journal_links_to_the_archives_last_segment(rotated: Rotated, tmp_path: Path) -> None:
    with JournalReader.open(rotated.path) as reader:
        storage = reader.storage
        last = segments(rotated.folder)[-1]
        end = int(last.name[13:25])
        assert check_archive_link(storage, rotated.folder) == (
            f"the archive's last segment {last.name} links to row {end}"
        )
        # Only the base's own segment: it ends at the base, whose hash the journal keeps.
        only = tmp_path / "only"
        only.mkdir()
        shutil.copy(rotated.folder / rotated.base.segment, only)
        assert check_archive_link(storage, only) == (
            f"the archive's last segment {rotated.base.segment} links to row {rotated.base.row}"
        )
        empty = tmp_path / "empty"
        empty.mkdir()
        assert check_archive_link(storage, empty) == f"no segment in {empty}"


def test_an_archive_that_does_not_lead_to_the_journal_is_refused(
    rotated: Rotated, tmp_path: Path
) -> None:
    with JournalReader.open(rotated.path) as reader:
        storage = reader.storage
        first = segments(rotated.folder)[0]
        base = rotated.base
        # A last segment ending before the base: what was cut is the archive's to prove.
        before = tmp_path / "before"
        before.mkdir()
        header, _, body = first.read_bytes().partition(b"\n")
        fields = json.loads(header)
        fields["last"] = base.row - 1
        fields["rows"] = fields["last"] - fields["first"] + 1
        early = f"{fields['first']:012d}-{fields['last']:012d}.dsa"
        (before / early).write_bytes(_canonical(fields).encode() + b"\n" + body)
        assert check_archive_link(storage, before) == (
            f"the archive's last segment {early} ends before the base"
        )
        # Another journal's archive, ending at a row this journal holds with another hash.
        (tmp_path / "other").mkdir()
        other, _ = _journal(tmp_path / "other")
        other_arch = tmp_path / "other-archive"
        archive(other, other_arch, table=TABLE, segment_rows=20)
        theirs = segments(other_arch)[-1]
        assert check_archive_link(storage, other_arch) == (
            "altered",
            f"altered: row {int(theirs.name[13:25])}: not the head of the archive's last"
            f" segment {theirs.name}: the journal or the archive was rewritten, or is another"
            " table's",
        )
        # A last segment past the journal's end.
        beyond = tmp_path / "beyond"
        beyond.mkdir()
        mine = segments(rotated.folder)[-1]
        header, _, body = mine.read_bytes().partition(b"\n")
        fields = json.loads(header)
        fields["last"] += 1000
        fields["first"] += 1000
        name = f"{fields['first']:012d}-{fields['last']:012d}.dsa"
        (beyond / name).write_bytes(_canonical(fields).encode() + b"\n" + body)
        assert check_archive_link(storage, beyond) == (
            "removed",
            f"removed: the archive's last segment {name} ends at row {fields['last']},"
            " which the journal does not hold",
        )
        # A last segment whose header does not read.
        broken = tmp_path / "broken"
        broken.mkdir()
        (broken / mine.name).write_bytes(b"{}\n")
        assert check_archive_link(storage, broken) == (
            "corrupt",
            f"corrupt: {mine.name}: the segment's header is unreadable",
        )
        # A last segment's name on a link to nothing: it cannot be read, and is named once.
        (broken / mine.name).unlink()
        (broken / mine.name).symlink_to(broken / "gone")
        assert check_archive_link(storage, broken) == (
            "corrupt",
            f"corrupt: {mine.name}: [Errno 2] No such file or directory: '{broken / mine.name}'",
        )
        # Of a format this program does not read: named once.
        (broken / mine.name).unlink()
        other = {**json.loads(header), "format": "dsa-other"}
        (broken / mine.name).write_bytes(_canonical(other).encode() + b"\n" + body)
        assert check_archive_link(storage, broken) == (
            "corrupt",
            f"corrupt: {mine.name}: its format is 'dsa-other': this program reads"
            f" {FORMAT!r} segments only",
        )


def test_a_base_resealed_with_the_stations_key_over_rows_sealed_by_no_key_of_the_table_is_altered(
    rotated: Rotated, tmp_path: Path
) -> None:
    """The checkpoint key stays on the station: an insider with the station can MAC a base
    of their own. Here it names a segment of rows made and sealed under another key (the
    archive re-made), consistent in every field: only the segment's seals under the
    verification key tell, and ``--key`` checks them."""
    (tmp_path / "other").mkdir()
    other, _ = _journal(tmp_path / "other")
    other_arch = tmp_path / "other-archive"
    archive(other, other_arch, table=TABLE, segment_rows=20)
    theirs = segments(other_arch)[0]
    header = json.loads(theirs.read_bytes().partition(b"\n")[0])
    forged = sealed_as(
        Base(
            header["last"],
            header["head"],
            theirs.name,
            header_digest(theirs),
            header["seals"][0] + header["seals"][1],
            (),
        ),
        rotated.key,
        0,
    )
    assert check_base(forged, key=None, archive=other_arch)[0] == "r"  # its link checked
    case, line = check_base(forged, key=rotated.key, archive=other_arch)  # type: ignore[misc]
    assert case == "altered", line
    assert line.startswith(f"altered: the base record (rows 1..{forged.row} archived): ")


def test_the_header_named_is_the_whole_line_up_to_the_longest_a_header_may_be(
    rotated: Rotated, tmp_path: Path
) -> None:
    """A header line of HEADER_MAX + 1 bytes with its newline (the longest a segment
    header may be; the JSON padded with spaces): the base names the sha256 of all of it."""
    from controller.journal.archive.segment import HEADER_MAX

    base = rotated.base
    copy = tmp_path / "archive"
    shutil.copytree(rotated.folder, copy)
    segment = copy / base.segment
    header, _, body = segment.read_bytes().partition(b"\n")
    padded = b"{" + b" " * (HEADER_MAX - len(header)) + header[1:] + b"\n"
    assert len(padded) == HEADER_MAX + 1
    segment.write_bytes(padded + body)
    named = replace(base, header=hashlib.sha256(padded).hexdigest())
    assert header_digest(segment) == named.header
    assert check_base(named, key=None, archive=copy) == (
        f"rows 1..{base.row} archived (segment {base.segment}, its link checked)"
    )


def test_a_sealed_journal_is_not_rotated_without_the_stations_key(tmp_path: Path) -> None:
    """docs/journal.md, "Rotation": the base of a sealed journal is sealed with the
    station's key; without it nothing is cut and the journal is left as it was."""
    path, _key = _journal(tmp_path)
    arch = tmp_path / "archive"
    archive(path, arch, table=TABLE, segment_rows=20)
    before = path.read_bytes()
    with pytest.raises(JournalCorruptError) as caught:
        rotate_journal(path, arch, wager_spots=(), floor_acked=None, sealing=None)
    assert str(caught.value) == (
        f"{path} is not rotated: it is sealed: the base must be sealed with the station's key"
        " (give --config or --sealing-key)"
    )
    assert path.read_bytes() == before
    assert not list(tmp_path.glob(".*.rotating*"))


def test_rows_to_cut_that_are_in_no_segment_are_not_cut(tmp_path: Path) -> None:
    """The archive must hold every row cut: its first segment taken away, the rows before
    the next one are named and nothing is cut."""
    path, _key = _journal(tmp_path)
    arch = tmp_path / "archive"
    archive(path, arch, table=TABLE, segment_rows=8)
    first = segments(arch)[0]
    last_of_first = int(first.name[13:25])
    first.unlink()
    before = path.read_bytes()
    with pytest.raises(JournalCorruptError) as caught:
        rotate_journal(
            path,
            arch,
            wager_spots=(),
            floor_acked=None,
            sealing=load_state(tmp_path / "sealing-key"),
        )
    assert str(caught.value) == (
        f"{path} is not rotated: rows 1..{last_of_first} are in no segment in {arch}"
    )
    assert path.read_bytes() == before
