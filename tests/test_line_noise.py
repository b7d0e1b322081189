"""LineNoise: seeded, reproducible damage; targeted damage hits exactly the next chunks."""

from __future__ import annotations

from drivers.simulated.line_noise import LineNoise

FRAME = bytes(range(1, 40)) + b"\x00"


def test_clean_line_passes_chunks_through() -> None:
    noise = LineNoise()
    assert noise(FRAME) == [FRAME]
    assert noise(b"") == []
    assert noise.chunks_damaged == 0


def test_same_seed_same_damage() -> None:
    rates = {"split_rate": 0.3, "drop_rate": 0.3, "duplicate_rate": 0.3, "corrupt_rate": 0.3}
    first, second = LineNoise(42, **rates), LineNoise(42, **rates)
    assert [first(FRAME) for _ in range(200)] == [second(FRAME) for _ in range(200)]
    assert first.chunks_damaged > 0


def test_corrupt_next_flips_one_bit_in_each_of_the_next_chunks() -> None:
    noise = LineNoise(1)
    noise.corrupt_next(2)
    for _ in range(2):
        (out,) = noise(FRAME)
        diff = [a ^ b for a, b in zip(out, FRAME, strict=True) if a != b]
        assert len(diff) == 1 and bin(diff[0]).count("1") == 1
    assert noise(FRAME) == [FRAME]


def test_drop_and_duplicate_next() -> None:
    noise = LineNoise(2)
    noise.drop_next(1)
    noise.duplicate_next(1)
    assert noise(FRAME) == []
    assert noise(FRAME) == [FRAME, FRAME]
    assert noise(FRAME) == [FRAME]
    assert noise.chunks_damaged == 2


def test_split_keeps_every_byte_in_order() -> None:
    noise = LineNoise(3, split_rate=1.0)
    pieces = noise(FRAME)
    assert len(pieces) == 2
    assert b"".join(pieces) == FRAME
