"""Checkpoint rows made and read (``controller.journal.checkpoint``; docs/journal.md, "What a
start proves"), called directly: the data the writer stores, the MAC by the documented
formula written out here (HMAC-SHA256 under the checkpoint key of canonical JSON of
``["dealer-station checkpoint v1", table, id, N, hash, schema, key_epoch, ts]``), the
fields a checkpoint must hold, and the last checkpoint of a small journal.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest

from controller.journal.checkpoint import (
    check_checkpoint_mac,
    checkpoint_data,
    checkpoint_fields,
    last_checkpoint,
)
from controller.journal.format import Row
from controller.journal.reader import open_readonly
from controller.journal.seal import new_sealing
from controller.journal.store import Journal

TABLE = "T7"
TS = "2026-12-01T10:00:00.000000Z"
PREV = "ab" * 32


def documented_mac(key: bytes, table: str, row_id: int, ts: str, data: dict[str, Any]) -> str:
    """docs/journal.md's formula, with the standard library's JSON and HMAC."""
    message = [
        "dealer-station checkpoint v1",
        table,
        row_id,
        data["through"],
        data["hash"],
        data["schema"],
        data["key_epoch"],
        ts,
    ]
    text = json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


def row(data: object, row_id: int = 40, round_no: int | None = None, ts: str = TS) -> Row:
    return Row(row_id, ts, "verified", round_no, json.dumps(data), PREV, "cd" * 32)


def test_an_unsealed_checkpoint_names_the_row_before_it_its_hash_and_the_schema() -> None:
    assert checkpoint_data(40, TS, PREV, schema=7, sealing=None) == {
        "through": 39,
        "hash": PREV,
        "schema": 7,
    }


def test_a_sealed_checkpoint_carries_its_key_epoch_and_the_documented_mac() -> None:
    state, _ = new_sealing(TABLE)
    data = checkpoint_data(40, TS, PREV, schema=7, sealing=state)
    assert set(data) == {"through", "hash", "schema", "key_epoch", "mac"}
    assert (data["through"], data["hash"], data["schema"]) == (39, PREV, 7)
    assert data["key_epoch"] == state.checkpoint_since == 0
    assert data["mac"] == documented_mac(state.checkpoint_key, TABLE, 40, TS, data)
    fields = checkpoint_fields(row(data))
    assert fields == data
    assert check_checkpoint_mac(row(data), data, TABLE, state.checkpoint_key) == ""


def test_a_mac_is_refused_for_any_other_table_row_time_key_or_field() -> None:
    state, _ = new_sealing(TABLE)
    other, _ = new_sealing(TABLE)
    data = checkpoint_data(40, TS, PREV, schema=7, sealing=state)
    key = state.checkpoint_key
    bad = "its MAC does not match the checkpoint key"
    assert check_checkpoint_mac(row(data), data, "T8", key) == bad
    assert check_checkpoint_mac(row(data), data, TABLE, other.checkpoint_key) == bad
    assert check_checkpoint_mac(row(data, ts=TS.replace("10:", "11:")), data, TABLE, key) == bad
    moved = {**data, "through": 40}
    assert check_checkpoint_mac(row(moved, row_id=41), moved, TABLE, key) == bad
    for name, value in (("hash", "ef" * 32), ("schema", 8), ("key_epoch", 1)):
        changed = {**data, name: value}
        assert check_checkpoint_mac(row(changed), changed, TABLE, key) == bad, name
    for mac in ("", data["mac"].upper(), data["mac"][:-1] + "é", "00" * 32):
        forged = {**data, "mac": mac}
        assert check_checkpoint_mac(row(forged), forged, TABLE, key) == bad, mac


def test_a_checkpoint_without_a_mac_is_not_sealed() -> None:
    data = checkpoint_data(40, TS, PREV, schema=7, sealing=None)
    assert check_checkpoint_mac(row(data), data, TABLE, b"k" * 32) == "it is not sealed"


@pytest.mark.parametrize(
    "data",
    [
        {"through": 39, "hash": PREV},  # written before checkpoints were sealed
        {"through": 39, "hash": PREV, "schema": 0},
        {"through": 39, "hash": PREV, "schema": 3, "key_epoch": 0, "mac": "00" * 32},
    ],
)
def test_the_three_forms_of_a_checkpoint_are_read(data: dict[str, Any]) -> None:
    assert checkpoint_fields(row(data)) == data


FIELDS = "fields are not through, hash, schema (key_epoch, mac)"


@pytest.mark.parametrize(
    ("data", "round_no", "reason"),
    [
        ("[39]", None, "data is not a JSON object"),
        ([39, PREV], None, "data is not a JSON object"),
        ({"through": 39}, None, FIELDS),
        ({"hash": PREV, "schema": 3}, None, FIELDS),
        ({"through": 39, "hash": PREV, "schema": 3, "key_epoch": 0}, None, FIELDS),
        ({"through": 39, "hash": PREV, "schema": 3, "mac": "00"}, None, FIELDS),
        ({"through": 39, "hash": PREV, "key_epoch": 0, "mac": "00"}, None, FIELDS),
        ({"through": 39, "hash": PREV, "schema": 3, "note": 1}, None, FIELDS),
        ({"through": "39", "hash": PREV}, None, "through is not int"),
        ({"through": True, "hash": PREV}, None, "through is not int"),
        ({"through": 39, "hash": 1}, None, "hash is not str"),
        ({"through": 39, "hash": PREV, "schema": 3.0}, None, "schema is not int"),
        (
            {"through": 39, "hash": PREV, "schema": 3, "key_epoch": "0", "mac": "00"},
            None,
            "key_epoch is not int",
        ),
        (
            {"through": 39, "hash": PREV, "schema": 3, "key_epoch": 0, "mac": 0},
            None,
            "mac is not str",
        ),
        ({"through": 39, "hash": PREV}, 0, "a checkpoint belongs to no round"),
        ({"through": 38, "hash": PREV}, None, "does not check the row before it"),
        ({"through": 40, "hash": PREV}, None, "does not check the row before it"),
    ],
)
def test_a_checkpoint_out_of_form_says_what_is_wrong(
    data: object, round_no: int | None, reason: str
) -> None:
    text = data if isinstance(data, str) else json.dumps(data)
    bad = Row(40, TS, "verified", round_no, text, PREV, "cd" * 32)
    assert checkpoint_fields(bad) == reason


def test_the_last_checkpoint_is_the_newest_verified_row_or_0(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("state", {"state": "idle"})
    conn = open_readonly(path)
    try:
        assert last_checkpoint(conn) == 0
    finally:
        conn.close()
    with Journal.open(path) as journal:
        journal.checkpoint()
        journal.append("state", {"state": "bets"})
        journal.checkpoint()
        last = journal.last_id
        journal.append("state", {"state": "deal"})
    conn = open_readonly(path)
    try:
        assert last_checkpoint(conn) == last
    finally:
        conn.close()
