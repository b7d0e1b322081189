"""Crash recovery from the journal alone (``controller.table.recovery`` and ``Table.restore``).

A seeded table plays a few rounds (with injected faults) into an in-memory journal; the
journal is then cut after every row, as a crash could leave it. From each prefix a new
table is restored: its state must be the one the journal says, and play must go on from
there (the supervisor resuming or voiding) with every card accounted for.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from daemon_support import journal_dir
from recovery_support import expected_state, shoe_after, state_the_rows_say
from table_support import JournalRow, ListJournal, Rig, make_rig
from test_procedure import bet, deal, press, ready, rows

from controller.journal.store import Journal, JournalReader
from controller.rules.cards import Card
from controller.rules.profiles import get_profile
from controller.rules.steps import describe
from controller.simulation.dealer import Action, Press, SimulatedDealer, TurnKey, random_chooser
from controller.simulation.direct import DirectRig
from controller.table.faults import FaultCode
from controller.table.machine import ROUND_STATES
from controller.table.prompts import State
from controller.table.recovery import Recovered, read_journal
from controller.table.view import TableView
from drivers.hal import (
    Button,
    DeviceEvent,
    HoleCardDealt,
    SeatWagerChanged,
    SupervisorKey,
    WagerSpot,
)

DECKS = 6
SEATS = (1, 2, 3)


@dataclass
class ResumingDealer(SimulatedDealer):
    """A dealer whose supervisor may first try to resume a round found after a restart
    (voiding it when the table refuses); otherwise it voids at once."""

    resume_first: bool = True
    tried_resume: bool = False

    def _supervise(self, view: TableView) -> list[Action]:
        fault = view.fault or ""
        if fault.startswith("recovered_mid_round") and self.resume_first and not self.tried_resume:
            self.tried_resume = True
            return [TurnKey(True), Press(Button.SUPERVISOR_RESUME), TurnKey(False)]
        return super()._supervise(view)


STEPS: dict[tuple[str, int], dict[int, str]] = {}  # (profile, seed) -> cut -> step


#: Each withholding run's shoe flash: the hole cards it keeps, by commitment.
FLASH: dict[tuple[str, int], dict[str, tuple[Card, str]]] = {}


def played(
    profile: str, rounds: int, seed: int, *, withholding: bool = False
) -> tuple[list[JournalRow], set[int]]:
    """The journal of a seeded run, and the cuts that fall between two events (the station
    commits each event's rows in one transaction, so a crash can only cut there). The step
    the round in play waited for at each such cut goes to :data:`STEPS`."""
    rng = random.Random(seed)
    journal = ListJournal()
    rig = DirectRig(
        get_profile(profile),
        DECKS,
        journal,
        random_chooser(rng),
        rng,
        SEATS,
        fault_rate=0.02,
        withholding=withholding,
    )
    FLASH[profile, seed] = rig.devices.withheld
    boundaries = {0}
    handle = rig.table.handle

    steps = STEPS.setdefault((profile, seed), {})

    def handle_and_mark(event: DeviceEvent) -> None:
        handle(event)
        boundaries.add(len(journal.rows))
        play = rig.table.play
        if play is not None:
            steps[len(journal.rows)] = describe(play.round.step)

    rig.table.handle = handle_and_mark  # type: ignore[method-assign]
    rig.table.begin()
    boundaries.add(len(journal.rows))
    try:
        rig.play(rounds)
    finally:
        rig.close()
    return journal.rows, boundaries


def restored_rig(
    profile: str,
    prefix: Sequence[JournalRow],
    seed: int,
    *,
    flash: dict[str, tuple[Card, str]] | None = None,
) -> tuple[DirectRig, ListJournal, Recovered]:
    """A new table restored from ``prefix``; with ``flash``, its shoe withholds hole cards
    and still holds those of the run before the crash (a real shoe keeps them)."""
    rng = random.Random(seed)
    journal = ListJournal(rows=list(prefix))
    rig = DirectRig(
        get_profile(profile),
        DECKS,
        journal,
        random_chooser(rng),
        rng,
        SEATS,
        withholding=flash is not None,
        shoe_flash=dict(flash or {}),
    )
    rig.dealer = ResumingDealer(
        SEATS,
        random_chooser(rng),
        rng,
        dealer_change_every=7,
        resume_first=flash is not None or rng.random() < 0.5,
    )
    rec = read_journal(prefix)
    rig.table.restore(rec)
    return rig, journal, rec


def resume(rig: DirectRig, prefix: Sequence[JournalRow], rec: Recovered, seed: int) -> None:
    """The devices are up: the table commands what its state needs; the shoe holds what it
    held when the station stopped."""
    rng = random.Random(seed)
    rig.table.resume_output()
    cards, cover = shoe_after(prefix, rec, DECKS, rng)
    batch: list[Card | None] = list(cards)
    if cover and len(batch) > rig.cover_at:
        batch.insert(len(batch) - rig.cover_at, None)
    batch.reverse()
    rig.shoe = batch


def check_restored(
    rig: DirectRig, journal: ListJournal, rec: Recovered, cut: int, *, strict: bool
) -> None:
    """A legal state after any cut; exactly the journal's state after a cut between events."""
    table = rig.table
    if strict:
        assert table.state is expected_state(rec), f"cut at row {cut}"
        assert table.state is state_the_rows_say(journal.rows[:cut])
    assert table.round_no == rec.round_no
    recovered = [r for r in journal.rows[cut:] if r.kind == "recovered"]
    assert [r.data for r in recovered] == [{"state": table.state.value, "round": rec.round_no}]
    if table.state is State.FAULT:
        assert table.fault is not None and table.t.resume_to is not None
        if rec.open_round:
            assert table.fault.code is FaultCode.RECOVERED_MID_ROUND
        elif strict:
            assert rec.fault is not None and table.fault.code is rec.fault.code
    else:
        assert table.fault is None and table.play is None
    assert table.state not in ROUND_STATES


def check_accounts(rows: Sequence[JournalRow]) -> None:
    """Each round ends once; per shoe no card shows more often than the batch holds (one
    extra for each hole card sealed at a crash, which the journal cannot name)."""
    started = Counter(r.data["round"] for r in rows if r.kind == "round_started")
    ended = Counter(r.round_no for r in rows if r.kind in ("round_completed", "round_voided"))
    assert all(n == 1 for n in started.values()), started
    assert all(n == 1 for n in ended.values()), ended
    unfinished = set(started) - set(ended)
    assert not unfinished, unfinished  # the continuation stops between rounds
    shoe: Counter[str] = Counter()
    sealed = 0
    for row in rows:
        if row.kind == "shuffle_commanded":
            shoe.clear()
            sealed = 0
        elif row.kind in ("burn", "card", "hole_card_revealed") and not row.data["card"].startswith(
            "10"
        ):
            shoe[row.data["card"]] += 1
        elif row.kind == "hole_card_dealt":
            sealed += 1
        elif row.kind == "hole_card_revealed":
            sealed -= 1
        assert all(n <= DECKS + sealed for n in shoe.values()), row
    assert not [
        r for r in rows if r.kind == "fault" and r.data["code"] == FaultCode.DUPLICATE_CARD.value
    ]
    check_one_money_record(rows)


PAYMENT_KINDS = ("settlement", "match_settled", "insurance")


def check_one_money_record(rows: Sequence[JournalRow]) -> None:
    """One money record: no payment (round, kind, seat, hand, wager) is journaled twice, whatever
    was rebuilt; a void lists exactly the round's payments as standing and returns every
    other wager, none of them both."""
    payments = Counter(
        (r.round_no, r.kind, r.data["seat"], r.data.get("hand"), r.data["wager"])
        for r in rows
        if r.kind in PAYMENT_KINDS
    )
    assert all(n == 1 for n in payments.values()), [k for k, n in payments.items() if n > 1]
    for void in (r for r in rows if r.kind == "round_voided"):
        paid = [
            (r.data["seat"], r.data["wager"], r.data.get("hand"), r.data["net_cents"])
            for r in rows
            if r.kind in PAYMENT_KINDS and r.round_no == void.round_no
        ]
        stand = [(s["seat"], s["wager"], s["hand"], s["net_cents"]) for s in void.data["stand"]]
        assert sorted(stand, key=repr) == sorted(paid, key=repr)
        settled = {(seat, wager, hand) for seat, wager, hand, _ in stand}
        for back in void.data["returned"]:
            assert (back["seat"], back["wager"], back["hand"]) not in settled
            if back["hand"] is None:  # a whole seat's wager: none of its hands was settled
                assert not any(s[:2] == (back["seat"], back["wager"]) for s in settled)
        started = next(r for r in rows if r.kind == "round_started" and r.round_no == void.round_no)
        for seat in started.data["seats"]:  # every main wager is settled or returned
            number = seat["seat"]
            assert any(s[:2] == (number, "main") for s in settled) or any(
                (b["seat"], b["wager"]) == (number, "main") for b in void.data["returned"]
            )


@pytest.mark.parametrize(("profile", "seed"), [("PA", 4), ("NY", 1), ("NJ", 4), ("NJ", 25)])
def test_restore_from_every_prefix_then_play_on(profile: str, seed: int) -> None:
    """NJ seeds 4 and 25 cut a round in Match the Dealer with an ace up, before and after a
    fault: the rebuild still offers insurance (it follows Match the Dealer)."""
    rows, boundaries = played(profile, rounds=4, seed=seed)
    assert any(r.kind == "fault" for r in rows), "the run must include faults"
    resumed = voided = 0
    rebuilt = 0
    for cut in range(len(rows) + 1):
        prefix = rows[:cut]
        rig, journal, rec = restored_rig(profile, prefix, seed * 1000 + cut)
        try:
            check_restored(rig, journal, rec, cut, strict=cut in boundaries)
            if rec.open_round and not hole_card_sealed(rec.open_round):
                # Outside the deal->reveal window the round is rebuilt at the step it had
                # reached: the resume goes on from the next expected card or decision.
                assert rig.table.play is not None, f"cut at row {cut}"
                rebuilt += 1
                if cut in boundaries and cut in STEPS[profile, seed]:
                    assert describe(rig.table.play.round.step) == STEPS[profile, seed][cut]
            resume(rig, prefix, rec, seed + cut)
            rig.play(rec.round_no + 2)
        finally:
            rig.close()
        assert rig.table.state is State.BETTING
        assert rig.table.round_no == rec.round_no + 2
        check_accounts(journal.rows)
        after = journal.rows[cut:]
        if rec.open_round:
            resolved = next(r for r in after if r.kind == "fault_resolved")
            resumed += resolved.data["resolution"] == "resume"
            voided += resolved.data["resolution"] == "void"
    assert resumed and voided and rebuilt, (resumed, voided, rebuilt)


def hole_card_sealed(rows: Sequence[JournalRow]) -> bool:
    """True inside the deal->reveal window: a hole card dealt and not yet revealed."""
    kinds = [r.kind for r in rows]
    return kinds.count("hole_card_dealt") > kinds.count("hole_card_revealed")


def test_an_empty_journal_starts_from_scratch() -> None:
    rec = read_journal([])
    assert rec.state is None and rec.round_no == 0 and not rec.open_round
    rig, journal, _ = restored_rig("PA", [], 0)
    try:
        check_restored(rig, journal, read_journal([]), 0, strict=True)
        resume(rig, [], read_journal([]), 0)
        assert rig.table.state is State.SHUFFLING
        assert [r.kind for r in journal.rows][:3] == ["recovered", "state", "shuffle_commanded"]
    finally:
        rig.close()


# --- read_journal over a real journal file ----------------------------------------------


@pytest.fixture
def journal_path(tmp_path: Path) -> Iterator[Path]:
    with journal_dir(tmp_path) as path:
        yield path / "journal.sqlite3"


def recovered_from(path: Path) -> Recovered:
    with JournalReader.open(path) as reader:
        return read_journal(reader.rows())


def start_shoe(journal: Journal) -> None:
    journal.append("station_started", {"version": "0.1.0", "table_id": "T", "decks": 6})
    journal.append("state", {"state": "shuffling"})
    journal.append("shuffle_commanded", {"decks": 6})
    journal.append("shuffle_done", {"card_count": 288, "per_rank": {}})
    journal.append("state", {"state": "loading"})
    journal.append("shoe_loaded", {})
    journal.append("state", {"state": "burning"})
    journal.append("burn", {"card": "4S", "reason": "load"})
    journal.append("state", {"state": "betting"})


def full_round(journal: Journal, r: int, *, cover: bool = False) -> None:
    journal.append("round_started", {"round": r, "seats": [{"seat": 1, "wager_cents": 500}]}, r)
    journal.append("state", {"state": "dealing"}, r)
    journal.append("card", {"seat": 1, "hand": 1, "role": "initial", "card": "7S"}, r)
    if cover:
        journal.append("cover_card", {}, r)
    journal.append("round_completed", {"reshuffle": cover}, r)
    journal.append("state", {"state": "shuffling" if cover else "betting"})


def test_between_rounds_after_a_clean_shutdown(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        start_shoe(journal)
        full_round(journal, 1)
        full_round(journal, 2)
        journal.append("dealer_change", {})
        journal.append("clean_shutdown", {})
    rec = recovered_from(journal_path)
    assert rec.state is State.BETTING and rec.round_no == 2 and not rec.open_round
    assert rec.fault is None and not rec.reshuffle_pending and rec.last_burn == "4S"
    assert rec.drawn == Counter({"4S": 1, "7S": 2})


def test_inside_a_round_after_a_crash(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        start_shoe(journal)
        full_round(journal, 1)
        journal.append("round_started", {"round": 2, "seats": []}, 2)
        journal.append("state", {"state": "dealing"}, 2)
        journal.append("card", {"seat": 1, "hand": 1, "role": "initial", "card": "9D"}, 2)
        journal.append("card", {"seat": None, "hand": None, "role": "up", "card": "KH"}, 2)
    rec = recovered_from(journal_path)
    assert rec.round_no == 2 and rec.state is State.DEALING and rec.fault is None
    assert [r.kind for r in rec.open_round] == ["round_started", "state", "card", "card"]
    assert [r.data.get("card") for r in rec.open_round][2:] == ["9D", "KH"]


def test_a_fault_open_at_power_off_stays_open(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        start_shoe(journal)
        journal.append("fault", {"code": "device_lost", "message": "shoe", "state": "betting"})
        journal.append("state", {"state": "fault"})
        journal.append("fault_resolved", {"resolution": "resume", "code": "device_lost"})
        journal.append("state", {"state": "betting"})
        full_round(journal, 1)
        journal.append("fault", {"code": "device_lost", "message": "reader", "state": "betting"})
        journal.append("state", {"state": "fault"})
        # A second fault during the first keeps the first one's resume point.
        journal.append("fault", {"code": "foreign_card", "message": "10S", "state": "fault"})
    rec = recovered_from(journal_path)
    assert rec.state is State.FAULT and not rec.open_round
    assert rec.fault is not None and rec.fault.code is FaultCode.FOREIGN_CARD
    assert rec.resume_to is State.BETTING


def test_a_voided_round_is_closed(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        start_shoe(journal)
        journal.append("round_started", {"round": 1, "seats": []}, 1)
        journal.append("fault", {"code": "foreign_card", "message": "10S", "state": "dealing"}, 1)
        journal.append("state", {"state": "fault"}, 1)
        journal.append("fault_resolved", {"resolution": "void", "code": "foreign_card"}, 1)
        journal.append("round_voided", {"reason": "foreign card"}, 1)
        journal.append("state", {"state": "betting"})
    rec = recovered_from(journal_path)
    assert not rec.open_round and rec.fault is None and rec.round_no == 1
    assert rec.state is State.BETTING


def test_a_reshuffle_is_due_after_the_cover_card_until_the_shuffle(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        start_shoe(journal)
        full_round(journal, 1, cover=True)
        assert recovered_from(journal_path).reshuffle_pending
        journal.append("shuffle_commanded", {"decks": 6})
    rec = recovered_from(journal_path)
    assert not rec.reshuffle_pending and rec.drawn == Counter()


def test_only_the_last_report_of_each_wager_spot_is_kept() -> None:
    rows = [
        JournalRow("event", {"type": "seat_wager", "seat": 2, "spot": "main", "present": p}, None)
        for p in (True, False, True)
    ]
    rec = read_journal(rows)
    assert list(rec.wagers.values()) == [SeatWagerChanged(2, WagerSpot.MAIN, True, None)]


def test_the_restore_reads_from_the_last_shuffle_and_finds_the_same_state(tmp_path: Path) -> None:
    """A start reads only the rows from the last shuffle on (and the last report of each
    wager spot, the last round and burn before it): what it restores is what the whole
    journal says, after a cut at every row of a run with several shoes."""
    from controller.service.daemon import WAGER_SPOTS

    rng = random.Random(11)
    journal = ListJournal()
    rig = DirectRig(get_profile("PA"), DECKS, journal, random_chooser(rng), rng, SEATS)
    rig.cover_at = 250  # a reshuffle every few rounds
    rig.table.begin()
    try:
        rig.play(12)
    finally:
        rig.close()
    assert sum(r.kind == "shuffle_commanded" for r in journal.rows) >= 3
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as stored:
        for row in journal.rows:
            stored.append(row.kind, row.data, row.round_no)
    with JournalReader.open(path) as reader:
        every = list(reader.rows())
        for cut in range(len(every) + 1):
            window = list(reader.rows_for_restore(WAGER_SPOTS, until_id=cut))
            assert read_journal(window) == read_journal(every[:cut]), f"cut at row {cut}"
            if cut == len(every):
                assert len(window) < len(every) / 2


@pytest.mark.parametrize(("profile", "seed"), [("PA", 4), ("NY", 5)])
def test_a_crash_between_the_deal_and_the_reveal_resumes(profile: str, seed: int) -> None:
    """The same with the shoe withholding the hole card: a crash at any row between the
    hole card's deal and its reveal rebuilds the round from the commitment; the supervisor
    resumes; the shoe (which kept card and nonce) reveals it; the round is completed, never
    voided, and every payment is journaled once."""
    rows, boundaries = played(profile, rounds=4, seed=seed, withholding=True)
    flash = FLASH[profile, seed]
    assert flash, "the shoe withheld the hole cards"
    window = 0
    for cut in range(len(rows) + 1):
        prefix = rows[:cut]
        rec = read_journal(prefix)
        if not (rec.open_round and hole_card_sealed(rec.open_round)):
            continue
        window += 1
        rig, journal, rec = restored_rig(profile, prefix, seed * 1000 + cut, flash=flash)
        try:
            assert rig.table.play is not None, f"cut at row {cut}"
            if cut in boundaries and cut in STEPS[profile, seed]:
                assert describe(rig.table.play.round.step) == STEPS[profile, seed][cut]
            resume(rig, prefix, rec, seed + cut)
            rig.play(rec.round_no + 1)
        finally:
            rig.close()
        check_accounts(journal.rows)
        after = journal.rows[cut:]
        ends = [r.kind for r in after if r.round_no == rec.round_no and r.kind.startswith("round_")]
        resolutions = [r.data["resolution"] for r in after if r.kind == "fault_resolved"]
        if "void" not in resolutions:  # an injected fault may still end in a void
            assert ends == ["round_completed"], f"cut at row {cut}: {ends}"
        revealed = [r for r in after if r.kind == "hole_card_revealed"]
        assert revealed, f"cut at row {cut}: the shoe revealed the withheld card"
    assert window > 10, window


# --- what a restart between rounds keeps: the burn card, the cards out of the shoe -------


def restarted(rig: Rig, profile: str) -> Rig:
    """A new station over ``rig``'s journal (a restart between rounds), devices up."""
    again = make_rig(profile)
    again.table.restore(read_journal(rig.journal.rows))
    again.table.resume_output()
    return again


def test_the_burn_card_is_still_disclosed_on_request_after_a_restart() -> None:
    """NJ 19.7(c): "The burn card shall be disclosed if requested by a player": a restart
    after the burn does not lose it."""
    rig = make_rig("NJ")
    ready(rig, burn="7S")
    again = restarted(rig, "NJ")
    assert again.table.state is State.BETTING
    press(again, Button.DISCLOSE_BURN)
    assert rows(again, "burn_disclosed") == [{"card": "7S"}]


def test_a_hole_card_row_without_its_holder_is_the_shoes_at_a_table_whose_shoe_withholds() -> None:
    """A journal written before ``hole_card_dealt`` named who sealed the card: at a table
    whose shoe withholds the hole card, the shoe holds it (card and nonce) across the
    restart, so the round is rebuilt and may be resumed; it is not the unrevealable
    station-sealed card."""
    rig = make_rig("PA", withholding=True)
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "5C", "8D")
    rig.table.handle(HoleCardDealt("ab" * 32))
    assert rows(rig, "hole_card_dealt") != []
    old = [
        JournalRow(r.kind, {k: v for k, v in r.data.items() if k != "sealed_by"}, r.round_no)
        for r in rig.journal.rows
    ]
    again = make_rig("PA", withholding=True)
    again.table.restore(read_journal(old))
    fault = again.table.fault
    assert fault is not None and fault.code is FaultCode.RECOVERED_MID_ROUND
    assert fault.message == "restarted during round 1"
    again.table.resume_output()
    again.table.handle(SupervisorKey(True))
    press(again, Button.SUPERVISOR_RESUME)
    assert again.table.state is State.PLAYERS
