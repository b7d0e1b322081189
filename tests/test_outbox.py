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


def test_an_acknowledgement_file_out_of_form_sends_everything_again(tmp_path: Path) -> None:
    """A row that is negative, not an integer (a string, a boolean), a hash that is not
    text, or a file that is not ASCII: the kept acknowledgement is taken as none."""
    path = tmp_path / "journal.sqlite3-floor"
    good = "b" * 64
    for text in (
        f'{{"row": -1, "hash": "{good}"}}',
        f'{{"row": "5", "hash": "{good}"}}',
        f'{{"row": true, "hash": "{good}"}}',
        '{"row": 5, "hash": 5}',
        '{"row": 5}',
        "[5]",
    ):
        path.write_text(text, encoding="ascii")
        assert load_ack(path) == (0, GENESIS_HASH), text
    path.write_text('{"row": 5, "hash": "\u00e9"}', encoding="utf-8")
    assert load_ack(path) == (0, GENESIS_HASH)
    path.write_text(f'{{"row": 0, "hash": "{GENESIS_HASH}"}}', encoding="ascii")
    assert load_ack(path) == (0, GENESIS_HASH)
    path.write_text(f'{{"row": 1, "hash": "{good}"}}', encoding="ascii")
    assert load_ack(path) == (1, good)  # the smallest row there is


def test_the_rewind_the_floor_acknowledged_is_kept_as_is(tmp_path: Path) -> None:
    path = ack_path(tmp_path / "journal.sqlite3")
    save_ack(path, 7, "c" * 64)
    save_ack(path, 3, "d" * 64)  # replaced whole, even by an older row
    assert load_ack(path) == (3, "d" * 64)
    assert [p.name for p in tmp_path.iterdir()] == ["journal.sqlite3-floor"]


def journal_of(tmp_path: Path, count: int) -> tuple[Path, list[Row]]:
    from controller.journal.reader import JournalReader, select_rows
    from controller.journal.store import Journal

    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        for _ in range(count):
            journal.append("device", {"device": "shoe", "status": "ok"})
    with JournalReader.open(path) as reader:
        rows = list(reader.query(lambda conn: list(select_rows(conn))))
    return path, rows


def test_the_floors_acknowledgement_of_a_row_the_journal_holds_says_nothing(
    tmp_path: Path,
) -> None:
    from controller.service.outbox import ack_beyond

    path, rows = journal_of(tmp_path, 3)
    assert ack_beyond(path) == ""  # none kept
    save_ack(ack_path(path), 3, rows[2].hash)
    assert ack_beyond(path) == ""
    save_ack(ack_path(path), 1, rows[0].hash)
    assert ack_beyond(path) == ""
    save_ack(ack_path(path), 0, GENESIS_HASH)
    assert ack_beyond(path) == ""


def test_the_floors_acknowledgement_past_the_journal_is_a_rollback(tmp_path: Path) -> None:
    from controller.service.outbox import ack_beyond

    path, rows = journal_of(tmp_path, 3)
    save_ack(ack_path(path), 4, "e" * 64)
    assert ack_beyond(path) == (
        "the floor acknowledged row 4, which the journal does not hold: rolled back, cut"
        " short or replaced; keep the files and call the supervisor"
    )
    save_ack(
        ack_path(path),
        2,
        rows[1].hash.replace(rows[1].hash[0], "0" if rows[1].hash[0] != "0" else "1"),
    )
    assert ack_beyond(path) == (
        "the floor acknowledged row 2 with another hash: the journal was rewritten or"
        " replaced; keep the files and call the supervisor"
    )


def test_an_acknowledgement_beside_no_journal_or_a_journal_not_yet_made_says_nothing(
    tmp_path: Path,
) -> None:
    """The start's check is the journal's to make: no file, or a file without the
    journal's tables (being created), is not a rollback."""
    import sqlite3

    from controller.service.outbox import ack_beyond

    path = tmp_path / "journal.sqlite3"
    save_ack(ack_path(path), 4, "e" * 64)
    assert ack_beyond(path) == ""
    sqlite3.connect(path).close()  # an empty database: no table yet
    assert ack_beyond(path) == ""


def test_an_acknowledgement_with_no_batch_in_flight_moves_on() -> None:
    """The batch may have been dropped (a reconnect) when its acknowledgement comes."""
    outbox = Outbox("T1")
    for n in range(1, 11):
        outbox.scan(row(n, "device"))
    assert outbox.next_batch(0.0, 4) == (1, 4)
    outbox.reset()
    assert outbox.acknowledge(Ack(4, f"{4:064x}"))
    assert (outbox.acked, outbox.acked_hash) == (4, f"{4:064x}")
    assert outbox.next_batch(0.0, 4) == (5, 8)


def test_an_acknowledgement_of_part_of_the_batch_keeps_it_in_flight() -> None:
    outbox = Outbox("T1")
    for n in range(1, 11):
        outbox.scan(row(n, "device"))
    assert outbox.next_batch(0.0, 4) == (1, 4)
    assert outbox.acknowledge(Ack(3, f"{3:064x}"))
    assert outbox.next_batch(0.0, 4) is None  # row 4 still unanswered
    assert outbox.acknowledge(Ack(4, f"{4:064x}"))
    assert outbox.next_batch(0.0, 4) == (5, 8)


def test_a_reset_sends_the_batch_in_flight_again() -> None:
    outbox = Outbox("T1")
    for n in range(1, 4):
        outbox.scan(row(n, "device"))
    assert outbox.next_batch(0.0, 10) == (1, 3)
    outbox.reset()
    assert outbox.next_batch(0.0, 10) == (1, 3)


def test_the_timeout_counts_from_when_the_batch_was_sent() -> None:
    outbox = Outbox("T1")
    outbox.scan(row(1, "device"))
    assert outbox.next_batch(10.0, 10) == (1, 1)
    assert not outbox.expire(14.9, 5.0)
    assert outbox.expire(15.0, 5.0)


def test_nothing_goes_once_all_is_acknowledged() -> None:
    outbox = Outbox("T1")
    for n in range(1, 4):
        outbox.scan(row(n, "device"))
    assert outbox.next_batch(0.0, 10) == (1, 3)
    assert outbox.acknowledge(Ack(3, f"{3:064x}"))
    assert outbox.next_batch(0.0, 10) is None
    assert outbox.inflight is None


def test_a_shortened_batch_leaves_its_rest_for_the_next() -> None:
    """Both ends: a batch cut to its first row, and a cut at its last row (no change); a
    row outside the batch changes nothing."""
    outbox = Outbox("T1")
    for n in range(1, 11):
        outbox.scan(row(n, "device"))
    assert outbox.next_batch(0.0, 4) == (1, 4)
    outbox.shorten(1)
    assert outbox.acknowledge(Ack(1, f"{1:064x}"))
    assert outbox.next_batch(0.0, 4) == (2, 5)
    outbox.shorten(5)
    outbox.shorten(9)
    outbox.shorten(0)
    assert outbox.inflight is not None
    assert (outbox.inflight.first, outbox.inflight.last) == (2, 5)
    outbox.shorten(3)
    assert outbox.acknowledge(Ack(3, f"{3:064x}"))
    assert outbox.next_batch(0.0, 4) == (4, 7)
    outbox.reset()
    outbox.shorten(5)  # nothing in flight: nothing to shorten
    assert outbox.inflight is None


def test_the_status_names_its_table_acknowledgement_and_anchor() -> None:
    outbox = Outbox("T7", acked=2, acked_hash=f"{2:064x}")
    seal = '{"epoch":3,"head":"' + "0" * 64 + '","mac":"' + "1" * 64 + '","row":4,"table":"T7"}'
    for r in [row(1, "device"), row(2, "device"), row(3, "device")]:
        outbox.scan(r)
    outbox.scan(Row(4, "2026-11-30T20:00:00.000000Z", "seal", None, seal, "0" * 64, "a" * 64))
    outbox.scan(row(5, "device", None, '{"device":"shoe","status":"ok"}'))
    outbox.head_as_of = READ_AT
    status = outbox.status()
    assert status.table == "T7" and status.acked == 2
    assert status.anchor == (4, 3, "a" * 64)
    assert status.head == (5, f"{5:064x}")
    assert status.state is None  # no prompt yet: a seal is no stop


def test_the_status_is_refused_with_its_one_line_before_a_read() -> None:
    with pytest.raises(ValueError, match=r"^the journal was never read: no head to state$"):
        Outbox("T1").status()


def test_a_resolved_fault_and_a_clean_shutdown_show_in_the_status() -> None:
    outbox = Outbox("T1", head_as_of=READ_AT)
    outbox.scan(row(1, "prompt", None, '{"state":"betting","lamps":{}}'))
    outbox.scan(row(2, "fault", None, "{}"))
    assert outbox.status().fault == {"code": "?", "state": ""}  # named, if not by the row
    outbox.scan(row(3, "fault_resolved", None, "{}"))
    assert outbox.status().fault is None
    outbox.scan(row(4, "clean_shutdown", None, "{}"))
    assert outbox.status().state == "stopped"


def test_a_device_row_without_its_name_or_health_changes_no_device() -> None:
    outbox = Outbox("T1", head_as_of=READ_AT)
    outbox.scan(row(1, "device", None, '{"status":"lost"}'))
    outbox.scan(row(2, "device", None, '{"device":"shoe"}'))
    outbox.scan(row(3, "device", None, '{"device":"shoe","status":7}'))
    assert outbox.status().devices == {}


def test_the_status_texts_are_cut_at_200_characters() -> None:
    """A status's texts are at most 200 characters (``controller.journal.wire`` refuses a
    status with a longer one, so it would never leave); a text of exactly 200 goes whole."""
    outbox = Outbox("T1", head_as_of=READ_AT)
    exact, longer = "d" * 200, "e" * 201
    outbox.scan(row(1, "device", None, f'{{"device":"{exact}","status":"{longer}"}}'))
    outbox.scan(row(2, "fault", None, f'{{"code":"{longer}","state":"{exact}"}}'))
    status = outbox.status()
    assert status.devices == {exact: "e" * 200}
    assert status.fault == {"code": "e" * 200, "state": exact}
