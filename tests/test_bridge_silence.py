"""A forged frame never keeps a dead link alive (firmware_bridge.link, docs/protocol.md 4b).

Only a frame that opens under the session's key is heard from the peer: when the peer falls
silent, the link goes down ``silence_timeout`` after its last genuine frame, whatever an
attacker injects meanwhile (a frame with a made-up tag, a replay of a genuine frame, an
unsealed session frame, a replayed handshake frame). Genuine heartbeats, on the other side
of the range, keep the link up indefinitely.
"""

from __future__ import annotations

import random

import pytest
from test_bridge_handshake import SECRET, SHOE, STATION

from firmware_bridge import (
    PROTOCOL_VERSION,
    Endpoint,
    Frame,
    LinkDown,
    LinkState,
    Role,
    Timing,
    encode_frame,
)
from firmware_bridge.frame import DELIMITER, FLAG_SEALED
from firmware_bridge.link_messages import Heartbeat

TIMING = Timing(heartbeat_interval=1.0, silence_timeout=3.0)


def connected() -> tuple[Endpoint, Endpoint]:
    s = Endpoint(Role.STATION, STATION, secret=SECRET, timing=TIMING, rng=random.Random(1))
    d = Endpoint(Role.DEVICE, SHOE, secret=SECRET, timing=TIMING, rng=random.Random(2))
    d.start(0.0)
    s.start(0.0)
    d.receive_data(s.data_to_send(), 0.0)
    s.receive_data(d.data_to_send(), 0.0)
    assert s.connected and d.connected
    s.events(), d.events()
    return s, d


def forged_sealed_heartbeat(rng: random.Random) -> bytes:
    body = (1 << 30).to_bytes(4, "big") + rng.randbytes(16)  # a fresh counter, a made-up tag
    return DELIMITER + encode_frame(
        Frame(PROTOCOL_VERSION, Heartbeat.TYPE_ID, 0, FLAG_SEALED, 0, body)
    )


def unsealed_heartbeat() -> bytes:
    return DELIMITER + encode_frame(Frame(PROTOCOL_VERSION, Heartbeat.TYPE_ID, 0, 0, 0, b""))


@pytest.mark.parametrize("victim_role", [Role.STATION, Role.DEVICE])
@pytest.mark.parametrize("attack", ["forged tag", "replay", "unsealed", "handshake replay"])
def test_forged_frames_never_keep_a_silent_peer_alive(victim_role: Role, attack: str) -> None:
    station, device = connected()
    victim, peer = (station, device) if victim_role is Role.STATION else (device, station)
    rng = random.Random(7)
    # One genuine exchange at t=1: the peer's heartbeat, recorded for the replay attack.
    peer.tick(1.0)
    genuine = peer.data_to_send()
    assert genuine
    victim.receive_data(genuine, 1.0)
    handshake = {Role.STATION: b"", Role.DEVICE: b""}
    if attack == "handshake replay":
        # What a tap recorded of the handshake: the station's HELLO, the device's reply.
        fresh_s, fresh_d = (
            Endpoint(Role.STATION, STATION, secret=SECRET, timing=TIMING, rng=random.Random(1)),
            Endpoint(Role.DEVICE, SHOE, secret=SECRET, timing=TIMING, rng=random.Random(2)),
        )
        fresh_d.start(0.0)
        fresh_s.start(0.0)
        handshake[Role.DEVICE] = fresh_s.data_to_send()
        fresh_d.receive_data(handshake[Role.DEVICE], 0.0)
        handshake[Role.STATION] = fresh_d.data_to_send()
    # From now on the peer is silent; an attacker sends a frame every 0.25 s.
    now = 1.0
    while now < 3.75:
        now = round(now + 0.25, 2)
        if attack == "forged tag":
            victim.receive_data(forged_sealed_heartbeat(rng), now)
        elif attack == "replay":
            victim.receive_data(genuine, now)
        elif attack == "unsealed":
            victim.receive_data(unsealed_heartbeat(), now)
        else:
            victim.receive_data(handshake[victim_role], now)
        victim.tick(now)
        victim.data_to_send()
        assert victim.state is LinkState.CONNECTED, (attack, now)
    victim.tick(4.0)  # the last genuine frame came at t=1: silent for the 3 s timeout
    downs = [e for e in victim.events() if isinstance(e, LinkDown)]
    assert [d.reason for d in downs] == ["peer silent for 3.00 s"], attack
    assert victim.state is LinkState.DOWN


def test_genuine_heartbeats_keep_the_link_up_past_many_silence_timeouts() -> None:
    station, device = connected()
    now = 0.0
    while now < 20.0:
        now = round(now + 0.5, 2)
        station.tick(now)
        device.tick(now)
        device.receive_data(station.data_to_send(), now)
        station.receive_data(device.data_to_send(), now)
    assert station.connected and device.connected
    assert [e for e in station.events() + device.events() if isinstance(e, LinkDown)] == []


def test_the_silence_timeout_counts_from_the_last_genuine_frame_on_both_sides_of_it() -> None:
    station, device = connected()
    device.tick(1.0)
    station.receive_data(device.data_to_send(), 1.0)
    station.tick(3.99)
    assert station.connected
    station.tick(4.0)
    assert station.state is LinkState.DOWN
