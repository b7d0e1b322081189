"""The reliable-delivery rules of docs/protocol.md section 5, one side at a time.

``tests/test_bridge_link.py`` runs two endpoints over a lossy channel; these tests hold the
sender's window (``SendWindow``) and the receiver's sequence check (``ReceiveSequence``) to
the section's numbers directly: 8 frames in flight, 256 queued behind them, a cumulative
ack, a resend of every unacked frame 0.1 s after the oldest one's last send, 5 sends before
the link is down, and a sequence number compared modulo 256 (1..128 behind: a duplicate;
ahead: out of order). Expected values are worked by hand from the section.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import EchoRequest, SendQueueFullError, Timing
from firmware_bridge.reliable import Arrival, Outgoing, ReceiveSequence, SendWindow

TIMING = Timing()  # the section's defaults: window 8, 256 queued, 0.1 s, 5 sends


def msg(n: int) -> EchoRequest:
    return EchoRequest(bytes([n % 256]))


def fill(window: SendWindow, count: int, now: float = 0.0) -> list[Outgoing | None]:
    return [window.submit(0x70, bytes([n % 256]), msg(n), now) for n in range(count)]


# --- the receiver ------------------------------------------------------------------------


def test_the_receiver_delivers_the_expected_frame_and_then_expects_the_next() -> None:
    rx = ReceiveSequence()
    assert rx.expected == 0  # each session and direction counts from 0
    assert rx.arrive(0) is Arrival.NEW
    assert rx.expected == 1
    assert rx.arrive(0) is Arrival.DUPLICATE  # the same frame again: its ack was lost
    assert rx.expected == 1
    assert rx.arrive(2) is Arrival.OUT_OF_ORDER  # frame 1 was lost
    assert rx.expected == 1
    assert rx.arrive(1) is Arrival.NEW
    assert rx.expected == 2


def test_the_receivers_sequence_wraps_from_255_to_0() -> None:
    rx = ReceiveSequence()
    rx.expected = 255
    assert rx.arrive(255) is Arrival.NEW
    assert rx.expected == 0
    assert rx.arrive(0) is Arrival.NEW
    assert rx.arrive(255) is Arrival.DUPLICATE  # two behind across the wrap


@pytest.mark.parametrize(
    ("seq", "arrival"),
    [
        (99, Arrival.DUPLICATE),  # 1 behind
        (228, Arrival.DUPLICATE),  # 128 behind (100 - 128 = -28 = 228 mod 256): the last duplicate
        (227, Arrival.OUT_OF_ORDER),  # 129 behind is 127 ahead: skipped past a loss
        (101, Arrival.OUT_OF_ORDER),  # 1 ahead
        (100, Arrival.NEW),
    ],
)
def test_a_sequence_number_1_to_128_behind_is_a_duplicate_and_any_other_is_out_of_order(
    seq: int, arrival: Arrival
) -> None:
    rx = ReceiveSequence()
    rx.expected = 100
    assert rx.arrive(seq) is arrival
    assert rx.expected == (101 if arrival is Arrival.NEW else 100)


@given(st.integers(0, 255), st.integers(0, 255))
def test_the_receiver_classifies_every_pair_as_the_section_says(expected: int, seq: int) -> None:
    rx = ReceiveSequence()
    rx.expected = expected
    behind = (expected - seq) % 256
    want = (
        Arrival.NEW
        if behind == 0
        else Arrival.DUPLICATE
        if 1 <= behind <= 128
        else Arrival.OUT_OF_ORDER
    )
    assert rx.arrive(seq) is want


# --- the sender: the window and the queue ---------------------------------------------------


def test_eight_frames_go_out_numbered_from_0_and_the_ninth_waits() -> None:
    window = SendWindow(TIMING)
    assert window.next_seq == 0
    sent = fill(window, 9)
    assert [o.seq for o in sent[:8] if o is not None] == list(range(8))
    assert all(o is not None and o.tries == 1 and o.sent_at == 0.0 for o in sent[:8])
    assert sent[8] is None
    assert (len(window), window.waiting, window.next_seq) == (9, 1, 8)


@pytest.mark.parametrize("max_pending", [0, 2])
def test_the_queue_behind_the_window_takes_max_pending_messages_and_refuses_the_next(
    max_pending: int,
) -> None:
    window = SendWindow(Timing(window=1, max_pending=max_pending))
    fill(window, 1 + max_pending)  # one in flight, the queue full
    assert window.waiting == max_pending
    with pytest.raises(SendQueueFullError, match=f"{max_pending} messages already wait"):
        window.submit(0x70, b"x", msg(99), 0.0)
    assert len(window) == 1 + max_pending  # nothing dropped, nothing added


def test_the_default_queue_holds_256_messages_behind_the_window() -> None:
    window = SendWindow(TIMING)
    fill(window, 8 + 256)
    with pytest.raises(SendQueueFullError):
        window.submit(0x70, b"x", msg(0), 0.0)


def test_the_sequence_numbers_of_the_sender_wrap_from_255_to_0() -> None:
    window = SendWindow(Timing(window=1, max_pending=0))
    for n in range(256):
        out = window.submit(0x70, b"", msg(n), 0.0)
        assert out is not None and out.seq == n
        assert window.on_ack((n + 1) % 256, 0.0) == []
    assert window.next_seq == 0
    out = window.submit(0x70, b"", msg(0), 0.0)
    assert out is not None and out.seq == 0


# --- the sender: acks ---------------------------------------------------------------------


def test_a_cumulative_ack_frees_every_frame_before_it_and_launches_the_queued_ones() -> None:
    window = SendWindow(TIMING)
    fill(window, 12)  # 0..7 in flight, four queued
    launched = window.on_ack(3, 0.05)  # frames 0, 1 and 2 arrived: three places free
    assert [(o.seq, o.payload, o.tries, o.sent_at) for o in launched] == [
        (8, bytes([8]), 1, 0.05),
        (9, bytes([9]), 1, 0.05),
        (10, bytes([10]), 1, 0.05),
    ]
    assert (len(window), window.waiting, window.next_seq) == (9, 1, 11)  # the fourth waits
    # What is left unconfirmed is frames 3..10 and the one queued, in order.
    assert window.take_unconfirmed() == tuple(msg(n) for n in range(3, 12))


def test_an_ack_of_every_frame_in_flight_empties_the_window() -> None:
    window = SendWindow(TIMING)
    fill(window, 8)
    assert window.on_ack(8, 0.01) == []
    assert len(window) == 0
    assert window.deadline() is None


@pytest.mark.parametrize(
    "ack",
    [
        0,  # the oldest frame in flight itself: nothing new acknowledged
        9,  # one past the last frame sent: nonsense
        200,  # far off
    ],
)
def test_a_stale_or_nonsense_ack_changes_nothing(ack: int) -> None:
    window = SendWindow(TIMING)
    fill(window, 10)  # 0..7 in flight, 8 and 9 queued
    assert window.on_ack(ack, 0.05) == []
    assert (len(window), window.waiting) == (10, 2)
    assert window.deadline() == pytest.approx(0.1)


def test_an_ack_with_nothing_in_flight_is_ignored() -> None:
    window = SendWindow(TIMING)
    assert window.on_ack(1, 0.0) == []
    assert len(window) == 0


def test_after_an_ack_the_new_oldest_frame_gets_a_full_timeout_from_then() -> None:
    window = SendWindow(TIMING)
    fill(window, 2, now=0.0)
    window.on_ack(1, 0.08)  # frame 0 acked at 80 ms; frame 1 went out at 0
    # Frame 1 is resent 0.1 s after the ack (0.18), not 0.1 s after its send (0.10).
    assert window.deadline() == pytest.approx(0.18)
    assert window.resend(0.17) == []
    assert [o.seq for o in window.resend(0.18)] == [1]


# --- the sender: resends and link down ----------------------------------------------------


def test_the_oldest_frames_timeout_resends_every_frame_in_flight_in_order() -> None:
    window = SendWindow(TIMING)
    fill(window, 10)
    assert window.deadline() == pytest.approx(0.1)
    assert window.resend(0.099) == []  # one side of the timeout
    resent = window.resend(0.1)  # the other
    assert [o.seq for o in resent] == list(range(8))  # go-back-N; the queued two wait
    assert all(o.tries == 2 and o.sent_at == 0.1 for o in resent)
    assert window.deadline() == pytest.approx(0.2)
    assert window.resend(0.15) == []


def test_the_fifth_send_timing_out_is_the_link_down_and_not_the_fourth() -> None:
    window = SendWindow(TIMING)
    fill(window, 1)
    now = 0.0
    for _ in range(4):  # sends 2 to 5
        now += 0.1
        assert window.expired(now) is None
        assert len(window.resend(now)) == 1
    assert window.expired(now + 0.099) is None  # the fifth send has not timed out yet
    oldest = window.expired(now + 0.1)
    assert oldest is not None and (oldest.seq, oldest.tries) == (0, 5)


def test_a_frame_with_tries_left_has_not_expired_at_its_timeout() -> None:
    window = SendWindow(Timing(max_tries=2))
    fill(window, 1)
    assert window.expired(0.1) is None  # one send: another is due, not the link down
    window.resend(0.1)
    assert window.expired(0.199) is None
    assert window.expired(0.2) is not None


def test_nothing_expires_or_is_resent_with_nothing_in_flight() -> None:
    window = SendWindow(TIMING)
    assert window.expired(10.0) is None
    assert window.resend(10.0) == []
    assert window.deadline() is None


def test_the_link_down_reports_every_unacknowledged_message_oldest_first() -> None:
    window = SendWindow(Timing(window=2))
    fill(window, 4)  # 0 and 1 in flight, 2 and 3 queued
    assert window.take_unconfirmed() == (msg(0), msg(1), msg(2), msg(3))
    assert (len(window), window.waiting, window.deadline()) == (0, 0, None)
    assert window.take_unconfirmed() == ()
