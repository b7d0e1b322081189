"""The C reference firmware (host build) against a real ``firmware_bridge`` station, and the
attacks the station refuses played against the firmware: forged frames, replays, a
downgrade, an impostor station; pairing consent; the hole card kept across restarts; and
the section 4c rules (an unsealed end of a proven session ignored, the heartbeat request).
"""

from __future__ import annotations

import hashlib
import queue
import time
from pathlib import Path

import pytest
from firmware_support import Bench

import firmware_bridge as fb
from firmware_bridge.auth import Sealer, SessionKeys
from firmware_bridge.frame import (
    FLAG_ACK_NOW,
    FLAG_RELIABLE,
    FLAG_SEALED,
    PROTOCOL_VERSION,
    decode_frame,
    encode_frame,
)
from firmware_bridge.link_messages import Heartbeat, Hello, HelloReply, NoSession, Refused

SEVEN_CARDS = "-1 9H KS 8D 7D 3D QC 6H"


@pytest.fixture
def shoe(tmp_path: Path) -> Bench:
    bench = Bench(tmp_path)
    bench.pair()
    yield bench
    bench.close()


def connected(bench: Bench) -> fb.Endpoint:
    station = bench.connect()
    assert station.connected, bench.events
    return station


def reports(bench: Bench, cls: type) -> list[fb.Message]:
    return [m for m in bench.messages if isinstance(m, cls)]


def test_the_firmware_reports_a_load_and_each_draw_in_order(shoe: Bench) -> None:
    connected(shoe)
    shoe.ask(f"load 2 {SEVEN_CARDS.split(' ', 1)[1]}")
    for _ in range(8):
        shoe.ask("deal")
    shoe.pump_until(lambda: len(shoe.messages) >= 10)
    assert shoe.messages == [
        fb.ShoeLoadedReport(1),
        fb.CardDrawnReport(9, "H", 1),
        fb.CardDrawnReport(13, "S", 2),
        fb.CoverCardReport(3),
        fb.CardDrawnReport(8, "D", 4),
        fb.CardDrawnReport(7, "D", 5),
        fb.CardDrawnReport(3, "D", 6),
        fb.CardDrawnReport(12, "C", 7),
        fb.CardDrawnReport(6, "H", 8),
        fb.ShoeEmptyReport(8),
    ]


def test_the_firmware_refuses_to_pair_without_its_button(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    try:
        with pytest.raises(fb.PairingError, match="hold the device's pairing button"):
            bench.pair(button=False)
        with pytest.raises(fb.PairingError, match="this device is a shoe"):
            bench.pair(kind=fb.DeviceKind.PANEL)
        assert bench.status()["paired"] == "0"
        bench.connect(secret=bytes(32))
        (refusal,) = [e for e in bench.events if isinstance(e, fb.HandshakeRefused)]
        assert refusal.by_peer
        assert refusal.reason == "the device is not paired with a station (dealer-station pair)"
    finally:
        bench.close()


def test_the_panel_board_pairs_only_with_its_key_turned_as_well(tmp_path: Path) -> None:
    bench = Bench(tmp_path, "panel", serial="PNL-7")
    try:
        bench.ask("pair_button 1")
        pairing = fb.StationPairing(fb.DeviceKind.PANEL, "BENCH-1")
        bench.inject(pairing.request())  # the button held, the key not turned
        with pytest.raises(fb.PairingError, match="hold the device's pairing button"):
            for _ in range(50):
                bench._pairing_answer(pairing, 0.1)
        bench.pair()  # key and button: paired
        assert connected(bench).peer == fb.Identity(fb.DeviceKind.PANEL, "sho-2.3.1", "PNL-7")
    finally:
        bench.close()


def test_the_pairing_secret_is_kept_in_flash_across_a_power_cycle(shoe: Bench) -> None:
    shoe.power_cycle()
    assert shoe.status()["station"] == "BENCH-1"
    connected(shoe)  # the proof checks with the secret the station kept


def test_a_forged_frame_is_dropped_and_never_acted_on(shoe: Bench) -> None:
    connected(shoe)
    shoe.ask("load -1 9H KS 8D 7D")
    shoe.pump_until(lambda: bool(reports(shoe, fb.ShoeLoadedReport)))
    # A reveal request with the next sequence number: unsealed, then sealed with a key the
    # forger made up. The firmware must answer neither.
    request = fb.encode_message(fb.HoleCardRevealRequest(bytes(32)))[1]
    frame = fb.Frame(
        PROTOCOL_VERSION, fb.HoleCardRevealRequest.TYPE_ID, 0, FLAG_RELIABLE, 0, request
    )
    shoe.inject(b"\0" + encode_frame(frame))
    sealed = frame._replace(flags=FLAG_RELIABLE | FLAG_SEALED)
    sealer = Sealer(SessionKeys(bytes(32), bytes(16), bytes(16), 2).station_to_device)
    shoe.inject(encode_frame(sealed._replace(payload=sealer.seal(sealed.header(), request))))
    shoe.pump(0.3)
    assert shoe.status()["auth_failures"] == "2"
    assert not reports(shoe, fb.HoleCardRevealReport)
    assert shoe.station is not None and shoe.station.connected


def test_a_replayed_station_frame_is_refused_within_and_across_sessions(shoe: Bench) -> None:
    connected(shoe)
    shoe.ask("load -1 9H KS 8D 7D")
    shoe.sent.clear()
    shoe.send(fb.HoleCardRevealRequest(bytes(range(32))))
    recorded = b"".join(shoe.sent)
    shoe.pump_until(lambda: bool(reports(shoe, fb.HoleCardRevealReport)))
    shoe.inject(recorded)  # the tap plays it again in the same session
    shoe.pump(0.3)
    assert len(reports(shoe, fb.HoleCardRevealReport)) == 1
    assert shoe.status()["auth_failures"] == "1"
    connected(shoe)  # a station restart: a new session, new keys
    shoe.inject(recorded)
    shoe.pump(0.3)
    assert len(reports(shoe, fb.HoleCardRevealReport)) == 1
    assert shoe.status()["auth_failures"] == "2"


def test_a_downgrade_to_protocol_version_1_is_refused(shoe: Bench) -> None:
    old = fb.Identity(fb.DeviceKind.SHOE, "st-0.9", "BENCH-1", protocol_version=1)
    shoe.connect(identity=old)
    (refusal,) = [e for e in shoe.events if isinstance(e, fb.HandshakeRefused)]
    assert refusal.by_peer
    assert refusal.reason == (
        "protocol version 1 of the station is not supported (the device speaks version 2)"
    )
    assert shoe.status()["connected"] == "0"


def test_a_station_expecting_another_kind_is_refused(shoe: Bench) -> None:
    shoe.connect(identity=fb.Identity(fb.DeviceKind.CARD_READER, "st-1.0", "BENCH-1"))
    (refusal,) = [e for e in shoe.events if isinstance(e, fb.HandshakeRefused)]
    assert refusal.reason == (
        "device kind mismatch: the station expects a card_reader, the device is a shoe"
    )


def test_an_impostor_station_without_the_secret_gets_nothing_through(shoe: Bench) -> None:
    impostor = shoe.connect(secret=bytes(range(100, 132)))
    (refusal,) = [e for e in shoe.events if isinstance(e, fb.HandshakeRefused)]
    assert not refusal.by_peer and refusal.authentication  # the device's proof fails
    assert not impostor.connected
    # Its frames, sealed under keys of its own making, are dropped by the firmware.
    hello = next(decode_frame(p) for c in shoe.sent for p in c.split(b"\0") if p)
    assert hello.type_id == Hello.TYPE_ID
    frame = fb.Frame(
        PROTOCOL_VERSION, fb.HoleCardNext.TYPE_ID, 0, FLAG_RELIABLE | FLAG_SEALED, 0, b""
    )
    sealer = Sealer(SessionKeys(bytes(range(100, 132)), bytes(16), bytes(16), 2).station_to_device)
    payload = fb.encode_message(fb.HoleCardNext(2))[1]
    shoe.inject(encode_frame(frame._replace(payload=sealer.seal(frame.header(), payload))))
    shoe.pump(0.3)
    assert shoe.status()["hole_from"] == "0"


def test_the_hole_card_is_withheld_and_revealed_after_a_station_restart(shoe: Bench) -> None:
    connected(shoe)
    shoe.ask("load -1 9H KS 8D 7D")
    for hole in ("", "", "", "hole"):
        shoe.ask(f"deal {hole}".strip())
    shoe.pump_until(lambda: bool(reports(shoe, fb.HoleCardDealtReport)))
    (dealt,) = reports(shoe, fb.HoleCardDealtReport)
    assert dealt.draw == 4
    assert not [m for m in shoe.messages if isinstance(m, fb.CardDrawnReport) and m.rank == 7]
    shoe.power_cycle()  # the shoe's own restart: flash keeps the card
    shoe.messages.clear()
    connected(shoe)  # and a new station session
    shoe.send(fb.HoleCardRevealRequest(dealt.commitment))
    shoe.pump_until(lambda: bool(reports(shoe, fb.HoleCardRevealReport)))
    (reveal,) = reports(shoe, fb.HoleCardRevealReport)
    assert (reveal.rank, reveal.suit) == (7, "D")
    text = f"7D|{reveal.nonce.hex()}".encode()
    assert hashlib.sha256(text).digest() == dealt.commitment  # it opens the commitment


def test_the_firmware_ignores_an_unsealed_refused_once_its_session_is_proven(
    shoe: Bench,
) -> None:
    station = connected(shoe)
    shoe.pump(0.5)  # the station's sealed heartbeats reach the firmware: the session is proven
    payload = fb.encode_message(Refused(shoe.device_session, "forged"))[1]
    shoe.inject(encode_frame(fb.Frame(PROTOCOL_VERSION, Refused.TYPE_ID, 0, 0, 0, payload)))
    shoe.pump(0.5)
    status = shoe.status()
    assert (status["connected"], status["forged_ends"], status["refusals"]) == ("1", "1", "0")
    assert station.connected


def test_a_forged_no_session_does_not_take_the_firmwares_link_down(shoe: Bench) -> None:
    station = connected(shoe)
    forged = encode_frame(fb.Frame(PROTOCOL_VERSION, NoSession.TYPE_ID, 0, 0, 0, b""))
    station.receive_data(forged, time.monotonic())  # written on the station's side
    shoe.pump(1.5)  # three check times: the firmware answered the heartbeat request
    assert station.connected
    assert station.stats.forged_ends == 1
    assert shoe.status()["heartbeat_requests"] == "1"


def test_the_firmware_answers_a_heartbeat_request_at_once(shoe: Bench) -> None:
    station = connected(shoe)
    before = int(shoe.status()["frames_sent"])
    station._s.outbox.append((Heartbeat.TYPE_ID, 0, FLAG_ACK_NOW, b""))  # the request
    shoe.pump(0.05)  # well under the 0.2 s heartbeat interval
    status = shoe.status()
    assert status["heartbeat_requests"] == "1"
    assert int(status["frames_sent"]) == before + 1


# --- section 4c: a HELLO does not end a proven session --------------------------------------


def forged_hello(session: int) -> bytes:
    payload = fb.encode_message(Hello(fb.DeviceKind.SHOE, session, bytes(16), "st-1.0", "T1"))[1]
    return b"\0" + encode_frame(fb.Frame(PROTOCOL_VERSION, Hello.TYPE_ID, 0, 0, 0, payload))


def frames_out(bench: Bench, seconds: float) -> list[fb.Frame]:
    """What the firmware writes within ``seconds``, the station not running meanwhile."""
    out: list[fb.Frame] = []
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        try:
            data = bench.rx.get(timeout=left)
        except queue.Empty:
            break
        out += [decode_frame(p) for p in data.split(b"\0") if p]
    return out


def test_a_restocked_shoe_counts_on_from_the_numbers_it_is_given(shoe: Bench) -> None:
    # The bench's "count LOAD DRAWS" (docs/firmware.md): the counts a shoe kept in its flash
    # across a station's restart (docs/protocol.md, "Draw numbers"); LOAD -1 keeps its own.
    connected(shoe)
    shoe.ask("restock -1 9H KS")
    shoe.ask("count 4 10")
    assert shoe.ask("deal") == "9H"
    shoe.ask("count -1 20")
    assert shoe.ask("deal") == "KS"
    shoe.ask("load -1 7D")
    shoe.pump_until(lambda: len(shoe.messages) >= 4)
    assert shoe.messages == [
        fb.CardDrawnReport(9, "H", 11),
        fb.CardDrawnReport(13, "S", 21),
        fb.ShoeEmptyReport(21),
        fb.ShoeLoadedReport(5),  # one more than load 4
    ]
    for bad in ("count", "count 4", "count -2 0", "count 65536 0", "count 1 65536", "count x 1"):
        with pytest.raises(RuntimeError, match="count: LOAD"):
            shoe.ask(bad)
    shoe.ask("count 65535 65534")  # the top of both ranges taken (65535 is the last draw)
    assert shoe.ask("deal") == "7D"


def test_a_forged_hello_leaves_the_firmwares_session_up(shoe: Bench) -> None:
    station = connected(shoe)
    shoe.ask("load -1 9H KS 8D 7D")
    shoe.pump_until(lambda: bool(reports(shoe, fb.ShoeLoadedReport)))
    sessions = shoe.status()["sessions"]
    shoe.inject(forged_hello(0x5EED))
    assert shoe.ask("deal") == "9H"
    # Pending: the reply to the HELLO goes out, the card's report waits (nothing sealed).
    held = frames_out(shoe, 0.1)
    assert [f.type_id for f in held] == [HelloReply.TYPE_ID]
    assert shoe.status()["pending"] == "1"
    for part in held:  # the station, which never asked, ignores the reply
        station.receive_data(encode_frame(part), time.monotonic())
    # The station's next sealed frame (its heartbeat within 0.2 s) proves the session alive.
    shoe.pump_until(lambda: any(m == fb.CardDrawnReport(9, "H", 1) for m in shoe.messages))
    status = shoe.status()
    assert (status["pending"], status["forged_ends"], status["connected"]) == ("0", "1", "1")
    assert status["sessions"] == sessions and station.connected
    assert not [e for e in shoe.events if isinstance(e, fb.LinkDown)]


def test_a_restarted_station_is_joined_at_its_first_sealed_frame(shoe: Bench) -> None:
    connected(shoe)
    shoe.ask("load -1 9H KS 8D 7D")
    shoe.pump_until(lambda: bool(reports(shoe, fb.ShoeLoadedReport)))
    sessions = int(shoe.status()["sessions"])
    shoe.messages.clear()
    connected(shoe)  # a new station endpoint: the daemon restarted
    assert shoe.ask("deal") == "9H"
    shoe.pump_until(lambda: bool(reports(shoe, fb.CardDrawnReport)))
    status = shoe.status()
    assert (status["pending"], status["forged_ends"]) == ("0", "0")
    assert int(status["sessions"]) == sessions + 1  # the new session, joined
    assert reports(shoe, fb.CardDrawnReport) == [fb.CardDrawnReport(9, "H", 1)]


def test_a_hello_the_firmware_refuses_leaves_its_session_up(shoe: Bench) -> None:
    station = connected(shoe)
    payload = fb.encode_message(Hello(fb.DeviceKind.PANEL, 77, bytes(16), "st-1.0", "T1"))[1]
    shoe.inject(b"\0" + encode_frame(fb.Frame(PROTOCOL_VERSION, Hello.TYPE_ID, 0, 0, 0, payload)))
    (frame,) = [f for f in frames_out(shoe, 0.1) if f.type_id == Refused.TYPE_ID]
    refusal = fb.decode_message(frame.type_id, frame.payload)
    assert isinstance(refusal, Refused) and refusal.echo == 77
    assert "the station expects a panel" in refusal.reason
    shoe.pump(0.5)
    status = shoe.status()
    assert (status["connected"], status["pending"]) == ("1", "0") and station.connected
