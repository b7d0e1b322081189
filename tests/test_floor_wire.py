"""The journal's wire format (``controller.journal.wire``): what a station sends decodes
to the same rows; anything else is one ``WireError``, never another exception."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.journal.format import GENESIS_HASH, Row
from controller.journal.wire import (
    Ack,
    Status,
    WireError,
    decode_ack,
    decode_rows,
    decode_status,
    encode_ack,
    encode_rows,
    encode_status,
    parse_topic,
    topic,
)

ROWS = [
    Row(7, "2026-11-30T20:00:00.000001Z", "round_started", 3, '{"round":3}', "a" * 64, "b" * 64),
    Row(8, "2026-11-30T20:00:00.000002Z", "device", None, '{"device":"shoe"}', "b" * 64, "c" * 64),
]


def test_rows_status_and_ack_decode_to_what_was_sent() -> None:
    assert decode_rows(encode_rows("T1", ROWS), "T1") == ROWS
    status = Status("T1", "2026-11-30T20:00:00Z", "deal", 3, {"code": "x", "state": "deal"},
                    {"shoe": "connected"}, (8, "c" * 64), 7)  # fmt: skip
    assert decode_status(encode_status(status), "T1") == status
    assert decode_ack(encode_ack(Ack(8, "c" * 64))) == Ack(8, "c" * 64)
    assert decode_ack(encode_ack(Ack(0, GENESIS_HASH, rewind=True))).rewind


def test_the_status_carries_the_latest_seal_and_refuses_a_bad_one() -> None:
    anchored = Status("T1", "2026-11-30T20:00:00Z", None, None, None, {}, (9, "c" * 64), 0,
                      (9, 3, "c" * 64))  # fmt: skip
    assert decode_status(encode_status(anchored), "T1") == anchored
    # A station from before the anchor: none, and the status still decodes.
    older = json.loads(encode_status(anchored))
    del older["anchor"]
    assert decode_status(json.dumps(older).encode(), "T1").anchor is None
    for bad in (
        [9, 3],
        [0, 3, "c" * 64],
        [9, -1, "c" * 64],
        [9, 3, "C" * 64],
        "9:3",
        [9, True, "c" * 64],
    ):
        older["anchor"] = bad
        with pytest.raises(WireError, match="bad anchor"):
            decode_status(json.dumps(older).encode(), "T1")


def test_thousands_of_nested_arrays_are_a_wire_error() -> None:
    deep = b'{"v":1,"table":"T1","rows":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    for decode in (lambda p: decode_rows(p, "T1"), lambda p: decode_status(p, "T1"), decode_ack):
        with pytest.raises(WireError, match="nested too deeply"):
            decode(deep)


def test_rows_of_another_table_or_out_of_order_are_refused() -> None:
    with pytest.raises(WireError, match="on the topic of"):
        decode_rows(encode_rows("T1", ROWS), "T2")
    with pytest.raises(WireError, match="does not follow"):
        decode_rows(encode_rows("T1", ROWS[::-1]), "T1")


def test_topics() -> None:
    assert topic("PA-S21-07", "rows") == "floor/PA-S21-07/rows"
    assert parse_topic("floor/PA-S21-07/ack") == ("PA-S21-07", "ack")
    for bad in ("floor/T1", "floor/T1/rows/x", "floor//rows", "other/T1/rows", "floor/T 1/rows"):
        with pytest.raises(WireError):
            parse_topic(bad)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=6), inner, max_size=8)
    ),
    max_leaves=30,
)


@given(st.one_of(st.binary(max_size=200), JSON.map(lambda v: json.dumps(v).encode())))
def test_hostile_payloads_give_a_wire_error(payload: bytes) -> None:
    for decode in (lambda p: decode_rows(p, "T1"), lambda p: decode_status(p, "T1"), decode_ack):
        try:
            decode(payload)
        except WireError as err:
            assert "\n" not in str(err)


@given(st.lists(st.fixed_dictionaries({}).flatmap(lambda _: JSON), min_size=7, max_size=7))
def test_hostile_rows_give_a_wire_error(fields: list[object]) -> None:
    payload = json.dumps({"v": 1, "table": "T1", "rows": [fields]}).encode()
    with contextlib.suppress(WireError):
        decode_rows(payload, "T1")


def test_a_rows_data_nested_thousands_deep_is_a_journal_error_not_a_recursion_error() -> None:
    from controller.journal.format import JournalCorruptError

    row = Row(1, "2026-11-30T20:00:00.000001Z", "seal", None, "[" * 100_000, "a" * 64, "b" * 64)
    with pytest.raises(JournalCorruptError, match="nested too deeply"):
        row.data  # noqa: B018 - the property parses
