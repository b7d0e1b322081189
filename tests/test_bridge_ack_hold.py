"""Acknowledged once recorded (``Endpoint.hold_acks``, docs/protocol.md section 5): a station
holds the ack of what it received until its journal has committed it, so that a report
whose ack never went out is sent again in the device's next session instead of lost.

Two endpoints over the simulated channel of ``tests/test_bridge_link.py`` (a clock of its
own, 2 ms each way), the section's default timing: the device resends after 0.1 s and gives
up after 5 sends, so a hold ends at ``MAX_ACK_HOLD`` (0.25 s) at the latest.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_bridge_link import Link, connected_link, of_type, received

from firmware_bridge import (
    MAX_ACK_HOLD,
    CardDrawnReport,
    CoverCardReport,
    HoleCardCancel,
    LinkDown,
    Message,
)

HOLD = MAX_ACK_HOLD
CARD = CardDrawnReport(5, "D", 1)  # five of diamonds, draw 1


def held_link() -> Link:
    link = connected_link()
    link.station.hold_acks(HOLD)
    return link


def report(link: Link, message: Message = CARD, seconds: float = 0.005) -> None:
    """The device sends ``message``; the clock runs ``seconds`` (2 ms on the wire)."""
    link.device.send(message, link.now)
    link.advance(seconds)


def release_all(link: Link) -> None:
    """The station releases everything it delivered; the ack's 2 ms on the wire pass."""
    link.station.release(link.station.receipt, link.now)
    link.advance(0.01)


def test_a_held_ack_goes_out_when_released_and_not_before() -> None:
    link = held_link()
    link.device.send(CARD, link.now)
    link.advance(0.2)  # delivered at once; the device resends it (0.1 s) and waits
    assert received(link.station_events) == [CARD]  # once
    assert link.device.unconfirmed == 1
    assert link.station.stats.duplicates >= 1
    release_all(link)
    assert link.device.unconfirmed == 0
    assert link.station.stats.holds_expired == 0
    assert not of_type(link.device_events, LinkDown)


def test_a_hold_never_released_ends_at_its_limit_and_the_link_stays_up() -> None:
    link = held_link()
    sent_at = link.now
    link.device.send(CARD, link.now)
    link.advance(HOLD - 0.01)  # the hold's last moments: still held
    assert link.device.unconfirmed == 1
    link.advance(0.02)  # past it (sent_at + 2 ms on the wire + HOLD)
    assert link.now > sent_at + HOLD
    assert link.device.unconfirmed == 0
    assert link.station.stats.holds_expired == 1
    assert received(link.station_events) == [CARD]
    assert not of_type(link.device_events, LinkDown)


def test_without_a_hold_the_ack_goes_out_on_arrival() -> None:
    link = connected_link()
    link.device.send(CARD, link.now)
    link.advance(0.02)  # 2 ms each way and the 10 ms held ACK frame
    assert link.device.unconfirmed == 0


def test_a_release_covers_the_messages_up_to_its_receipt_only() -> None:
    link = held_link()
    report(link)
    first = link.station.receipt
    report(link, CoverCardReport(2))
    assert len(received(link.station_events)) == 2
    link.station.release(first, link.now)
    link.advance(0.01)
    assert link.device.unconfirmed == 1  # the cover card's still held
    release_all(link)
    assert link.device.unconfirmed == 0


def test_a_release_behind_or_past_what_was_delivered_changes_nothing() -> None:
    link = held_link()
    for _ in range(3):  # sequence numbers past 0: the receipts are 3, then 4 held
        report(link)
        release_all(link)
    report(link)
    receipt = link.station.receipt
    assert receipt == 4
    link.station.release(3, link.now)  # what was acknowledged already
    link.station.release(5, link.now)  # a message not delivered yet
    assert link.station.data_to_send() == b""  # not even an ACK frame
    link.advance(0.05)
    assert link.device.unconfirmed == 1
    link.station.release(receipt, link.now)
    link.advance(0.01)
    assert link.device.unconfirmed == 0


def test_a_hold_ends_at_its_very_end_and_not_before() -> None:
    link = held_link()
    sent_at = link.now
    report(link)  # on the wire 2 ms: held from then on
    end = link.station.next_deadline()
    assert end == pytest.approx(sent_at + 0.002 + HOLD)  # the hold's end, not the ACK delay
    link.now = end - 0.0001
    link.station.tick(link.now)
    assert link.station.data_to_send() == b""
    link.now = end
    link.station.tick(link.now)
    ack = link.station.data_to_send()
    assert ack != b""  # the ACK frame
    assert link.station.stats.holds_expired == 1
    link.to_device.write(ack, link.now)
    link.advance(0.01)
    assert link.device.unconfirmed == 0
    report(link)  # a second hold, run out too: counted
    link.advance(HOLD + 0.01)
    assert link.station.stats.holds_expired == 2
    assert link.device.unconfirmed == 0


def test_frames_the_station_sends_while_holding_carry_the_last_ack_released() -> None:
    link = held_link()
    report(link)
    link.station.send(HoleCardCancel(), link.now)  # a command goes out meanwhile
    link.advance(0.02)
    assert received(link.device_events) == [HoleCardCancel()]
    assert link.device.unconfirmed == 1  # its header did not acknowledge the report
    assert link.station.unconfirmed == 0  # the device acknowledged the command


def test_a_station_stopped_while_holding_leaves_the_report_unacknowledged() -> None:
    # The station dies before its commit: the device's session ends with the report among
    # the unconfirmed, which it sends first in its next session (section 6a).
    link = held_link()
    report(link, seconds=0.01)
    assert received(link.station_events) == [CARD]
    link.to_device.faults.drop = 1.0  # the station is gone: nothing more comes from it
    link.advance(1.0)
    downs = of_type(link.device_events, LinkDown)
    assert [d.unconfirmed for d in downs] == [(CARD,)]


@pytest.mark.parametrize("seconds", [-0.001, HOLD + 0.001])
def test_a_hold_outside_0_to_the_limit_is_refused(seconds: float) -> None:
    link = connected_link()
    with pytest.raises(ValueError, match="ack hold"):
        link.station.hold_acks(seconds)


@pytest.mark.parametrize("seconds", [0.0, HOLD])
def test_a_hold_of_0_or_the_limit_is_taken(seconds: float) -> None:
    station = connected_link().station
    station.hold_acks(seconds)
    assert station.ack_hold == seconds


def test_an_endpoint_acknowledges_on_arrival_until_asked_to_hold() -> None:
    station = connected_link().station
    assert station.ack_hold == 0.0
    station.hold_acks(0.125)
    assert station.ack_hold == 0.125


@given(st.lists(st.sampled_from(["send", "release", "wait"]), max_size=30))
def test_every_report_is_delivered_once_and_acknowledged_only_once_released_or_held_out(
    script: list[str],
) -> None:
    link = held_link()
    sent: list[CardDrawnReport] = []
    released = 0  # reports delivered when the station last released
    for step in script:
        if step == "send":
            sent.append(CardDrawnReport(7, "S", len(sent) + 1))
            link.device.send(sent[-1], link.now)
            link.advance(0.005)
        elif step == "release":
            link.station.release(link.station.receipt, link.now)
            released = len(received(link.station_events))
            link.advance(0.005)
        else:
            link.advance(0.05)
        delivered = received(link.station_events)
        assert delivered == sent[: len(delivered)]  # in order, never twice
        if link.station.stats.holds_expired == 0:
            # No hold ran out: the device has heard of the released reports at most.
            assert len(sent) - link.device.unconfirmed <= released
    link.station.release(link.station.receipt, link.now)
    link.advance(0.3)
    assert received(link.station_events) == sent
    assert link.device.unconfirmed == 0
