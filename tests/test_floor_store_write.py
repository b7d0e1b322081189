"""What ``floor.store.write`` sends to the database for one transaction, without a database:
a connection that records each statement with its parameters and each ``COPY``'s rows.

The statements themselves run on a real PostgreSQL in ``tests/test_floor_ingest.py``,
``test_floor_compact_rows.py`` and ``test_floor_forgery.py``; here is what goes into them
(a pit supervisor's and a regulator's view: rows merged only as a chain from the table's
anchor, rows held as evidence kept as they came, refusals and alerts recorded, each ending
round's result, the limits a start posts, the table's line, and the console told).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from test_floor_branches import _row

from controller.journal.format import GENESIS_HASH, Row
from controller.journal.wire import Ack
from floor import store
from floor.branches import SealedChain
from floor.screen import Refused
from floor.store import Applied, TableState, write


class Recorder:
    """Stands in for the connection: ``sent`` holds ``(statement, parameters)`` in order
    (``COPY``: the rows written; ``executemany``: the list of parameters)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    @contextmanager
    def cursor(self) -> Iterator[Recorder]:
        yield self

    def execute(self, sql: str, params: Any = None) -> None:
        self.sent.append((sql, params))

    def executemany(self, sql: str, params: Any) -> None:
        self.sent.append((sql, list(params)))

    @contextmanager
    def copy(self, sql: str) -> Iterator[_Copy]:
        copy = _Copy()
        yield copy
        self.sent.append((sql, copy.rows))

    def params(self, sql: str) -> list[Any]:
        """The parameters of every ``sql`` sent, in order."""
        return [params for sent, params in self.sent if sent == sql]


class _Copy:
    def __init__(self) -> None:
        self.rows: list[tuple[Any, ...]] = []

    def write_row(self, row: tuple[Any, ...]) -> None:
        self.rows.append(row)


HASH = "ab" * 32


def _state(table: str, **changes: Any) -> TableState:
    state = TableState(
        table, 0, GENESIS_HASH, None, None, None, None, 0, 0, None, None, None, None,
        start_hash=GENESIS_HASH,
    )  # fmt: skip
    for name, value in changes.items():
        setattr(state, name, value)
    return state


def _chain(count: int, after: Row | None = None) -> list[Row]:
    rows: list[Row] = []
    for _ in range(count):
        rows.append(_row(rows[-1] if rows else after, "device", {"n": len(rows)}, None))
    return rows


def _sealed(table: str, new_pending: list[Row], resolved: set[tuple[int, str]]) -> SealedChain:
    return SealedChain(
        table, 0, GENESIS_HASH, 1, {}, lambda *_: None, lambda *_: {}, lambda *_: False,
        new_pending=new_pending, resolved=resolved,
    )  # fmt: skip


def _write(*states: TableState) -> tuple[Recorder, Applied]:
    conn, done = Recorder(), Applied()
    write(conn, states, done)  # type: ignore[arg-type]
    return conn, done


def test_rows_are_merged_as_each_tables_chain_from_its_anchor() -> None:
    """Each merged row is stored with its link left out (it is the row before's hash, the
    first row's the table's anchor), two tables' rows each from their own anchor."""
    first = _chain(3)
    anchor = first[0]
    second = _chain(2, after=anchor)
    conn, done = _write(
        _state("T1", new_rows=first),
        _state("T2", anchor_row=1, anchor_hash=anchor.hash, start_hash=anchor.hash,
               new_rows=second),
    )  # fmt: skip
    (copied,) = conn.params(store._COPY_ENTRIES_SQL)
    assert [(c[0], c[1], c[6], c[9]) for c in copied] == [
        ("T1", 1, bytes.fromhex(first[0].hash), None),
        ("T1", 2, bytes.fromhex(first[1].hash), None),
        ("T1", 3, bytes.fromhex(first[2].hash), None),
        ("T2", 2, bytes.fromhex(second[0].hash), None),
        ("T2", 3, bytes.fromhex(second[1].hash), None),
    ]
    assert done.stored == 5


def test_nothing_merged_stores_nothing_and_counts_none() -> None:
    conn, done = _write(_state("T1"))
    assert conn.params(store._COPY_ENTRIES_SQL) == [[]]
    assert done.stored == 0 and done.acks == {}


def test_alerts_are_raised_and_cleared_in_the_order_decided() -> None:
    conn, _ = _write(
        _state("T1", alert_changes=[("clock", "the station's clock is 3 min ahead"),
                                    ("fork", None)]),
        _state("T2", alert_changes=[("clock", None)]),
    )  # fmt: skip
    alerts = [(sql, p) for sql, p in conn.sent if sql in (store._ALERT_SQL, store._CLEAR_SQL)]
    assert alerts == [
        (store._ALERT_SQL, ("T1", "clock", "the station's clock is 3 min ahead")),
        (store._CLEAR_SQL, ("T1", "fork")),
        (store._CLEAR_SQL, ("T2", "clock")),
    ]


def test_rows_after_the_last_seal_wait_and_those_a_seal_settled_are_let_go() -> None:
    waiting = _chain(2)
    conn, _ = _write(
        _state("T1", chain=_sealed("T1", waiting, {(7, HASH)})),
        _state("T2", chain=_sealed("T2", [], set())),
        _state("T3"),
    )
    (pending,) = conn.params(store._COPY_PENDING_SQL)
    assert pending == [
        ("T1", r.id, r.ts, r.kind, r.round_no, r.data_text, r.prev_hash, r.hash) for r in waiting
    ]
    # Only a table with rows a seal settled deletes any.
    assert conn.params(store._RESOLVED_SQL) == [("T1", [7], [HASH])]


def test_rows_held_as_evidence_are_kept_as_they_came() -> None:
    forged = Row(4, "not a time", "forged", 2, "{not json", "xyz", "not a hash")
    conn, done = _write(_state("T1", quarantine=[forged]), _state("T2"))
    quarantined = store._INSERT_SQL.format(into="quarantine_row")
    assert conn.params(quarantined) == [
        [("T1", 4, "not a time", "forged", 2, "{not json", "xyz", "not a hash")]
    ]  # T2 held nothing: no statement for it
    assert done.stored == 0  # evidence is not merged


def test_each_refused_message_is_recorded_with_what_identifies_it() -> None:
    refused = [
        Refused("T1", "floor/T1/rows", "not JSON", 12, "d1" * 32, b"{not json"),
        Refused("T1", "floor/T1/rows", "too large", 70_000, "d2" * 32, None),
    ]
    conn, _ = _write(_state("T1", refused=refused))
    assert conn.params(store._REFUSED_SQL) == [
        ("T1", "floor/T1/rows", "not JSON", 12, "d1" * 32, b"{not json"),
        ("T1", "floor/T1/rows", "too large", 70_000, "d2" * 32, None),
    ]


def test_each_ending_round_gets_its_result_completed_or_voided() -> None:
    start = _row(None, "station_started", {"table_id": "T1"}, None)
    done_round = _row(start, "round_completed", {}, 1)
    settled = _row(done_round, "settlement", {"net_cents": 500, "seat": 1}, 2)
    voided = _row(settled, "round_voided", {}, 2)
    conn, _ = _write(_state("T1", new_rows=[start, done_round, settled, voided]))
    assert conn.params(store._ROUND_SQL) == [
        ("T1", 1, done_round.ts, "completed", "T1", 1),
        ("T1", 2, voided.ts, "voided", "T1", 2),
    ]


def test_the_limits_posted_are_the_last_starts_of_the_transaction() -> None:
    """NY 5324.12(d)(2): the table's posted limits are those of its latest start."""
    limits = {
        "main_min_cents": 1000,
        "main_max_cents": 500_000,
        "match_min_cents": 500,
        "match_max_cents": 10_000,
    }
    first = _row(None, "station_started", {"table_id": "T1", "limits": limits}, None)
    raised = {**limits, "main_min_cents": 2500}
    again = _row(first, "station_started", {"table_id": "T1", "limits": raised}, None)
    conn, _ = _write(_state("T1", new_rows=[first, again]), _state("T2", new_rows=_chain(1)))
    assert conn.params(store._LIMITS_SQL) == [
        ('{"main_min_cents": 2500, "main_max_cents": 500000, "match_min_cents": 500,'
         ' "match_max_cents": 10000}', "T1"),
    ]  # fmt: skip


def test_each_tables_line_is_written_its_ack_queued_and_the_console_told_last() -> None:
    ack = Ack(row=3, hash=HASH)
    one = _state("T1", anchor_row=3, anchor_hash=HASH, ack=ack)
    two = _state("T2")
    conn, done = _write(one, two)
    assert conn.params(store._LINE_SQL) == [store.line(one), store.line(two)]
    assert conn.params(store._LINE_SQL)[0][:2] == (3, HASH)
    assert done.acks == {"T1": ack}  # T2 has nothing to acknowledge
    assert conn.sent[-1] == (store._NOTIFY_SQL, None)
