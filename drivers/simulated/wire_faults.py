"""Line faults a device double puts on its own link, frame by frame: ACKs from the station
lost on the way in, ACKs sent twice, frames written in another protocol version, and line
noise (:mod:`drivers.simulated.line_noise`) on the way out.

Frame by frame is slow, so :class:`drivers.simulated.firmware.DeviceFirmware` comes here
only while such a fault is armed; otherwise a burst goes through in one piece.
"""

from __future__ import annotations

import firmware_bridge as fb
from drivers.simulated.line_noise import LineNoise
from firmware_bridge.frame import DELIMITER, PROTOCOL_VERSION, decode_frame, encode_frame
from firmware_bridge.link_messages import Ack


def is_ack(part: bytes) -> bool:
    """Whether the bytes between two delimiters are an intact ACK frame."""
    try:
        return decode_frame(part).type_id == Ack.TYPE_ID
    except fb.ProtocolError:
        return False


def without_acks(partial: bytes, data: bytes, count: int) -> tuple[list[bytes], bytes, int]:
    """The frames of ``partial + data`` (each with its delimiter) less the first ``count``
    ACK frames among them; the partial frame left at the end (it waits for the next
    bytes); and how many ACKs are still to be lost."""
    parts = (partial + data).split(DELIMITER)
    rest = parts.pop()
    kept = []
    for part in parts:
        if part and count and is_ack(part):
            count -= 1
            continue
        kept.append(part + DELIMITER)
    return kept, rest, count


def faulty_pieces(
    data: bytes, noise: LineNoise, duplicate_acks: int, wire_version: int
) -> tuple[list[bytes], int]:
    """The writes that put ``data`` (a burst of frames) on a faulty line: each frame in
    ``wire_version``, each of the first ``duplicate_acks`` ACK frames twice, all through
    ``noise``; and how many ACK duplications are left."""
    pieces = [DELIMITER] if data.startswith(DELIMITER) else []
    for part in data.split(DELIMITER):
        if not part:
            continue
        frame = part + DELIMITER
        copies = 1
        if wire_version != PROTOCOL_VERSION or duplicate_acks:
            decoded = decode_frame(part)
            if wire_version != PROTOCOL_VERSION:
                frame = encode_frame(decoded._replace(version=wire_version))
            if duplicate_acks and decoded.type_id == Ack.TYPE_ID:
                duplicate_acks -= 1
                copies = 2
        for _ in range(copies):
            pieces.extend(noise(frame))
    return pieces, duplicate_acks
