"""The compact storage codec of a journal row (``controller.journal.compact``, docs/journal.md
"Storage format 2"): every value it stores reads back as exactly the text the chain hash
covers, and stored bytes that do not read back whole are refused in one line.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.journal.compact import (
    COMMIT_DICTIONARY_LIMIT,
    COMMIT_ROWS_LIMIT,
    COMMIT_WINDOW_BITS,
    DATA_LIMIT,
    DICTIONARY_LIMIT,
    WINDOW_BITS,
    CommitCodec,
    DataCodec,
    StoredRow,
    build_dictionary,
    micros_from_ts,
    ts_from_micros,
)
from controller.journal.dictionaries import commit_dictionary, load_dictionaries
from controller.journal.format import (
    KIND_PATTERN,
    PLAIN_TS,
    JournalCorruptError,
    JournalRecordError,
    Row,
    canonical_json,
    format_ts,
    row_hash,
)
from controller.journal.kinds import KINDS
from controller.journal.reader import JournalReader
from controller.simulation.runner import SimulatedTable, SimulationSettings

# Hand-worked: 2026-11-30T09:15:12.123456Z is 1,796,030,112 s after 1970-01-01 (20,787
# days of 86,400 s: 56 years with 14 leap days, then 333 days of 2026; 9 h 15 min 12 s) and
# 123,456 us.
KNOWN_TS = "2026-11-30T09:15:12.123456Z"
KNOWN_MICROS = (20_787 * 86_400 + 9 * 3600 + 15 * 60 + 12) * 1_000_000 + 123_456

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
DATA = st.dictionaries(st.text(max_size=10), JSON_VALUES, max_size=6)


@pytest.fixture(scope="module")
def simulated_rows(tmp_path_factory: pytest.TempPathFactory) -> list[Row]:
    """The rows of a PA table and of an NJ table with injected faults (every kind a
    simulation writes, hole-card reveals and faults among them)."""
    folder = tmp_path_factory.mktemp("compact")
    rows: list[Row] = []
    for name, profile, rounds, seed, faults in (("pa", "PA", 12, 3, 0.0), ("nj", "NJ", 8, 7, 0.1)):
        path = folder / f"{name}.sqlite3"
        SimulatedTable(
            SimulationSettings(
                profile=profile, rounds=rounds, seed=seed, faults=faults, journal=path
            )
        ).run()
        with JournalReader.open(path) as reader:
            rows += reader.rows()
    return rows


def _codec(kind: str) -> DataCodec:
    return DataCodec(load_dictionaries().get(kind, b""))


# -- timestamps --------------------------------------------------------------------------


def test_a_timestamp_is_stored_as_its_microseconds_since_1970() -> None:
    assert micros_from_ts(KNOWN_TS) == KNOWN_MICROS
    assert ts_from_micros(KNOWN_MICROS) == KNOWN_TS
    assert micros_from_ts("1970-01-01T00:00:00.000000Z") == 0
    assert micros_from_ts("1969-12-31T23:59:59.999999Z") == -1
    assert ts_from_micros(-1) == "1969-12-31T23:59:59.999999Z"


@pytest.mark.parametrize(
    "ts",
    ["0001-01-01T00:00:00.000000Z", "9999-12-31T23:59:59.999999Z", "2024-02-29T23:59:59.000001Z"],
)
def test_the_calendar_s_ends_and_a_leap_day_read_back(ts: str) -> None:
    assert ts_from_micros(micros_from_ts(ts)) == ts


@given(st.datetimes(timezones=st.just(UTC)))
def test_every_timestamp_the_writer_formats_reads_back_exactly(moment: datetime) -> None:
    ts = format_ts(moment)
    assert ts_from_micros(micros_from_ts(ts)) == ts


@given(st.from_regex(PLAIN_TS, fullmatch=True))
@settings(max_examples=500)
def test_any_text_of_the_timestamp_pattern_reads_back_or_is_refused(ts: str) -> None:
    try:
        micros = micros_from_ts(ts)
    except JournalRecordError as err:
        assert "\n" not in str(err)
    else:
        assert ts_from_micros(micros) == ts


@pytest.mark.parametrize(
    ("moment", "text"),
    [
        # docs/journal.md: `ts` is `YYYY-MM-DDTHH:MM:SS.ffffffZ`, the year in four digits
        # (strftime("%Y") once wrote "999-": a text compact storage refused and that
        # sorted after "2026-").
        (datetime(999, 12, 31, 23, 59, 59, tzinfo=UTC), "0999-12-31T23:59:59.000000Z"),
        (datetime(1, 1, 1, tzinfo=UTC), "0001-01-01T00:00:00.000000Z"),
        (datetime(1000, 1, 1, tzinfo=UTC), "1000-01-01T00:00:00.000000Z"),
        (datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), "9999-12-31T23:59:59.999999Z"),
    ],
)
def test_a_year_is_written_in_four_digits_and_reads_back(moment: datetime, text: str) -> None:
    assert format_ts(moment) == text
    assert ts_from_micros(micros_from_ts(text)) == text


def test_a_moment_outside_the_years_1_to_9999_in_utc_is_refused() -> None:
    # 0001-01-01T00:30+01:00 is in the year 0 in UTC; 9999-12-31T23:30-01:00 in 10000.
    for moment in (
        datetime(1, 1, 1, 0, 30, tzinfo=timezone(timedelta(hours=1))),
        datetime(9999, 12, 31, 23, 30, tzinfo=timezone(timedelta(hours=-1))),
    ):
        with pytest.raises(OverflowError):
            format_ts(moment)


@pytest.mark.parametrize(
    "ts",
    [
        "2026-02-30T00:00:00.000000Z",  # no such day
        "2026-12-31T24:00:00.000000Z",  # no such hour
        "2026-12-31T23:59:60.000000Z",  # a leap second: the writer never writes one
        "2026-12-31T23:59:59.123Z",  # milliseconds
        "2026-12-31 23:59:59.123456Z",
        "2026-12-31T23:59:59.123456",
        "2026-12-31T23:59:59.123456+00:00",
        "",
    ],
)
def test_a_text_the_writer_never_writes_is_refused_not_altered(ts: str) -> None:
    with pytest.raises(JournalRecordError, match="not a journal timestamp") as caught:
        micros_from_ts(ts)
    assert "\n" not in str(caught.value)


# The first microsecond of the year 10000 and the last before the year 1 (hand-worked:
# 2,932,897 days between 1970 and 10000, 719,162 between 1 and 1970).
AFTER_9999 = 2_932_897 * 86_400 * 1_000_000
BEFORE_1 = -719_162 * 86_400 * 1_000_000 - 1


@pytest.mark.parametrize(("micros", "inside"), [(AFTER_9999, -1), (BEFORE_1, 1)])
def test_a_stored_time_outside_the_calendar_is_refused_in_one_line(
    micros: int, inside: int
) -> None:
    with pytest.raises(JournalCorruptError, match=f"stored time {micros} is outside") as caught:
        ts_from_micros(micros)
    assert "\n" not in str(caught.value)
    # One microsecond inside each end reads.
    assert micros_from_ts(ts_from_micros(micros + inside)) == micros + inside


# -- data --------------------------------------------------------------------------------


def test_every_simulated_row_reads_back_exactly_and_hashes_as_stored(
    simulated_rows: list[Row],
) -> None:
    kinds = {row.kind for row in simulated_rows}
    assert {"card", "prompt", "seal", "settlement", "hole_card_revealed"} <= kinds
    prev = None
    for row in simulated_rows:
        stored = (micros_from_ts(row.ts), _codec(row.kind).encode(row.data_text))
        ts, text = ts_from_micros(stored[0]), _codec(row.kind).decode(stored[1], row_id=row.id)
        assert (ts, text) == (row.ts, row.data_text)
        if row.id == 1:
            prev = row.prev_hash
        assert prev is not None
        digest = row_hash(
            prev, row_id=row.id, ts=ts, kind=row.kind, round_no=row.round_no, data_text=text
        )
        assert digest == row.hash
        prev = digest


def test_the_dictionaries_make_a_round_s_rows_several_times_smaller(
    simulated_rows: list[Row],
) -> None:
    text = sum(len(row.data_text) for row in simulated_rows)
    stored = sum(len(_codec(row.kind).encode(row.data_text)) for row in simulated_rows)
    plain = sum(len(DataCodec(b"").encode(row.data_text)) for row in simulated_rows)
    # bench/journal_layouts.py: about 1,130 of 7,534 bytes a round with them.
    assert stored * 4 < text
    assert stored * 2 < plain


@given(DATA, st.sampled_from([k.name for k in KINDS]))
@settings(max_examples=300)
def test_any_json_data_reads_back_as_its_canonical_text(data: dict[str, Any], kind: str) -> None:
    text = canonical_json(data)
    codec = _codec(kind)
    assert codec.decode(codec.encode(text)) == text


def test_a_text_that_is_not_canonical_json_is_refused() -> None:
    with pytest.raises(JournalRecordError, match=r"^row data is not canonical JSON \(not ASCII\)$"):
        DataCodec(b"").encode('{"name":"caf\u00e9"}')
    with pytest.raises(JournalRecordError, match=f"^row data is longer than {DATA_LIMIT} bytes$"):
        DataCodec(b"").encode("1" * (DATA_LIMIT + 1))
    assert DataCodec(b"").decode(DataCodec(b"").encode("1" * DATA_LIMIT)) == "1" * DATA_LIMIT


def _tampered() -> Iterator[tuple[str, bytes, DataCodec]]:
    codec = _codec("card")
    stored = codec.encode('{"card":"7H","hand":1,"role":"initial","seat":1}')
    yield "cut short", stored[:-1], codec
    yield "an extra byte", stored + b"\x00", codec
    yield "not deflate", b"\xff\xff\xff\xff", codec
    yield "empty", b"", codec
    yield "another kind's dictionary", stored, _codec("prompt")
    bomb = zlib.compressobj(9, zlib.DEFLATED, WINDOW_BITS)
    yield "a bomb", bomb.compress(b"1" * (DATA_LIMIT + 10)) + bomb.flush(), DataCodec(b"")
    long = zlib.compressobj(9, zlib.DEFLATED, WINDOW_BITS)
    yield "one byte too long", long.compress(b"1" * (DATA_LIMIT + 1)) + long.flush(), DataCodec(b"")
    binary = zlib.compressobj(9, zlib.DEFLATED, WINDOW_BITS)
    yield "not ASCII", binary.compress("\u00e9".encode()) + binary.flush(), DataCodec(b"")


@pytest.mark.parametrize("case", list(_tampered()), ids=lambda case: case[0])
def test_stored_data_that_does_not_read_back_whole_is_refused_in_one_line(
    case: tuple[str, bytes, DataCodec],
) -> None:
    name, stored, codec = case
    try:
        text = codec.decode(stored, row_id=41)
    except JournalCorruptError as err:
        assert str(err).startswith("row 41: ")
        assert "\n" not in str(err)
        return
    # Another dictionary can inflate to another text: then the chain hash refuses it.
    assert name == "another kind's dictionary"
    assert text != '{"card":"7H","hand":1,"role":"initial","seat":1}'


@given(st.binary(max_size=64), st.sampled_from(["card", "prompt", "seal", "no_such_kind"]))
@settings(max_examples=300)
def test_any_stored_bytes_give_a_text_or_one_refusal(stored: bytes, kind: str) -> None:
    try:
        text = _codec(kind).decode(stored, row_id=7)
    except JournalCorruptError as err:
        assert str(err).startswith("row 7: ") and "\n" not in str(err)
    else:
        assert text.isascii() and len(text) <= DATA_LIMIT


# -- dictionaries ------------------------------------------------------------------------


def test_the_shipped_dictionaries_are_of_known_kinds_and_fit_the_window() -> None:
    dictionaries = load_dictionaries()
    assert dictionaries, "controller/journal/dictionaries.json is empty"
    known = {kind.name for kind in KINDS}
    assert set(dictionaries) <= known
    assert {"card", "prompt", "event", "button", "settlement"} <= set(dictionaries)
    for text in dictionaries.values():
        assert 0 < len(text) <= DICTIONARY_LIMIT
    assert len(b"".join(dictionaries.values())) < 64 * 1024  # a small file in the journal


def test_a_dictionary_keeps_the_latest_distinct_samples_up_to_its_limit() -> None:
    assert build_dictionary(["ab", "cd", "ab"]) == b"cdab"
    assert build_dictionary(["abc", "def"], limit=4) == b"cdef"
    assert build_dictionary(["abc"], limit=0) == b""
    with pytest.raises(JournalRecordError):
        build_dictionary(["\u00e9"])
    with pytest.raises(ValueError, match="at most"):
        DataCodec(b"x" * (DICTIONARY_LIMIT + 1))


def test_a_kind_without_a_dictionary_is_stored_too() -> None:
    codec = DataCodec(b"")
    assert codec.decode(codec.encode('{"a":1}')) == '{"a":1}'


# -- a commit a row ----------------------------------------------------------------------

#: The file's base time for the commit tests: 2026-01-01T00:00:00Z (hand-worked: 20,454
#: days after 1970-01-01).
BASE = 20_454 * 86_400 * 1_000_000
#: A row's data in a commit: the codec stores it as the line's last field, opaque (ASCII, no
#: newline, within DATA_LIMIT), so what matters is canonical JSON's characters (commas,
#: quotes, escapes, braces), not deep values: DATA's nesting (test_any_json_data_... above)
#: made twelve rows of it the suite's slowest test (20 CPU-seconds) for nothing more.
COMMIT_DATA = st.dictionaries(
    st.text(max_size=6), st.none() | st.integers() | st.text(max_size=10), max_size=3
).map(canonical_json)
ROWS_OF_A_COMMIT = st.lists(
    st.tuples(
        st.datetimes(min_value=datetime(1000, 1, 1), timezones=st.just(UTC)).map(format_ts),
        st.sampled_from([k.name for k in KINDS] + ["x", "a9_b"]),
        st.none() | st.integers(min_value=0, max_value=2**63),
        COMMIT_DATA,
    ),
    min_size=1,
    max_size=12,
)


def _commit_codec() -> CommitCodec:
    return CommitCodec(commit_dictionary(), BASE)


def test_a_commit_s_time_is_stored_after_the_file_s_base() -> None:
    assert micros_from_ts("2026-01-01T00:00:00.000000Z") == BASE
    codec = CommitCodec(b"", BASE)
    stored = codec.encode([("2026-01-01T00:00:00.000007Z", "card", 3, "{}")])
    inflated = zlib.decompressobj(COMMIT_WINDOW_BITS, b" ").decompress(stored)
    assert inflated == b"7,card,3,{}"
    assert codec.decode(stored, first_id=5) == [("2026-01-01T00:00:00.000007Z", "card", 3, "{}")]


def test_every_simulated_commit_reads_back_exactly(simulated_rows: list[Row]) -> None:
    codec = _commit_codec()
    # Commits of 1 to 17 rows, cut wherever (a commit is whatever rows the station groups).
    at, size = 0, 1
    while at < len(simulated_rows):
        rows = simulated_rows[at : at + size]
        values = [(r.ts, r.kind, r.round_no, r.data_text) for r in rows]
        assert codec.decode(codec.encode(values), first_id=rows[0].id) == values
        at, size = at + size, size % 17 + 1


@given(ROWS_OF_A_COMMIT)
@settings(max_examples=300)
def test_any_rows_of_a_commit_read_back_exactly(
    rows: list[tuple[str, str, int | None, str]],
) -> None:
    codec = _commit_codec()
    assert codec.decode(codec.encode(rows), first_id=1) == rows


@pytest.mark.parametrize(
    ("rows", "refusal"),
    [
        ([], "1 to"),
        ([("2026-01-01T00:00:00.000000", "card", 1, "{}")], "not a journal timestamp"),
        ([("2026-01-01T00:00:00.000000Z", "Card", 1, "{}")], "bad record kind"),
        ([("2026-01-01T00:00:00.000000Z", "card", -1, "{}")], "bad round number"),
        ([("2026-01-01T00:00:00.000000Z", "card", True, "{}")], "bad round number"),
        ([("2026-01-01T00:00:00.000000Z", "card", 1, '{"a":\n1}')], "one line"),
        ([("2026-01-01T00:00:00.000000Z", "card", 1, '{"a":"\u00e9"}')], "one line"),
    ],
)
def test_rows_a_commit_cannot_store_are_refused(rows: list[Any], refusal: str) -> None:
    with pytest.raises(JournalRecordError, match=refusal):
        _commit_codec().encode(rows)


def _stored_commit(text: bytes) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, COMMIT_WINDOW_BITS, 8, 0, commit_dictionary())
    return compressor.compress(text) + compressor.flush()


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        (b"7,card,3", "row 41: stored line is not ts,kind,round,data"),
        (b"7,card,3,{}\n8,card", "row 42: stored line is not ts,kind,round,data"),
        (b"07,card,3,{}", "row 41: stored time or kind is malformed"),
        (b"-0,card,3,{}", "row 41: stored time or kind is malformed"),
        (b"+7,card,3,{}", "row 41: stored time or kind is malformed"),
        (b"7,Card,3,{}", "row 41: stored time or kind is malformed"),
        (b"7,card,03,{}", "row 41: stored round is malformed"),
        (b"7,card,-3,{}", "row 41: stored round is malformed"),
        (b"99999999999999999999,card,3,{}", "row 41: stored time [0-9]+ is outside the calendar"),
        (b"7,card,3,{}\n", "row 42: stored line is not ts,kind,round,data"),
        (b"7,card,3," + b"1" * (DATA_LIMIT + 1), "row 41: stored data is too long"),
        ("7,card,3,{\u00e9}".encode(), "row 41: stored commit is not a journal row's text"),
    ],
)
def test_a_stored_commit_written_any_other_way_is_refused_in_one_line(
    text: bytes, refusal: str
) -> None:
    with pytest.raises(JournalCorruptError, match=f"^{refusal}$") as caught:
        _commit_codec().decode(_stored_commit(text), first_id=41)
    assert "\n" not in str(caught.value)
    assert _commit_codec().decode(_stored_commit(b"7,card,3,{}"), first_id=41)  # the control


@pytest.mark.parametrize("cut", ["short", "extra", "garbage"])
def test_a_stored_commit_that_does_not_inflate_whole_is_refused(cut: str) -> None:
    stored = _commit_codec().encode([("2026-01-01T00:00:00.000000Z", "card", 1, "{}")])
    damaged = {"short": stored[:-1], "extra": stored + b"\x00", "garbage": b"\xff" * 8}[cut]
    with pytest.raises(JournalCorruptError, match=r"^row 9: stored commit") as caught:
        _commit_codec().decode(damaged, first_id=9)
    assert "\n" not in str(caught.value)


@given(st.binary(max_size=80))
@settings(max_examples=300)
def test_any_stored_commit_bytes_give_rows_or_one_refusal(stored: bytes) -> None:
    try:
        rows = _commit_codec().decode(stored, first_id=3)
    except JournalCorruptError as err:
        assert str(err).startswith("row ") and "\n" not in str(err)
    else:
        assert rows and all(KIND_PATTERN.fullmatch(kind) for _, kind, _, _ in rows)


def test_the_commit_dictionary_holds_the_end_of_each_kind_s() -> None:
    dictionary = commit_dictionary()
    assert 0 < len(dictionary) <= COMMIT_DICTIONARY_LIMIT
    for text in load_dictionaries().values():
        assert text[-64:] in dictionary


# -- each refusal's one line, and both sides of each limit -------------------------------------


def _deflated(text: bytes, dictionary: bytes = b" ", window_bits: int = WINDOW_BITS) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, window_bits, 8, 0, dictionary)
    return compressor.compress(text) + compressor.flush()


def test_each_damage_to_a_rows_stored_data_is_named_in_its_one_line() -> None:
    codec = DataCodec(b"")
    stored = codec.encode('{"card":"7H"}')
    cut = "row 41: stored data is cut short or has extra bytes"
    for damaged in (stored[:-1], stored + b"\x00", b""):
        with pytest.raises(JournalCorruptError, match=f"^{cut}$"):
            codec.decode(damaged, row_id=41)
    with pytest.raises(JournalCorruptError, match=r"^row 41: stored data does not inflate \(.+\)$"):
        codec.decode(b"\xff\xff\xff\xff", row_id=41)
    text = "row 41: stored data is not a journal row's text"
    for inflated in (b"1" * (DATA_LIMIT + 1), "\u00e9".encode()):
        with pytest.raises(JournalCorruptError, match=f"^{text}$"):
            codec.decode(_deflated(inflated), row_id=41)
    # A bomb stops at the limit: the rest is never inflated.
    with pytest.raises(JournalCorruptError, match=f"^{cut}$"):
        codec.decode(_deflated(b"1" * (4 * DATA_LIMIT)), row_id=41)
    # It stops one byte past the limit: a text of the limit and one byte inflates whole and
    # is too long; of the limit and two bytes, its last byte is never inflated (hand-worked
    # from DATA_LIMIT + 1, the most `_inflate` asks zlib for).
    with pytest.raises(JournalCorruptError, match=f"^{text}$"):
        codec.decode(_deflated(b"1" * (DATA_LIMIT + 1)), row_id=41)
    with pytest.raises(JournalCorruptError, match=f"^{cut}$"):
        codec.decode(_deflated(b"1" * (DATA_LIMIT + 2)), row_id=41)
    # Without a row id, the refusal names row 0.
    with pytest.raises(JournalCorruptError, match=r"^row 0: stored data is cut short"):
        codec.decode(b"")


def test_a_dictionary_may_be_as_long_as_its_limit_and_no_longer() -> None:
    codec = DataCodec(b"x" * DICTIONARY_LIMIT)
    assert codec.dictionary == b"x" * DICTIONARY_LIMIT
    assert codec.decode(codec.encode('{"x":"xxxx"}')) == '{"x":"xxxx"}'
    with pytest.raises(ValueError, match=f"^a dictionary holds at most {DICTIONARY_LIMIT} bytes$"):
        DataCodec(b"x" * (DICTIONARY_LIMIT + 1))
    commit = CommitCodec(b"x" * COMMIT_DICTIONARY_LIMIT, 0)
    rows: list[StoredRow] = [("1970-01-01T00:00:00.000001Z", "card", None, '{"x":"xxxx"}')]
    assert commit.decode(commit.encode(rows), first_id=1) == rows
    with pytest.raises(
        ValueError, match=f"^a dictionary holds at most {COMMIT_DICTIONARY_LIMIT} bytes$"
    ):
        CommitCodec(b"x" * (COMMIT_DICTIONARY_LIMIT + 1), 0)


def test_a_dictionary_of_one_byte_keeps_the_last() -> None:
    assert build_dictionary(["abc", "de"], limit=1) == b"e"
    with pytest.raises(
        JournalRecordError, match=r"^a dictionary sample is not canonical JSON \(not ASCII\)$"
    ):
        build_dictionary(["{}", "\u00e9"])


def test_a_commits_rows_data_may_be_as_long_as_a_rows_limit_and_no_longer() -> None:
    codec = CommitCodec(b"", BASE)
    longest: list[StoredRow] = [("2026-01-01T00:00:00.000000Z", "card", 0, "1" * DATA_LIMIT)]
    assert codec.decode(codec.encode(longest), first_id=1) == longest
    with pytest.raises(JournalRecordError, match=r"^row data is not canonical JSON on one line$"):
        codec.encode([("2026-01-01T00:00:00.000000Z", "card", 0, "1" * (DATA_LIMIT + 1))])
    with pytest.raises(JournalRecordError, match=f"^a commit holds 1 to {COMMIT_ROWS_LIMIT} rows$"):
        codec.encode([])
    with pytest.raises(JournalRecordError, match=r"^bad record kind 'Card'$"):
        codec.encode([("2026-01-01T00:00:00.000000Z", "Card", 0, "{}")])
    with pytest.raises(JournalRecordError, match=r"^bad round number -1$"):
        codec.encode([("2026-01-01T00:00:00.000000Z", "card", -1, "{}")])


def test_a_commit_holds_up_to_its_limit_of_rows() -> None:
    codec = CommitCodec(b"", BASE)
    row = ("2026-01-01T00:00:00.000000Z", "card", None, "{}")
    # The most rows a commit stores, read back; one more is refused before any is encoded.
    assert codec.decode(codec.encode([row] * COMMIT_ROWS_LIMIT), first_id=1) == [row] * (
        COMMIT_ROWS_LIMIT
    )
    with pytest.raises(JournalRecordError, match=f"^a commit holds 1 to {COMMIT_ROWS_LIMIT} rows$"):
        codec.encode([row] * (COMMIT_ROWS_LIMIT + 1))
    # A stored commit of one line more: "0,card,,{}" a line (hand-written).
    stored = _deflated(b"\n".join([b"0,card,,{}"] * (COMMIT_ROWS_LIMIT + 1)), b" ", -15)
    with pytest.raises(JournalCorruptError, match=r"^row 3: stored commit holds too many rows$"):
        codec.decode(stored, first_id=3)


def test_a_stored_commit_inflates_up_to_its_limit_and_no_further() -> None:
    # The most a commit's text can be: its rows' lines at 64 bytes each and one whole row.
    limit = COMMIT_ROWS_LIMIT * 64 + DATA_LIMIT
    codec = CommitCodec(b"", BASE)
    with pytest.raises(
        JournalCorruptError, match=r"^row 3: stored line is not ts,kind,round,data$"
    ):
        codec.decode(_deflated(b"x" * limit, b" ", -15), first_id=3)  # inflated whole
    with pytest.raises(JournalCorruptError, match=r"^row 3: stored commit is not a journal row's"):
        codec.decode(_deflated(b"x" * (limit + 1), b" ", -15), first_id=3)


def test_a_commit_s_rows_are_deflated_with_the_file_s_dictionary(simulated_rows: list[Row]) -> None:
    # A round's commits of a few rows each: the dictionary of every kind makes them smaller
    # (docs/journal.md, "Storage format 2": what keeps a round under 4,500 bytes).
    values = [(r.ts, r.kind, r.round_no, r.data_text) for r in simulated_rows]
    commits = [values[at : at + 5] for at in range(0, len(values), 5)]
    primed, plain = _commit_codec(), CommitCodec(b"", BASE)
    with_dictionary = sum(len(primed.encode(rows)) for rows in commits)
    without = sum(len(plain.encode(rows)) for rows in commits)
    assert with_dictionary * 3 < without * 2  # a third smaller at least (54,915 of 95,051)
    # An empty dictionary is zlib's one space: text that repeats another dictionary's
    # bytes is stored without reference to them (read here with the space alone).
    rows: list[StoredRow] = [("2026-01-01T00:00:00.000000Z", "card", 1, '{"XX XX":"XX XX"}')]
    inflated = zlib.decompressobj(COMMIT_WINDOW_BITS, b" ").decompress(plain.encode(rows))
    assert inflated == b'0,card,1,{"XX XX":"XX XX"}'
