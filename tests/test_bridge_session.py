"""A new session starts with nothing of the old one and nothing made up (firmware_bridge.session).

The device that follows a station into a new session while its old one is alive (the
station's daemon restarted: docs/protocol.md section 4c) joins a session it answered some
time before: that session owes no ack, hurries nothing, and counts its owed frames from
zero, like any first session. The station's HELLO goes out ``HELLO_TRIES`` times, no fewer,
before it gives up (section 6's table).
"""

from __future__ import annotations

import random

import pytest
from test_bridge_link import READER, READER_STATION, SECRET, frames_in

from firmware_bridge import (
    ACK_DELAY,
    ACK_EVERY,
    HELLO_INTERVAL,
    HELLO_TRIES,
    Connected,
    Endpoint,
    LinkDown,
    MessageReceived,
    PeekAnswerCode,
    PeekReply,
    PeekRequest,
    PeekTargetCode,
    Role,
)
from firmware_bridge.frame import FLAG_ACK_NOW, FLAG_RELIABLE
from firmware_bridge.handshake import PLAIN
from firmware_bridge.link_messages import Ack, Hello, HelloReply


def connected(now: float) -> tuple[Endpoint, Endpoint]:
    station = Endpoint(Role.STATION, READER_STATION, secret=SECRET, rng=random.Random(1))
    device = Endpoint(Role.DEVICE, READER, secret=SECRET, rng=random.Random(2))
    device.start(now)
    station.start(now)
    device.receive_data(station.data_to_send(), now)
    station.receive_data(device.data_to_send(), now)
    assert station.connected and device.connected
    station.events(), device.events()
    return station, device


def rejoined() -> tuple[Endpoint, Endpoint, float]:
    """A station that restarted at 1 s, and its device joined into the new session at 2 s
    by the station's first sealed frame (a heartbeat)."""
    station, device = connected(0.0)
    station.reset(1.0)
    device.receive_data(station.data_to_send(), 1.0)  # the new HELLO: answered, pending
    station.receive_data(device.data_to_send(), 1.0)
    assert station.connected
    station.tick(2.0)  # a second without sending: the new session's heartbeat
    device.receive_data(station.data_to_send(), 2.0)
    assert device.events() == [
        LinkDown("station started a new session", ()),
        Connected(READER_STATION),
    ]
    return station, device, 2.0


def test_a_joined_session_owes_no_ack_for_the_heartbeat_that_joined_it() -> None:
    """A heartbeat is not a reliable frame: nothing to acknowledge, no ACK frame out."""
    _, device, t = rejoined()
    assert device.data_to_send() == b""
    device.tick(t + ACK_DELAY)  # its own heartbeat may be due; an ACK is not
    assert Ack.TYPE_ID not in [f.type_id for f in frames_in(device.data_to_send())]


def test_a_joined_session_holds_its_ack_until_the_fourth_owed_frame() -> None:
    """Section 5: the lone ACK is held, and sent at once when 4 reliable frames are owed,
    counted from the first one of the session."""
    station, device, t = rejoined()
    for request in range(1, ACK_EVERY):
        station.send(PeekRequest(request, PeekTargetCode.LOOKING_FOR_ACE), t)
        device.receive_data(station.data_to_send(), t)
        assert device.data_to_send() == b"", f"{request} owed: the ACK is held"
    station.send(PeekRequest(ACK_EVERY, PeekTargetCode.LOOKING_FOR_ACE), t)
    device.receive_data(station.data_to_send(), t)
    [ack] = frames_in(device.data_to_send())
    assert (ack.type_id, ack.ack) == (Ack.TYPE_ID, ACK_EVERY)


def test_a_joined_session_asks_for_no_ack_nobody_asked_it_to_hurry() -> None:
    """``ACK_NOW`` goes out only after ``ask_ack_now``: a new session's first report is an
    ordinary reliable frame, its ack held by the station as usual."""
    station, device, t = rejoined()
    device.send(PeekReply(1, PeekAnswerCode.NO_BLACKJACK), t)
    [report] = frames_in(wire := device.data_to_send())
    assert report.flags & FLAG_RELIABLE and not report.flags & FLAG_ACK_NOW
    station.receive_data(wire, t)
    assert station.data_to_send() == b""  # held: nobody waits on it


def test_the_station_sends_hello_tries_hellos_and_then_gives_up() -> None:
    """30 HELLOs 0.1 s apart: the last at 2.9 s, the link down at 3.0 s and not before."""
    station = Endpoint(Role.STATION, READER_STATION, secret=SECRET, rng=random.Random(1))
    station.start(0.0)
    hellos = len(frames_in(station.data_to_send()))
    station.tick(0.05)  # between two HELLOs: nothing is due
    assert station.data_to_send() == b""
    now = 0.0
    while not station.events():
        hellos += sum(f.type_id == Hello.TYPE_ID for f in frames_in(station.data_to_send()))
        assert hellos <= HELLO_TRIES, "a HELLO past the last try"  # never retries forever
        deadline = station.next_deadline()
        # A tick at a deadline does the work due then: the next one is later.
        assert deadline is not None and deadline > now, (deadline, now)
        now = deadline
        station.tick(now)
    assert hellos == HELLO_TRIES == 30
    assert now == pytest.approx(HELLO_TRIES * HELLO_INTERVAL)


def test_a_device_whose_old_session_falls_silent_gives_the_new_one_a_full_silence_timeout() -> None:
    """Section 6a: pending a new session, 3.5 s of silence in the old one ends it and the
    device goes on in the new one, which then has its own 3.5 s from that moment."""
    station, device = connected(10.0)  # the old session's last frame: at 10 s
    station.reset(11.0)
    device.receive_data(station.data_to_send(), 11.0)  # answered; the station's frames are lost
    device.data_to_send()
    assert device.next_deadline() == pytest.approx(13.5)  # only the old session's silence
    device.tick(13.4)
    assert device.events() == []
    device.tick(13.5)  # 3.5 s after the old session's last frame
    assert device.events() == [LinkDown("peer silent for 3.50 s", ()), Connected(READER_STATION)]
    device.data_to_send()
    device.tick(16.99)
    assert device.events() == []
    device.tick(17.0)
    assert device.events() == [LinkDown("peer silent for 3.50 s", ())]


def test_a_pending_session_sends_only_its_reply_and_a_forged_hello_delays_nothing() -> None:
    """Section 4c: a HELLO of another session (here a second station's, on the same secret:
    a replay or a forgery as far as the device can tell) is answered with an unsealed
    HELLO_REPLY, acking nothing of the new session (``ack`` 0, section 5); the reports the
    device queues meanwhile wait; the old station's next sealed frame proves its session
    alive, and they go out then, sealed, in order, each once."""
    station, device = connected(0.0)
    other = Endpoint(Role.STATION, READER_STATION, secret=SECRET, rng=random.Random(9))
    other.start(1.0)
    hello = other.data_to_send()
    device.receive_data(hello, 1.0)
    sent_before = device.stats.frames_sent
    replies = [PeekReply(n, PeekAnswerCode.NO_BLACKJACK) for n in range(1, 9)]
    for reply in replies:  # sequence numbers 0..7 of the old session
        device.send(reply, 1.0)
    wire = device.data_to_send()
    assert wire[:1] == b"\x00"  # the new session's first bytes flush the peer's decoder
    [answer] = frames_in(wire)
    assert (answer.type_id, answer.seq, answer.flags, answer.ack) == (HelloReply.TYPE_ID, 0, 0, 0)
    assert device.stats.frames_sent == sent_before + 1
    device.receive_data(hello, 1.05)  # the HELLO again: its reply was lost
    again = device.data_to_send()
    assert again[:1] != b"\x00"  # not the session's first bytes any more
    assert [f.type_id for f in frames_in(again)] == [HelloReply.TYPE_ID]
    assert all(f.type_id in PLAIN for f in frames_in(wire + again))

    station.tick(1.1)  # the old station's heartbeat, sealed under the old session's keys
    device.receive_data(station.data_to_send(), 1.1)
    assert device.stats.forged_ends == 1
    wire = device.data_to_send()
    assert [f.seq for f in frames_in(wire) if f.flags & FLAG_RELIABLE] == list(range(8))
    station.receive_data(wire, 1.1)
    assert [e.message for e in station.events() if isinstance(e, MessageReceived)] == replies
