"""Ending a session and forged frames (docs/protocol.md section 4c), on the Python side.

An unsealed NoSession or Refused cannot end a session whose keys exist: the station checks
the session with a heartbeat request and only a session that does not answer sealed within
the check time is down; a device ignores an unsealed Refused once its session is proven.
Forged frames are journaled one by one and fault the device only at 3 within 10 s. The same
rules against the C firmware: ``tests/test_firmware_attacks.py``.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from test_device_link import Link, forged

import firmware_bridge as fb
from drivers.hal import DeviceFault, DeviceFaultKind, DeviceKind, ForgedFrame
from firmware_bridge.frame import PROTOCOL_VERSION, decode_frame, encode_frame
from firmware_bridge.link_messages import Hello, HelloReply, NoSession, Refused

TIMING = fb.Timing(retransmit_timeout=0.1, max_tries=5, heartbeat_interval=1.0)
CHECK = TIMING.retransmit_timeout * TIMING.max_tries  # 0.5 s
SECRET = bytes(range(32))


class Pair:
    """A station and a device endpoint, bytes moved by hand; the sessions as a tap sees
    them (read from the clear HELLO and HELLO_REPLY)."""

    def __init__(self) -> None:
        self.now = 10.0
        self.station = fb.Endpoint(
            fb.Role.STATION,
            fb.Identity(fb.DeviceKind.SHOE, "st-1", "T1"),
            timing=TIMING,
            rng=random.Random(1),
            secret=SECRET,
        )
        self.device = self.new_device()
        self.station_session = self.device_session = 0
        self.station.start(self.now)
        self.pump()

    def new_device(self) -> fb.Endpoint:
        device = fb.Endpoint(
            fb.Role.DEVICE,
            fb.Identity(fb.DeviceKind.SHOE, "fw-1", "S1"),
            timing=TIMING,
            rng=random.Random(2),
            secret=SECRET,
        )
        device.start(self.now)
        return device

    def _tap(self, data: bytes) -> None:
        for part in data.split(b"\0"):
            if not part:
                continue
            frame = decode_frame(part)
            if frame.type_id == Hello.TYPE_ID:
                self.station_session = fb.decode_message(frame.type_id, frame.payload).session  # type: ignore[attr-defined]
            elif frame.type_id == HelloReply.TYPE_ID:
                self.device_session = fb.decode_message(frame.type_id, frame.payload).session  # type: ignore[attr-defined]

    def pump(self) -> None:
        for _ in range(20):
            to_device = self.station.data_to_send()
            if to_device:
                self._tap(to_device)
                self.device.receive_data(to_device, self.now)
            to_station = self.device.data_to_send()
            if to_station:
                self._tap(to_station)
                self.station.receive_data(to_station, self.now)
            if not to_device and not to_station:
                return

    def advance(self, seconds: float) -> None:
        self.now += seconds
        self.station.tick(self.now)
        self.device.tick(self.now)
        self.pump()


def plain(type_id: int, payload: bytes = b"") -> bytes:
    """An unsealed frame anyone on the line can write."""
    return encode_frame(fb.Frame(PROTOCOL_VERSION, type_id, 0, 0, 0, payload))


def refused(echo: int, reason: str = "go away") -> bytes:
    return plain(Refused.TYPE_ID, fb.encode_message(Refused(echo, reason))[1])


def downs(endpoint: fb.Endpoint) -> list[fb.LinkEvent]:
    return [e for e in endpoint.events() if isinstance(e, fb.LinkDown | fb.HandshakeRefused)]


def test_a_forged_no_session_leaves_a_live_session_up_and_counts_as_forged() -> None:
    pair = Pair()
    assert pair.station.connected and pair.device.connected
    pair.station.events()
    pair.station.receive_data(plain(NoSession.TYPE_ID), pair.now)
    assert pair.station.connected  # not on its word alone
    pair.pump()  # the heartbeat request, and the device's sealed answer
    dropped = [e for e in pair.station.events() if isinstance(e, fb.FrameDropped)]
    assert [(e.error, e.reason) for e in dropped] == [
        ("AuthenticationError", "an unsealed NoSession while the session is alive")
    ]
    assert (pair.station.stats.unsealed_ends, pair.station.stats.forged_ends) == (1, 1)
    pair.advance(CHECK + 0.1)  # past the check time: still up
    assert pair.station.connected and not downs(pair.station)


def test_a_forged_refused_leaves_a_live_session_up_on_both_sides() -> None:
    pair = Pair()
    pair.advance(TIMING.heartbeat_interval)  # sealed heartbeats both ways: both proven
    pair.station.events()
    pair.device.events()
    pair.station.receive_data(refused(pair.station_session), pair.now)
    pair.device.receive_data(refused(pair.device_session), pair.now)
    pair.pump()
    pair.advance(CHECK + 0.1)
    assert pair.station.connected and pair.device.connected
    assert not downs(pair.station) and not downs(pair.device)
    assert pair.station.stats.forged_ends == 1
    assert pair.device.stats.forged_ends == 1


def test_a_device_refused_before_the_station_sealed_anything_still_stops() -> None:
    """The other side of the rule: the station's REFUSED comes before its first sealed
    frame (answering the HELLO_REPLY), and a device obeys that one."""
    pair = Pair()
    pair.device = pair.new_device()
    pair.station.reset(pair.now)
    to_device = pair.station.data_to_send()
    pair._tap(to_device)
    pair.device.receive_data(to_device, pair.now)
    pair.device.data_to_send()  # the HELLO_REPLY, never delivered: the station refuses
    pair.device.events()
    pair.device.receive_data(refused(pair.device_session, "firmware not allowed"), pair.now)
    assert pair.device.state is fb.LinkState.REFUSED


def test_a_device_that_really_restarted_is_down_within_the_check_time() -> None:
    pair = Pair()
    pair.station.events()
    pair.device = pair.new_device()  # power cycled: no session, no keys
    pair.advance(TIMING.heartbeat_interval)  # the station's heartbeat: NoSession back
    start = pair.now
    # NoSession to the heartbeat, and again to the heartbeat request
    assert pair.station.connected and pair.station.stats.unsealed_ends == 2
    pair.advance(CHECK - 0.01)
    assert pair.station.connected  # not before the check time...
    pair.advance(0.02)
    (down,) = downs(pair.station)  # ...and then at once, well before the silence timeout
    assert isinstance(down, fb.LinkDown)
    assert down.reason == "device has no session (it restarted or ended the session)"
    assert pair.now - start < TIMING.silence_timeout


def test_forged_frames_below_the_rate_are_journaled_and_never_stop_play() -> None:
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    card = fb.encode_message(fb.CoverCardReport(1))[1]
    for _ in range(4):  # two forged frames every 10.1 s: under 3 in any 10 s
        for _ in range(2):
            link.driver.link_data(forged(fb.CoverCardReport.TYPE_ID, card, 0))
        for _ in range(101):
            link.advance(0.1)
    forgeries = [e for e in link.driver.events if isinstance(e, ForgedFrame)]
    assert [e.count for e in forgeries] == [1, 2, 3, 4, 5, 6, 7, 8]  # a row each
    assert not [e for e in link.driver.events if isinstance(e, DeviceFault)]
    assert link.driver.connected


def test_three_forged_frames_within_ten_seconds_fault_the_device_once() -> None:
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    card = fb.encode_message(fb.CoverCardReport(1))[1]
    link.driver.link_data(forged(fb.CoverCardReport.TYPE_ID, card, 0))
    for _ in range(99):
        link.advance(0.1)  # 9.9 s later: still inside the window
    for _ in range(3):
        link.driver.link_data(forged(fb.CoverCardReport.TYPE_ID, card, 0))
    faults = [e for e in link.driver.events if isinstance(e, DeviceFault)]
    assert len(faults) == 1 and faults[0].kind is DeviceFaultKind.AUTHENTICATION
    assert faults[0].device is DeviceKind.SHOE
    assert "3 frames failed authentication within 10 s" in faults[0].reason
    assert [e.count for e in link.driver.events if isinstance(e, ForgedFrame)] == [1, 2]
    assert link.driver.stats.auth_failures == 4  # the fourth is counted, no second fault


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["no_session", "refused_station", "refused_device", "refused_other"]),
        min_size=1,
        max_size=12,
    )
)
def test_no_run_of_unsealed_ends_takes_down_a_session_that_answers(attacks: list[str]) -> None:
    pair = Pair()
    pair.advance(TIMING.heartbeat_interval)
    frames = {
        "no_session": (pair.station, plain(NoSession.TYPE_ID)),
        "refused_station": (pair.station, refused(pair.station_session)),
        "refused_device": (pair.device, refused(pair.device_session)),
        "refused_other": (pair.station, refused(pair.station_session ^ 1)),
    }
    for attack in attacks:
        endpoint, data = frames[attack]
        endpoint.receive_data(data, pair.now)
        pair.advance(0.05)
    pair.advance(CHECK + 0.1)
    assert pair.station.connected and pair.device.connected
    assert not downs(pair.station) and not downs(pair.device)


# --- section 4c: a HELLO does not end a proven session --------------------------------------


def hello(
    session: int, kind: fb.DeviceKind = fb.DeviceKind.SHOE, nonce: bytes = bytes(16)
) -> bytes:
    """A HELLO anyone on the line can write (a tap reads the kind and texts in the clear)."""
    return plain(Hello.TYPE_ID, fb.encode_message(Hello(kind, session, nonce, "st-1", "T1"))[1])


def received(endpoint: fb.Endpoint) -> list[fb.Message]:
    return [e.message for e in endpoint.events() if isinstance(e, fb.MessageReceived)]


def test_a_forged_hello_leaves_the_session_up_and_delays_nothing_past_a_frame() -> None:
    pair = Pair()
    pair.station.events()
    pair.device.events()
    old_device_session = pair.device_session
    pair.device.receive_data(hello(pair.station_session + 1), pair.now)
    answer = pair.device.data_to_send()
    (frame,) = [decode_frame(p) for p in answer.split(b"\0") if p]
    reply = fb.decode_message(frame.type_id, frame.payload)
    assert isinstance(reply, HelloReply)  # answered, with a session of its own
    assert (reply.echo, reply.session != old_device_session) == (pair.station_session + 1, True)
    pair.station.receive_data(answer, pair.now)  # the station ignores a reply it never asked for
    assert pair.device.connected and pair.station.connected
    # While the new session is pending the device sends nothing sealed, but keeps its report.
    pair.device.send(fb.CardDrawnReport(9, "S", 1), pair.now)
    assert pair.device.data_to_send() == b""
    # The genuine station's next sealed frame (its heartbeat) proves the old session alive.
    pair.advance(TIMING.heartbeat_interval)
    assert received(pair.station) == [fb.CardDrawnReport(9, "S", 1)]  # delivered, once
    dropped = [e for e in pair.device.events() if isinstance(e, fb.FrameDropped)]
    assert [e.reason for e in dropped] == ["a Hello of another session while this one is alive"]
    assert (pair.device.stats.unsealed_ends, pair.device.stats.forged_ends) == (1, 1)
    assert not downs(pair.station) and not downs(pair.device)
    for _ in range(5):  # and it stays up, heartbeats both ways
        pair.advance(TIMING.heartbeat_interval)
    assert pair.station.connected and pair.device.connected


def test_a_station_that_restarted_is_joined_at_its_first_sealed_frame() -> None:
    pair = Pair()
    pair.device.send(fb.CardDrawnReport(9, "S", 1), pair.now)  # out, never acknowledged
    pair.device.data_to_send()
    pair.device.events()
    pair.station = fb.Endpoint(  # the daemon restarted: a new station, a new session
        fb.Role.STATION,
        fb.Identity(fb.DeviceKind.SHOE, "st-1", "T1"),
        timing=TIMING,
        rng=random.Random(3),
        secret=SECRET,
    )
    pair.station.start(pair.now)
    pair.pump()
    assert pair.station.connected
    assert [type(e) for e in pair.device.events()] == []  # pending: not joined on the HELLO
    pair.station.send(fb.HoleCardNext(2), pair.now)
    pair.pump()
    events = pair.device.events()
    assert [type(e) for e in events] == [fb.LinkDown, fb.Connected, fb.MessageReceived]
    down = events[0]
    assert isinstance(down, fb.LinkDown) and down.reason == "station started a new session"
    assert down.unconfirmed == (fb.CardDrawnReport(9, "S", 1),)  # to go out again
    assert pair.device.stats.forged_ends == 0


def test_a_hello_the_device_refuses_leaves_the_session_up() -> None:
    pair = Pair()
    pair.device.events()
    pair.device.receive_data(hello(77, kind=fb.DeviceKind.CARD_READER), pair.now)
    (frame,) = [decode_frame(p) for p in pair.device.data_to_send().split(b"\0") if p]
    refusal = fb.decode_message(frame.type_id, frame.payload)
    assert isinstance(refusal, Refused) and refusal.echo == 77
    assert "the station expects a card_reader" in refusal.reason
    pair.advance(TIMING.heartbeat_interval)
    assert pair.device.connected and not downs(pair.device)


def test_a_refused_pending_session_is_forgotten_and_the_session_goes_on() -> None:
    pair = Pair()
    pair.device.receive_data(hello(pair.station_session + 5), pair.now)
    pair._tap(pair.device.data_to_send())  # the pending session's number, in the clear
    pair.device.receive_data(refused(pair.device_session), pair.now)
    pair.device.send(fb.CardDrawnReport(9, "S", 1), pair.now)
    pair.pump()  # not held: no session pending any more
    assert received(pair.station) == [fb.CardDrawnReport(9, "S", 1)]
    assert pair.device.connected and pair.device.stats.forged_ends == 0


def test_a_session_that_falls_silent_while_another_is_pending_gives_way_to_it() -> None:
    pair = Pair()
    pair.station.events()
    station = pair.station
    pair.station = fb.Endpoint(  # a second station: the first one went quiet
        fb.Role.STATION,
        fb.Identity(fb.DeviceKind.SHOE, "st-1", "T1"),
        # It seals nothing for a long while.
        timing=fb.Timing(heartbeat_interval=60.0, silence_timeout=120.0),
        rng=random.Random(4),
        secret=SECRET,
    )
    pair.station.start(pair.now)
    pair.pump()
    assert pair.station.connected and pair.device.connected
    pair.device.events()
    pair.now += TIMING.silence_timeout
    pair.device.tick(pair.now)  # the old session silent: over, the pending one joined
    assert [type(e) for e in pair.device.events()] == [fb.LinkDown, fb.Connected]
    pair.device.send(fb.CardDrawnReport(2, "H", 1), pair.now)
    pair.pump()
    assert received(pair.station) == [fb.CardDrawnReport(2, "H", 1)]
    assert station.connected  # (the first station never heard of any of it)


@settings(max_examples=60, deadline=None)
@given(
    sessions=st.lists(st.integers(1, 2**32 - 1), min_size=1, max_size=6),
    nonces=st.lists(st.binary(min_size=16, max_size=16), min_size=1, max_size=6),
    reports=st.integers(0, 6),
)
def test_no_run_of_forged_hellos_ends_a_live_session_or_loses_a_report(
    sessions: list[int], nonces: list[bytes], reports: int
) -> None:
    pair = Pair()
    pair.station.events()
    pair.device.events()
    for draw in range(1, reports + 1):
        for session, nonce in zip(sessions, nonces, strict=False):
            pair.device.receive_data(hello(session, nonce=nonce), pair.now)
            pair.pump()
        pair.device.send(fb.CardDrawnReport(9, "S", draw), pair.now)
        pair.advance(TIMING.heartbeat_interval / 2)
    pair.advance(TIMING.heartbeat_interval * 2)
    assert pair.station.connected and pair.device.connected
    events = pair.station.events()
    assert not [e for e in events if isinstance(e, fb.LinkDown | fb.HandshakeRefused)]
    assert not downs(pair.device)
    got = [e.message for e in events if isinstance(e, fb.MessageReceived)]
    assert got == [fb.CardDrawnReport(9, "S", draw) for draw in range(1, reports + 1)]
