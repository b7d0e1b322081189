"""The collector's verdicts on a table's messages (``floor.ingest.Verdicts``), without a
database: what is merged, what is quarantined as evidence, what the station is answered,
which alert is raised or cleared, and what the table's line keeps of a status. The module
docstring of ``floor.ingest`` and docs/floor.md ("Anchors", "What one station cannot do")
state the rules; every expected value below is worked out by hand from them.

``tests/test_floor_ingest.py`` and ``test_floor_forgery.py`` run the same rules on a real
PostgreSQL (the SQL of ``floor.store``); these pin each verdict, one mutant-fast test each.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_floor_branches import TABLE, _row, journal
from test_floor_branches_verdicts import _rehash as rehash

from controller.journal.format import GENESIS_HASH, Row, canonical_json
from controller.journal.seal import check_row_hash, new_sealing
from controller.journal.wire import Ack, Status
from floor.branches import SealedChain
from floor.ingest import ANCHORS_KEPT, Applied, Verdicts, table_states
from floor.screen import Refused, Rows, StatusReport, row_problem
from floor.seals import TableSeals
from floor.store import TableState

#: 2026-12-01T05:00:00Z, the collector's clock when a status arrives.
NOON = datetime(2026, 12, 1, 5, 0, tzinfo=UTC).timestamp()
#: The ``floor_table`` columns a transaction reads and writes back.
LINE = (
    "anchor_row", "anchor_hash", "anchor_ts", "quarantined", "status_ts", "status",
    "seal_epoch", "sealed_row", "sealed_hash", "status_arrived", "station_anchors",
    "clock_skew",
)  # fmt: skip


def chain(length: int, table: str = TABLE) -> list[Row]:
    """A keyless station's journal: a start naming ``table``, then rounds of a settlement."""
    rows = [_row(None, "station_started", {"table_id": table}, None)]
    while len(rows) < length:
        number = len(rows)
        rows.append(_row(rows[-1], "settlement", {"net_cents": -100 * number}, number))
    return rows[:length]


def status(
    ts: str = "2026-12-01T05:00:00.000000Z",
    *,
    head: tuple[int, str] = (100, "ab" * 32),
    fault: dict[str, str] | None = None,
    anchor: tuple[int, int, str] | None = None,
) -> Status:
    """A station's status at its time ``ts``."""
    return Status(TABLE, ts, "betting", 7, fault, {"shoe": "connected"}, head, 3, anchor)


@dataclass
class Floor:
    """One table's floor between transactions, as the database would keep it: its line of
    ``floor_table``, the rows merged, the evidence and the open alerts (kind -> text)."""

    line: dict[str, Any] = field(
        default_factory=lambda: dict.fromkeys(LINE) | {
            "anchor_row": 0, "anchor_hash": GENESIS_HASH, "seal_epoch": 0, "sealed_row": 0
        }
    )  # fmt: skip
    merged: list[Row] = field(default_factory=list)
    quarantine: list[Row] = field(default_factory=list)
    alerts: dict[str, str] = field(default_factory=dict)
    #: Every stored-hash lookup the verdicts made: (first, last).
    lookups: list[tuple[int, int]] = field(default_factory=list)

    def stored(self, table: str, first: int, last: int) -> dict[int, str]:
        assert table == TABLE
        self.lookups.append((first, last))
        return {r.id: r.hash for r in self.merged if first <= r.id <= last}

    def apply(
        self, messages: list[Any], tolerance: float = 120.0, chain: SealedChain | None = None
    ) -> tuple[Applied, TableState]:
        """One transaction: the verdicts on ``messages`` (a list of rows is a rows message),
        then what ``floor.store.write`` would store."""
        state = TableState(TABLE, **self.line)
        state.start_hash = state.anchor_hash
        state.chain = chain
        verdicts = Verdicts(self.stored, clock_tolerance=tolerance)
        done = Applied()
        for message in messages:
            verdicts.take(
                state, Rows(TABLE, message) if isinstance(message, list) else message, done
            )
        verdicts.settle(state, done)
        before = state.start_hash
        for row in state.new_rows:  # merged rows always continue the floor's chain
            assert row.prev_hash == before and row.id == len(self.merged) + 1
            self.merged.append(row)
            before = row.hash
        self.quarantine += state.quarantine
        for kind, text in state.alert_changes:
            if text is None:
                self.alerts.pop(kind, None)
            else:
                self.alerts.setdefault(kind, text)
        self.line = {name: getattr(state, name) for name in LINE}
        return done, state


def held(rows: list[Row]) -> Floor:
    """A floor that holds ``rows`` (merged in one transaction)."""
    floor = Floor()
    done, _ = floor.apply([rows])
    assert done.alerts == [] and floor.merged == rows
    return floor


# --- rows merged, copies, gaps ----------------------------------------------------------------


def test_rows_after_the_anchor_are_merged_and_acknowledged_to_the_last() -> None:
    rows = chain(4)
    floor = Floor()
    done, state = floor.apply([rows[:2], rows[2:]])
    assert state.new_rows == rows and floor.quarantine == []
    assert state.ack == Ack(4, rows[3].hash, rewind=False)
    assert (state.anchor_row, state.anchor_hash, state.anchor_ts) == (4, rows[3].hash, rows[3].ts)
    assert done.alerts == [] and state.alert_changes == [] and state.quarantined is None


def test_a_copy_sent_again_is_ignored_and_acknowledged_at_its_own_last_row() -> None:
    # The station lost an ack and sends rows 2-3 again: the floor holds them already.
    rows = chain(5)
    floor = held(rows)
    done, state = floor.apply([rows[1:3]])
    assert state.new_rows == [] and state.quarantine == [] and done.alerts == []
    assert state.ack == Ack(3, rows[2].hash)  # a row the station certainly has
    assert floor.lookups[-1] == (2, 3)  # the stored hashes of the copy's rows
    assert state.anchor_row == 5


def test_a_copy_reaching_past_the_anchor_merges_the_new_rows_only() -> None:
    rows = chain(6)
    floor = held(rows[:4])
    done, state = floor.apply([rows[2:6]])
    assert state.new_rows == rows[4:6] and done.alerts == []
    assert state.ack == Ack(6, rows[5].hash)
    assert floor.merged == rows


def test_rows_merged_earlier_in_the_same_transaction_count_as_held() -> None:
    # Two messages in one transaction, the second a resend of the first: the database does
    # not hold the first's rows yet, the transaction does.
    rows = chain(5)
    floor = Floor()
    done, state = floor.apply([rows[:3], rows[:5]])
    assert done.alerts == [] and state.new_rows == rows
    assert state.ack == Ack(5, rows[4].hash)


def test_a_row_held_neither_stored_nor_merged_in_the_transaction_is_a_fork() -> None:
    # The line says row 3 is held but nothing holds it (the rows were lost): a row 2 sent
    # again cannot be shown to be the floor's.
    rows = chain(3)
    floor = Floor()
    floor.line |= {"anchor_row": 3, "anchor_hash": rows[2].hash}
    done, _ = floor.apply([rows[1:2]])
    assert done.alerts == [(TABLE, "rollback", "forked: row 2 differs from the floor's")]


def test_a_gap_stores_nothing_and_asks_again_from_the_anchor() -> None:
    rows = chain(6)
    floor = held(rows[:2])
    done, state = floor.apply([rows[3:6]])  # row 3 is missing
    assert state.new_rows == [] and state.quarantine == [] and done.alerts == []
    assert state.ack == Ack(2, rows[1].hash, rewind=True)
    # The resend from the anchor completes the copy.
    done, state = floor.apply([rows[2:6]])
    assert floor.merged == rows and state.ack == Ack(6, rows[5].hash)


def test_a_gap_inside_a_message_keeps_the_rows_before_it_and_rewinds_there() -> None:
    rows = chain(6)
    floor = Floor()
    done, state = floor.apply([[*rows[:3], *rows[4:]]])
    assert state.new_rows == rows[:3] and done.alerts == []
    assert state.ack == Ack(3, rows[2].hash, rewind=True)


def test_an_empty_rows_message_answers_nothing() -> None:
    floor = held(chain(2))
    done, state = floor.apply([[]])
    assert state.ack is None and done.acks == {} and done.alerts == []


# --- forks, broken chains, rows the floor cannot take ---------------------------------------


def test_a_held_row_sent_again_with_other_contents_is_a_fork_and_quarantines() -> None:
    rows = chain(4)
    floor = held(rows)
    other = rehash(rows[2], rows[1], data_text=canonical_json({"net_cents": 500_000}))
    after = rehash(rows[3], other)
    fifth = _row(after, "device", {"n": 5}, None)
    done, state = floor.apply([[rows[1], other, after, fifth]])
    text = "forked: row 3 differs from the floor's"
    assert done.alerts == [(TABLE, "rollback", text)]
    assert state.alert_changes == [("rollback", text)]
    assert state.quarantined == text
    assert state.quarantine == [other, after, fifth]  # from the row that differs on
    assert state.new_rows == [] and state.anchor_row == 4
    assert state.ack == Ack(5, fifth.hash)  # acknowledged: the station keeps shipping


def test_a_row_not_following_the_anchor_is_a_fork() -> None:
    rows = chain(3)
    floor = held(rows[:2])
    stray = rehash(rows[2], rows[0])  # row 3 chained after row 1
    done, state = floor.apply([[stray]])
    text = "forked: row 3 does not follow the floor's row 2"
    assert done.alerts == [(TABLE, "rollback", text)] and state.quarantined == text
    assert state.quarantine == [stray] and state.new_rows == []
    assert state.ack == Ack(3, stray.hash)


def test_a_row_whose_hash_is_not_its_contents_breaks_the_chain() -> None:
    rows = chain(5)
    floor = held(rows[:2])
    broken = replace(rows[2], data_text=canonical_json({"net_cents": 1}))  # hash unchanged
    done, state = floor.apply([[broken, *rows[3:]]])
    text = "chain broken: row 3 does not match its hash"
    assert done.alerts == [(TABLE, "chain", text)] and state.quarantined == text
    assert state.quarantine == [broken, *rows[3:]]
    assert state.ack == Ack(5, rows[4].hash)


def test_a_well_chained_row_the_floor_cannot_take_quarantines_from_it() -> None:
    rows = chain(2)
    bad = _row(rows[1], "settlement", {"net_cents": 1.5}, 2)  # not whole cents
    tail = _row(bad, "device", {"n": 4}, None)
    floor = Floor()
    done, state = floor.apply([[*rows, bad, tail]])
    problem = row_problem(TABLE, bad)
    assert problem == ("malformed", "row 3: net_cents '1.5' is not whole cents")
    assert done.alerts == [(TABLE, *problem)] and state.quarantined == problem[1]
    assert state.new_rows == rows and state.quarantine == [bad, tail]
    assert state.ack == Ack(4, tail.hash)


def test_rows_of_another_table_are_refused() -> None:
    foreign = chain(2, table="T9")
    done, state = Floor().apply([foreign])
    text = "row 1: station_started names table 'T9', not T1"
    assert done.alerts == [(TABLE, "table", text)] and state.quarantine == foreign


def test_a_quarantined_table_keeps_its_rows_as_evidence_only() -> None:
    rows = chain(4)
    floor = held(rows[:2])
    floor.line["quarantined"] = "forked: row 2 differs from the floor's"
    done, state = floor.apply([rows[2:]])
    assert state.new_rows == [] and state.quarantine == rows[2:] and done.alerts == []
    assert state.ack == Ack(4, rows[3].hash)
    assert state.quarantined == "forked: row 2 differs from the floor's"  # the first reason
    done, state = floor.apply([[]])
    assert state.ack is None


def test_the_first_reason_for_a_quarantine_is_kept() -> None:
    rows = chain(3)
    floor = held(rows[:2])
    stray = rehash(rows[2], rows[0])
    refused = Refused(TABLE, "floor/T1/rows", "not in the wire format: x", 9, "d" * 64, b"x", True)
    done, state = floor.apply([[stray], refused])
    first = "forked: row 3 does not follow the floor's row 2"
    assert state.quarantined == first
    assert [kind for _, kind, _ in done.alerts] == ["rollback", "malformed"]


def test_a_seal_row_on_a_keyless_table_moves_its_sealed_head() -> None:
    sealing, _ = new_sealing(TABLE)
    # start, seal (epoch 0), round_started, settlement, round_completed, seal (epoch 1)
    rows = journal(sealing, 1)
    floor = Floor()
    _, state = floor.apply([rows[:3]])
    assert (state.seal_epoch, state.sealed_row, state.sealed_hash) == (1, 2, rows[1].hash)
    _, state = floor.apply([rows[3:]])
    assert (state.seal_epoch, state.sealed_row, state.sealed_hash) == (2, 6, rows[5].hash)


def test_a_seal_row_with_malformed_fields_moves_nothing() -> None:
    rows = chain(1)
    seal = _row(rows[0], "seal", {"table": TABLE, "epoch": "0"}, None)
    _, state = Floor().apply([[*rows, seal]])
    assert state.new_rows == [*rows, seal]
    assert (state.seal_epoch, state.sealed_row, state.sealed_hash) == (0, 0, None)


# --- refused messages ---------------------------------------------------------------------


def test_a_refused_message_raises_its_alert_and_poison_quarantines() -> None:
    oversize = Refused(TABLE, "floor/T1/rows", "9 bytes, over the limit of 8", 9, "ab", None)
    done, state = Floor().apply([oversize])
    assert done.alerts == [(TABLE, "oversize", "9 bytes, over the limit of 8")]
    assert state.quarantined is None and state.refused == [oversize]
    poison = Refused(TABLE, "floor/T1/rows", "row 3: text", 4, "cd", b"rows", poisoned=True)
    done, state = Floor().apply([poison])
    assert done.alerts == [(TABLE, "malformed", "row 3: text")]  # one alert, not two
    assert state.quarantined == "refused: row 3: text"


# --- statuses: order, rollback, faults ------------------------------------------------------


def test_statuses_are_kept_in_the_order_they_arrive() -> None:
    floor = Floor()
    first = status("2026-12-01T05:00:30.000000Z")
    _, state = floor.apply([StatusReport(first, NOON)])
    assert state.status_arrived == datetime.fromtimestamp(NOON, UTC)
    assert state.status is not None and state.status["station_ts"] == first.ts
    # A station clock stepped back: the later status is still taken.
    later = status("2026-12-01T04:59:00.000000Z")
    _, state = floor.apply([StatusReport(later, NOON + 1)])
    assert state.status is not None and state.status["station_ts"] == later.ts
    # One that arrived no later than the one kept (another collector's) changes nothing.
    for arrived in (NOON + 1, NOON + 0.5):
        done, state = floor.apply(
            [StatusReport(status(fault={"code": "E1", "state": "x"}), arrived)]
        )
        assert state.status is not None and state.status["station_ts"] == later.ts
        assert state.status_arrived == datetime.fromtimestamp(NOON + 1, UTC)
        assert done.alerts == [] and state.alert_changes == []


def test_a_status_keeps_every_field_the_console_shows() -> None:
    report = status("2026-12-01T05:00:10.000000Z", head=(4, "ab" * 32), fault=None)
    _, state = Floor().apply([StatusReport(report, NOON)])
    assert state.status == {
        "state": "betting",
        "round": 7,
        "fault": None,
        "devices": {"shoe": "connected"},
        "head": [4, "ab" * 32],
        "acked": 3,
        "ts": "2026-12-01T05:00:10.000000Z",
        "station_ts": "2026-12-01T05:00:10.000000Z",
    }
    assert state.status_ts == "2026-12-01T05:00:10.000000Z"
    assert state.clock_skew == 10.0


def test_a_status_without_an_arrival_time_arrives_now() -> None:
    before = datetime.now(UTC)
    _, state = Floor().apply([status(datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"))])
    assert state.status_arrived is not None and before <= state.status_arrived
    assert state.status_arrived <= datetime.now(UTC)


def _rolled_back(head: tuple[int, str], ts: str, **line: Any) -> tuple[Applied, TableState]:
    rows = chain(5)  # row 5 at 04:00:05
    floor = held(rows)
    floor.line |= line
    arrived = datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()
    return floor.apply([StatusReport(status(ts, head=head), arrived)])  # no clock skew


def test_a_station_behind_the_floor_after_its_anchor_was_written_rolled_back() -> None:
    rows = chain(5)
    after = "2026-12-01T04:00:11.000000Z"  # 6 s after row 5: past the 5 s commit window
    done, state = _rolled_back((3, rows[2].hash), after)
    text = "rolled back or truncated: the station's last row is 3, the floor holds 5"
    assert done.alerts == [(TABLE, "rollback", text)] and state.quarantined == text
    done, state = _rolled_back((3, "ee" * 32), after)
    text = "forked: the station's last row is 3, the floor holds 5"
    assert done.alerts == [(TABLE, "rollback", text)] and state.quarantined == text
    # a journal emptied: its head is the genesis
    done, _ = _rolled_back((0, GENESIS_HASH), after)
    assert done.alerts[0][2].startswith("rolled back or truncated: the station's last row is 0")


def test_a_status_sent_before_the_anchor_was_written_is_no_rollback() -> None:
    rows = chain(5)
    for ts in (rows[4].ts, "2026-12-01T04:00:04.000000Z"):  # at the anchor's time, before
        done, state = _rolled_back((3, rows[2].hash), ts)
        assert done.alerts == [] and state.quarantined is None
    # its head at the anchor, past it, or a table quarantined already: nothing to say
    later = "2026-12-01T04:00:11.000000Z"
    for head in ((5, rows[4].hash), (6, "ee" * 32)):
        done, _ = _rolled_back(head, later)
        assert done.alerts == []
    done, _ = _rolled_back((3, rows[2].hash), later, quarantined="earlier")
    assert done.alerts == []
    done, _ = _rolled_back((3, rows[2].hash), later, anchor_ts=None)
    assert done.alerts == []


def burst() -> list[Row]:
    """A station's journal whose rows 21-35 are one event's batch, stamped from
    04:00:20.100 to 04:00:20.240 (10 ms apart) and committed together; rows 1-20 as
    ``chain``'s (row 20 at 04:00:20)."""
    rows = chain(35)
    for n in range(20, 35):
        rows[n] = rehash(rows[n], rows[n - 1], ts=f"2026-12-01T04:00:20.{100 + 10 * (n - 20)}000Z")
    assert rows[34].ts == "2026-12-01T04:00:20.240000Z"
    return rows


def _at(ts: str) -> float:
    """The collector's clock when a status of the station's time ``ts`` arrives (no skew)."""
    return datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()


def test_a_status_read_while_rows_stamped_before_it_were_committing_is_no_rollback() -> None:
    """Two collectors share the stations. The station read its time, 04:00:21, then its
    journal, while the rows of an event stamped at 04:00:20.1-20.2 were still being
    committed (an SD card's fsync stalling 0.9 s): its status says head 20. Collector A
    merges rows 21-35 and then collector B takes that status: its head is behind the
    floor's row 35 and its time after row 35's, by 0.76 s, within the commit window
    (5 s): a healthy table, no alert, in whichever order the messages are taken."""
    rows = burst()
    status_20 = status("2026-12-01T04:00:21.000000Z", head=(20, rows[19].hash))
    report = StatusReport(status_20, _at(status_20.ts))
    orders: list[list[list[Any]]] = [
        [[rows[20:]], [report]],  # A merges the rows, then B takes the status
        [[rows[20:], report]],  # one collector takes both, in one transaction
        [[report], [rows[20:]]],  # the status first (its head was then the floor's)
    ]
    for order in orders:
        floor = held(rows[:20])
        for messages in order:
            done, state = floor.apply(messages)
            assert done.alerts == [] and state.quarantined is None
        assert [r.id for r in floor.merged] == list(range(1, 36))
        assert floor.line["anchor_row"] == 35 and floor.line["anchor_ts"] == rows[34].ts
        assert floor.line["status"]["head"] == [20, rows[19].hash]  # kept, as sent


def test_a_status_past_the_commit_window_behind_the_floor_is_a_rollback() -> None:
    """The floor's row 35 is at 04:00:20.240. A status 5 s after it may still lack it (a
    commit that slow is possible); one 5 s and 1 us after it cannot, unless the journal
    lost it: rolled back (its head row is the floor's) or forked (it is not)."""
    rows = burst()
    for ts in ("2026-12-01T04:00:25.240000Z", "2026-12-01T04:00:21.000000Z", rows[34].ts):
        floor = held(rows)
        done, state = floor.apply([StatusReport(status(ts, head=(20, rows[19].hash)), _at(ts))])
        assert done.alerts == [] and state.quarantined is None, ts
    past = "2026-12-01T04:00:25.240001Z"
    behind = (((20, rows[19].hash), "rolled back or truncated"), ((20, "ee" * 32), "forked"))
    for head, what in behind:
        floor = held(rows)
        done, state = floor.apply([StatusReport(status(past, head=head), _at(past))])
        text = f"{what}: the station's last row is 20, the floor holds 35"
        assert done.alerts == [(TABLE, "rollback", text)] and state.quarantined == text


def test_a_head_merged_earlier_in_the_same_transaction_is_rolled_back_not_forked() -> None:
    """A collector that fell behind takes a station's rows 4-8 and its later status in one
    transaction. The status (04:00:14, 6 s after row 8's 04:00:08: past the window) says
    head 5: the station lost rows 6-8 (docs/floor.md: "rolled back or truncated", the same
    hash at the head), though row 5 reached the floor's database only with this
    transaction; a head of another hash there is forked."""
    rows = chain(8)  # row n at 04:00:0n
    past = "2026-12-01T04:00:14.000000Z"
    for head, what in (((5, rows[4].hash), "rolled back or truncated"), ((5, "ee" * 32), "forked")):
        floor = held(rows[:3])
        report = StatusReport(status(past, head=head), _at(past))
        done, state = floor.apply([rows[3:], report])
        text = f"{what}: the station's last row is 5, the floor holds 8"
        assert done.alerts == [(TABLE, "rollback", text)] and state.quarantined == text
        assert [r.id for r in floor.merged] == list(range(1, 9))  # the rows were sound


def test_a_real_rollback_is_raised_by_the_next_status() -> None:
    """The race's status was no alarm; a station that really lost rows 21-35 says head 20
    again in its next status, a status interval (5 s) later, which is past the window."""
    rows = burst()
    first = status("2026-12-01T04:00:21.000000Z", head=(20, rows[19].hash))
    for head in (35, 20):  # a healthy station's next status holds the rows; a rolled back one's
        floor = held(rows)
        done, _ = floor.apply([StatusReport(first, _at(first.ts))])
        assert done.alerts == []
        after = status("2026-12-01T04:00:26.000000Z", head=(head, rows[head - 1].hash))
        done, state = floor.apply([StatusReport(after, _at(after.ts))])
        if head == 35:
            assert done.alerts == [] and state.quarantined is None
        else:
            text = "rolled back or truncated: the station's last row is 20, the floor holds 35"
            assert done.alerts == [(TABLE, "rollback", text)] and state.quarantined == text


def test_a_status_time_that_cannot_be_read_is_no_rollback_evidence() -> None:
    """It says nothing of when its head was read (the clock alert says it is unreadable)."""
    rows = chain(5)
    floor = held(rows)
    done, state = floor.apply([StatusReport(status("soon", head=(3, rows[2].hash)), NOON)])
    assert [kind for _, kind, _ in done.alerts] == ["clock"] and state.quarantined is None


def test_a_fault_is_raised_with_the_status_and_cleared_with_it() -> None:
    floor = Floor()
    fault = {"code": "SHOE_LOST", "state": "dealing"}
    done, state = floor.apply([StatusReport(status(fault=fault), NOON)])
    assert done.alerts == [(TABLE, "fault", "fault SHOE_LOST in dealing")]
    assert state.alert_changes[:2] == [("fault", None), ("fault", "fault SHOE_LOST in dealing")]
    # the same fault again: nothing raised or cleared
    done, state = floor.apply([StatusReport(status(fault=fault), NOON + 1)])
    assert done.alerts == [] and ("fault", None) not in state.alert_changes
    # another fault: the old one cleared, the new one raised
    other = {"code": "READER", "state": "betting"}
    done, state = floor.apply([StatusReport(status(fault=other), NOON + 2)])
    assert done.alerts == [(TABLE, "fault", "fault READER in betting")]
    assert state.alert_changes[:2] == [("fault", None), ("fault", "fault READER in betting")]
    # play goes on: cleared, nothing raised
    done, state = floor.apply([StatusReport(status(), NOON + 3)])
    assert done.alerts == [] and state.alert_changes[:1] == [("fault", None)]
    assert "fault" not in floor.alerts


# --- the station's clock ----------------------------------------------------------------------


def _clock(ts: str, floor: Floor | None = None) -> tuple[Applied, TableState]:
    floor = floor or Floor()
    floor.line["status_arrived"] = None  # each status the latest to arrive
    return floor.apply([StatusReport(status(ts), NOON)], tolerance=120.0)


def test_a_clock_within_the_tolerance_is_shown_as_the_station_says() -> None:
    for ts, skew in (
        ("2026-12-01T05:02:00.000000Z", 120.0),
        ("2026-12-01T04:58:00.000000Z", -120.0),
    ):
        done, state = _clock(ts)
        assert done.alerts == [] and state.clock_skew == skew
        assert state.status_ts == ts and state.status is not None and state.status["ts"] == ts


def test_a_clock_ahead_past_the_tolerance_is_alerted_and_shown_clamped() -> None:
    done, state = _clock("2026-12-01T05:02:00.500000Z")
    assert done.alerts == [(TABLE, "clock", "the station's clock is +120 s from the collector's")]
    assert state.status_ts == "2026-12-01T05:02:00.000000Z"  # the collector's + 120 s
    assert state.status is not None and state.status["station_ts"] == "2026-12-01T05:02:00.500000Z"
    assert state.clock_skew == 120.5


def test_a_clock_behind_past_the_tolerance_is_alerted_and_shown_as_it_is() -> None:
    done, state = _clock("2026-12-01T04:55:00.000000Z")
    assert done.alerts == [(TABLE, "clock", "the station's clock is -300 s from the collector's")]
    assert state.status_ts == "2026-12-01T04:55:00.000000Z"


def test_the_clock_alert_is_cleared_once_back_within_the_tolerance() -> None:
    floor = Floor()
    done, state = _clock("2026-12-01T05:10:00.000000Z", floor)
    assert "clock" in floor.alerts
    done, state = _clock("2026-12-01T05:00:01.000000Z", floor)
    assert done.alerts == [] and ("clock", None) in state.alert_changes
    assert "clock" not in floor.alerts
    # already within: nothing to clear again
    _, state = _clock("2026-12-01T05:00:02.000000Z", floor)
    assert state.alert_changes == []


def test_a_clock_at_the_tolerance_itself_opened_no_alert_so_the_next_clears_none() -> None:
    """A skew of exactly the tolerance is within it (docs/floor.md "What one station cannot
    do": a larger one raises ``clock``): no alert was opened, so the next status within the
    tolerance has nothing to clear."""
    floor = Floor()
    done, state = _clock("2026-12-01T05:02:00.000000Z", floor)  # +120 s: at the limit
    assert done.alerts == [] and state.clock_skew == 120.0 and "clock" not in floor.alerts
    _, state = _clock("2026-12-01T05:00:02.000000Z", floor)
    assert state.alert_changes == []


def test_the_first_status_clears_a_clock_alert_an_unreadable_time_left_open() -> None:
    floor = Floor()
    done, state = _clock("2026-02-30T05:00:00.000000Z", floor)  # no such day
    text = "the station's time '2026-02-30T05:00:00.000000Z' is unreadable"
    assert done.alerts == [(TABLE, "clock", text)] and state.clock_skew is None
    assert state.status_ts == "2026-12-01T05:00:00.000000Z"  # the collector's time
    done, state = _clock("not a time", floor)
    assert done.alerts == [(TABLE, "clock", "the station's time 'not a time' is unreadable")]
    # not as the journal writes it, though a date parser would read it
    for loose in ("2026-12-1T05:00:00.000000Z", "2026-12-01T05:00:00.0Z"):
        done, state = _clock(loose, floor)
        assert done.alerts == [(TABLE, "clock", f"the station's time {loose!r} is unreadable")]
    _, state = _clock("2026-12-01T05:00:00.000000Z", floor)
    assert ("clock", None) in state.alert_changes and "clock" not in floor.alerts


# --- the station's sealed heads (anchors) --------------------------------------------------


def test_an_anchor_the_floor_does_not_hold_yet_is_kept_until_it_does() -> None:
    rows = chain(6)
    floor = held(rows[:3])
    anchor = (5, 2, rows[4].hash)
    done, state = floor.apply([StatusReport(status(anchor=anchor), NOON)])
    assert state.station_anchors == [[5, 2, rows[4].hash]] and done.alerts == []
    # the same anchor again is not kept twice
    _, state = floor.apply([StatusReport(status(anchor=anchor), NOON + 1)])
    assert state.station_anchors == [[5, 2, rows[4].hash]]
    # the rows arrive: it checks, and is dropped
    done, state = floor.apply([rows[3:6]])
    assert done.alerts == [] and state.station_anchors is None


def test_an_anchor_the_floor_holds_otherwise_is_a_fork() -> None:
    rows = chain(6)
    floor = held(rows)
    anchor = (4, 1, "ee" * 32)
    done, state = floor.apply([StatusReport(status(anchor=anchor), NOON)])
    text = (
        "forked: the station's sealed row 4 (epoch 1) is not the floor's: its journal was"
        " rewritten or replaced"
    )
    assert done.alerts == [(TABLE, "rollback", text)] and state.quarantined == text
    assert floor.lookups[-1] == (4, 4)
    assert state.station_anchors is None
    # one that matches the floor's row there is dropped without a word
    done, state = held(rows).apply([StatusReport(status(anchor=(4, 1, rows[3].hash)), NOON)])
    assert done.alerts == [] and state.station_anchors is None


def test_an_anchor_is_checked_against_rows_merged_in_the_same_transaction() -> None:
    rows = chain(6)
    floor = held(rows[:2])
    report = StatusReport(status(anchor=(4, 1, rows[3].hash)), NOON)
    done, state = floor.apply([report, rows[2:6]])
    assert done.alerts == [] and state.station_anchors is None
    floor = held(rows[:2])
    report = StatusReport(status(anchor=(4, 1, rows[2].hash)), NOON)
    done, _ = floor.apply([report, rows[2:6]])
    assert [kind for _, kind, _ in done.alerts] == ["rollback"]


def test_two_different_seals_reported_at_one_row_are_a_fork() -> None:
    rows = chain(2)
    floor = held(rows)
    floor.apply([StatusReport(status(anchor=(9, 3, "aa" * 32)), NOON)])
    done, state = floor.apply([StatusReport(status(anchor=(9, 4, "bb" * 32)), NOON + 1)])
    text = "forked: two different seals reported at row 9 (epoch 3)"
    assert done.alerts == [(TABLE, "rollback", text)] and state.quarantined == text
    # the same row with the same seal: nothing
    floor = held(rows)
    floor.apply([StatusReport(status(anchor=(9, 3, "aa" * 32)), NOON)])
    done, _ = floor.apply([StatusReport(status(anchor=(9, 3, "aa" * 32)), NOON + 1)])
    assert done.alerts == []


def test_the_floors_own_sealed_head_is_not_kept_as_an_anchor() -> None:
    floor = held(chain(2))
    floor.line |= {"seal_epoch": 4, "sealed_row": 2, "sealed_hash": "cc" * 32}
    _, state = floor.apply([StatusReport(status(anchor=(2, 3, "cc" * 32)), NOON)])
    assert state.station_anchors is None
    # any other: kept (the station's seal at epoch 3 and row 2 has another hash)
    for other in ((2, 3, "dd" * 32), (2, 2, "cc" * 32), (1, 3, "cc" * 32)):
        floor = held(chain(2))
        floor.line |= {"seal_epoch": 4, "sealed_row": 2, "sealed_hash": "cc" * 32, "anchor_row": 0}
        _, state = floor.apply([StatusReport(status(anchor=other), NOON)])
        assert state.station_anchors == [list(other)]


def test_only_the_last_anchors_are_kept() -> None:
    floor = held(chain(1))
    for n in range(ANCHORS_KEPT + 2):
        floor.apply([StatusReport(status(anchor=(100 + n, n, f"{n:064x}")), NOON + n)])
    kept = floor.line["station_anchors"]
    assert ANCHORS_KEPT == 16 and len(kept) == 16
    assert kept[0] == [102, 2, f"{2:064x}"] and kept[-1] == [117, 17, f"{17:064x}"]


# --- a sealing table: what its chain decided ----------------------------------------------


def test_a_sealing_tables_merged_rows_move_its_anchor_and_sealed_head() -> None:
    sealing, key = new_sealing(TABLE)
    rows = journal(sealing, 2)  # 1 start, 2 seal, 3-5 round, 6 seal, 7-9 round, 10 seal
    floor = Floor()
    seals = TableSeals({TABLE: key})

    def sealed_chain() -> SealedChain:
        line = floor.line
        return SealedChain(
            TABLE, line["anchor_row"], line["anchor_hash"], line["seal_epoch"], {}, seals,
            lambda first, last: floor.stored(TABLE, first, last), lambda *_: False,
        )  # fmt: skip

    done, state = floor.apply([rows[:6]], chain=sealed_chain())
    assert state.new_rows == rows[:6] and done.alerts == []
    assert (state.anchor_row, state.anchor_hash, state.anchor_ts) == (6, rows[5].hash, rows[5].ts)
    assert (state.seal_epoch, state.sealed_row, state.sealed_hash) == (2, 6, rows[5].hash)
    assert state.ack == Ack(6, rows[5].hash)
    # a forged round after the head, sealed by nobody, then the genuine one
    forged = [_row(rows[5], "round_started", {"round": 2}, 2)]
    forged.append(_row(forged[-1], "settlement", {"net_cents": 9_000_000}, 2))
    chain_ = sealed_chain()
    done, state = floor.apply([forged], chain=chain_)
    assert state.new_rows == [] and state.anchor_row == 6 and state.ack == chain_.ack
    floor.line["status_arrived"] = None
    chain_ = sealed_chain()
    chain_.pending.update({r.hash: r for r in forged})
    done, state = floor.apply([rows[6:]], chain=chain_)
    assert state.new_rows == rows[6:] and state.seal_epoch == chain_.epoch == 3
    # the forged settlement, as evidence (its round_started is the station's own row 7)
    assert forged[0] == rows[6] and state.quarantine == chain_.evidence == [forged[1]]
    assert done.alerts == [(TABLE, kind, text) for kind, text in chain_.alerts]
    assert [kind for kind, _ in state.alert_changes] == [kind for kind, _ in chain_.alerts]
    assert state.quarantined is None


def test_a_sealing_chains_quarantine_keeps_an_earlier_reason() -> None:
    sealing, key = new_sealing(TABLE)
    rows = journal(sealing, 1)
    seals = TableSeals({TABLE: key})

    def quarantining() -> SealedChain:
        chain_ = SealedChain(TABLE, 0, GENESIS_HASH, 0, {}, seals, lambda *_: {}, lambda *_: False)
        chain_.quarantine = "forked with a valid seal"
        return chain_

    _, state = Floor().apply([rows[:2]], chain=quarantining())
    assert state.quarantined == "forked with a valid seal"
    floor = Floor()
    floor.line["quarantined"] = "released? no: an earlier fork"
    _, state = floor.apply([rows[:2]], chain=quarantining())
    assert state.quarantined == "released? no: an earlier fork"
    # the chain's reason comes before a poisoned message's of the same transaction
    poison = Refused(TABLE, "floor/T1/rows", "bad", 4, "cd", b"rows", poisoned=True)
    _, state = Floor().apply([poison, rows[:2]], chain=quarantining())
    assert state.quarantined == "forked with a valid seal"


# --- whatever a station sends ---------------------------------------------------------------


GENUINE = chain(12)
FOREIGN = chain(12, table="T9")


@st.composite
def hostile_rows(draw: st.DrawFn) -> list[Row]:
    """A message: consecutive rows of the genuine journal, some replaced by a forged copy
    (other contents, chained again or not), a row of another table's journal, a row with
    a broken hash, or a row from further on."""
    start = draw(st.integers(0, len(GENUINE) - 1))
    size = draw(st.integers(0, 6))
    rows = list(GENUINE[start : start + size])
    for i in draw(st.lists(st.integers(0, max(size - 1, 0)), max_size=3)):
        if not rows:
            break
        row = rows[i % len(rows)]
        prev = GENUINE[row.id - 2] if row.id > 1 else None
        rows[i % len(rows)] = draw(
            st.sampled_from(
                [
                    rehash(row, prev, data_text=canonical_json({"net_cents": 7})),
                    replace(row, data_text=canonical_json({"net_cents": 7})),
                    FOREIGN[row.id - 1],
                    rehash(row, GENUINE[-1]),
                    rehash(row, prev, ts="2026-02-30T00:00:00.000000Z"),
                ]
            )
        )
    return rows


@settings(max_examples=150, deadline=None)
@given(messages=st.lists(st.lists(hostile_rows(), max_size=3), max_size=4))
def test_whatever_arrives_the_floor_holds_a_chain_and_answers_every_message(
    messages: list[list[list[Row]]],
) -> None:
    """Hostile rows on a keyless table: what is merged is a chain from the genesis of rows
    the floor can take, nothing is merged once a table is quarantined, every row is held
    (merged, already held, or evidence) or asked for again, and nothing raises."""
    floor = Floor()
    for transaction in messages:
        quarantined = floor.line["quarantined"]
        merged_before = len(floor.merged)
        done, state = floor.apply(list(transaction))
        if quarantined:
            assert len(floor.merged) == merged_before
        for message in transaction:
            if message:
                assert state.ack is not None
        if state.ack is not None and not state.ack.rewind:
            held_ids = {r.id for r in floor.merged} | {r.id for r in floor.quarantine}
            assert state.ack.row in held_ids
        if state.ack is not None and state.ack.rewind:
            assert (state.ack.row, state.ack.hash) == (state.anchor_row, state.anchor_hash)
        assert {kind for _, kind, _ in done.alerts} <= {"rollback", "chain", "malformed", "table"}
    prev = GENESIS_HASH
    for n, row in enumerate(floor.merged, 1):
        assert row.id == n and row.prev_hash == prev and check_row_hash(row)
        assert row_problem(TABLE, row) is None
        prev = row.hash
    assert (floor.line["anchor_row"], floor.line["anchor_hash"]) == (len(floor.merged), prev)


@settings(max_examples=100, deadline=None)
@given(
    deliveries=st.lists(st.tuples(st.integers(0, 11), st.integers(1, 6)), max_size=10),
)
def test_genuine_rows_in_any_order_leave_a_prefix_and_the_resend_completes_it(
    deliveries: list[tuple[int, int]],
) -> None:
    floor = Floor()
    for start, size in deliveries:
        batch = GENUINE[start : start + size]
        done, state = floor.apply([batch])
        assert done.alerts == [] and floor.merged == GENUINE[: len(floor.merged)]
        if batch[0].id > len(floor.merged) + 1:
            assert state.ack == Ack(len(floor.merged), floor.line["anchor_hash"], rewind=True)
        else:
            assert state.ack == Ack(batch[-1].id, batch[-1].hash)
    floor.apply([GENUINE[len(floor.merged) :]])
    assert floor.merged == GENUINE


@pytest.mark.parametrize("arrived", [NOON - 1, NOON])
def test_an_older_or_equal_arrival_is_ignored_whatever_it_says(arrived: float) -> None:
    floor = Floor()
    floor.apply([StatusReport(status(), NOON)])
    rows = chain(3)
    floor.merged = rows
    floor.line |= {"anchor_row": 3, "anchor_hash": rows[2].hash, "anchor_ts": rows[2].ts}
    report = status("2026-12-01T05:30:00.000000Z", head=(1, "ee" * 32), anchor=(2, 0, "ee" * 32))
    done, state = floor.apply([StatusReport(report, arrived)])
    assert done.alerts == [] and state.alert_changes == [] and state.station_anchors is None


def test_the_anchor_row_itself_sent_again_otherwise_is_a_fork() -> None:
    rows = chain(4)
    floor = held(rows)
    other = rehash(rows[3], rows[2], data_text=canonical_json({"net_cents": 1}))
    done, state = floor.apply([[other]])
    assert done.alerts == [(TABLE, "rollback", "forked: row 4 differs from the floor's")]
    assert state.quarantine == [other]


def test_an_anchor_at_the_floors_last_row_is_checked_at_once() -> None:
    rows = chain(4)
    done, state = held(rows).apply([StatusReport(status(anchor=(4, 1, "ee" * 32)), NOON)])
    assert [kind for _, kind, _ in done.alerts] == ["rollback"] and state.station_anchors is None
    done, state = held(rows).apply([StatusReport(status(anchor=(4, 1, rows[3].hash)), NOON)])
    assert done.alerts == [] and state.station_anchors is None


def test_the_station_time_is_read_and_shown_in_utc_whatever_the_collectors_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The journal's times are UTC (``Z``): a collector running in New York's zone reads the
    same skew and shows the same clamped time as one in UTC."""
    monkeypatch.setenv("TZ", "EST+5")
    time.tzset()
    try:
        done, state = _clock("2026-12-01T05:02:00.500000Z")
        assert state.clock_skew == 120.5 and [kind for _, kind, _ in done.alerts] == ["clock"]
        assert state.status_ts == "2026-12-01T05:02:00.000000Z"
        _, state = _clock("2026-02-30T05:00:00.000000Z")
        assert state.status_ts == "2026-12-01T05:00:00.000000Z"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_head_the_floor_does_not_hold_is_a_fork_whatever_its_hash() -> None:
    """Only row 0's hash is known without a stored row (the genesis): a head at a row the
    floor does not hold cannot be shown to be a truncation of the floor's chain."""
    rows = chain(5)
    floor = Floor()
    floor.line |= {"anchor_row": 5, "anchor_hash": rows[4].hash, "anchor_ts": rows[4].ts}
    ts = "2026-12-01T04:00:11.000000Z"
    arrived = datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()
    done, _ = floor.apply([StatusReport(status(ts, head=(3, GENESIS_HASH)), arrived)])
    assert done.alerts == [
        (TABLE, "rollback", "forked: the station's last row is 3, the floor holds 5")
    ]


def test_the_floors_own_sealed_head_never_pushes_out_an_anchor_still_waiting() -> None:
    rows = chain(2)
    floor = held(rows)
    waiting = [[100 + n, n, f"{n:064x}"] for n in range(ANCHORS_KEPT)]
    floor.line |= {
        "seal_epoch": 4, "sealed_row": 2, "sealed_hash": rows[1].hash, "station_anchors": waiting
    }  # fmt: skip
    done, state = floor.apply([StatusReport(status(anchor=(2, 3, rows[1].hash)), NOON)])
    assert state.station_anchors == waiting and done.alerts == []


# --- the tables locked: their state at the start of a transaction --------------------------


def _line(table: str, anchor_row: int, anchor_hash: str, epoch: int) -> tuple[Any, ...]:
    """A ``floor_table`` line as ``_LOCK_SQL`` reads it."""
    return (
        table,
        anchor_row,
        anchor_hash,
        None,
        None,
        None,
        None,
        epoch,
        0,
        None,
        None,
        None,
        None,
    )


def test_each_locked_table_starts_from_its_anchor_and_a_sealing_one_from_its_chain() -> None:
    _, key = new_sealing("T2")
    seals = TableSeals({"T2": key})
    rows = chain(3)
    lookups: list[tuple[str, int, int]] = []
    evidence: list[tuple[str, int, str]] = []

    def stored(table: str, first: int, last: int) -> dict[int, str]:
        lookups.append((table, first, last))
        return {}

    def in_evidence(table: str, row_id: int, digest: str) -> bool:
        evidence.append((table, row_id, digest))
        return True

    waiting = [
        (
            "T2",
            *(
                getattr(r, f)
                for f in ("id", "ts", "kind", "round_no", "data_text", "prev_hash", "hash")
            ),
        )
        for r in rows[1:]
    ]
    states = table_states(
        [_line("T1", 5, "aa" * 32, 0), _line("T2", 1, rows[0].hash, 3)],
        waiting,
        seals,
        stored,
        in_evidence,
    )
    assert list(states) == ["T1", "T2"]
    keyless, sealed = states["T1"], states["T2"]
    assert (keyless.anchor_row, keyless.start_hash, keyless.chain) == (5, "aa" * 32, None)
    assert sealed.start_hash == rows[0].hash and sealed.chain is not None
    chain_ = sealed.chain
    assert (chain_.table, chain_.head_row, chain_.head_hash, chain_.epoch) == (
        "T2", 1, rows[0].hash, 3
    )  # fmt: skip
    assert chain_.pending == {r.hash: r for r in rows[1:]} and chain_.check is seals
    chain_.merged_hashes(4, 9)
    assert chain_.in_evidence(7, "bb" * 32)
    assert lookups == [("T2", 4, 9)] and evidence == [("T2", 7, "bb" * 32)]
