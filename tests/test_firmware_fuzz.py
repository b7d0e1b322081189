"""The fuzz inputs that drive the Python decoders drive the C firmware's too: the frame
decoder, a device link in a session, the shoe's and the panel's message decoders and the
bench control parser (``firmware/tests/fuzz.c``, built with AddressSanitizer and
UndefinedBehaviorSanitizer). No crash, no hang, no read out of bounds, nothing delivered:
fuzzed bytes carry no valid seal. The open-ended run: ``bench/fuzz_bridge.py --c``."""

from __future__ import annotations

import random
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bridge_fuzz import INPUTS, inputs

from drivers.simulated.c_firmware import SAN_BUILD, FuzzTarget, build


@pytest.fixture(scope="module")
def harness() -> None:
    build("san")


def summary(line: str) -> dict[str, int]:
    return {k: int(v) for k, v in (item.split("=") for item in line.split())}


@pytest.mark.timeout(240)
def test_the_hundred_thousand_inputs_of_the_python_fuzzer_crash_nothing(harness: None) -> None:
    records = b"".join(
        len(data).to_bytes(2, "big") + data for data in inputs(random.Random(1), INPUTS)
    )
    done = subprocess.run(
        [str(SAN_BUILD / "fw-fuzz")], input=records, capture_output=True, timeout=200, check=False
    )
    report = done.stderr.decode(errors="replace")
    assert done.returncode == 0, report[-2000:]
    assert "runtime error" not in report and "Sanitizer" not in report
    counts = summary(done.stdout.decode())
    assert counts["inputs"] == INPUTS
    assert counts["frames"] > 1000 and counts["auth_failures"] > 100  # reached, and refused
    assert counts["delivered"] == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=300), min_size=1, max_size=10))
def test_any_bytes_reach_the_c_decoders_without_a_crash_or_a_hang(
    harness: None, chunks: list[bytes]
) -> None:
    target = FuzzTarget()
    try:
        for chunk in chunks:
            target.feed(chunk)
    finally:
        line = target.close()
    assert "Sanitizer" not in target.report and "runtime error" not in target.report
    assert summary(line)["delivered"] == 0
