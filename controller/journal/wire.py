"""The journal on the wire: the MQTT topics and messages between a station and the floor.

The station (``controller.service.shipper``) publishes; the floor's collector
(``floor.collector``) reads and acknowledges. Both sides use this one codec, so the format
has one definition. Every message is one JSON object with ``"v": 1``:

- ``floor/<table>/rows`` (station): ``{"v", "table", "rows": [[id, ts, kind, round, data,
  prev_hash, hash], ...]}``, consecutive committed rows, ``data`` the stored canonical JSON.
- ``floor/<table>/status`` (station): ``{"v", "table", "ts", "state", "round", "fault",
  "devices", "head", "acked", "anchor"}``; never a card. ``anchor`` is the journal's
  latest seal ``[row, epoch, hash]`` (or null): sent again at every seal, it lets the floor
  see a sealed history that differs from the one it holds (``journal anchor``).
- ``floor/<table>/ack`` (collector): ``{"v", "row", "hash", "rewind"}``: the collector holds
  every row up to ``row``; with ``rewind`` it asks for the rows after ``row`` again.

``head`` is the station's last committed row ``[id, hash]`` as of the status's ``ts`` (the
time the shipper read its journal, taken before the read: every row committed by then is in
it): the collector compares it with the anchor it keeps to see a station that came back
behind its own history. The decoder
checks form only (types, sizes, the table name); the chain is checked by the collector.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final

from controller.journal.format import KIND_PATTERN, Row

VERSION: Final = 1
PREFIX: Final = "floor"
TABLE_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")  # station.toml's table_id
HASH: Final = re.compile(r"[0-9a-f]{64}")
MAX_ROWS: Final = 5000  # per message; the shipper sends at most its batch size
#: The shipper keeps each message within this (the floor's broker and collector refuse
#: messages past their limit, 4 MiB as shipped): a batch that would be larger is cut.
MAX_MESSAGE_BYTES: Final = 1 << 20
TOPIC_KINDS: Final = ("rows", "status", "ack")


class WireError(ValueError):
    """A message that is not in the format above; the text is one line naming the fault."""


def topic(table: str, kind: str) -> str:
    """``floor/<table>/<kind>`` for one of :data:`TOPIC_KINDS`."""
    if kind not in TOPIC_KINDS or not TABLE_NAME.fullmatch(table):
        raise WireError(f"no topic for table {table!r}, kind {kind!r}")
    return f"{PREFIX}/{table}/{kind}"


def parse_topic(name: str) -> tuple[str, str]:
    """``(table, kind)`` from a topic name.

    Raises:
        WireError: when the name is not ``floor/<table>/<kind>``.
    """
    parts = name.split("/")
    if (
        len(parts) != 3
        or parts[0] != PREFIX
        or not TABLE_NAME.fullmatch(parts[1])
        or parts[2] not in TOPIC_KINDS
    ):
        raise WireError(f"not a floor topic: {name[:80]!r}")
    return parts[1], parts[2]


def _dump(value: dict[str, Any]) -> bytes:
    return json.dumps({"v": VERSION, **value}, separators=(",", ":")).encode()


def _load(payload: bytes) -> dict[str, Any]:
    try:
        value = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as err:
        raise WireError(f"not JSON: {err}") from None
    except RecursionError:  # thousands of nested arrays (json recurses per level)
        raise WireError("not JSON: nested too deeply") from None
    if not isinstance(value, dict):
        raise WireError("not a JSON object")
    version = value.get("v")
    if type(version) is not int or version != VERSION:  # true and 1.0 equal 1 in Python
        raise WireError(f"unknown message version {version!r}")
    return value


def encode_rows(table: str, rows: list[Row]) -> bytes:
    """The ``rows`` message for consecutive journal rows."""
    return _dump(
        {
            "table": table,
            "rows": [
                [r.id, r.ts, r.kind, r.round_no, r.data_text, r.prev_hash, r.hash] for r in rows
            ],
        }
    )


def _is_int(value: Any) -> bool:
    return type(value) is int and 0 < value < 2**62


def decode_rows(payload: bytes, table: str) -> list[Row]:
    """The rows of a ``rows`` message published under ``table``'s topic.

    Raises:
        WireError: bad form, another table's name, or rows that are not consecutive.
    """
    value = _load(payload)
    if value.get("table") != table:
        raise WireError(f"rows for {value.get('table')!r} on the topic of {table!r}")
    items = value.get("rows")
    if not isinstance(items, list) or not 0 < len(items) <= MAX_ROWS:
        raise WireError("rows: expected a list of 1 to 5000 rows")
    rows: list[Row] = []
    for item in items:
        if not isinstance(item, list) or len(item) != 7:
            raise WireError("row: expected [id, ts, kind, round, data, prev_hash, hash]")
        row_id, ts, kind, round_no, data_text, prev_hash, digest = item
        if not _is_int(row_id):
            raise WireError(f"row id {row_id!r} is not a positive integer")
        if not isinstance(ts, str) or len(ts) > 40:
            raise WireError(f"row {row_id}: bad ts")
        if not isinstance(kind, str) or not KIND_PATTERN.fullmatch(kind):
            raise WireError(f"row {row_id}: bad kind")
        if round_no is not None and not (type(round_no) is int and 0 <= round_no < 2**62):
            raise WireError(f"row {row_id}: bad round")
        if not isinstance(data_text, str):
            raise WireError(f"row {row_id}: data is not text")
        for name, text in (("prev_hash", prev_hash), ("hash", digest)):
            if not isinstance(text, str) or not HASH.fullmatch(text):
                raise WireError(f"row {row_id}: bad {name}")
        if rows and row_id != rows[-1].id + 1:
            raise WireError(f"row {row_id} does not follow row {rows[-1].id}")
        rows.append(Row(row_id, ts, kind, round_no, data_text, prev_hash, digest))
    return rows


@dataclass(frozen=True, slots=True)
class Status:
    """A station's live status: state, round, fault, device health, its head. No card."""

    table: str
    ts: str
    state: str | None
    round_no: int | None
    fault: dict[str, str] | None  # {"code", "state"} of the fault play stopped on (no message)
    devices: dict[str, str]  # device -> connected / lost / fault
    head: tuple[int, str]  # the last committed row (id, hash); (0, "") when empty
    acked: int  # the last row the collector acknowledged, as the station knows it
    anchor: tuple[int, int, str] | None = None  # the latest seal: (row, epoch, hash)


def encode_status(status: Status) -> bytes:
    """The ``status`` message."""
    return _dump(
        {
            "table": status.table,
            "ts": status.ts,
            "state": status.state,
            "round": status.round_no,
            "fault": status.fault,
            "devices": status.devices,
            "head": list(status.head),
            "acked": status.acked,
            "anchor": list(status.anchor) if status.anchor else None,
        }
    )


def _short_text(value: Any, limit: int = 200) -> bool:
    return isinstance(value, str) and len(value) <= limit


def decode_status(payload: bytes, table: str) -> Status:
    """The status in a ``status`` message published under ``table``'s topic.

    Raises:
        WireError: bad form or another table's name.
    """
    value = _load(payload)
    if value.get("table") != table:
        raise WireError(f"status for {value.get('table')!r} on the topic of {table!r}")
    state, round_no, fault = value.get("state"), value.get("round"), value.get("fault")
    devices, head, acked = value.get("devices"), value.get("head"), value.get("acked")
    if not _short_text(value.get("ts"), 40):
        raise WireError("status: bad ts")
    if state is not None and not _short_text(state, 64):
        raise WireError("status: bad state")
    if round_no is not None and not (type(round_no) is int and 0 <= round_no < 2**62):
        raise WireError("status: bad round")
    if fault is not None and not (
        isinstance(fault, dict)
        and set(fault) == {"code", "state"}
        and all(_short_text(v) for v in fault.values())
    ):
        raise WireError("status: bad fault")
    if not isinstance(devices, dict) or len(devices) > 16:
        raise WireError("status: bad devices")
    for name, health in devices.items():
        if not _short_text(name, 32) or not _short_text(health, 32):
            raise WireError("status: bad device health")
    if not (
        isinstance(head, list)
        and len(head) == 2
        and type(head[0]) is int
        and 0 <= head[0] < 2**62
        and isinstance(head[1], str)
        and (HASH.fullmatch(head[1]) or (head[0] == 0 and head[1] == ""))
    ):
        raise WireError("status: bad head")
    if not (type(acked) is int and 0 <= acked < 2**62):
        raise WireError("status: bad acked")
    anchor = value.get("anchor")
    if anchor is not None and not (
        isinstance(anchor, list)
        and len(anchor) == 3
        and _is_int(anchor[0])
        and type(anchor[1]) is int
        and 0 <= anchor[1] < 2**62
        and isinstance(anchor[2], str)
        and HASH.fullmatch(anchor[2])
    ):
        raise WireError("status: bad anchor")
    return Status(
        table,
        value["ts"],
        state,
        round_no,
        fault,
        devices,
        (head[0], head[1]),
        acked,
        (anchor[0], anchor[1], anchor[2]) if anchor else None,
    )


@dataclass(frozen=True, slots=True)
class Ack:
    """The collector holds every row of the table up to ``row`` (whose hash is ``hash``);
    ``rewind``: it saw a gap and asks for the rows after ``row`` again."""

    row: int
    hash: str
    rewind: bool = False


def encode_ack(ack: Ack) -> bytes:
    """The ``ack`` message."""
    return _dump({"row": ack.row, "hash": ack.hash, "rewind": ack.rewind})


def decode_ack(payload: bytes) -> Ack:
    """The acknowledgement in an ``ack`` message.

    Raises:
        WireError: bad form.
    """
    value = _load(payload)
    row, digest, rewind = value.get("row"), value.get("hash"), value.get("rewind")
    if not (type(row) is int and 0 <= row < 2**62):
        raise WireError("ack: bad row")
    if not isinstance(digest, str) or not (HASH.fullmatch(digest) or (row == 0 and digest == "")):
        raise WireError("ack: bad hash")
    if type(rewind) is not bool:
        raise WireError("ack: bad rewind")
    return Ack(row, digest, rewind)
