"""What the collector takes from the broker (``floor.screen``), then the database
(``floor.ingest``) on a real PostgreSQL: no payload makes the screen raise, and no
well-chained row, whatever text or money it holds, makes a transaction fail: it is merged,
held as evidence or refused, with an alert, and the same transaction still stores another
table's rows."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from floor_fixtures import chained, database_rows, query
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from controller.journal.format import GENESIS_HASH, Row, canonical_json
from controller.journal.wire import encode_rows
from floor.ingest import Ingest
from floor.screen import Refused, Rows, StatusReport, screen
from floor.servers import Database

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)


@given(
    st.sampled_from(
        [
            "station/floor/T1/rows",
            "station/floor/T1/status",
            "station/floor/T1/ack",
            "floor/T1/rows",
            "station/x",
            "station/floor/T 1/rows",
        ]
    ),
    st.one_of(
        st.binary(max_size=300),
        JSON.map(lambda v: json.dumps(v).encode()),
        st.fixed_dictionaries(
            {
                "v": st.just(1),
                "table": st.just("T1"),
                "rows": JSON,
                "ts": JSON,
                "state": JSON,
                "fault": JSON,
                "devices": JSON,
                "head": JSON,
                "acked": JSON,
                "anchor": JSON,
            }
        ).map(lambda v: json.dumps(v).encode()),
    ),
)
@example("station/floor/T1/rows", b"[" * 200_000)
def test_the_screen_never_raises(topic: str, payload: bytes) -> None:
    found = screen(topic, payload, mount_point="station/", max_bytes=1 << 20, arrived=0.0)
    assert found is None or isinstance(found, Rows | StatusReport | Refused)
    if isinstance(found, Refused):
        assert "\n" not in found.reason
        assert found.payload is None or len(found.payload) == len(payload)


@pytest.fixture(scope="module")
def conn(floor_database: Database) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(floor_database.conninfo) as connection:
        yield connection


NUMBERS = iter(range(10**6))


TEXT = st.text(alphabet=st.characters(exclude_categories=()))  # lone surrogates too


ROW = st.tuples(
    st.one_of(st.just("2026-12-01T04:00:00.000000Z"), st.text(max_size=40)),
    st.sampled_from(
        ["settlement", "match_settled", "insurance", "station_started", "seal", "device"]
    ),
    st.dictionaries(
        st.sampled_from(["net_cents", "table_id", "table", "x"]), st.one_of(JSON, TEXT)
    ),
    st.one_of(st.none(), TEXT),
)
GOOD_TS = "2026-12-01T04:00:00.000000Z"


@settings(
    max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)
@given(ROW)
@example((GOOD_TS, "settlement", {"net_cents": "12"}, None))
@example((GOOD_TS, "device", {}, '{"a":"\x00"}'))
@example((GOOD_TS, "device", {}, "[" * 5000))
@example((GOOD_TS, "device", {}, '"\ud800"'))
@example(("2026-12-01T04:00:00.\udc80Z", "device", {"x": 1}, None))
def test_no_row_content_fails_a_transaction(
    conn: psycopg.Connection[tuple[object, ...]],
    floor_database: Database,
    row: tuple[str, str, dict[str, Any], str | None],
) -> None:
    ts, kind, fields, raw_text = row
    number = next(NUMBERS)
    table, other = f"P{number}", f"Q{number}"
    try:
        text = raw_text if raw_text is not None else canonical_json(fields)
    except (ValueError, TypeError):  # NaN, a float the journal would not write
        text = json.dumps(fields, default=str)
    try:
        hostile = chained([(kind, text, 1)], ts)
    except UnicodeEncodeError:  # a lone surrogate has no UTF-8 form, so no chain hash:
        # a hostile sender sends it all the same, under any hash
        hostile = [Row(1, ts, kind, 1, text, GENESIS_HASH, "1" * 64)]
    good = chained([("device", {"n": 1}, 1)])
    messages = [
        screen(
            f"station/floor/{t}/rows",
            encode_rows(t, rows),
            mount_point="station/",
            max_bytes=1 << 20,
            arrived=0.0,
        )
        for t, rows in ((table, hostile), (other, good))
    ]
    applied = Ingest(conn).apply([m for m in messages if m is not None])
    # The other table's row is stored in the same transaction, whatever the first held.
    assert len(database_rows(floor_database, other)) == 1 and other in applied.acks
    stored = database_rows(floor_database, table)
    if not stored:  # refused or held as evidence: an alert says why
        kinds = {
            k for (k,) in query(floor_database, "SELECT kind FROM alert WHERE table_id = %s", table)
        }
        assert kinds & {"malformed", "table"}, (kinds, text[:80])
