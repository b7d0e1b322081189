"""Where the table stood when the station stopped, read from the journal alone.

On start the daemon verifies the journal, then asks :func:`resume_point` what to restore
before it commands any device: between rounds play continues; a round that was started but
neither completed nor voided comes back as a fault the supervisor resolves (resume or void),
with the round's journaled cards shown by recall; a fault that was open at power-off is
still open. This module only reads; the procedure decides what to do with the answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.journal_format import Row
from controller.journal_reader import JournalReader

ROUND_ENDS = ("round_completed", "round_voided")


@dataclass(frozen=True, slots=True)
class ResumePoint:
    """The journal's account of the table at the last committed row."""

    last_row: int  # 0: an empty journal
    last_round: int  # the highest round number journaled, 0 if none
    open_round: int | None  # started, neither completed nor voided
    open_round_rows: tuple[Row, ...]  # that round's rows in order (empty when none)
    open_faults: tuple[Row, ...]  # faults after the last fault_resolved, oldest first
    since_last_round: tuple[Row, ...]  # rows after the last round ended, outside any round
    reshuffle_due: bool  # the cover card came out and no shuffle was done since
    clean_shutdown: bool  # the last row is clean_shutdown (False for an empty journal)

    @property
    def next_round(self) -> int:
        """The number the next round gets."""
        return self.last_round + 1

    @property
    def needs_supervisor(self) -> bool:
        """True when play must not continue by itself: an open round or an open fault."""
        return self.open_round is not None or bool(self.open_faults)


def resume_point(reader: JournalReader) -> ResumePoint:
    """Read the resume point; a few indexed queries, however long the journal.

    Raises:
        JournalCorruptError: when SQLite finds the file damaged (run ``journal verify``).
    """
    last = reader.last()
    started = reader.last("round_started")
    last_round = 0
    open_round: int | None = None
    open_rows: tuple[Row, ...] = ()
    if started is not None and started.round_no is not None:
        last_round = started.round_no
        if not list(reader.rows(kinds=ROUND_ENDS, round_no=last_round, limit=1)):
            open_round = last_round
            open_rows = tuple(reader.rows(round_no=last_round))
    resolved = reader.last("fault_resolved")
    open_faults = tuple(reader.rows(kinds=("fault",), after_id=resolved.id if resolved else 0))
    ended = reader.last(*ROUND_ENDS)
    since = tuple(
        row for row in reader.rows(after_id=ended.id if ended else 0) if row.round_no is None
    )
    cover = reader.last("cover_card")
    shuffled = reader.last("shuffle_done")
    return ResumePoint(
        last_row=last.id if last else 0,
        last_round=last_round,
        open_round=open_round,
        open_round_rows=open_rows,
        open_faults=open_faults,
        since_last_round=since,
        reshuffle_due=cover is not None and (shuffled is None or shuffled.id < cover.id),
        clean_shutdown=last is not None and last.kind == "clean_shutdown",
    )
