"""Forward-secure sealing (``controller.journal.seal``) and the insider's attacks (docs/journal.md).

The attacker has the station: the SQLite file, its head record, the sealing state (the
current epoch's key) and the formula in docs/journal.md. Each attack below is carried out
in full (chain recomputed, head rewritten, triggers recreated) and must fail ``verify``
with the table's verification key, and with an anchor taken before it for the rollbacks.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Final

import pytest
from journal_tamper_support import chained, change_rows, raw_rows, read_rows
from test_journal import CommitThenInterrupt

from controller.journal.anchor import Anchor, latest_anchor
from controller.journal.archive import archive
from controller.journal.base import Base
from controller.journal.format import (
    GENESIS_HASH,
    JournalCorruptError,
    Row,
    canonical_json,
    head_path,
    head_record,
    row_hash,
)
from controller.journal.opening import JournalSealError
from controller.journal.reader import JournalReader
from controller.journal.rotate import rotate_journal
from controller.journal.seal import (
    SealError,
    SealingState,
    VerificationKey,
    check_row_hash,
    check_seal,
    load_state,
    new_sealing,
    read_state_text,
    remove_stale_temporaries,
    save_state,
    seal_mac,
    seal_message,
)
from controller.journal.storage import RawRow
from controller.journal.store import Journal
from controller.journal.verify import VerifyCase, verify

DOC = Path(__file__).resolve().parents[1] / "docs" / "journal.md"
TABLE = "T1"

Rows = list[tuple[int, str, str, int | None, str]]  # id, ts, kind, round, data


def write_round(journal: Journal, round_no: int, net: int = 500) -> None:
    journal.append("round_started", {"round": round_no, "seats": []}, round_no)
    journal.append("card", {"seat": 1, "hand": 1, "role": "initial", "card": "7S"}, round_no)
    journal.append(
        "settlement", {"seat": 1, "hand": 1, "outcome": "win", "net_cents": net}, round_no
    )
    journal.append("round_completed", {"reshuffle": False}, round_no)  # sealed after


@pytest.fixture
def sealed(tmp_path: Path) -> tuple[Path, Path, VerificationKey]:
    """A journal of 5 sealed rounds (4 rows and a seal each), its state file and its key."""
    state, key = new_sealing(TABLE)
    state_path = tmp_path / "sealing-key"
    save_state(state_path, state)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=state_path) as journal:
        for round_no in range(1, 6):
            write_round(journal, round_no)
    return path, state_path, key


def rewrite(path: Path, change: Callable[[Rows], Rows]) -> None:
    """The insider's rewrite: change rows, renumber them, recompute every hash, store them
    again behind the triggers and write a matching head record."""
    rows = chained(change(read_rows(path)), GENESIS_HASH, 1)
    change_rows(path, lambda _: rows)
    head_path(path).write_bytes(head_record(len(rows), rows[-1][6] if rows else GENESIS_HASH))


def test_a_sealed_journal_verifies_with_its_key(sealed: tuple[Path, Path, VerificationKey]) -> None:
    path, state_path, key = sealed
    report = verify(path, key=key)
    assert report.case is VerifyCase.INTACT, report.message
    assert "5 seals good (epochs 0..4, rows 1..25)" in report.message
    assert "not sealed yet" not in report.message  # row 25, the last, is a seal
    assert load_state(state_path).epoch == 5  # each seal used its epoch and moved on
    kinds = [row[2] for row in read_rows(path)]
    assert kinds[4::5] == ["seal"] * 5


def test_without_a_key_the_seal_is_not_checked(sealed: tuple[Path, Path, VerificationKey]) -> None:
    report = verify(sealed[0])
    assert report.ok
    assert "seals not checked (no --key)" in report.message


def test_a_wrong_key_fails_at_the_first_seal(sealed: tuple[Path, Path, VerificationKey]) -> None:
    _, other = new_sealing(TABLE)
    report = verify(sealed[0], key=other)
    assert report.case is VerifyCase.SEAL
    assert report.first_bad_row == 5
    assert "MAC of epoch 0" in report.message


def test_unsealed_rows_after_the_last_seal_are_named(
    sealed: tuple[Path, Path, VerificationKey],
) -> None:
    path, state_path, key = sealed
    with Journal.open(path, sealing=state_path) as journal:
        journal.append("shuffle_commanded", {"decks": 6})
    report = verify(path, key=key)
    assert report.ok
    assert "rows 26..26 not sealed yet" in report.message


def test_a_key_on_a_journal_with_no_seal_proves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    with Journal.open(path) as journal:
        write_round(journal, 1)
    _, key = new_sealing(TABLE)
    assert verify(path, key=key).case is VerifyCase.UNSEALED


# --- an insider's attacks --------------------------------------------------------------------


def test_attack_change_an_amount_and_recompute_the_chain_fails_with_the_key(
    sealed: tuple[Path, Path, VerificationKey],
) -> None:
    """An insider: one settled amount changed, chain, head and triggers recomputed."""
    path, _, key = sealed

    def pay_more(rows: Rows) -> Rows:
        out = list(rows)
        row = out[12]  # round 3's settlement (rows 11..15 are round 3 and its seal)
        assert row[2] == "settlement"
        out[12] = (*row[:4], row[4].replace('"net_cents":500', '"net_cents":50000'))
        return out

    rewrite(path, pay_more)
    assert verify(path).ok  # what the old check said: intact
    report = verify(path, key=key)
    assert report.case is VerifyCase.SEAL
    assert report.first_bad_row == 15  # the seal of round 3 names the rows it proves
    assert "rows 11..14" in report.message


@pytest.mark.parametrize(
    ("change", "what"),
    [
        # The same values, spaced as a hand or another JSON writer spaces them.
        (lambda r: (*r[:4], r[4].replace('"net_cents":500', '"net_cents": 500')), "data"),
        # A kind the station never writes (docs/journal.md: lower case, digits, _): format
        # 1's text column holds it; format 2's codec refuses to store it
        # (test_journal_compact.py::test_rows_a_commit_cannot_store_are_refused).
        pytest.param(
            lambda r: (*r[:2], "Settlement", *r[3:]),
            "kind",
            marks=pytest.mark.journal_format(1),
        ),
    ],
)
def test_attack_a_row_rewritten_by_hand_with_the_chain_recomputed_is_not_the_stations(
    change: Callable[[tuple[object, ...]], tuple[object, ...]],
    what: str,
    sealed: tuple[Path, Path, VerificationKey],
) -> None:
    """An insider rewrites one row and recomputes chain and head (no key needed): the row
    still betrays a hand other than the station's, which writes canonical JSON and its own
    kinds only, so the check without a key finds it."""
    path, _, _ = sealed

    def edit(rows: Rows) -> Rows:
        out = list(rows)
        assert out[12][2] == "settlement"  # round 3's settlement
        out[12] = change(out[12])  # type: ignore[assignment]
        return out

    rewrite(path, edit)
    report = verify(path)
    assert report.case is VerifyCase.ALTERED, what
    assert report.first_bad_row == 13
    assert report.message == "altered: row 13: not written by the station (not canonical)"


def test_attack_cut_a_middle_round_and_renumber_fails_with_the_key(
    sealed: tuple[Path, Path, VerificationKey],
) -> None:
    path, _, key = sealed
    rewrite(path, lambda rows: rows[:10] + rows[15:])  # round 3 and its seal gone
    assert verify(path).ok
    report = verify(path, key=key)
    assert report.case is VerifyCase.SEAL
    # Round 4's seal, now row 15, sealed row 19 under the hash row 19 had.
    assert report.first_bad_row == 15
    assert "does not seal the row before it" in report.message


def test_attack_cut_a_round_and_reseal_with_the_stolen_key_fails(
    sealed: tuple[Path, Path, VerificationKey],
) -> None:
    """Forward security: the key the station holds (epoch 5) cannot make an earlier seal."""
    path, state_path, key = sealed
    stolen = load_state(state_path)

    def reseal(rows: Rows) -> Rows:
        kept = [r for r in rows[:10] + rows[15:] if r[2] != "seal"]
        out: Rows = []
        prev, state = GENESIS_HASH, stolen
        for row in kept:
            new_id = len(out) + 1
            out.append((new_id, *row[1:]))
            prev = row_hash(
                prev, row_id=new_id, ts=row[1], kind=row[2], round_no=row[3], data_text=row[4]
            )
            if row[2] == "round_completed":
                ts = row[1]
                seal = canonical_json(state.seal(new_id, prev, ts))
                out.append((new_id + 1, ts, "seal", None, seal))
                prev = row_hash(
                    prev, row_id=new_id + 1, ts=ts, kind="seal", round_no=None, data_text=seal
                )
                state = state.evolved()
        return out

    rewrite(path, reseal)
    report = verify(path, key=key)
    assert report.case is VerifyCase.SEAL
    assert report.first_bad_row == 5  # the very first seal: epoch 5 where 0 was due


def test_attack_delete_the_last_round_fails_with_an_anchor_and_at_the_next_start(
    sealed: tuple[Path, Path, VerificationKey],
) -> None:
    path, state_path, key = sealed
    with JournalReader.open(path) as reader:
        anchor = reader.query(latest_anchor)
    assert anchor == Anchor(TABLE, 25, 4, read_hash(path, 25))
    rewrite(path, lambda rows: rows[:20])
    assert verify(path, key=key).ok  # a shorter, well-sealed journal: only an anchor tells
    report = verify(path, key=key, anchor=anchor)
    assert report.case is VerifyCase.BEHIND
    assert "row 25 (epoch 4)" in report.message
    assert report.first_bad_row == 21  # the first row the journal no longer holds
    # The station itself holds epoch 5: the journal's last seal (epoch 3) is behind it.
    with pytest.raises(JournalSealError, match=r"seals of epochs 4\.\.4 are missing"):
        Journal.open(path, sealing=state_path)


def test_attack_restore_an_older_copy_fails_with_an_anchor(
    tmp_path: Path, sealed: tuple[Path, Path, VerificationKey]
) -> None:
    path, state_path, key = sealed
    old = tmp_path / "old.sqlite3"
    shutil.copy(path, old)
    shutil.copy(head_path(path), head_path(old))
    old_state = load_state(state_path)
    with Journal.open(path, sealing=state_path) as journal:
        write_round(journal, 6, net=-500)
        write_round(journal, 7)
    with JournalReader.open(path) as reader:
        anchor = reader.query(latest_anchor)
    assert anchor is not None and anchor.row == 35
    shutil.copy(old, path)
    shutil.copy(head_path(old), head_path(path))
    assert verify(path, key=key).ok
    assert verify(path, key=key, anchor=anchor).case is VerifyCase.BEHIND
    with pytest.raises(JournalSealError, match="behind its sealing key"):
        Journal.open(path, sealing=state_path)
    # The old key file put back too: the station seals on, but the anchor sees the fork.
    save_state(state_path, old_state)
    with Journal.open(path, sealing=state_path) as journal:
        for round_no in (6, 7, 8):
            write_round(journal, round_no, net=0)
    report = verify(path, key=key, anchor=anchor)
    assert report.case is VerifyCase.FORKED
    assert report.first_bad_row == 35


def test_an_anchor_of_the_journal_itself_matches(
    sealed: tuple[Path, Path, VerificationKey],
) -> None:
    path, _, key = sealed
    with JournalReader.open(path) as reader:
        anchor = reader.query(latest_anchor)
    assert anchor is not None
    assert Anchor.parse(str(anchor)) == anchor
    report = verify(path, key=key, anchor=anchor)
    assert report.ok and "anchor row 25 (epoch 4) matches" in report.message


@pytest.mark.parametrize(
    "text",
    [
        "",
        "T1:25:4",
        "T1:x:4:" + "0" * 64,
        "T1:25:4:" + "0" * 63,
        "T1:25:4:" + "G" * 64,
        "T1:25:4:" + "X" * 64,  # no hex digit at all
        "T1:25:4:" + "AB" * 32,  # a hash is written in lower case
        "T1:" + "1" * 19 + ":4:" + "0" * 64,  # a row of 19 digits: past SQLite's ids
        "T1:25:" + "1" * 19 + ":" + "0" * 64,  # an epoch of 19 digits
    ],
)
def test_a_malformed_anchor_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="anchor"):
        Anchor.parse(text)


def test_an_anchor_of_18_digit_numbers_and_a_newline_is_read() -> None:
    """The longest row and epoch an anchor takes (18 digits: within SQLite's 64-bit ids),
    as pasted from a terminal with its newline."""
    text = f"T1:{'9' * 18}:{'8' * 18}:{'ab' * 32}\n"
    assert Anchor.parse(text) == Anchor(TABLE, int("9" * 18), int("8" * 18), "ab" * 32)


def test_an_anchor_naming_a_row_that_is_no_seal_is_forked(
    sealed: tuple[Path, Path, VerificationKey],
) -> None:
    """docs/journal.md: ``forked`` when row ROW is not that seal. Row 24 is a
    ``round_completed`` with its own hash; row 26, appended, is an ``event`` whose data reads
    as a seal of table T1 and epoch 5: neither is the anchor's seal, whatever it carries."""
    path, state_path, key = sealed
    with Journal.open(path, sealing=state_path) as journal:
        last_hash = journal.last_hash
        fields = {"epoch": 5, "head": last_hash, "mac": "0" * 64, "row": 25, "table": TABLE}
        journal.append("event", fields)  # row 26
    for row_id, epoch in ((24, 4), (26, 5)):
        anchor = Anchor(TABLE, row_id, epoch, read_hash(path, row_id))
        report = verify(path, key=key, anchor=anchor)
        assert report.case is VerifyCase.FORKED, report.message
        assert report.first_bad_row == row_id
        assert report.message.startswith(f"forked: row {row_id} is not the anchor's seal")


def rotated(tmp_path: Path) -> tuple[Path, VerificationKey, Base]:
    """A sealed journal of 15 rounds in ``tmp_path``, archived in 20-row segments and
    rotated (docs/journal.md, "Rotation"): its path, its verification key and its base."""
    state, key = new_sealing(TABLE)
    state_path = tmp_path / "sealing-key"
    save_state(state_path, state)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=state_path) as journal:
        journal.checkpoint()
        for round_no in range(1, 16):
            journal.append("shuffle_commanded", {"decks": 6})
            write_round(journal, round_no)
            journal.checkpoint()
    folder = tmp_path / "archive"
    archive(path, folder, table=TABLE, segment_rows=20)
    done = rotate_journal(
        path, folder, wager_spots=(), floor_acked=None, sealing=load_state(state_path)
    )
    return path, key, done.base


def test_an_anchor_at_a_rotated_journals_base_matches_by_the_bases_hash(tmp_path: Path) -> None:
    """docs/journal.md, "Rotation": anchors taken after the cut read the live file; the
    base's row is archived and the base carries its hash. An anchor at the base with that
    hash matches; at the base with another hash, or at a live seal with another hash, it
    is forked."""
    path, key, base = rotated(tmp_path)
    at_base = Anchor(TABLE, base.row, base.epoch - 1, base.hash)
    report = verify(path, key=key, anchor=at_base)
    assert report.case is VerifyCase.INTACT, report.message
    assert f"anchor row {base.row} (epoch {base.epoch - 1}) matches" in report.message
    with JournalReader.open(path) as reader:
        live = reader.query(latest_anchor)
    assert live is not None and live.row > base.row
    for forged in (replace(at_base, hash="cd" * 32), replace(live, hash="cd" * 32)):
        report = verify(path, key=key, anchor=forged)
        assert report.case is VerifyCase.FORKED, report.message
        assert report.first_bad_row == forged.row


def test_the_anchor_of_a_seal_row_whose_fields_are_malformed_is_one_line(
    sealed: tuple[Path, Path, VerificationKey],
) -> None:
    """The last seal's data rewritten in place without its fields: no anchor can be taken,
    and the error names the row and what is wrong with it."""
    path, _, _ = sealed
    change_rows(
        path, lambda rows: [(*r[:4], '{"epoch":4}', *r[5:]) if r[0] == 25 else r for r in rows]
    )
    with JournalReader.open(path) as reader, pytest.raises(JournalCorruptError) as caught:
        reader.query(latest_anchor)
    assert str(caught.value) == "row 25: seal fields are not epoch, head, mac, row, table"


# --- every column is covered -----------------------------------------------------------------

MALFORMED_TS: Final = lambda r: (r[0], r[1].replace("T", "T0")[:-8] + "00.000000Z", *r[2:])  # noqa: E731
COLUMN_CHANGES = {
    "id": lambda r: (r[0] + 1, *r[1:]),
    "ts": lambda r: (r[0], "2026-01-01T00:00:00.000000Z", *r[2:]),
    "kind": lambda r: (r[0], r[1], "insurance", *r[3:]),
    "round": lambda r: (*r[:3], (r[3] or 0) + 1, r[4]),
    "data": lambda r: (*r[:4], r[4].replace("500", "501")),
}


#: Row 13's columns changed in place: (id, ts, kind, round, data, prev_hash, hash).
IN_PLACE: dict[str, Callable[[RawRow], RawRow]] = {
    "id": lambda r: (1000, *r[1:]),
    "ts": lambda r: (r[0], "2026-01-01T00:00:00.000000Z", *r[2:]),
    "kind": lambda r: (*r[:2], "insurance", *r[3:]),
    "round": lambda r: (*r[:3], 99, *r[4:]),
    "data": lambda r: (*r[:4], r[4].replace("500", "501"), *r[5:]),
    "prev_hash": lambda r: (*r[:5], "1" * 64, r[6]),
    "hash": lambda r: (*r[:6], "2" * 64),
}


@pytest.mark.parametrize(
    "column",
    [
        *(c for c in IN_PLACE if c != "prev_hash"),
        # Format 1's own column: format 2 stores no prev_hash (the row before's hash).
        pytest.param("prev_hash", marks=pytest.mark.journal_format(1)),
    ],
)
def test_each_column_is_covered_by_the_hash(
    column: str, sealed: tuple[Path, Path, VerificationKey]
) -> None:
    """Change one column of row 13 in place (no recomputation): the chain check fails."""
    path, _, _ = sealed
    change_rows(path, lambda rows: [IN_PLACE[column](r) if r[0] == 13 else r for r in rows])
    report = verify(path)
    assert not report.ok, column
    assert report.case in (VerifyCase.ALTERED, VerifyCase.REMOVED)


@pytest.mark.parametrize(
    "column",
    [
        *COLUMN_CHANGES,
        # A time no station writes: format 1's text column holds it; format 2's codec
        # refuses to store it (test_journal_compact.py).
        pytest.param("ts-malformed", marks=pytest.mark.journal_format(1)),
    ],
)
def test_each_column_is_covered_by_the_seal(
    column: str, sealed: tuple[Path, Path, VerificationKey]
) -> None:
    """Change one column of row 13 and recompute the chain: only the seal still tells."""
    path, _, key = sealed

    def change(rows: Rows) -> Rows:
        out = list(rows)
        out[12] = COLUMN_CHANGES.get(column, MALFORMED_TS)(out[12])
        if column == "id":  # renumbering puts ids back in order: swap two rows instead
            out[11], out[12] = out[12], out[11]
        return out

    rewrite(path, change)
    report = verify(path, key=key)
    assert report.case is VerifyCase.SEAL, column
    assert report.first_bad_row == 15


def test_check_seal_api_checks_one_row_at_a_time(
    sealed: tuple[Path, Path, VerificationKey],
) -> None:
    """The floor collector's use: each row's hash, each seal with the table's key."""
    path, _, key = sealed
    with JournalReader.open(path) as reader:
        rows = list(reader.rows())
    assert all(check_row_hash(row) for row in rows)
    seals = [row for row in rows if row.kind == "seal"]
    assert [check_seal(row, key, expected_epoch=n) for n, row in enumerate(seals)] == [""] * 5
    assert "epoch 1 where epoch 0 was due" in check_seal(seals[1], key, expected_epoch=0)
    other = VerificationKey("T2", key.epoch_key(0))
    assert "sealed for table 'T1'" in check_seal(seals[0], other)


# --- keys ------------------------------------------------------------------------------------


def test_the_verification_key_text_round_trips_and_catches_a_typo() -> None:
    _, key = new_sealing(TABLE)
    text = key.to_text()
    assert re.fullmatch(r"ds1:T1:([A-Z2-7]{4}-){12}[A-Z2-7]{4}:[A-Z2-7]{4}", text), text
    body = text.split(":")[2]
    again = VerificationKey.from_text(text.replace(body, body.lower().replace("-", " ")))
    assert again.epoch_key(3) == key.epoch_key(3)
    typo = text.replace(body, ("B" if body[0] == "A" else "A") + body[1:])
    with pytest.raises(SealError, match="checksum"):
        VerificationKey.from_text(typo)
    with pytest.raises(SealError):
        VerificationKey.from_text("ds1:T1:AAAA:AAAA")


@pytest.mark.parametrize(
    ("edit", "error"),
    [
        (lambda t: t.replace("ds1:", "ds2:", 1), "not a verification key"),  # another format
        (lambda t: t.rsplit(":", 1)[0], "not a verification key"),  # the checksum cut off
        (lambda t: t + ":AAAA", "not a verification key"),  # a fifth part
        (lambda t: t.replace(":T1:", ":T2:", 1), "checksum"),  # another table's name
    ],
)
def test_a_verification_key_text_in_another_form_is_refused(
    edit: Callable[[str], str], error: str
) -> None:
    """The key an auditor types in (docs/journal.md): ``ds1:TABLE:KEY:CHECK`` exactly, the
    checksum over table and key; anything else is one line, never a traceback."""
    _, key = new_sealing(TABLE)
    with pytest.raises(SealError, match=error):
        VerificationKey.from_text(edit(key.to_text()))


@pytest.mark.parametrize("epoch", [-1, True, "3", 2.0, None])
def test_an_epoch_that_is_no_count_from_zero_is_refused(epoch: object) -> None:
    _, key = new_sealing(TABLE)
    with pytest.raises(SealError, match="bad epoch"):
        key.epoch_key(epoch)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("version", 99, "not of a supported version"),
        ("epoch", -1, "not of a supported version"),
        ("epoch", True, "not of a supported version"),
        ("epoch", "3", "not of a supported version"),
        ("table", 7, "unreadable"),
        ("key", "ab" * 31, "unreadable"),  # 31 bytes, not 32
        ("key", "not hex", "unreadable"),
        ("key", None, "unreadable"),
        ("checkpoint_epoch", 1, "unreadable"),  # past the epoch (0) the state is at
        ("checkpoint_epoch", -1, "unreadable"),
        ("checkpoint_epoch", "0", "unreadable"),
        ("checkpoint_key", "ab" * 31, "unreadable"),
    ],
)
def test_a_sealing_state_file_with_one_bad_field_is_refused(
    field: str, value: object, error: str, tmp_path: Path
) -> None:
    """The station's state file (its table, epoch and current key): each field checked on
    both sides of what is allowed; the good file beside it loads."""
    state, _ = new_sealing(TABLE)
    good = json.loads(state.to_json())
    path = tmp_path / "sealing.json"
    path.write_text(json.dumps(good))
    assert load_state(path) == state
    path.write_text(json.dumps(good | {field: value}))
    with pytest.raises(SealError) as caught:
        load_state(path)
    assert str(caught.value) == f"the sealing state is {error}"


def test_a_crash_between_the_seal_and_the_new_key_is_finished_at_open(tmp_path: Path) -> None:
    state, key = new_sealing(TABLE)
    state_path = tmp_path / "sealing-key"
    save_state(state_path, state)
    path = tmp_path / "j.sqlite3"
    with Journal.open(path, sealing=state_path) as journal:
        write_round(journal, 1)
    save_state(state_path, state)  # as if the station died before replacing the key file
    with Journal.open(path, sealing=state_path) as journal:
        assert journal.epoch == 1
        write_round(journal, 2)
    assert verify(path, key=key).ok


def test_a_key_file_older_than_the_journal_is_refused(
    sealed: tuple[Path, Path, VerificationKey],
) -> None:
    path, state_path, _ = sealed
    state = load_state(state_path)
    save_state(state_path, type(state)(state.table, 2, state.key))
    with pytest.raises(JournalSealError, match=r"behind its sealing key|older than"):
        Journal.open(path, sealing=state_path)


def test_idle_rows_are_sealed_after_the_idle_time(tmp_path: Path) -> None:
    state, _key = new_sealing(TABLE)
    state_path = tmp_path / "sealing-key"
    save_state(state_path, state)
    with Journal.open(tmp_path / "j.sqlite3", sealing=state_path) as journal:
        journal.append("shuffle_commanded", {"decks": 6})
        start = journal.sealed_through
        assert not journal.seal_if_due(now=0.0)  # monotonic 0 is long before the open
        from time import monotonic

        assert journal.seal_if_due(now=monotonic() + 30.0)
        assert journal.sealed_through == start + 2
        assert not journal.seal_if_due(now=monotonic() + 60.0)  # nothing new to seal


def read_hash(path: Path, row_id: int) -> str:
    (digest,) = [row[6] for row in raw_rows(path) if row[0] == row_id]
    return str(digest)


# --- the known-answer vector of docs/journal.md ----------------------------------------------


def _hkdf_expand_32(key: bytes, info: bytes) -> bytes:
    # RFC 5869 HKDF-Expand, one block: T(1) = HMAC(PRK, info || 0x01), written out here from
    # the RFC rather than taken from the code under test.
    return hmac.new(key, info + b"\x01", hashlib.sha256).digest()


def test_the_known_answer_vector_in_the_doc() -> None:
    doc = DOC.read_text()
    values = dict(re.findall(r"^\| `(\w+)` \| `([^`]*)` \|$", doc, flags=re.MULTILINE))
    k0 = bytes.fromhex(values["k0"])
    header = canonical_json([1, values["ts"], "card", 1])
    row1 = hashlib.sha256((GENESIS_HASH + header + values["data"]).encode()).hexdigest()
    assert values["row1_hash"] == row1
    assert (
        row_hash(
            GENESIS_HASH,
            row_id=1,
            ts=values["ts"],
            kind="card",
            round_no=1,
            data_text=values["data"],
        )
        == row1
    )
    mac_key = _hkdf_expand_32(k0, b"dealer-station seal mac v1")
    message = canonical_json(["dealer-station seal v1", "T1", 0, 1, row1, values["ts"]])
    assert values["seal_message"] == message
    mac = hmac.new(mac_key, message.encode(), hashlib.sha256).hexdigest()
    assert values["seal0_mac"] == mac
    k1 = _hkdf_expand_32(k0, b"dealer-station seal evolve v1")
    assert values["k1"] == k1.hex()
    key = VerificationKey("T1", k0)
    assert key.epoch_key(1) == k1
    assert values["verification_key"] == key.to_text()


# --- the daemon ------------------------------------------------------------------------------


def test_the_daemon_seals_its_start_and_refuses_a_journal_behind_its_key(tmp_path: Path) -> None:
    from controller.service import config as cfg
    from controller.service.daemon import StartError, open_journal

    state, key = new_sealing(TABLE)
    state_path = tmp_path / "sealing-key"
    save_state(state_path, state)
    path = tmp_path / "journal.sqlite3"
    for _ in range(2):
        journal = open_journal(path, state_path)
        journal.append("station_started", {"table_id": TABLE})
        journal.close()
    kinds = [row[2] for row in read_rows(path)]
    assert kinds == ["verified", "station_started", "seal"] * 2
    report = verify(path, key=key)
    assert report.ok and "2 seals good" in report.message, report.message
    rewrite(path, lambda rows: rows[:3])  # the second start cut away
    with pytest.raises(StartError, match="behind its sealing key"):
        open_journal(path, state_path)
    assert cfg.JournalSettings().sealing_key == Path("/var/lib/dealer-station/sealing-key")


def test_the_start_check_hashes_only_rows_after_the_checkpoint(tmp_path: Path) -> None:
    """Row 2 is changed in place after a start verified it: the next start's check walks
    only from the checkpoint (the key proves the rest), a change after it is caught."""
    from controller.service.daemon import StartError, open_journal

    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        write_round(journal, 1)
    open_journal(path).close()  # row 5: verified through row 4
    with Journal.open(path) as journal:
        write_round(journal, 2)
    report = verify(path, since_checkpoint=True)
    assert report.ok and report.message.startswith("intact: rows 5..9"), report.message
    change_rows(
        path,
        lambda rows: [
            (*r[:4], r[4].replace("500", "900"), *r[5:]) if r[0] == 8 else r for r in rows
        ],
    )
    with pytest.raises(StartError, match="row 8"):
        open_journal(path)


@pytest.mark.parametrize("forged", ["", "é" * 64, "0" * 63 + "\u00ff", "\udcff" * 64])
def test_check_row_hash_refuses_any_forged_hash_without_raising(
    sealed: tuple[Path, Path, VerificationKey], forged: str
) -> None:
    """A row off the wire may carry any text as its hash: the answer is False, never a
    TypeError (the floor collector calls this on rows from the network)."""
    path, _, _ = sealed
    with JournalReader.open(path) as reader:
        row = next(iter(reader.rows()))
    assert check_row_hash(row)
    assert not check_row_hash(replace(row, hash=forged))


# --- the writer's side (controller.journal.sealer): each epoch seals once, none skipped --------


def seal_epochs(path: Path) -> list[tuple[int, int]]:
    """(row, epoch) of every seal row of the journal at ``path``."""
    return [(row[0], json.loads(row[4])["epoch"]) for row in raw_rows(path) if row[2] == "seal"]


def test_two_seals_in_one_commit_use_two_epochs(tmp_path: Path) -> None:
    """Two rounds completed in one batch: two seal rows in one transaction, the second of
    the next epoch (its key evolved from the first's), and the key file past both."""
    state, key = new_sealing(TABLE)
    state_path = tmp_path / "sealing-key"
    save_state(state_path, state)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=state_path) as journal, journal.batch():
        write_round(journal, 1)  # rows 1-4, seal 5 (epoch 0)
        write_round(journal, 2)  # rows 6-9, seal 10 (epoch 1)
    assert seal_epochs(path) == [(5, 0), (10, 1)]
    assert load_state(state_path).epoch == 2
    assert verify(path, key=key).case is VerifyCase.INTACT


def test_a_batch_rolled_back_with_its_seal_leaves_the_key_where_it_was(tmp_path: Path) -> None:
    """The seal of a batch that fails never was: the key does not move on, and the next
    seal is of the same epoch (no gap in the epochs, docs/journal.md)."""
    state, key = new_sealing(TABLE)
    state_path = tmp_path / "sealing-key"
    save_state(state_path, state)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=state_path) as journal:
        with pytest.raises(RuntimeError, match="dropped"), journal.batch():
            write_round(journal, 1)  # and its seal of epoch 0
            raise RuntimeError("dropped")
        assert (journal.epoch, journal.sealed_through) == (0, 0)
        assert load_state(state_path).epoch == 0
        write_round(journal, 1)  # rows 1-4, seal 5 of epoch 0
        assert (journal.epoch, journal.sealed_through) == (1, 5)
    assert seal_epochs(path) == [(5, 0)]
    assert verify(path, key=key).case is VerifyCase.INTACT


def test_a_write_broken_off_after_its_commit_moves_the_key_on_only_past_its_own_seal(
    tmp_path: Path,
) -> None:
    """A signal right after a COMMIT (the rows on disk, the writer's bookkeeping not done):
    the next write reads the journal's last seal again. A seal made with the key held
    (epoch 0) was committed: the key moves on to epoch 1 then, sealing through that seal's
    row. Before any seal, or after a seal whose key had already moved on, nothing moves:
    each epoch seals once and none is skipped (docs/journal.md)."""
    state, key = new_sealing(TABLE)
    state_path = tmp_path / "sealing-key"
    save_state(state_path, state)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=state_path) as journal:
        conn = CommitThenInterrupt(journal._conn)
        journal._conn = conn  # type: ignore[assignment]
        conn.armed = True
        with pytest.raises(KeyboardInterrupt):
            journal.append("round_started", {"round": 1, "seats": []}, 1)  # row 1, no seal yet
        journal.append("card", {"seat": 1, "hand": 1, "role": "initial", "card": "7S"}, 1)
        assert (journal.epoch, journal.sealed_through) == (0, 0)
        conn.armed = True
        with pytest.raises(KeyboardInterrupt), journal.batch():
            journal.append("round_completed", {"reshuffle": False}, 1)  # row 3, seal 4
        assert load_state(state_path).epoch == 0  # the seal is committed, its key not moved
        journal.append("round_started", {"round": 2, "seats": []}, 2)  # row 5
        assert (journal.epoch, journal.sealed_through) == (1, 4)
        assert load_state(state_path).epoch == 1
        conn.armed = True
        with pytest.raises(KeyboardInterrupt):
            journal.append("card", {"seat": 1, "hand": 1, "role": "initial", "card": "8S"}, 2)
        assert (journal.epoch, journal.sealed_through) == (1, 4)
        journal.append("round_completed", {"reshuffle": False}, 2)  # row 7, seal 8
        assert (journal.epoch, journal.sealed_through) == (2, 8)
    assert seal_epochs(path) == [(4, 0), (8, 1)]
    assert load_state(state_path).epoch == 2
    assert verify(path, key=key).case is VerifyCase.INTACT


def test_rows_are_sealed_once_they_have_waited_the_idle_time_and_not_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SEAL_IDLE_SECONDS (30 s, docs/journal.md): rows wait at most that long unsealed. The
    last seal is committed at monotonic 1000 s here; at 1029.999 s nothing is due, at
    1030 s the rows after it are."""
    state, _key = new_sealing(TABLE)
    state_path = tmp_path / "sealing-key"
    save_state(state_path, state)
    with Journal.open(tmp_path / "j.sqlite3", sealing=state_path) as journal:
        with monkeypatch.context() as patch:
            patch.setattr(time, "monotonic", lambda: 1000.0)
            write_round(journal, 1)  # rows 1-4, seal 5
        journal.append("shuffle_commanded", {"decks": 6})  # row 6
        assert not journal.seal_if_due(now=1029.999)
        assert journal.sealed_through == 5
        assert journal.seal_if_due(now=1030.0)
        assert journal.sealed_through == 7  # the seal row of rows 1..6


def test_the_idle_seal_asked_without_a_time_reads_the_monotonic_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The station asks ``seal_if_due()`` with no time (controller/service/station.py): the
    journal reads the monotonic clock itself, due 30 s after the last seal and not before."""
    state, _key = new_sealing(TABLE)
    state_path = tmp_path / "sealing-key"
    save_state(state_path, state)
    clock = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    with Journal.open(tmp_path / "j.sqlite3", sealing=state_path) as journal:
        write_round(journal, 1)  # rows 1-4, seal 5 at 1000 s
        journal.append("shuffle_commanded", {"decks": 6})  # row 6
        clock[0] = 1029.999
        assert not journal.seal_if_due()
        assert journal.sealed_through == 5
        clock[0] = 1030.0
        assert journal.seal_if_due()
        assert journal.sealed_through == 7


# --- the seal module's own refusals (controller.journal.seal) ----------------------------------


def test_a_version_1_state_is_taken_up_with_a_checkpoint_key_from_its_current_key(
    tmp_path: Path,
) -> None:
    """docs/journal.md: a version 1 state (no checkpoint key) is read, its checkpoint key
    derived from the key it holds, at its epoch: HKDF-Expand-SHA256(k_3, "dealer-station
    checkpoint key v1")."""
    k3 = bytes(range(32, 64))
    path = tmp_path / "sealing-key"
    path.write_text(json.dumps({"version": 1, "table": TABLE, "epoch": 3, "key": k3.hex()}))
    state = load_state(path)
    assert (state.table, state.epoch, state.key) == (TABLE, 3, k3)
    assert state.checkpoint_since == 3
    assert state.checkpoint_key == _hkdf_expand_32(k3, b"dealer-station checkpoint key v1")


def test_the_proof_key_is_derived_from_the_verification_key_alone() -> None:
    """An operator's proof (``journal verify --save``) made by one version is checked by the
    next: its key is HKDF-Expand-SHA256(k0, "dealer-station verify proof key v1"), another
    key than any epoch's."""
    k0 = bytes(range(32))
    key = VerificationKey(TABLE, k0)
    expected = _hkdf_expand_32(k0, b"dealer-station verify proof key v1")
    assert key.proof_key() == expected
    assert expected not in (k0, key.epoch_key(1), key.checkpoint_key(0))


def test_a_fifo_named_as_the_state_file_is_refused_without_waiting_for_a_writer(
    tmp_path: Path,
) -> None:
    """docs/journal.md: the state file is read bounded, a regular file only; a FIFO named
    by mistake is refused at once (opened without blocking), in one line."""
    fifo = tmp_path / "sealing-key"
    os.mkfifo(fifo)
    with pytest.raises(SealError) as caught:
        read_state_text(fifo)
    assert str(caught.value) == "not a regular file"


def test_the_temporary_is_never_written_through_a_symlink(tmp_path: Path) -> None:
    """The temporary's name is known (``.sealing-key.PID.tmp``): one planted as a symlink is
    not followed, so the next epoch's key is written nowhere else and the state stays."""
    state, _ = new_sealing(TABLE)
    key_file = tmp_path / "sealing-key"
    save_state(key_file, state)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("untouched")
    planted = tmp_path / f".sealing-key.{os.getpid()}.tmp"
    planted.symlink_to(elsewhere)
    with pytest.raises(OSError, match="Too many levels of symbolic links"):
        save_state(key_file, state.evolved())
    assert elsewhere.read_text() == "untouched"
    assert load_state(key_file) == state


def test_only_regular_temporaries_of_the_state_files_name_are_removed(tmp_path: Path) -> None:
    """What a killed save left (``.NAME.PID.tmp``, a regular file) goes; a symlink, a
    folder or another name stays, and what the link points at too."""
    key_file = tmp_path / "sealing-key"
    stale = tmp_path / ".sealing-key.4242.tmp"
    stale.write_text("{}")
    target = tmp_path / "target"
    target.write_text("kept")
    (tmp_path / ".sealing-key.4343.tmp").symlink_to(target)
    (tmp_path / ".sealing-key.4444.tmp").mkdir()
    for name in (".sealing-key.42a.tmp", ".other.4242.tmp", "sealing-key.4242.tmp"):
        (tmp_path / name).write_text("{}")
    assert remove_stale_temporaries(key_file) == [stale]
    assert not stale.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".other.4242.tmp",
        ".sealing-key.42a.tmp",
        ".sealing-key.4343.tmp",
        ".sealing-key.4444.tmp",
        "sealing-key.4242.tmp",
        "target",
    ]
    assert target.read_text() == "kept"


def _seal_row(
    row_id: int, prev: str, data: dict[str, object] | str, round_no: int | None = None
) -> Row:
    """A seal row as an insider writes it: its own hash right over whatever it holds."""
    text = data if isinstance(data, str) else canonical_json(data)
    ts = "2026-12-01T10:00:00.000000Z"
    digest = row_hash(prev, row_id=row_id, ts=ts, kind="seal", round_no=round_no, data_text=text)
    return Row(row_id, ts, "seal", round_no, text, prev, digest)


def test_each_forged_seal_row_is_refused_in_one_line() -> None:
    """check_seal (the floor collector's and verify's check): a seal whose hash is not its
    content's, whose data is no object or has other fields, or that seals another row."""
    state, key = new_sealing(TABLE)
    prev = "ab" * 32
    good = state.seal(4, prev, "2026-12-01T10:00:00.000000Z")
    assert check_seal(_seal_row(5, prev, good), key) == ""
    cases = {
        "content does not match its hash": replace(_seal_row(5, prev, good), hash="cd" * 32),
        "data is not a JSON object": _seal_row(5, prev, "[1, 2]"),
        "fields are not epoch, head, mac, row, table": _seal_row(5, prev, good | {"x": 1}),
        "does not seal the row before it": _seal_row(6, prev, good),
    }
    for reason, row in cases.items():
        assert check_seal(row, key) == reason


def test_a_state_file_is_read_up_to_4096_bytes_and_refused_past_them(tmp_path: Path) -> None:
    """docs/journal.md: the state file is read bounded, at most 4 KiB (STATE_MAX_BYTES):
    a file of 4096 bytes is read whole, one of 4097 is refused in one line."""
    path = tmp_path / "sealing-key"
    path.write_bytes(b"x" * 4096)
    assert read_state_text(path) == "x" * 4096
    path.write_bytes(b"x" * 4097)
    with pytest.raises(SealError) as caught:
        read_state_text(path)
    assert str(caught.value) == "larger than 4096 bytes: not a sealing state"


def test_the_codes_seal_of_row_1_is_the_documented_vector() -> None:
    """Sealing and checking share the code, so a changed MAC formula passes every round
    trip: the code's seal message, MAC and seal row data of the known-answer vector are the
    documented values (docs/journal.md, "Known-answer vector")."""
    values = dict(re.findall(r"^\| `(\w+)` \| `([^`]*)` \|$", DOC.read_text(), flags=re.MULTILINE))
    k0, ts, row1 = bytes.fromhex(values["k0"]), values["ts"], values["row1_hash"]
    assert seal_message("T1", 0, 1, row1, ts) == values["seal_message"].encode()
    assert seal_mac(k0, values["seal_message"].encode()) == values["seal0_mac"]
    assert SealingState("T1", 0, k0).seal(1, row1, ts) == {
        "epoch": 0,
        "head": row1,
        "mac": values["seal0_mac"],
        "row": 1,
        "table": "T1",
    }


def test_the_state_file_is_read_as_ascii_and_a_stray_byte_is_one_line(tmp_path: Path) -> None:
    """The station writes its state as canonical JSON, ASCII only: a byte outside ASCII is
    no character of it. A table's é written as raw UTF-8 reads as two U+FFFD (not as é), and
    a stray 0xff byte is refused in one line, never a UnicodeDecodeError."""
    state, _ = new_sealing("T1")
    path = tmp_path / "sealing-key"
    path.write_bytes(state.to_json().replace('"T1"', '"T\\u00e9"').encode("ascii"))
    assert load_state(path).table == "T\u00e9"  # escaped, as the station writes it
    path.write_bytes(state.to_json().replace('"T1"', '"Té"').encode("utf-8"))
    assert load_state(path).table == "T\ufffd\ufffd"
    path.write_bytes(b"\xff" + state.to_json().encode())
    with pytest.raises(SealError) as caught:
        load_state(path)
    assert str(caught.value) == "the sealing state is unreadable"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("ds2:T1:AAAA:AAAA", "not a verification key (expected ds1:TABLE:KEY:CHECK)"),
        ("ds1:T1:AA!A:AAAA", "verification key: the key part is not base32"),
        ("ds1:T1:AAAA:AAAA", "verification key: the key part has the wrong length"),
        # 50 characters: padded to 56 they decode, to 31 bytes (a group lost in typing)
        ("ds1:T1:" + "A" * 50 + ":AAAA", "verification key: the key part has the wrong length"),
        ("ds1:T1:" + "A" * 52 + ":AAAA", "verification key: checksum mismatch (mistyped?)"),
    ],
)
def test_each_verification_key_text_refused_says_why_in_one_line(text: str, error: str) -> None:
    with pytest.raises(SealError) as caught:
        VerificationKey.from_text(text)
    assert str(caught.value) == error


def test_a_verification_key_of_31_bytes_is_refused_in_one_line() -> None:
    with pytest.raises(SealError) as caught:
        VerificationKey(TABLE, bytes(31))
    assert str(caught.value) == "a verification key holds 32 bytes, not 31"
