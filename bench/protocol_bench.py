"""Wire protocol figures: frame sizes and overhead, encode/decode rates on one core.

Run: ``.venv/bin/python bench/protocol_bench.py`` (``--frames N`` to change the count).
Prints figures only; nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from collections.abc import Callable

from firmware_bridge import (
    PROTOCOL_VERSION,
    ButtonReport,
    CardDrawnReport,
    DeviceKind,
    Endpoint,
    Frame,
    FrameDecoder,
    Identity,
    MessageReceived,
    Role,
    ShuffleDoneReport,
    Timing,
    decode_frame,
    decode_message,
    encode_frame,
    encode_message,
)
from firmware_bridge.auth import Opener, Sealer, SessionKeys
from firmware_bridge.frame import FLAG_RELIABLE, FLAG_SEALED

#: A pairing secret and handshake nonces for the sealed figures (values do not matter).
SECRET = bytes(range(32))
KEYS = SessionKeys(SECRET, bytes(16), bytes(range(16)), DeviceKind.SHOE.code)


def best_rate(count: int, run: Callable[[], object], repeats: int = 5) -> float:
    """Items per second of ``run`` (which handles ``count`` items), best of ``repeats``.

    Timed in CPU seconds of this process (single-threaded): the rate one core sustains,
    and far less disturbed than wall time when other jobs share the machine.
    """
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return count / best


def card_frame(i: int) -> Frame:
    type_id, payload = encode_message(CardDrawnReport(1 + i % 13, "SHDC"[i % 4], 1 + i % 385))
    return Frame(PROTOCOL_VERSION, type_id, i % 256, FLAG_RELIABLE, 0, payload)


def end_to_end(count: int) -> float:
    """Reliable messages per second through a station and a shoe endpoint, in memory."""
    station = Endpoint(
        Role.STATION,
        Identity(DeviceKind.SHOE, "bench", "T1"),
        rng=random.Random(1),
        secret=SECRET,
    )
    shoe = Endpoint(
        Role.DEVICE, Identity(DeviceKind.SHOE, "bench", "S1"), rng=random.Random(2), secret=SECRET
    )
    shoe.start(0.0)
    station.start(0.0)
    shoe.receive_data(station.data_to_send(), 0.0)
    station.receive_data(shoe.data_to_send(), 0.0)
    msgs = [CardDrawnReport(1 + i % 13, "SHDC"[i % 4], 1 + i % 385) for i in range(count)]
    delivered = 0
    start = time.process_time()
    for i in range(0, count, 8):  # a window's worth at a time
        for msg in msgs[i : i + 8]:
            shoe.send(msg, 0.0)
        station.receive_data(shoe.data_to_send(), 0.0)
        shoe.receive_data(station.data_to_send(), 0.0)
        delivered += sum(isinstance(e, MessageReceived) for e in station.events())
    elapsed = time.process_time() - start
    assert delivered == count, (delivered, count)
    return count / elapsed


def one_at_a_time(count: int, timing: Timing) -> float:
    """CPU microseconds per reliable message sent as the panel board sends a button: one
    message a burst, device endpoint to station endpoint, in memory, and whatever ACK the
    station sends back taken by the device. Both endpoints' work is counted: it is what the
    two processes of the HIL bench spend on a frame, less the ports and threads."""
    station = Endpoint(
        Role.STATION,
        Identity(DeviceKind.PANEL, "bench", "T1"),
        rng=random.Random(1),
        secret=SECRET,
        timing=timing,
    )
    panel = Endpoint(
        Role.DEVICE,
        Identity(DeviceKind.PANEL, "bench", "P1"),
        rng=random.Random(2),
        secret=SECRET,
        timing=timing,
    )
    panel.start(0.0)
    station.start(0.0)
    panel.receive_data(station.data_to_send(), 0.0)
    station.receive_data(panel.data_to_send(), 0.0)
    station.events()
    panel.events()
    msgs = [ButtonReport(i % 8, bool(i & 1)) for i in range(count)]
    delivered = 0
    start = time.process_time()
    for msg in msgs:
        panel.send(msg, 0.0)
        station.receive_data(panel.data_to_send(), 0.0)
        delivered += len(station.events())
        ack = station.data_to_send()
        if ack:
            panel.receive_data(ack, 0.0)
    elapsed = time.process_time() - start
    assert delivered == count, (delivered, count)
    return elapsed / count * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=200_000, help="frames per measurement")
    n = parser.parse_args(argv).frames

    card_type, card_payload = encode_message(CardDrawnReport(10, "S", 1))  # the doc's example
    card_wire = encode_frame(Frame(PROTOCOL_VERSION, card_type, 0, FLAG_RELIABLE, 0, card_payload))
    empty_wire = encode_frame(Frame(PROTOCOL_VERSION, 0x04, 0, 0, 0, b""))
    done = ShuffleDoneReport(384, (32,) * 9 + (0,) + (32,) * 3)
    done_wire = encode_frame(
        Frame(PROTOCOL_VERSION, done.TYPE_ID, 0, FLAG_RELIABLE, 0, encode_message(done)[1])
    )
    frames = [card_frame(i) for i in range(n)]
    wires = [encode_frame(f) for f in frames]
    runs = [w[:-1] for w in wires]
    stream = b"".join(wires)
    # The same card frames as a shoe sends them in a session: sealed (counter, tag).
    sealer = Sealer(KEYS.device_to_station)
    sealed_wires = []
    for plain in frames:
        f = plain._replace(flags=plain.flags | FLAG_SEALED)
        sealed_wires.append(encode_frame(f._replace(payload=sealer.seal(f.header(), f.payload))))
    sealed_stream = b"".join(sealed_wires)
    sealed_card_wire = sealed_wires[0]

    print(
        f"python {platform.python_version()} on {platform.machine()}, {n} frames per figure, "
        "rates in CPU time of one core (best of 5)"
    )
    print(f"per-frame overhead: {len(empty_wire)} bytes (5 header + 2 CRC + COBS + delimiter)")
    print(f"card-drawn frame on the wire: {len(card_wire)} bytes ({card_wire.hex(' ')})")
    print(f"shuffle-done frame (13 rank counts) on the wire: {len(done_wire)} bytes")
    print(
        f"sealed card-drawn frame on the wire: {len(sealed_card_wire)} bytes (+4 counter +16 tag)"
    )

    def encode_all() -> None:
        for f in frames:
            encode_frame(f)

    def encode_messages() -> None:
        for i in range(n):
            type_id, payload = encode_message(CardDrawnReport(1 + i % 13, "S", 1 + i % 385))
            encode_frame(Frame(PROTOCOL_VERSION, type_id, i % 256, FLAG_RELIABLE, 0, payload))

    def decode_all() -> None:
        for r in runs:
            decode_frame(r)

    def decode_stream() -> None:
        got = FrameDecoder().feed(stream)
        assert len(got) == n

    def decode_with_messages() -> None:
        for item in FrameDecoder().feed(stream):
            assert isinstance(item, Frame)
            decode_message(item.type_id, item.payload)

    def decode_authenticated() -> None:
        # What a station's endpoint does per frame of a session: deframe, check the seal
        # (ChaCha20-Poly1305, counter above the last), decode the message.
        opener = Opener(KEYS.device_to_station)
        for item in FrameDecoder().feed(sealed_stream):
            assert isinstance(item, Frame)
            decode_message(item.type_id, opener.open(item.header(), item.payload))

    labels = {
        "encode_frames_per_s": ("encode_frame:", encode_all),
        "encode_message_frames_per_s": ("encode_message + encode_frame:", encode_messages),
        "decode_frame_per_s": ("decode_frame (one run at a time):", decode_all),
        "decoder_feed_frames_per_s": ("FrameDecoder.feed (one stream):", decode_stream),
        "decoder_message_frames_per_s": ("FrameDecoder + decode_message:", decode_with_messages),
        "authenticated_frames_per_s": (
            "FrameDecoder + seal + decode_message:",
            decode_authenticated,
        ),
    }
    rates: dict[str, float] = {}
    for key, (label, run) in labels.items():
        rates[key] = best_rate(n, run)
        print(f"{label:<35}{rates[key]:>12,.0f} frames/s")
    e2e = max(end_to_end(min(n, 50_000)) for _ in range(3))
    print(f"Endpoint to Endpoint, reliable:    {e2e:>12,.0f} messages/s")
    held = min(one_at_a_time(min(n, 20_000), Timing()) for _ in range(5))
    each = min(one_at_a_time(min(n, 20_000), Timing(ack_delay=0.0)) for _ in range(5))
    print(f"one button a burst, ACK held:      {held:>12.1f} us CPU a message, both ends")
    print(f"one button a burst, ACK each:      {each:>12.1f} us CPU a message, both ends")
    # One machine-readable line for bench/run_all.py.
    figures = {
        "frames": n,
        "frame_overhead_bytes": len(empty_wire),
        "card_frame_bytes": len(card_wire),
        "shuffle_done_frame_bytes": len(done_wire),
        "sealed_card_frame_bytes": len(sealed_card_wire),
        **{key: round(value) for key, value in rates.items()},
        "endpoint_messages_per_s": round(e2e),
        "message_cpu_us": round(held, 1),
        "message_ack_each_cpu_us": round(each, 1),
    }
    print("FIGURES " + json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
