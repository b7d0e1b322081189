"""What the collector takes from the broker, checked before anything reaches the database.

paho's network thread calls :func:`screen` on every message, and nothing it does may raise:
a message is either one of the collector's messages (:class:`Rows`, :class:`StatusReport`)
or a :class:`Refused` that records why it was refused. Refused, never stored as rows:

- a message over ``max_message_bytes`` (the broker's own ``max_packet_size`` normally
  stops it first): alert ``oversize``, only its size kept;
- a message that is not in the wire format (``controller.journal.wire``: not JSON, nested
  thousands deep, another table's name, rows out of order ...): alert ``malformed``, the
  message kept as evidence;
- rows or a status holding text PostgreSQL cannot keep (a NUL, a lone surrogate, anything
  but ASCII, which is all a journal writes): alert ``malformed``, the message kept, and
  for rows the table quarantined (its chain now has a hole the station cannot fill).

What a row *means* is checked later, per row, once its place in the chain is known
(:func:`row_problem`): a journal time, whole cents where money is settled, and the table's
own name where a row names a table (a station's account may only ship its own table).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from controller.journal.format import Row
from controller.journal.seal import SEAL_KIND
from controller.journal.wire import (
    Status,
    WireError,
    decode_rows,
    decode_status,
    encode_rows,
    parse_topic,
)

#: The journal's time format (``controller.journal.format.format_ts``).
JOURNAL_TS: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")
#: Rows whose ``net_cents`` is a settled wager's net (the house result sums them).
SETTLED_KINDS: Final = frozenset({"settlement", "match_settled", "insurance"})
#: More than any real wager's net (a billion dollars); keeps sums far inside bigint.
MAX_NET_CENTS: Final = 10**11
#: The most of a refused message kept as evidence.
EVIDENCE_BYTES: Final = 1 << 20


@dataclass(frozen=True, slots=True)
class Rows:
    """A ``rows`` message: consecutive rows of one table."""

    table: str
    rows: Sequence[Row]


@dataclass(frozen=True, slots=True)
class StatusReport:
    """A ``status`` message and when it arrived (the collector's clock, epoch seconds)."""

    status: Status
    arrived: float

    @property
    def table(self) -> str:
        """The station's table."""
        return self.status.table


@dataclass(frozen=True, slots=True)
class Refused:
    """A message refused unstored (see the module docstring). ``table`` is "" when the topic
    names none; ``poisoned``: rows whose loss leaves a hole in the table's chain."""

    table: str
    topic: str
    reason: str
    size: int
    digest: str
    payload: bytes | None
    poisoned: bool = False

    @property
    def kind(self) -> str:
        """The alert it raises."""
        return "oversize" if self.payload is None else "malformed"


Message = Rows | StatusReport | Refused


def screen(
    topic: str, payload: bytes, *, mount_point: str, max_bytes: int, arrived: float
) -> Message | None:
    """The message published at ``topic`` (under the broker's ``mount_point``), checked;
    None for a topic the collector does not take (acknowledgements). Never raises."""
    try:
        return _screen(topic, payload, mount_point, max_bytes, arrived)
    except Exception as err:  # a message must never stop the network thread
        return _refused("", topic, payload, f"could not be read: {type(err).__name__}", False)


def _screen(
    name: str, payload: bytes, mount_point: str, max_bytes: int, arrived: float
) -> Message | None:
    shown = name[:120]
    if not name.startswith(mount_point):
        return _refused("", shown, payload, "not a station's topic", False)
    try:
        table, kind = parse_topic(name[len(mount_point) :])
    except WireError as err:
        return _refused("", shown, payload, str(err), False)
    if kind == "ack":
        return None
    if len(payload) > max_bytes:
        size = len(payload)
        reason = f"{size} bytes, over the limit of {max_bytes}"
        return Refused(table, shown, reason, size, "oversize", None)
    try:
        if kind == "rows":
            rows = decode_rows(payload, table)
        else:
            status = decode_status(payload, table)
    except WireError as err:
        return _refused(table, shown, payload, f"not in the wire format: {err}", False)
    if kind == "rows":
        for row in rows:
            if not (_storable(row.ts) and _storable(row.data_text)):
                reason = f"row {row.id}: text the floor cannot hold (not ASCII, or a NUL)"
                return _refused(table, shown, payload, reason, True)
        return Rows(table, rows)
    texts = [status.ts, status.state or "", *(status.fault or {}).values()]
    texts += [text for pair in status.devices.items() for text in pair]
    if not all(_storable(text) and text.isprintable() for text in texts):
        reason = "status: text the floor cannot hold (not printable ASCII)"
        return _refused(table, shown, payload, reason, False)
    return StatusReport(status, arrived)


def _storable(text: str) -> bool:
    # A journal writes ASCII only (canonical JSON escapes the rest): anything else, and a
    # NUL, which no PostgreSQL text holds, is not a station's row.
    return text.isascii() and "\x00" not in text


def _refused(table: str, topic: str, payload: bytes, reason: str, poisoned: bool) -> Refused:
    digest = hashlib.sha256(payload).hexdigest()
    return Refused(table, topic, reason, len(payload), digest, payload[:EVIDENCE_BYTES], poisoned)


def refused_rows(message: Rows, reason: str) -> Refused:
    """A rows message the database refused after all (an error the checks above did not
    foresee), re-encoded as evidence. Not poison: nothing is concluded about the table
    from an error nobody foresaw; the alert says what happened."""
    payload = encode_rows(message.table, list(message.rows))
    return _refused(message.table, f"floor/{message.table}/rows", payload, reason, False)


def row_problem(table: str, row: Row) -> tuple[str, str] | None:
    """``(alert kind, text)`` when a well-chained row of ``table`` is not one the floor can
    take: not a journal time, settled money that is not whole cents, another table's name.
    None when it is fine."""
    if not JOURNAL_TS.fullmatch(row.ts):
        return "malformed", f"row {row.id}: {row.ts[:40]!r} is not a journal time"
    if row.kind not in SETTLED_KINDS and row.kind not in ("station_started", SEAL_KIND):
        return None
    fields = row_fields(row)
    if fields is None:
        return "malformed", f"row {row.id}: {row.kind} data is not a JSON object"
    if row.kind in SETTLED_KINDS:
        net = fields.get("net_cents")
        if net is not None and not (type(net) is int and abs(net) <= MAX_NET_CENTS):
            return "malformed", f"row {row.id}: net_cents {str(net)[:20]!r} is not whole cents"
        return None
    named = fields.get("table_id" if row.kind == "station_started" else "table")
    if named != table:
        return "table", f"row {row.id}: {row.kind} names table {str(named)[:40]!r}, not {table}"
    return None


def row_fields(row: Row) -> dict[str, Any] | None:
    """The row's data as a dict, or None when it is not a JSON object (or nested too deeply)."""
    try:
        value = json.loads(row.data_text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def net_cents(row: Row) -> int | None:
    """A settled wager's net (checked by :func:`row_problem` before the row is merged)."""
    if row.kind not in SETTLED_KINDS:
        return None
    fields = row_fields(row)
    value = fields.get("net_cents") if fields is not None else None
    return value if type(value) is int else None
