"""Hole-card commitments: proof in the journal that the sealed hole card was never changed.

At deal time the station journals only ``sha256("CARD|NONCE")``; the card and the nonce
appear in the journal at the reveal, and ``journal verify`` recomputes the commitment.
The random nonce keeps the commitment from giving the card away: with 48 possible cards a
bare hash of the card could be reversed by trying them all.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from controller.rules.cards import Card

NONCE_BYTES = 16


def _digest(card_text: str, nonce: str) -> str:
    return hashlib.sha256(f"{card_text}|{nonce}".encode()).hexdigest()


def fresh_nonce() -> str:
    """A nonce from the operating system's secure random source."""
    return secrets.token_hex(NONCE_BYTES)


def commit_hole_card(card: Card, nonce: str | None = None) -> tuple[str, str]:
    """Commit to ``card``: return ``(commitment, nonce)``; journal the commitment only.

    ``nonce`` is for simulations that must repeat byte for byte; a table always uses a
    fresh one (the default), or the commitment could be opened by trying all 48 cards.
    """
    nonce = fresh_nonce() if nonce is None else nonce
    return _digest(card.text, nonce), nonce


def check_commitment(commitment: str, card_text: str, nonce: str) -> bool:
    """True when ``card_text`` and ``nonce`` are what ``commitment`` was made from."""
    if not all(isinstance(v, str) for v in (commitment, card_text, nonce)):
        return False
    return hmac.compare_digest(commitment.lower().encode(), _digest(card_text, nonce).encode())
