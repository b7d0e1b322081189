"""Acknowledged once recorded (docs/protocol.md section 5): a driver asked to hold its acks
(``LinkedDevice.hold_acks_until_committed``) lets the device hear that a report arrived only
once the station says the event it gave is committed (``LinkedDevice.committed``), or once
the hold (``firmware_bridge.MAX_ACK_HOLD``, 0.25 s) runs out.

Driven by hand as tests/test_device_link.py drives it: a manual clock, a real device
endpoint, bytes moved explicitly, no thread. What the device has not heard acknowledged is
its ``unconfirmed`` count. The harness's shoe turns a ``CoverCardReport`` into a
``CoverCardSeen`` event and gives no event for a ``ShoeEmptyReport``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import structlog
from test_device_link import Link

import firmware_bridge as fb
from drivers.device_link import HOLD_WARNING_INTERVAL, RECEIPTS_KEPT
from drivers.errors import TransportError
from drivers.hal import CoverCardSeen, DeviceConnected, DeviceEvent, DeviceFault, DeviceLost


def held(then: Callable[[DeviceEvent], None] | None = None) -> Link:
    """A connected link whose driver holds its acks (as the station's loop asks)."""
    link = Link(then=then)
    link.driver.hold_acks_until_committed()
    link.driver.link_up("stub")
    link.pump()
    assert link.driver.connected
    return link


def report(link: Link, draw: int = 1) -> DeviceEvent:
    """The device reports the cover card; the event the driver gave for it."""
    link.device.send(fb.CoverCardReport(draw), link.clock[0])
    link.pump()
    event = link.driver.events[-1]
    assert isinstance(event, CoverCardSeen)
    return event


def report_giving_no_event(link: Link) -> None:
    before = len(link.driver.events)
    link.device.send(fb.ShoeEmptyReport(1), link.clock[0])
    link.pump()
    assert len(link.driver.events) == before


def test_a_report_is_acknowledged_once_its_event_is_committed_and_at_once() -> None:
    link = held()
    event = report(link)
    assert link.device.unconfirmed == 1  # delivered, not yet recorded: not acknowledged
    link.driver.transport.written.clear()
    link.driver.committed(event)
    # The ack goes out in the commit's own call, not at the link thread's next tick.
    assert link.driver.transport.written
    link.pump()
    assert link.device.unconfirmed == 0
    assert link.driver.stats.holds_expired == 0


def test_only_the_very_event_the_driver_gave_releases_its_report() -> None:
    """The station commits every event of a group on every driver: another driver's
    event, or an equal one the driver never gave, releases nothing."""
    link = held()
    event = report(link)
    link.driver.committed(CoverCardSeen())  # equal, but not the one this report gave
    link.driver.committed(DeviceLost(fb.DeviceKind.SHUFFLER, "unplugged"))
    link.pump()
    assert link.device.unconfirmed == 1
    link.driver.committed(event)
    link.pump()
    assert link.device.unconfirmed == 0


def test_a_commit_acknowledges_its_report_and_those_before_never_those_after() -> None:
    link = held()
    first, second, third = (report(link, draw) for draw in (1, 2, 3))
    assert link.device.unconfirmed == 3
    link.driver.committed(second)  # the journal commits in order: the first is on disk too
    link.pump()
    assert link.device.unconfirmed == 1  # the third still waits for its commit
    link.driver.committed(first)  # already acknowledged: nothing more to release
    link.pump()
    assert link.device.unconfirmed == 1
    link.driver.committed(third)
    link.pump()
    assert link.device.unconfirmed == 0


def test_a_report_giving_no_event_is_acknowledged_at_once_when_nothing_waits() -> None:
    link = held()
    for _ in range(2):  # the second as the first: nothing is left waiting by the first
        report_giving_no_event(link)
        assert link.device.unconfirmed == 0  # nothing to record: no wait for a commit
    assert link.driver.stats.holds_expired == 0


def test_a_report_giving_no_event_waits_for_the_commit_of_the_one_before() -> None:
    """Acks are cumulative: the ack of a later report acknowledges every report before it,
    so a report that gives no event is acknowledged with the event before it, and the
    report after it still waits for its own commit."""
    link = held()
    first = report(link, 1)
    report_giving_no_event(link)
    third = report(link, 2)
    assert link.device.unconfirmed == 3
    link.driver.committed(first)
    link.pump()
    assert link.device.unconfirmed == 1
    link.driver.committed(third)
    link.pump()
    assert link.device.unconfirmed == 0


def test_reads_that_deliver_no_report_do_not_crowd_out_a_waiting_receipt() -> None:
    """The driver keeps a bounded number of receipts (RECEIPTS_KEPT); reads that carry no
    report (line noise here; acks and heartbeats on a live link) keep none, however many
    come between a report and its commit, so the commit still releases the report."""
    link = held()
    event = report(link)
    for _ in range(RECEIPTS_KEPT + 1):
        link.driver.link_data(b"\x00\x07noise\x00")  # fails its CRC: dropped, counted
    assert link.driver.stats.dropped > RECEIPTS_KEPT
    link.driver.committed(event)
    link.pump()
    assert link.device.unconfirmed == 0


def test_a_report_not_committed_is_acknowledged_when_the_hold_runs_out() -> None:
    link = held()
    report(link)
    link.advance(0.24)  # MAX_ACK_HOLD is 0.25 s (docs/protocol.md section 5)
    assert link.device.unconfirmed == 1
    link.advance(0.01)
    assert link.device.unconfirmed == 0
    assert link.driver.stats.holds_expired == 1


def idle(link: Link, seconds: float) -> None:
    """Let ``seconds`` pass in half seconds: the heartbeats keep the session up."""
    for _ in range(round(seconds / 0.5)):
        link.advance(0.5)


def test_holds_that_run_out_are_a_warning_at_most_once_a_minute_a_link() -> None:
    """A slow disk (commits slower than the hold) is news for the maintainer, once a
    minute, with how many holds ran out since the last warning and in all."""
    link = held()
    with structlog.testing.capture_logs() as logs:
        report(link)
        link.advance(0.25)  # the first hold runs out: warned at once (at W)
        for _ in range(3):  # three more within the minute: counted, not warned
            report(link)
            link.advance(0.25)
        idle(link, HOLD_WARNING_INTERVAL - 2.0)  # W + 58.75 s
        report(link)
        link.advance(0.25)  # the fifth runs out at W + 59 s: not warned yet
        idle(link, 1.0)  # W + 60 s: the four since the first warning, without a new one
        report(link)
        link.advance(0.25)  # the sixth, within the minute of the second warning
    warnings = [line for line in logs if line["event"] == "ack hold ran out"]
    assert [(w["since_last"], w["in_all"]) for w in warnings] == [(1, 1), (4, 5)], warnings
    assert {(w["device"], w["log_level"], w["hold_seconds"]) for w in warnings} == {
        ("shoe", "warning", fb.MAX_ACK_HOLD)
    }
    assert link.driver.stats.holds_expired == 6


def test_holds_released_in_time_are_no_warning() -> None:
    link = held()
    with structlog.testing.capture_logs() as logs:
        for draw in range(1, 5):
            event = report(link, draw)
            link.advance(0.2)
            link.driver.committed(event)
            link.pump()
        idle(link, HOLD_WARNING_INTERVAL)
    assert not [line for line in logs if line["event"] == "ack hold ran out"]
    assert link.device.unconfirmed == 0


def test_a_shorter_hold_runs_out_sooner() -> None:
    link = Link()
    link.driver.hold_acks_until_committed(0.125)
    link.driver.link_up("stub")
    link.pump()
    report(link)
    link.advance(0.0625)
    assert link.device.unconfirmed == 1
    link.advance(0.0625)
    assert link.device.unconfirmed == 0


def test_a_hold_longer_than_the_device_waits_is_refused() -> None:
    with pytest.raises(ValueError, match="outside"):
        Link().driver.hold_acks_until_committed(fb.MAX_ACK_HOLD + 0.01)


def test_a_link_not_asked_to_hold_acknowledges_on_arrival() -> None:
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    event = report(link)
    link.advance(0.01)  # a lone ack waits ACK_DELAY (10 ms) for a frame to ride on
    assert link.device.unconfirmed == 0
    assert len(link.driver._receipts) == 0  # nothing kept for a commit that changes nothing
    link.driver.committed(event)  # nothing held: nothing to do, nothing breaks
    assert link.device.unconfirmed == 0


def test_receipts_kept_for_commits_are_bounded_and_the_last_commit_releases_all() -> None:
    """A station that never commits (or commits slower than the hold) must not make the
    driver keep a receipt per report for ever: at most RECEIPTS_KEPT are kept, and a
    commit of the latest report still acknowledges every one."""
    link = held()
    for draw in range(1, RECEIPTS_KEPT + 11):
        report(link, draw)
        link.advance(fb.MAX_ACK_HOLD)  # never committed: acknowledged when its hold runs out
    assert link.device.unconfirmed == 0
    last = report(link, RECEIPTS_KEPT + 11)
    assert len(link.driver._receipts) == RECEIPTS_KEPT
    assert link.device.unconfirmed == 1
    link.driver.committed(last)
    link.pump()
    assert link.device.unconfirmed == 0


def test_a_late_commit_of_the_old_sessions_event_releases_nothing_in_the_new_one() -> None:
    """Unplugged and plugged back: sequence numbers start again, so a receipt of the old
    session would acknowledge the new session's reports before they are recorded."""
    link = held()
    old = report(link, 1)
    link.driver.link_down(TransportError("unplugged"))
    link.driver.link_up("stub")
    link.pump()
    assert link.driver.events[-1] == DeviceConnected(fb.DeviceKind.SHOE, "S-1", "fw-2")
    # The device takes the new session at the station's first sealed frame, its heartbeat
    # (docs/protocol.md 4c); what the old one left unacknowledged it sends again itself.
    link.advance(0.5)
    new = report(link, 2)
    assert link.device.unconfirmed == 1
    link.driver.committed(old)  # the station commits the old event only now
    link.pump()
    assert link.device.unconfirmed == 1
    link.driver.committed(new)
    link.pump()
    assert link.device.unconfirmed == 0


def test_an_unreadable_message_is_acknowledged_once_its_fault_is_committed() -> None:
    # docs/protocol.md section 5: an intact message that cannot be used is acknowledged
    # (its sender must not retry it) and reported: as any report, once recorded.
    link = held()
    shoe = link.device.identity
    link.device.identity = fb.Identity(fb.DeviceKind.CARD_READER, shoe.firmware, shoe.serial_number)
    link.device.send(fb.PeekReply(1, fb.PeekAnswerCode.BLACKJACK), link.clock[0])
    link.device.identity = shoe
    link.pump()
    fault = link.driver.events[-1]
    assert isinstance(fault, DeviceFault)
    assert link.device.unconfirmed == 1
    link.driver.committed(fault)
    link.pump()
    assert link.device.unconfirmed == 0


def test_events_of_one_read_reach_the_station_in_order_after_their_receipt_is_kept() -> None:
    """A station may commit an event the moment it reaches its queue, while the link is
    still delivering the bytes that gave it: the report is still acknowledged by that
    commit, and the events of one read arrive in the order the device sent them."""
    links: list[Link] = []  # the link, once it exists: the station's commit is its driver's

    def commit_at_once(event: DeviceEvent) -> None:
        if links:
            links[0].driver.committed(event)

    link = held(then=commit_at_once)
    links.append(link)
    shoe = link.device.identity
    link.device.send(fb.CoverCardReport(1), link.clock[0])
    link.device.identity = fb.Identity(fb.DeviceKind.CARD_READER, shoe.firmware, shoe.serial_number)
    link.device.send(fb.PeekReply(1, fb.PeekAnswerCode.BLACKJACK), link.clock[0])
    link.device.identity = shoe
    link.driver.link_data(link.device.data_to_send())  # both frames in one read
    seen, fault = link.driver.events[-2:]
    assert isinstance(seen, CoverCardSeen) and isinstance(fault, DeviceFault)
    link.pump()
    assert link.device.unconfirmed == 0  # released by the commits made as they arrived
    assert link.driver.stats.holds_expired == 0
