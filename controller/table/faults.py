"""Faults: what stops play until the supervisor resolves it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class FaultCode(Enum):
    """Why play stopped. Each has its own prompt text; the journal records the code."""

    UNEXPECTED_CARD = "unexpected_card"  # a card when none was due, or at the wrong place
    FOREIGN_CARD = "foreign_card"  # a 10 or anything not in a Spanish deck
    DUPLICATE_CARD = "duplicate_card"  # more copies of a card than the batch holds
    BAD_BATCH = "bad_batch"  # the shuffler's count does not match 6 or 8 Spanish decks
    DEVICE_LOST = "device_lost"
    DEVICE_FAULT = "device_fault"
    # Frames that failed their seal, or a device that could not prove the pairing key:
    # someone is on the line or a board was swapped.
    DEVICE_AUTHENTICATION = "device_authentication"
    READER_FAILED = "reader_failed"  # no answer after the allowed tries
    HOLE_CARD_MISMATCH = "hole_card_mismatch"  # the reveal disagrees with the reader
    # The shoe's revealed hole card and nonce do not open the commitment it made at the deal.
    HOLE_CARD_COMMITMENT = "hole_card_commitment"
    # Told to withhold the hole card, the shoe sent it face up on the line (old firmware, a
    # swapped board, a forged frame): the round can only be voided.
    HOLE_CARD_IN_CLEAR = "hole_card_in_clear"
    SHOE_EMPTY = "shoe_empty"
    WAGER_CHANGED = "wager_changed"  # NY 5324.12(b)(4),(8): no change after the first card
    UNEXPECTED_COVER_CARD = "unexpected_cover_card"
    RECOVERED_MID_ROUND = "recovered_mid_round"  # restart found a round in progress


class Resolution(Enum):
    """The supervisor's choices to clear a fault."""

    RESUME = "resume"
    VOID = "void"
    RESHUFFLE = "reshuffle"


#: Faults a resume cannot clear: the round is voided or the shoe reshuffled.
NOT_RESUMABLE = frozenset(
    {
        FaultCode.BAD_BATCH,
        FaultCode.HOLE_CARD_MISMATCH,
        FaultCode.HOLE_CARD_COMMITMENT,
        FaultCode.HOLE_CARD_IN_CLEAR,
    }
)


@dataclass(frozen=True, slots=True)
class Fault:
    """An active fault: its code, a message for the panel and journal, and the device;
    ``held``: an earlier fault of the same stop that cannot be resumed (a later fault took
    the prompt, not the earlier one's verdict)."""

    code: FaultCode
    message: str
    device: str | None = None
    held: FaultCode | None = None

    def not_resumable(self) -> FaultCode | None:
        """The code of this stop that forbids a resume: its own, or an earlier one's."""
        return self.code if self.code in NOT_RESUMABLE else self.held
