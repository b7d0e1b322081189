"""The journal's row format written fast, byte for byte as docs/journal.md defines it.

The writer formats timestamps with ``isoformat`` and writes a row's header array directly
(the station writes ~137 rows a round). These tests hold those shortcuts to the
definitions in docs/journal.md ("hash = sha256(prev_hash + canonical JSON of [id, ts, kind,
round] + data)", timestamps ``%Y-%m-%dT%H:%M:%S.%fZ`` in UTC), computed here with
``hashlib``/``json``/``strftime`` directly, and check that one failed row fails its whole
group commit.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.journal.format import (
    GENESIS_HASH,
    HEAD_RECORD_SIZE,
    JournalCorruptError,
    Row,
    canonical_json,
    format_ts,
    head_record,
    parse_head,
    plain_row_hash,
    row_hash,
    ts_from_ns,
    utc_now,
)
from controller.journal.store import Journal, JournalRecordError, JournalWriteError
from controller.journal.verify import VerifyCase, verify


def reference_hash(prev: str, header: list[object], data_text: str) -> str:
    """docs/journal.md's recipe, written out with the standard library."""
    header_text = json.dumps(
        header,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
        allow_nan=False,
    )
    return hashlib.sha256((prev + header_text + data_text).encode()).hexdigest()


def test_a_hand_worked_row_hash() -> None:
    # The bytes hashed, written out by hand: 64 zeros, then the header array, then data.
    text = "0" * 64 + '[1,"2026-11-30T09:00:00.123456Z","card",4]' + '{"card":"7S","seat":1}'
    expected = hashlib.sha256(text.encode()).hexdigest()
    got = row_hash(
        "0" * 64,
        row_id=1,
        ts="2026-11-30T09:00:00.123456Z",
        kind="card",
        round_no=4,
        data_text='{"card":"7S","seat":1}',
    )
    assert got == expected
    none_round = row_hash(
        "0" * 64, row_id=7, ts="2026-11-30T09:00:00.123456Z", kind="seal", round_no=None,
        data_text="{}",
    )  # fmt: skip
    by_hand = "0" * 64 + '[7,"2026-11-30T09:00:00.123456Z","seal",null]{}'
    assert none_round == hashlib.sha256(by_hand.encode()).hexdigest()


@given(
    row_id=st.one_of(st.integers(min_value=0, max_value=2**62), st.booleans()),
    ts=st.one_of(
        st.datetimes(timezones=st.just(UTC)).map(format_ts),
        st.text(max_size=40),
    ),
    kind=st.one_of(st.from_regex(r"[a-z][a-z0-9_]{0,63}", fullmatch=True), st.text(max_size=20)),
    round_no=st.one_of(st.none(), st.integers(min_value=-(2**40), max_value=2**40)),
    data_text=st.text(max_size=60),
)
def test_row_hash_is_the_documented_recipe_for_any_row(
    row_id: int, ts: str, kind: str, round_no: int | None, data_text: str
) -> None:
    """Plain rows (the writer's) and odd ones (a tampered file read by verify) alike."""
    prev = "a" * 64
    got = row_hash(prev, row_id=row_id, ts=ts, kind=kind, round_no=round_no, data_text=data_text)
    assert got == reference_hash(prev, [row_id, ts, kind, round_no], data_text)


@given(
    row_id=st.integers(min_value=1, max_value=2**62),
    moment=st.datetimes(
        min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
    ),
    kind=st.from_regex(r"[a-z][a-z0-9_]{0,63}", fullmatch=True),
    round_no=st.one_of(st.none(), st.integers(min_value=0, max_value=2**62)),
    data_text=st.text(max_size=60),
)
def test_the_writers_unchecked_row_hash_is_the_documented_recipe(
    row_id: int, moment: datetime, kind: str, round_no: int | None, data_text: str
) -> None:
    """The writer skips row_hash's checks for what it knows is plain: any row it
    can write (every format_ts time, years below 1000 too) still hashes per docs/journal.md."""
    prev = "b" * 64
    ts = format_ts(moment)
    got = plain_row_hash(
        prev, row_id=row_id, ts=ts, kind=kind, round_no=round_no, data_text=data_text
    )
    assert got == reference_hash(prev, [row_id, ts, kind, round_no], data_text)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(value=JSON_VALUES)
def test_canonical_json_is_json_dumps_with_the_documented_options(value: object) -> None:
    """The C encoder built once gives the bytes json.dumps gives."""
    expected = json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )
    assert canonical_json(value) == expected


def test_canonical_json_refuses_what_json_cannot_carry() -> None:
    circular: list[object] = []
    circular.append(circular)
    for value in (
        {"a": float("nan")},
        {"a": float("inf")},
        {"a": {1, 2}},
        {"a": b"x"},
        {"a": object()},
        {1: "x", "b": "y"},  # keys that do not sort
        circular,
    ):
        with pytest.raises(JournalRecordError, match="not plain JSON"):
            canonical_json(value)
    # A failed call leaves nothing behind: the same value encodes afterwards.
    shared = {"seat": 1}
    with pytest.raises(JournalRecordError):
        canonical_json([shared, object()])
    assert canonical_json([shared, shared]) == '[{"seat":1},{"seat":1}]'


@given(
    moment=st.datetimes(
        min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
    ),
    offset_minutes=st.integers(min_value=-23 * 60, max_value=23 * 60),
)
def test_timestamps_are_utc_in_the_documented_form_for_any_moment(
    moment: datetime, offset_minutes: int
) -> None:
    """docs/journal.md: ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` in UTC, the year in four digits
    (strftime("%Y") writes the year 999 as "999")."""
    zone = timezone(timedelta(minutes=offset_minutes))
    local = moment.astimezone(zone)
    m = moment
    expected = (
        f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}"
        f".{m.microsecond:06d}Z"
    )
    assert format_ts(moment) == expected
    assert format_ts(local) == expected  # the same moment seen from another zone


def test_canonical_json_is_sorted_compact_ascii() -> None:
    assert canonical_json({"b": 1, "a": ["é", None, True]}) == '{"a":["\\u00e9",null,true],"b":1}'


def test_a_failed_row_fails_its_whole_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One event's rows are one transaction: a row broken off inside it (the caller even
    catching the error) leaves none of the event's rows and a chain that verifies."""
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("station_started", {})
        calls = {"n": 0}

        def hash_or_interrupt(*args: Any, **kwargs: Any) -> str:
            calls["n"] += 1
            if calls["n"] == 2:
                raise KeyboardInterrupt  # broken off at the second row, e.g. by a signal
            return plain_row_hash(*args, **kwargs)

        monkeypatch.setattr("controller.journal.store.plain_row_hash", hash_or_interrupt)
        with (
            pytest.raises(
                JournalWriteError, match=r"^a row of this batch failed; none of it was kept$"
            ),
            journal.batch(),
        ):
            journal.append("event", {"n": 1})
            with pytest.raises(KeyboardInterrupt):
                journal.append("event", {"n": 2})
            # The caller carries on: nothing more is taken into the broken batch.
            with pytest.raises(
                JournalWriteError,
                match=r"^an earlier row of this batch failed; it is rolled back$",
            ):
                journal.append("event", {"n": 3})
        monkeypatch.undo()
        assert journal.last_id == 1
        with journal.batch():
            assert journal.append("event", {"n": 4}) == 2
            assert journal.append("event", {"n": 5}) == 3
        assert [r.id for r in journal.rows()] == [1, 2, 3]
    assert verify(path).case is VerifyCase.INTACT


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
LAST_NS = (datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC) - EPOCH) // timedelta(
    microseconds=1
) * 1000 + 999


@given(ns=st.integers(min_value=0, max_value=LAST_NS))
def test_the_default_clocks_timestamp_is_format_ts_for_any_moment(ns: int) -> None:
    """The writer formats its default clock's time without a datetime: the same
    text as format_ts, from the epoch to the last nanosecond of year 9999."""
    assert ts_from_ns(ns) == format_ts(EPOCH + timedelta(microseconds=ns // 1000))


def test_the_default_clocks_timestamp_at_second_and_day_boundaries() -> None:
    second = 1_795_000_000 * 10**9  # 2026-11-18T11:06:40Z
    assert ts_from_ns(second - 1) == "2026-11-18T11:06:39.999999Z"
    assert ts_from_ns(second) == "2026-11-18T11:06:40.000000Z"
    assert ts_from_ns(second + 999) == "2026-11-18T11:06:40.000000Z"  # ns below a us drop
    assert ts_from_ns(second + 1000) == "2026-11-18T11:06:40.000001Z"
    assert ts_from_ns(second - 1) == "2026-11-18T11:06:39.999999Z"  # back a second
    assert ts_from_ns(0) == "1970-01-01T00:00:00.000000Z"
    assert ts_from_ns(LAST_NS) == "9999-12-31T23:59:59.999999Z"
    leap_day = (datetime(2028, 2, 29, 23, 59, 59, tzinfo=UTC) - EPOCH) // timedelta(seconds=1)
    assert ts_from_ns(leap_day * 10**9) == "2028-02-29T23:59:59.000000Z"
    assert ts_from_ns((leap_day + 1) * 10**9) == "2028-03-01T00:00:00.000000Z"


def test_a_journal_on_the_default_clock_stamps_rows_with_the_time_of_writing(
    tmp_path: Path,
) -> None:
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        before = format_ts(utc_now())
        journal.append("station_started", {})
        with journal.batch():
            journal.append("card", {"card": "7S"}, 1)
        after = format_ts(utc_now())
        stamps = [row.ts for row in journal.rows()]
    assert before <= stamps[0] <= stamps[1] <= after


# -- a row as the reader gives it, and the head record (docs/journal.md, "Storage") -----------

DIGEST = "ab" * 32
A_ROW = Row(5, "2026-11-30T09:00:00.123456Z", "card", 4, '{"card":"7S","seat":1}', "0" * 64,
            DIGEST)  # fmt: skip


def test_a_rows_data_and_export_line_are_its_stored_fields() -> None:
    assert A_ROW.data == {"card": "7S", "seat": 1}
    assert A_ROW.data is not A_ROW.data  # a fresh dict: a caller's change reaches no other
    # The `journal export` line, written out by hand.
    assert A_ROW.as_json() == {
        "id": 5,
        "ts": "2026-11-30T09:00:00.123456Z",
        "kind": "card",
        "round": 4,
        "data": {"card": "7S", "seat": 1},
        "prev_hash": "0" * 64,
        "hash": DIGEST,
    }


@pytest.mark.parametrize(
    ("data_text", "refusal"),
    [
        ("{", "row 5: data is not JSON"),
        ('{"a":1}x', "row 5: data is not JSON"),
        ("[1]", "row 5: data is not a JSON object"),
        ("null", "row 5: data is not a JSON object"),
        ("[" * 100_000, "row 5: data is nested too deeply"),
    ],
)
def test_stored_data_that_is_not_a_json_object_is_refused_in_one_line(
    data_text: str, refusal: str
) -> None:
    row = Row(5, A_ROW.ts, "card", 4, data_text, "0" * 64, DIGEST)
    with pytest.raises(JournalCorruptError, match=f"^{re.escape(refusal)}$"):
        row.data  # noqa: B018 - the property parses


def test_the_head_record_is_128_bytes_of_its_id_and_hash() -> None:
    # docs/journal.md: `{"hash":"...","id":N}` padded with spaces, a newline at the end.
    by_hand = ('{"hash":"' + DIGEST + '","id":3}').encode()
    record = head_record(3, DIGEST)
    assert record == by_hand + b" " * (HEAD_RECORD_SIZE - 1 - len(by_hand)) + b"\n"
    assert len(record) == HEAD_RECORD_SIZE == 128
    assert parse_head(record) == (3, DIGEST)
    # A hash read from a damaged file is escaped as JSON, and reads back as it was.
    damaged = head_record(3, 'A"\\')
    assert damaged == b'{"hash":"A\\"\\\\","id":3}'.ljust(127) + b"\n"
    assert parse_head(damaged) == (3, 'A"\\')
    assert head_record(0, GENESIS_HASH).startswith(b'{"hash":"' + b"0" * 64 + b'","id":0}  ')


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b" " * 127 + b"\n",
        b'{"id":3}',
        b'{"hash":"ab"}',
        b'{"id":"3","hash":"ab"}',
        b'{"id":true,"hash":"ab"}',
        b'{"id":3.0,"hash":"ab"}',
        b'{"id":3,"hash":null}',
        b'{"id":3,"hash":7}',
        b"[3]",
        b'"3"',
        '{"id":3,"hash":"\u00e9"}'.encode(),
        b'{"id":3,"hash":"ab"',
    ],
)
def test_a_head_record_that_does_not_name_a_row_reads_as_none(raw: bytes) -> None:
    assert parse_head(raw) is None


def test_a_moment_in_any_zone_or_before_the_year_1000_is_stamped_in_utc() -> None:
    east = timezone(timedelta(hours=2))
    assert (
        format_ts(datetime(2026, 12, 1, 1, 2, 3, 4, tzinfo=east)) == "2026-11-30T23:02:03.000004Z"
    )
    assert format_ts(datetime(999, 1, 2, 3, 4, 5, 6, tzinfo=UTC)) == "0999-01-02T03:04:05.000006Z"
    assert format_ts(datetime(1000, 1, 2, 3, 4, 5, 6, tzinfo=UTC)) == "1000-01-02T03:04:05.000006Z"
    assert format_ts(datetime(2026, 11, 30, 9, 0, tzinfo=UTC)) == "2026-11-30T09:00:00.000000Z"


def test_what_json_cannot_carry_is_named_by_its_type() -> None:
    # json's own wording, kept whole in the journal's one-line refusal.
    with pytest.raises(JournalRecordError) as caught:
        canonical_json({"a": {1}})
    assert str(caught.value) == "not plain JSON: Object of type set is not JSON serializable"


@pytest.mark.parametrize("round_no", ["4", True, 4.0])
def test_a_row_read_with_a_round_that_is_not_an_integer_hashes_by_the_recipe(
    round_no: object,
) -> None:
    # row_hash takes any header (the writer's fast path is for plain ones only): the
    # header is canonical JSON, so "4", true and 4.0 each hash as themselves, never as
    # the integer 4 (written out by hand).
    header = {"4": '"4"', True: "true", 4.0: "4.0"}[round_no]
    by_hand = "a" * 64 + '[1,"2026-11-30T09:00:00.123456Z","card",' + header + "]{}"
    got = row_hash("a" * 64, row_id=1, ts="2026-11-30T09:00:00.123456Z", kind="card",
                   round_no=round_no, data_text="{}")  # type: ignore[arg-type]  # fmt: skip
    assert got == hashlib.sha256(by_hand.encode()).hexdigest()


def test_the_clock_and_the_stamp_are_utc_whatever_the_stations_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A station whose system zone is not UTC (New York, five hours behind in November).
    monkeypatch.setenv("TZ", "EST+5")
    time.tzset()
    try:
        assert utc_now().tzinfo is UTC
        east = datetime(2026, 12, 1, 1, 2, 3, 4, tzinfo=timezone(timedelta(hours=2)))
        assert format_ts(east) == "2026-11-30T23:02:03.000004Z"
    finally:
        monkeypatch.undo()
        time.tzset()
