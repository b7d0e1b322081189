"""The walk along the hash chain (``controller.journal.walk``), on small journals made in
the test: fast cases beside the whole-journal ones of tests/test_journal_verify.py and
tests/test_journal_verify_walk.py."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from journal_tamper_support import behind_the_triggers, card_indexed_by_a_later_program

from controller.journal import walk as walk_module
from controller.journal.format import GENESIS_HASH, canonical_json, row_hash
from controller.journal.report import VerifyCase
from controller.journal.seal import VerificationKey, new_sealing, save_state
from controller.journal.storage import RawRow, storage_of
from controller.journal.store import Journal
from controller.journal.verify import verify
from controller.journal.walk import checkpoint_problem, index_of, raw_rows, walk
from controller.rules.cards import parse_card
from controller.table.holecard import commit_hole_card


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_checkpoint_written_without_a_key_checks_out_with_the_key_sealed_later(
    tmp_path: Path, storage_format: int
) -> None:
    """docs/journal.md: a checkpoint written before checkpoints were sealed (or by a
    station without a key) holds no MAC: a walk with the verification key takes it as it
    is, and counts no sealed checkpoint for it."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=storage_format) as journal:
        journal.append("station_started", {})
        unsealed = journal.checkpoint()
    state, key = new_sealing("T1")
    save_state(tmp_path / "sealing-key", state)
    with Journal.open(path, sealing=tmp_path / "sealing-key") as journal:
        journal.append("station_started", {})
        journal.seal()
        assert journal.sealed_through == journal.last_id  # every row sealed
    conn = sqlite3.connect(path)
    try:
        row = next(r for r in storage_of(conn).rows() if r.id == unsealed)
        assert "mac" not in row.data
        assert checkpoint_problem(row, key, 0) == ""
        chain = walk(raw_rows(conn, 0), 0, GENESIS_HASH, key)
    finally:
        conn.close()
    assert chain.failure is None
    assert chain.seals >= 1 and chain.checkpoints == 0
    report = verify(path, key=key)
    assert report.ok, report.message


def chain_of(count: int) -> list[tuple[object, ...]]:
    """``count`` rows of a real journal, as the walk reads them (no SQLite afterwards:
    each case below changes the tuples, and re-hashes a row as an insider would)."""
    rows: list[tuple[object, ...]] = []
    prev = GENESIS_HASH
    for n in range(1, count + 1):
        data = f'{{"n":{n}}}'
        ts = f"2026-12-01T09:00:{n:02d}.000000Z"
        digest = row_hash(prev, row_id=n, ts=ts, kind="event", round_no=None, data_text=data)
        rows.append((n, ts, "event", None, data, prev, digest))
        prev = digest
    return rows


def rehashed(row: tuple[object, ...], **changed: object) -> tuple[object, ...]:
    """``row`` with columns changed and its own hash made again (its prev_hash kept)."""
    row_id, ts, kind, round_no, data, prev, _ = row
    values = {"ts": ts, "kind": kind, "round_no": round_no, "data_text": data, "prev": prev}
    values.update(changed)
    prev = str(values.pop("prev"))
    digest = row_hash(prev, row_id=int(str(row_id)), **values)  # type: ignore[arg-type]
    return (
        row_id,
        values["ts"],
        values["kind"],
        values["round_no"],
        values["data_text"],
        prev,
        digest,
    )


def test_an_intact_chain_is_walked_whole() -> None:
    rows = chain_of(5)
    chain = walk(rows, 0, GENESIS_HASH)  # type: ignore[arg-type]
    assert chain.failure is None
    assert (chain.start, chain.rows, chain.last_id) == (0, 5, 5)
    assert (chain.first_prev, chain.last_hash) == (GENESIS_HASH, rows[-1][6])
    later = walk(rows[2:], 2, str(rows[1][6]))  # type: ignore[arg-type]
    assert (later.failure, later.rows, later.last_id, later.first_prev) == (
        None,
        3,
        5,
        rows[1][6],
    )


@pytest.mark.parametrize(
    ("change", "message", "bad"),
    [
        (lambda rows: rows[:2] + rows[3:], "removed: row 3: missing (rows 3..3)", 3),
        (lambda rows: rows[:1] + rows[4:], "removed: row 2: missing (rows 2..4)", 2),
        (
            lambda rows: [*rows[:2], (*rows[2][:4], '{"n":9}', *rows[2][5:]), *rows[3:]],
            "altered: row 3: content does not match its hash",
            3,
        ),
        (
            lambda rows: [*rows[:2], rehashed(rows[2], data_text='{"n":9}'), *rows[3:]],
            "altered: row 3: rewritten (its hash no longer matches row 4's prev_hash)",
            3,
        ),
        (
            lambda rows: [*rows[:2], rehashed(rows[2], data_text='{"n": 3}'), *rows[3:]],
            "altered: row 3: not written by the station (not canonical)",
            3,
        ),
        (
            lambda rows: [*rows[:2], rehashed(rows[2], data_text='{"n":3} '), *rows[3:]],
            "altered: row 3: data is not a JSON object",
            3,
        ),
        (
            lambda rows: [*rows[:2], rehashed(rows[2], data_text="[3]"), *rows[3:]],
            "altered: row 3: data is not a JSON object",
            3,
        ),
        (
            lambda rows: [rehashed(rows[0], prev="1" * 64), *rows[1:]],
            "altered: row 0: rewritten (its hash no longer matches row 1's prev_hash)",
            0,
        ),
    ],
    ids=[
        "one-removed",
        "three-removed",
        "changed",
        "rewritten",
        "spaces",
        "trailing",
        "list",
        "prev",
    ],
)
def test_the_first_break_in_the_chain_is_named(change: object, message: str, bad: int) -> None:
    rows = change(chain_of(6))  # type: ignore[operator]
    chain = walk(rows, 0, GENESIS_HASH)
    assert chain.failure is not None
    assert (chain.failure.message, chain.failure.first_bad_row) == (message, bad)
    assert chain.failure.rows == chain.rows  # the rows walked before the break


@pytest.mark.parametrize(("rows", "calls"), [(7, [3, 3, 1]), (6, [3, 3]), (2, [2]), (0, [])])
def test_progress_is_told_every_so_many_rows_and_at_the_end(
    monkeypatch: pytest.MonkeyPatch, rows: int, calls: list[int]
) -> None:
    monkeypatch.setattr(walk_module, "PROGRESS_ROWS", 3)
    told: list[int] = []
    chain = walk(chain_of(rows), 0, GENESIS_HASH, progress=told.append)  # type: ignore[arg-type]
    assert chain.rows == rows
    assert told == calls


def test_a_row_hashes_only_with_the_types_and_forms_the_station_writes() -> None:
    """The walk's fast hash is taken only for an int id, text columns, an int or null
    round, a kind and a time of the station's forms; anything else is hashed as
    ``format.row_hash`` would (or not at all): a row whose round is the text "1", or
    whose kind holds a quote, does not match a hash made over the plain header."""
    rows = chain_of(4)
    row_id, ts, _kind, _round, data, prev, _ = rows[2]

    def plain(kind: str, round_no: object) -> str:
        header = f'[{row_id},"{ts}","{kind}",{round_no}]'
        return hashlib.sha256(f"{prev}{header}{data}".encode()).hexdigest()

    for kind, round_no in (("event", "1"), ('ev"ent', "null"), ("event", "1.0")):
        stored = "null" if round_no == "null" else round_no
        changed = (row_id, ts, kind, None if stored == "null" else stored, data, prev)
        chain = walk([*rows[:2], (*changed, plain(kind, round_no))], 0, GENESIS_HASH)  # type: ignore[list-item]
        assert chain.failure is not None
        assert chain.failure.message == "altered: row 3: content does not match its hash"


def hole_card_chain(*rows: tuple[str, int | None, dict[str, object]]) -> list[RawRow]:
    """Rows 1.. of the given kinds, rounds and data, chained from the genesis hash."""
    out: list[RawRow] = []
    prev = GENESIS_HASH
    for n, (kind, round_no, data) in enumerate(rows, start=1):
        text = canonical_json(data)
        ts = f"2026-12-01T09:00:{n:02d}.000000Z"
        digest = row_hash(prev, row_id=n, ts=ts, kind=kind, round_no=round_no, data_text=text)
        out.append((n, ts, kind, round_no, text, prev, digest))
        prev = digest
    return out


def test_a_hole_card_reveal_is_checked_against_its_rounds_commitment() -> None:
    """docs/journal.md, "Hole-card commitment" (NJ 13:69F-19.7(i): the hole card is dealt
    face down and read unseen, so the journal commits to it when dealt and reveals it
    later): a reveal that matches counts; one that does not, or one with no commitment in
    its round, is noted naming the reveal's row, and the walk goes on to the end."""
    commitment, nonce = commit_hole_card(parse_card("5D"))
    dealt = ("hole_card_dealt", 1, {"commitment": commitment})
    good = hole_card_chain(
        dealt, ("hole_card_revealed", 1, {"card": "5D", "nonce": nonce}), ("event", None, {})
    )
    chain = walk(good, 0, GENESIS_HASH)
    assert (chain.failure, chain.commitment_failure, chain.commitments) == (None, None, 1)
    other = hole_card_chain(
        dealt, ("hole_card_revealed", 1, {"card": "6D", "nonce": nonce}), ("event", None, {})
    )
    chain = walk(other, 0, GENESIS_HASH)
    assert chain.failure is None and chain.rows == 3 and chain.commitments == 0
    found = chain.commitment_failure
    assert found is not None
    assert (found.case, found.message, found.first_bad_row) == (
        VerifyCase.COMMITMENT,
        "commitment: row 2: revealed hole card does not match the commitment in row 1",
        2,
    )
    alone = hole_card_chain(
        ("event", None, {}), ("hole_card_revealed", 2, {"card": "5D", "nonce": nonce})
    )
    found = walk(alone, 0, GENESIS_HASH).commitment_failure
    assert found is not None
    assert (found.case, found.message, found.first_bad_row) == (
        VerifyCase.COMMITMENT,
        "commitment: row 2: hole card revealed without a commitment",
        2,
    )


def test_format_2s_index_entries_are_walked_with_the_rows_and_format_1_has_none(
    tmp_path: Path,
) -> None:
    """docs/journal.md, "Storage format 2": its index tables are the program's own, so the
    walk checks each entry against the row it names; an entry removed behind the triggers
    is that row altered. Format 1's indexes are SQLite's: nothing for the walk to check."""
    for storage_format in (1, 2):
        path = tmp_path / f"format-{storage_format}.sqlite3"
        with Journal.open(path, storage_format=storage_format) as journal:
            journal.append("station_started", {})
            journal.append("round_started", {"round": 1, "seats": []}, 1)
            journal.append("round_completed", {"reshuffle": False}, 1)
        conn = sqlite3.connect(path)
        try:
            index = index_of(conn, 0)
            assert (index is None) == (storage_format == 1)
            assert walk(raw_rows(conn, 0), 0, GENESIS_HASH, index=index).failure is None
        finally:
            conn.close()
    behind_the_triggers(path, lambda conn: _run(conn, "DELETE FROM journal_milestone WHERE id = 2"))
    conn = sqlite3.connect(path)
    try:
        chain = walk(raw_rows(conn, 0), 0, GENESIS_HASH, index=index_of(conn, 0))
    finally:
        conn.close()
    assert chain.failure is not None
    assert (chain.failure.case, chain.failure.first_bad_row) == (VerifyCase.ALTERED, 2)
    assert chain.failure.message == (
        "altered: row 2: its entry in the index tables does not match the row"
        " (added, removed or changed)"
    )


def _run(conn: sqlite3.Connection, statement: str) -> None:
    conn.execute(statement)


@pytest.mark.parametrize("column", [1, 2], ids=["ts", "kind"])
def test_a_time_or_kind_stored_as_bytes_is_a_row_altered_not_a_crash(column: int) -> None:
    """SQLite keeps a BLOB in a TEXT column as bytes (an insider's write behind the
    triggers): no hash is made of such a row (the station writes text), so it is named
    altered, in one line, like any row whose hash does not match."""
    rows = chain_of(4)
    changed = list(rows[2])
    changed[column] = str(changed[column]).encode()
    chain = walk([*rows[:2], tuple(changed), *rows[3:]], 0, GENESIS_HASH)  # type: ignore[list-item]
    assert chain.failure is not None
    assert (chain.failure.message, chain.failure.first_bad_row) == (
        "altered: row 3: content does not match its hash",
        3,
    )


@pytest.mark.parametrize("round_no", [None, 7])
def test_a_row_off_the_fast_path_is_hashed_as_format_row_hash_does(round_no: int | None) -> None:
    """A kind the station never writes (a quote in it) is hashed the long way
    (``format.row_hash``, its header JSON-escaped): a row rehashed that way by an insider
    passes the hash and is refused for its kind, not for its hash."""
    rows = chain_of(4)
    forged = rehashed(rows[2], kind='ev"ent', round_no=round_no)
    chain = walk([*rows[:2], forged, *rows[3:]], 0, GENESIS_HASH)  # type: ignore[list-item]
    assert chain.failure is not None
    assert (chain.failure.message, chain.failure.first_bad_row) == (
        "altered: row 3: not written by the station (not canonical)",
        3,
    )


@pytest.mark.parametrize("storage_format", [1, 2])
def test_a_range_of_rows_and_its_index_entries_end_at_the_row_asked(
    tmp_path: Path, storage_format: int
) -> None:
    """A range's walk (``controller.journal.ranges``) reads rows ``after + 1 .. until`` and
    format 2's index entries of those rows alone: rows 2..4 of six here, whose milestones
    are the round's start (row 3) and end (row 4); rows 5 and 6 are another round's."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=storage_format) as journal:
        journal.append("station_started", {})
        journal.append("event", {"n": 2})
        journal.append("round_started", {"round": 1, "seats": []}, 1)
        journal.append("round_completed", {"reshuffle": False}, 1)
        journal.append("round_started", {"round": 2, "seats": []}, 2)
        journal.append("round_completed", {"reshuffle": False}, 2)
    conn = sqlite3.connect(path)
    try:
        assert [row[0] for row in raw_rows(conn, 1, 4)] == [2, 3, 4]
        assert [row[0] for row in raw_rows(conn, 4)] == [5, 6]
        index = index_of(conn, 1, 4)
        if storage_format == 2:
            assert index is not None
            assert [tuple(entry) for entry in index.entries] == [
                (3, "round_started", 1, None, None),
                (4, "round_completed", 1, None, None),
            ]
        else:
            assert index is None
    finally:
        conn.close()


@pytest.mark.parametrize("stored", ["", None], ids=["empty", "null"])
@pytest.mark.parametrize("column", [1, 2], ids=["ts", "kind"])
def test_a_row_that_cannot_be_hashed_matches_no_stored_hash_not_even_an_empty_one(
    column: int, stored: str | None
) -> None:
    """A row no hash can be made of (a time or kind as bytes: written behind the triggers
    into a table rebuilt without STRICT) is altered whatever hash it stores: an empty one,
    with the next row chained from it, once walked as intact."""
    rows = chain_of(4)
    changed = list(rows[2])
    changed[column] = str(changed[column]).encode()
    changed[6] = stored
    after = rehashed(rows[3], prev="" if stored is None else stored)
    chain = walk([*rows[:2], tuple(changed), after], 0, GENESIS_HASH)  # type: ignore[list-item]
    assert chain.failure is not None
    assert (chain.failure.message, chain.failure.first_bad_row, chain.rows) == (
        "altered: row 3: content does not match its hash",
        3,
        2,
    )


@pytest.mark.parametrize(
    "data", ['{"n":', "", '{"n":3', "nul"], ids=["cut", "empty", "unclosed", "no-value"]
)
def test_data_that_is_no_json_at_all_is_named_so(data: str) -> None:
    """Data that does not parse (cut short, empty) is a row altered, in one line."""
    rows = chain_of(4)
    chain = walk([*rows[:2], rehashed(rows[2], data_text=data), *rows[3:]], 0, GENESIS_HASH)  # type: ignore[list-item]
    assert chain.failure is not None
    assert (chain.failure.message, chain.failure.first_bad_row) == (
        "altered: row 3: data is not a JSON object",
        3,
    )


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
def test_data_holding_a_number_json_has_not_is_not_the_stations(number: str) -> None:
    """Python's JSON reads NaN and the infinities, which canonical JSON (and so the station)
    never writes: such a row was not written by the station."""
    rows = chain_of(4)
    forged = rehashed(rows[2], data_text=f'{{"n":{number}}}')
    chain = walk([*rows[:2], forged, *rows[3:]], 0, GENESIS_HASH)  # type: ignore[list-item]
    assert chain.failure is not None
    assert (chain.failure.message, chain.failure.first_bad_row) == (
        "altered: row 3: not written by the station (not canonical)",
        3,
    )


def test_a_walk_of_no_rows_ends_where_it_began() -> None:
    """A range with no rows (verify of a journal with nothing after its proof): the chain
    ends at its start, on the hash it began with, with the seals it was given."""
    chain = walk([], 4, "ab" * 32, seals=2, sealed_through=3)
    assert chain.failure is None
    assert (chain.start, chain.rows, chain.last_id) == (4, 0, 4)
    assert (chain.first_prev, chain.last_hash) == ("ab" * 32, "ab" * 32)
    assert (chain.seals, chain.sealed_through, chain.sealed_hash) == (2, 3, "")


#: The sealed journal below, row by row: its first row sealed at once, a wager spot's
#: report (format 2 indexes it by seat and spot), two events, an event and a checkpoint
#: (sealed with the checkpoint key: a MAC) after the last seal.
SEALED_KINDS = [
    "station_started",
    "seal",
    "event",
    "seal",
    "event",
    "event",
    "seal",
    "event",
    "verified",
]


@pytest.fixture(params=[1, 2], ids=["format-1", "format-2"])
def sealed(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, VerificationKey]:
    state, key = new_sealing("T1")
    save_state(tmp_path / "sealing-key", state)
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, sealing=tmp_path / "sealing-key", storage_format=request.param) as j:
        j.append("station_started", {})
        j.append("event", {"seat": 1, "spot": "main", "cents": 500})
        j.seal()
        j.append("event", {"n": 1})
        j.append("event", {"n": 2})
        j.seal()
        j.append("event", {"n": 3})
        j.checkpoint()
    return path, key


def _walk_file(
    path: Path, start: int, key: VerificationKey | None, until: int | None = None, **more: int
) -> walk_module.Chain:
    conn = sqlite3.connect(path)
    try:
        prev = GENESIS_HASH if start == 0 else storage_of(conn).hash_of(start)
        assert prev is not None
        rows = raw_rows(conn, start, until)
        return walk(rows, start, prev, key, index=index_of(conn, start, until), **more)
    finally:
        conn.close()


def test_each_seal_is_checked_at_its_epoch_and_the_last_one_kept(
    sealed: tuple[Path, VerificationKey],
) -> None:
    """docs/journal.md, "Sealing": the whole sealed journal walks with its key (format 2's
    index entries, the wager spot's included, each matching its row); the chain ends
    sealed through the last seal (row 7), three seals in all, one sealed checkpoint."""
    path, key = sealed
    conn = sqlite3.connect(path)
    try:
        assert [row[2] for row in raw_rows(conn, 0)] == SEALED_KINDS
        seventh = storage_of(conn).hash_of(7)
    finally:
        conn.close()
    chain = _walk_file(path, 0, key)
    assert chain.failure is None
    assert (chain.rows, chain.seals, chain.sealed_through, chain.sealed_hash) == (9, 3, 7, seventh)
    assert chain.checkpoints == 1


def test_a_seal_that_does_not_check_out_names_the_rows_it_seals(
    sealed: tuple[Path, VerificationKey],
) -> None:
    """With another table's key the first seal (row 2, over row 1) fails; begun after row 4
    (two seals before it, the last at row 4), the walk checks the next seal at epoch 2,
    and told one seal too few it names that seal's rows from the row after the last seal
    it was given."""
    path, _ = sealed
    other = new_sealing("T1")[1]
    chain = _walk_file(path, 0, other)
    assert chain.failure is not None and chain.failure.case is VerifyCase.SEAL
    assert chain.failure.first_bad_row == 2
    assert chain.failure.message.startswith("seal: row 2: ")
    assert chain.failure.message.endswith(" (it seals rows 1..1)")
    key = sealed[1]
    later = _walk_file(path, 4, key, seals=2, sealed_through=4)
    assert later.failure is None
    assert (later.start, later.rows, later.seals, later.sealed_through) == (4, 5, 3, 7)
    short = _walk_file(path, 4, key, seals=1, sealed_through=2)
    assert short.failure is not None and short.failure.case is VerifyCase.SEAL
    assert short.failure.first_bad_row == 7
    assert short.failure.message.endswith(" (it seals rows 3..6)")


def test_a_range_without_a_seal_keeps_the_seals_it_was_given(
    sealed: tuple[Path, VerificationKey],
) -> None:
    """Rows 5 and 6 (after the seal at row 4, before the one at row 7): the walk ends with
    the two seals before it, the last at row 4, whose hash it never met."""
    path, key = sealed
    chain = _walk_file(path, 4, key, until=6, seals=2, sealed_through=4)
    assert chain.failure is None
    assert (chain.start, chain.rows, chain.last_id) == (4, 2, 6)
    assert (chain.seals, chain.sealed_through, chain.sealed_hash) == (2, 4, "")


@pytest.mark.parametrize(
    ("added", "bad", "walked"),
    [
        ("INSERT INTO journal_spot (id, seat, spot) VALUES (1, 1, 'main')", 1, None),
        ("INSERT INTO journal_milestone (id, kind, round) VALUES (2, 1, NULL)", 2, 1),
        ("INSERT INTO journal_milestone (id, kind, round) VALUES (3, 1, NULL)", 3, None),
        ("INSERT INTO journal_milestone (id, kind, round) VALUES (9, 1, NULL)", 9, 3),
    ],
    ids=["second-entry-after-its-own", "entry-of-a-row-without", "second-entry", "after-the-rows"],
)
def test_an_index_entry_added_for_no_row_of_its_own_is_that_row_altered(
    tmp_path: Path, added: str, bad: int, walked: int | None
) -> None:
    """docs/journal.md, "Storage format 2": an index entry added behind the triggers names
    a row altered: a wager spot's entry for row 1 beside its own milestone entry (the
    station's start), a milestone entry for row 2 (an event with no seat: no entry of its
    own), a milestone entry for row 3 beside its own spot entry, one past the last row
    (row 9). Where the entry is found at its row, the rows walked are those before it (a
    second entry of a row is found when its row or the next one is walked)."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, storage_format=2) as journal:
        journal.append("station_started", {})
        journal.append("event", {"n": 2})
        journal.append("event", {"seat": 1, "spot": "main", "cents": 500})
    behind_the_triggers(path, lambda conn: _run(conn, added))
    chain = _walk_file(path, 0, None)
    assert chain.failure is not None
    assert (chain.failure.case, chain.failure.first_bad_row) == (VerifyCase.ALTERED, bad)
    assert walked is None or chain.failure.rows == walked
    assert chain.failure.message == (
        f"altered: row {bad}: its entry in the index tables does not match the row"
        " (added, removed or changed)"
    )


def test_the_walk_expects_an_entry_for_each_kind_the_file_indexes(tmp_path: Path) -> None:
    """docs/journal.md, "Milestone kinds declared later": a format-2 file's ``journal_kind``
    lists the kinds it indexes, this program's or not (here ``card``): the walk expects the
    file's entries, and one missing for such a row is that row altered."""
    path = tmp_path / "journal.sqlite3"
    card_indexed_by_a_later_program(path)
    chain = _walk_file(path, 0, None)
    assert chain.failure is None and chain.rows == 2
    behind_the_triggers(path, lambda conn: _run(conn, "DELETE FROM journal_milestone WHERE id = 2"))
    chain = _walk_file(path, 0, None)
    assert chain.failure is not None
    assert (chain.failure.case, chain.failure.first_bad_row) == (VerifyCase.ALTERED, 2)
