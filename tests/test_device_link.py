"""LinkedDevice driven by hand: no threads, no port, a manual clock and a sans-I/O peer.

The transport is a stub that keeps what the driver writes; the device is a real
firmware_bridge Endpoint. Every step is explicit, so timing rules (refusal retry, one
DeviceLost per outage) are checked exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

import pytest

import firmware_bridge as fb
from drivers.device_link import ExpectedDevice, LinkedDevice
from drivers.errors import DeviceNotFoundError, TransportError, WrongDeviceError
from drivers.hal import (
    CoverCardSeen,
    DeviceConnected,
    DeviceEvent,
    DeviceFault,
    DeviceFaultKind,
    DeviceKind,
    DeviceLost,
    ForgedFrame,
)
from drivers.transport import ThreadedTransport
from firmware_bridge.auth import Sealer, SessionKeys
from firmware_bridge.frame import FLAG_RELIABLE, FLAG_SEALED, encode_frame

TIMING = fb.Timing(retransmit_timeout=0.1, heartbeat_interval=0.5, silence_timeout=1.5)


SECRET = bytes(range(1, 33))


class StubTransport(ThreadedTransport):
    """Never started: the test calls the listener itself and collects the writes."""

    def __init__(self, listener: LinkedDevice) -> None:
        super().__init__(name="stub", listener=listener)
        self.written = bytearray()

    def write(self, data: bytes) -> None:
        self.written += data

    def _open_port(self) -> str:
        raise AssertionError("not used")

    def _read_port(self, timeout: float) -> bytes:
        raise AssertionError("not used")

    def _write_port(self, data: bytes) -> None:
        raise AssertionError("not used")

    def _close_port(self) -> None:
        return


class Shoe(LinkedDevice):
    KIND = DeviceKind.SHOE

    def __init__(
        self,
        clock: list[float],
        expected: ExpectedDevice | None = None,
        then: Callable[[DeviceEvent], None] | None = None,
    ) -> None:
        """``then``: called with each event as it reaches the station (a station that
        commits it at once)."""
        self.events: list[DeviceEvent] = []
        self.rejected_types: list[int] = []

        def sink(event: DeviceEvent) -> None:
            self.events.append(event)
            if then is not None:
                then(event)

        super().__init__(
            sink,
            expected or ExpectedDevice("S-1", firmware=frozenset({"fw-2"}), secret=SECRET),
            timing=TIMING,
            refusal_retry=2.0,
            clock=lambda: clock[0],
        )
        self._stub = StubTransport(self)

    @property
    def transport(self) -> StubTransport:
        return self._stub

    def _on_message(self, message: fb.Message) -> Iterable[DeviceEvent]:
        if isinstance(message, fb.CoverCardReport):
            yield CoverCardSeen()

    def _on_rejected(self, reason: str, type_id: int) -> DeviceEvent:
        # The real shoe tells an unreadable card report (a foreign card) from the rest by it.
        self.rejected_types.append(type_id)
        return super()._on_rejected(reason, type_id)


class Link:
    """The driver and a device endpoint, with bytes moved by ``pump``."""

    def __init__(
        self,
        serial: str = "S-1",
        firmware: str = "fw-2",
        secret: bytes | None = None,
        expected: ExpectedDevice | None = None,
        then: Callable[[DeviceEvent], None] | None = None,
    ) -> None:
        self.clock = [100.0]
        self.driver = Shoe(self.clock, expected, then)
        self.device = fb.Endpoint(
            fb.Role.DEVICE,
            fb.Identity(fb.DeviceKind.SHOE, firmware, serial),
            timing=TIMING,
            rng=random.Random(1),
            secret=SECRET if secret is None else secret,
        )
        self.device.start(self.clock[0])

    def pump(self) -> None:
        for _ in range(10):
            to_device = bytes(self.driver.transport.written)
            self.driver.transport.written.clear()
            if to_device:
                self.device.receive_data(to_device, self.clock[0])
            self.device.events()
            to_station = self.device.data_to_send()
            if to_station:
                self.driver.link_data(to_station)
            if not to_device and not to_station:
                return

    def advance(self, seconds: float) -> None:
        self.clock[0] += seconds
        self.driver.link_tick()
        self.device.tick(self.clock[0])
        self.pump()


def test_handshake_then_messages_then_silence_is_one_loss() -> None:
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    assert link.driver.events == [DeviceConnected(DeviceKind.SHOE, "S-1", "fw-2")]
    link.device.send(fb.CoverCardReport(1), link.clock[0])
    link.pump()
    assert link.driver.events[-1] == CoverCardSeen()
    # The device dies: the driver reports it once, however long it stays away.
    link.device = fb.Endpoint(
        fb.Role.DEVICE, fb.Identity(fb.DeviceKind.SHOE, "fw-2", "S-1"), timing=TIMING, secret=SECRET
    )
    for _ in range(40):
        link.clock[0] += 0.25
        link.driver.link_tick()
        link.driver.transport.written.clear()
    losses = [e for e in link.driver.events if isinstance(e, DeviceLost)]
    assert len(losses) == 1 and "silent" in losses[0].reason
    assert not link.driver.connected


def test_port_errors_are_one_loss_and_a_wrong_device_is_a_fault() -> None:
    link = Link()
    link.driver.link_down(DeviceNotFoundError("no such serial port"))
    link.driver.link_down(TransportError("still gone"))
    link.driver.link_down(
        WrongDeviceError("wrong reader", {"serial_number": "A"}, {"serial_number": "B"})
    )
    assert [type(e) for e in link.driver.events] == [DeviceLost, DeviceFault]
    fault = link.driver.events[1]
    assert isinstance(fault, DeviceFault)
    assert fault.details == {"expected_serial_number": "A", "found_serial_number": "B"}
    assert fault.reason == "shoe refused: wrong reader"


def test_refused_device_is_checked_again_after_the_retry_interval() -> None:
    link = Link(serial="S-9")
    link.driver.link_up("stub")
    link.pump()
    (fault,) = link.driver.events
    assert isinstance(fault, DeviceFault)
    assert fault.details["found_serial_number"] == "S-9"
    assert fault.details["expected_serial_number"] == "S-1"
    link.device.identity = fb.Identity(fb.DeviceKind.SHOE, "fw-2", "S-1")
    link.advance(1.9)  # before the retry: still refused, nothing new
    assert len(link.driver.events) == 1
    link.advance(0.2)
    link.advance(0.2)
    assert link.driver.events[-1] == DeviceConnected(DeviceKind.SHOE, "S-1", "fw-2")
    assert link.driver.connected


def test_a_command_while_down_is_a_fault_not_an_exception() -> None:
    link = Link()
    assert link.driver._send(fb.StatusQuery()) is False
    (fault,) = link.driver.events
    assert isinstance(fault, DeviceFault) and "StatusQuery not sent" in fault.reason


# --- attacks on the link (docs/protocol.md 4b): each one fails to do harm ------------------


def forged(type_id: int, payload: bytes, seq: int, *, sealed_with: bytes | None = None) -> bytes:
    """A frame an attacker writes on the line: a valid CRC and header, the right sequence
    number, and (optionally) a seal made with a key of its own."""
    flags = FLAG_RELIABLE
    if sealed_with is None:
        return encode_frame(fb.Frame(fb.PROTOCOL_VERSION, type_id, seq, flags, 0, payload))
    frame = fb.Frame(fb.PROTOCOL_VERSION, type_id, seq, flags | FLAG_SEALED, 0, payload)
    sealer = Sealer(SessionKeys(sealed_with, bytes(16), bytes(16), 2).device_to_station)
    return encode_frame(frame._replace(payload=sealer.seal(frame.header(), payload)))


def test_forged_card_report_is_dropped_and_repeated_forgeries_fault_the_device() -> None:
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    # The next reliable sequence number and draw 1: what the real shoe would send next.
    card = fb.encode_message(fb.CoverCardReport(1))[1]
    link.driver.link_data(forged(fb.CoverCardReport.TYPE_ID, card, 0))
    link.driver.link_data(forged(fb.CoverCardReport.TYPE_ID, card, 0, sealed_with=bytes(32)))
    assert link.driver.events == [
        DeviceConnected(DeviceKind.SHOE, "S-1", "fw-2"),
        ForgedFrame(DeviceKind.SHOE, "frame type 0x21 is not sealed", 1),
        ForgedFrame(DeviceKind.SHOE, "frame tag does not verify", 2),
    ]  # journaled, play goes on
    assert link.driver.stats.auth_failures == 2
    link.driver.link_data(forged(fb.CoverCardReport.TYPE_ID, card, 0))
    faults = [e for e in link.driver.events if isinstance(e, DeviceFault)]
    assert len(faults) == 1 and faults[0].kind is DeviceFaultKind.AUTHENTICATION
    assert "3 frames failed authentication within 10 s" in faults[0].reason
    # The genuine shoe's own report still gets through, once.
    link.device.send(fb.CoverCardReport(1), link.clock[0])
    link.pump()
    assert [e for e in link.driver.events if isinstance(e, CoverCardSeen)] == [CoverCardSeen()]


def test_a_frame_recorded_in_an_earlier_session_is_refused() -> None:
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    link.device.send(fb.CoverCardReport(1), link.clock[0])
    recorded = link.device.data_to_send()
    link.driver.link_data(recorded)
    assert link.driver.events[-1] == CoverCardSeen()
    # A new session (the station restarted its link): new nonces, new keys.
    link.driver.link_down(TransportError("unplugged"))
    link.driver.link_up("stub")
    link.pump()
    assert link.driver.connected
    before = len(link.driver.events)
    link.driver.link_data(recorded)  # replayed from the tap: journaled, never delivered
    assert link.driver.events[before:] == [
        ForgedFrame(DeviceKind.SHOE, "frame tag does not verify", 1)
    ]
    assert link.driver.stats.auth_failures == 1


def test_impostor_without_the_pairing_key_is_refused_as_unauthenticated() -> None:
    # The right serial number, an allowed firmware version, but not the paired board.
    link = Link(secret=bytes(32))
    link.driver.link_up("stub")
    link.pump()
    faults = [e for e in link.driver.events if isinstance(e, DeviceFault)]
    assert len(faults) == 1 and faults[0].kind is DeviceFaultKind.AUTHENTICATION
    assert "failed authentication" in faults[0].reason
    assert not link.driver.connected


def test_firmware_not_on_the_allow_list_is_refused_with_one_fault() -> None:
    # "EVIL-9.9" with the right serial number once passed the handshake. Even with the
    # pairing key (a genuine board reflashed), the allow-list refuses it, once per outage.
    link = Link(firmware="EVIL-9.9")
    link.driver.link_up("stub")
    link.pump()
    for _ in range(3):  # the driver retries every refusal_retry seconds
        link.advance(2.5)
    faults = [e for e in link.driver.events if isinstance(e, DeviceFault)]
    assert len(faults) == 1
    assert faults[0].kind is DeviceFaultKind.GENERAL
    assert "firmware 'EVIL-9.9' is not on the allow-list (fw-2)" in faults[0].reason
    assert faults[0].details["found_firmware"] == "EVIL-9.9"
    assert not link.driver.connected


def test_the_link_thread_is_woken_when_a_held_ack_is_due_and_no_later() -> None:
    """docs/protocol.md, section 5: a lone ACK is held ACK_DELAY (10 ms) after the frame it
    acknowledges. The driver tells its transport to tick then (not a read tick later), and
    otherwise no later than the retransmit timeout (0.1 s), the earliest deadline a command
    sent from the station's thread can set."""
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    assert link.driver.connected
    assert link.driver.link_tick() == pytest.approx(
        0.1
    )  # nothing owed: heartbeat 0.5 s away, capped
    link.device.send(fb.CoverCardReport(1), link.clock[0])
    wait = link.driver.link_data(link.device.data_to_send())
    assert wait == pytest.approx(0.01)  # the held ACK
    assert link.driver.transport.written == b""  # held, not sent
    link.clock[0] += 0.004
    assert link.driver.link_tick() == pytest.approx(0.006)  # still held, due 6 ms from now
    assert link.driver.transport.written == b""
    link.clock[0] += 0.006
    assert link.driver.link_tick() == pytest.approx(
        0.1
    )  # sent now; nothing else due before the cap
    link.device.receive_data(bytes(link.driver.transport.written), link.clock[0])
    assert link.device.unconfirmed == 0


# --- what a refusal, a forgery or a lost command puts in the journal -----------------------


def test_a_refusal_records_what_was_expected_and_what_was_found() -> None:
    # Each key is a column of the journal's fault row a regulator reads.
    expected = ExpectedDevice("S-1", firmware=frozenset({"fw-2", "fw-1"}), secret=SECRET)
    link = Link(firmware="EVIL-9.9", expected=expected)
    link.driver.link_up("stub")
    link.pump()
    assert link.driver.events == [
        DeviceFault(
            DeviceKind.SHOE,
            "shoe refused: firmware 'EVIL-9.9' is not on the allow-list (fw-1, fw-2)",
            {
                "expected_kind": "shoe",
                "expected_serial_number": "S-1",
                "expected_protocol_version": "2",
                "expected_firmware": "fw-1, fw-2",
                "found_kind": "shoe",
                "found_serial_number": "S-1",
                "found_protocol_version": "2",
                "found_firmware": "EVIL-9.9",
            },
            DeviceFaultKind.GENERAL,
        )
    ]
    # Unplugged while refused: still the one outage, no DeviceLost on top.
    link.driver.link_down(TransportError("unplugged"))
    assert len(link.driver.events) == 1


def test_an_empty_allow_list_refuses_every_firmware_and_says_none() -> None:
    link = Link(expected=ExpectedDevice("S-1", firmware=frozenset(), secret=SECRET))
    link.driver.link_up("stub")
    link.pump()
    (fault,) = link.driver.events
    assert isinstance(fault, DeviceFault)
    assert fault.reason == "shoe refused: firmware 'fw-2' is not on the allow-list (none)"
    assert fault.details["expected_firmware"] == ""


def test_a_configured_protocol_version_accepts_a_device_speaking_it() -> None:
    link = Link(expected=ExpectedDevice("S-1", protocol_version=2, secret=SECRET))
    link.driver.link_up("stub")
    link.pump()
    assert link.driver.events == [DeviceConnected(DeviceKind.SHOE, "S-1", "fw-2")]


def test_a_refused_device_is_asked_again_at_the_retry_time_exactly() -> None:
    link = Link(serial="S-9")  # refused at t=100.0; refusal_retry 2.0 s
    link.driver.link_up("stub")
    link.pump()
    link.driver.transport.written.clear()
    link.clock[0] = 101.875  # 1/8 s before the retry (exact in binary)
    assert link.driver.link_tick() == pytest.approx(0.1)  # capped at the retransmit timeout
    link.clock[0] = 101.9375
    assert link.driver.link_tick() == pytest.approx(0.0625)  # woken for the retry itself
    link.clock[0] = 102.0
    link.driver.link_tick()
    assert link.driver.transport.written  # a new HELLO, at the retry time and not after


def test_forgeries_that_fault_the_device_record_their_count() -> None:
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    card = fb.encode_message(fb.CoverCardReport(1))[1]
    for _ in range(3):
        link.driver.link_data(forged(fb.CoverCardReport.TYPE_ID, card, 0))
    assert link.driver.events[-1] == DeviceFault(
        DeviceKind.SHOE,
        "3 frames failed authentication within 10 s (forged or altered)",
        {"auth_failures": "3"},
        DeviceFaultKind.AUTHENTICATION,
    )


def test_a_command_lost_with_the_port_is_a_fault_of_the_device() -> None:
    # The procedure must not assume a command the device never acknowledged was carried out.
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    assert link.driver._send(fb.HoleCardCancel())
    link.driver.link_down(TransportError("unplugged"))
    assert link.driver.events[1:] == [
        DeviceLost(DeviceKind.SHOE, "unplugged"),
        DeviceFault(DeviceKind.SHOE, "1 commands not confirmed before the link went down"),
    ]


def test_a_command_never_acknowledged_is_named_when_the_session_gives_up() -> None:
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    assert link.driver._send(fb.HoleCardCancel())
    for _ in range(100):  # the device hears nothing more: tries run out
        link.clock[0] += 0.1
        link.driver.link_tick()
        if not link.driver.connected:
            break
    assert not link.driver.connected
    assert link.driver.events[-1] == DeviceFault(
        DeviceKind.SHOE, "HoleCardCancel not confirmed before the link went down"
    )
    assert isinstance(link.driver.events[-2], DeviceLost)


def test_a_command_refused_while_down_names_the_device() -> None:
    link = Link()
    assert link.driver._send(fb.StatusQuery()) is False
    (fault,) = link.driver.events
    assert isinstance(fault, DeviceFault) and fault.device is DeviceKind.SHOE


def _forge_at(link: Link, *times: float) -> None:
    card = fb.encode_message(fb.CoverCardReport(1))[1]
    for at in times:
        link.clock[0] = at
        link.driver.link_data(forged(fb.CoverCardReport.TYPE_ID, card, 0))


def test_three_forgeries_fault_the_device_only_within_ten_seconds() -> None:
    # docs/protocol.md 4c: the 3rd within 10 s faults the device. Ten seconds after the
    # first, the first is out of the window (a half-open 10 s).
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    _forge_at(link, 100.0, 105.0, 110.0)
    assert [type(e) for e in link.driver.events[1:]] == [ForgedFrame] * 3
    _forge_at(link, 119.5)  # 100 and 105 are out of the window: 110 and 119.5 are two
    assert [type(e) for e in link.driver.events[1:]] == [ForgedFrame] * 4
    _forge_at(link, 119.75)  # 110, 119.5, 119.75: three within 10 s
    assert isinstance(link.driver.events[-1], DeviceFault)


def test_once_faulted_for_forgeries_the_rest_are_only_counted() -> None:
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    _forge_at(link, 100.0, 100.25, 100.5, 100.75, 101.0)
    kinds = [type(e) for e in link.driver.events[1:]]
    assert kinds == [ForgedFrame, ForgedFrame, DeviceFault]  # one fault a session
    assert link.driver.stats.auth_failures == 5
