"""Forward-secure sealing of the journal (Bellare-Yee / Schneier-Kelsey evolving MAC keys).

A table's sealing state starts from a random 32-byte secret ``k0`` (the *verification key*,
printed once by ``dealer-station journal setup-keys`` and kept off the station). Epoch ``e``
has the key ``k_e``; ``k_{e+1} = HKDF-Expand(k_e, "evolve")``, a one-way step. Epoch ``e``
is used for exactly one seal row, whose MAC is ``HMAC-SHA256(HKDF-Expand(k_e, "seal"),
message)``; right after the seal row is committed the station replaces its state file with
``k_{e+1}`` (atomic rename and fsync), so ``k_e`` exists nowhere on the station any more.
Whoever takes the station at epoch ``E`` holds ``k_E`` only and cannot make the MAC of any
earlier epoch: every seal before ``E`` proves the rows it covers.

A seal row (kind ``seal``, round NULL) covers every row before it through the chain hash:

* ``data = {"epoch": e, "head": H, "mac": M, "row": N, "table": T}`` where ``N`` is the
  row just before the seal row and ``H`` its ``hash``;
* ``M = HMAC(seal_key(k_e), canonical_json(["dealer-station seal v1", T, e, N, H, ts]))``,
  ``ts`` being the seal row's own ``ts`` column.

Epochs run 0, 1, 2 ... with no gap, in row order: a seal that is missing, moved or
re-made without its key breaks the sequence or its MAC. This module is the one place that
makes and checks seals; it needs only :mod:`controller.journal.format` and
``cryptography``, so the floor collector imports it to check a table's rows.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac as std_hmac
import json
import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import hmac as crypto_hmac
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

from controller.journal.format import JournalError, Row, canonical_json, row_hash

SEAL_KIND: Final = "seal"
#: Where the station keeps its sealing state (``journal.sealing_key`` in station.toml).
DEFAULT_STATE_PATH: Final = Path("/var/lib/dealer-station/sealing-key")
KEY_BYTES: Final = 32
MAC_DOMAIN: Final = "dealer-station seal v1"
KEY_TEXT_PREFIX: Final = "ds1"
#: Version 2 adds the checkpoint key; a version 1 state is read and upgraded
#: (:meth:`SealingState.from_json`).
STATE_VERSION: Final = 2
_EVOLVE_INFO: Final = b"dealer-station seal evolve v1"
_MAC_INFO: Final = b"dealer-station seal mac v1"
_CHECKPOINT_INFO: Final = b"dealer-station checkpoint key v1"
_PROOF_INFO: Final = b"dealer-station verify proof key v1"
_CHECK_CHARS: Final = 4


class SealError(JournalError, ValueError):
    """A verification key, sealing state or seal that cannot be used or does not check out."""


def _expand(key: bytes, info: bytes) -> bytes:
    return HKDFExpand(algorithm=hashes.SHA256(), length=KEY_BYTES, info=info).derive(key)


def evolve(key: bytes) -> bytes:
    """The next epoch's key from this one (one-way: the old key cannot be recovered)."""
    return _expand(key, _EVOLVE_INFO)


def checkpoint_key(epoch_key: bytes) -> bytes:
    """The key that seals the start checkpoints (``controller.journal.checkpoint``), derived
    one way from the key of the epoch at which the station took it up (epoch 0 at
    ``setup-keys``): the station keeps it, unlike the epoch keys, so each start can check
    the checkpoint the start before wrote; the verification key derives it again."""
    return _expand(epoch_key, _CHECKPOINT_INFO)


def seal_message(table: str, epoch: int, row: int, head: str, ts: str) -> bytes:
    """The bytes a seal's MAC covers (see the module docstring)."""
    return canonical_json([MAC_DOMAIN, table, epoch, row, head, ts]).encode()


def seal_mac(epoch_key: bytes, message: bytes) -> str:
    """``HMAC-SHA256`` of ``message`` under the seal key derived from an epoch key, in hex."""
    mac = crypto_hmac.HMAC(_expand(epoch_key, _MAC_INFO), hashes.SHA256())
    mac.update(message)
    return mac.finalize().hex()


def _checksum(table: str, secret: bytes) -> str:
    digest = hashlib.sha256(table.encode() + b"\0" + secret).digest()
    return base64.b32encode(digest).decode()[:_CHECK_CHARS]


class VerificationKey:
    """A table's initial secret ``k0``: re-derives the key of every epoch, to check seals.

    Keeps the last epoch key it derived, so checking seals in order costs one derivation
    per epoch (the floor collector checks a table's seals as they arrive).
    """

    def __init__(self, table: str, secret: bytes) -> None:
        if len(secret) != KEY_BYTES:
            raise SealError(f"a verification key holds {KEY_BYTES} bytes, not {len(secret)}")
        self.table = table
        self._secret = secret
        self._cached: tuple[int, bytes] = (0, secret)
        self._checkpoint_keys: dict[int, bytes] = {}

    def epoch_key(self, epoch: int) -> bytes:
        """The key of ``epoch`` (0 is the secret itself)."""
        if type(epoch) is not int or epoch < 0:
            raise SealError(f"bad epoch {epoch!r}")
        at, key = self._cached
        if epoch < at:
            # An earlier epoch (a checkpoint key's, taken up long ago): derived apart, so
            # that the seals walked in order keep their place (else each sealed checkpoint
            # of a year would derive every key again from 0).
            at, key = 0, self._secret
            while at < epoch:
                key, at = evolve(key), at + 1
            return key
        while at < epoch:
            key, at = evolve(key), at + 1
        self._cached = (at, key)
        return key

    def proof_key(self) -> bytes:
        """The key that seals an operator's proof of a verified journal
        (``controller.journal.proof``): only the holder of the verification key makes one."""
        return _expand(self._secret, _PROOF_INFO)

    def checkpoint_key(self, epoch: int) -> bytes:
        """The checkpoint key a station took up at ``epoch`` (see :func:`checkpoint_key`;
        remembered: a journal's checkpoints name a few epochs, each thousands of times)."""
        found = self._checkpoint_keys.get(epoch)
        if found is None:
            found = self._checkpoint_keys[epoch] = checkpoint_key(self.epoch_key(epoch))
        return found

    def to_text(self) -> str:
        """``ds1:TABLE:XXXX-XXXX-...:CHCK``: base32 of the secret and a checksum."""
        body = base64.b32encode(self._secret).decode().rstrip("=")
        groups = "-".join(body[i : i + 4] for i in range(0, len(body), 4))
        return f"{KEY_TEXT_PREFIX}:{self.table}:{groups}:{_checksum(self.table, self._secret)}"

    @classmethod
    def from_text(cls, text: str) -> VerificationKey:
        """Parse :meth:`to_text` (case, spaces and dashes in the key part do not matter).

        Raises:
            SealError: not a verification key, or its checksum does not match (a typo).
        """
        parts = text.strip().split(":")
        if len(parts) != 4 or parts[0].lower() != KEY_TEXT_PREFIX:
            raise SealError("not a verification key (expected ds1:TABLE:KEY:CHECK)")
        _, table, body, check = parts
        body = "".join(body.split()).replace("-", "").upper()
        try:
            secret = base64.b32decode(body + "=" * (-len(body) % 8))
        except ValueError:
            raise SealError("verification key: the key part is not base32") from None
        if len(secret) != KEY_BYTES:
            raise SealError("verification key: the key part has the wrong length")
        if not std_hmac.compare_digest(check.strip().upper(), _checksum(table, secret)):
            raise SealError("verification key: checksum mismatch (mistyped?)")
        return cls(table, secret)


@dataclass(frozen=True, slots=True)
class SealFailure:
    """Why a seal row does not prove what it claims."""

    row: int
    reason: str


def seal_fields(row: Row) -> dict[str, Any] | str:
    """A seal row's fields, or the reason they are malformed."""
    try:
        data = row.data
    except JournalError:
        return "data is not a JSON object"
    fields = {"epoch": int, "head": str, "mac": str, "row": int, "table": str}
    if set(data) != set(fields):
        return "fields are not epoch, head, mac, row, table"
    for name, kind in fields.items():
        if type(data[name]) is not kind:
            return f"{name} is not {kind.__name__}"
    return data


def check_row_hash(row: Row) -> bool:
    """True when ``row.hash`` is the chain hash of its columns (``prev_hash`` included)."""
    expected = row_hash(
        row.prev_hash,
        row_id=row.id,
        ts=row.ts,
        kind=row.kind,
        round_no=row.round_no,
        data_text=row.data_text,
    )
    # Bytes: a forged or corrupt hash may hold any character (compare_digest refuses
    # non-ASCII text).
    given = str(row.hash).encode("utf-8", "backslashreplace")
    return std_hmac.compare_digest(expected.encode(), given)


def check_seal(row: Row, key: VerificationKey, *, expected_epoch: int | None = None) -> str:
    """Check one seal row with a table's verification key; ``""`` when it is good, else why.

    Checks the row's own hash, that it seals the row just before it (``row`` and ``head``
    agree with its id and ``prev_hash``), the table, the epoch (when the caller knows which
    comes next) and the MAC.
    """
    if row.kind != SEAL_KIND:
        return f"kind {row.kind!r} is not a seal"
    if not check_row_hash(row):
        return "content does not match its hash"
    fields = seal_fields(row)
    if isinstance(fields, str):
        return fields
    if row.round_no is not None:
        return "a seal belongs to no round"
    if fields["row"] != row.id - 1 or fields["head"] != row.prev_hash:
        return "does not seal the row before it"
    if fields["table"] != key.table:
        return f"sealed for table {fields['table']!r}, the key is table {key.table!r}"
    epoch = fields["epoch"]
    if expected_epoch is not None and epoch != expected_epoch:
        return f"epoch {epoch} where epoch {expected_epoch} was due"
    message = seal_message(fields["table"], epoch, fields["row"], fields["head"], row.ts)
    if not std_hmac.compare_digest(seal_mac(key.epoch_key(epoch), message), fields["mac"]):
        return f"MAC of epoch {epoch} does not match"
    return ""


# --- the station's sealing state ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SealingState:
    """What the station holds: its table, the current epoch and that epoch's key only, and
    the checkpoint key (:func:`checkpoint_key`) with the epoch it was derived at.

    Made with the first three only, the checkpoint key is derived from ``key`` at
    ``epoch`` (a new table's state at epoch 0, or a version 1 state taken up now).
    """

    table: str
    epoch: int
    key: bytes
    checkpoint_epoch: int | None = None
    checkpoint_key: bytes = b""

    def __post_init__(self) -> None:
        if self.checkpoint_epoch is None:
            object.__setattr__(self, "checkpoint_epoch", self.epoch)
            object.__setattr__(self, "checkpoint_key", checkpoint_key(self.key))

    @property
    def checkpoint_since(self) -> int:
        """The epoch the checkpoint key was derived at (never None once made)."""
        return self.epoch if self.checkpoint_epoch is None else self.checkpoint_epoch

    def to_json(self) -> str:
        """The state file's text."""
        return canonical_json(
            {
                "version": STATE_VERSION,
                "table": self.table,
                "epoch": self.epoch,
                "key": self.key.hex(),
                "checkpoint_epoch": self.checkpoint_since,
                "checkpoint_key": self.checkpoint_key.hex(),
            }
        )

    @classmethod
    def from_json(cls, text: str) -> SealingState:
        """Parse :meth:`to_json` (or a version 1 state, which had no checkpoint key: one is
        derived from its current key).

        Raises:
            SealError: not a sealing state of a supported version.
        """
        try:
            value = json.loads(text)
            table, epoch, key = value["table"], value["epoch"], bytes.fromhex(value["key"])
            version = value["version"]
            if version == STATE_VERSION:
                since = value["checkpoint_epoch"]
                since_key = bytes.fromhex(value["checkpoint_key"])
        except (ValueError, KeyError, TypeError, AttributeError):
            raise SealError("the sealing state is unreadable") from None
        if version not in (1, STATE_VERSION) or type(epoch) is not int or epoch < 0:
            raise SealError("the sealing state is not of a supported version")
        if not isinstance(table, str) or len(key) != KEY_BYTES:
            raise SealError("the sealing state is unreadable")
        if version == 1:
            return cls(table, epoch, key)
        if type(since) is not int or not 0 <= since <= epoch or len(since_key) != KEY_BYTES:
            raise SealError("the sealing state is unreadable")
        return cls(table, epoch, key, since, since_key)

    def seal(self, row: int, head: str, ts: str) -> dict[str, Any]:
        """The data of the seal row that seals ``row`` (hash ``head``) at ``ts``."""
        message = seal_message(self.table, self.epoch, row, head, ts)
        return {
            "epoch": self.epoch,
            "head": head,
            "mac": seal_mac(self.key, message),
            "row": row,
            "table": self.table,
        }

    def evolved(self) -> SealingState:
        """The next epoch's state (its key derived one-way from this one; the checkpoint
        key stays)."""
        return SealingState(
            self.table,
            self.epoch + 1,
            evolve(self.key),
            self.checkpoint_since,
            self.checkpoint_key,
        )


def new_sealing(table: str) -> tuple[SealingState, VerificationKey]:
    """A fresh sealing state at epoch 0 and its verification key (``secrets``)."""
    secret = secrets.token_bytes(KEY_BYTES)
    return SealingState(table, 0, secret), VerificationKey(table, secret)


#: A sealing state file is about 300 bytes; a larger one is not one (nor read further).
STATE_MAX_BYTES: Final = 4096


def read_state_text(path: Path) -> str:
    """The text of the state file at ``path``: a regular file of at most
    :data:`STATE_MAX_BYTES` (a device or a FIFO named by mistake is never read on).

    Raises:
        FileNotFoundError: no state at ``path``.
        OSError: it cannot be read.
        SealError: it is not a regular file, or too large to be a state.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SealError("not a regular file")
        raw = os.read(fd, STATE_MAX_BYTES + 1)
    finally:
        os.close(fd)
    if len(raw) > STATE_MAX_BYTES:
        raise SealError(f"larger than {STATE_MAX_BYTES} bytes: not a sealing state")
    return raw.decode("ascii", errors="replace")


def load_state(path: Path) -> SealingState:
    """Read the sealing state file (:func:`read_state_text`).

    Raises:
        FileNotFoundError: no state at ``path``.
        OSError: it cannot be read.
        SealError: the file is not a sealing state.
    """
    return SealingState.from_json(read_state_text(path))


def save_state(path: Path, state: SealingState) -> None:
    """Replace the state file atomically (write a temporary file, fsync, rename, fsync the
    directory), so that at every moment the file holds one whole state, and the previous
    epoch's key is unlinked. On flash storage the old blocks may survive until the flash
    translation layer erases them (docs/operations.md).

    Raises:
        OSError: the state could not be written (the previous state is left in place).
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        try:
            os.write(fd, state.to_json().encode() + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Remove what :func:`save_state` left beside ``path`` when it was killed before its
    rename (``.NAME.PID.tmp``: a whole state, possibly of the next epoch's key, which must
    not linger on the station). Only regular files of that name are removed; call it where
    no other process replaces the state (the journal's writer lock is held). Returns what
    was removed.
    """
    pattern = re.compile(rf"\.{re.escape(path.name)}\.[0-9]+\.tmp")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    for entry in entries:
        if pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed
