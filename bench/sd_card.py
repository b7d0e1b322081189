"""What the journal writes to the SD card a round, and how long a card lasts at a busy table.

A simulated busy table (PA, seven seats, the station's own rounds: ``bench/journal_round.py``
records its journal calls) is written again into a fresh sealed journal on an ext4 file
system made and mounted as the Raspberry Pi image's journal partition (DSDATA: ``mkfs.ext4``
defaults, ``noatime``; pi-image/rootfs/etc/fstab), on a loop device of its own, so that the
device's counters (``/sys/block/loopN/stat``) see exactly what the journal sends to the card:
the bytes written, the write requests and the flushes (each fsync of SQLite's WAL, of the
database at a checkpoint, of the head record and the sealing key's replacement reaches the
card as a cache flush, which an SD card pays for with a full program cycle). ext4's own
journal is included: it is part of what a round costs the card.

The card's life follows from the bytes a round under stated assumptions (printed): a 32 GB
industrial card's endurance in program/erase cycles, the write amplification of small
synchronous writes, and a busy table's rounds a day. What the journal keeps (its files once
closed, a round's share) says how many busy days the image's 512 MiB DSDATA holds before it
must be grown or the journal started anew.

    sudo .venv/bin/python bench/sd_card.py [--rounds N]

Needs root (losetup, mount). The boot test on arm64 (vm_tests/test_boot_arm64.py) measures
the same on the image's own partition under QEMU and prints it with its figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from controller.service.logs import configure_logging

sys.path.insert(0, str(Path(__file__).resolve().parent))
from journal_round import record_calls, replay

#: Assumptions for the card's life, each printed with the result.
CARD_BYTES = 32 * 10**9
#: pSLC-mode industrial cards are rated 20,000-30,000 P/E cycles, MLC ones about 3,000: the
#: lower figure, so that a plain industrial MLC card is covered.
PE_CYCLES = 3_000
#: Small synchronous writes: the card programs at least a 16 KiB page for each 4 KiB
#: write it is made to commit, and moves data again when it erases blocks. The worst case is
#: a card that rewrites far more for each flushed write (an unmanaged consumer card).
WRITE_AMPLIFICATION = 4.0
WORST_WRITE_AMPLIFICATION = 30.0
#: A busy table: about a round a minute, twenty hours a day.
ROUNDS_A_DAY = 60 * 20
#: DSDATA's size in the image (vm_tests/pi_image.py, DATA_MIB); the bench's file system too.
DSDATA_BYTES = 512 * 1024 * 1024


def block_stat(device: str) -> dict[str, int]:
    """The device's counters: write requests, sectors written, flushes."""
    fields = [int(f) for f in Path(f"/sys/block/{device}/stat").read_text().split()]
    return {"writes": fields[4], "sectors": fields[6], "flushes": fields[15]}


def run(command: list[str]) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


def measure(rounds: int) -> dict[str, float]:
    """The journal's writes over ``rounds`` recorded rounds on a fresh DSDATA-like ext4."""
    work = Path(tempfile.mkdtemp(prefix="sd-card-"))
    image, mount = work / "data.ext4", work / "mnt"
    mount.mkdir()
    with image.open("wb") as f:
        f.truncate(DSDATA_BYTES)
    run(["mkfs.ext4", "-q", "-F", "-L", "DSDATA", str(image)])
    loop = run(["losetup", "--find", "--show", str(image)])
    try:
        run(["mount", "-o", "noatime", loop, str(mount)])
        try:
            calls, played = record_calls(work, rounds)
            os.sync()
            device = Path(loop).name
            before = block_stat(device)
            started = time.perf_counter()
            replay(mount, calls)
            os.sync()
            seconds = time.perf_counter() - started
            after = block_stat(device)
            # What stays on DSDATA: the closed journal's files (database, head, keys).
            kept = sum(path.stat().st_size for path in mount.iterdir() if path.is_file())
        finally:
            run(["umount", str(mount)])
    finally:
        run(["losetup", "--detach", loop])
        image.unlink()
        for leftover in sorted(work.rglob("*"), reverse=True):
            leftover.unlink() if leftover.is_file() else leftover.rmdir()
        work.rmdir()
    delta = {k: after[k] - before[k] for k in after}
    per_round = delta["sectors"] * 512 / played
    endurance = CARD_BYTES * PE_CYCLES
    years = endurance / (per_round * ROUNDS_A_DAY * WRITE_AMPLIFICATION) / 365
    worst = endurance / (per_round * ROUNDS_A_DAY * WORST_WRITE_AMPLIFICATION) / 365
    kept_per_round = kept / played
    return {
        "rounds": played,
        "bytes_per_round": round(per_round),
        "write_requests_per_round": round(delta["writes"] / played, 1),
        "flushes_per_round": round(delta["flushes"] / played, 1),
        "rounds_per_s_on_this_disk": round(played / seconds, 1),
        "card_bytes": CARD_BYTES,
        "pe_cycles": PE_CYCLES,
        "write_amplification": WRITE_AMPLIFICATION,
        "rounds_a_day": ROUNDS_A_DAY,
        "bytes_a_day": round(per_round * ROUNDS_A_DAY),
        "card_years": round(years, 1),
        "worst_write_amplification": WORST_WRITE_AMPLIFICATION,
        "card_years_worst": round(worst, 1),
        "journal_bytes_kept_per_round": round(kept_per_round),
        "dsdata_busy_days": round(DSDATA_BYTES / (kept_per_round * ROUNDS_A_DAY)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    # The station's log lines (the rig's links, its devices) are not figures: errors
    # only, on stderr, so stdout is the report docs/performance.md shows.
    configure_logging(level="error", form="console", stream=sys.stderr)
    if os.geteuid() != 0:
        print("sd_card: needs root (losetup, mount)", file=sys.stderr)
        return 2
    figures = measure(args.rounds)
    print(
        f"journal on a DSDATA-like ext4, {figures['rounds']} rounds (PA, 7 seats): "
        f"{figures['bytes_per_round']} bytes, {figures['write_requests_per_round']} write "
        f"requests and {figures['flushes_per_round']} flushes a round"
    )
    print(
        f"a {CARD_BYTES // 10**9} GB card of {PE_CYCLES} P/E cycles, write amplification "
        f"{WRITE_AMPLIFICATION}, {ROUNDS_A_DAY} rounds a day: {figures['bytes_a_day']} bytes "
        f"a day, about {figures['card_years']} years ({figures['card_years_worst']} at a write "
        f"amplification of {WORST_WRITE_AMPLIFICATION})"
    )
    print(
        f"the journal keeps {figures['journal_bytes_kept_per_round']} bytes a round: the "
        f"image's {DSDATA_BYTES >> 20} MiB DSDATA holds about {figures['dsdata_busy_days']} "
        "busy days"
    )
    print("FIGURES " + json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
