"""``journal verify`` over the cores, with progress on a terminal, and from an operator's
proof (``--since``/``--save``): the same findings as one walk, and only the new rows."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from journal_tamper_support import raw_rows, storage_version, tamper
from test_journal_archive import play
from test_journal_verify_open import behind_report, forked_report

from controller.cli.main import main
from controller.journal import creation
from controller.journal import verify as verify_module
from controller.journal.proof import Proof, make_proof, read_proof
from controller.journal.seal import VerificationKey, new_sealing, save_state
from controller.journal.store import Journal, canonical_json
from controller.journal.verify import VerifyCase, VerifyReport, verify

ROUNDS = 40  # 7 rows a round and the start's checkpoint: 281 rows
TOTAL = ROUNDS * 7 + 1
#: With two workers the second range begins after this row.
HALF = -(-TOTAL // 2)


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, VerificationKey]:
    """The same sealed rounds in a journal of each storage format (``format-1/``,
    ``format-2/``), with one key; the path: of the process's default format."""
    folder = tmp_path_factory.mktemp("sealed")
    state, key = new_sealing("T1")
    for storage_format in (1, 2):
        each = folder / f"format-{storage_format}"
        each.mkdir()
        save_state(each / "sealing-key", state)
        with Journal.open(
            each / "journal.sqlite3", sealing=each / "sealing-key", storage_format=storage_format
        ) as journal:
            journal.checkpoint()
            play(journal, 1, ROUNDS)
    return folder / f"format-{creation.DEFAULT_FORMAT}" / "journal.sqlite3", key


@pytest.fixture
def copy(tmp_path: Path, sealed: tuple[Path, VerificationKey]) -> Path:
    """A copy of the sealed journal of the format this test makes (its marker's)."""
    source = sealed[0].parent.parent / f"format-{creation.DEFAULT_FORMAT}" / "journal.sqlite3"
    for suffix in ("", "-head"):
        shutil.copy(source.with_name(source.name + suffix), tmp_path / f"journal.sqlite3{suffix}")
    shutil.copy(source.with_name("sealing-key"), tmp_path / "sealing-key")
    return tmp_path / "journal.sqlite3"


@pytest.fixture
def every_walk_parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Walks of any length go over the workers (not only those of 200,000 rows)."""
    monkeypatch.setattr(verify_module, "PARALLEL_MIN_ROWS", 1)


def both(path: Path, key: VerificationKey | None, workers: int = 3) -> tuple[str, str]:
    return verify(path, key=key, workers=1).message, verify(path, key=key, workers=workers).message


@pytest.mark.usefixtures("every_walk_parallel")
@pytest.mark.parametrize("workers", [2, 3, 7])
def test_an_intact_journal_reads_the_same_over_the_cores(
    copy: Path, sealed: tuple[Path, VerificationKey], workers: int
) -> None:
    one, many = both(copy, sealed[1], workers)
    assert one == many
    assert one.startswith(f"intact: {TOTAL} rows, chain and {ROUNDS} hole-card")
    assert f"{ROUNDS} seals good" in one and "1 sealed checkpoints good" in one


@pytest.mark.usefixtures("every_walk_parallel")
@pytest.mark.parametrize(
    ("statement", "case"),
    [
        # a row's content changed behind the triggers (in the second half)
        ('UPDATE journal SET data = \'{"card":"KS"}\' WHERE id = 150', "altered"),
        # a row removed in the middle
        ("DELETE FROM journal WHERE id = 170", "removed"),
        # the link to the row before broken at a row a range begins with (format 1's
        # column: format 2 stores no prev_hash)
        pytest.param(
            f"UPDATE journal SET prev_hash = '{'1' * 64}' WHERE id = {HALF + 1}",
            "altered",
            marks=pytest.mark.journal_format(1),
        ),
    ],
)
def test_a_damaged_row_is_found_and_named_the_same_over_the_cores(
    copy: Path, sealed: tuple[Path, VerificationKey], statement: str, case: str
) -> None:
    tamper(copy, statement)
    for workers in (2, 3, 4):
        one, many = both(copy, sealed[1], workers)
        assert one == many, workers
        assert one.startswith(f"{case}: row ")


@pytest.mark.usefixtures("every_walk_parallel")
def test_a_row_rewritten_with_its_own_hash_at_a_range_end_is_found_over_the_cores(
    copy: Path, sealed: tuple[Path, VerificationKey]
) -> None:
    """The last row of the first of two ranges rewritten and its hash recomputed: its range
    is whole, and only the link to the next row shows the change: format 1's stored
    prev_hash of the next row; in format 2 (no prev_hash stored) the next row's hash,
    chained from the rewritten one."""
    from controller.journal.store import row_hash

    (_, ts, kind, round_no, _, prev, _) = raw_rows(copy)[HALF - 1]
    data = canonical_json({"rewritten": True})
    digest = row_hash(prev, row_id=HALF, ts=ts, kind=kind, round_no=round_no, data_text=data)
    tamper(copy, f"UPDATE journal SET data = '{data}', hash = '{digest}' WHERE id = {HALF}")
    one, many = both(copy, None, workers=2)
    assert one == many
    if storage_version(copy) == 1:
        assert one.startswith(f"altered: row {HALF}: rewritten (its hash no longer matches row")
    else:
        assert one.startswith(f"altered: row {HALF + 1}: content does not match its hash")


@pytest.mark.usefixtures("every_walk_parallel")
def test_a_seal_re_made_in_a_later_range_is_found_over_the_cores(
    copy: Path, sealed: tuple[Path, VerificationKey]
) -> None:
    """A seal's MAC made with another key, the chain recomputed after it: only the key
    shows it, and the range that holds it says which row."""
    from controller.journal.store import row_hash

    rows = [row[:6] for row in raw_rows(copy)]
    seal = [r for r in rows if r[2] == "seal"][-5]
    statements: list[str] = []
    prev: str | None = None
    for row_id, ts, kind, round_no, stored, stored_prev in rows:
        if row_id < seal[0]:
            continue
        data = stored
        if row_id == seal[0]:
            data = canonical_json({**json.loads(stored), "mac": "0" * 64})
        prev_hash = prev if prev is not None else stored_prev
        digest = row_hash(
            prev_hash, row_id=row_id, ts=ts, kind=kind, round_no=round_no, data_text=data
        )
        statements.append(
            f"UPDATE journal SET data = '{data}', prev_hash = '{prev_hash}', hash = '{digest}'"
            f" WHERE id = {row_id}"
        )
        prev = digest
    tamper(copy, *statements)
    (copy.with_name("journal.sqlite3-head")).write_text(
        canonical_json({"hash": prev, "id": rows[-1][0]}).ljust(127) + "\n"
    )
    one, many = both(copy, sealed[1])
    assert one == many
    assert one.startswith(f"seal: row {seal[0]}: MAC of epoch")
    assert verify(copy, workers=3).ok  # without the key the chain is whole


@pytest.mark.usefixtures("every_walk_parallel")
@pytest.mark.parametrize("workers", [1, 3])
def test_the_incremental_check_walks_only_the_rows_after_the_proof(
    copy: Path, sealed: tuple[Path, VerificationKey], workers: int
) -> None:
    key = sealed[1]
    first = verify(copy, key=key)
    assert first.ok and first.sealed is not None
    row, digest, seals = first.sealed
    assert seals == ROUNDS
    proof = make_proof(key, row, digest, seals)
    with Journal.open(copy, sealing=copy.with_name("sealing-key")) as journal:
        play(journal, ROUNDS + 1, 5)
        last = journal.last_id
    report = verify(copy, key=key, since=proof, workers=workers)
    assert report.case is VerifyCase.INTACT, report.message
    assert report.rows == last - row == 5 * 7
    assert f"rows {row + 1}..{last}" in report.message
    assert f"5 seals good (epochs {ROUNDS}..{ROUNDS + 4}" in report.message
    assert report.sealed is not None and report.sealed[0] == last and report.sealed[2] == ROUNDS + 5
    # What the proof covers is not walked again: a row before it changed in place (no
    # re-chaining) is found by the full walk only.
    tamper(copy, 'UPDATE journal SET data = \'{"card":"KS"}\' WHERE id = 20')
    assert verify(copy, key=key, since=proof).ok
    assert verify(copy, key=key).case is VerifyCase.ALTERED


def test_a_new_row_changed_after_the_proof_is_found(
    copy: Path, sealed: tuple[Path, VerificationKey]
) -> None:
    key = sealed[1]
    row, digest, seals = verify(copy, key=key).sealed or (0, "", 0)
    with Journal.open(copy, sealing=copy.with_name("sealing-key")) as journal:
        play(journal, ROUNDS + 1, 2)
    tamper(copy, f'UPDATE journal SET data = \'{{"card":"KS"}}\' WHERE id = {row + 3}')
    report = verify(copy, key=key, since=make_proof(key, row, digest, seals))
    assert report.case is VerifyCase.ALTERED and report.first_bad_row == row + 3


@pytest.mark.parametrize(
    ("change", "case", "words"),
    [
        (lambda p, k: Proof(p.table, p.row, p.hash, p.seals, "0" * 64), "seal", "MAC"),
        (lambda p, k: Proof("T2", p.row, p.hash, p.seals, p.mac), "seal", "table 'T2'"),
        (lambda p, k: make_proof(k, p.row, "2" * 64, p.seals), "forked", "rewritten"),
        (lambda p, k: make_proof(k, p.row - 1, p.hash, p.seals), "forked", "not the seal"),
        (lambda p, k: make_proof(k, p.row + 99, p.hash, p.seals), "behind", "older copy"),
    ],
)
def test_a_proof_that_does_not_fit_the_journal_or_the_key_is_refused(
    copy: Path, sealed: tuple[Path, VerificationKey], change: object, case: str, words: str
) -> None:
    key = sealed[1]
    row, digest, seals = verify(copy, key=key).sealed or (0, "", 0)
    proof = change(make_proof(key, row, digest, seals), key)  # type: ignore[operator]
    report = verify(copy, key=key, since=proof)
    assert report.case.value == case and words in report.message, report.message


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda p, k: Proof(p.table, p.row, p.hash, p.seals, "0" * 64),
            lambda p: VerifyReport(
                VerifyCase.SEAL,
                "seal: the proof file: its MAC does not match the verification key",
            ),
        ),
        (
            lambda p, k: Proof("T2", p.row, p.hash, p.seals, p.mac),
            lambda p: VerifyReport(
                VerifyCase.SEAL,
                "seal: the proof file: the proof is of table 'T2', the key of table 'T1'",
            ),
        ),
        # The seal's row holds another hash: rewritten.
        (lambda p, k: make_proof(k, p.row, "2" * 64, p.seals), lambda p: forked_report(p.row)),
        # The row before the seal, with the seal's hash: not the seal.
        (lambda p, k: make_proof(k, p.row - 1, p.hash, p.seals), lambda p: forked_report(p.row)),
        # A seal past the journal's end (row 281): an older copy, the rows after it in doubt.
        (
            lambda p, k: make_proof(k, p.row + 99, p.hash, p.seals),
            lambda p: behind_report(TOTAL, p.row),
        ),
    ],
    ids=["mac", "table", "rewritten", "not-the-seal", "behind"],
)
def test_each_refusal_of_a_proof_is_its_whole_report(
    copy: Path, sealed: tuple[Path, VerificationKey], change: object, expected: object
) -> None:
    """docs/journal.md, "An operator's proof": a proof changed or made without the key is
    `seal: the proof file: ...`; `behind` when the journal ends before its seal, `forked`
    when the row differs; each names the first row in doubt."""
    key = sealed[1]
    row, digest, seals = verify(copy, key=key).sealed or (0, "", 0)
    assert row == TOTAL  # the last row is the last round's seal
    proof = change(make_proof(key, row, digest, seals), key)  # type: ignore[operator]
    assert verify(copy, key=key, since=proof) == expected(proof)  # type: ignore[operator]


def test_a_proof_whose_seal_row_is_gone_or_of_an_empty_journal_is_refused(
    copy: Path, sealed: tuple[Path, VerificationKey], tmp_path: Path
) -> None:
    """The seal's row removed (the rows after it kept): forked at that row. A journal with
    no row at all: behind, from row 1, even for a seal at row 1."""
    key = sealed[1]
    row, _digest, seals = verify(copy, key=key).sealed or (0, "", 0)
    (earlier,) = [r for r in raw_rows(copy) if r[0] == row - 7]  # the round before's seal
    proof = make_proof(key, row - 7, earlier[6], seals - 1)
    assert verify(copy, key=key, since=proof).ok  # the proof itself is good
    tamper(copy, f"DELETE FROM journal WHERE id = {row - 7}")
    assert verify(copy, key=key, since=proof) == forked_report(row - 7)
    empty = tmp_path / "empty" / "journal.sqlite3"
    empty.parent.mkdir()
    Journal.open(empty).close()
    assert verify(empty, key=key, since=proof) == behind_report(0, row - 7)
    first = make_proof(key, 1, earlier[6], 1)  # a seal at row 1: the least a proof names
    assert verify(empty, key=key, since=first) == behind_report(0, 1)


def test_the_cli_saves_a_proof_and_checks_from_it(
    copy: Path, sealed: tuple[Path, VerificationKey], capsys: pytest.CaptureFixture[str]
) -> None:
    key_text = sealed[1].to_text()
    proof = copy.with_name("proof")
    args = ["journal", "verify", "--journal", str(copy), "--key", key_text]
    assert main([*args, "--save", str(proof)]) == 0
    saved = read_proof(proof)
    assert saved.seals == ROUNDS and saved.table == "T1"
    with Journal.open(copy, sealing=copy.with_name("sealing-key")) as journal:
        play(journal, ROUNDS + 1, 1)
    capsys.readouterr()
    assert main([*args, "--since", str(proof), "--save", str(proof)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"intact: rows {saved.row + 1}..") and "1 seals good" in out
    assert read_proof(proof).seals == ROUNDS + 1


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--since", "/nonexistent/proof"], "No such file"),
        (["--workers", "0"], "workers must be 1..64"),
        (["--workers", "many"], "not a number of workers"),
    ],
)
def test_bad_verify_options_are_one_line_usage_errors(
    copy: Path, capsys: pytest.CaptureFixture[str], extra: list[str], words: str
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["journal", "verify", "--journal", str(copy), *extra])
    assert caught.value.code == 2
    assert words in capsys.readouterr().err


def test_since_or_save_without_the_key_is_refused(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["journal", "verify", "--journal", str(copy), "--save", str(copy) + "-p"]) == 2
    assert "need --key" in capsys.readouterr().err
    assert not Path(str(copy) + "-p").exists()


def test_a_proof_file_that_is_not_one_is_refused(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = copy.with_name("proof")
    bad.write_text('{"version": 1}')
    with pytest.raises(SystemExit):
        main(["journal", "verify", "--journal", str(copy), "--since", str(bad)])
    assert "not a verify proof file" in capsys.readouterr().err


def test_progress_shows_on_a_terminal_and_not_in_a_pipe(copy: Path) -> None:
    # The limits guard against a hang only: a mutation run's clean run at load 18 took more
    # than 60 s for this 281-row verify (the CLI imports the instrumented tree).
    import pty

    command = [
        sys.executable,
        "-m",
        "controller.cli.main",
        "journal",
        "verify",
        "--journal",
        str(copy),
    ]
    master, slave = pty.openpty()
    try:
        done = subprocess.run(
            command, stderr=slave, stdout=subprocess.PIPE, check=False, timeout=180
        )
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(master)
    assert done.returncode == 0
    assert f"verify: {TOTAL:,} of {TOTAL:,} rows (100%)".encode() in shown
    piped = subprocess.run(command, capture_output=True, check=False, timeout=180)
    assert piped.returncode == 0 and b"verify:" not in piped.stderr


def test_a_key_check_derives_each_epoch_key_once_however_many_checkpoints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A running station's checkpoints (a checkpoint key taken up at epoch 0) between its
    seals: the check evolves the key once an epoch, not again from 0 at each checkpoint
    (a year's check would evolve it billions of times)."""
    from controller.journal import seal as seal_module

    state, key = new_sealing("T1")
    save_state(tmp_path / "sealing-key", state)
    with Journal.open(tmp_path / "journal.sqlite3", sealing=tmp_path / "sealing-key") as journal:
        journal.checkpoint()
        for round_no in range(1, 31):
            journal.append("round_completed", {"reshuffle": False}, round_no)
            journal.checkpoint()
    evolved = 0
    evolve = seal_module.evolve

    def counted(epoch_key: bytes) -> bytes:
        nonlocal evolved
        evolved += 1
        return evolve(epoch_key)

    monkeypatch.setattr(seal_module, "evolve", counted)
    report = verify(tmp_path / "journal.sqlite3", key=key)
    assert report.ok and "31 sealed checkpoints good" in report.message, report.message
    assert evolved <= 30


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=400), st.builds(json.dumps, st.dictionaries(
    st.sampled_from(["version", "table", "row", "hash", "seals", "mac"]),
    st.one_of(st.none(), st.integers(-5, 2**63), st.text(max_size=70), st.booleans()),
))))  # fmt: skip
def test_any_proof_file_text_is_a_proof_or_a_one_line_refusal(text: str) -> None:
    """``--since FILE`` reads what the operator gives: anything that is not a proof is
    refused in one line, never a traceback, and a proof read is one ``make_proof`` could
    have written (its MAC is checked against the key before it is used)."""
    from controller.journal.seal import SealError

    try:
        proof = Proof.from_text(text)
    except SealError as err:
        assert "\n" not in str(err)
    else:
        assert proof.row > 0 and proof.seals > 0 and Proof.from_text(proof.to_text()) == proof
