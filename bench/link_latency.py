"""Shoe link latency: the shoe double writes a card frame on the pty -> CardDrawn reaches
the consumer (the thread that owns the controller's event queue).

Runs the real ShoeDriver (pyserial, reader thread, firmware_bridge endpoint) against the
ShoeDouble across a real pseudo-terminal, one card at a time, with the protocol's default
timers. Prints p50 / p99 / max over N cards (default 10,000), then the round trip of a
card reader check (check() -> PeekResult) through pyusb and the simulated backend.

    .venv/bin/python bench/link_latency.py [--cards N] [--peeks N]
"""

from __future__ import annotations

import argparse
import json
import logging
import queue
import random
import statistics
import tempfile
import time
from pathlib import Path

import structlog

from controller.rules.cards import ALL_CARDS, Card, parse_card
from drivers.card_reader import CardReaderDriver
from drivers.device_link import ExpectedDevice
from drivers.hal import (
    CardDrawn,
    DeviceConnected,
    DeviceEvent,
    PeekAnswer,
    PeekResult,
    PeekTarget,
    ShoeLoaded,
)
from drivers.shoe import ShoeDriver
from drivers.simulated.card_reader import CardReaderDouble
from drivers.simulated.shoe import ShoeDouble
from drivers.simulated.usb_backend import SimulatedUsbBackend

SERIAL = "SHOE-BENCH"
#: The pairing secret of the bench's doubles: every frame is sealed, as on a table.
SECRET = bytes(range(32))


def wait_for(events: queue.Queue[DeviceEvent], kind: type) -> DeviceEvent:
    while True:
        event = events.get(timeout=10)
        if isinstance(event, kind):
            return event


#: The pairing secret the bench's double and driver share.
SECRET = bytes(range(32))


def run(cards: int) -> list[float]:
    """Latencies in milliseconds of ``cards`` cards."""
    events: queue.Queue[DeviceEvent] = queue.Queue()
    with tempfile.TemporaryDirectory() as tmp:
        double = ShoeDouble(Path(tmp) / "shoe", SERIAL, secret=SECRET)
        expected = ExpectedDevice(SERIAL, secret=SECRET)
        driver = ShoeDriver(double.settings, events.put, expected)
        driver.start()
        try:
            wait_for(events, DeviceConnected)
            latencies: list[float] = []
            decks = 0
            while len(latencies) < cards:
                batch = [card for card in ALL_CARDS for _ in range(8)]
                random.Random(decks).shuffle(batch)
                double.load(batch, cover_at=None)
                decks += 1
                wait_for(events, ShoeLoaded)
                while double.remaining and len(latencies) < cards:
                    start = time.perf_counter_ns()
                    dealt = double.deal()
                    event = events.get(timeout=10)
                    end = time.perf_counter_ns()
                    if not isinstance(event, CardDrawn) or not isinstance(dealt, Card):
                        raise SystemExit(f"unexpected {event!r} for {dealt!r}")
                    if event.card != dealt:
                        raise SystemExit(f"dealt {dealt}, station saw {event.card}")
                    latencies.append((end - start) / 1e6)
            return latencies
        finally:
            driver.close()
            double.close()


def run_peeks(count: int) -> list[float]:
    """Round trips in milliseconds of ``count`` card reader checks over the pyusb backend."""
    events: queue.Queue[DeviceEvent] = queue.Queue()
    backend = SimulatedUsbBackend()
    double = CardReaderDouble(backend, secret=SECRET)
    expected = ExpectedDevice(double.serial_number, secret=SECRET)
    driver = CardReaderDriver(double.settings, events.put, expected=expected, backend=backend)
    driver.start()
    try:
        wait_for(events, DeviceConnected)
        double.set_hole_card(parse_card("KS"))
        latencies: list[float] = []
        for _ in range(count):
            start = time.perf_counter_ns()
            driver.check(PeekTarget.LOOKING_FOR_TEN)
            event = events.get(timeout=10)
            end = time.perf_counter_ns()
            if event != PeekResult(PeekAnswer.BLACKJACK):
                raise SystemExit(f"unexpected {event!r}")
            latencies.append((end - start) / 1e6)
        return latencies
    finally:
        driver.close()
        double.close()


def report(title: str, latencies: list[float]) -> dict[str, float]:
    """Print p50/p99/max of ``latencies`` (ms) and return them rounded to a microsecond."""
    cuts = statistics.quantiles(latencies, n=100, method="inclusive")  # never past max
    print(title)
    print(f"  p50  {cuts[49]:.3f} ms")
    print(f"  p99  {cuts[98]:.3f} ms")
    print(f"  max  {max(latencies):.3f} ms")
    return {
        "p50_ms": round(cuts[49], 3),
        "p99_ms": round(cuts[98], 3),
        "max_ms": round(max(latencies), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10_000, help="cards to deal (10000)")
    parser.add_argument(
        "--peeks", type=int, default=1_000, help="card reader checks to time (1000; 0: none)"
    )
    args = parser.parse_args()
    # Quiet the drivers' info lines: only the figures go to stdout.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    if args.cards < 100:
        parser.error("--cards must be at least 100 for a p99")
    latencies = run(args.cards)
    card = report(
        f"shoe link latency, {len(latencies)} cards (pty -> pyserial -> bridge -> queue)", latencies
    )
    figures: dict[str, float] = {"cards": len(latencies)}
    figures.update({f"card_{key}": value for key, value in card.items()})
    if args.peeks:
        peeks = run_peeks(args.peeks)
        peek = report(f"card reader check round trip, {len(peeks)} checks (pyusb backend)", peeks)
        figures["peeks"] = len(peeks)
        figures.update({f"peek_{key}": value for key, value in peek.items()})
    # One machine-readable line for bench/run_all.py.
    print("FIGURES " + json.dumps(figures))


if __name__ == "__main__":
    main()
