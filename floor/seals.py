"""The collector's seal check: each sealing table's seal rows, with its verification key.

A station that seals its journal (``controller.journal.seal``: forward-secure evolving
keys) writes ``seal`` rows; the floor holds each table's verification key (``[tables.ID]
verify_key`` in ``floor.toml``, printed by ``journal setup-keys``). For such a table the
collector merges rows only once a seal row covering them checks out: its MAC, that it
seals the row before it, and that its epoch is the one due (epochs run 0, 1, 2 ...
without a gap); see :mod:`floor.branches`. Tables without a key are chain-checked only.
"""

from __future__ import annotations

from collections.abc import Mapping

from controller.journal.format import Row
from controller.journal.seal import SEAL_KIND, VerificationKey, check_seal


class TableSeals:
    """Checks seal rows with the keys of the tables that have one."""

    def __init__(self, keys: Mapping[str, VerificationKey]) -> None:
        self.keys = dict(keys)

    @classmethod
    def from_text(cls, keys: Mapping[str, str]) -> TableSeals:
        """From ``floor.toml``'s key texts (already checked by ``floor.config``)."""
        return cls({table: VerificationKey.from_text(text) for table, text in keys.items()})

    def sealed(self, table: str) -> bool:
        """Does the floor hold ``table``'s verification key (are its rows held until sealed)?"""
        return table in self.keys

    def __call__(self, table: str, row: Row, epoch: int | None) -> str | None:
        """None when ``row`` is not a seal, the table has no key, or the seal checks out
        (with ``epoch`` due; any epoch when None); else why not."""
        key = self.keys.get(table)
        if key is None or row.kind != SEAL_KIND:
            return None
        return check_seal(row, key, expected_epoch=epoch) or None


#: The check when no table's key is known: every table is chain-checked only.
NO_SEALS = TableSeals({})
