"""Frames on the wire: header, payload and CRC-16, COBS-encoded and ended by a 0x00 byte.

Layout of a frame before COBS (all integers big-endian)::

    offset 0  version   protocol version of the sender (PROTOCOL_VERSION)
    offset 1  type      message type number (firmware_bridge.messages, link_messages)
    offset 2  seq       sequence number of a reliable frame, 0 otherwise
    offset 3  flags     bit 0 RELIABLE: the receiver must ack and suppress duplicates
                        bit 1 SEALED: the payload is sealed (firmware_bridge.auth):
                        counter (4) | ciphertext | tag (16), the header as associated data
                        bit 2 ACK_NOW: the sender waits on this frame: the receiver acks
                        it at once instead of holding the ack (docs/protocol.md section 5)
    offset 4  ack       next sequence number the sender expects from its peer (cumulative)
    offset 5  payload   0..MAX_PAYLOAD bytes, laid out by the message type (or sealed)
    end - 2   crc       CRC-16/CCITT-FALSE over offsets 0 .. end-3

The frame is then COBS-encoded (no 0x00 left inside) and a single 0x00 delimiter follows it,
so a receiver resynchronises at the next 0x00 after garbage, a cut-off frame or a lost byte.
"""

from __future__ import annotations

import binascii
import struct
from collections.abc import Callable
from typing import Final, NamedTuple

from cobs import cobs

from firmware_bridge.errors import CobsError, CrcError, FrameLengthError, ProtocolError

# The cobs package is untyped; name its two calls once with their types.
_cobs_encode: Callable[[bytes], bytes] = cobs.encode
_cobs_decode: Callable[[bytes], bytes] = cobs.decode

#: Version 2 seals every frame of a session (version 1 had no authentication).
PROTOCOL_VERSION: Final = 2
#: Versions this implementation speaks.
SUPPORTED_VERSIONS: Final = frozenset({PROTOCOL_VERSION})

DELIMITER: Final = b"\x00"
HEADER: Final = struct.Struct(">BBBBB")
CRC: Final = struct.Struct(">H")
CRC_INIT: Final = 0xFFFF
#: Largest payload of one frame; keeps a frame within one 256-byte firmware buffer.
MAX_PAYLOAD: Final = 240
HEADER_SIZE: Final = HEADER.size
CRC_SIZE: Final = CRC.size
MIN_FRAME: Final = HEADER_SIZE + CRC_SIZE
MAX_FRAME: Final = MIN_FRAME + MAX_PAYLOAD
#: COBS adds one byte per started 254 bytes: the largest run between two delimiters.
MAX_ENCODED: Final = MAX_FRAME + (MAX_FRAME + 253) // 254

FLAG_RELIABLE: Final = 0x01
FLAG_SEALED: Final = 0x02
#: On a reliable frame: ack it at once (the sender waits on it before its next step).
FLAG_ACK_NOW: Final = 0x04
SEQ_MODULO: Final = 256


class Frame(NamedTuple):
    """One decoded frame. A NamedTuple rather than a dataclass: it is built once per frame
    on the hot decode path, and tuple construction is several times cheaper."""

    version: int
    type_id: int
    seq: int
    flags: int
    ack: int
    payload: bytes

    @property
    def reliable(self) -> bool:
        """Whether the receiver must ack this frame and suppress duplicates."""
        return bool(self.flags & FLAG_RELIABLE)

    @property
    def sealed(self) -> bool:
        """Whether the payload is sealed (counter, ciphertext, tag)."""
        return bool(self.flags & FLAG_SEALED)

    def header(self) -> bytes:
        """The five header bytes: the associated data a sealed payload is bound to."""
        return HEADER.pack(self.version, self.type_id, self.seq, self.flags, self.ack)


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor).

    The check value of ``b"123456789"`` is 0x29B1.
    """
    return binascii.crc_hqx(data, CRC_INIT)


def encode_frame(frame: Frame) -> bytes:
    """Encode ``frame`` for the wire: COBS(header + payload + CRC) followed by 0x00.

    Raises:
        FrameLengthError: for a payload over :data:`MAX_PAYLOAD` bytes.
        ProtocolError: for a header field outside 0..255.
    """
    if len(frame.payload) > MAX_PAYLOAD:
        raise FrameLengthError(f"payload of {len(frame.payload)} bytes exceeds {MAX_PAYLOAD}")
    try:
        header = HEADER.pack(frame.version, frame.type_id, frame.seq, frame.flags, frame.ack)
    except struct.error as err:
        raise ProtocolError(f"header field out of range in {frame!r}") from err
    return wire_frame(header + frame.payload)


def wire_frame(body: bytes) -> bytes:
    """The wire bytes of a frame whose header and payload are ``body``: COBS(body + CRC)
    and the 0x00 delimiter. The caller has checked the header fields and the length (the
    endpoint packs its own headers and bounds its payloads)."""
    return _cobs_encode(body + CRC.pack(binascii.crc_hqx(body, CRC_INIT))) + DELIMITER


def unframe(encoded: bytes) -> bytes:
    """Check the bytes between two delimiters (without the 0x00) and return the frame they
    carry, CRC included: header at offsets 0..4, payload from :data:`HEADER_SIZE` to
    ``-CRC_SIZE``. :func:`decode_frame` makes a :class:`Frame` of it; the endpoint reads the
    header with ``HEADER.unpack_from`` and keeps ``[:HEADER_SIZE]`` as the seal's associated
    data, one parse per frame.

    Raises:
        FrameLengthError: too short or longer than :data:`MAX_ENCODED`.
        CobsError: not a valid COBS encoding.
        CrcError: the CRC does not match.
    """
    if len(encoded) > MAX_ENCODED:
        raise FrameLengthError(f"frame of {len(encoded)} encoded bytes exceeds {MAX_ENCODED}")
    try:
        raw = _cobs_decode(encoded)
    except cobs.DecodeError as err:
        raise CobsError(f"bad COBS encoding: {err}") from err
    if len(raw) < MIN_FRAME:
        raise FrameLengthError(f"frame of {len(raw)} bytes is shorter than {MIN_FRAME}")
    if len(raw) > MAX_FRAME:
        raise FrameLengthError(f"frame of {len(raw)} bytes exceeds {MAX_FRAME}")
    # Running the CRC over data and its big-endian CRC leaves 0 when both agree.
    if binascii.crc_hqx(raw, CRC_INIT):
        raise CrcError(f"CRC mismatch in a {len(raw)}-byte frame")
    return raw


def decode_frame(encoded: bytes) -> Frame:
    """Decode the bytes between two delimiters (without the 0x00) into a :class:`Frame`.

    Only checks framing: COBS, length and CRC. Version, type and payload are the caller's.

    Raises:
        FrameLengthError: too short or longer than :data:`MAX_ENCODED`.
        CobsError: not a valid COBS encoding.
        CrcError: the CRC does not match.
    """
    return _to_frame(unframe(encoded))


def _to_frame(raw: bytes) -> Frame:
    version, type_id, seq, flags, ack = HEADER.unpack_from(raw)
    return Frame(version, type_id, seq, flags, ack, raw[HEADER_SIZE:-CRC_SIZE])


class FrameDecoder:
    """Streaming decoder: feed it bytes as they arrive, get frames and dropped-frame errors.

    Memory is bounded: a run of more than :data:`MAX_ENCODED` bytes without a delimiter is
    discarded up to the next 0x00 and reported once as a :class:`FrameLengthError`.
    """

    __slots__ = ("_buffer", "_overflow")

    def __init__(self) -> None:
        self._buffer = b""
        self._overflow = False

    def reset(self) -> None:
        """Forget any partial frame (after a reconnect)."""
        self._buffer = b""
        self._overflow = False

    def feed(self, data: bytes) -> list[Frame | ProtocolError]:
        """Take ``data`` off the wire; return complete frames in order.

        A bad frame comes back as the :class:`ProtocolError` that describes it, in its place
        in the stream, rather than raised: one bad frame never stops the stream. Never raises.
        """
        return [
            item if isinstance(item, ProtocolError) else _to_frame(item)
            for item in self.feed_raw(data)
        ]

    def feed_raw(self, data: bytes) -> list[bytes | ProtocolError]:
        """As :meth:`feed`, but each good frame comes back as :func:`unframe` returns it
        (header, payload and CRC, checked): the endpoint's hot path parses the header once
        itself. Never raises."""
        out: list[bytes | ProtocolError] = []
        if DELIMITER not in data:
            if not self._overflow:
                self._buffer += data
                if len(self._buffer) > MAX_ENCODED:
                    self._buffer = b""
                    self._overflow = True
            return out
        parts = (self._buffer + data).split(DELIMITER) if self._buffer else data.split(DELIMITER)
        tail = parts.pop()
        if self._overflow:
            # The first run ends an oversize frame whose start was already discarded.
            self._overflow = False
            del parts[0]
            out.append(FrameLengthError(f"frame longer than {MAX_ENCODED} bytes discarded"))
        append = out.append  # the per-frame loop is the decoder's hot path
        for part in parts:
            if part:  # empty runs are idle or leading delimiters
                try:
                    append(unframe(part))
                except ProtocolError as err:
                    append(err)
        if len(tail) > MAX_ENCODED:
            tail = b""
            self._overflow = True
        self._buffer = tail
        return out
