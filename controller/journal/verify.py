"""``journal verify``: tell an intact journal from a truncated, altered or corrupt one.

The check never changes the journal: it reads the ``-wal`` file's frame headers itself (to see a
transaction that a crash interrupted: harmless, SQLite discards it), runs SQLite's
``integrity_check`` on a read-only connection, walks the hash chain, compares the last row
with the head record, checks the append-only triggers' bodies and every hole-card
commitment against its reveal. With the table's verification key it proves every seal
(``controller.journal.seal``) and every sealed checkpoint (``controller.journal.checkpoint``);
with an anchor taken earlier it refuses a journal that is behind it or forked from it. The
station's start runs it from the last checkpoint (``controller.journal.startcheck``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Final, cast

from controller.journal.anchor import Anchor, check_anchor
from controller.journal.checkpoint import (
    CHECKPOINT_KIND,
    check_checkpoint_mac,
    checkpoint_fields,
)
from controller.journal.format import (
    GENESIS_HASH,
    HEAD_RECORD_SIZE,
    KIND_PATTERN,
    JournalCorruptError,
    Row,
    canonical_json,
    head_path,
    parse_head,
)
from controller.journal.reader import open_readonly, select_rows
from controller.journal.seal import SEAL_KIND, VerificationKey, check_row_hash, check_seal
from controller.journal.startcheck import (
    CommitmentLookup,
    StartTrust,
    gap,
    trigger_problem,
    walk_start,
)
from controller.journal.wal import WalState, read_wal_state
from controller.table.holecard import check_commitment


class VerifyCase(Enum):
    """What ``verify`` found, from best to worst."""

    INTACT = "intact"
    INTERRUPTED = "interrupted"  # intact; an uncommitted transaction was discarded
    HEAD_MISSING = "head_missing"  # rows cannot be checked for loss at the end
    COMMITMENT = "commitment"  # a hole-card reveal does not match its commitment
    UNSEALED = "unsealed"  # a key was given but no seal proves any row
    BEHIND = "behind"  # the journal ends before the anchor's seal: rows removed or rolled back
    FORKED = "forked"  # the anchor's row differs: rewritten or replaced
    SEAL = "seal"  # a seal (or a sealed checkpoint) does not check out with the key
    CHECKPOINT = "checkpoint"  # the start cannot trust the last checkpoint
    SCHEMA = "schema"  # the append-only triggers were removed
    TRUNCATED = "truncated"  # committed rows missing at the end
    REMOVED = "removed"  # rows missing in the middle
    ALTERED = "altered"  # a row's content no longer matches the chain
    CORRUPT = "corrupt"  # SQLite finds the file damaged, or it is no journal at all
    MISSING = "missing"  # no file


#: Cases in which every committed row is present and unchanged.
GOOD_CASES: Final = frozenset({VerifyCase.INTACT, VerifyCase.INTERRUPTED})


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """The outcome of :func:`verify`; ``message`` is the one line ``journal verify`` prints."""

    case: VerifyCase
    message: str
    rows: int = 0
    first_bad_row: int | None = None
    commitments_checked: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        """True when no committed row is missing or changed."""
        return self.case in GOOD_CASES


def verify(
    path: Path | str,
    *,
    head: Path | str | None = None,
    tail: int | None = None,
    key: VerificationKey | None = None,
    anchor: Anchor | None = None,
    since_checkpoint: bool = False,
    trust: StartTrust | None = None,
) -> VerifyReport:
    """Check the journal at ``path``; never raises for a damaged file, reports it instead.

    ``tail``: walk only about the last ``tail`` rows (from the start of the round they begin
    in) and run SQLite's faster ``quick_check``. ``since_checkpoint``: the station's start
    check (``controller.journal.startcheck``): walk only from the last checkpoint, which
    ``trust`` (the station's checkpoint key) must have sealed, count the rows for a gap in
    the ids, and skip SQLite's page check, which reads the whole file. ``key``: prove every
    seal and sealed checkpoint (the whole chain is walked). ``anchor``: fail on a journal
    behind or forked from it.
    """
    path = Path(path)
    head_file = Path(head) if head is not None else head_path(path)
    if not path.is_file():
        return VerifyReport(VerifyCase.MISSING, f"missing: no journal at {path}")
    wal = read_wal_state(path.with_name(path.name + "-wal"))
    try:
        conn = open_readonly(path)
    except JournalCorruptError as err:
        return VerifyReport(VerifyCase.CORRUPT, f"corrupt: {err}")
    mode = _Mode(None if key else tail, since_checkpoint and key is None, key, anchor, trust)
    try:
        return _verify_open(conn, path, head_file, wal, mode)
    except sqlite3.DatabaseError as err:
        return VerifyReport(VerifyCase.CORRUPT, f"corrupt: {path}: {err}")
    finally:
        conn.close()


@dataclass(frozen=True, slots=True)
class _Mode:
    tail: int | None
    checkpoint: bool
    key: VerificationKey | None
    anchor: Anchor | None
    trust: StartTrust | None


def _round_start(conn: sqlite3.Connection, start: int) -> tuple[int, str | None]:
    """Move a walk's start back to the first row of the round it falls in (so each reveal
    meets its commitment), and that row's hash (None: the row is missing)."""
    first = conn.execute("SELECT round FROM journal WHERE id = ?", (start + 1,)).fetchone()
    if start > 0 and first is not None and first[0] is not None:
        (round_start,) = conn.execute(
            "SELECT min(id) FROM journal WHERE round = ?", (first[0],)
        ).fetchone()
        start = min(start, round_start - 1)
    if start <= 0:
        return 0, GENESIS_HASH
    found = conn.execute("SELECT hash FROM journal WHERE id = ?", (start,)).fetchone()
    return start, found[0] if found else None


def _verify_open(
    conn: sqlite3.Connection, path: Path, head_file: Path, wal: WalState, mode: _Mode
) -> VerifyReport:
    if not mode.checkpoint:
        check = "quick_check" if mode.tail is not None else "integrity_check"
        problems = [row[0] for row in conn.execute(f"PRAGMA {check}")]
        if problems != ["ok"]:
            return VerifyReport(VerifyCase.CORRUPT, f"corrupt: {path}: {problems[0]}")
    head_raw = head_file.read_bytes()[:HEAD_RECORD_SIZE] if head_file.is_file() else None
    head = parse_head(head_raw) if head_raw else None
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    if "journal" not in tables:
        if head is not None and head[0] > 0:
            return VerifyReport(
                VerifyCase.TRUNCATED,
                f"truncated: rows 1..{head[0]} are missing (no journal table in {path};"
                " was it copied without its -wal file?)",
                0,
                1,
            )
        return VerifyReport(VerifyCase.CORRUPT, f"corrupt: {path} holds no journal table")
    start, start_hash = 0, cast(str | None, GENESIS_HASH)
    if mode.tail is not None:
        (last,) = conn.execute("SELECT max(id) FROM journal").fetchone()
        start, start_hash = _round_start(conn, max(0, (last or 0) - mode.tail))
    notes: list[str] = []
    if mode.checkpoint:
        found = gap(conn) or walk_start(conn, mode.trust)
        if isinstance(found, tuple):
            refused, message, first_row = found
            return VerifyReport(VerifyCase(refused), message, 0, first_row)
        start, start_hash = found.after, found.digest
        notes += [found.note] if found.note else []
    if start_hash is None:
        return VerifyReport(
            VerifyCase.REMOVED, f"removed: row {start}: missing", first_bad_row=start
        )
    lookup = CommitmentLookup(conn, start) if start > 0 else None
    chain = _walk(select_rows(conn, after_id=start), start, start_hash, mode.key, lookup)
    if chain.failure is not None:
        return chain.failure
    if wal.interrupted:
        notes.append("an uncommitted transaction (interrupted write) was discarded")
    count = f"{chain.rows} rows" if start == 0 else f"rows {start + 1}..{chain.last_id}"
    if head is not None:
        head_id, head_hash = head
        if head_id > chain.last_id:
            first = chain.last_id + 1
            return VerifyReport(
                VerifyCase.TRUNCATED,
                f"truncated: rows {first}..{head_id} are missing at the end"
                f" (the head record names row {head_id}, the last row is {chain.last_id})",
                chain.rows,
                first,
            )
        stored = conn.execute("SELECT hash FROM journal WHERE id = ?", (head_id,)).fetchone()
        if head_id > start and (stored is None or stored[0] != head_hash):
            return VerifyReport(
                VerifyCase.ALTERED,
                f"altered: row {head_id} differs from the head record",
                chain.rows,
                head_id,
            )
    if mode.anchor is not None:
        failure = check_anchor(conn, mode.anchor, chain.last_id)
        if failure is not None:
            found_case, message, first = failure
            return VerifyReport(VerifyCase(found_case), message, chain.rows, first)
    schema = trigger_problem(conn)
    if schema:
        return VerifyReport(
            VerifyCase.SCHEMA, f"schema: {schema}; the chain of {count} is intact", chain.rows
        )
    if chain.commitment_failure is not None:
        return replace(chain.commitment_failure, rows=chain.rows)
    if chain.rows and head is None:
        return VerifyReport(
            VerifyCase.HEAD_MISSING,
            f"head_missing: no head record at {head_file}: rows lost at the end would go unseen",
            chain.rows,
        )
    if mode.key is not None and chain.rows and chain.seals == 0:
        return VerifyReport(
            VerifyCase.UNSEALED,
            f"unsealed: no seal in {chain.rows} rows: the key proves nothing",
            chain.rows,
            1,
        )
    case = VerifyCase.INTERRUPTED if wal.interrupted else VerifyCase.INTACT
    summary = f"{case.value}: {count}, chain and {chain.commitments} hole-card commitments good"
    summary += "; " + _seal_summary(chain, mode.key)
    if mode.anchor is not None:
        summary += f"; anchor row {mode.anchor.row} (epoch {mode.anchor.epoch}) matches"
    for note in notes:
        summary += "; " + note
    return VerifyReport(case, summary, chain.rows, None, chain.commitments, tuple(notes))


def _seal_summary(chain: _Chain, key: VerificationKey | None) -> str:
    if key is None:
        return "seals not checked (no --key)"
    text = f"{chain.seals} seals good (epochs 0..{chain.seals - 1}, rows 1..{chain.sealed_through})"
    if chain.checkpoints:
        text += f", {chain.checkpoints} sealed checkpoints good"
    if chain.last_id > chain.sealed_through:
        text += f"; rows {chain.sealed_through + 1}..{chain.last_id} not sealed yet"
    return text


@dataclass
class _Chain:
    rows: int = 0
    last_id: int = 0
    commitments: int = 0
    seals: int = 0
    sealed_through: int = 0
    checkpoints: int = 0
    looked_up: set[int | None] = field(default_factory=set)
    failure: VerifyReport | None = None
    commitment_failure: VerifyReport | None = None


#: Before a walk that begins after row 1: a round's hole-card commitment made before it.
Lookup = Callable[[int | None], tuple[int, str] | None]


def _walk(
    rows: Iterable[Row],
    start: int,
    prev_hash: str,
    key: VerificationKey | None = None,
    lookup: Lookup | None = None,
) -> _Chain:
    chain = _Chain(last_id=start)
    pending: dict[int | None, tuple[int, str]] = {}  # round -> (row id, commitment)

    def fail(case: VerifyCase, row: int, what: str) -> _Chain:
        chain.failure = VerifyReport(case, f"{case.value}: row {row}: {what}", chain.rows, row)
        return chain

    for row in rows:
        expected = chain.last_id + 1
        if row.id != expected:
            return fail(VerifyCase.REMOVED, expected, f"missing (rows {expected}..{row.id - 1})")
        if not check_row_hash(row):
            return fail(VerifyCase.ALTERED, row.id, "content does not match its hash")
        if row.prev_hash != prev_hash:
            return fail(
                VerifyCase.ALTERED,
                row.id - 1,
                f"rewritten (its hash no longer matches row {row.id}'s prev_hash)",
            )
        try:
            data = row.data
        except JournalCorruptError:
            return fail(VerifyCase.ALTERED, row.id, "data is not a JSON object")
        if canonical_json(data) != row.data_text or not KIND_PATTERN.fullmatch(row.kind):
            return fail(VerifyCase.ALTERED, row.id, "not written by the station (not canonical)")
        if key is not None and row.kind == SEAL_KIND:
            reason = check_seal(row, key, expected_epoch=chain.seals)
            if reason:
                first = chain.sealed_through + 1
                return fail(
                    VerifyCase.SEAL, row.id, f"{reason} (it seals rows {first}..{row.id - 1})"
                )
            chain.seals += 1
            chain.sealed_through = row.id
        elif key is not None and row.kind == CHECKPOINT_KIND:
            reason = _check_checkpoint(row, key, chain.seals)
            if reason:
                return fail(VerifyCase.SEAL, row.id, f"checkpoint {reason}")
            chain.checkpoints += "mac" in data
        chain.rows += 1
        chain.last_id = row.id
        prev_hash = row.hash
        if chain.commitment_failure is None:
            _check_hole_card(chain, pending, row, data, lookup)
    return chain


def _check_checkpoint(row: Row, key: VerificationKey, seals: int) -> str:
    """Why a checkpoint row does not check out with the verification key, or ``""``. Its
    checkpoint key was taken up at an epoch already sealed, or the one to come."""
    fields = checkpoint_fields(row)
    if isinstance(fields, str):
        return fields
    if "mac" not in fields:
        return ""  # written before checkpoints were sealed, or by a station without a key
    if fields["key_epoch"] > seals:
        return f"names key epoch {fields['key_epoch']}, past the {seals} seals before it"
    return check_checkpoint_mac(row, fields, key.table, key.checkpoint_key(fields["key_epoch"]))


def _check_hole_card(
    chain: _Chain,
    pending: dict[int | None, tuple[int, str]],
    row: Row,
    data: dict[str, object],
    lookup: Lookup | None,
) -> None:
    if row.kind == "hole_card_dealt":
        pending[row.round_no] = (row.id, str(data.get("commitment")))
    elif row.kind == "hole_card_revealed":
        dealt = pending.pop(row.round_no, None)
        if dealt is None and lookup is not None and row.round_no not in chain.looked_up:
            # Dealt before the walk began; looked up once (a second reveal has none).
            chain.looked_up.add(row.round_no)
            dealt = lookup(row.round_no)
        if dealt is None:
            what = "hole card revealed without a commitment"
        elif check_commitment(dealt[1], str(data.get("card")), str(data.get("nonce"))):
            chain.commitments += 1
            return
        else:
            what = f"revealed hole card does not match the commitment in row {dealt[0]}"
        chain.commitment_failure = VerifyReport(
            VerifyCase.COMMITMENT, f"commitment: row {row.id}: {what}", 0, row.id
        )
