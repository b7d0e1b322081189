"""Exceptions of the wire protocol: one root, leaves that also inherit the matching builtin.

Decoding bytes from a device never raises anything but a :class:`ProtocolError` subclass.
"""

from __future__ import annotations


class ProtocolError(Exception):
    """Root of every error the wire protocol raises."""


class FrameError(ProtocolError, ValueError):
    """A frame that cannot be taken off the wire (bad COBS, bad length, bad CRC)."""


class CobsError(FrameError):
    """The bytes between two delimiters are not a valid COBS encoding."""


class FrameLengthError(FrameError):
    """A frame shorter than header + CRC, or longer than the maximum frame size."""


class CrcError(FrameError):
    """The frame's CRC-16 does not match its contents; the frame is never acted on."""


class VersionError(ProtocolError, ValueError):
    """A frame or HELLO with a protocol version this side does not speak."""


class UnknownMessageError(ProtocolError, ValueError):
    """A message type number that is not in the catalogue."""


class PayloadError(ProtocolError, ValueError):
    """A payload that does not match its message's layout, or a field value out of range."""


class NotConnectedError(ProtocolError, ConnectionError):
    """``send`` was called while the link has no session (handshaking, down or refused)."""


class SendQueueFullError(ProtocolError, BufferError):
    """Too many reliable messages wait for the peer's acks; the caller must slow down."""


class AuthenticationError(ProtocolError, ValueError):
    """A sealed frame whose tag does not verify, a replayed counter, a frame that should
    have been sealed and was not, or a HELLO_REPLY without a valid proof of the pairing
    secret. Noise fails the CRC first, so this is tampering (or the wrong key)."""


class PairingError(ProtocolError, ConnectionRefusedError):
    """Pairing was refused (no consent on the device) or could not complete."""
