"""Checkpoints: the ``verified`` row that says "rows 1..N were checked", sealed so that a
later start may trust it and hash only the rows after it.

A checkpoint row (kind ``verified``, round NULL) is written by the journal itself
(:meth:`controller.journal.store.Journal.checkpoint`): at every start once the journal is
checked, and while the station runs, once :data:`CHECKPOINT_ROWS` rows followed the last
one (the writer wrote and hashed every one of them itself). Its data:

* ``through``: the row just before it (``N``), and ``hash``: that row's hash;
* ``schema``: SQLite's schema cookie (``PRAGMA schema_version``) when it was written.
  Every ``DROP TRIGGER`` or ``CREATE TRIGGER`` moves it on, so an UPDATE made behind
  dropped triggers shows as a changed cookie, and the next start walks every row;
* with a sealing state only: ``key_epoch``, the epoch whose key the checkpoint key was
  derived from (``controller.journal.seal.checkpoint_key``), and ``mac =
  HMAC-SHA256(checkpoint key, canonical_json(["dealer-station checkpoint v1", table,
  id, N, hash, schema, key_epoch, ts]))``, ``id`` and ``ts`` being the checkpoint row's
  own. The station keeps the checkpoint key, so the next start checks the MAC: a
  checkpoint written by anyone else (appended, moved, or carried over into a rewritten
  chain) is refused, and so is a key file that is not this journal's (its checkpoint key
  differs). ``journal verify --key`` derives the key again and checks every checkpoint.

This module is the one place that makes and checks checkpoints (``controller.journal.verify``
checks them, the writer writes them).
"""

from __future__ import annotations

import hmac as std_hmac
import sqlite3
from typing import Any, Final

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import hmac as crypto_hmac

from controller.journal.format import JournalError, Row, canonical_json
from controller.journal.seal import SealingState
from controller.journal.storage import storage_of

CHECKPOINT_KIND: Final = "verified"
#: A running station writes a checkpoint once this many rows followed the last one (at a
#: round's end, before its seal, or with an idle seal): a start then hashes at most about
#: this many rows, and the rows of one round, however long the station ran.
CHECKPOINT_ROWS: Final = 2000
CHECKPOINT_DOMAIN: Final = "dealer-station checkpoint v1"
_FIELDS: Final = {"through": int, "hash": str, "schema": int}
_SEALED_FIELDS: Final = {"key_epoch": int, "mac": str}


def checkpoint_message(table: str, row: int, ts: str, fields: dict[str, Any]) -> bytes:
    """The bytes a checkpoint's MAC covers: checkpoint row ``row`` of ``table``, written at
    ``ts``, with ``fields`` (``through``, ``hash``, ``schema``, ``key_epoch``; see the
    module docstring)."""
    return canonical_json(
        [
            CHECKPOINT_DOMAIN,
            table,
            row,
            fields["through"],
            fields["hash"],
            fields["schema"],
            fields["key_epoch"],
            ts,
        ]
    ).encode()


def checkpoint_mac(key: bytes, message: bytes) -> str:
    """``HMAC-SHA256`` of ``message`` under the checkpoint key, in hex."""
    mac = crypto_hmac.HMAC(key, hashes.SHA256())
    mac.update(message)
    return mac.finalize().hex()


def checkpoint_data(
    row_id: int, ts: str, prev_hash: str, *, schema: int, sealing: SealingState | None
) -> dict[str, Any]:
    """The data of checkpoint row ``row_id`` written at ``ts`` after a row whose hash is
    ``prev_hash``; sealed with ``sealing``'s checkpoint key when there is one."""
    data: dict[str, Any] = {"through": row_id - 1, "hash": prev_hash, "schema": schema}
    if sealing is not None:
        data["key_epoch"] = sealing.checkpoint_since
        message = checkpoint_message(sealing.table, row_id, ts, data)
        data["mac"] = checkpoint_mac(sealing.checkpoint_key, message)
    return data


def last_checkpoint(conn: sqlite3.Connection) -> int:
    """The id of the journal's last checkpoint row (0: none), by the index of milestones."""
    found = storage_of(conn).last(CHECKPOINT_KIND)
    return found.id if found else 0


def checkpoint_fields(row: Row) -> dict[str, Any] | str:
    """A checkpoint row's fields, or the reason they are malformed. A checkpoint written
    before checkpoints were sealed holds ``through`` and ``hash`` only."""
    try:
        data = row.data
    except JournalError:
        return "data is not a JSON object"
    names = set(data)
    if names == {"through", "hash"}:
        expected: dict[str, type] = {"through": int, "hash": str}
    elif names == set(_FIELDS):
        expected = _FIELDS
    elif names == set(_FIELDS) | set(_SEALED_FIELDS):
        expected = _FIELDS | _SEALED_FIELDS
    else:
        return "fields are not through, hash, schema (key_epoch, mac)"
    for name, kind in expected.items():
        if type(data[name]) is not kind:
            return f"{name} is not {kind.__name__}"
    if row.round_no is not None:
        return "a checkpoint belongs to no round"
    if data["through"] != row.id - 1:
        return "does not check the row before it"
    return data


def check_checkpoint_mac(row: Row, fields: dict[str, Any], table: str, key: bytes) -> str:
    """``""`` when the checkpoint's MAC is good under ``key`` (a checkpoint key), else why."""
    if "mac" not in fields:
        return "it is not sealed"
    message = checkpoint_message(table, row.id, row.ts, fields)
    given = str(fields["mac"]).encode("utf-8", "backslashreplace")
    if not std_hmac.compare_digest(checkpoint_mac(key, message).encode(), given):
        return "its MAC does not match the checkpoint key"
    return ""
