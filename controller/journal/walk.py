"""The walk along the hash chain that ``journal verify`` and the start make: every row's
hash, the link to the row before, canonical data, seals and sealed checkpoints (with the
verification key) and hole-card commitments. ``controller.journal.ranges`` runs it over
the cores.

A walk reads rows as SQLite gives them (tuples, a few thousand at a time) and parses the
data of every row once (canonical JSON is checked on each), but builds a :class:`Row`
only for the few kinds it checks further (seals, checkpoints). Memory stays flat: nothing
is kept per row, only the hole cards dealt and not yet revealed.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from controller.journal.checkpoint import (
    CHECKPOINT_KIND,
    check_checkpoint_mac,
    checkpoint_fields,
)
from controller.journal.format import (
    KIND_PATTERN,
    PLAIN_TS,
    JournalRecordError,
    Row,
    canonical_json,
    row_hash,
)
from controller.journal.report import VerifyCase, VerifyReport
from controller.journal.seal import SEAL_KIND, VerificationKey, check_seal
from controller.journal.storage import IndexEntry, index_entry, storage_of
from controller.table.holecard import check_commitment

#: A row as SQLite gives it: (id, ts, kind, round, data, prev_hash, hash).
RawRow = tuple[Any, Any, Any, Any, Any, Any, Any]
#: Before a walk that begins after row 1: a round's hole-card commitment made before it.
Lookup = Callable[[int | None], tuple[int, str] | None]
#: Called with the number of rows walked since the last call.
Progress = Callable[[int], None]
#: Rows fetched from SQLite at a time, and between two progress calls.
FETCH_ROWS: Final = 4096
PROGRESS_ROWS: Final = 1 << 16
_HOLE_KINDS: Final = frozenset({"hole_card_dealt", "hole_card_revealed"})
_NOT_INDEXED: Final = (
    "its entry in the index tables does not match the row (added, removed or changed)"
)
#: json's C scanner itself: ``json.loads`` wraps it in two whitespace matches a row, which
#: canonical text never has (a quarter of the parse).
_SCAN: Final[Callable[[str, int], tuple[Any, int]]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


@dataclass
class Chain:
    """What a walk found: counts, where it ended, and the first failure."""

    start: int = 0  # the walk began after this row
    rows: int = 0
    last_id: int = 0
    first_prev: str = ""  # the prev_hash the walk began with
    last_hash: str = ""  # the hash of the last row walked (first_prev when none)
    commitments: int = 0
    seals: int = 0  # seals before the walk's end (those before its start included)
    sealed_through: int = 0  # the last seal row (0: none)
    sealed_hash: str = ""  # that seal row's hash, when the walk met it
    checkpoints: int = 0
    pages: str = ""  # what SQLite's page check found, when it ran beside a parallel walk
    looked_up: set[int | None] = field(default_factory=set)
    failure: VerifyReport | None = None
    commitment_failure: VerifyReport | None = None


def raw_rows(
    conn: sqlite3.Connection, after_id: int, until_id: int | None = None
) -> Iterator[RawRow]:
    """Rows after ``after_id`` (up to ``until_id``) in id order, as tuples, from either
    storage format (``controller.journal.storage``)."""
    return storage_of(conn).raw_rows(after_id, until_id)


@dataclass(frozen=True, slots=True)
class IndexCheck:
    """Format 2's index entries for the walk to check against the rows: the entries in id
    order, and the milestone kinds the file indexes (its ``journal_kind``)."""

    entries: Iterator[IndexEntry]
    kinds: frozenset[str]


def index_of(
    conn: sqlite3.Connection, after_id: int, until_id: int | None = None
) -> IndexCheck | None:
    """Format 2's index entries after ``after_id`` (up to ``until_id``), for the walk to
    check against the rows; None for format 1 (its indexes are SQLite's)."""
    storage = storage_of(conn)
    if storage.version != 2:
        return None
    return IndexCheck(storage.index_entries(after_id, until_id), storage.indexed_kinds)


def _hash(row: RawRow) -> str | None:
    """The chain hash of a row's columns as stored (``format.row_hash``), or None when the
    columns cannot be hashed at all (types SQLite should never give): no stored hash, not
    even an empty one, matches such a row."""
    row_id, ts, kind, round_no, data_text, prev, _digest = row
    if (
        type(row_id) is int
        and type(kind) is str
        and type(ts) is str
        and type(data_text) is str
        and type(prev) is str
        and (round_no is None or type(round_no) is int)
        and KIND_PATTERN.fullmatch(kind)
        and PLAIN_TS.fullmatch(ts)
    ):
        header = f'[{row_id},"{ts}","{kind}",{"null" if round_no is None else round_no}]'
        return hashlib.sha256(f"{prev}{header}{data_text}".encode()).hexdigest()
    try:
        return row_hash(
            str(prev), row_id=row_id, ts=ts, kind=kind, round_no=round_no, data_text=data_text
        )
    except (JournalRecordError, TypeError, UnicodeEncodeError):
        return None


def walk(
    rows: Iterable[RawRow],
    start: int,
    prev_hash: str,
    key: VerificationKey | None = None,
    lookup: Lookup | None = None,
    *,
    seals: int = 0,
    sealed_through: int = 0,
    progress: Progress | None = None,
    index: IndexCheck | None = None,
) -> Chain:
    """Walk ``rows`` (the rows after ``start``, whose hash is ``prev_hash``); with ``key``
    check each seal (``seals`` of them came before ``start``, the last at row
    ``sealed_through``) and sealed checkpoint; ``lookup`` finds the commitments dealt
    before ``start``. Stops at the first failure (``Chain.failure``); a hole-card problem
    is noted (``Chain.commitment_failure``) and the walk goes on. ``index``: format 2's
    index entries of the same rows (:func:`index_of`), each checked against the row it names
    (``controller.journal.storage.index_entry``): an entry added, removed or changed is a
    row altered."""
    chain = Chain(
        start=start,
        last_id=start,
        first_prev=prev_hash,
        last_hash=prev_hash,
        seals=seals,
        sealed_through=sealed_through,
    )
    pending: dict[int | None, tuple[int, str]] = {}  # round -> (row id, commitment)
    scan = _SCAN
    since_progress = 0
    entry = next(index.entries, None) if index is not None else None

    def fail(case: VerifyCase, row: int, what: str) -> Chain:
        chain.failure = VerifyReport(case, f"{case.value}: row {row}: {what}", chain.rows, row)
        return chain

    for raw in rows:
        row_id, ts, kind, round_no, data_text, stored_prev, digest = raw
        expected = chain.last_id + 1
        if row_id != expected:
            return fail(VerifyCase.REMOVED, expected, f"missing (rows {expected}..{row_id - 1})")
        hashed = _hash(raw)
        if hashed is None or hashed != digest:
            return fail(VerifyCase.ALTERED, row_id, "content does not match its hash")
        if stored_prev != prev_hash:
            return fail(
                VerifyCase.ALTERED,
                row_id - 1,
                f"rewritten (its hash no longer matches row {row_id}'s prev_hash)",
            )
        try:
            data, end = scan(data_text, 0)
        except (StopIteration, ValueError, TypeError):
            data, end = None, 0
        if end != len(data_text):
            data = None  # text after the value (or none at all): not canonical either
        if type(data) is not dict:
            return fail(VerifyCase.ALTERED, row_id, "data is not a JSON object")
        try:
            canonical = canonical_json(data) == data_text
        except JournalRecordError:  # NaN or the like: never written by the station
            canonical = False
        if not canonical or not KIND_PATTERN.fullmatch(kind):
            return fail(VerifyCase.ALTERED, row_id, "not written by the station (not canonical)")
        if index is not None:
            indexed = index_entry(row_id, kind, round_no, data, index.kinds)
            if entry is not None and entry[0] < row_id:
                return fail(VerifyCase.ALTERED, entry[0], _NOT_INDEXED)
            if indexed is not None or (entry is not None and entry[0] == row_id):
                if entry is None or tuple(entry) != indexed:
                    return fail(VerifyCase.ALTERED, row_id, _NOT_INDEXED)
                entry = next(index.entries, None)
        if key is not None and kind in (SEAL_KIND, CHECKPOINT_KIND):
            row = Row(row_id, ts, kind, round_no, data_text, stored_prev, digest)
            if kind == SEAL_KIND:
                reason = check_seal(row, key, expected_epoch=chain.seals)
                if reason:
                    first = chain.sealed_through + 1
                    return fail(
                        VerifyCase.SEAL, row_id, f"{reason} (it seals rows {first}..{row_id - 1})"
                    )
                chain.seals += 1
                chain.sealed_through, chain.sealed_hash = row_id, digest
            else:
                reason = checkpoint_problem(row, key, chain.seals)
                if reason:
                    return fail(VerifyCase.SEAL, row_id, f"checkpoint {reason}")
                chain.checkpoints += "mac" in data
        chain.rows += 1
        chain.last_id = row_id
        prev_hash = chain.last_hash = digest
        if kind in _HOLE_KINDS and chain.commitment_failure is None:
            _check_hole_card(chain, pending, lookup, (row_id, kind, round_no), data)
        since_progress += 1
        if progress is not None and since_progress == PROGRESS_ROWS:
            progress(since_progress)
            since_progress = 0
    if progress is not None and since_progress:
        progress(since_progress)
    if entry is not None:
        return fail(VerifyCase.ALTERED, entry[0], _NOT_INDEXED)
    return chain


def checkpoint_problem(row: Row, key: VerificationKey, seals: int) -> str:
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
    chain: Chain,
    pending: dict[int | None, tuple[int, str]],
    lookup: Lookup | None,
    row: tuple[int, str, int | None],
    data: dict[str, object],
) -> None:
    row_id, kind, round_no = row
    if kind == "hole_card_dealt":
        pending[round_no] = (row_id, str(data.get("commitment")))
        return
    dealt = pending.pop(round_no, None)
    if dealt is None and lookup is not None and round_no not in chain.looked_up:
        # Dealt before the walk began; looked up once (a second reveal has none).
        chain.looked_up.add(round_no)
        dealt = lookup(round_no)
    if dealt is None:
        what = "hole card revealed without a commitment"
    elif check_commitment(dealt[1], str(data.get("card")), str(data.get("nonce"))):
        chain.commitments += 1
        return
    else:
        what = f"revealed hole card does not match the commitment in row {dealt[0]}"
    chain.commitment_failure = VerifyReport(
        VerifyCase.COMMITMENT, f"commitment: row {row_id}: {what}", 0, row_id
    )
