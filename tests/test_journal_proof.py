"""The operator's proof file of ``journal verify --save`` / ``--since``, byte for byte as
docs/journal.md ("An operator's proof") and ``controller.journal.proof`` state it: a proof
one version wrote is read and checked by the next, and anything else is refused in one line.
The proof lets the night's check cover the day's rows alone: it must not let a changed or
foreign proof through. Fast (no journal): the files are made by hand."""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
from pathlib import Path

import pytest

from controller.journal.proof import (
    PROOF_MAX_BYTES,
    Proof,
    check_proof,
    make_proof,
    read_proof,
)
from controller.journal.seal import SealError, VerificationKey

SECRET = bytes(range(32))
DIGEST = "ab" * 32


def proof_key(secret: bytes) -> bytes:
    """HKDF-Expand-SHA256(k0, "dealer-station verify proof key v1", 32): one block."""
    info = b"dealer-station verify proof key v1"
    return hmac.new(secret, info + b"\x01", hashlib.sha256).digest()


def expected_mac(table: str, row: int, digest: str, seals: int) -> str:
    """``HMAC-SHA256(proof key, canonical_json(["dealer-station verify proof v1", table,
    row, hash, seals]))``, the canonical JSON written out by hand."""
    text = f'["dealer-station verify proof v1","{table}",{row},"{digest}",{seals}]'
    return hmac.new(proof_key(SECRET), text.encode(), hashlib.sha256).hexdigest()


def proof_text(fields: str) -> str:
    return "{" + fields + "}\n"


def test_a_proof_file_is_the_documented_text_with_the_documented_mac() -> None:
    key = VerificationKey("T1", SECRET)
    proof = make_proof(key, 281, DIGEST, 40)
    mac = expected_mac("T1", 281, DIGEST, 40)
    assert proof == Proof("T1", 281, DIGEST, 40, mac)
    text = proof_text(
        f'"hash":"{DIGEST}","mac":"{mac}","row":281,"seals":40,"table":"T1","version":1'
    )
    assert proof.to_text() == text
    assert Proof.from_text(text) == proof
    assert check_proof(proof, key) == ""


@pytest.mark.parametrize(
    "changed",
    [
        Proof("T1", 282, DIGEST, 40, expected_mac("T1", 281, DIGEST, 40)),
        Proof("T1", 281, "cd" * 32, 40, expected_mac("T1", 281, DIGEST, 40)),
        Proof("T1", 281, DIGEST, 41, expected_mac("T1", 281, DIGEST, 40)),
        Proof("T1", 281, DIGEST, 40, "0" * 64),
        Proof("T1", 281, DIGEST, 40, expected_mac("T1", 281, DIGEST, 40).upper()),
        Proof("T1", 281, DIGEST, 40, ""),
        # what a hostile file's JSON may hold: not ASCII, a lone surrogate
        Proof("T1", 281, DIGEST, 40, "\u00e9" * 64),
        Proof("T1", 281, DIGEST, 40, "\ud800" * 64),
    ],
    ids=["row", "hash", "seals", "zeros", "upper-case", "empty", "latin", "surrogate"],
)
def test_a_proof_changed_in_any_field_fails_its_mac(changed: Proof) -> None:
    assert check_proof(changed, VerificationKey("T1", SECRET)) == (
        "its MAC does not match the verification key"
    )


def test_a_proof_of_another_table_is_refused_by_name() -> None:
    proof = make_proof(VerificationKey("T1", SECRET), 281, DIGEST, 40)
    assert check_proof(proof, VerificationKey("T2", SECRET)) == (
        "the proof is of table 'T1', the key of table 'T2'"
    )
    # Made with the other table's key (same secret): its own MAC, still not T1's proof.
    other = make_proof(VerificationKey("T2", SECRET), 281, DIGEST, 40)
    assert other.mac != proof.mac
    assert check_proof(Proof("T1", 281, DIGEST, 40, other.mac), VerificationKey("T1", SECRET))


def fields(**changed: str) -> str:
    """A proof file's fields (as JSON text), with some values replaced."""
    values = {"hash": f'"{DIGEST}"', "mac": '"00"', "row": "5", "seals": "1", "table": '"T1"'}
    values.update(version="1")
    values.update(changed)
    return proof_text(",".join(f'"{k}":{v}' for k, v in values.items() if v != "-"))


@pytest.mark.parametrize(
    ("row", "seals"),
    [("1", "1"), (str(2**62 - 1), str(2**62 - 1)), ("281", "40")],
)
def test_row_and_seals_from_1_to_below_2_62_are_read(row: str, seals: str) -> None:
    proof = Proof.from_text(fields(row=row, seals=seals))
    assert (proof.row, proof.seals, proof.table, proof.hash) == (int(row), int(seals), "T1", DIGEST)


@pytest.mark.parametrize(
    "changed",
    [
        {"row": "0"},
        {"row": "-1"},
        {"row": str(2**62)},
        {"row": "true"},
        {"row": "5.0"},
        {"row": '"5"'},
        {"seals": "0"},
        {"seals": str(2**62)},
        {"seals": "true"},
        {"seals": "null"},
        {"table": "1"},
        {"table": "null"},
        {"hash": "1"},
        {"hash": "null"},
        {"mac": "0"},
        {"mac": "[]"},
        {"table": "-"},
        {"row": "-"},
        {"hash": "-"},
        {"seals": "-"},
        {"mac": "-"},
        {"version": "-"},
    ],
    ids=lambda changed: "-".join(f"{k}={v}" for k, v in changed.items()),
)
def test_a_field_missing_or_out_of_range_is_not_a_proof(changed: dict[str, str]) -> None:
    with pytest.raises(SealError) as refused:
        Proof.from_text(fields(**changed))
    assert str(refused.value) == "not a verify proof file"


@pytest.mark.parametrize("text", ["", "[]", "[1, 2]", '"proof"', "5", "{", "{}\n{}"])
def test_text_that_is_not_a_json_object_is_not_a_proof(text: str) -> None:
    with pytest.raises(SealError) as refused:
        Proof.from_text(text)
    assert str(refused.value) == "not a verify proof file"


@pytest.mark.parametrize(("version", "shown"), [("2", "2"), ("0", "0"), ('"1"', "'1'")])
def test_a_proof_of_another_version_is_refused_naming_it(version: str, shown: str) -> None:
    with pytest.raises(SealError) as refused:
        Proof.from_text(fields(version=version))
    assert str(refused.value) == f"verify proof of version {shown} is not supported"


def padded(path: Path, size: int) -> Path:
    """A good proof's text with spaces before its newline (JSON allows them), ``size``
    bytes in all."""
    text = make_proof(VerificationKey("T1", SECRET), 281, DIGEST, 40).to_text()
    path.write_text(text[:-1] + " " * (size - len(text)) + "\n")
    assert path.stat().st_size == size
    return path


def test_a_proof_file_of_up_to_4096_bytes_is_read(tmp_path: Path) -> None:
    assert PROOF_MAX_BYTES == 4096
    proof = read_proof(padded(tmp_path / "proof", 4096))
    assert proof == make_proof(VerificationKey("T1", SECRET), 281, DIGEST, 40)


@pytest.mark.parametrize("size", [4097, 4098, 9000])
def test_a_larger_file_is_not_a_proof(tmp_path: Path, size: int) -> None:
    with pytest.raises(SealError) as refused:
        read_proof(padded(tmp_path / "proof", size))
    assert str(refused.value) == "larger than 4096 bytes: not a verify proof file"


def test_a_proof_file_with_bytes_that_are_not_ascii_is_refused_in_one_line(
    tmp_path: Path,
) -> None:
    """A real proof is ASCII (canonical JSON escapes the rest): a byte outside it reads as
    U+FFFD, so a proof whose table holds one is not the key's table's proof, and one
    outside a string is no JSON; never a decoding traceback."""
    key = VerificationKey("T1", SECRET)
    text = make_proof(key, 281, DIGEST, 40).to_text().encode()
    bad = tmp_path / "proof"
    bad.write_bytes(text.replace(b'"T1"', b'"T\xff"'))
    assert check_proof(read_proof(bad), key) == (
        "the proof is of table 'T\ufffd', the key of table 'T1'"
    )
    bad.write_bytes(text.replace(b"281", b"2\xe981"))
    with pytest.raises(SealError):
        read_proof(bad)
    # Read as ASCII, not UTF-8: each byte of a UTF-8 letter is one U+FFFD.
    bad.write_bytes(text.replace(b'"T1"', '"T\u00e9"'.encode()))
    assert check_proof(read_proof(bad), key) == (
        "the proof is of table 'T\ufffd\ufffd', the key of table 'T1'"
    )


def test_a_proof_file_that_never_ends_is_refused_after_4097_bytes(tmp_path: Path) -> None:
    """``--since`` of a FIFO (or a device) that goes on: read no further than one byte
    past the limit, then refused, while the writer still holds it open."""
    fifo = tmp_path / "proof"
    os.mkfifo(fifo)
    read_done = threading.Event()
    writer_gave_up = []

    def write() -> None:
        fd = os.open(fifo, os.O_WRONLY)
        try:
            # One write (a pipe holds 64 KiB): the reader sees it whole or not at all.
            os.write(fd, b" " * 8192)
            # Held open until the reader is done (or 30 s: a reader that reads to the end)
            writer_gave_up.append(not read_done.wait(30))
        finally:
            os.close(fd)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        with pytest.raises(SealError) as refused:
            read_proof(fifo)
    finally:
        read_done.set()
        writer.join()
    assert str(refused.value) == "larger than 4096 bytes: not a verify proof file"
    assert writer_gave_up == [False]
