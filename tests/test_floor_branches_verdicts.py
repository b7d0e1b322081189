"""A sealing table's rows between seals (``floor.branches``), verdict by verdict and without a
database: for each way a message can meet the floor's sealed head (resent, forked, broken,
out of reach, too long unsealed, sealed wrongly), what is merged, what waits, what is kept as
evidence, which alert is raised and what the collector answers the station. docs/floor.md
"What one station cannot do" states the rules.

``tests/test_floor_branches.py`` holds the whole-story tests and the property (whatever
arrives, only the station's sealed rows are merged); these pin each verdict.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_floor_branches import TABLE, Floor, _row, journal

from controller.journal.format import GENESIS_HASH, Row, canonical_json, row_hash
from controller.journal.seal import SealingState, new_sealing
from controller.journal.wire import Ack
from floor import branches
from floor.branches import SealedChain
from floor.seals import NO_SEALS, TableSeals


def _sealed_floor(rounds: int = 2) -> tuple[list[Row], Floor, SealingState]:
    """The station's journal (a start and its seal, then ``rounds`` sealed rounds of five
    rows: round_started, settlement, round_completed, seal) and a floor holding its start."""
    state, key = new_sealing(TABLE)
    genuine = journal(state, rounds)
    floor = Floor(key)
    floor.apply([genuine[:2]])
    assert [r.id for r in floor.merged] == [1, 2]
    return genuine, floor, state


def _rehash(row: Row, prev: Row | None, **changes: object) -> Row:
    """``row`` with ``changes``, chained again after ``prev`` (a forger's row: the chain
    hash has no key, anyone can make one)."""
    changed = replace(row, **changes)  # type: ignore[arg-type]
    prev_hash = prev.hash if prev else GENESIS_HASH
    digest = row_hash(
        prev_hash,
        row_id=changed.id,
        ts=changed.ts,
        kind=changed.kind,
        round_no=changed.round_no,
        data_text=changed.data_text,
    )
    return replace(changed, prev_hash=prev_hash, hash=digest)


# --- the answer to the station ----------------------------------------------------------------


def test_every_message_is_acknowledged_up_to_its_last_row() -> None:
    genuine, floor, _ = _sealed_floor()
    chain = floor.apply([genuine[2:4]])
    assert chain.ack == Ack(4, genuine[3].hash, rewind=False)
    assert floor.pending == {r.hash: r for r in genuine[2:4]}


def test_a_resend_from_the_sealed_head_itself_is_taken_without_a_fork() -> None:
    genuine, floor, _ = _sealed_floor()
    chain = floor.apply([genuine[1:5]])  # row 2 is the sealed head, sent again
    assert chain.alerts == [] and chain.evidence == []
    assert chain.ack == Ack(5, genuine[4].hash)
    assert floor.merged == genuine[:2]  # rows 3-5 wait for the seal at row 6
    assert floor.pending == {r.hash: r for r in genuine[2:5]}


def test_a_resend_of_the_whole_sealed_journal_is_taken_without_a_fork() -> None:
    genuine, floor, _ = _sealed_floor()
    floor.apply([genuine[2:6]])  # the first round and its seal
    chain = floor.apply([genuine])  # everything again, and the second round
    assert chain.alerts == [] and chain.evidence == []
    assert floor.merged == genuine


def test_rows_merged_earlier_in_the_same_transaction_count_as_sealed() -> None:
    # two messages in one transaction: the second resends what the first merged (the
    # database does not hold it yet)
    genuine, floor, _ = _sealed_floor()
    chain = floor.apply([genuine[2:6], genuine[0:10]])
    assert chain.alerts == [] and chain.evidence == []
    assert floor.merged == genuine[:10]
    # and a resend that starts at the first row merged in this transaction
    genuine, floor, _ = _sealed_floor()
    chain = floor.apply([genuine[2:6], genuine[2:10]])
    assert chain.alerts == [] and chain.evidence == []
    assert floor.merged == genuine[:10]


# --- forks ------------------------------------------------------------------------------------


def test_a_sealed_row_sent_again_with_other_contents_is_a_rollback() -> None:
    genuine, floor, _ = _sealed_floor()
    floor.apply([genuine[2:6]])  # merged through row 6
    changed = _rehash(genuine[3], genuine[2], data_text=canonical_json({"net_cents": -1}))
    message = [genuine[2], changed]
    chain = floor.apply([message])
    assert chain.alerts == [("rollback", "forked: row 4 differs from the floor's sealed row")]
    assert chain.evidence == [changed]  # from the first row that differs
    assert floor.merged == genuine[:6]
    assert floor.quarantined is None  # no valid seal in it: a forger, not a copied key


def test_a_row_after_the_head_that_does_not_follow_it_is_a_rollback() -> None:
    genuine, floor, _ = _sealed_floor()
    other_start = _row(None, "station_started", {"table_id": "elsewhere"}, None)
    stray = _rehash(genuine[2], other_start)  # row 3, on another history than the head's
    tail = _row(stray, "settlement", {"net_cents": 1}, 1)
    chain = floor.apply([[stray, tail]])
    assert chain.alerts == [("rollback", "forked: row 3 does not follow the sealed row")]
    assert chain.evidence == [stray, tail]
    assert not floor.pending


def test_a_fork_holding_a_seal_that_checks_quarantines_the_table() -> None:
    genuine, floor, state = _sealed_floor()
    floor.apply([genuine[2:6]])  # sealed through epoch 1
    copied = state.evolved()  # the key of epoch 1, copied before the station evolved it
    other = journal(copied, 1, after=genuine[:2], net=-999)[2:]
    chain = floor.apply([other])
    assert chain.alerts[0] == ("rollback", "forked: row 4 differs from the floor's sealed row")
    assert chain.alerts[1] == ("rollback", "forked with a valid seal of epoch 1 at row 6")
    assert len(chain.alerts) == 2
    assert floor.quarantined == "forked with a valid seal of epoch 1 at row 6"


def test_a_fork_whose_seal_is_forged_is_evidence_without_quarantine() -> None:
    genuine, floor, _ = _sealed_floor()
    floor.apply([genuine[2:6]])
    other = journal(new_sealing(TABLE)[0].evolved(), 1, after=genuine[:2], net=-999)[2:]
    chain = floor.apply([other])
    assert chain.alerts == [("rollback", "forked: row 4 differs from the floor's sealed row")]
    assert floor.quarantined is None


# --- a chain broken inside a message ------------------------------------------------------------


def test_a_message_whose_rows_do_not_chain_is_evidence_from_the_break() -> None:
    genuine, floor, _ = _sealed_floor()
    unchained = _rehash(genuine[4], genuine[2])  # row 5 claims row 3 as its parent
    chain = floor.apply([[genuine[2], genuine[3], unchained, genuine[5]]])
    assert chain.alerts == [("chain", "chain broken: row 5")]
    assert chain.evidence == [unchained, genuine[5]]
    assert floor.pending == {r.hash: r for r in genuine[2:4]}  # rows 3-4 wait for a seal


def test_a_row_whose_hash_is_not_its_own_is_evidence() -> None:
    genuine, floor, _ = _sealed_floor()
    bad = replace(genuine[2], hash="f" * 64)  # chains from the head, its hash made up
    chain = floor.apply([[bad]])
    assert chain.alerts == [("chain", "chain broken: row 3")]
    assert chain.evidence == [bad]
    assert not floor.pending


def test_a_row_whose_parent_is_evidence_joins_it_silently() -> None:
    genuine, floor, _ = _sealed_floor()
    other_start = _row(None, "station_started", {"table_id": "elsewhere"}, None)
    stray = _rehash(genuine[2], other_start)
    floor.apply([[stray]])  # a rollback: evidence
    following = _row(stray, "settlement", {"net_cents": 1}, 1)
    chain = floor.apply([[following]])
    assert chain.alerts == []  # more of a branch already alerted on
    assert chain.evidence == [following]
    assert chain.ack == Ack(4, following.hash)  # no resend asked for


def test_a_row_whose_parent_never_arrived_asks_for_a_resend_from_the_sealed_head() -> None:
    genuine, floor, _ = _sealed_floor()
    chain = floor.apply([genuine[4:6]])  # rows 5-6; rows 3-4 were lost on the way
    assert chain.ack == Ack(2, genuine[1].hash, rewind=True)
    assert chain.evidence == [] and chain.alerts == []
    assert not floor.pending


def test_a_row_whose_parent_is_pending_on_another_id_is_not_connected() -> None:
    genuine, floor, _ = _sealed_floor()
    floor.apply([genuine[2:4]])  # rows 3-4 wait
    # row 6 claiming row 4 as its parent (ids must run on)
    skipping = _rehash(replace(genuine[4], id=6), genuine[3])
    chain = floor.apply([[skipping]])
    assert chain.ack == Ack(2, genuine[1].hash, rewind=True)
    assert skipping.hash not in floor.pending


# --- what a row means ---------------------------------------------------------------------------


def test_a_row_the_floor_cannot_take_quarantines_the_table_with_its_first_problem() -> None:
    genuine, floor, _ = _sealed_floor()
    bad_money = _rehash(genuine[3], genuine[2], data_text=canonical_json({"net_cents": 0.5}))
    chain = floor.apply([[genuine[2], bad_money]])
    problem = ("malformed", "row 4: net_cents '0.5' is not whole cents")
    assert chain.alerts == [problem]
    assert chain.evidence == [bad_money]
    assert floor.quarantined == problem[1]
    # a later problem keeps the first as the table's reason
    other = _rehash(genuine[3], genuine[2], data_text=canonical_json({"net_cents": "x"}))
    floor.apply([[other]])
    assert floor.quarantined == problem[1]


# --- seals --------------------------------------------------------------------------------------


def test_a_seal_of_a_later_epoch_than_the_one_due_is_refused_and_its_rows_wait() -> None:
    genuine, floor, state = _sealed_floor()
    # a seal that checks with the table's key, but of epoch 2 where epoch 1 is due (a key
    # copied later on, or a station that skipped one)
    skipped = journal(state.evolved().evolved(), 1, after=genuine[:2])[2:]
    chain = floor.apply([skipped])
    seal = skipped[-1]
    assert chain.alerts and chain.alerts[0][0] == "seal"
    assert chain.alerts[0][1].startswith(f"seal: row {seal.id}: ")
    assert chain.evidence == [seal]
    assert floor.merged == genuine[:2]
    assert floor.pending == {r.hash: r for r in skipped[:-1]}  # they wait for a good seal
    assert floor.epoch == 1


def test_rows_after_a_failed_seal_are_evidence_and_the_stations_seal_still_wins() -> None:
    genuine, floor, _ = _sealed_floor()
    forged = journal(new_sealing(TABLE)[0].evolved(), 1, after=genuine[:2])[2:]
    after = _row(forged[-1], "round_started", {"round": 2}, 2)
    chain = floor.apply([[*forged, after]])
    assert [kind for kind, _ in chain.alerts] == ["seal"]
    assert chain.evidence == [forged[-1], after]  # the bad seal, then what follows it
    assert after.hash not in floor.pending
    floor.apply([genuine[2:6]])
    assert floor.merged == genuine[:6]
    assert floor.epoch == 2


def test_a_good_seal_merges_its_branch_and_resolves_rows_that_waited() -> None:
    genuine, floor, _ = _sealed_floor()
    floor.apply([genuine[2:4]])  # rows 3-4 stored as pending
    chain = floor.apply([genuine[4:6]])  # row 5 and the seal
    assert chain.merged == genuine[2:6]
    # the rows the database held as pending are to be deleted from it; row 5, new in
    # this transaction, was never stored
    assert chain.resolved == {(3, genuine[2].hash), (4, genuine[3].hash)}
    assert chain.new_pending == []
    assert (chain.head_row, chain.head_hash, chain.epoch) == (6, genuine[5].hash, 2)


def test_rows_nobody_sealed_are_evidence_with_the_span_they_cover() -> None:
    genuine, floor, _ = _sealed_floor()
    forged = [_row(genuine[1], "round_started", {"round": 1, "seats": [1]}, 1)]
    forged.append(_row(forged[-1], "settlement", {"net_cents": 5_000_000}, 1))
    floor.apply([forged])
    chain = floor.apply([genuine[2:6]])
    assert chain.alerts == [
        (
            "seal",
            "seal: rows 3-4 of another branch were never sealed;"
            " the branch sealed at row 6 was merged",
        )
    ]
    assert chain.evidence == forged
    assert chain.resolved == {(3, forged[0].hash), (4, forged[1].hash)}


def test_the_span_of_rows_nobody_sealed_runs_from_the_first_to_the_last() -> None:
    """Three rows of another branch: the alert names rows 3-5 (first to last, not the
    second)."""
    genuine, floor, _ = _sealed_floor()
    forged = [_row(genuine[1], "round_started", {"round": 1, "seats": [2]}, 1)]
    forged.append(_row(forged[-1], "settlement", {"net_cents": 7_000_000}, 1))
    forged.append(_row(forged[-1], "round_completed", {}, 1))
    floor.apply([forged])
    chain = floor.apply([genuine[2:6]])
    assert chain.alerts == [
        (
            "seal",
            "seal: rows 3-5 of another branch were never sealed;"
            " the branch sealed at row 6 was merged",
        )
    ]
    assert chain.evidence == forged


# --- the bound on unsealed rows -------------------------------------------------------------------


def test_at_most_the_limit_of_rows_wait_unsealed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(branches, "PENDING_LIMIT", 4)
    genuine, floor, _ = _sealed_floor()
    rows = [genuine[2]]
    for k in range(4):  # a forger's rows 4-7 after row 3, never sealed
        rows.append(_row(rows[-1], "button", {"n": k}, 1))
    chain = floor.apply([rows])
    assert len(floor.pending) == 4  # rows 3-6: the limit, both sides of it
    assert chain.alerts == [("seal", "more than 4 rows without a seal from row 7")]
    assert chain.evidence == rows[4:]
    assert floor.pending == {r.hash: r for r in rows[:4]}


def test_the_documented_limit() -> None:
    # a station seals after every round (about 105 rows); 20,000 is two hundred rounds
    assert branches.PENDING_LIMIT == 20_000


def test_a_new_chain_takes_nothing_from_an_empty_message() -> None:
    _, floor, _ = _sealed_floor()
    head = floor.merged[-1]
    chain = SealedChain(
        TABLE, head.id, head.hash, 1, {}, lambda *_: None, lambda a, b: {}, lambda a, b: False
    )
    chain.take([])
    assert chain.ack is None and chain.merged == [] and chain.evidence == []


# --- the seal check (floor.seals) ---------------------------------------------------------------


def test_the_seal_check_reads_seal_rows_of_tables_with_a_key_only() -> None:
    genuine, floor, _ = _sealed_floor()
    seals = TableSeals({TABLE: floor.key})
    assert seals.sealed(TABLE) and not seals.sealed("T2")
    assert seals(TABLE, genuine[1], 0) is None  # the start's seal, epoch 0 due
    assert seals(TABLE, genuine[0], 0) is None  # not a seal: nothing to check
    assert seals("T2", genuine[1], 0) is None  # no key: chain-checked only
    assert NO_SEALS(TABLE, genuine[1], 0) is None


def test_the_seal_check_holds_a_seal_to_the_epoch_due_when_one_is_due() -> None:
    genuine, floor, _ = _sealed_floor()
    seals = TableSeals({TABLE: floor.key})
    wrong_epoch = seals(TABLE, genuine[1], 1)
    assert wrong_epoch is not None and "epoch" in wrong_epoch
    assert seals(TABLE, genuine[5], 1) is None  # the first round's seal is epoch 1
    assert seals(TABLE, genuine[5], None) is None  # any epoch: a fork's seals
    assert seals(TABLE, genuine[1], None) is None


def test_a_seal_under_another_key_is_refused() -> None:
    genuine, _, _ = _sealed_floor()
    other = TableSeals({TABLE: new_sealing(TABLE)[1]})
    assert other(TABLE, genuine[1], 0) is not None


def test_the_keys_read_from_floor_toml_check_each_tables_seals_with_its_own_key() -> None:
    genuine, floor, _ = _sealed_floor()
    other_table, other_key = "T2", new_sealing("T2")[1]
    seals = TableSeals.from_text({TABLE: floor.key.to_text(), other_table: other_key.to_text()})
    assert sorted(seals.keys) == [TABLE, other_table]
    assert seals.keys[TABLE].to_text() == floor.key.to_text()
    assert seals(TABLE, genuine[1], 0) is None  # its own key: the seal checks out
    assert seals(other_table, genuine[1], 0) is not None  # another table's key refuses it
    assert TableSeals.from_text({}).keys == {} and not TableSeals.from_text({}).sealed(TABLE)
