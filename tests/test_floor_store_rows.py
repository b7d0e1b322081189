"""What ``floor.store`` makes of a row before it reaches PostgreSQL, without a database: the
columns of a merged row (docs/floor.md "Compact rows": the time as a timestamptz only when
it reads back as the same text, the hash as its 32 bytes, ``prev_hash`` only when it is not
the row before's hash, a settled wager's net), the columns of a waiting or quarantined row
(kept as they came) and the limits a ``station_started`` row posts (NY 5324.12(d)(2)).

``tests/test_floor_compact_rows.py`` and ``test_floor_ingest.py`` store them in a real
PostgreSQL and read them back.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st
from test_floor_branches import _row

from controller.journal.format import GENESIS_HASH, Row, canonical_json
from floor.store import LIMIT_FIELDS, _values, entry, posted_limits

HASH = "0123456789abcdef" * 4


def test_a_merged_row_is_stored_compact() -> None:
    start = _row(None, "station_started", {"table_id": "T1"}, None)
    settled = _row(start, "settlement", {"net_cents": -2500, "seat": 1}, 4)
    assert entry("T1", settled, start.hash) == (
        "T1",
        2,
        "2026-12-01T04:00:02.000000Z",
        "settlement",
        4,
        '{"net_cents":-2500,"seat":1}',
        bytes.fromhex(settled.hash),
        -2500,
        None,  # the time reads back as the same text
        None,  # the link is the row before's hash
    )
    assert entry("T1", start, GENESIS_HASH)[7:] == (None, None, None)  # no net: no wager


def test_a_time_that_would_not_read_back_is_kept_as_text() -> None:
    for ts in ("2026-02-30T04:00:00.000000Z", "2026-12-01T24:00:00.000000Z", "yesterday"):
        row = replace(_row(None, "device", {}, None), ts=ts)
        stored = entry("T1", row, GENESIS_HASH)
        assert (stored[2], stored[8]) == (None, ts)


def test_a_link_that_is_not_the_row_befores_hash_is_kept() -> None:
    row = replace(_row(None, "device", {}, None), prev_hash=HASH)
    assert entry("T1", row, GENESIS_HASH)[9] == bytes.fromhex(HASH)
    assert entry("T1", row, HASH)[9] is None


def test_a_net_that_is_not_whole_cents_is_stored_as_none() -> None:
    for net in (1.5, "100", True, None):
        row = _row(None, "settlement", {"net_cents": net}, 1)
        assert entry("T1", row, GENESIS_HASH)[7] is None
    for kind in ("match_settled", "insurance"):
        assert entry("T1", _row(None, kind, {"net_cents": 7}, 1), GENESIS_HASH)[7] == 7


def test_a_waiting_or_quarantined_row_is_kept_as_it_came() -> None:
    row = Row(9, "not a time", "forged", 3, "{not json", "xyz", "not a hash")
    assert _values("T1", row) == (
        "T1",
        9,
        "not a time",
        "forged",
        3,
        "{not json",
        "xyz",
        "not a hash",
    )


LIMITS = {
    "main_min_cents": 1000,
    "main_max_cents": 500_000,
    "match_min_cents": 500,
    "match_max_cents": 10_000,
}


def _started(limits: object) -> Row:
    return _row(None, "station_started", {"table_id": "T1", "limits": limits}, None)


def test_the_four_limits_a_start_posts_are_kept() -> None:
    assert tuple(LIMITS) == LIMIT_FIELDS
    assert posted_limits(_started(LIMITS)) == LIMITS
    assert posted_limits(_started({**LIMITS, "main_min_cents": 1})) == {
        **LIMITS,
        "main_min_cents": 1,
    }


def test_a_start_without_limits_or_with_anything_else_posts_none() -> None:
    none = dict.fromkeys(LIMITS)
    older = _row(None, "station_started", {"table_id": "T1"}, None)
    assert posted_limits(older) == none
    for limits in (None, [1000, 2000], "1000", 5):
        assert posted_limits(_started(limits)) == none
    not_json = replace(older, data_text="{not json")
    assert posted_limits(not_json) == none
    listed = replace(older, data_text=canonical_json([LIMITS]))
    assert posted_limits(listed) == none


def test_a_limit_is_a_whole_positive_number_of_cents() -> None:
    for bad in (0, -1000, 10.5, True, "1000", None):
        assert (
            posted_limits(_started({**LIMITS, "match_max_cents": bad}))["match_max_cents"] is None
        )
    assert posted_limits(_started({**LIMITS, "match_max_cents": 1}))["match_max_cents"] == 1


@given(
    st.one_of(
        st.none(),
        st.text(max_size=5),
        st.lists(st.integers(), max_size=3),
        st.dictionaries(
            st.sampled_from([*LIMITS, "other"]),
            st.one_of(
                st.none(),
                st.booleans(),
                st.integers(-(10**18), 10**18),
                st.floats(allow_nan=False, allow_infinity=False),
            ),
        ),
    )
)
def test_whatever_a_start_posts_the_floor_keeps_whole_cents_or_none(limits: object) -> None:
    kept = posted_limits(_started(limits))
    assert list(kept) == list(LIMITS)
    for name, value in kept.items():
        sent = limits.get(name) if isinstance(limits, dict) else None
        assert value == (sent if type(sent) is int and sent > 0 else None)


def test_the_tables_line_keeps_its_status_and_anchors_as_json_or_none() -> None:
    from datetime import UTC, datetime

    from floor.store import TableState, line

    arrived = datetime(2026, 12, 1, 5, 0, tzinfo=UTC)
    state = TableState(
        "T1", 7, HASH, "2026-12-01T04:00:07.000000Z", None, "2026-12-01T05:00:00.000000Z",
        {"state": "betting", "round": 3}, 2, 6, HASH, arrived, [[9, 2, HASH]], -1.5,
    )  # fmt: skip
    assert line(state) == (
        7, HASH, "2026-12-01T04:00:07.000000Z", None,
        '{"state": "betting", "round": 3}', "2026-12-01T05:00:00.000000Z",
        2, 6, HASH, arrived, f'[[9, 2, "{HASH}"]]', -1.5, "T1",
    )  # fmt: skip
    state.status, state.station_anchors = None, []
    assert line(state)[4] is None and line(state)[10] is None
    state.status = {}  # an empty status is still one
    assert line(state)[4] == "{}"
