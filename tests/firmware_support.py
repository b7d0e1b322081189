"""The C firmware's host build under test, with a ``firmware_bridge`` station of our own.

:class:`Bench` starts ``firmware/build/host/fw-shoe`` (or ``fw-panel``) with its link on two
pipes, pairs it as ``dealer-station pair`` does, and plays the station's side with a real
station :class:`firmware_bridge.Endpoint` on the real clock; ``inject`` writes any bytes
on the device's line, as a wire spliced into the cable would. The bench control channel
(text lines) loads the shoe and deals (docs/firmware.md, "Control channel").
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import firmware_bridge as fb
from drivers.simulated.c_firmware import FirmwareProcess, HostRunner, build, host_binary
from firmware_bridge.link_messages import HelloReply

TIMING = fb.Timing(
    retransmit_timeout=0.05, max_tries=20, heartbeat_interval=0.2, silence_timeout=2.0
)
KINDS = {"shoe": fb.DeviceKind.SHOE, "panel": fb.DeviceKind.PANEL}


class Bench:
    """One firmware process and a station endpoint talking to it (see the module doc)."""

    def __init__(self, tmp: Path, kind: str = "shoe", *, serial: str = "SHO-0000042") -> None:
        build("host")  # make -C firmware host: a no-op when it is up to date
        self.kind = KINDS[kind]
        self.name = kind
        self.flash = tmp / f"{kind}.flash"
        self.serial = serial
        self.runner = HostRunner(host_binary(kind))
        self.fw: FirmwareProcess | None = None
        self.rx: queue.Queue[bytes] = queue.Queue()
        self.secret: bytes | None = None
        self.station: fb.Endpoint | None = None
        self.events: list[fb.LinkEvent] = []
        self.messages: list[fb.Message] = []
        self.sent: list[bytes] = []  # every chunk the station endpoint wrote
        self.device_session = 0  # as a tap reads it from the clear HELLO_REPLY
        self.power_on()

    # --- the board ------------------------------------------------------------------------

    def power_on(self) -> None:
        fw = self.runner.start(self.flash, self.serial, "sho-2.3.1", _timing_ms(TIMING))
        self.fw = fw
        threading.Thread(target=self._read, args=(fw,), daemon=True).start()

    def power_cycle(self) -> None:
        self.close()
        self.power_on()

    def close(self) -> None:
        if self.fw is not None:
            self.fw.stop()
            self.fw = None

    def _read(self, fw: FirmwareProcess) -> None:
        for data in fw.chunks():
            self.rx.put(data)

    def ask(self, line: str) -> str:
        assert self.fw is not None
        return self.fw.ask(line)

    def status(self) -> dict[str, str]:
        return dict(item.split("=", 1) for item in self.ask("status").split())

    def inject(self, data: bytes) -> None:
        """Write bytes on the device's line."""
        assert self.fw is not None
        self.fw.wire_in.write(data)

    # --- pairing and the station --------------------------------------------------------

    def pair(self, *, button: bool = True, kind: fb.DeviceKind | None = None) -> bytes:
        """Pair over the link; returns the secret (raises PairingError on a refusal)."""
        if self.name == "panel":
            self.ask("key_switch 1")
        self.ask(f"pair_button {int(button)}")
        pairing = fb.StationPairing(kind or self.kind, "BENCH-1")
        try:
            deadline = time.monotonic() + 5.0
            while time.monotonic() < deadline:
                self.inject(pairing.request())
                result = self._pairing_answer(pairing, 0.2)
                if result is not None:
                    self.secret = result.secret
                    return result.secret
            raise TimeoutError("no pairing answer")
        finally:
            self.ask("pair_button 0")

    def _pairing_answer(self, pairing: fb.StationPairing, wait: float) -> Any:
        end = time.monotonic() + wait
        while (left := end - time.monotonic()) > 0:
            try:
                data = self.rx.get(timeout=left)
            except queue.Empty:
                return None
            result = pairing.receive(data)
            if result is not None:
                return result
        return None

    def connect(
        self, *, secret: bytes | None = None, identity: fb.Identity | None = None
    ) -> fb.Endpoint:
        """A new station endpoint (a station (re)start), pumped until connected or refused."""
        self.events = []
        self.station = fb.Endpoint(
            fb.Role.STATION,
            identity or fb.Identity(self.kind, "st-1.0", "BENCH-1"),
            timing=TIMING,
            secret=self.secret if secret is None else secret,
        )
        self.station.start(time.monotonic())
        self.pump_until(
            lambda: any(isinstance(e, fb.Connected | fb.HandshakeRefused) for e in self.events)
        )
        return self.station

    def send(self, message: fb.Message) -> None:
        assert self.station is not None
        self.station.send(message, time.monotonic())
        self._flush()

    def _flush(self) -> None:
        assert self.station is not None
        data = self.station.data_to_send()
        if data:
            self.sent.append(data)
            self.inject(data)

    def pump(self, seconds: float) -> None:
        """Run the station for ``seconds`` of real time."""
        self.pump_until(lambda: False, seconds, fail=False)

    def pump_until(
        self, done: Callable[[], bool], timeout: float = 5.0, *, fail: bool = True
    ) -> bool:
        """Move bytes and run the station's timers until ``done()``."""
        assert self.station is not None
        end = time.monotonic() + timeout
        while not done():
            now = time.monotonic()
            if now >= end:
                if fail:
                    raise AssertionError(f"not within {timeout} s; events {self.events}")
                return False
            try:
                data = self.rx.get(timeout=0.01)
                self._tap(data)
                self.station.receive_data(data, time.monotonic())
            except queue.Empty:
                pass
            self.station.tick(time.monotonic())
            self._flush()
            for event in self.station.events():
                self.events.append(event)
                if isinstance(event, fb.MessageReceived):
                    self.messages.append(event.message)
        return True

    def _tap(self, data: bytes) -> None:
        for part in data.split(b"\0"):
            try:
                frame = fb.decode_frame(part)
            except fb.ProtocolError:
                continue
            if frame.type_id == HelloReply.TYPE_ID:
                reply = fb.decode_message(frame.type_id, frame.payload)
                assert isinstance(reply, HelloReply)
                self.device_session = reply.session


def _timing_ms(t: fb.Timing) -> str:
    from drivers.simulated.c_firmware import timing_arg

    return timing_arg(t)
