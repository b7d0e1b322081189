"""The known-answer vectors both implementations check: ``tests/data/protocol_vectors.txt``
against ``firmware_bridge`` (the C firmware checks the same file: firmware/tests/vectors.c,
run by ``make -C firmware test``). The expected values are docs/protocol.md's worked
examples and the RFCs' own vectors."""

from __future__ import annotations

import binascii
import hashlib
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

import firmware_bridge as fb
from firmware_bridge.auth import Opener, Sealer, session_key_material
from firmware_bridge.frame import FrameDecoder, _cobs_decode, _cobs_encode

VECTORS = Path(__file__).parent / "data" / "protocol_vectors.txt"


def load() -> list[tuple[str, str, dict[str, bytes]]]:
    out = []
    for line in VECTORS.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        kind, name, *fields = line.split()
        out.append(
            (kind, name, {k: bytes.fromhex(v) for k, v in (f.split("=", 1) for f in fields)})
        )
    return out


ALL = load()


def of(kind: str) -> list[tuple[str, dict[str, bytes]]]:
    return [(name, f) for k, name, f in ALL if k == kind]


def test_the_file_has_every_kind_and_every_message_frame() -> None:
    kinds = {k for k, _, _ in ALL}
    assert kinds == {
        "crc", "cobs", "frame", "keys", "proof", "sealed", "aead", "hkdf", "sha256",
        "x25519", "pairing", "commitment",
    }  # fmt: skip
    assert {name for name, _ in of("frame")} >= {"Hello", "HelloReply", "CardDrawnReport"}
    assert len(of("frame")) == 32  # every message of section 7 has its frame


@pytest.mark.parametrize(("name", "f"), of("crc"))
def test_crc(name: str, f: dict[str, bytes]) -> None:
    assert binascii.crc_hqx(f["data"], 0xFFFF) == int.from_bytes(f["crc"], "big")


@pytest.mark.parametrize(("name", "f"), of("cobs"))
def test_cobs(name: str, f: dict[str, bytes]) -> None:
    assert _cobs_encode(f["decoded"]) == f["encoded"]
    assert _cobs_decode(f["encoded"]) == f["decoded"]


@pytest.mark.parametrize(("name", "f"), of("frame"))
def test_frame(name: str, f: dict[str, bytes]) -> None:
    h = f["header"]
    frame = fb.Frame(h[0], h[1], h[2], h[3], h[4], f["payload"])
    assert fb.encode_frame(frame) == f["wire"]
    (decoded,) = FrameDecoder().feed(f["wire"])
    assert decoded == frame
    type_id, payload = fb.encode_message(fb.decode_message(h[1], f["payload"]))
    assert (type_id, payload) == (h[1], f["payload"])


@pytest.mark.parametrize(("name", "f"), of("keys"))
def test_session_keys(name: str, f: dict[str, bytes]) -> None:
    okm = session_key_material(f["secret"], f["ns"], f["nd"], f["kind"][0])
    assert (okm[:32], okm[32:]) == (f["s2d"], f["d2s"])


@pytest.mark.parametrize(("name", "f"), of("proof"))
def test_proof(name: str, f: dict[str, bytes]) -> None:
    assert Sealer(ChaCha20Poly1305(f["key"])).proof(f["data"]) == f["proof"]


@pytest.mark.parametrize(("name", "f"), of("sealed"))
def test_sealed_frame(name: str, f: dict[str, bytes]) -> None:
    sealer = Sealer(ChaCha20Poly1305(f["key"]))
    counter = int.from_bytes(f["counter"], "big")
    sealer.counter = counter - 1
    body = sealer.seal(f["header"], f["payload"])
    assert body == f["counter"] + f["body"]
    opener = Opener(ChaCha20Poly1305(f["key"]))
    opener.last = counter - 1
    assert opener.open(f["header"], body) == f["payload"]
    with pytest.raises(fb.AuthenticationError):
        opener.open(f["header"], body)  # the same counter again: a replay
    assert fb.encode_frame(fb.decode_frame(f["wire"][:-1])) == f["wire"]


@pytest.mark.parametrize(("name", "f"), of("aead"))
def test_aead(name: str, f: dict[str, bytes]) -> None:
    sealed = ChaCha20Poly1305(f["key"]).encrypt(f["nonce"], f["pt"], f["ad"])
    assert sealed == f["ct"] + f["tag"]


@pytest.mark.parametrize(("name", "f"), of("hkdf"))
def test_hkdf(name: str, f: dict[str, bytes]) -> None:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    hkdf = HKDF(algorithm=hashes.SHA256(), length=len(f["okm"]), salt=f["salt"], info=f["info"])
    assert hkdf.derive(f["ikm"]) == f["okm"]


@pytest.mark.parametrize(("name", "f"), of("sha256") + of("commitment"))
def test_digests(name: str, f: dict[str, bytes]) -> None:
    data = f.get("data", f.get("text"))
    assert hashlib.sha256(data or b"").digest() == f.get("digest", f.get("commitment"))


@pytest.mark.parametrize(("name", "f"), of("x25519"))
def test_x25519(name: str, f: dict[str, bytes]) -> None:
    a = X25519PrivateKey.from_private_bytes(f["a_priv"])
    assert a.public_key().public_bytes_raw() == f["a_pub"]
    assert a.exchange(X25519PublicKey.from_public_bytes(f["b_pub"])) == f["shared"]


@pytest.mark.parametrize(("name", "f"), of("pairing"))
def test_pairing_secret(name: str, f: dict[str, bytes], monkeypatch: pytest.MonkeyPatch) -> None:
    from firmware_bridge import auth

    keys = iter([f["station_priv"], f["device_priv"]])
    monkeypatch.setattr(
        auth.X25519PrivateKey,
        "generate",
        staticmethod(lambda: X25519PrivateKey.from_private_bytes(next(keys))),
    )
    station, device = auth.PairingKey(), auth.PairingKey()
    info = auth.pairing_info(f["kind"][0], f["serial"].decode())
    ps, pd = station.public, device.public
    assert station.secret(pd, ps, pd, info) == f["secret"]
    assert device.secret(ps, ps, pd, info) == f["secret"]
