"""The hole card's commitment: ``SHA-256("CARD|NONCE")``, hex.

One definition for everyone who makes or checks one: the shoe (its double) at the deal,
the station at the reveal (``controller.table.holecard``), ``journal verify``. ``CARD`` is
the card's text (``KD``), ``NONCE`` 16 random bytes as 32 lowercase hex digits: the nonce
keeps the commitment from giving the card away (48 cards could be tried one by one).
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Final

NONCE_BYTES: Final = 16


def hole_card_commitment(card_text: str, nonce: str) -> str:
    """The commitment to the card ``card_text`` with ``nonce`` (hex text), lowercase hex."""
    return hashlib.sha256(f"{card_text}|{nonce}".encode()).hexdigest()


def opens_commitment(commitment: str, card_text: str, nonce: str) -> bool:
    """True when ``card_text`` and ``nonce`` are what ``commitment`` was made from."""
    if not all(isinstance(v, str) for v in (commitment, card_text, nonce)):
        return False
    expected = hole_card_commitment(card_text, nonce).encode()
    return hmac.compare_digest(commitment.lower().encode(), expected)
