"""Tests of firmware_bridge.link: handshake, delivery, retransmit, link-down, lossy channel.

Two real endpoints talk through a simulated byte channel with a seeded manipulator that
drops, duplicates, corrupts and splits bytes, on a simulated clock.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from firmware_bridge import (
    CardDrawnReport,
    Connected,
    DeviceKind,
    Endpoint,
    Identity,
    LinkEvent,
    LinkState,
    MessageReceived,
    Role,
    Timing,
)


@dataclass
class Faults:
    """Per-chunk probabilities of what the channel does to bytes in flight."""

    drop: float = 0.0
    duplicate: float = 0.0
    corrupt: float = 0.0
    split: float = 0.0


@dataclass
class Pipe:
    """One direction of the channel: bytes written now arrive ``delay`` seconds later."""

    rng: random.Random
    faults: Faults
    delay: float = 0.002
    queue: list[tuple[float, bytes]] = field(default_factory=list)

    def write(self, data: bytes, now: float) -> None:
        if not data:
            return
        f = self.faults
        chunks = [data]
        if self.rng.random() < f.split and len(data) > 1:
            cut = self.rng.randrange(1, len(data))
            chunks = [data[:cut], data[cut:]]
        for chunk in chunks:
            if self.rng.random() < f.drop:
                continue
            b = bytearray(chunk)
            if self.rng.random() < f.corrupt:
                b[self.rng.randrange(len(b))] ^= 1 << self.rng.randrange(8)
                if self.rng.random() < 0.3:
                    del b[self.rng.randrange(len(b))]  # a lost byte
            self.queue.append((now + self.delay, bytes(b)))
            if self.rng.random() < f.duplicate:
                self.queue.append((now + self.delay, bytes(b)))

    def read(self, now: float) -> bytes:
        out = b"".join(c for t, c in self.queue if t <= now)
        self.queue = [(t, c) for t, c in self.queue if t > now]
        return out

    def next_arrival(self) -> float | None:
        return min((t for t, _ in self.queue), default=None)


STATION_ID = Identity(DeviceKind.SHOE, "station-1.0", "TABLE-7")
SHOE_ID = Identity(DeviceKind.SHOE, "shoe-2.3.1", "SHOE-0042")


class Link:
    """A station endpoint and a device endpoint joined by two pipes, on a simulated clock."""

    def __init__(
        self,
        seed: int = 1,
        faults: Faults | None = None,
        timing: Timing | None = None,
        station_id: Identity = STATION_ID,
        device_id: Identity = SHOE_ID,
    ) -> None:
        rng = random.Random(seed)
        self.now = 0.0
        self.station = Endpoint(
            Role.STATION, station_id, timing=timing, rng=random.Random(rng.random())
        )
        self.device = Endpoint(
            Role.DEVICE, device_id, timing=timing, rng=random.Random(rng.random())
        )
        self.to_device = Pipe(rng, faults or Faults())
        self.to_station = Pipe(rng, faults or Faults())
        self.station_events: list[LinkEvent] = []
        self.device_events: list[LinkEvent] = []

    def start(self) -> None:
        self.device.start(self.now)
        self.station.start(self.now)

    def step(self) -> None:
        """Move bytes both ways and collect events, at the current time."""
        for _ in range(4):
            self.to_device.write(self.station.data_to_send(), self.now)
            self.to_station.write(self.device.data_to_send(), self.now)
            self.device.receive_data(self.to_device.read(self.now), self.now)
            self.station.receive_data(self.to_station.read(self.now), self.now)
        self.station_events += self.station.events()
        self.device_events += self.device.events()

    def advance(self, seconds: float, step: float = 0.0005) -> None:
        """Run the clock forward, ticking both endpoints at their deadlines."""
        end = self.now + seconds
        self.step()
        while self.now < end:
            candidates = [
                d
                for d in (
                    self.station.next_deadline(),
                    self.device.next_deadline(),
                    self.to_device.next_arrival(),
                    self.to_station.next_arrival(),
                )
                if d is not None
            ]
            nxt = max(min(candidates), self.now + step) if candidates else end
            self.now = min(end, nxt)
            self.station.tick(self.now)
            self.device.tick(self.now)
            self.step()


# --- handshake ----------------------------------------------------------------------------


def connected_link(**kwargs: object) -> Link:
    link = Link(**kwargs)  # type: ignore[arg-type]
    link.start()
    link.advance(0.05)
    assert link.station.state is LinkState.CONNECTED
    assert link.device.state is LinkState.CONNECTED
    return link


def test_handshake_exchanges_identities() -> None:
    link = connected_link()
    assert link.station_events == [Connected(SHOE_ID)]
    assert link.device_events == [Connected(STATION_ID)]
    assert link.station.peer == SHOE_ID


def test_reliable_messages_arrive_once_in_order() -> None:
    link = connected_link()
    sent = [CardDrawnReport(r, s) for r in range(1, 14) for s in "SHDC"]
    for msg in sent:
        link.device.send(msg, link.now)
    link.advance(0.5)
    got = [e.message for e in link.station_events if isinstance(e, MessageReceived)]
    assert got == sent
    assert link.device.unconfirmed == 0
