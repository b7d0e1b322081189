"""The opener's refusals, one by one (firmware_bridge.auth, docs/protocol.md 4b): a counter
not above the last one accepted (the same counter included) is a replay; an altered body,
or a body sealed under another header, fails its tag; a proof is checked, not assumed.
Each refusal names itself in the one line a dropped frame reports."""

from __future__ import annotations

import pytest
from test_bridge_auth import HEADER, pair

from firmware_bridge import AuthenticationError


def test_the_same_counter_again_is_a_replay_and_a_higher_one_opens() -> None:
    sealer, opener = pair()
    first = sealer.seal(HEADER, b"card")
    second = sealer.seal(HEADER, b"next")
    assert opener.open(HEADER, first) == b"card"
    with pytest.raises(AuthenticationError) as caught:
        opener.open(HEADER, first)
    assert str(caught.value) == "frame counter 1 replayed (last 1)"
    assert opener.open(HEADER, second) == b"next"
    with pytest.raises(AuthenticationError) as caught:
        opener.open(HEADER, first)
    assert str(caught.value) == "frame counter 1 replayed (last 2)"


def test_an_altered_body_or_another_header_fails_the_tag_and_leaves_the_counter() -> None:
    sealer, opener = pair()
    body = sealer.seal(HEADER, b"card")
    altered = body[:4] + bytes([body[4] ^ 1]) + body[5:]
    for header, sealed in ((HEADER, altered), (b"\x02\x21\x01\x02\x00", body)):
        with pytest.raises(AuthenticationError) as caught:
            opener.open(header, sealed)
        assert str(caught.value) == "frame tag does not verify"
        assert opener.last == 0  # a forgery does not move the counter
    assert opener.open(HEADER, body) == b"card"


def test_a_proof_is_checked() -> None:
    sealer, opener = pair()
    proof = sealer.proof(b"hello reply")
    assert opener.check_proof(b"hello reply", proof)
    assert not opener.check_proof(b"hello replY", proof)
    assert not opener.check_proof(b"hello reply", bytes(16))
