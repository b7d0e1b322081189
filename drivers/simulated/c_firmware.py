"""The C reference firmware (``firmware/``) as a device on a simulated cable.

:class:`FirmwareShoe` and :class:`FirmwarePanel` stand where :class:`ShoeDouble` and
:class:`PanelDouble` stand (same control methods and readable state), but the device is
the C firmware: a host build run as a process (``firmware/build/host/fw-shoe``), or the
Cortex-M image on QEMU's mps2-an385 board (:mod:`drivers.simulated.qemu_board`). Only the
cable is Python: a :class:`PtyPort` the station opens, whose bytes this module relays to
and from the firmware's link, with the same line faults the doubles put on their own link
(noise, lost or duplicated ACKs, another protocol version, a silent device). The bench
control channel takes text lines (docs/firmware.md, "Control channel"): which cards the
shoe holds and deals, which buttons are pressed.

The firmware keeps its serial number, pairing secret and (the shoe) its batch, counts and
withheld hole cards in its flash page: a file beside the pty, which ``power_cycle`` (the
process killed and started again) keeps.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from abc import ABC
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, ClassVar, Final

import firmware_bridge as fb
from controller.rules.cards import Card, parse_card
from drivers.hal import Button, Led, LedMode, WagerSpot
from drivers.pairing import pair_over
from drivers.panel_link import PanelCodes
from drivers.serial_transport import SerialSettings, SerialTransport
from drivers.simulated.firmware import DEFAULT_FIRMWARE
from drivers.simulated.line_noise import LineNoise
from drivers.simulated.pty_port import PtyPort
from drivers.simulated.shoe import COVER
from drivers.simulated.wire_faults import faulty_pieces, without_acks
from drivers.transport import Backoff
from firmware_bridge.frame import DELIMITER, PROTOCOL_VERSION

#: Where ``make -C firmware host`` puts the host builds (``san``: with AddressSanitizer and
#: UndefinedBehaviorSanitizer).
FIRMWARE_DIR: Final = Path(__file__).resolve().parents[2] / "firmware"
HOST_BUILD: Final = FIRMWARE_DIR / "build" / "host"
SAN_BUILD: Final = FIRMWARE_DIR / "build" / "san"
_POLL = 0.005  # seconds between two looks at the firmware's status while waiting


class FirmwareError(RuntimeError):
    """The firmware refused a control request or stopped answering; one line."""


def host_binary(kind: str) -> Path:
    """The host build of ``kind`` ("shoe", "panel"), built by ``make -C firmware host``.

    Raises:
        FirmwareError: not built.
    """
    path = HOST_BUILD / f"fw-{kind}"
    if not path.exists():
        raise FirmwareError(f"{path} is missing: run make -C firmware host")
    return path


def build(*targets: str) -> None:
    """Run ``make -C firmware TARGETS`` (incremental: a no-op when up to date).

    Raises:
        FirmwareError: the build failed (its last lines).
    """
    done = subprocess.run(
        ["make", "-s", "-C", str(FIRMWARE_DIR), *targets],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-5:]
        raise FirmwareError("make -C firmware failed: " + " / ".join(tail))


class FuzzTarget:
    """The sanitized C fuzz harness (``firmware/tests/fuzz.c``) as a long-lived process: one
    record in, one ``.`` out; a record that gets no answer within ``timeout`` is a hang,
    a process that dies is a crash (its sanitizer report in :attr:`report`)."""

    def __init__(self, timeout: float = 5.0) -> None:
        self.timeout = timeout
        self.proc = subprocess.Popen(
            [str(SAN_BUILD / "fw-fuzz"), "--echo"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )
        self.report = ""

    def feed(self, data: bytes) -> None:
        """Feed one record.

        Raises:
            FirmwareError: the harness crashed (a sanitizer report) or hung.
        """
        import select

        assert self.proc.stdin is not None and self.proc.stdout is not None
        record = len(data[:0xFFFF]).to_bytes(2, "big") + data[:0xFFFF]
        try:
            self.proc.stdin.write(record)
        except BrokenPipeError:
            raise self._crashed() from None
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        if not ready:
            raise FirmwareError(f"the C decoders hung on {data[:64].hex()}...")
        if self.proc.stdout.read(1) != b".":
            raise self._crashed()

    def _crashed(self) -> FirmwareError:
        self.proc.wait(5.0)
        assert self.proc.stderr is not None
        self.report = self.proc.stderr.read().decode(errors="replace")
        first = next((line for line in self.report.splitlines() if "ERROR" in line), "")
        return FirmwareError(f"the C decoders crashed (exit {self.proc.returncode}): {first}")

    def close(self) -> str:
        """End the run; the harness's summary line."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        summary = self.proc.stdout.read().decode().strip()
        self.proc.wait(10.0)
        assert self.proc.stderr is not None
        self.report = self.proc.stderr.read().decode(errors="replace")
        return summary


def timing_arg(timing: fb.Timing | None) -> str:
    """``--timing`` for the firmware: the station's timers, in milliseconds."""
    t = timing or fb.Timing()
    ms = [t.retransmit_timeout, t.heartbeat_interval, t.silence_timeout, t.ack_delay]
    numbers = [max(1, round(v * 1000)) for v in ms[:3]] + [round(ms[3] * 1000)]
    return ",".join(str(n) for n in [*numbers, t.max_tries, min(t.window, 8), t.ack_every])


class HostRunner:
    """Runs a host build: the link on stdin/stdout, the control channel on two pipes."""

    def __init__(self, binary: Path) -> None:
        self.binary = binary

    def start(self, flash: Path, serial: str, firmware: str, timing: str) -> FirmwareProcess:
        """Start the firmware (power on)."""
        ctl_in_r, ctl_in_w = os.pipe()
        ctl_out_r, ctl_out_w = os.pipe()
        command = [
            str(self.binary),
            "--flash", str(flash), "--serial", serial, "--firmware", firmware,
            "--timing", timing, "--control", f"{ctl_in_r},{ctl_out_w}",
        ]  # fmt: skip
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            pass_fds=(ctl_in_r, ctl_out_w),
            bufsize=0,
        )
        os.close(ctl_in_r)
        os.close(ctl_out_w)
        assert proc.stdin is not None and proc.stdout is not None
        return FirmwareProcess(
            proc,
            wire_in=proc.stdin,
            wire_out=proc.stdout,
            control_in=os.fdopen(ctl_in_w, "wb", 0),
            control_out=os.fdopen(ctl_out_r, "rb"),
        )


class FirmwareProcess:
    """One running firmware: its link's two byte streams and its control channel."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes] | None,
        *,
        wire_in: IO[bytes],
        wire_out: IO[bytes],
        control_in: IO[bytes],
        control_out: IO[bytes],
        on_stop: Callable[[], None] | None = None,
    ) -> None:
        self.proc = proc
        self.wire_in, self.wire_out = wire_in, wire_out
        self.control_in, self.control_out = control_in, control_out
        self._on_stop = on_stop
        self.lock = threading.Lock()

    def chunks(self) -> Iterator[bytes]:
        """What the firmware writes on its link, as it comes, until it stops."""
        while True:
            try:
                data = self.wire_out.read(4096)
            except (OSError, ValueError):
                return
            if not data:
                return
            yield data

    def ask(self, line: str) -> str:
        """One control request; the reply after ``ok``.

        Raises:
            FirmwareError: an ``err`` reply, or no reply (the firmware stopped).
        """
        with self.lock:
            try:
                self.control_in.write(line.encode() + b"\n")
                reply = self.control_out.readline().decode().rstrip("\n")
            except (OSError, ValueError) as err:
                raise FirmwareError(f"firmware control channel: {err}") from err
        if reply == "ok" or reply.startswith("ok "):
            return reply[3:]
        raise FirmwareError(reply[4:] if reply.startswith("err ") else f"no reply to {line!r}")

    def stop(self) -> None:
        """Power off."""
        for stream in (self.wire_in, self.control_in):
            with contextlib.suppress(OSError):
                stream.close()
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(5.0)
        for stream in (self.wire_out, self.control_out):
            with contextlib.suppress(OSError):
                stream.close()
        if self._on_stop is not None:
            self._on_stop()


Runner = Any  # HostRunner, or drivers.simulated.qemu_board.QemuRunner


class FirmwareDevice(ABC):
    """The C firmware of one device on a pty (see the module docstring)."""

    KIND: ClassVar[fb.DeviceKind]
    NAME: ClassVar[str]

    def __init__(
        self,
        path: Path,
        serial_number: str,
        *,
        timing: fb.Timing | None = None,
        seed: int = 0,
        firmware: str = DEFAULT_FIRMWARE,
        runner: Runner | None = None,
    ) -> None:
        self.serial_number = serial_number
        self.flash = path.with_name(path.name + ".flash")
        self._firmware = firmware
        self._timing = timing_arg(timing)
        self._runner = runner or HostRunner(host_binary(self.NAME))
        self.secret: bytes | None = None
        self.noise = LineNoise(seed)
        self.silent = False
        self.wire_version = PROTOCOL_VERSION
        self._drop_acks = 0
        self._duplicate_acks = 0
        self._rx_partial = b""
        self._tx_partial = b""
        self.wire_log: list[bytes] | None = None
        self._claimed_serial: str | None = None
        self._held = 0
        self.port = PtyPort(path, self._from_station)
        self._fw: FirmwareProcess | None = None
        self._pump: threading.Thread | None = None
        self._power_on()
        self.port.plug()

    # --- power and cable -------------------------------------------------------------------

    def _power_on(self) -> None:
        fw = self._runner.start(self.flash, self.serial_number, self._firmware, self._timing)
        self._fw = fw
        self._pump = threading.Thread(
            target=self._from_device, args=(fw,), name=f"fw-{self.NAME}", daemon=True
        )
        self._pump.start()
        if self._claimed_serial is not None:  # an impostor's image claims it at every boot
            fw.ask(f"claim_serial {self._claimed_serial}")

    def power_cycle(self) -> None:
        """Reboot the board: RAM (the session, reports not yet sent) is lost, flash kept."""
        reset = getattr(self._runner, "reset", None)
        if reset is not None and self._fw is not None:
            reset(self._fw)  # an emulated board: reset in place, its flash page kept
            if self._claimed_serial is not None:
                self._fw.ask(f"claim_serial {self._claimed_serial}")
            return
        self._power_off()
        self._power_on()

    def _power_off(self) -> None:
        fw, self._fw = self._fw, None
        if fw is not None:
            fw.stop()
        if self._pump is not None:
            self._pump.join(5.0)
            self._pump = None
        self._tx_partial = b""

    def take_flash(self, other: FirmwareDevice) -> None:
        """Become ``other``'s board: its flash page (batch, counts, hole cards, serial
        number) copied into this one, powered up, and paired with this rig's station."""
        self.serial_number = other.serial_number
        if getattr(self._runner, "reset", None) is None:  # a host build: the page is a file
            self._power_off()
            self.flash.write_bytes(other.flash.read_bytes())
            self._power_on()
        else:  # an emulated board: the page copied over the bench channel, then a reset
            at = 0
            while chunk := other.ask(f"page {at}"):
                self.ask(f"page {at} {chunk}")
                at += len(chunk) // 2
            self.power_cycle()
        self.pair()

    def unplug(self) -> None:
        """Pull the cable (the board keeps power)."""
        self.port.unplug()

    def plug(self) -> None:
        """Plug the cable back in."""
        self.port.plug()

    def close(self) -> None:
        """Unplug for good and power off; idempotent."""
        self.port.close()
        self._power_off()

    @property
    def settings(self) -> SerialSettings:
        """What the real driver opens."""
        return SerialSettings(str(self.port.path))

    # --- the cable's two directions ---------------------------------------------------------

    def _from_station(self, data: bytes) -> float | None:
        if self.wire_log is not None:
            self.wire_log.append(bytes(data))
        fw = self._fw
        if fw is None or self.silent:
            return None
        if self._drop_acks:
            frames, self._rx_partial, self._drop_acks = without_acks(
                self._rx_partial, data, self._drop_acks
            )
            data = b"".join(frames)
        elif self._rx_partial:
            data, self._rx_partial = self._rx_partial + data, b""
        with contextlib.suppress(OSError, ValueError):
            fw.wire_in.write(data)
        return None

    def _from_device(self, fw: FirmwareProcess) -> None:
        for chunk in fw.chunks():
            if self.silent:
                continue
            if self.noise.idle and not self._duplicate_acks and self.wire_version == 2:
                self.port.write(chunk)
                continue
            # Frame by frame: a fault needs whole frames.
            pending = self._tx_partial + chunk
            cut = pending.rfind(DELIMITER) + 1
            frames, self._tx_partial = pending[:cut], pending[cut:]
            pieces, self._duplicate_acks = faulty_pieces(
                frames, self.noise, self._duplicate_acks, self.wire_version
            )
            for piece in pieces:
                self.port.write(piece)

    def hold(self) -> None:
        """Start a scan (``DeviceFirmware.holding``): a board's sensor changes go out in one
        frame at the end; the shoe sends each draw as it happens."""
        self._held += 1
        if self._held == 1 and isinstance(self, FirmwarePanel):
            self.ask("hold")

    def release(self) -> None:
        """End one :meth:`hold`; the last one sends the scan."""
        self._held -= 1
        if self._held == 0 and isinstance(self, FirmwarePanel):
            self.ask("release")

    def drop_acks(self, count: int) -> None:
        """Lose the next ``count`` ACK frames the station sends."""
        self._drop_acks += count

    def duplicate_acks(self, count: int) -> None:
        """Send each of the next ``count`` ACK frames of the firmware twice."""
        self._duplicate_acks += count

    # --- control ------------------------------------------------------------------------------

    def ask(self, line: str) -> str:
        """A control request (see the module docstring); the reply after ``ok``.

        Raises:
            FirmwareError: refused, or the board is off.
        """
        fw = self._fw
        if fw is None:
            raise FirmwareError(f"the {self.NAME} firmware is not running")
        return fw.ask(line)

    def status(self) -> dict[str, str]:
        """The firmware's counters and state (``status``)."""
        return dict(item.split("=", 1) for item in self.ask("status").split())

    def _number(self, name: str) -> int:
        return int(self.status()[name])

    @property
    def connected(self) -> bool:
        """Whether the firmware has a session with the station."""
        return self._number("connected") == 1

    @property
    def unconfirmed(self) -> int:
        """Reports the station has not acknowledged."""
        return self._number("unconfirmed")

    @property
    def sessions(self) -> int:
        """Sessions the firmware joined since power-up."""
        return self._number("sessions")

    @property
    def firmware(self) -> str:
        """The version text in the flash page."""
        return self.status()["firmware"]

    @firmware.setter
    def firmware(self, version: str) -> None:
        # Reflashed: the firmware reports the new version from its next boot.
        self.ask(f"reflash {version}")

    @property
    def hello_serial(self) -> str:
        """The serial number the firmware claims in its HELLO_REPLY."""
        return self.serial_number

    @hello_serial.setter
    def hello_serial(self, serial: str) -> None:
        self._claimed_serial = None if serial == self.serial_number else serial
        self.ask(f"claim_serial {serial}")

    @property
    def refusals(self) -> list[str]:
        """One entry per REFUSED the station sent the firmware (it keeps only a count)."""
        return ["refused by the station"] * self._number("refusals")

    @property
    def next_seq(self) -> int:
        """The sequence number of the firmware's next reliable frame (a tap learns it by
        counting frames)."""
        return self._number("next_seq")

    def transmit(self, data: bytes) -> bool:
        """Write bytes on the station's side of the cable, as a wire spliced in would."""
        return self.port.write(data)

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``predicate()`` holds, looking every few milliseconds."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL)
        return True

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until connected with every report acknowledged."""
        return self.wait_for(lambda: self.connected and self.unconfirmed == 0, timeout)

    def deliver(self, timeout: float = 5.0) -> bool:
        """Ask the station to acknowledge at once and wait until it has acknowledged all."""
        if not self.connected:
            return False
        self.ask("deliver")
        return self.wait_idle(timeout)

    def pair(self, station: str = "rig", *, consent: Sequence[str] = ()) -> bytes:
        """Pair with the station over the cable as ``dealer-station pair`` does, the
        pairing button held for the exchange; keeps and returns the station's secret."""
        for line in (*consent, "pair_button 1"):
            self.ask(line)
        settings = self.settings
        try:

            def serial(listener: Any) -> SerialTransport:
                backoff = Backoff(initial=0.01, factor=2.0, cap=0.1)
                return SerialTransport(settings, listener, backoff=backoff)

            result = pair_over(serial, self.KIND, station, timeout=10.0, interval=0.05)
        finally:
            self.ask("pair_button 0")
        self.secret = result.secret
        return result.secret


class FirmwareShoe(FirmwareDevice):
    """The C shoe firmware: the control methods of :class:`ShoeDouble`."""

    KIND: ClassVar[fb.DeviceKind] = fb.DeviceKind.SHOE
    NAME: ClassVar[str] = "shoe"

    def __init__(self, path: Path, serial_number: str = "SHOE-0001", **kwargs: Any) -> None:
        super().__init__(path, serial_number, **kwargs)
        self.dealt: list[Card] = []
        self._lie: Card | None = None

    @property
    def draws(self) -> int:
        """The number of the last draw since the load."""
        return self._number("draws")

    @property
    def remaining(self) -> int:
        """Cards (and the cover card) still in the shoe."""
        return self._number("remaining")

    def load(self, cards: Sequence[Card], cover_at: int | None = None) -> None:
        """Load ``cards`` with the cover card after ``cover_at`` of them; reports it."""
        self._fill("load", cards, cover_at)

    def restock(self, cards: Sequence[Card], cover_at: int | None = None) -> None:
        """The shoe a restarted station finds: loaded, without a report."""
        self._fill("restock", cards, cover_at)

    def _fill(self, verb: str, cards: Sequence[Card], cover_at: int | None) -> None:
        if cover_at is not None and not 0 <= cover_at <= len(cards):
            raise ValueError(f"cover card position {cover_at} outside 0..{len(cards)}")
        where = -1 if cover_at is None else cover_at
        self.ask(f"{verb} {where} " + " ".join(c.text for c in cards))
        self.dealt = []

    def load_shuffled(self, decks: int = 6, seed: int = 0, cover_at: int | None = None) -> None:
        """Load ``decks`` Spanish decks shuffled by ``random.Random(seed)``."""
        import random

        from controller.rules.cards import ALL_CARDS

        cards = [card for card in ALL_CARDS for _ in range(decks)]
        random.Random(seed).shuffle(cards)
        self.load(cards, len(cards) * 3 // 4 if cover_at is None else cover_at)

    def deal(self, *, hole: bool = False) -> Card | str | None:
        """Pull the next card past the sensor (``hole``: through the hole-card slot)."""
        out = self.ask("deal hole" if hole else "deal")
        if out == "none":
            return None
        if out == "cover":
            return COVER
        card = parse_card(out)
        self.dealt.append(card)
        return card

    @property
    def hole_from(self) -> int | None:
        """The draw the station named as the hole card's (``HoleCardNext``), if any."""
        return int(self.status()["hole_from"]) or None

    @property
    def withheld(self) -> dict[bytes, tuple[Card, bytes]]:
        """The hole cards the shoe keeps, by commitment: (card, nonce), read over the
        bench's control channel (never over the link)."""
        held: dict[bytes, tuple[Card, bytes]] = {}
        for item in self.ask("held").split():
            commitment, card, nonce = item.split(":")
            held[bytes.fromhex(commitment)] = (parse_card(card), bytes.fromhex(nonce))
        return held

    @property
    def lie_at_reveal(self) -> Card | None:
        """Reveal this card instead of the one withheld (a tampered shoe)."""
        return self._lie

    @lie_at_reveal.setter
    def lie_at_reveal(self, card: Card | None) -> None:
        self.ask("lie 0 S" if card is None else f"lie {int(card.rank)} {card.suit.value}")
        self._lie = card

    def deal_hole_card(self) -> Card | str | None:
        """Draw the next card through the hole-card slot."""
        return self.deal(hole=True)

    def deal_code(self, rank: int, suit: str) -> None:
        """A card with a raw code comes out of the shoe (not from the batch)."""
        self.ask(f"code {rank} {suit}")

    def deal_ten(self, suit: str = "S") -> None:
        """A foreign 10 comes out of the shoe."""
        self.deal_code(10, suit)

    def repeat_last(self) -> None:
        """The sensor reports the last card again (the same draw number)."""
        self.ask("repeat")


class FirmwarePanel(FirmwareDevice):
    """The C panel-board firmware: the control methods of :class:`PanelDouble`."""

    KIND: ClassVar[fb.DeviceKind] = fb.DeviceKind.PANEL
    NAME: ClassVar[str] = "panel"

    def __init__(
        self,
        path: Path,
        serial_number: str = "PANEL-0001",
        *,
        codes: PanelCodes | None = None,
        **kwargs: Any,
    ) -> None:
        self.codes = codes or PanelCodes.default()
        self._leds = {code: led for led, code in self.codes.leds.items()}
        super().__init__(path, serial_number, **kwargs)

    def pair(self, station: str = "rig", *, consent: Sequence[str] = ()) -> bytes:
        """Pair: the board's own key switch turned as well as its button held."""
        try:
            return super().pair(station, consent=("key_switch 1", *consent))
        finally:
            self.ask("key_switch 0")

    @property
    def lamps(self) -> dict[Led, LedMode]:
        """How each lamp the wiring table knows is lit (dark lamps have no entry)."""
        status = self.status()
        steady, blink = int(status["steady"]), int(status["blink"])
        lamps: dict[Led, LedMode] = {}
        for code, led in self._leds.items():
            if steady >> code & 1:
                lamps[led] = LedMode.STEADY
            elif blink >> code & 1:
                lamps[led] = LedMode.BLINK
        return lamps

    @property
    def unknown_lamps(self) -> list[int]:
        """Lamp numbers lit that the wiring table lacks."""
        status = self.status()
        lit = int(status["steady"]) | int(status["blink"])
        return [n for n in range(fb.PANEL_LAMP_BITS) if lit >> n & 1 and n not in self._leds]

    @property
    def lamp_frames(self) -> int:
        """PanelLamps frames applied."""
        return self._number("lamp_frames")

    @property
    def refused_lamp_frames(self) -> int:
        """PanelLamps frames refused (a lamp both steady and blinking)."""
        return self._number("refused_lamp_frames")

    def lamp(self, led: Led) -> LedMode:
        """How ``led`` is lit."""
        return self.lamps.get(led, LedMode.OFF)

    def press(self, button: Button) -> None:
        """Press and release ``button`` (the board reports the press)."""
        self.press_code(self.codes.buttons[button])

    def press_code(self, code: int) -> None:
        """Press a raw button number."""
        self.ask(f"press {code}")

    def turn_key(self, on: bool) -> None:
        """Turn the supervisor key (reported both ways)."""
        self.ask(f"key {self.codes.supervisor_key} {int(on)}")

    def place_wager(
        self, seat: int, spot: WagerSpot, present: bool = True, cents: int | None = None
    ) -> None:
        """A seat's wager sensor changes."""
        code = {WagerSpot.MAIN: 1, WagerSpot.MATCH: 2, WagerSpot.INSURANCE: 3}[spot]
        self.ask(f"wager {seat} {code} {int(present)} {-1 if cents is None else cents}")
