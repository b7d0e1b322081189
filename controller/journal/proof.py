"""The operator's proof of a verified journal: a small file ``journal verify --key K --save
FILE`` writes after the journal checked out, naming the last seal it proved (its row, its
hash and the seals up to it), with a MAC under a key derived from the verification key.
``journal verify --key K --since FILE`` then walks only the rows after that seal: it checks
the MAC (a proof nobody without the key could have made or changed), that the journal
still holds that seal with that hash (else it was cut back or rewritten: ``behind`` /
``forked``), and goes on from there with the next epoch's seal.

What the incremental check does not do again: hash the rows before the proof's seal (they
were proved when the proof was made; a change to them since, in place and without
re-chaining, needs the full walk to be seen) and SQLite's page check of the whole file.

The file is ``canonical_json({"hash", "mac", "row", "seals", "table", "version"})`` and a
newline; ``mac = HMAC-SHA256(proof key, canonical_json(["dealer-station verify proof v1",
table, row, hash, seals]))``.
"""

from __future__ import annotations

import hmac as std_hmac
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import hmac as crypto_hmac

from controller.journal.format import canonical_json
from controller.journal.seal import SealError, VerificationKey

PROOF_DOMAIN: Final = "dealer-station verify proof v1"
PROOF_VERSION: Final = 1
#: A proof file is about 250 bytes; a larger file is not one (nor read further).
PROOF_MAX_BYTES: Final = 4096


@dataclass(frozen=True, slots=True)
class Proof:
    """Rows 1..``row`` of ``table``'s journal checked out with the verification key: row
    ``row`` is a seal whose hash is ``hash``, the ``seals``-th (epochs 0..seals-1)."""

    table: str
    row: int
    hash: str
    seals: int
    mac: str

    def to_text(self) -> str:
        """The file's text."""
        fields = {
            "version": PROOF_VERSION,
            "table": self.table,
            "row": self.row,
            "hash": self.hash,
            "seals": self.seals,
            "mac": self.mac,
        }
        return canonical_json(fields) + "\n"

    @classmethod
    def from_text(cls, text: str) -> Proof:
        """Parse :meth:`to_text`.

        Raises:
            SealError: not a proof file of a supported version.
        """
        try:
            value = json.loads(text)
            fields = (value["table"], value["row"], value["hash"], value["seals"], value["mac"])
            version = value["version"]
        except (ValueError, KeyError, TypeError):
            raise SealError("not a verify proof file") from None
        table, row, digest, seals, mac = fields
        if version != PROOF_VERSION:
            raise SealError(f"verify proof of version {version!r} is not supported")
        if not (
            isinstance(table, str)
            and type(row) is int
            and type(seals) is int
            and 0 < row < 2**62
            and 0 < seals < 2**62
            and isinstance(digest, str)
            and isinstance(mac, str)
        ):
            raise SealError("not a verify proof file")
        return cls(table, row, digest, seals, mac)


def _mac(key: VerificationKey, table: str, row: int, digest: str, seals: int) -> str:
    mac = crypto_hmac.HMAC(key.proof_key(), hashes.SHA256())
    mac.update(canonical_json([PROOF_DOMAIN, table, row, digest, seals]).encode())
    return mac.finalize().hex()


def make_proof(key: VerificationKey, row: int, digest: str, seals: int) -> Proof:
    """The proof that rows 1..``row`` (the ``seals``-th seal, hash ``digest``) checked out."""
    return Proof(key.table, row, digest, seals, _mac(key, key.table, row, digest, seals))


def check_proof(proof: Proof, key: VerificationKey) -> str:
    """``""`` when ``proof`` was made with ``key``, else why not."""
    if proof.table != key.table:
        return f"the proof is of table {proof.table!r}, the key of table {key.table!r}"
    expected = _mac(key, proof.table, proof.row, proof.hash, proof.seals)
    given = proof.mac.encode("utf-8", "backslashreplace")
    if not std_hmac.compare_digest(expected.encode(), given):
        return "its MAC does not match the verification key"
    return ""


def read_proof(path: Path) -> Proof:
    """The proof in the file at ``path`` (at most :data:`PROOF_MAX_BYTES` read).

    Raises:
        OSError: it cannot be read.
        SealError: it is not a proof file.
    """
    with path.open("rb") as f:
        raw = f.read(PROOF_MAX_BYTES + 1)
    if len(raw) > PROOF_MAX_BYTES:
        raise SealError(f"larger than {PROOF_MAX_BYTES} bytes: not a verify proof file")
    return Proof.from_text(raw.decode("ascii", errors="replace"))
