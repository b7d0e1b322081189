"""Hole-card commitments: proof in the journal that the sealed hole card was never changed.

At deal time the station journals only the commitment ``sha256("CARD|NONCE")``
(``controller.rules.commitment``); the card and the nonce appear in the journal at the
reveal, and ``journal verify`` recomputes the commitment. Where the shoe withholds the hole
card (every real and simulated shoe: docs/protocol.md, "The hole card"), the commitment is
the shoe's own and the station never holds the card before the reveal: a
:class:`WithheldCard` stands in its place in the round, filled only when the shoe reveals a
card and nonce that open the commitment.
"""

from __future__ import annotations

import secrets

from controller.rules.cards import Card
from controller.rules.commitment import NONCE_BYTES, hole_card_commitment, opens_commitment
from controller.rules.sealed import SealedCard

__all__ = [
    "NONCE_BYTES",
    "WithheldCard",
    "check_commitment",
    "commit_hole_card",
    "fresh_nonce",
]


def fresh_nonce() -> str:
    """A nonce from the operating system's secure random source."""
    return secrets.token_hex(NONCE_BYTES)


def commit_hole_card(card: Card, nonce: str | None = None) -> tuple[str, str]:
    """Commit to ``card``: return ``(commitment, nonce)``; journal the commitment only.

    ``nonce`` is for simulations that must repeat byte for byte; a table always uses a
    fresh one (the default), or the commitment could be opened by trying all 48 cards.
    """
    nonce = fresh_nonce() if nonce is None else nonce
    return hole_card_commitment(card.text, nonce), nonce


def check_commitment(commitment: str, card_text: str, nonce: str) -> bool:
    """True when ``card_text`` and ``nonce`` are what ``commitment`` was made from."""
    return opens_commitment(commitment, card_text, nonce)


class WithheldCard(SealedCard):
    """The hole card the shoe keeps: known here only by its ``commitment`` until
    :meth:`fill` gives the card the shoe revealed (after the commitment was checked)."""

    __slots__ = ("_card", "commitment")

    def __init__(self, commitment: str) -> None:
        self.commitment = commitment
        self._card: Card | None = None

    @property
    def filled(self) -> bool:
        """Whether the shoe has revealed the card."""
        return self._card is not None

    def fill(self, card: Card) -> None:
        """The card the shoe revealed (its commitment already checked)."""
        self._card = card

    def reveal(self) -> Card:
        """The card. Raises ``LookupError`` before the shoe revealed it."""
        if self._card is None:
            raise LookupError("the shoe has not revealed the hole card yet")
        return self._card

    def __repr__(self) -> str:
        return "WithheldCard(<in the shoe>)"

    __str__ = __repr__
