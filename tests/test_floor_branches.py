"""A sealing table's rows between seals (``floor.branches``), without a database: whatever a
forger holding only the station's password sends, before, between or after the station's
own rows, the floor merges exactly the station's rows up to its last seal, never a forged
row, and keeps every forged row as evidence."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.journal.format import GENESIS_HASH, Row, canonical_json, row_hash
from controller.journal.seal import SealingState, VerificationKey, new_sealing
from floor.branches import SealedChain
from floor.seals import TableSeals

TABLE = "T1"


def _row(prev: Row | None, kind: str, data: dict[str, object], round_no: int | None) -> Row:
    row_id = prev.id + 1 if prev else 1
    prev_hash = prev.hash if prev else GENESIS_HASH
    ts = f"2026-12-01T04:{row_id // 60 % 60:02d}:{row_id % 60:02d}.000000Z"
    text = canonical_json(data)
    digest = row_hash(prev_hash, row_id=row_id, ts=ts, kind=kind, round_no=round_no, data_text=text)
    return Row(row_id, ts, kind, round_no, text, prev_hash, digest)


def journal(
    state: SealingState, rounds: int, after: list[Row] | None = None, net: int = 100
) -> list[Row]:
    """A station's sealed journal: a start, then rounds, each followed by a seal (as the
    station seals after every round), continuing ``after`` with the sealing ``state``."""
    rows = list(after or [])

    def seal() -> None:
        nonlocal state
        last = rows[-1]
        ts = f"2026-12-01T05:{last.id // 60 % 60:02d}:{last.id % 60:02d}.500000Z"
        # The MAC covers the seal row's own ts (controller.journal.seal).
        text = canonical_json(state.seal(last.id, last.hash, ts))
        digest = row_hash(
            last.hash, row_id=last.id + 1, ts=ts, kind="seal", round_no=None, data_text=text
        )
        rows.append(Row(last.id + 1, ts, "seal", None, text, last.hash, digest))
        state = state.evolved()

    if not rows:
        rows.append(_row(None, "station_started", {"table_id": TABLE}, None))
        seal()
    for _ in range(rounds):
        number = sum(r.kind == "round_started" for r in rows) + 1
        rows.append(_row(rows[-1], "round_started", {"round": number}, number))
        rows.append(_row(rows[-1], "settlement", {"net_cents": net}, number))
        rows.append(_row(rows[-1], "round_completed", {}, number))
        seal()
    return rows


@dataclass
class Floor:
    """What the database holds for one sealing table, between transactions."""

    key: VerificationKey
    merged: list[Row] = field(default_factory=list)
    pending: dict[str, Row] = field(default_factory=dict)
    evidence: dict[tuple[int, str], Row] = field(default_factory=dict)
    epoch: int = 0
    alerts: list[tuple[str, str]] = field(default_factory=list)
    quarantined: str | None = None

    def apply(self, messages: list[list[Row]]) -> SealedChain:
        head = self.merged[-1] if self.merged else None
        chain = SealedChain(
            TABLE,
            head.id if head else 0,
            head.hash if head else GENESIS_HASH,
            self.epoch,
            dict(self.pending),
            TableSeals({TABLE: self.key}),
            lambda first, last: {r.id: r.hash for r in self.merged if first <= r.id <= last},
            lambda row_id, digest: (row_id, digest) in self.evidence,
        )
        for rows in messages:
            chain.take(rows)
        self.merged += chain.merged
        for row_id, digest in chain.resolved:
            assert self.pending.pop(digest).id == row_id
        for row in chain.new_pending:
            self.pending[row.hash] = row
        self.evidence.update({(r.id, r.hash): r for r in chain.evidence})
        self.epoch = chain.epoch
        self.alerts += chain.alerts
        self.quarantined = self.quarantined or chain.quarantine
        return chain


def test_a_round_waits_for_its_seal_and_a_forged_round_never_displaces_it() -> None:
    state, key = new_sealing(TABLE)
    genuine = journal(state, 2)
    floor = Floor(key)
    floor.apply([genuine[:3]])  # the start and its seal
    assert [r.id for r in floor.merged] == [1, 2]
    # A forger with the password alone: a chained round continuing the sealed head, the
    # house losing $50,000, with no seal (nobody can make one without the key).
    forged = [_row(genuine[1], "round_started", {"round": 1, "seats": [1]}, 1)]
    forged.append(_row(forged[-1], "settlement", {"net_cents": 5_000_000}, 1))
    forged.append(_row(forged[-1], "round_completed", {}, 1))
    floor.apply([forged])
    assert [r.id for r in floor.merged] == [1, 2]  # waits: nothing merged without a seal
    # The station's own round and seal arrive: its branch is merged, the forged one is
    # evidence with a seal alert.
    floor.apply([genuine[2:6]])
    assert floor.merged == genuine[:6]
    assert set(floor.evidence.values()) == set(forged)
    assert floor.alerts[-1][0] == "seal" and "never sealed" in floor.alerts[-1][1]
    assert not floor.pending and floor.quarantined is None


def test_a_forged_seal_sends_its_branch_to_the_evidence_and_the_station_still_wins() -> None:
    state, key = new_sealing(TABLE)
    genuine = journal(state, 1)
    # The epoch due (1), sealed with a key that is not the table's.
    forged = journal(new_sealing(TABLE)[0].evolved(), 1, after=genuine[:2])[2:]
    floor = Floor(key)
    floor.apply([genuine[:2], forged])
    assert [r.id for r in floor.merged] == [1, 2]
    assert floor.alerts[-1][0] == "seal" and "does not match" in floor.alerts[-1][1]
    floor.apply([genuine[2:]])
    assert floor.merged == genuine
    assert floor.quarantined is None


def test_a_fork_with_a_valid_seal_below_the_sealed_head_quarantines() -> None:
    """A copied key (or a station restored from a backup) makes seals that check: the
    floor keeps its own sealed rows, holds the other history as evidence, quarantines."""
    state, key = new_sealing(TABLE)
    genuine = journal(state, 2)
    floor = Floor(key)
    floor.apply([genuine])
    # The key as it stood after the first seal (epoch 1), used on another history.
    copied = state.evolved()
    other = journal(copied, 1, after=genuine[:2], net=-999)[2:]
    floor.apply([other])
    assert floor.merged == genuine
    assert floor.quarantined is not None and "valid seal of epoch 1" in floor.quarantined
    assert set(other) - set(genuine) <= set(floor.evidence.values())


@st.composite
def deliveries(draw: st.DrawFn) -> tuple[list[Row], list[list[Row]], VerificationKey]:
    """The station's journal and an arbitrary sequence of messages: slices of its rows (in
    any order, repeated) and forged branches from any of its rows."""
    state, key = new_sealing(TABLE)
    rounds = draw(st.integers(1, 4))
    genuine = journal(state, rounds)
    messages: list[list[Row]] = []
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.booleans()):
            start = draw(st.integers(0, len(genuine) - 1))
            size = draw(st.integers(1, 6))
            messages.append(genuine[start : start + size])
        else:
            at = draw(st.integers(0, len(genuine) - 1))
            fake_state, _ = new_sealing(TABLE)
            forged = journal(fake_state, draw(st.integers(1, 2)), after=genuine[: at + 1], net=-7)
            cut = draw(st.integers(at + 1, len(forged)))
            messages.append(forged[at + 1 : cut])
    return genuine, [m for m in messages if m], key


@settings(max_examples=150, deadline=None)
@given(deliveries())
def test_whatever_arrives_the_floor_merges_the_stations_sealed_rows_only(
    case: tuple[list[Row], list[list[Row]], VerificationKey],
) -> None:
    genuine, messages, key = case
    floor = Floor(key)
    for message in messages:
        floor.apply([message])
        # Never a row the station did not write, and always a prefix of its journal.
        assert floor.merged == genuine[: len(floor.merged)]
        assert not floor.merged or floor.merged[-1].kind == "seal"
    # The station then ships everything, resending from the floor's head when asked.
    sent_from = 0
    for _ in range(len(genuine) + 2):
        chain = floor.apply([genuine[sent_from:]])
        if chain.ack is not None and chain.ack.rewind:
            sent_from = chain.ack.row
        else:
            break
    assert floor.merged == genuine
    # What still waits is a forger's tail after the last seal, waiting for a seal that only
    # the station's next round brings (and that tail never is its branch).
    assert all(row.id > genuine[-1].id for row in floor.pending.values())
    assert floor.quarantined is None
