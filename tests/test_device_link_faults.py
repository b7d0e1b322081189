"""What a device link tells the procedure when something is wrong (drivers.device_link):
each fault names the device and carries the details the journal keeps (docs/protocol.md 4b:
"one device fault row in the journal per outage"), one event per outage.

Driven by hand as tests/test_device_link.py drives it: a manual clock, a real device
endpoint, bytes moved explicitly.
"""

from __future__ import annotations

import pytest
from test_device_link import SECRET, Link, forged

import firmware_bridge as fb
from drivers.device_link import ExpectedDevice
from drivers.errors import TransportError, WrongDeviceError
from drivers.hal import DeviceConnected, DeviceFault, DeviceFaultKind, DeviceKind, DeviceLost
from firmware_bridge.link_messages import Hello


def faults(link: Link) -> list[DeviceFault]:
    return [e for e in link.driver.events if isinstance(e, DeviceFault)]


def test_a_refused_serial_number_is_one_fault_with_every_detail_on_both_sides() -> None:
    link = Link(serial="S-9")
    link.driver.link_up("stub")
    link.pump()
    (fault,) = faults(link)
    assert (fault.device, fault.kind) == (DeviceKind.SHOE, DeviceFaultKind.GENERAL)
    assert fault.reason == "shoe refused: serial number 'S-9', configured 'S-1'"
    assert fault.details == {
        "expected_kind": "shoe",
        "expected_serial_number": "S-1",
        "expected_protocol_version": "2",
        "expected_firmware": "fw-2",
        "found_kind": "shoe",
        "found_serial_number": "S-9",
        "found_protocol_version": "2",
        "found_firmware": "fw-2",
    }
    # The port then drops: still the same outage, no DeviceLost on top of the refusal.
    link.driver.link_down(TransportError("unplugged"))
    assert [e for e in link.driver.events if isinstance(e, DeviceLost)] == []
    assert link.driver.link_tick() is None  # no timer runs while the port is closed


def test_a_configured_protocol_version_is_the_one_named() -> None:
    link = Link()
    link.driver.expected = ExpectedDevice("S-1", protocol_version=3, secret=SECRET)
    link.driver.link_up("stub")
    link.pump()
    (fault,) = faults(link)
    assert fault.reason == "shoe refused: protocol version 2, configured 3"
    assert fault.details["expected_protocol_version"] == "3"
    assert "expected_firmware" not in fault.details  # no allow-list configured


def test_a_wrong_device_on_the_port_is_refused_with_the_transports_words() -> None:
    link = Link()
    link.driver.link_down(
        WrongDeviceError(
            "USB 1d50:6021 has serial number B, configured A",
            {"serial_number": "A"},
            {"serial_number": "B"},
        )
    )
    (fault,) = faults(link)
    assert fault.device is DeviceKind.SHOE
    assert fault.reason == "shoe refused: USB 1d50:6021 has serial number B, configured A"


def test_forgeries_fault_the_device_naming_it_and_the_count() -> None:
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    card = fb.encode_message(fb.CoverCardReport(1))[1]
    for _ in range(fb.AUTH_FAILURE_LIMIT):
        link.driver.link_data(forged(fb.CoverCardReport.TYPE_ID, card, 0))
    (fault,) = faults(link)
    assert (fault.device, fault.kind) == (DeviceKind.SHOE, DeviceFaultKind.AUTHENTICATION)
    assert fault.details == {"auth_failures": "3"}


def test_a_command_lost_with_the_port_is_a_fault_naming_the_device() -> None:
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    assert link.driver._send(fb.HoleCardCancel())  # sent; the device never acknowledges it
    link.driver.transport.written.clear()
    link.driver.link_down(TransportError("unplugged"))
    lost = [e for e in link.driver.events if isinstance(e, DeviceLost)]
    assert [(e.device, e.reason) for e in lost] == [(DeviceKind.SHOE, "unplugged")]
    assert [(f.device, f.reason) for f in faults(link)] == [
        (DeviceKind.SHOE, "1 commands not confirmed before the link went down")
    ]


def test_a_command_while_down_is_a_fault_naming_the_device() -> None:
    link = Link()
    assert link.driver._send(fb.StatusQuery()) is False
    (fault,) = faults(link)
    assert fault.device is DeviceKind.SHOE


def test_a_refused_device_is_asked_again_exactly_at_the_retry_interval() -> None:
    link = Link(serial="S-9")
    link.driver.link_up("stub")
    link.pump()  # refused at t=100.0; the driver retries after refusal_retry = 2.0 s
    link.driver.transport.written.clear()
    link.clock[0] = 101.999
    link.driver.link_tick()
    assert bytes(link.driver.transport.written) == b""
    link.clock[0] = 102.0
    link.driver.link_tick()
    hello = bytes(link.driver.transport.written)
    assert hello and fb.decode_frame(hello.strip(b"\0")).type_id == Hello.TYPE_ID


def test_a_sealed_message_the_device_may_not_send_is_a_fault_naming_the_device() -> None:
    # A genuine session, but a frame a shoe never sends (a card reader's answer): it opens
    # under the session's key and is still refused.
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    shoe = link.device.identity
    link.device.identity = fb.Identity(fb.DeviceKind.CARD_READER, shoe.firmware, shoe.serial_number)
    link.device.send(fb.PeekReply(1, fb.PeekAnswerCode.BLACKJACK), link.clock[0])
    link.device.identity = shoe
    link.pump()
    assert [(f.device, f.reason) for f in faults(link)] == [
        (
            DeviceKind.SHOE,
            "unreadable message from the device: PeekReply is not a message this peer may send",
        )
    ]
    # The device's class is told which message it was: a shoe makes an unreadable card
    # report a foreign card (never dealt past), any other an unreadable-message fault.
    assert link.driver.rejected_types == [fb.PeekReply.TYPE_ID]


def test_a_configured_protocol_version_that_matches_connects() -> None:
    link = Link()
    link.driver.expected = ExpectedDevice("S-1", protocol_version=2, secret=SECRET)
    link.driver.link_up("stub")
    link.pump()
    assert link.driver.connected and faults(link) == []


def test_the_allow_list_is_named_in_the_refusal_or_said_to_be_empty() -> None:
    link = Link(firmware="fw-2")
    link.driver.expected = ExpectedDevice(
        "S-1", firmware=frozenset({"fw-3", "fw-1"}), secret=SECRET
    )
    link.driver.link_up("stub")
    link.pump()
    assert faults(link)[-1].reason == (
        "shoe refused: firmware 'fw-2' is not on the allow-list (fw-1, fw-3)"
    )
    assert faults(link)[-1].details["expected_firmware"] == "fw-1, fw-3"
    link = Link(firmware="fw-2")
    link.driver.expected = ExpectedDevice("S-1", firmware=frozenset(), secret=SECRET)
    link.driver.link_up("stub")
    link.pump()
    assert (
        faults(link)[-1].reason == "shoe refused: firmware 'fw-2' is not on the allow-list (none)"
    )


def test_the_configured_timing_decides_when_a_silent_device_is_lost() -> None:
    # tests/test_device_link.py's TIMING: silence_timeout 1.5 s (the default is longer).
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    link.clock[0] += 1.49
    link.driver.link_tick()
    assert link.driver.connected
    link.clock[0] += 0.01
    link.driver.link_tick()
    lost = [e for e in link.driver.events if isinstance(e, DeviceLost)]
    assert [e.reason for e in lost] == ["peer silent for 1.50 s"]


def test_commands_lost_with_a_silent_device_are_named_in_one_fault() -> None:
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    link.driver._send(fb.HoleCardNext(5))
    link.driver._send(fb.HoleCardCancel())
    link.driver.transport.written.clear()  # the device never hears them
    for _ in range(20):
        link.clock[0] += 0.1
        link.driver.link_tick()
        link.driver.transport.written.clear()
    assert [f.reason for f in faults(link)] == [
        "HoleCardNext, HoleCardCancel not confirmed before the link went down"
    ]
    assert all(f.device is DeviceKind.SHOE for f in faults(link))


def test_the_link_thread_wakes_for_the_retry_of_a_refused_device() -> None:
    link = Link(serial="S-9")
    link.driver.link_up("stub")
    link.pump()  # refused at t=100.0, asked again at t=102.0
    link.clock[0] = 101.95
    assert link.driver.link_tick() == pytest.approx(0.05)


def test_a_new_session_starts_the_count_of_forged_frames_again() -> None:
    link = Link()
    link.driver.link_up("stub")
    link.pump()
    card = fb.encode_message(fb.CoverCardReport(1))[1]
    limit = fb.AUTH_FAILURE_LIMIT
    for _ in range(limit - 1):  # one short of the limit in the first session
        link.driver.link_data(forged(fb.CoverCardReport.TYPE_ID, card, 0))
    link.driver.link_down(TransportError("unplugged"))
    link.driver.link_up("stub")
    link.pump()
    assert link.driver.connected
    for _ in range(limit - 1):  # the second session's count starts from nothing
        link.driver.link_data(forged(fb.CoverCardReport.TYPE_ID, card, 0))
    assert faults(link) == []
    link.driver.link_data(forged(fb.CoverCardReport.TYPE_ID, card, 0))
    (fault,) = faults(link)
    assert fault.kind is DeviceFaultKind.AUTHENTICATION
    connected = [e for e in link.driver.events if isinstance(e, DeviceConnected)]
    assert connected == [DeviceConnected(DeviceKind.SHOE, "S-1", "fw-2")] * 2
