"""The C firmware's budget on a Cortex-M: flash, RAM and stack per application, and the
cost of each cryptographic step, against an RP2040-class and an STM32F0-class board.

Builds the images (``make -C firmware arm``, for the Cortex-M3 of QEMU's mps2-an385 and,
with ``ARM_CPU=cortex-m0``, for ARMv6-M: an STM32F0's core), then:

* **flash and static RAM** per application from the ELF's sections (``.text`` + ``.data``
  in flash, ``.data`` + ``.bss`` in RAM; the 16 KB stack region the linker script reserves
  is not counted: the stack's high-water mark is). Static RAM is split into the link and
  the application, and the bench control channel's buffers (a production board's sensors
  replace that channel).
* **stack high-water mark** of the shoe and the panel board after real rounds on the
  emulated boards (``dealer-station simulate --firmware qemu``: pairing, handshakes,
  sealed frames both ways, hole cards, lamps, wagers), from the painted stack.
* **instructions per step** (sealing and opening a card frame, a 220-byte frame, the
  handshake's keys and proof, the hole-card commitment, pairing) from ``fw-bench.elf``
  under ``qemu-system-arm -icount shift=0``: QEMU counts instructions, not cycles (it has
  no cycle model), so these are instructions retired, read through SysTick (40 of them a
  tick). A Cortex-M3 retires about one instruction a cycle outside loads, branches and
  divisions; an M0+ (RP2040) or M0 (STM32F0) at most one, and multiplies 32x32->64 in
  software (the M0 column counts those instructions too).

Run: ``.venv/bin/python bench/firmware_budget.py [--rounds 12]``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.service.logs import configure_logging  # noqa: E402
from controller.simulation.runner import SimulatedTable, SimulationSettings  # noqa: E402
from drivers.simulated.c_firmware import FIRMWARE_DIR, build  # noqa: E402

RP2040 = {"flash": 2 * 1024 * 1024, "ram": 264 * 1024}
STM32F0 = {"flash": 256 * 1024, "ram": 32 * 1024}  # STM32F091: 256 KB flash, 32 KB RAM
BENCH_BUFFERS = re.compile(r"^(reply|body|line)(\.\d+)?$")  # the bench channel's


def _tool(*command: str) -> str:
    """What a toolchain program prints."""
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def sections(elf: Path) -> dict[str, int]:
    out = _tool("arm-none-eabi-size", "-A", str(elf))
    sizes = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].startswith(".") and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    return sizes


def bench_buffer_bytes(elf: Path) -> int:
    out = _tool("arm-none-eabi-nm", "-S", str(elf))
    total = 0
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "bBdD" and BENCH_BUFFERS.match(parts[3]):
            total += int(parts[1], 16)
    return total


def footprint(build_dir: Path, app: str) -> dict[str, int]:
    elf = build_dir / f"fw-{app}.elf"
    s = sections(elf)
    flash = s.get(".text", 0) + s.get(".ARM.exidx", 0) + s.get(".data", 0)
    ram = s.get(".data", 0) + s.get(".bss", 0)
    bench = bench_buffer_bytes(elf)
    return {
        "flash": flash,
        "flash_page": s.get(".flashpage", 0),
        "static_ram": ram,
        "bench_buffers": bench,
    }


def step_costs(build_dir: Path) -> dict[str, dict[str, int]]:
    """Each step's instructions and stack, from the bench image's lines."""
    steps: dict[str, dict[str, int]] = {}
    for line in _run_until_done(build_dir / "fw-bench.elf").splitlines():
        m = re.match(r"(\w+) instructions=(\d+) stack=(\d+)", line)
        if m:
            steps[m.group(1)] = {"instructions": int(m.group(2)), "stack": int(m.group(3))}
    return steps


def _run_until_done(elf: Path) -> str:
    """Run the bench image until it prints ``done``; its output."""
    command = (
        "qemu-system-arm -machine mps2-an385 -display none -monitor none -nodefaults"
        f" -icount shift=0 -kernel {elf} -serial null -serial stdio"
    ).split()
    proc = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line.strip())
            if line.strip() == "done":
                break
    finally:
        proc.kill()
        proc.wait(10)
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=12, help="rounds on the emulated boards")
    args = parser.parse_args()
    configure_logging(level="error", form="console", stream=sys.stderr)
    build("arm")
    build("arm", "ARM_CPU=cortex-m0")
    figures: dict[str, int] = {}  # counts of bytes and instructions; fits_* are bools
    builds = {"m3": FIRMWARE_DIR / "build" / "arm", "m0": FIRMWARE_DIR / "build" / "arm-m0"}
    stacks = measure_stacks(args.rounds)
    print("Footprint per application (bytes)")
    print("  core  app    flash  flash page  static RAM (of it bench channel)  stack high-water*")
    for core, build_dir in builds.items():
        for app in ("shoe", "panel"):
            f = footprint(build_dir, app)
            stack = stacks[app]
            print(
                f"  {core:4}  {app:5} {f['flash']:6}  {f['flash_page']:10}  "
                f"{f['static_ram']:10} ({f['bench_buffers']:5})              {stack:6}"
            )
            figures[f"{app}_flash_bytes_{core}"] = f["flash"]
            figures[f"{app}_static_ram_bytes_{core}"] = f["static_ram"]
            figures[f"{app}_bench_buffer_bytes_{core}"] = f["bench_buffers"]
        figures[f"flash_page_bytes_{core}"] = footprint(build_dir, "shoe")["flash_page"]
    figures["shoe_stack_bytes"] = stacks["shoe"]
    figures["panel_stack_bytes"] = stacks["panel"]
    print("  * after the rounds on the emulated (M3) boards, the bench channel's lines included")
    print("\nInstructions per step (QEMU -icount shift=0), and the step's stack")
    for core, build_dir in builds.items():
        for step, cost in step_costs(build_dir).items():
            print(f"  {core}  {step:24} {cost['instructions']:9}  stack {cost['stack']}")
            figures[f"{step}_instructions_{core}"] = cost["instructions"]
            figures[f"{step}_stack_{core}"] = cost["stack"]
    # The rounds ran on the M3 images; an M0 build's deepest step needs this much more.
    deepest = {
        core: max(v for k, v in figures.items() if k.endswith(f"_stack_{core}")) for core in builds
    }
    extra = {"m3": 0, "m0": max(0, deepest["m0"] - deepest["m3"])}
    figures["m0_extra_stack_bytes"] = extra["m0"]
    worst_ram = max(
        figures[f"{app}_static_ram_bytes_{core}"] + figures[f"{app}_stack_bytes"] + extra[core]
        for app in ("shoe", "panel")
        for core in builds
    )
    worst_flash = max(
        figures[f"{app}_flash_bytes_{core}"] + 4096 for app in ("shoe", "panel") for core in builds
    )
    figures["worst_ram_bytes"] = worst_ram
    figures["worst_flash_bytes"] = worst_flash
    figures["fits_rp2040"] = worst_ram <= RP2040["ram"] and worst_flash <= RP2040["flash"]
    figures["fits_stm32f0"] = worst_ram <= STM32F0["ram"] and worst_flash <= STM32F0["flash"]
    print(
        f"\nWorst application: {worst_flash} bytes of flash (with a 4 KB flash-page sector),"
        f" {worst_ram} bytes of RAM (static and stack). RP2040 (264 KB RAM, 2 MB flash):"
        f" {'fits' if figures['fits_rp2040'] else 'does not fit'}; STM32F0-class (32 KB RAM,"
        f" 256 KB flash): {'fits' if figures['fits_stm32f0'] else 'does not fit'}."
    )
    print("FIGURES " + json.dumps(figures))
    return 0


def measure_stacks(rounds: int) -> dict[str, int]:
    """Each board's stack high-water mark after ``rounds`` real rounds (read just before
    the rig powers the boards off)."""
    stacks: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="fw-budget-") as tmp:
        settings = SimulationSettings(
            rounds=rounds, seed=7, journal=Path(tmp) / "j.sqlite3", firmware="qemu"
        )
        table = SimulatedTable(settings)
        original = table.table_side

        def side(rig: Any) -> Any:
            close = rig.close

            def read_then_close() -> None:
                stacks["shoe"] = int(rig.shoe.ask("stack"))
                stacks["panel"] = int(rig.panel_board.ask("stack"))
                close()

            rig.close = read_then_close
            return original(rig)

        table.table_side = side  # type: ignore[method-assign]
        result = table.run()
        if result.rounds < rounds:
            raise SystemExit(f"only {result.rounds} of {rounds} rounds on the emulated boards")
    return stacks


if __name__ == "__main__":
    sys.exit(main())
