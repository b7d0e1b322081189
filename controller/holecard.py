"""Hole-card commitments: prove at the reveal that the sealed hole card never changed.

At deal time the journal records ``sha256(card|nonce)`` with a fresh random nonce; at the
reveal it records the card and the nonce, so anyone can recompute the commitment.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

NONCE_BYTES = 16


def commitment_of(card_text: str, nonce: str) -> str:
    """SHA-256 hex digest of ``card|nonce`` (UTF-8)."""
    return hashlib.sha256(f"{card_text}|{nonce}".encode()).hexdigest()


def commit_hole_card(card_text: str) -> tuple[str, str]:
    """A fresh commitment for a hole card: ``(commitment, nonce)``."""
    nonce = secrets.token_hex(NONCE_BYTES)
    return commitment_of(card_text, nonce), nonce


def check_commitment(commitment: str, card_text: str, nonce: str) -> bool:
    """True when ``card_text`` and ``nonce`` open ``commitment``."""
    return hmac.compare_digest(commitment, commitment_of(card_text, nonce))
