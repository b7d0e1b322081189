"""What ``journal verify`` reports: its cases, from best to worst, and the one-line report.

Shared by ``controller.journal.verify`` (which decides) and ``controller.journal.walk``
(which walks the chain and reports the first row that fails).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Final


class VerifyCase(Enum):
    """What ``verify`` found, from best to worst."""

    INTACT = "intact"
    INTERRUPTED = "interrupted"  # intact; an uncommitted transaction was discarded
    HEAD_MISSING = "head_missing"  # rows cannot be checked for loss at the end
    COMMITMENT = "commitment"  # a hole-card reveal does not match its commitment
    UNSEALED = "unsealed"  # a key was given but no seal proves any row
    BEHIND = "behind"  # the journal ends before the anchor's seal: rows removed or rolled back
    FORKED = "forked"  # the anchor's row differs: rewritten or replaced
    SEAL = "seal"  # a seal (or a sealed checkpoint) does not check out with the key
    CHECKPOINT = "checkpoint"  # the start cannot trust the last checkpoint
    SCHEMA = "schema"  # the append-only triggers were removed
    TRUNCATED = "truncated"  # committed rows missing at the end
    REMOVED = "removed"  # rows missing in the middle
    ALTERED = "altered"  # a row's content no longer matches the chain
    CORRUPT = "corrupt"  # SQLite finds the file damaged, or it is no journal at all
    MISSING = "missing"  # no file


#: Cases in which every committed row is present and unchanged.
GOOD_CASES: Final = frozenset({VerifyCase.INTACT, VerifyCase.INTERRUPTED})


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """The outcome of ``verify``; ``message`` is the one line ``journal verify`` prints."""

    case: VerifyCase
    message: str
    rows: int = 0
    first_bad_row: int | None = None
    commitments_checked: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: With a key and an intact journal: the last seal proved (row, hash, seals through it),
    #: for the operator's proof (``controller.journal.proof``).
    sealed: tuple[int, str, int] | None = None

    @property
    def ok(self) -> bool:
        """True when no committed row is missing or changed."""
        return self.case in GOOD_CASES
