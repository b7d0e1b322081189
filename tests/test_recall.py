"""Game recall rebuilds rounds from journal rows written through the API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.journal.recall import money, recall, render_text
from controller.journal.store import Journal, JournalReader
from controller.rules.cards import parse_card
from controller.table.holecard import commit_hole_card


def card(
    journal: Journal, round_no: int, seat: int | None, role: str, text: str, *, hand: int = 1
) -> None:
    journal.append(
        "card",
        {"seat": seat, "hand": None if seat is None else hand, "role": role, "card": text},
        round_no,
    )


def play_round(journal: Journal, round_no: int) -> None:
    """A PA round: two seats, Match, a split, a peek, settlement."""
    r = round_no
    journal.append(
        "round_started",
        {
            "round": r,
            "seats": [
                {"seat": 1, "wager_cents": 2500, "match_cents": 500},
                {"seat": 3, "wager_cents": None, "match_cents": None},
            ],
        },
        r,
    )
    card(journal, r, 1, "initial", "8S")
    card(journal, r, 3, "initial", "5H")
    card(journal, r, None, "up", "KH")
    card(journal, r, 1, "initial", "8D")
    card(journal, r, 3, "initial", "9C")
    commitment, nonce = commit_hole_card(parse_card("7C"))
    journal.append("hole_card_dealt", {"commitment": commitment}, r)
    journal.append("match_settled", {"seat": 1, "matches": 0, "odds": None, "net_cents": -500}, r)
    journal.append("peek", {"target": "looking_for_ace", "answer": "no_blackjack"}, r)
    journal.append("decision", {"seat": 1, "hand": 1, "decision": "split"}, r)
    card(journal, r, 1, "split", "3S", hand=1)
    journal.append("decision", {"seat": 1, "hand": 1, "decision": "stand"}, r)
    card(journal, r, 1, "split", "KD", hand=2)
    journal.append("decision", {"seat": 1, "hand": 2, "decision": "stand"}, r)
    journal.append("decision", {"seat": 3, "hand": 1, "decision": "hit"}, r)
    card(journal, r, 3, "hit", "7S")
    journal.append("hole_card_revealed", {"card": "7C", "nonce": nonce}, r)
    for seat, hand, cards, total, outcome, net in [
        (1, 1, ["8S", "3S"], 11, "lose", -2500),
        (1, 2, ["8D", "KD"], 18, "lose", -2500),
        (3, 1, ["5H", "9C", "7S"], 21, "win", None),
    ]:
        journal.append(
            "settlement",
            {
                "seat": seat,
                "hand": hand,
                "cards": cards,
                "total": total,
                "outcome": outcome,
                "odds": "1:1",
                "bonus": None,
                "super_bonus_cents": 0,
                "net_cents": net,
            },
            r,
        )
    journal.append("seat_result", {"seat": 1, "net_cents": -5500}, r)
    journal.append("round_completed", {"reshuffle": False}, r)


@pytest.fixture(scope="module")
def journal_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Written once: the tests only read it."""
    path = tmp_path_factory.mktemp("recall") / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("station_started", {"version": "0.1.0", "table_id": "T7", "decks": 6})
        journal.append("shuffle_done", {"card_count": 288, "per_rank": {"1": 24}})
        journal.append("burn", {"card": "4S", "reason": "load"})
        journal.append("prompt", {"state": "bets", "lamps": {"bets": "blink"}})  # not recalled
        for r in range(1, 13):
            play_round(journal, r)
        # Between rounds: a dealer change and its burn, disclosed on request.
        journal.append("dealer_change", {})
        journal.append("burn", {"card": "QC", "reason": "dealer_change"})
        journal.append("burn_disclosed", {"card": "QC"})
        # Round 13: a fault, resolved by voiding the round.
        journal.append("round_started", {"round": 13, "seats": [{"seat": 2}]}, 13)
        card(journal, 13, 2, "initial", "AS")
        journal.append(
            "fault",
            {"code": "card_out_of_order", "message": "unexpected card 9D", "state": "deal"},
            13,
        )
        journal.append("fault_resolved", {"resolution": "void"}, 13)
        journal.append("round_voided", {"reason": "supervisor void after a fault"}, 13)
        # Round 14 is still being played: the hole card is sealed.
        journal.append("round_started", {"round": 14, "seats": [{"seat": 5}]}, 14)
        card(journal, 14, 5, "initial", "6H")
        card(journal, 14, None, "up", "AD")
        commitment, _nonce = commit_hole_card(parse_card("KS"))
        journal.append("hole_card_dealt", {"commitment": commitment}, 14)
        journal.append("insurance", {"seat": 5, "cents": 500, "outcome": "pending"}, 14)
        journal.append("cover_card", {}, 14)
        # After the last round: the shoe was lost and a fault is open.
        journal.append("device", {"device": "shoe", "status": "lost", "reason": "unplugged"})
        journal.append("fault", {"code": "device_lost", "message": "shoe", "state": "idle"})
    return path


def recalled(path: Path, count: int = 10) -> dict[str, Any]:
    with JournalReader.open(path) as reader:
        return recall(reader, count)


def test_the_last_n_rounds(journal_path: Path) -> None:
    rounds = recalled(journal_path)["rounds"]
    assert [r["round"] for r in rounds] == list(range(5, 15))
    assert [r["round"] for r in recalled(journal_path, 3)["rounds"]] == [12, 13, 14]
    assert len(recalled(journal_path, 100)["rounds"]) == 14


def test_a_completed_round(journal_path: Path) -> None:
    r = recalled(journal_path, 14)["rounds"][0]
    assert r["status"] == "completed" and not r["reshuffle"]
    # What led up to the first round: the start, the shuffle and the load burn.
    assert [e["kind"] for e in r["before"]] == ["station_started", "shuffle_done", "burn"]
    assert [c["card"] for c in r["dealer"]["cards"]] == ["KH", "7C"]
    assert r["dealer"]["hole"]["card"] == "7C"
    assert r["peeks"] == [{"target": "looking_for_ace", "answer": "no_blackjack"}]
    seat1, seat3 = r["seats"]
    assert (seat1["wager_cents"], seat1["match_cents"], seat1["net_cents"]) == (2500, 500, -5500)
    assert seat1["match"] == {"matches": 0, "odds": None, "net_cents": -500}
    assert [h["cards"] for h in seat1["hands"]] == [["8S", "3S"], ["8D", "KD"]]
    assert [h["decisions"] for h in seat1["hands"]] == [["split", "stand"], ["stand"]]
    assert seat1["hands"][1]["settlement"]["total"] == 18
    assert seat3["hands"][0]["cards"] == ["5H", "9C", "7S"]
    assert seat3["hands"][0]["settlement"]["outcome"] == "win"


def test_burns_faults_and_resolutions(journal_path: Path) -> None:
    r12, r13, r14 = recalled(journal_path, 3)["rounds"]
    assert [e["kind"] for e in r12["before"]] == []
    burn = r13["before"][1]
    assert (burn["card"], burn["reason"], burn["disclosed"]) == ("QC", "dealer_change", True)
    assert r13["status"] == "voided" and r13["voided"] == "supervisor void after a fault"
    (fault,) = r13["faults"]
    assert fault["code"] == "card_out_of_order" and fault["resolution"] == "void"
    assert r14["status"] == "in_progress" and r14["cover_card"]
    assert r14["seats"][0]["insurance"] == {"cents": 500, "outcome": "pending"}


def test_the_hole_card_stays_sealed_until_revealed(journal_path: Path) -> None:
    r14 = recalled(journal_path, 1)["rounds"][0]
    hole = r14["dealer"]["hole"]
    assert hole["card"] is None and len(hole["commitment"]) == 64
    text = render_text(recalled(journal_path, 1))
    assert "AD [hole]" in text and "KS" not in text
    assert f"hole card sealed, commitment {hole['commitment']}" in text


def test_events_after_the_last_round(journal_path: Path) -> None:
    after = recalled(journal_path)["after"]
    assert [e["kind"] for e in after] == ["device", "fault"]
    assert after[1]["resolution"] is None


def test_text(journal_path: Path) -> None:
    text = render_text(recalled(journal_path, 14))
    assert "Round 1  " in text and "completed" in text
    assert "before the round:" in text and "burn card=4S reason=load" in text
    assert "dealer: KH 7C(hole)" in text
    assert "seat 1: wager $25.00, match $5.00, net -$55.00" in text
    assert "match the dealer: no match, net -$5.00" in text
    assert "hand 1: 8S 3S  decisions: split, stand" in text
    assert "hand 2: 8D KD  decisions: stand" in text
    assert "seat 3: wager ?" in text and "21: win at 1:1, net ?" in text
    assert "FAULT card_out_of_order in deal: unexpected card 9D -> void" in text
    assert "voided (supervisor void after a fault)" in text
    assert "Since the last round:" in text and "fault code=device_lost" in text


def test_an_empty_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal.open(path).close()
    assert recalled(path) == {"rounds": [], "after": []}
    assert render_text(recalled(path)) == "no rounds in the journal"


@pytest.mark.parametrize(
    ("cents", "signed", "text"),
    [(1250, False, "$12.50"), (5, True, "+$0.05"), (-5500, True, "-$55.00"), (None, True, "?")],
)
def test_money(cents: int | None, signed: bool, text: str) -> None:
    assert money(cents, signed=signed) == text


def test_recall_of_engine_rounds_matches_every_settled_hand(tmp_path: Path) -> None:
    """Rounds played by the procedure (random decisions: splits, resplits, doubles) recall
    with each hand's cards exactly as the settlement row lists them."""
    import random
    import tempfile

    from controller.rules.profiles import get_profile
    from controller.simulation.dealer import random_chooser
    from controller.simulation.direct import DirectRig

    shm = Path("/dev/shm")  # fsync-free: this test is about recall, not the disk
    directory = Path(tempfile.mkdtemp(dir=shm)) if shm.is_dir() else tmp_path
    path = directory / "journal.sqlite3"
    rng = random.Random(12)
    with Journal.open(path) as journal:
        rig = DirectRig(get_profile("NY"), 8, journal, random_chooser(rng), rng)
        rig.play(120)
        rig.close()
    with JournalReader.open(path) as reader:
        rounds = recall(reader, 200)["rounds"]
        settlements = [r for r in reader.rows() if r.kind == "settlement" and r.data.get("hand")]
    hands = {
        (r["round"], seat["seat"], hand["hand"]): hand["cards"]
        for r in rounds
        for seat in r["seats"]
        for hand in seat["hands"]
    }
    assert len(settlements) > 500
    splits = 0
    for row in settlements:
        data = row.data
        assert hands[row.round_no, data["seat"], data["hand"]] == data["cards"]
        splits += data["hand"] > 1
    assert splits > 10, "the rounds must include split hands"
    for item in directory.iterdir():
        item.unlink()
    if directory != tmp_path:
        directory.rmdir()


def _super_bonus_round(tmp_path: Path, seat_two_weighed: bool) -> dict[str, Any]:
    """NY, six decks, seats 1 and 2 at $10 (seat 2 presence only unless weighed). Seat 1
    7S 7S hits 7S: suited 7-7-7 (spades) against the dealer's 7H; seat 2 9D KD stands on
    19; the dealer 7H QC stands on 17. Recalled from a real journal."""
    from table_support import RecordingPanel, RecordingReader, RecordingShuffler
    from test_procedure import bet, deal, press, ready

    from controller.rules.profiles import get_profile
    from controller.table.procedure import Table, TableDevices, TableSettings
    from drivers.hal import SeatWagerChanged, WagerSpot

    class _Rig:
        pass

    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        devices = TableDevices(RecordingShuffler(), RecordingPanel(), RecordingReader())
        table = Table(TableSettings(get_profile("NY"), 6), devices, journal)
        rig: Any = _Rig()
        rig.table = table
        ready(rig)
        bet(rig, 1, 1000)
        if seat_two_weighed:
            bet(rig, 2, 1000)
        else:
            table.handle(SeatWagerChanged(2, WagerSpot.MAIN, True, None))
        press(rig)
        deal(rig, "7S", "9D", "7H", "7S", "KD", "QC")
        deal(rig, "7S")  # seat 1 hits: 21, its turn ends
        press(rig)  # seat 2 stands
        press(rig)  # the hole card: 17
        while table.state.value == "settling":
            press(rig)
        table.close()
    with JournalReader.open(path) as reader:
        return recall(reader)


def test_ny_5324_12_b_7_a_super_bonus_share_is_its_own_line_beside_the_hands_result(
    tmp_path: Path,
) -> None:
    """(b)(7): the $50 share paid to every other player who wagered is a payment of its
    own, recalled under the seat's shares; the hand's own result (19 beats 17 at 1:1, +$10)
    stays under the hand, in JSON and in text."""
    recalled = _super_bonus_round(tmp_path, seat_two_weighed=True)
    (round_,) = recalled["rounds"]
    one, two = round_["seats"]
    hand = two["hands"][0]["settlement"]
    assert (hand["total"], hand["outcome"], hand["odds"], hand["net_cents"]) == (
        19,
        "win",
        "1:1",
        1000,
    )
    (share,) = two["super_bonus_shares"]
    assert (share["wager"], share["net_cents"], share["note"]) == (
        "super_bonus_share",
        5000,
        "super bonus at seat 1",
    )
    assert two["net_cents"] == 6000
    # Seat 1: 7-7-7 of spades pays 3:1 ($30) and the fixed $1,000 ($5 <= $10 < $25).
    assert one["hands"][0]["settlement"]["net_cents"] == 103_000
    assert one["super_bonus_shares"] == []
    text = render_text(recalled)
    assert "      19: win at 1:1, net +$10.00" in text
    assert "    super bonus share (super bonus at seat 1): net +$50.00" in text


def test_ny_5324_12_b_7_a_share_at_a_seat_the_sensors_cannot_weigh_stays_in_cents(
    tmp_path: Path,
) -> None:
    # The share is $50 whatever the wager: cents, never "50" wagers; the seat's own result
    # (one wager won) is counted in wagers, in a field of its own.
    recalled = _super_bonus_round(tmp_path, seat_two_weighed=False)
    two = recalled["rounds"][0]["seats"][1]
    (share,) = two["super_bonus_shares"]
    assert share["net_cents"] == 5000 and "net_stakes" not in share
    hand = two["hands"][0]["settlement"]
    assert (hand["net_cents"], hand["net_stakes"]) == (None, "1")
    assert (two["net_cents"], two["net_stakes"], two["fixed_cents"]) == (None, "1", 5000)
    text = render_text(recalled)
    (line,) = [ln for ln in text.splitlines() if ln.startswith("  seat 2: wager ?")]
    assert line.endswith(", net 1 wager(s) and +$50.00")
    assert "    super bonus share (super bonus at seat 1): net +$50.00" in text
