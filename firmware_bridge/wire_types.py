"""Wire types: how one field of a message is laid out and checked on the wire.

Each field of a catalogued message is annotated with one of these
(``Annotated[int, UInt8(1, 13)]``); ``firmware_bridge.codec`` compiles a message's fields
into one ``struct`` layout. Fixed-size types give a ``struct`` format (``fmt``) and check
values both ways (``to_wire``, ``from_wire``); variable-size ones (text, byte strings) pack
and unpack themselves after the fixed part. Every check raises ``PayloadError``.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any, Final

from firmware_bridge.errors import PayloadError


class WireType:
    """How one field is laid out. Fixed-size types set ``fmt``; variable ones override."""

    fmt: str | None = None
    #: How many ``struct`` items the field packs to (several for a fixed array).
    items: int = 1

    def to_wire(self, value: Any) -> Any:
        """Check ``value`` and convert it to what ``struct`` packs. Raises PayloadError."""
        return value

    def from_wire(self, raw: Any) -> Any:
        """Check and convert what ``struct`` unpacked. Raises PayloadError."""
        return raw

    def pack_var(self, value: Any) -> bytes:  # pragma: no cover - only variable types
        """Encode a variable-size field."""
        raise NotImplementedError

    def unpack_var(self, data: bytes, pos: int) -> tuple[Any, int]:  # pragma: no cover
        """Decode a variable-size field at ``pos``; return the value and the next offset."""
        raise NotImplementedError


class UInt(WireType):
    """An unsigned integer of 1, 2 or 4 bytes, optionally limited to ``lo..hi``."""

    def __init__(self, size: int, lo: int = 0, hi: int | None = None) -> None:
        self.fmt = {1: "B", 2: "H", 4: "I"}[size]
        self.lo = lo
        self.hi = (1 << (8 * size)) - 1 if hi is None else hi

    def to_wire(self, value: Any) -> Any:
        if type(value) is not int or not self.lo <= value <= self.hi:
            raise PayloadError(f"{value!r} is not an integer in {self.lo}..{self.hi}")
        return value

    def from_wire(self, raw: Any) -> Any:
        if not self.lo <= raw <= self.hi:
            raise PayloadError(f"{raw} is outside {self.lo}..{self.hi}")
        return raw


def UInt8(lo: int = 0, hi: int = 0xFF) -> UInt:  # noqa: N802 - reads as a type in annotations
    """A one-byte unsigned integer in ``lo..hi``."""
    return UInt(1, lo, hi)


U8: Final = UInt(1)
U16: Final = UInt(2)
U32: Final = UInt(4)


class Flag(WireType):
    """A boolean as one byte, 0 or 1 (anything else is a payload error)."""

    fmt = "B"

    def to_wire(self, value: Any) -> Any:
        if type(value) is not bool:
            raise PayloadError(f"{value!r} is not a bool")
        return int(value)

    def from_wire(self, raw: Any) -> Any:
        if raw > 1:
            raise PayloadError(f"boolean byte {raw} is neither 0 nor 1")
        return raw == 1


class Code(WireType):
    """An enum member as one byte: an ``IntEnum``'s value, or what ``code`` gives for each
    member of another enum (``DeviceKind.code``)."""

    fmt = "B"

    def __init__(self, enum: type[Enum], code: Callable[[Any], int] = int) -> None:
        self.enum = enum
        self._code = code
        # Byte -> member: a dict lookup, where ``enum(raw)`` runs Enum.__call__ in Python
        # (a wager sensor report decodes one on every frame: docs/performance.md).
        self._members: dict[int, Enum] = {code(member): member for member in enum}

    def to_wire(self, value: Any) -> Any:
        if not isinstance(value, self.enum):
            raise PayloadError(f"{value!r} is not a {self.enum.__name__}")
        return self._code(value)

    def from_wire(self, raw: Any) -> Any:
        member = self._members.get(raw)
        if member is None:
            raise PayloadError(f"{raw} is not a {self.enum.__name__} code")
        return member


class Letter(WireType):
    """One ASCII letter from a fixed set, e.g. a suit ``S H D C``."""

    fmt = "B"

    def __init__(self, allowed: str) -> None:
        self.allowed = allowed

    def to_wire(self, value: Any) -> Any:
        if not isinstance(value, str) or len(value) != 1 or value not in self.allowed:
            raise PayloadError(f"{value!r} is not one of {' '.join(self.allowed)}")
        return ord(value)

    def from_wire(self, raw: Any) -> Any:
        letter = chr(raw)
        if letter not in self.allowed:
            raise PayloadError(f"byte 0x{raw:02X} is not one of {' '.join(self.allowed)}")
        return letter


class OptionalU32(WireType):
    """A 4-byte unsigned integer or None, sent as 0xFFFFFFFF."""

    fmt = "I"
    NONE: Final = 0xFFFFFFFF

    def to_wire(self, value: Any) -> Any:
        if value is None:
            return self.NONE
        if type(value) is not int or not 0 <= value < self.NONE:
            raise PayloadError(f"{value!r} is not None or an integer in 0..{self.NONE - 1}")
        return value

    def from_wire(self, raw: Any) -> Any:
        return None if raw == self.NONE else raw


class Counts(WireType):
    """A fixed number of 2-byte counts, e.g. cards per rank 1..13."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.fmt = f"{n}H"
        self.items = n

    def to_wire(self, value: Any) -> Any:
        if (
            not isinstance(value, tuple)
            or len(value) != self.n
            or not all(type(v) is int and 0 <= v <= 0xFFFF for v in value)
        ):
            raise PayloadError(f"expected a tuple of {self.n} counts 0..65535, got {value!r}")
        return value

    def from_wire(self, raw: Any) -> Any:
        return raw


class Text(WireType):
    """UTF-8 text after a one-byte length, at most ``max_len`` bytes."""

    def __init__(self, max_len: int = 64) -> None:
        self.max_len = max_len

    def pack_var(self, value: Any) -> bytes:
        if not isinstance(value, str):
            raise PayloadError(f"{value!r} is not text")
        data = value.encode("utf-8")
        if len(data) > self.max_len:
            raise PayloadError(f"text of {len(data)} bytes exceeds {self.max_len}")
        return bytes((len(data),)) + data

    def unpack_var(self, data: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(data):
            raise PayloadError("payload ends before a text length")
        end = pos + 1 + data[pos]
        if data[pos] > self.max_len or end > len(data):
            raise PayloadError(f"text length {data[pos]} overruns the payload or {self.max_len}")
        try:
            return data[pos + 1 : end].decode("utf-8"), end
        except UnicodeDecodeError as err:
            raise PayloadError(f"text is not UTF-8: {err}") from err


class Blob(WireType):
    """Raw bytes after a one-byte length, at most ``max_len`` bytes."""

    def __init__(self, max_len: int = 200) -> None:
        self.max_len = max_len

    def pack_var(self, value: Any) -> bytes:
        if not isinstance(value, bytes) or len(value) > self.max_len:
            raise PayloadError(f"expected at most {self.max_len} bytes, got {value!r}")
        return bytes((len(value),)) + value

    def unpack_var(self, data: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(data):
            raise PayloadError("payload ends before a byte-string length")
        end = pos + 1 + data[pos]
        if data[pos] > self.max_len or end > len(data):
            raise PayloadError(f"length {data[pos]} overruns the payload or {self.max_len}")
        return data[pos + 1 : end], end


class Records(WireType):
    """A one-byte count, 1..``max_count``, then that many records of ``size`` bytes each,
    every one laid out by ``encode``/``decode`` (a message's own payload layout, e.g. a
    wager sensor report) and an instance of ``kind``."""

    def __init__(
        self,
        kind: type,
        size: int,
        max_count: int,
        encode: Callable[[Any], bytes],
        decode: Callable[[bytes], Any],
    ) -> None:
        self.kind = kind
        self.size = size
        self.max_count = max_count
        self.encode = encode
        self.decode = decode

    def pack_var(self, value: Any) -> bytes:
        if (
            not isinstance(value, tuple)
            or not 1 <= len(value) <= self.max_count
            or not all(isinstance(v, self.kind) for v in value)
        ):
            raise PayloadError(
                f"expected a tuple of 1..{self.max_count} {self.kind.__name__}, got {value!r}"
            )
        return bytes((len(value),)) + b"".join(map(self.encode, value))

    def unpack_var(self, data: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(data):
            raise PayloadError("payload ends before a record count")
        count, size = data[pos], self.size
        end = pos + 1 + count * size
        if not 1 <= count <= self.max_count or end > len(data):
            raise PayloadError(f"{count} records overrun the payload or 1..{self.max_count}")
        decode = self.decode
        return tuple(decode(data[at : at + size]) for at in range(pos + 1, end, size)), end


class FixedBytes(WireType):
    """Exactly ``size`` raw bytes (a nonce, a key, a commitment)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.fmt = f"{size}s"

    def to_wire(self, value: Any) -> Any:
        if not isinstance(value, bytes) or len(value) != self.size:
            raise PayloadError(f"expected {self.size} bytes, got {value!r}")
        return value

    def from_wire(self, raw: Any) -> Any:
        return raw
