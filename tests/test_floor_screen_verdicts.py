"""The collector's screen (``floor.screen``), verdict by verdict, without a database: what
each kind of message a station (or anyone on the broker) can publish becomes, and what of it
is kept as evidence. docs/floor.md "What one station cannot do" states the rules; the expected
reasons below are written from it, one message at a time.

``tests/test_floor_screen.py`` holds the properties (the screen never raises; no row content
fails a PostgreSQL transaction); this file holds the verdicts, so that a wrong one (a
poisoned table not quarantined, an oversize message kept whole, money past the bound taken)
fails here in milliseconds.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from floor_fixtures import chained
from hypothesis import given
from hypothesis import strategies as st

from controller.journal.format import Row
from controller.journal.wire import Status, encode_rows, encode_status
from floor.screen import (
    EVIDENCE_BYTES,
    MAX_NET_CENTS,
    Refused,
    Rows,
    StatusReport,
    net_cents,
    refused_rows,
    row_fields,
    row_problem,
    screen,
)

MOUNT = "station/"
LIMIT = 4 << 20
GOOD_TS = "2026-12-01T04:00:00.000000Z"
HEX = "ab" * 32


def _screen(topic: str, payload: bytes, *, max_bytes: int = LIMIT, arrived: float = 7.5) -> Any:
    return screen(topic, payload, mount_point=MOUNT, max_bytes=max_bytes, arrived=arrived)


def _rows(table: str = "T1", n: int = 2) -> tuple[list[Row], bytes]:
    rows = chained([("card", {"rank": "A", "seat": k}, 1) for k in range(n)])
    return rows, encode_rows(table, rows)


def _status(table: str = "T1", **changes: Any) -> Status:
    values: dict[str, Any] = {
        "table": table,
        "ts": GOOD_TS,
        "state": "BETTING",
        "round_no": 4,
        "fault": None,
        "devices": {"shoe": "connected", "panel": "lost"},
        "head": (12, HEX),
        "acked": 11,
    }
    values.update(changes)
    return Status(**values)


def _raw_rows(table: str, items: list[list[Any]]) -> bytes:
    return json.dumps({"v": 1, "table": table, "rows": items}).encode()


def _row(row_id: int, ts: str = GOOD_TS, data: str = "{}") -> list[Any]:
    return [row_id, ts, "card", 1, data, HEX, HEX]


def _evidence_of(found: Refused, payload: bytes) -> None:
    assert found.size == len(payload)
    assert found.digest == hashlib.sha256(payload).hexdigest()
    assert found.payload == payload[:EVIDENCE_BYTES]
    assert found.kind == "malformed"


# --- whose message -----------------------------------------------------------------------


def test_consecutive_rows_of_a_table_are_taken_as_rows() -> None:
    rows, payload = _rows("T1", 3)
    found = _screen("station/floor/T1/rows", payload)
    assert isinstance(found, Rows)
    assert found.table == "T1"
    assert list(found.rows) == rows


def test_a_status_is_taken_with_the_time_it_arrived() -> None:
    status = _status()
    found = _screen("station/floor/T1/status", encode_status(status), arrived=123.25)
    assert isinstance(found, StatusReport)
    assert found.status == status
    assert found.arrived == 123.25
    assert found.table == "T1"


def test_an_acknowledgement_is_not_the_collectors_to_take() -> None:
    assert _screen("station/floor/T1/ack", b'{"v":1,"row":1,"hash":"x"}') is None


def test_a_topic_outside_the_stations_mount_point_is_refused_with_no_table() -> None:
    payload = b"anything"
    found = _screen("elsewhere/floor/T1/rows", payload)
    assert isinstance(found, Refused)
    assert found.reason == "not a station's topic"
    assert found.topic == "elsewhere/floor/T1/rows"
    assert found.table == ""
    assert found.poisoned is False
    _evidence_of(found, payload)


def test_a_topic_under_the_mount_point_that_is_not_a_floor_topic_is_refused() -> None:
    found = _screen("station/floor/T1/rows/extra", b"{}")
    assert isinstance(found, Refused)
    assert found.reason.startswith("not a floor topic:")
    assert found.topic == "station/floor/T1/rows/extra"
    assert found.table == ""
    assert found.poisoned is False


def test_a_long_topic_is_kept_to_its_first_120_characters() -> None:
    name = "x" * 500
    found = _screen(name, b"{}")
    assert isinstance(found, Refused)
    assert found.topic == "x" * 120


# --- size -------------------------------------------------------------------------------


def test_a_message_of_exactly_the_limit_is_read_and_one_byte_more_is_oversize() -> None:
    _rows_list, payload = _rows()
    taken = _screen("station/floor/T1/rows", payload, max_bytes=len(payload))
    assert isinstance(taken, Rows)
    over = _screen("station/floor/T1/rows", payload, max_bytes=len(payload) - 1)
    assert isinstance(over, Refused)
    assert over.kind == "oversize"
    assert over.payload is None  # only its size is kept, never the message
    assert over.size == len(payload)
    assert over.table == "T1"
    assert over.topic == "station/floor/T1/rows"
    # every oversize message of a table is one evidence row (its count grows): no digest
    # of a message the floor does not keep
    assert over.digest == "oversize"
    assert over.reason == f"{len(payload)} bytes, over the limit of {len(payload) - 1}"
    assert over.poisoned is False


def test_evidence_keeps_at_most_a_mebibyte_of_a_refused_message() -> None:
    payload = b"[" * (EVIDENCE_BYTES + 10)
    found = _screen("station/floor/T1/rows", payload)
    assert isinstance(found, Refused)
    assert found.payload is not None and len(found.payload) == EVIDENCE_BYTES
    _evidence_of(found, payload)
    exact = b"[" * EVIDENCE_BYTES
    whole = _screen("station/floor/T1/rows", exact)
    assert isinstance(whole, Refused) and whole.payload == exact


# --- form -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        (b"not json", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"v": 2, "table": "T1", "rows": []}', "unknown message version"),
        (b'{"v": 1, "table": "T2", "rows": []}', "rows for 'T2' on the topic of 'T1'"),
    ],
)
def test_rows_not_in_the_wire_format_are_refused_unpoisoned(payload: bytes, said: str) -> None:
    found = _screen("station/floor/T1/rows", payload)
    assert isinstance(found, Refused)
    assert found.reason.startswith("not in the wire format: ")
    assert found.topic == "station/floor/T1/rows"
    assert said in found.reason
    assert found.table == "T1"
    assert found.poisoned is False  # nothing of the chain was in it
    _evidence_of(found, payload)


def test_a_status_not_in_the_wire_format_is_refused() -> None:
    payload = encode_status(_status(table="T2"))
    found = _screen("station/floor/T1/status", payload)
    assert isinstance(found, Refused)
    assert found.reason.startswith("not in the wire format: status for 'T2'")
    assert found.poisoned is False


# --- text the floor cannot hold -----------------------------------------------------------


@pytest.mark.parametrize(
    ("ts", "data"),
    [
        (GOOD_TS, '{"name":"\u00e9"}'),  # not ASCII in the data
        (GOOD_TS, '{"name":"a\u0000b"}'),  # a NUL in the data
        ("2026-12-01T04:00:00.000000\u00e9", "{}"),  # not ASCII in the time
        ("2026-12-01T04:00:00\u00000000Z", "{}"),  # a NUL in the time
    ],
)
def test_a_row_with_text_postgresql_cannot_keep_poisons_the_table(ts: str, data: str) -> None:
    payload = _raw_rows("T1", [_row(1), _row(2, ts, data), _row(3)])
    found = _screen("station/floor/T1/rows", payload)
    assert isinstance(found, Refused)
    # the second row is named: its loss leaves a hole the station cannot fill
    assert found.reason == "row 2: text the floor cannot hold (not ASCII, or a NUL)"
    assert found.poisoned
    assert (found.table, found.topic) == ("T1", "station/floor/T1/rows")  # the alert says where
    _evidence_of(found, payload)


def test_rows_of_plain_ascii_with_every_printable_character_are_taken() -> None:
    text = json.dumps({"note": "".join(chr(c) for c in range(32, 127))})
    found = _screen("station/floor/T1/rows", _raw_rows("T1", [_row(1, GOOD_TS, text)]))
    assert isinstance(found, Rows)


@pytest.mark.parametrize(
    "changes",
    [
        {"ts": "2026-12-01T04:00:00\u00e9"},
        {"ts": "2026-12-01\t04:00:00"},
        {"state": "BETT\u0000ING"},
        {"state": "BETTING\n"},
        {"fault": {"code": "shoe_lost", "state": "DEAL\u00e9"}},
        {"fault": {"code": "shoe\x1blost", "state": "DEAL"}},
        {"devices": {"sh\u00f6e": "connected"}},
        {"devices": {"shoe": "conn\x7fected"}},
    ],
)
def test_a_status_with_unprintable_text_is_refused_and_does_not_poison(
    changes: dict[str, Any],
) -> None:
    payload = encode_status(_status(**changes))
    found = _screen("station/floor/T1/status", payload)
    assert isinstance(found, Refused)
    assert found.reason == "status: text the floor cannot hold (not printable ASCII)"
    assert found.topic == "station/floor/T1/status"
    assert found.poisoned is False  # a status is no part of the chain
    assert found.table == "T1"


def test_a_status_with_a_fault_and_no_state_is_taken() -> None:
    status = _status(state=None, fault={"code": "shoe_lost", "state": "DEALING"})
    found = _screen("station/floor/T1/status", encode_status(status))
    assert isinstance(found, StatusReport)
    assert found.status.fault == {"code": "shoe_lost", "state": "DEALING"}


def test_whatever_breaks_inside_the_screen_becomes_a_refusal_not_an_exception() -> None:
    found = screen("station/floor/T1/rows", b"{}", mount_point=MOUNT, max_bytes=None, arrived=0.0)  # type: ignore[arg-type]
    assert isinstance(found, Refused)
    assert found.reason == "could not be read: TypeError"
    assert found.topic == "station/floor/T1/rows"
    assert found.table == ""
    assert found.poisoned is False


# --- re-encoded evidence -------------------------------------------------------------------


def test_rows_the_database_refused_after_all_are_kept_as_evidence_unpoisoned() -> None:
    rows, payload = _rows("T7", 2)
    found = refused_rows(Rows("T7", rows), "the database said no")
    assert found.table == "T7"
    assert found.topic == "floor/T7/rows"
    assert found.reason == "the database said no"
    assert found.payload == payload
    assert found.digest == hashlib.sha256(payload).hexdigest()
    assert found.size == len(payload)
    assert found.poisoned is False
    assert found.kind == "malformed"


# --- what a row means: row_problem -------------------------------------------------------


def _one(kind: str, data: Any, ts: str = GOOD_TS) -> Row:
    return chained([(kind, data, None)], ts=ts)[0]


@pytest.mark.parametrize(
    "ts", ["2026-12-01 04:00:00.000000Z", "2026-12-01T04:00:00Z", "2026-12-01T04:00:00.000000"]
)
def test_a_row_whose_time_is_not_a_journal_time_is_malformed(ts: str) -> None:
    row = _one("card", {"rank": "A"}, ts=ts)
    assert row_problem("T1", row) == ("malformed", f"row 1: {ts!r} is not a journal time")


def test_a_long_bad_time_is_quoted_to_its_first_40_characters() -> None:
    ts = "9" * 60
    assert row_problem("T1", _one("card", {}, ts=ts)) == (
        "malformed",
        f"row 1: {'9' * 40!r} is not a journal time",
    )


def test_a_row_that_carries_no_money_or_table_name_is_not_read() -> None:
    # the floor checks the meaning of settled money and of a table's name only
    assert row_problem("T1", _one("card", "[1, 2]")) is None
    assert row_problem("T1", _one("button", {"net_cents": 0.5, "table": "T9"})) is None


@pytest.mark.parametrize("kind", ["settlement", "match_settled", "insurance"])
@pytest.mark.parametrize(
    ("net", "fine"),
    [
        (0, True),
        (None, True),
        (MAX_NET_CENTS, True),
        (-MAX_NET_CENTS, True),
        (MAX_NET_CENTS + 1, False),
        (-MAX_NET_CENTS - 1, False),
        (12.0, False),
        ("1200", False),
        (True, False),
    ],
)
def test_settled_money_is_whole_cents_within_a_billion_dollars(
    kind: str, net: Any, fine: bool
) -> None:
    row = _one(kind, {"net_cents": net} if net is not None else {"seat": 1})
    problem = row_problem("T1", row)
    if fine:
        assert problem is None
    else:
        assert problem == ("malformed", f"row 1: net_cents {str(net)[:20]!r} is not whole cents")


@pytest.mark.parametrize("kind", ["settlement", "station_started", "seal"])
@pytest.mark.parametrize("data", ["[1]", '"text"', "not json", "[" * 5000])
def test_a_checked_row_whose_data_is_not_an_object_is_malformed(kind: str, data: str) -> None:
    assert row_problem("T1", _one(kind, data)) == (
        "malformed",
        f"row 1: {kind} data is not a JSON object",
    )


def test_a_station_start_naming_its_own_table_is_fine_and_another_is_a_table_alert() -> None:
    assert row_problem("T1", _one("station_started", {"table_id": "T1"})) is None
    assert row_problem("T1", _one("station_started", {"table_id": "T2"})) == (
        "table",
        "row 1: station_started names table 'T2', not T1",
    )
    # the start names its table by table_id, not by table
    assert row_problem("T1", _one("station_started", {"table": "T1"})) == (
        "table",
        "row 1: station_started names table 'None', not T1",
    )


def test_a_seal_names_its_table_by_table() -> None:
    assert row_problem("T1", _one("seal", {"table": "T1", "epoch": 3})) is None
    assert row_problem("T1", _one("seal", {"table_id": "T1"})) == (
        "table",
        "row 1: seal names table 'None', not T1",
    )
    long_name = "Z" * 90
    assert row_problem("T1", _one("seal", {"table": long_name})) == (
        "table",
        f"row 1: seal names table {'Z' * 40!r}, not T1",
    )


def test_a_long_bad_amount_is_quoted_to_its_first_20_characters() -> None:
    net = "9" * 50
    assert row_problem("T1", _one("settlement", {"net_cents": net})) == (
        "malformed",
        f"row 1: net_cents {'9' * 20!r} is not whole cents",
    )


# --- reading a row's money -----------------------------------------------------------------


@pytest.mark.parametrize("kind", ["settlement", "match_settled", "insurance"])
def test_a_settled_rows_net_is_read_in_cents(kind: str) -> None:
    assert net_cents(_one(kind, {"net_cents": -2500})) == -2500
    assert net_cents(_one(kind, {"net_cents": 0})) == 0


def test_no_net_is_read_from_other_rows_or_from_what_is_not_whole_cents() -> None:
    assert net_cents(_one("button", {"net_cents": 500})) is None
    assert net_cents(_one("settlement", {"net_cents": True})) is None
    assert net_cents(_one("settlement", {"net_cents": 5.0})) is None
    assert net_cents(_one("settlement", {"seat": 1})) is None
    assert net_cents(_one("settlement", "[500]")) is None


def test_row_fields_is_the_data_object_or_none() -> None:
    assert row_fields(_one("card", {"rank": "A", "seat": 2})) == {"rank": "A", "seat": 2}
    assert row_fields(_one("card", "[1]")) is None
    assert row_fields(_one("card", "{")) is None
    assert row_fields(_one("card", "[" * 100_000)) is None


@given(st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=6))
def test_row_fields_gives_back_any_object_a_row_holds(data: dict[str, Any]) -> None:
    assert row_fields(_one("card", data)) == data
