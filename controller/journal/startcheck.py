"""What the station's start checks before it trusts the journal without the verification
key (docs/journal.md, "What a start proves"); ``controller.journal.verify`` runs it with
``since_checkpoint=True``.

A start must stay quick on a year of rows, so it does not hash every row. It takes the
last checkpoint (``controller.journal.checkpoint``) as the place to begin its walk, once:

* the checkpoint's MAC is good under the station's checkpoint key (:class:`StartTrust`,
  from the sealing state): nobody without the key file wrote it, and the key file is this
  journal's. A sealing state that has sealed since it took its checkpoint key up needs
  such a checkpoint: none at all means the rows were rewritten;
* the row it names still has the hash it names (rows before it were not rewritten);
* SQLite's schema cookie is the one it names: triggers dropped and made again (an UPDATE
  or DELETE behind them) make the start walk every row instead;
* the rows are counted: an id missing anywhere (a round cut out) is found without
  reading every row;
* the append-only triggers exist with their bodies (:func:`trigger_problem`).

The walk after the checkpoint then hashes each row, checks the chain and every hole-card
reveal against its commitment (a commitment made before the checkpoint is looked up).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.journal.checkpoint import (
    CHECKPOINT_KIND,
    check_checkpoint_mac,
    checkpoint_fields,
)
from controller.journal.seal import SealError, SealingState, load_state
from controller.journal.storage import storage_of

#: A failure: (the ``VerifyCase`` value, the one-line message, the first row concerned).
Failure = tuple[str, str, int | None]
_HOLE_KINDS: Final = ("hole_card_dealt", "hole_card_revealed")


@dataclass(frozen=True, slots=True)
class StartTrust:
    """What a start holds to trust the journal's last checkpoint, from its sealing state:
    the table, the checkpoint key, and whether a sealed checkpoint must exist (the state
    has sealed since it took the key up, and each start writes one before it seals)."""

    table: str
    key: bytes
    required: bool

    @classmethod
    def of(cls, state: SealingState) -> StartTrust:
        """The trust a sealing state gives."""
        return cls(state.table, state.checkpoint_key, state.epoch > state.checkpoint_since)


@dataclass(frozen=True, slots=True)
class WalkStart:
    """Where a start's walk begins: after row ``after`` (whose hash is ``digest``)."""

    after: int
    digest: str
    note: str = ""


def walk_start(conn: sqlite3.Connection, trust: StartTrust | None) -> WalkStart | Failure:
    """Where the last checkpoint lets the start's walk begin, or why it may not (see the
    module docstring). Without ``trust`` (a station that does not seal) the checkpoint is
    taken as it stands."""
    storage = storage_of(conn)
    begin = storage.start()
    if storage.base is not None and trust is not None:
        problem = storage.base.check_mac(trust.table, trust.key)
        if problem and (trust.required or storage.base.mac is not None):
            return (
                "checkpoint",
                f"checkpoint: {problem}: rows cut from the front by someone without the key"
                " file, or a sealing key file that is not this journal's",
                begin[0] + 1,
            )
    row = storage.last(CHECKPOINT_KIND)
    if row is None:
        if trust is not None and trust.required:
            return (
                "checkpoint",
                "checkpoint: the journal holds no checkpoint, but its sealing key has sealed"
                " since it made one: rows rewritten without the key?",
                None,
            )
        return WalkStart(*begin)
    fields = checkpoint_fields(row)
    if isinstance(fields, str):
        return "altered", f"altered: row {row.id}: checkpoint {fields}", row.id
    if trust is not None and ("mac" in fields or trust.required):
        reason = check_checkpoint_mac(row, fields, trust.table, trust.key)
        if reason:
            return (
                "checkpoint",
                f"checkpoint: row {row.id}: {reason}: a checkpoint the station did not write,"
                " or a sealing key file that is not this journal's",
                row.id,
            )
    through, digest = fields["through"], fields["hash"]
    stored = storage_of(conn).hash_of(through)
    if through > 0 and stored != digest:
        return (
            "altered",
            f"altered: row {through} differs from the checkpoint in row {row.id}",
            through,
        )
    (schema,) = conn.execute("PRAGMA schema_version").fetchone()
    if "schema" in fields and fields["schema"] != schema:
        # Triggers dropped and made again (an UPDATE behind them?): nothing before the
        # checkpoint can be taken as checked.
        note = f"the schema changed since the checkpoint in row {row.id}: every row walked"
        return WalkStart(*begin, note)
    return WalkStart(through, digest)


def gap(conn: sqlite3.Connection) -> Failure | None:
    """Rows missing anywhere (the ids skip), found by counting: the start's walk begins at
    the checkpoint, and a round cut out before it must not go unseen. Format 1 counts the
    index ``journal_count`` (a few bytes a row: about 6 ms on a million rows here), format 2
    the rows of each commit in the index ``journal_commit_count``
    (``controller.journal.storage``)."""
    storage = storage_of(conn)
    count, last = storage.count(), storage.last_id()
    after = storage.start()[0]  # a rotated journal's rows begin after its base
    first = storage.first_id()
    if after and first is not None and first <= after:
        return (
            "altered",
            f"altered: row {first}: in the file, but its base record says rows 1..{after}"
            " are archived",
            first,
        )
    if last is not None and count != last - after:
        return (
            "removed",
            f"removed: {last - after - count} of rows {after + 1}..{last} are missing (the ids"
            " skip); `journal verify` names the first",
            None,
        )
    return None


def trigger_problem(conn: sqlite3.Connection) -> str:
    """What is wrong with the append-only triggers of the file's storage format (one
    missing, a body that is not the journal's, or a trigger the journal never made), or
    ``""``."""
    storage = storage_of(conn)
    expected = storage.triggers
    found = {
        name: " ".join(str(sql).split())
        for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
    }
    missing = [name for name in storage.main_triggers if name not in found]
    missing += [name for name in expected if name not in found and name not in missing]
    if missing:
        return f"append-only triggers removed ({', '.join(missing)})"
    changed = [name for name, sql in expected.items() if found[name] != " ".join(sql.split())]
    if changed:
        return f"append-only triggers changed ({', '.join(changed)}): they may not refuse"
    extra = sorted(set(found) - set(expected))
    if extra:
        return f"triggers the journal never made ({', '.join(extra)})"
    return ""


class CommitmentLookup:
    """For a walk that begins after row ``start``: the hole-card commitment a reveal in the
    walk opens when it was dealt before ``start`` (a round open at the checkpoint, or a
    voided round's card the shoe gave back later). Reads that round's hole-card rows from its
    start up to ``start`` and pairs them as a full walk would."""

    def __init__(self, conn: sqlite3.Connection, start: int) -> None:
        self._conn = conn
        self._start = start

    def __call__(self, round_no: int | None) -> tuple[int, str] | None:
        """``(row id, commitment)`` of the round's hole card still unrevealed at ``start``."""
        if round_no is None:
            return None
        # A hole card dealt before a rotated journal's base: the base carries it (open).
        base = storage_of(self._conn).base
        carried = {r: (i, c) for r, i, c in base.open} if base is not None else {}
        pending: tuple[int, str] | None = carried.get(round_no)
        # From the round's start (kinds.INDEXES: journal_round_start) up to ``start``: the
        # round's hole-card rows lie in that range, read in id order (``+kind``: not by
        # the index of milestones, which would read every round's).
        storage = storage_of(self._conn)
        first = storage.round_start(round_no)
        for row in storage.hole_rows(first or 1, self._start, round_no):
            row_id, kind, data_text = row.id, row.kind, row.data_text
            if kind != "hole_card_dealt":
                pending = None
                continue
            try:
                commitment = json.loads(data_text).get("commitment")
            except (ValueError, AttributeError):
                commitment = None  # a damaged row: the reveal then fails its check
            pending = (row_id, str(commitment))
        return pending


def start_trust(state_path: Path) -> StartTrust | None:
    """The trust the sealing state at ``state_path`` gives a start; None when there is no
    readable state (opening the journal then says what is wrong with it)."""
    try:
        return StartTrust.of(load_state(state_path))
    except (OSError, SealError):
        return None
