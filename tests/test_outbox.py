"""The journal as outbox (``controller.service.outbox``): no row of a round in play leaves
the table, one batch in flight, the collector's acknowledgement kept beside the journal."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.journal.format import GENESIS_HASH, Row
from controller.journal.wire import Ack
from controller.service.outbox import Outbox, ack_path, load_ack, save_ack

#: When a test's journal was read (the status's time).
READ_AT = datetime(2026, 11, 30, 20, 0, 1, 250000, tzinfo=UTC)


def row(row_id: int, kind: str, round_no: int | None = None, data: str = "{}") -> Row:
    return Row(
        row_id, "2026-11-30T20:00:00.000000Z", kind, round_no, data, "0" * 64, f"{row_id:064x}"
    )


def table_rows(*spec: tuple[str, int | None]) -> list[Row]:
    return [row(n, kind, rnd) for n, (kind, rnd) in enumerate(spec, start=1)]


def test_rows_of_a_round_in_play_stay_on_the_table() -> None:
    outbox = Outbox("T1")
    rows = table_rows(
        ("shoe_loaded", None),
        ("round_started", 1),
        ("card", 1),
        ("hole_card_dealt", 1),
    )
    for r in rows:
        outbox.scan(r)
    # Only what came before the round may leave: the card and the hole card wait.
    assert outbox.horizon == 1
    assert outbox.next_batch(0.0, 100) == (1, 1)
    for r in table_rows(("shoe_loaded", None), ("round_started", 1), ("card", 1),
                        ("hole_card_dealt", 1), ("hole_card_revealed", 1),
                        ("round_completed", 1))[4:]:  # fmt: skip
        outbox.scan(r)
    assert outbox.horizon == 6  # the round ended: all of it may go


def test_a_voided_round_is_released_and_a_late_row_of_an_ended_round_does_not_block() -> None:
    outbox = Outbox("T1")
    for r in table_rows(
        ("round_started", 1), ("card", 1), ("round_voided", 1), ("fault_resolved", 1),
        ("round_started", 2), ("card", 2),
    ):  # fmt: skip
        outbox.scan(r)
    assert outbox.horizon == 4


@given(st.lists(st.tuples(st.integers(0, 3), st.booleans()), max_size=60))
def test_nothing_past_the_horizon_belongs_to_an_unfinished_round(
    steps: list[tuple[int, bool]],
) -> None:
    """Random play: after every row, each row at or below the horizon has no round or a
    round that has ended by then."""
    outbox = Outbox("T1")
    rows: list[Row] = []
    ended: set[int] = set()
    current = 0
    for action, end in steps:
        if action == 0 or current == 0:
            current += 1
            rows.append(row(len(rows) + 1, "round_started", current))
        elif action == 1:
            rows.append(row(len(rows) + 1, "card", current))
        elif action == 2:
            rows.append(row(len(rows) + 1, "device", None))
        if end and current and current not in ended:
            rows.append(row(len(rows) + 1, "round_completed", current))
            ended.add(current)
        for r in rows[outbox.scanned :]:
            outbox.scan(r)
        for r in rows[: outbox.horizon]:
            assert r.round_no is None or r.round_no in ended


def test_one_batch_in_flight_until_the_collector_acknowledges_it() -> None:
    outbox = Outbox("T1")
    for n in range(1, 11):
        outbox.scan(row(n, "device"))
    assert outbox.next_batch(0.0, 4) == (1, 4)
    assert outbox.next_batch(0.1, 4) is None  # waiting for the acknowledgement
    assert not outbox.acknowledge(Ack(0, GENESIS_HASH))  # an old one changes nothing
    assert outbox.acknowledge(Ack(4, f"{4:064x}"))
    assert outbox.next_batch(0.2, 4) == (5, 8)


def test_a_late_acknowledgement_sends_the_batch_again() -> None:
    outbox = Outbox("T1")
    for n in range(1, 4):
        outbox.scan(row(n, "device"))
    assert outbox.next_batch(0.0, 10) == (1, 3)
    assert not outbox.expire(4.9, 5.0)  # both sides of the timeout
    assert outbox.expire(5.0, 5.0)
    assert outbox.next_batch(5.0, 10) == (1, 3)


def test_a_rewind_sends_again_from_where_the_collector_stands() -> None:
    outbox = Outbox("T1", acked=8, acked_hash=f"{8:064x}")
    for n in range(1, 11):
        outbox.scan(row(n, "device"))
    assert outbox.acknowledge(Ack(3, f"{3:064x}", rewind=True))
    assert outbox.next_batch(0.0, 100) == (4, 10)


def test_the_status_carries_no_card_and_no_fault_message() -> None:
    outbox = Outbox("T1")
    for r in [
        row(1, "device", None, '{"device":"shoe","status":"lost"}'),
        row(2, "round_started", 4, '{"round":4,"seats":[]}'),
        row(3, "card", 4, '{"card":"KH","role":"up","seat":null}'),
        row(
            4, "fault", 4, '{"code":"card_out_of_order","message":"7S out of order","state":"deal"}'
        ),
        row(5, "prompt", 4, '{"state":"fault","lamps":{}}'),
    ]:
        outbox.scan(r)
    outbox.head_as_of = READ_AT
    status = outbox.status()
    assert status.state == "fault" and status.round_no == 4
    assert status.fault == {"code": "card_out_of_order", "state": "deal"}
    assert status.devices == {"shoe": "lost"}
    assert "KH" not in repr(status) and "7S" not in repr(status)


def test_the_status_is_at_the_time_its_head_was_read_and_none_before_a_read() -> None:
    """Its time is when the journal was read (the shipper reads the time first), never
    when it is built: the floor takes every row stamped before it as in its head."""
    outbox = Outbox("T1")
    with pytest.raises(ValueError, match="never read"):
        outbox.status()  # no head to state yet
    outbox.scan(row(1, "device"))
    outbox.head_as_of = READ_AT
    status = outbox.status()
    assert status.ts == "2026-11-30T20:00:01.250000Z"
    assert status.head == (1, f"{1:064x}")


def test_the_acknowledgement_is_kept_beside_the_journal(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite3"
    path = ack_path(journal)
    assert path == tmp_path / "journal.sqlite3-floor"
    assert load_ack(path) == (0, GENESIS_HASH)  # none yet: everything goes
    save_ack(path, 42, "a" * 64)
    assert load_ack(path) == (42, "a" * 64)
    path.write_text("not json")
    assert load_ack(path) == (0, GENESIS_HASH)  # damaged: sent again, never lost
