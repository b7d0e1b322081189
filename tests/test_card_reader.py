"""CardReaderDriver against CardReaderDouble through pyusb and the simulated backend."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields

import pytest

import firmware_bridge as fb
from controller.rules.cards import Card, parse_card
from drivers.card_reader import CardReaderDriver
from drivers.device_link import ExpectedDevice
from drivers.errors import DriverConfigError
from drivers.hal import (
    DeviceConnected,
    DeviceFault,
    DeviceKind,
    DeviceLost,
    PeekAnswer,
    PeekResult,
    PeekTarget,
)
from drivers.simulated.card_reader import CardReaderDouble
from drivers.simulated.recorder import EventRecorder
from drivers.simulated.rig import FAST_BACKOFF, FAST_TIMING
from drivers.simulated.usb_backend import SimulatedUsbBackend
from drivers.usb_transport import UsbSettings

SERIAL = "READ-0001"
#: The pairing secret the doubles and the drivers share in these tests.
SECRET = bytes(range(32))


class Rig:
    def __init__(self, *, usb_serial: str | None = None, connect: bool = True) -> None:
        self.events = EventRecorder()
        self.backend = SimulatedUsbBackend()
        self.double = CardReaderDouble(
            self.backend,
            SERIAL,
            usb_serial=usb_serial,
            timing=FAST_TIMING,
            seed=5,
            secret=SECRET,
        )
        self.driver = CardReaderDriver(
            self.double.settings,
            self.events,
            expected=ExpectedDevice(self.double.settings.serial_number, secret=SECRET),
            backend=self.backend,
            timing=FAST_TIMING,
            backoff=FAST_BACKOFF,
            refusal_retry=0.05,
        )
        if connect:
            self.driver.start()
            assert self.events.expect(DeviceConnected).device is DeviceKind.CARD_READER

    def peek(self, target: PeekTarget) -> PeekAnswer:
        self.driver.check(target)
        return self.events.expect(PeekResult).answer

    def close(self) -> None:
        self.driver.close()
        self.double.close()


@pytest.fixture
def rig() -> Iterator[Rig]:
    r = Rig()
    yield r
    r.close()


@pytest.mark.parametrize(
    ("hole", "target", "answer"),
    [
        ("KS", PeekTarget.LOOKING_FOR_TEN, PeekAnswer.BLACKJACK),
        ("JD", PeekTarget.LOOKING_FOR_TEN, PeekAnswer.BLACKJACK),
        ("9D", PeekTarget.LOOKING_FOR_TEN, PeekAnswer.NO_BLACKJACK),
        ("AS", PeekTarget.LOOKING_FOR_TEN, PeekAnswer.NO_BLACKJACK),
        ("AH", PeekTarget.LOOKING_FOR_ACE, PeekAnswer.BLACKJACK),
        ("QH", PeekTarget.LOOKING_FOR_ACE, PeekAnswer.NO_BLACKJACK),
    ],
)
def test_reader_answers_blackjack_or_not(
    rig: Rig, hole: str, target: PeekTarget, answer: PeekAnswer
) -> None:
    rig.double.set_hole_card(parse_card(hole))
    assert rig.peek(target) is answer


def test_empty_reader_and_misread(rig: Rig) -> None:
    assert rig.peek(PeekTarget.LOOKING_FOR_ACE) is PeekAnswer.NO_CARD
    rig.double.set_hole_card(parse_card("AC"))
    rig.double.misread(1)
    assert rig.peek(PeekTarget.LOOKING_FOR_ACE) is PeekAnswer.READ_ERROR
    assert rig.peek(PeekTarget.LOOKING_FOR_ACE) is PeekAnswer.BLACKJACK


def test_slow_answer_arrives_once(rig: Rig) -> None:
    rig.double.set_hole_card(parse_card("KC"))
    rig.double.reply_delay = 0.15
    assert rig.peek(PeekTarget.LOOKING_FOR_TEN) is PeekAnswer.BLACKJACK
    assert rig.double.wait_idle()
    assert rig.double.checks == 1
    assert rig.events.pending() == []


def test_unplug_replug_then_check(rig: Rig) -> None:
    rig.double.set_hole_card(parse_card("5S"))
    rig.double.unplug()
    assert rig.events.expect(DeviceLost).device is DeviceKind.CARD_READER
    rig.driver.check(PeekTarget.LOOKING_FOR_ACE)
    assert "not sent" in rig.events.expect(DeviceFault).reason
    rig.double.plug()
    rig.events.expect(DeviceConnected)
    assert rig.peek(PeekTarget.LOOKING_FOR_ACE) is PeekAnswer.NO_BLACKJACK


def test_corrupted_and_duplicated_frames_do_not_repeat_an_answer(rig: Rig) -> None:
    rig.double.set_hole_card(parse_card("AD"))
    rig.double.noise.corrupt_next(2)
    rig.double.duplicate_acks(2)
    assert rig.peek(PeekTarget.LOOKING_FOR_ACE) is PeekAnswer.BLACKJACK
    rig.double.drop_acks(2)
    assert rig.peek(PeekTarget.LOOKING_FOR_ACE) is PeekAnswer.BLACKJACK
    assert rig.double.wait_idle()
    assert rig.double.checks == 2
    assert rig.events.pending() == []


def test_silent_reader_is_lost_and_recovers(rig: Rig) -> None:
    rig.double.silent = True
    assert "silent" in rig.events.expect(DeviceLost).reason
    rig.double.silent = False
    rig.events.expect(DeviceConnected)
    rig.double.set_hole_card(parse_card("JS"))
    assert rig.peek(PeekTarget.LOOKING_FOR_TEN) is PeekAnswer.BLACKJACK


def test_wrong_usb_serial_is_refused_naming_both() -> None:
    rig = Rig(usb_serial="READ-0666", connect=False)
    try:
        rig.driver.start()
        fault = rig.events.expect(DeviceFault)
        assert fault.details == {
            "expected_serial_number": SERIAL,
            "found_serial_number": "READ-0666",
        }
    finally:
        rig.close()


def test_wrong_hello_serial_and_old_version_are_refused() -> None:
    rig = Rig(connect=False)
    try:
        rig.double.hello_serial = "READ-0002"
        rig.driver.start()
        fault = rig.events.expect(DeviceFault)
        assert fault.details["found_serial_number"] == "READ-0002"
        rig.double.hello_serial = SERIAL
        rig.double.wire_version = 0
        fault = rig.events.expect(DeviceFault)
        assert "protocol version 0" in fault.reason
        rig.double.wire_version = 2
        rig.events.expect(DeviceConnected)
    finally:
        rig.close()


def test_no_event_or_frame_carries_the_hole_card(rig: Rig) -> None:
    # PA 635a.7(g), NJ 13:69F-19.7(i): the station learns blackjack or not, nothing else.
    hole = parse_card("QD")
    rig.double.set_hole_card(hole)
    sent: list[bytes] = []
    transmit = rig.double.transmit
    rig.double.transmit = lambda data: sent.append(data) or transmit(data)
    rig.double.wire_log = []
    rig.peek(PeekTarget.LOOKING_FOR_TEN)
    assert rig.double.wait_idle()
    for event in rig.events.history:
        for field in fields(event):
            value = getattr(event, field.name)
            assert not isinstance(value, Card), event
            assert hole.text not in str(value), event
    replies = [m for m in rig.double.commands if isinstance(m, fb.PeekRequest)]
    assert len(replies) == 1
    # The reply frame is 3 payload bytes: request number and answer code, no rank.
    assert all(bytes([int(hole.rank)]) + b"D" not in frame for frame in sent)
    assert rig.double.wire_log  # what the station sent is kept for the HIL exposure check


def test_answer_repeated_after_a_lost_session_is_not_a_second_result(rig: Rig) -> None:
    rig.double.set_hole_card(parse_card("7H"))
    # Every ack of the answer is lost: the reader gives up its session with the answer
    # unconfirmed and sends it again in the next one.
    rig.double.drop_acks(FAST_TIMING.max_tries)
    assert rig.peek(PeekTarget.LOOKING_FOR_ACE) is PeekAnswer.NO_BLACKJACK
    rig.events.expect(DeviceLost)
    rig.events.expect(DeviceConnected)
    assert rig.double.wait_idle()
    assert rig.double.sessions == 2
    assert rig.peek(PeekTarget.LOOKING_FOR_ACE) is PeekAnswer.NO_BLACKJACK
    assert [e for e in rig.events.history if isinstance(e, PeekResult | DeviceFault)] == [
        PeekResult(PeekAnswer.NO_BLACKJACK)
    ] * 2


def test_an_answer_to_another_question_is_a_fault_never_a_result(rig: Rig) -> None:
    # The driver's docstring promises it. The reader answers
    # "request N+1" to request N: a question the station never asked.
    rig.double.set_hole_card(parse_card("AS"))
    rig.double.answer_other_request(1)
    rig.driver.check(PeekTarget.LOOKING_FOR_TEN)
    fault = rig.events.next()
    assert isinstance(fault, DeviceFault) and fault.device is DeviceKind.CARD_READER
    assert fault.reason == "answer to request 2, expected 1"
    # The question still outstanding is answered properly next time.
    assert rig.peek(PeekTarget.LOOKING_FOR_ACE) is PeekAnswer.BLACKJACK
    assert rig.events.pending() == []


def test_an_answer_when_no_question_is_outstanding_is_a_fault(rig: Rig) -> None:
    # PA 635a.7(g): the reader answers the question asked, nothing else: an answer nobody
    # asked for is a fault, never a result.
    rig.double._reply(fb.PeekReply(7, fb.PeekAnswerCode.BLACKJACK))
    fault = rig.events.expect(DeviceFault)
    assert (fault.device, fault.reason) == (
        DeviceKind.CARD_READER,
        "answer to request 7, no question outstanding",
    )
    assert [e for e in rig.events.history if isinstance(e, PeekResult)] == []


def test_an_answered_question_is_no_longer_outstanding(rig: Rig) -> None:
    # PA 635a.7(g): one question, one answer. Once the reader has answered, a further
    # answer (another request number) answers nothing: a fault, never a second result.
    rig.double.set_hole_card(parse_card("9D"))
    assert rig.peek(PeekTarget.LOOKING_FOR_TEN) is PeekAnswer.NO_BLACKJACK
    rig.double._reply(fb.PeekReply(7, fb.PeekAnswerCode.BLACKJACK))
    fault = rig.events.expect(DeviceFault)
    assert (fault.device, fault.reason) == (
        DeviceKind.CARD_READER,
        "answer to request 7, no question outstanding",
    )
    assert [e for e in rig.events.history if isinstance(e, PeekResult)] == [
        PeekResult(PeekAnswer.NO_BLACKJACK)
    ]


def test_a_message_the_reader_has_no_business_sending_is_a_fault(rig: Rig) -> None:
    rig.double._reply(fb.EchoReply(b"hello"))
    fault = rig.events.expect(DeviceFault)
    assert (fault.device, fault.reason) == (
        DeviceKind.CARD_READER,
        "unexpected EchoReply from the reader",
    )


def test_the_usb_serial_and_the_hello_serial_must_agree() -> None:
    backend = SimulatedUsbBackend()
    settings = CardReaderDouble(backend, SERIAL, secret=SECRET)
    try:
        with pytest.raises(DriverConfigError) as caught:
            CardReaderDriver(
                settings.settings,
                EventRecorder(),
                expected=ExpectedDevice("READ-0002"),
                backend=backend,
            )
        assert str(caught.value) == "USB serial 'READ-0001' and HELLO serial 'READ-0002' differ"
    finally:
        settings.close()


def test_the_reader_link_is_named_after_the_device(rig: Rig) -> None:
    # The link's name is in every log line of the transport and names its thread.
    assert rig.driver.transport.name == "card_reader"


def test_the_request_number_wraps_to_zero_after_65535(rig: Rig) -> None:
    # The request number is 16 bits on the wire (docs/protocol.md): after 65535 checks in
    # one run the next is 0, and it is still answered.
    rig.driver._request = 0xFFFF
    rig.double.set_hole_card(parse_card("AH"))
    assert rig.peek(PeekTarget.LOOKING_FOR_ACE) is PeekAnswer.BLACKJACK
    assert rig.events.pending() == []


def test_a_check_that_could_not_be_sent_leaves_no_question_outstanding() -> None:
    # The reader is away: the check is a fault, and an answer arriving later answers
    # nothing (PA 635a.7(g): only the question asked is answered).
    backend = SimulatedUsbBackend()
    events = EventRecorder()
    settings = UsbSettings(0x1209, 0x5321, SERIAL)
    driver = CardReaderDriver(settings, events, expected=ExpectedDevice(SERIAL), backend=backend)
    driver.check(PeekTarget.LOOKING_FOR_ACE)
    assert events.expect(DeviceFault).reason.startswith("PeekRequest not sent: ")
    late = fb.PeekReply(1, fb.PeekAnswerCode.BLACKJACK)
    assert list(driver._on_message(late)) == [
        DeviceFault(DeviceKind.CARD_READER, "answer to request 1, no question outstanding")
    ]
