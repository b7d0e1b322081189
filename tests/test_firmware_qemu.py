"""The short run on emulated Cortex-M boards: the shoe and the panel board as the C
firmware's Cortex-M images on QEMU's mps2-an385 (``make -C firmware arm``, cached), a few
rounds through the real station, with the same cards and settlements as the Python doubles
give for the same seed (``bench/firmware_rounds.py``; its long run is a benchmark)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "firmware_rounds.py"


@pytest.mark.timeout(300)
def test_rounds_on_emulated_boards_settle_as_on_the_doubles() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--rounds", "4", "--seed", "3"],
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1].removeprefix("FIGURES "))
    assert figures["rounds"] == 4
    assert figures["same_outcome_as_doubles"] is True
    assert "same cards and settlements in the same order: yes" in proc.stdout
