"""The journal's wire format (``controller.journal.wire``): what a station sends decodes
to the same rows; anything else is one ``WireError``, never another exception."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given, settings
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
        with pytest.raises(WireError, match=r"^not JSON: nested too deeply$"):
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


# -- the messages' bytes, written out by hand (docs/floor.md, "Messages") ---------------------

HASH_C = "c" * 64


def test_each_message_is_one_compact_json_object_with_its_version_first() -> None:
    # Hand-written: "v" first, no spaces, the row's fields in the order docs/floor.md lists.
    assert encode_ack(Ack(8, HASH_C)) == (
        b'{"v":1,"row":8,"hash":"' + HASH_C.encode() + b'","rewind":false}'
    )
    row = Row(7, "2026-11-30T20:00:00.000001Z", "round_started", 3, '{"round":3}', "a" * 64,
              HASH_C)  # fmt: skip
    assert encode_rows("T1", [row]) == (
        b'{"v":1,"table":"T1","rows":[[7,"2026-11-30T20:00:00.000001Z","round_started",3,'
        b'"{\\"round\\":3}","' + b"a" * 64 + b'","' + HASH_C.encode() + b'"]]}'
    )
    status = Status("T1", "2026-11-30T20:00:00Z", None, None, None, {"shoe": "lost"},
                    (0, ""), 0)  # fmt: skip
    assert encode_status(status) == (
        b'{"v":1,"table":"T1","ts":"2026-11-30T20:00:00Z","state":null,"round":null,'
        b'"fault":null,"devices":{"shoe":"lost"},"head":[0,""],"acked":0,"anchor":null}'
    )
    anchored = Status("T1", "2026-11-30T20:00:00Z", "deal", 4, None, {}, (9, HASH_C), 9,
                      (9, 2, HASH_C))  # fmt: skip
    assert json.loads(encode_status(anchored))["anchor"] == [9, 2, HASH_C]


HEX64 = st.binary(min_size=32, max_size=32).map(bytes.hex)
WIRE_ROWS = st.lists(
    st.tuples(
        st.text(max_size=40),
        st.sampled_from(["card", "seal", "x", "a9_b", "k" * 64]),
        st.none() | st.integers(min_value=0, max_value=2**62 - 1),
        st.text(max_size=30),
        HEX64,
    ),
    min_size=1,
    max_size=5,
)


@given(st.integers(min_value=1, max_value=2**62 - 6), WIRE_ROWS)
@settings(max_examples=30)
def test_any_consecutive_rows_decode_to_what_was_sent(
    first: int, fields: list[tuple[str, str, int | None, str, str]]
) -> None:
    rows, prev = [], GENESIS_HASH
    for n, (ts, kind, round_no, data, digest) in enumerate(fields):
        rows.append(Row(first + n, ts, kind, round_no, data, prev, digest))
        prev = digest
    assert decode_rows(encode_rows("T1", rows), "T1") == rows


TEXT = st.text(max_size=32)
NATURAL = st.integers(min_value=0, max_value=2**62 - 1)
#: A committed row (id from 1, its hash), or an empty journal's (0, "").
HEAD = st.tuples(st.integers(min_value=1, max_value=2**62 - 1), HEX64) | st.just((0, ""))
STATUSES = st.builds(
    Status,
    table=st.just("T1"),
    ts=st.text(max_size=40),
    state=st.none() | st.text(max_size=64),
    round_no=st.none() | NATURAL,
    fault=st.none() | st.fixed_dictionaries({"code": st.text(max_size=200), "state": TEXT}),
    devices=st.dictionaries(TEXT, TEXT, max_size=16),
    head=HEAD,
    acked=NATURAL,
    anchor=st.none() | st.tuples(st.integers(min_value=1, max_value=2**62 - 1), NATURAL, HEX64),
)


@given(STATUSES)
@settings(max_examples=30)
def test_any_status_decodes_to_what_was_sent(status: Status) -> None:
    assert decode_status(encode_status(status), "T1") == status


@given(HEAD, st.booleans())
@settings(max_examples=30)
def test_any_ack_decodes_to_what_was_sent(row: tuple[int, str], rewind: bool) -> None:
    assert decode_ack(encode_ack(Ack(row[0], row[1], rewind))) == Ack(row[0], row[1], rewind)


# -- what each decoder refuses, at both sides of every limit -----------------------------------

TS = "2026-11-30T20:00:00.000001Z"


def _rows_payload(*items: object, table: object = "T1", v: object = 1) -> bytes:
    return json.dumps({"v": v, "table": table, "rows": list(items)}).encode()


def _row(**changes: object) -> list[object]:
    """A row of the message, ``[id, ts, kind, round, data, prev_hash, hash]``, with changes."""
    fields = {"row_id": 7, "ts": TS, "kind": "card", "round_no": 3, "data": "{}",
              "prev": "a" * 64, "digest": HASH_C} | changes  # fmt: skip
    return list(fields.values())


@pytest.mark.parametrize(
    ("payload", "refusal"),
    [
        (b"\xff\xfe{", "not JSON: "),
        (b"[1]", "not a JSON object"),
        (b'{"table":"T1"}', "unknown message version None"),
        (_rows_payload(_row(), v=2), "unknown message version 2"),
        (_rows_payload(_row(), v=True), "unknown message version True"),
        (_rows_payload(_row(), v=1.0), "unknown message version 1.0"),
        (_rows_payload(_row(), table="T2"), "rows for 'T2' on the topic of 'T1'"),
        (b'{"v":1,"table":"T1"}', "rows: expected a list of 1 to 5000 rows"),
        (_rows_payload(), "rows: expected a list of 1 to 5000 rows"),
        (b'{"v":1,"table":"T1","rows":{"7":1}}', "rows: expected a list of 1 to 5000 rows"),
        (_rows_payload(_row()[:6]), r"row: expected \[id, ts, kind, round, data, prev_hash, "),
        (_rows_payload([*_row(), None]), "row: expected"),
        (_rows_payload("row"), "row: expected"),
        (_rows_payload(_row(row_id=0)), "row id 0 is not a positive integer"),
        (_rows_payload(_row(row_id=-1)), "row id -1 is not a positive integer"),
        (_rows_payload(_row(row_id=2**62)), f"row id {2**62} is not a positive integer"),
        (_rows_payload(_row(row_id=True)), "row id True is not a positive integer"),
        (_rows_payload(_row(row_id=7.0)), "row id 7.0 is not a positive integer"),
        (_rows_payload(_row(ts="1" * 41)), "row 7: bad ts"),
        (_rows_payload(_row(ts=None)), "row 7: bad ts"),
        (_rows_payload(_row(kind="Card")), "row 7: bad kind"),
        (_rows_payload(_row(kind="c" * 65)), "row 7: bad kind"),
        (_rows_payload(_row(kind=7)), "row 7: bad kind"),
        (_rows_payload(_row(round_no=-1)), "row 7: bad round"),
        (_rows_payload(_row(round_no=2**62)), "row 7: bad round"),
        (_rows_payload(_row(round_no=True)), "row 7: bad round"),
        (_rows_payload(_row(round_no="3")), "row 7: bad round"),
        (_rows_payload(_row(data={})), "row 7: data is not text"),
        (_rows_payload(_row(prev="A" * 64)), "row 7: bad prev_hash"),
        (_rows_payload(_row(prev="a" * 63)), "row 7: bad prev_hash"),
        (_rows_payload(_row(prev=None)), "row 7: bad prev_hash"),
        (_rows_payload(_row(digest="c" * 65)), "row 7: bad hash"),
        (_rows_payload(_row(digest=7)), "row 7: bad hash"),
        (_rows_payload(_row(), _row(row_id=9)), "row 9 does not follow row 7"),
        (_rows_payload(_row(), _row(row_id=7)), "row 7 does not follow row 7"),
    ],
)
def test_a_rows_message_written_any_other_way_is_refused_in_one_line(
    payload: bytes, refusal: str
) -> None:
    with pytest.raises(WireError, match=f"^{refusal}") as caught:
        decode_rows(payload, "T1")
    assert "\n" not in str(caught.value)


def test_a_rows_message_holds_1_to_5000_rows_and_each_field_up_to_its_limit() -> None:
    rows = [_row(row_id=n) for n in range(1, 5001)]
    assert len(decode_rows(_rows_payload(*rows), "T1")) == 5000
    with pytest.raises(WireError, match=r"^rows: expected a list of 1 to 5000 rows$"):
        decode_rows(_rows_payload(*rows, _row(row_id=5001)), "T1")
    (row,) = decode_rows(
        _rows_payload(_row(row_id=2**62 - 1, ts="1" * 40, kind="c" * 64, round_no=2**62 - 1)),
        "T1",
    )
    assert (row.id, row.ts, row.kind, row.round_no) == (2**62 - 1, "1" * 40, "c" * 64, 2**62 - 1)
    (first,) = decode_rows(_rows_payload(_row(row_id=1, round_no=0)), "T1")
    assert (first.id, first.round_no) == (1, 0)
    (unrounded,) = decode_rows(_rows_payload(_row(round_no=None)), "T1")
    assert unrounded.round_no is None


STATUS = {
    "v": 1,
    "table": "T1",
    "ts": "2026-11-30T20:00:00Z",
    "state": "deal",
    "round": 3,
    "fault": {"code": "x", "state": "deal"},
    "devices": {"shoe": "connected"},
    "head": [8, HASH_C],
    "acked": 7,
    "anchor": None,
}


def _status(**changes: object) -> bytes:
    value = {**STATUS, **changes}
    return json.dumps({k: v for k, v in value.items() if v is not ...}).encode()


@pytest.mark.parametrize(
    ("payload", "refusal"),
    [
        (_status(v=0), "unknown message version 0"),
        (_status(table="T2"), "status for 'T2' on the topic of 'T1'"),
        (_status(table=...), "status for None on the topic of 'T1'"),
        (_status(ts="1" * 41), "status: bad ts"),
        (_status(ts=None), "status: bad ts"),
        (_status(ts=...), "status: bad ts"),
        (_status(state="s" * 65), "status: bad state"),
        (_status(state=3), "status: bad state"),
        (_status(round=-1), "status: bad round"),
        (_status(round=2**62), "status: bad round"),
        (_status(round=False), "status: bad round"),
        (_status(round=3.0), "status: bad round"),
        (_status(fault={"code": "x"}), "status: bad fault"),
        (_status(fault={"code": "x", "state": "deal", "message": "7H"}), "status: bad fault"),
        (_status(fault={"code": "x" * 201, "state": "deal"}), "status: bad fault"),
        (_status(fault={"code": "x", "state": "d" * 201}), "status: bad fault"),
        (_status(fault={"code": "x", "state": None}), "status: bad fault"),
        (_status(fault=["code", "state"]), "status: bad fault"),
        (_status(devices=None), "status: bad devices"),
        (_status(devices=["shoe"]), "status: bad devices"),
        (_status(devices={f"d{n}": "lost" for n in range(17)}), "status: bad devices"),
        (_status(devices={"s" * 33: "lost"}), "status: bad device health"),
        (_status(devices={"shoe": "l" * 33}), "status: bad device health"),
        (_status(devices={"shoe": None}), "status: bad device health"),
        (_status(head=[8]), "status: bad head"),
        (_status(head=[8, HASH_C, 1]), "status: bad head"),
        (_status(head="8"), "status: bad head"),
        (_status(head=[8, ""]), "status: bad head"),
        (_status(head=[0, "c"]), "status: bad head"),
        (_status(head=[-1, HASH_C]), "status: bad head"),
        (_status(head=[2**62, HASH_C]), "status: bad head"),
        (_status(head=[True, HASH_C]), "status: bad head"),
        (_status(head=[8, None]), "status: bad head"),
        (_status(head=[8, "C" * 64]), "status: bad head"),
        (_status(acked=-1), "status: bad acked"),
        (_status(acked=2**62), "status: bad acked"),
        (_status(acked=True), "status: bad acked"),
        (_status(acked=None), "status: bad acked"),
        (_status(anchor=[2**62, 3, HASH_C]), "status: bad anchor"),
        (_status(anchor=[9, 2**62, HASH_C]), "status: bad anchor"),
        (_status(anchor=[9, 3, 7]), "status: bad anchor"),
        (_status(anchor=[9, 3, HASH_C, 1]), "status: bad anchor"),
    ],
)
def test_a_status_written_any_other_way_is_refused_in_one_line(
    payload: bytes, refusal: str
) -> None:
    with pytest.raises(WireError, match=f"^{refusal}$") as caught:
        decode_status(payload, "T1")
    assert "\n" not in str(caught.value)


def test_a_status_takes_each_field_up_to_its_limit() -> None:
    devices = {f"{n:0>32}": "h" * 32 for n in range(16)}
    fault = {"code": "x" * 200, "state": "s" * 200}
    status = decode_status(
        _status(ts="1" * 40, state="s" * 64, round=2**62 - 1, fault=fault, devices=devices,
                head=[2**62 - 1, HASH_C], acked=2**62 - 1, anchor=[2**62 - 1, 2**62 - 1, HASH_C]),
        "T1",
    )  # fmt: skip
    top = 2**62 - 1
    assert status == Status(
        "T1", "1" * 40, "s" * 64, top, fault, devices, (top, HASH_C), top, (top, top, HASH_C)
    )
    least = decode_status(
        _status(state=None, round=0, fault=None, devices={}, head=[0, ""], acked=0,
                anchor=[1, 0, HASH_C]), "T1"
    )  # fmt: skip
    assert least == Status("T1", STATUS["ts"], None, 0, None, {}, (0, ""), 0, (1, 0, HASH_C))  # type: ignore[arg-type]
    # A head of row 0 may name a hash too (an empty journal's genesis).
    assert decode_status(_status(head=[0, GENESIS_HASH]), "T1").head == (0, GENESIS_HASH)


@pytest.mark.parametrize(
    ("ack", "refusal"),
    [
        ({"hash": HASH_C, "rewind": False}, "ack: bad row"),
        ({"row": -1, "hash": HASH_C, "rewind": False}, "ack: bad row"),
        ({"row": 2**62, "hash": HASH_C, "rewind": False}, "ack: bad row"),
        ({"row": True, "hash": HASH_C, "rewind": False}, "ack: bad row"),
        ({"row": 8, "hash": "", "rewind": False}, "ack: bad hash"),
        ({"row": 8, "hash": "C" * 64, "rewind": False}, "ack: bad hash"),
        ({"row": 0, "hash": "c", "rewind": False}, "ack: bad hash"),
        ({"row": 8, "hash": None, "rewind": False}, "ack: bad hash"),
        ({"row": 8, "hash": HASH_C, "rewind": 0}, "ack: bad rewind"),
        ({"row": 8, "hash": HASH_C}, "ack: bad rewind"),
    ],
)
def test_an_ack_written_any_other_way_is_refused_in_one_line(
    ack: dict[str, object], refusal: str
) -> None:
    with pytest.raises(WireError, match=f"^{refusal}$"):
        decode_ack(json.dumps({"v": 1, **ack}).encode())


def test_an_ack_takes_row_0_to_2_62_less_1() -> None:
    assert decode_ack(b'{"v":1,"row":0,"hash":"","rewind":true}') == Ack(0, "", True)
    top = json.dumps({"v": 1, "row": 2**62 - 1, "hash": HASH_C, "rewind": False}).encode()
    assert decode_ack(top) == Ack(2**62 - 1, HASH_C, False)


def test_a_topic_is_named_only_for_a_table_name_and_a_kind_the_floor_knows() -> None:
    assert topic("T", "status") == "floor/T/status"
    assert topic("a" * 32, "ack") == f"floor/{'a' * 32}/ack"
    for table, kind in (("T1", "row"), ("T 1", "rows"), ("-T1", "rows"), ("a" * 33, "rows")):
        with pytest.raises(WireError, match=f"^no topic for table {table!r}, kind {kind!r}$"):
            topic(table, kind)
    assert parse_topic(f"floor/{'a' * 32}/status") == ("a" * 32, "status")
    long = "floor/" + "x" * 100
    with pytest.raises(WireError, match=f"^not a floor topic: {'floor/' + 'x' * 74!r}$"):
        parse_topic(long)
    for bad in ("floor/T1/row", "floor/T1/status/", f"floor/{'a' * 33}/rows"):
        with pytest.raises(WireError, match=r"^not a floor topic"):
            parse_topic(bad)
