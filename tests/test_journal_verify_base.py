"""``journal verify`` of a rotated journal (docs/journal.md, "Rotation": "What `journal
verify` says of a rotated journal" and "A forged base"): the base record's note in the
line, its MAC with ``--key``, its segment with ``--archive``, a row left at or before it,
and a file whose stored values do not read back, each reported in one line with the first
row it puts in doubt.

One small sealed journal (15 rounds, a checkpoint after each: recall keeps the last 10
live) is archived in segments of at least 20 rows and rotated once per module (about 2 s);
each test verifies a copy of it (the journal, its head record, its archive), changed
behind the append-only triggers as an insider with the file would. The base record's
checks themselves are ``tests/test_journal_base.py``'s; here, what ``verify`` makes of
their answers.
"""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from journal_tamper_support import behind_the_triggers, index_out_of_step, stored_hash
from test_journal_base import TABLE, sealed_as
from test_journal_seal import write_round

from controller.journal.anchor import Anchor
from controller.journal.archive import archive, segments
from controller.journal.base import BASE_KEY, Base
from controller.journal.proof import make_proof
from controller.journal.reader import open_readonly
from controller.journal.report import VerifyCase, VerifyReport
from controller.journal.rotate import rotate_journal
from controller.journal.seal import VerificationKey, load_state, new_sealing, save_state
from controller.journal.startcheck import StartTrust
from controller.journal.storage import storage_of
from controller.journal.store import Journal
from controller.journal.verify import verify


@dataclass(frozen=True)
class Rotated:
    path: Path
    folder: Path  # the archive
    key: VerificationKey
    base: Base
    last: int  # the journal's last row


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, VerificationKey]:
    """A folder: a sealed journal of 15 rounds rotated after its archive, its sealing
    state, its head record and the archive (``archive/``). Only rotate runs here; every
    ``verify`` is a test's own."""
    folder = tmp_path_factory.mktemp("rotated")
    state, key = new_sealing(TABLE)
    save_state(folder / "sealing-key", state)
    path = folder / "journal.sqlite3"
    with Journal.open(path, sealing=folder / "sealing-key") as journal:
        journal.checkpoint()
        for round_no in range(1, 16):
            journal.append("shuffle_commanded", {"decks": 6})
            write_round(journal, round_no)
            journal.checkpoint()
    archive(path, folder / "archive", table=TABLE, segment_rows=20)
    rotate_journal(
        path,
        folder / "archive",
        wager_spots=(),
        floor_acked=None,
        sealing=load_state(folder / "sealing-key"),
    )
    return folder, key


@pytest.fixture
def rotated(template: tuple[Path, VerificationKey], tmp_path: Path) -> Rotated:
    """A copy of the template, for a test to change."""
    folder = tmp_path / "copy"
    shutil.copytree(template[0], folder)
    path = folder / "journal.sqlite3"
    conn = open_readonly(path)
    try:
        storage = storage_of(conn)
        base, last = storage.base, storage.last_id()
    finally:
        conn.close()
    assert base is not None and last is not None and last > base.row + 1
    return Rotated(path, folder / "archive", template[1], base, last)


def _behind_the_triggers(path: Path, statement: str, *params: object) -> None:
    """Run one statement on the file behind its append-only triggers."""

    def work(conn: sqlite3.Connection) -> None:
        conn.execute(statement, params)

    behind_the_triggers(path, work)


def _put_base(path: Path, base: Base) -> None:
    """The file's base record replaced by ``base``."""
    _behind_the_triggers(path, "UPDATE meta SET value = ? WHERE key = ?", base.to_text(), BASE_KEY)


def _archived(base: Base, where: str) -> str:
    return f"rows 1..{base.row} archived (segment {base.segment}{where})"


# -- the base's note in the line ----------------------------------------------------------


def test_a_rotated_journal_is_walked_from_its_base_and_says_what_is_archived(
    rotated: Rotated,
) -> None:
    """Without ``--archive`` the line says the segment is not checked; with it, that its
    link is, and the journal's link to the archive's last segment."""
    base, last = rotated.base, rotated.last
    report = verify(rotated.path)
    note = _archived(base, "; not checked: no --archive")
    assert report == VerifyReport(
        VerifyCase.INTACT,
        f"intact: rows {base.row + 1}..{last}, chain and 0 hole-card commitments good;"
        f" seals not checked (no --key); {note}",
        last - base.row,
        notes=(note,),
    )
    report = verify(rotated.path, archive=rotated.folder)
    final = segments(rotated.folder)[-1]
    linked = (
        _archived(base, ", its link checked"),
        f"the archive's last segment {final.name} links to row {int(final.name[13:25])}",
    )
    assert report.case is VerifyCase.INTACT and report.notes == linked, report.message
    assert report.message.endswith("; " + "; ".join(linked))
    with_key = verify(rotated.path, key=rotated.key, archive=rotated.folder)
    assert with_key.case is VerifyCase.INTACT and with_key.notes == linked, with_key.message
    # The seals proved are those after the base: from its epoch, over the rows after it.
    assert f"seals good (epochs {base.epoch}.." in with_key.message
    assert f", rows {base.row + 1}.." in with_key.message.split("seals good")[1]


def test_the_starts_check_of_a_rotated_journal_says_what_is_archived_beside_its_own_note(
    rotated: Rotated,
) -> None:
    """docs/journal.md, "What a start proves" and "Rotation": the start walks from its
    checkpoint, or (the schema cookie no longer the checkpoint's) every row from the base,
    and says so; the base's note stays in the line beside that one, and the archive's with
    ``--archive``. The template's last row is its last checkpoint."""
    base, last = rotated.base, rotated.last
    conn = sqlite3.connect(rotated.path)
    conn.execute("CREATE TABLE extra(a)")
    conn.close()
    trust = StartTrust.of(load_state(rotated.path.parent / "sealing-key"))
    walked = f"the schema changed since the checkpoint in row {last}: every row walked"
    archived = _archived(base, "; not checked: no --archive")
    assert verify(rotated.path, since_checkpoint=True, trust=trust) == VerifyReport(
        VerifyCase.INTACT,
        f"intact: rows {base.row + 1}..{last}, chain and 0 hole-card commitments good;"
        f" seals not checked (no --key); {archived}; {walked}",
        last - base.row,
        None,
        0,
        (archived, walked),
    )
    report = verify(rotated.path, since_checkpoint=True, trust=trust, archive=rotated.folder)
    assert report.case is VerifyCase.INTACT, report.message
    assert report.notes[0] == _archived(base, ", its link checked")
    assert report.notes[1].startswith("the archive's last segment ")
    assert report.notes[2:] == (walked,)


# -- the base's MAC with --key ------------------------------------------------------------


def test_a_base_sealed_by_another_key_is_refused_with_the_key_alone(rotated: Rotated) -> None:
    """docs/journal.md: "With `--key` the base's MAC is checked under the checkpoint key of
    its `key_epoch`". A base sealed by another table's key is a cut made without this one's:
    the rows after it are the first in doubt. Without the key the MAC is not read."""
    base = rotated.base
    _, other = new_sealing(TABLE)
    _put_base(rotated.path, sealed_as(base, other, 0))
    assert verify(rotated.path, key=rotated.key) == VerifyReport(
        VerifyCase.SEAL,
        f"seal: the base record's MAC does not match (rows 1..{base.row} archived):"
        " rows cut without the key",
        first_bad_row=base.row + 1,
    )
    assert verify(rotated.path).case is VerifyCase.INTACT


def test_an_unsealed_base_is_refused_with_the_key(rotated: Rotated) -> None:
    base = rotated.base
    _put_base(rotated.path, replace(base, key_epoch=None, mac=None))
    assert verify(rotated.path, key=rotated.key, archive=rotated.folder) == VerifyReport(
        VerifyCase.SEAL,
        f"seal: the base record (rows 1..{base.row} archived) is not sealed",
        first_bad_row=base.row + 1,
    )


# -- the base's segment with --archive ----------------------------------------------------


def test_a_base_naming_a_segment_not_in_the_archive_is_removed(rotated: Rotated) -> None:
    """docs/journal.md, "A forged base": `verify --archive`: `removed: rows 1..K: the
    segment the base names (...) is not in DIR`; the archive is the only place that tells."""
    base = rotated.base
    (rotated.folder / base.segment).unlink()
    assert verify(rotated.path, archive=rotated.folder) == VerifyReport(
        VerifyCase.REMOVED,
        f"removed: rows 1..{base.row}: the segment the base names ({base.segment}) is not in"
        f" {rotated.folder}",
        first_bad_row=base.row + 1,
    )
    assert verify(rotated.path, key=rotated.key).case is VerifyCase.INTACT


def test_a_base_whose_segment_ends_elsewhere_is_altered(rotated: Rotated) -> None:
    """The base's hash changed (an unsealed station's: no key to tell): the segment it
    names does not end with it."""
    base = rotated.base
    forged = replace(base, hash="ee" * 32, key_epoch=None, mac=None)
    _put_base(rotated.path, forged)
    report = verify(rotated.path, archive=rotated.folder)
    assert report == VerifyReport(
        VerifyCase.ALTERED,
        f"altered: the base record (rows 1..{base.row} archived): {base.segment}: it does"
        f" not end at row {base.row} with the base's hash",
        first_bad_row=base.row + 1,
    )


# -- rows at or before the base -----------------------------------------------------------


def test_a_row_at_or_before_the_base_is_altered(rotated: Rotated) -> None:
    """docs/journal.md, "A forged base": an insider who leaves rows at or before the base in
    the file is found by `verify`: `altered: row N: in the file, but its base record says
    rows 1..K are archived`. The base moved onto the file's first row (its row and its
    true hash: the walk after it would be good) is the limit: one row earlier is the
    rotation's own base (above), which holds."""
    base = rotated.base
    first = base.row + 1
    conn = open_readonly(rotated.path)
    try:
        digest = storage_of(conn).hash_of(first)
    finally:
        conn.close()
    assert digest is not None
    _put_base(rotated.path, replace(base, row=first, hash=digest))
    refused = VerifyReport(
        VerifyCase.ALTERED,
        f"altered: row {first}: in the file, but its base record says rows 1..{first} are archived",
        first_bad_row=first,
    )
    assert verify(rotated.path) == refused
    assert verify(rotated.path, key=rotated.key, archive=rotated.folder) == refused


# -- an operator's proof of a seal archived since ------------------------------------------


def test_a_proof_of_a_seal_the_rotation_archived_walks_from_the_base(rotated: Rotated) -> None:
    """docs/journal.md, "Rotation": the proof's seal at or before the base is the
    archive's to prove; the walk begins at the base. One row after the base, the proof
    must name a seal the journal holds (that row is none: forked)."""
    base, last = rotated.base, rotated.last
    at_base = make_proof(rotated.key, base.row, base.hash, base.epoch)
    report = verify(rotated.path, key=rotated.key, since=at_base)
    note = (
        f"the proof's seal (row {base.row}) is archived: rows {base.row + 1}..{base.row}"
        " are the archive's to prove (verify-archive)"
    )
    assert report.case is VerifyCase.INTACT and report.rows == last - base.row, report.message
    assert note in report.notes, report.notes
    earlier = make_proof(rotated.key, base.row - 1, base.hash, base.epoch)
    report = verify(rotated.path, key=rotated.key, since=earlier)
    assert report.case is VerifyCase.INTACT, report.message
    assert (
        f"the proof's seal (row {base.row - 1}) is archived: rows {base.row}..{base.row}"
        " are the archive's to prove (verify-archive)"
    ) in report.notes
    after = make_proof(rotated.key, base.row + 1, base.hash, base.epoch)
    assert verify(rotated.path, key=rotated.key, since=after).case is VerifyCase.FORKED


# -- an anchor at or before the base --------------------------------------------------------


def test_an_anchor_before_the_base_is_archived_and_one_at_it_is_the_bases(
    rotated: Rotated,
) -> None:
    """An anchor of an archived seal is not checked here (the line says so); one naming
    the base's row and hash is the base's own (docs/journal.md, "Rotation")."""
    base = rotated.base
    earlier = Anchor(TABLE, base.row - 1, base.epoch - 1, "ab" * 32)
    report = verify(rotated.path, anchor=earlier)
    note = f"anchor row {base.row - 1} is archived (rows 1..{base.row}): not checked here"
    assert report.case is VerifyCase.INTACT and note in report.notes, report.message
    assert "matches" not in report.message
    at_base = Anchor(TABLE, base.row, base.epoch - 1, base.hash)
    report = verify(rotated.path, anchor=at_base)
    assert report.case is VerifyCase.INTACT, report.message
    assert f"; anchor row {base.row} (epoch {base.epoch - 1}) matches" in report.message
    assert all("anchor" not in note for note in report.notes)


# -- stored values that do not read back (a format-2 file) --------------------------------


def test_a_damaged_commit_is_altered_at_its_first_row(rotated: Rotated) -> None:
    """docs/journal.md, "Storage format 2": a commit row out of form is refused naming
    its first row, which is the first row in doubt."""
    first = rotated.base.row + 1
    _behind_the_triggers(
        rotated.path, "UPDATE journal_commit SET last_hash = x'00' WHERE first_id = ?", first
    )
    assert verify(rotated.path) == VerifyReport(
        VerifyCase.ALTERED,
        f"altered: row {first}: the stored commit is damaged",
        first_bad_row=first,
    )


def test_an_unreadable_base_or_codec_is_altered_naming_no_row(rotated: Rotated) -> None:
    """A damage that is no row's (the base record, the codec) names none."""
    _behind_the_triggers(
        rotated.path, "UPDATE meta SET value = '{\"row\":' WHERE key = ?", BASE_KEY
    )
    report = verify(rotated.path)
    assert report.case is VerifyCase.ALTERED and report.first_bad_row is None
    assert report.message.startswith("altered: the base record is unreadable (")
    assert "\n" not in report.message


def test_a_missing_codec_is_altered_naming_no_row(rotated: Rotated) -> None:
    _behind_the_triggers(rotated.path, "DELETE FROM journal_codec")
    assert verify(rotated.path) == VerifyReport(
        VerifyCase.ALTERED, "altered: the journal's codec (journal_codec) is missing or damaged"
    )


# -- SQLite's page check of a rotated journal ---------------------------------------------


@pytest.mark.parametrize("workers", [1, 2])
def test_a_rotated_journal_gets_the_page_check_however_many_cores(
    rotated: Rotated, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """docs/journal.md, `journal verify`: `corrupt` when `PRAGMA integrity_check` fails.
    The journal's last id is long enough for the walk over the cores (the threshold set to
    it here), the rows after its base are not: the page check still runs (it ran nowhere:
    the check was left to a walk over the cores that did not happen)."""
    from controller.journal import verify as verify_module

    index_out_of_step(rotated.path)
    monkeypatch.setattr(verify_module, "PARALLEL_MIN_ROWS", rotated.last)
    report = verify(rotated.path, workers=workers)
    assert report.case is VerifyCase.CORRUPT, report.message
    assert report.message == f"corrupt: {rotated.path}: row 1 missing from index extra_a"


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("where", ["base", "archive"])
def test_a_damaged_file_is_corrupt_before_its_base_or_archive_is_judged(
    rotated: Rotated, monkeypatch: pytest.MonkeyPatch, workers: int, where: str
) -> None:
    """docs/journal.md, `journal verify`: the first problem in the table's order, `corrupt`
    before `removed` or `altered`, whether the page check runs before the walk (one core)
    or beside it (over the cores: it must still run when the base or the archive refuses
    the journal before any walk)."""
    from controller.journal import verify as verify_module

    if where == "base":  # a row left at the base's row: altered
        digest = stored_hash(rotated.path, rotated.base.row + 1)
        _put_base(rotated.path, replace(rotated.base, row=rotated.base.row + 1, hash=digest))
    else:  # the archive's last segment unreadable
        (rotated.folder / "999999999990-999999999999.dsa").write_bytes(b"not a segment")
    index_out_of_step(rotated.path)
    monkeypatch.setattr(verify_module, "PARALLEL_MIN_ROWS", 1)
    report = verify(rotated.path, workers=workers, archive=rotated.folder)
    assert report == VerifyReport(
        VerifyCase.CORRUPT, f"corrupt: {rotated.path}: row 1 missing from index extra_a"
    )


@pytest.mark.parametrize("workers", [1, 2])
def test_a_damaged_file_is_corrupt_before_a_damaged_commit_however_many_cores(
    rotated: Rotated, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """One worker: SQLite's page check runs before the walk; over the cores, beside it,
    and it still decides when the walk stops at a damaged commit (the threshold of the
    walk over the cores here 1 row): the damaged file is named, not the commit
    (docs/journal.md: `corrupt` before `altered`)."""
    from controller.journal import verify as verify_module

    first = rotated.base.row + 1
    _behind_the_triggers(
        rotated.path, "UPDATE journal_commit SET last_hash = x'00' WHERE first_id = ?", first
    )
    index_out_of_step(rotated.path)
    monkeypatch.setattr(verify_module, "PARALLEL_MIN_ROWS", 1)
    assert verify(rotated.path, workers=workers) == VerifyReport(
        VerifyCase.CORRUPT, f"corrupt: {rotated.path}: row 1 missing from index extra_a"
    )


def test_a_tail_runs_no_integrity_check_even_when_its_walk_stops_at_a_damaged_commit(
    rotated: Rotated, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--tail` runs SQLite's `quick_check` alone (docs/journal.md), which does not read an
    index against its table: the damaged commit is what it reports."""
    first = rotated.base.row + 1
    _behind_the_triggers(
        rotated.path, "UPDATE journal_commit SET last_hash = x'00' WHERE first_id = ?", first
    )
    index_out_of_step(rotated.path)
    report = verify(rotated.path, tail=rotated.last - rotated.base.row)
    assert (report.case, report.first_bad_row) == (VerifyCase.ALTERED, first), report.message


def test_an_archive_whose_last_segment_is_unreadable_refuses_the_link(rotated: Rotated) -> None:
    """`--archive`: the journal's link to the archive's last segment; a last segment that
    is no segment is named, in one line."""
    bad = "999999999990-999999999999.dsa"
    (rotated.folder / bad).write_bytes(b"not a segment")
    report = verify(rotated.path, archive=rotated.folder)
    assert report.case is VerifyCase.CORRUPT, report.message
    assert report.message.startswith(f"corrupt: {bad}: ") and "\n" not in report.message
    assert (report.rows, report.first_bad_row) == (0, None)
