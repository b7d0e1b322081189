"""A checkpoint row that is not what the journal writes (docs/journal.md, "What a start
proves"): the start refuses it in one line that names the row and what is wrong with it,
and ``journal verify --key`` does the same for every checkpoint it walks over.

Each row here is appended by an insider with the journal file and not the key file: chained,
the head record rewritten, the triggers made again and SQLite's schema cookie put back
(``tests/test_journal_start.py``'s helpers), so only the checkpoint's own check can see it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from test_journal_start import behind_the_triggers, refused, schema_cookie, start

from controller.journal.format import TRIGGER_SQL, canonical_json, head_path, head_record, row_hash
from controller.journal.seal import VerificationKey, new_sealing, save_state
from controller.journal.verify import VerifyCase, verify

TABLE = "T1"
TS = "2026-12-01T10:00:00.000000Z"
Data = Callable[[int, str, int], object]


@pytest.fixture
def station(tmp_path: Path) -> tuple[Path, Path, VerificationKey]:
    """A journal two starts wrote (a round each), its key file and verification key."""
    state, key = new_sealing(TABLE)
    key_file = tmp_path / "sealing-key"
    save_state(key_file, state)
    path = tmp_path / "journal.sqlite3"
    start(path, key_file, range(1, 2))
    start(path, key_file, range(2, 3))
    assert TRIGGER_SQL  # the helpers rebuild these
    return path, key_file, key


def append_checkpoint(path: Path, data: Data, round_no: int | None = None) -> int:
    """Append a ``verified`` row whose data is ``data(row id, previous hash, schema cookie)``
    (any JSON value), chained and with a head record to match; its id."""
    cookie = schema_cookie(path)
    appended: list[int] = []

    def work(conn: sqlite3.Connection) -> None:
        last_id, last_hash = conn.execute(
            "SELECT id, hash FROM journal ORDER BY id DESC LIMIT 1"
        ).fetchone()
        row_id = last_id + 1
        text = canonical_json(data(row_id, last_hash, cookie))
        digest = row_hash(
            last_hash, row_id=row_id, ts=TS, kind="verified", round_no=round_no, data_text=text
        )
        conn.execute(
            "INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row_id, TS, "verified", round_no, text, last_hash, digest),
        )
        head_path(path).write_bytes(head_record(row_id, digest))
        appended.append(row_id)

    behind_the_triggers(path, work)
    return appended[0]


def fields(row_id: int, prev: str, cookie: int, **more: object) -> dict[str, object]:
    """A checkpoint's fields as an unsealing station writes them, changed by ``more``."""
    return {"through": row_id - 1, "hash": prev, "schema": cookie, **more}


FIELDS = "fields are not through, hash, schema (key_epoch, mac)"


@pytest.mark.parametrize(
    ("data", "round_no", "reason"),
    [
        (lambda i, p, c: [i - 1, p], None, "data is not a JSON object"),
        (lambda i, p, c: fields(i, p, c, note="mine"), None, FIELDS),
        (lambda i, p, c: {"through": i - 1}, None, FIELDS),
        (lambda i, p, c: fields(i, p, c, through=str(i - 1)), None, "through is not int"),
        (lambda i, p, c: fields(i, p, c, schema=float(c) + 0.5), None, "schema is not int"),
        (fields, 2, "a checkpoint belongs to no round"),
        (lambda i, p, c: fields(i, p, c, through=i - 2), None, "does not check the row before it"),
    ],
    ids=["not-an-object", "extra-field", "missing-fields", "text-id", "odd-schema", "round", "gap"],
)
def test_a_malformed_checkpoint_is_refused_naming_the_row_and_the_fault(
    station: tuple[Path, Path, VerificationKey], data: Data, round_no: int | None, reason: str
) -> None:
    path, key_file, key = station
    row_id = append_checkpoint(path, data, round_no)
    message = refused(path, key_file)
    assert message.endswith(f"failed verification: altered: row {row_id}: checkpoint {reason}"), (
        message
    )
    report = verify(path, key=key)
    assert report.first_bad_row == row_id
    if isinstance(data(row_id, "", 0), dict):
        assert report.case is VerifyCase.SEAL, report.message
        assert report.message == f"seal: row {row_id}: checkpoint {reason}", report.message
    else:  # the walk refuses any row whose data is no object, a checkpoint or not
        assert report.message == f"altered: row {row_id}: data is not a JSON object"


@pytest.mark.parametrize(
    "mac", ["0" * 64, "\ud800" * 8, "é" * 64], ids=["zeros", "lone-surrogate", "non-ascii"]
)
def test_a_checkpoint_with_a_mac_not_made_with_the_key_is_refused_in_one_line(
    station: tuple[Path, Path, VerificationKey], mac: str
) -> None:
    """Whatever text stands in the MAC (one JSON may carry: a lone surrogate as ``\\ud800``
    included), the start and ``verify --key`` say the MAC does not match, never a traceback."""
    path, key_file, key = station
    epoch_taken = 1  # any epoch already sealed
    row_id = append_checkpoint(
        path, lambda i, p, c: fields(i, p, c, key_epoch=epoch_taken, mac=mac)
    )
    message = refused(path, key_file)
    assert f"checkpoint: row {row_id}: its MAC does not match the checkpoint key" in message
    report = verify(path, key=key)
    assert report.case is VerifyCase.SEAL
    assert report.message.startswith(
        f"seal: row {row_id}: checkpoint its MAC does not match the checkpoint key"
    ), report.message


def test_a_checkpoint_the_station_wrote_is_taken_as_it_stands(
    station: tuple[Path, Path, VerificationKey],
) -> None:
    """The other side: the journal as the station left it starts, and each of its sealed
    checkpoints checks out with the key."""
    path, key_file, key = station
    start(path, key_file, range(3, 4))
    report = verify(path, key=key)
    assert report.case is VerifyCase.INTACT, report.message
    assert "3 sealed checkpoints good" in report.message, report.message
