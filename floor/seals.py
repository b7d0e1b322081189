"""The seal check hook of the collector.

A station that seals its journal (forward-secure keys, ``controller.journal``'s sealing)
gives the floor a verification key per table (``[tables.ID] verify_key`` in
``floor.toml``). The collector calls a :data:`SealCheck` on every row it is about to merge:
None means the row is good, a text names the problem (a seal alert, the table quarantined).
Until the journal's sealing API is on this branch, :func:`no_seals` checks nothing and the
chain check stands alone.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.journal.format import Row

#: ``check(table, row) -> problem or None``.
SealCheck = Callable[[str, Row], str | None]


def no_seals(_table: str, _row: Row) -> str | None:
    """The check for tables that do not seal: every row passes (the chain is still checked)."""
    return None
