"""The writer's side of sealing (``controller.journal.seal`` makes and checks the seals):
which epoch's key seals next, the key file replaced once a seal is committed, and when the
rows waiting unsealed are due a seal.

Used by :class:`controller.journal.store.Journal` only, under its lock.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Final

from controller.journal.format import JournalWriteError, canonical_json
from controller.journal.seal import SealingState, save_state

#: Rows wait at most this long unsealed while the table is idle or between rounds (a
#: shuffle, a burn, a fault): what a thief of the station could still alter unseen is at
#: most half a minute of such rows; it costs one seal row and one key-file write (a 4 KiB
#: flash write) per 30 s of activity, nothing when nothing happens.
SEAL_IDLE_SECONDS: Final = 30.0


class Sealer:
    """The sealing state a journal writes with: the key of the epoch to come only.

    A seal row's data is made inside its transaction (:meth:`seal_data`); the next epoch's
    state waits until the transaction commits (:meth:`committed` replaces the key file) or
    is dropped when it rolls back (:meth:`discard`).
    """

    def __init__(self, path: Path, state: SealingState, sealed_through: int) -> None:
        self.path = path
        self.state = state
        #: The id of the last row covered by a committed seal (0: none).
        self.sealed_through = sealed_through
        self._pending: SealingState | None = None
        self._pending_through = 0
        self._last_seal_at = time.monotonic()

    def seal_data(self, row_id: int, ts: str, prev_hash: str) -> str:
        """The data text of seal row ``row_id`` (written at ``ts``, after ``prev_hash``)."""
        state = self.state if self._pending is None else self._pending  # two in one commit
        data = state.seal(row_id - 1, prev_hash, ts)
        self._pending, self._pending_through = state.evolved(), row_id
        return canonical_json(data)

    def discard(self) -> None:
        """The transaction rolled back: its seals never were."""
        self._pending = None

    def committed(self) -> None:
        """After a commit: past a seal in it, the key moves on (the old one is unlinked).

        Raises:
            JournalWriteError: the seal is committed but the key file could not be replaced
                (its key stays until the next start evolves it).
        """
        if self._pending is None:
            return
        state, self._pending = self._pending, None
        self.sealed_through = self._pending_through
        self._last_seal_at = time.monotonic()
        try:
            save_state(self.path, state)
        except OSError as err:
            raise JournalWriteError(
                f"row {self.sealed_through} sealed, but the sealing key could not be"
                f" evolved: {err.strerror}"
            ) from err
        self.state = state

    def catch_up(self, last_seal: tuple[int, int] | None) -> None:
        """After a write whose bookkeeping was broken off: ``last_seal`` is the journal's
        last seal row (id, epoch). When it used the key held here, its commit went through
        and only the key's evolution was lost: the key moves on now (as at a start,
        ``controller.journal.opening.check_sealing``), so no epoch seals twice.

        Raises:
            JournalWriteError: as :meth:`committed`.
        """
        if last_seal is not None and last_seal[1] == self.state.epoch:
            self._pending, self._pending_through = self.state.evolved(), last_seal[0]
            self.committed()

    def due(self, now: float) -> bool:
        """True when :data:`SEAL_IDLE_SECONDS` have passed (monotonic ``now``) since the last
        seal (or the start)."""
        return now - self._last_seal_at >= SEAL_IDLE_SECONDS
