"""Run every benchmark under bench/ and write docs/performance.md (``make bench``).

Each benchmark in :data:`BENCHMARKS` runs as its own process with arguments sized so that
the whole run takes a few minutes on a 2-core machine. A script that prints a final line
``FIGURES {json}`` has its figures tabulated beside their targets; a script
without that line is shown by its full output. A script that is not in the tree is listed
as missing, not an error. The section of the document between the ``hand-recorded`` markers
(the 10-million-hand house-edge runs, too long for ``make bench``) is kept as it is.

    .venv/bin/python bench/run_all.py [--output docs/performance.md] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

# bench/ is not a package: the document module sits beside this script.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from performance_doc import (
    HAND_BEGIN,
    HAND_END,
    ROOT,
    Benchmark,
    Result,
    Target,
    hand_recorded,
    machine,
    render,
)

__all__ = ["HAND_BEGIN", "HAND_END", "Benchmark", "Result", "Target", "machine", "render"]

DEFAULT_OUTPUT = ROOT / "docs" / "performance.md"
TIMEOUT_S = 600.0
FIGURES_PREFIX = "FIGURES "

BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark(
        "Rules engine",
        "bench/rules_bench.py",
        # The peer (cardsharp) is measured when $PEER_PYTHON names its separate environment
        # (docs/performance.md gives the commands); without it only our figures print.
        ("--rounds", "20000", "--hands", "200000", "--repeats", "3"),
        ("--rounds", "200", "--hands", "500", "--repeats", "1"),
        # The compiled engine (build/mypyc, `make compiled`: make bench builds it) is
        # measured beside the pure-Python one when the build exists.
        keys=(
            "rounds_per_s",
            "hands_per_s",
            "lfl_hands_per_s",
            "compiled_rounds_per_s",
            "compiled_lfl_hands_per_s",
            "compiled_vs_pure",
            "peer_hands_per_s",
            "lfl_vs_peer",
            "compiled_lfl_vs_peer",
        ),
        targets=(
            Target("rounds_per_s", ">=", 10_000, ">= 10,000 rounds/s, 7 seats, one core"),
            Target(
                "lfl_hands_per_s",
                ">=",
                75_000,
                ">= 75,000 hands/s like for like (1 seat, basic strategy), one core",
            ),
            Target(
                "compiled_lfl_vs_peer",
                ">=",
                5,
                ">= 5x cardsharp spanish21, same run (compiled engine, mypyc)",
            ),
        ),
    ),
    Benchmark(
        "Wire protocol",
        "bench/protocol_bench.py",
        ("--frames", "100000"),
        ("--frames", "2000"),
        keys=(
            "frames",
            "frame_overhead_bytes",
            "card_frame_bytes",
            "encode_frames_per_s",
            "decode_frame_per_s",
            "decoder_feed_frames_per_s",
            "decoder_message_frames_per_s",
            "sealed_card_frame_bytes",
            "authenticated_frames_per_s",
            "endpoint_messages_per_s",
            "message_cpu_us",
            "message_ack_each_cpu_us",
        ),
        targets=(
            Target("card_frame_bytes", "<", 16, "card-drawn frame < 16 bytes"),
            Target(
                "authenticated_frames_per_s",
                ">=",
                200_000,
                ">= 200,000 authenticated frames/s decoded",
            ),
            Target("decode_frame_per_s", ">=", 200_000, ">= 200,000 frames/s decoded"),
            Target("decoder_feed_frames_per_s", ">=", 200_000, ">= 200,000 frames/s decoded"),
        ),
    ),
    Benchmark(
        "Shoe link latency",
        "bench/link_latency.py",
        ("--cards", "10000", "--peeks", "1000"),
        ("--cards", "200", "--peeks", "50"),
        keys=("cards", "card_p50_ms", "card_p99_ms", "card_max_ms", "peek_p50_ms", "peek_p99_ms"),
        targets=(Target("card_p99_ms", "<", 2.0, "p99 < 2 ms, pty card frame -> CardDrawn"),),
    ),
    Benchmark(
        "Table procedure",
        "bench/procedure_bench.py",
        ("--rounds", "2000"),
        ("--rounds", "20"),
        keys=(
            "rounds",
            "events",
            "events_per_s",
            "p50_us",
            "p99_us",
            "max_us",
            "mean_us",
            "cpu_p99_us",
        ),
        targets=(
            Target("p99_us", "<", 1000, "p99 < 1 ms (1,000 us) per event"),
            # The same goal on the thread's CPU time tells the code's cost from other load.
            Target("cpu_p99_us", "<", 1000, "same, CPU time of the thread only"),
        ),
    ),
    Benchmark(
        "Wire stack threads in the HIL run",
        "bench/link_threads.py",
        ("--rounds", "300"),
        ("--rounds", "5"),
        keys=(
            "station_process_ms",
            "station_loop_ms",
            "station_panel_link_ms",
            "station_shoe_link_ms",
            "station_reader_link_ms",
            "station_shuffler_link_ms",
            "doubles_process_ms",
            "doubles_main_ms",
            "doubles_pty_panel_ms",
            "doubles_pty_shoe_ms",
            "doubles_pty_shuffler_ms",
        ),
    ),
    Benchmark(
        "Hardware-in-the-loop throughput",
        "bench/hil_throughput.py",
        ("--rounds", "300"),
        ("--rounds", "5"),
        keys=(
            "rounds_per_s",
            "cpu_ms_per_round",
            "station_cpu_ms_per_round",
            "doubles_process_cpu_ms_per_round",
            "devices_cpu_ms_per_round",
            "dealer_cpu_ms_per_round",
            "station_loop_cpu_ms_per_round",
            "relay_cpu_ms_per_round",
            "reader_cpu_ms_per_round",
            "panel_frames_per_round",
            "observation_batches_per_round",
            "dealer_looks_per_round",
            "dealer_deliveries_per_round",
            "station_thread_cpu_ms_per_round",
            "dealer_thread_cpu_ms_per_round",
            "inproc_rounds_per_s",
            "inproc_cpu_ms_per_round",
            "inproc_station_cpu_ms_per_round",
            "disk_rounds_per_s",
            "disk_station_cpu_ms_per_round",
            "disk_doubles_process_cpu_ms_per_round",
        ),
        targets=(
            Target(
                "rounds_per_s",
                ">=",
                100,
                ">= 100 rounds/s, 7 seats, real transports, doubles in their own process",
            ),
            # 100 rounds/s: under 10 ms of the station process's own CPU a round.
            Target(
                "station_cpu_ms_per_round",
                "<",
                10,
                "station process (its own rusage) < 10 ms CPU per round",
            ),
        ),
    ),
    Benchmark(
        "Long soak",
        "bench/soak_bench.py",
        ("--rounds", "2500"),
        None,  # the test command runs the short soak itself
        keys=("rounds", "passed", "seconds", "rounds_per_s"),
        targets=(Target("passed", "==", True, "every dealt card journalled once"),),
    ),
    Benchmark(
        "Kill loop: the real daemon killed and started again",
        "bench/kill_loop.py",
        ("--kills", "110"),
        None,  # the test command runs a short kill loop itself (tests/test_kill_loop.py)
        keys=(
            "kills",
            "kills_in_start",
            "kills_at_a_log_line",
            "kills_at_a_look",
            "kills_at_a_time",
            "kills_out_of_step",
            "starts",
            "starts_ready",
            "start_failures",
            "rounds",
            "rounds_completed",
            "rounds_voided",
            "voids_after_money",
            "resumed_after_restart",
            "hole_cards_sealed_by_the_station",
            "wrong_card_rounds",
            "verify_key",
            "seconds",
        ),
        targets=(
            Target("kills", ">=", 100, ">= 100 SIGKILLs of the real daemon"),
            Target("start_failures", "==", 0, "every start after a kill succeeds"),
            Target(
                "wrong_card_rounds",
                "==",
                0,
                "no round settled on a wrong hole card",
            ),
            Target("verify_key", "==", "intact", "verify --key intact at the end"),
        ),
    ),
    Benchmark(
        "Daemon start and memory",
        "bench/daemon_start.py",
        ("--rounds", "1000"),
        ("--starts", "1", "--rounds", "20"),
        keys=("ready_s", "ready_cpu_s", "check_config_cpu_s", "idle_rss_mib", "rss_mib"),
        targets=(
            Target("ready_s", "<", 1.5, "start to READY < 1.5 s"),
            Target(
                "ready_cpu_s",
                "<",
                0.75,
                "CPU to READY < 0.75 s (Python about 4x slower on a Pi 4: under 3 s there)",
            ),
            Target("rss_mib", "<", 60, "RSS < 60 MiB after 1,000 simulated rounds"),
        ),
    ),
    Benchmark(
        "SD card wear",
        "bench/sd_card.py",
        ("--rounds", "200"),
        ("--rounds", "3"),
        keys=(
            "bytes_per_round",
            "write_requests_per_round",
            "flushes_per_round",
            "card_years",
            "card_years_worst",
            "journal_bytes_kept_per_round",
            "dsdata_busy_days",
        ),
    ),
    Benchmark(
        "Audit journal",
        "bench/journal_bench.py",
        ("--rows", "1000", "--verify-rows", "100000", "--start-rows", "1000000", "--rounds", "200"),
        ("--rows", "20", "--verify-rows", "2000", "--start-rows", "5000", "--rounds", "5"),
        keys=(
            "append_rows_per_s",
            "append_mean_ms",
            "event_commit_mean_ms",
            "row_cpu_us",
            "rows_per_round",
            "commits_per_round",
            "card_to_prompt_p50_ms",
            "card_to_prompt_p99_ms",
            "journal_cpu_round_ms_tmpfs",
            "journal_cpu_round_ms_disk",
            "checkpoints_per_round_tmpfs",
            "checkpoint_commit_max_ms_tmpfs",
            "checkpoint_commit_max_ms_disk",
            "plain_append_ms",
            "sealed_append_ms",
            "seal_cost_ms",
            "verify_s",
            "verify_rows_per_s",
            "verify_tail_2000_ms",
            "recall_10_rounds_ms",
            "start_rows",
            "first_check_s",
            "restore_ms",
            "start_ready_s",
            "verify_key_s",
        ),
        targets=(
            Target("start_ready_s", "<", 1.5, "start to READY < 1.5 s on a 1M-row journal"),
            Target(
                "commits_per_round",
                "<",
                55,
                "fewer than ~55 commits a round, one per event (journal on disk, fsync)",
            ),
        ),
    ),
    Benchmark(
        "Journal storage layouts a round (format 2, measured before the writer changes)",
        "bench/journal_layouts.py",
        ("--rounds", "200"),
        ("--rounds", "8"),
        keys=(
            "v1_today_4_kib_pages_file",
            "v1_today_4_kib_pages_writes",
            "v1_1_kib_pages_file",
            "v1_1_kib_pages_writes",
            "v2_no_hash_1_kib_ts_from_base_file",
            "v2_hash_every_32nd_1_kib_base_file",
            "commit_blocks_last_hash_4_kib_file",
            "commit_blocks_last_hash_4_kib_writes",
            "commit_blocks_last_hash_1_kib_file",
            "commit_blocks_last_hash_1_kib_writes",
            "encode_us_per_row",
            "decode_us_per_row",
            "block_encode_us_per_row",
            "block_decode_us_per_row",
        ),
        targets=(
            Target(
                "commit_blocks_last_hash_4_kib_file",
                "<",
                4_500,
                "< 4,500 bytes a round live: 10x fewer than the ~45 KB a round before (d42c833)",
            ),
        ),
    ),
    Benchmark(
        "Journal bytes and storage writes a round",
        "bench/journal_bytes.py",
        ("--rounds", "200"),
        ("--rounds", "3"),
        keys=(
            "rows_per_round",
            "file_bytes_per_round",
            "file_bytes_per_year_gb",
            "archive_bytes_per_round",
            "archive_gb_per_year",
            "write_bytes_per_round",
            "write_gb_per_year",
            "syncs_per_round",
        ),
        targets=(
            Target(
                "archive_bytes_per_round",
                "<",
                4_500,
                "< 4,500 bytes a round kept: 10x fewer than the ~45 KB a round before (d42c833)",
            ),
            Target(
                "write_bytes_per_round",
                "<",
                560_000,
                "fewer bytes written a round than the ~560 KB of d42c833 (/proc/self/io)",
            ),
            Target(
                "syncs_per_round",
                "<",
                14.9,
                "fewer fsync + fdatasync a round than the 14.9 of d42c833 (strace)",
            ),
        ),
    ),
    Benchmark(
        "The live journal under nightly rotation",
        "bench/journal_rotate.py",
        ("--days", "3", "--format", "2"),
        ("--days", "2", "--rounds-a-day", "12", "--segment-rows", "300", "--pool-rounds", "12"),
        keys=(
            "live_bytes_after",
            "live_bytes_max",
            "rotation_s",
            "rotation_written_bytes",
            "archive_bytes_per_day",
        ),
        targets=(
            Target(
                "live_bytes_max",
                "<",
                16_000_000,
                "the live journal (format 2, a busy table) stays under 16 MB with the nightly"
                " rotation, whatever its age",
            ),
        ),
    ),
    Benchmark(
        "A table-year archived, verified with the key",
        "bench/journal_year.py",
        ("--days", "30"),
        ("--days", "1", "--cache", "/tmp/dealer-station-bench-tiny"),
        keys=(
            "year_rows",
            "archive_bytes_per_round",
            "verify_archive_key_s",
            "verify_archive_cpu_s",
            "verify_rows_per_cpu_s",
            "verify_year_s_two_idle_cores",
            "load_average_before",
        ),
        targets=(
            Target(
                "verify_year_s_two_idle_cores",
                "<",
                60,
                "verify --key of a table-year < 60 s on this machine's two cores (CPU time"
                " measured, at the load printed)",
            ),
        ),
    ),
    Benchmark(
        "Casino floor: stations -> MQTT -> collector -> PostgreSQL",
        "bench/floor_bench.py",
        ("--stations", "200", "--rounds", "20", "--live-stations", "200"),
        (
            "--stations",
            "2",
            "--rounds",
            "1",
            "--live-stations",
            "2",
            "--round-seconds",
            "0.5",
            "--live-seconds",
            "1.5",
            "--table-rounds",
            "2",
        ),
        keys=(
            "stations",
            "rows",
            "rows_per_s",
            "collector_cpu_ms_per_1000_rows",
            "db_bytes_per_row",
            "db_heap_bytes_per_row",
            "db_index_bytes_per_row",
            "db_mb_per_table_day",
            "db_tb_per_year_200_tables",
            "live_stations",
            "live_rows_per_s",
            "lag_p50_ms",
            "lag_p99_ms",
            "table_rounds_per_s_no_floor",
            "table_rounds_per_s_broker_down",
            "table_rounds_per_s_shipping",
        ),
        targets=(
            Target("rows_per_s", ">=", 20_000, ">= 20,000 rows/s ingested"),
            Target("lag_p99_ms", "<", 1000, "commit-to-database lag p99 < 1 s"),
        ),
    ),
    Benchmark(
        "Floor console: the grid and the pit view at 2,000 tables",
        "bench/console_bench.py",
        ("--tables", "2000", "--pits", "20", "--runs", "50"),
        ("--tables", "20", "--pits", "2", "--runs", "3", "--ingest-copies", "1"),
        keys=(
            "tables",
            "grid_p50_ms",
            "grid_p99_ms",
            "grid_full_kib",
            "grid_update_kib",
            "pit_p50_ms",
            "pit_p99_ms",
            "one_pit_p50_ms",
            "one_pit_p99_ms",
            "old_grid_p50_ms",
            "old_grid_p99_ms",
            "ingest_rows_per_s_without_trigger",
            "ingest_rows_per_s_with_trigger",
        ),
        targets=(
            Target(
                "grid_p99_ms",
                "<",
                250,
                "live grid read p99 < 250 ms at 2,000 tables (one read a second serves every page)",
            ),
            Target("pit_p99_ms", "<", 1000, "pit view p99 < 1 s at 2,000 tables"),
        ),
    ),
    Benchmark(
        "House edge (short run)",
        "bench/house_edge.py",
        ("--rules", "PA", "--decks", "6", "--hands", "400000", "--seed", "2026"),
        ("--rules", "PA", "--decks", "6", "--hands", "2000", "--workers", "1"),
        keys=(
            "hands",
            "hands_per_s",
            "hands_per_cpu_s",
            "main_edge_pct",
            "main_ci95_half_width_pct",
            "published_pct",
            "published_inside_ci95",
            "match_a_edge_pct",
            "match_a_exact_pct",
            "match_b_edge_pct",
            "match_b_exact_pct",
            "engine_match_mismatches",
        ),
        targets=(
            Target(
                "published_inside_ci95",
                "==",
                True,
                "published edge inside the 95% CI (10M hands: see below)",
            ),
            Target("engine_match_mismatches", "==", 0, "0 Match settlement differences"),
        ),
    ),
    Benchmark(
        "House edge, 10 million hands (compiled engine)",
        "bench/house_edge.py",
        ("--rules", "PA", "--decks", "6", "--hands", "10000000", "--seed", "200"),
        ("--rules", "PA", "--decks", "6", "--hands", "2000", "--workers", "2"),
        keys=(
            "engine",
            "hands",
            "seconds",
            "cpu_seconds",
            "hands_per_cpu_s",
            "main_edge_pct",
            "main_ci95_half_width_pct",
            "published_inside_ci95",
        ),
        targets=(
            Target("seconds", "<", 60, "10M hands < 60 s on two cores, 95% CI unchanged"),
            Target("engine", "==", "compiled", "run on the compiled engine"),
        ),
        env=(("PYTHONPATH", "build/mypyc"),),
    ),
    Benchmark(
        "Device firmware in C on a Cortex-M: flash, RAM, stack, instructions per step",
        "bench/firmware_budget.py",
        ("--rounds", "30"),
        ("--rounds", "2"),
        keys=(
            "shoe_flash_bytes_m3",
            "shoe_flash_bytes_m0",
            "shoe_static_ram_bytes_m3",
            "panel_static_ram_bytes_m3",
            "shoe_stack_bytes",
            "panel_stack_bytes",
            "seal_card_frame_instructions_m3",
            "seal_card_frame_instructions_m0",
            "open_card_frame_instructions_m3",
            "seal_220_byte_frame_instructions_m3",
            "session_keys_and_proof_instructions_m3",
            "pairing_x25519_hkdf_instructions_m0",
            "worst_ram_bytes",
            "worst_flash_bytes",
            "fits_rp2040",
            "fits_stm32f0",
        ),
        targets=(
            Target("fits_rp2040", "==", True, "fits an RP2040 (264 KB RAM, 2 MB flash)"),
            Target("fits_stm32f0", "==", True, "fits an STM32F0-class board (32 KB RAM)"),
        ),
    ),
    Benchmark(
        "Rounds with the shoe and panel board on emulated Cortex-M boards",
        "bench/firmware_rounds.py",
        ("--rounds", "500"),
        ("--rounds", "2"),
        keys=("rounds", "boards_rounds_per_s", "doubles_rounds_per_s", "same_outcome_as_doubles"),
        targets=(
            Target(
                "same_outcome_as_doubles",
                "==",
                True,
                "the C firmware on emulated boards gives the station the same table",
            ),
        ),
    ),
)


def split_figures(stdout: str) -> tuple[str, dict[str, object] | None]:
    """The prose of ``stdout`` and the figures of its last ``FIGURES {json}`` line, if any."""
    prose: list[str] = []
    figures: dict[str, object] | None = None
    for line in stdout.splitlines():
        if line.startswith(FIGURES_PREFIX):
            try:
                parsed = json.loads(line[len(FIGURES_PREFIX) :])
            except json.JSONDecodeError:
                prose.append(line)
                continue
            if isinstance(parsed, dict):
                figures = parsed
                continue
        prose.append(line)
    return "\n".join(prose).rstrip(), figures


def command_text(bench: Benchmark, args: Sequence[str]) -> str:
    """The command as a reader would type it from the repository root."""
    env = [f"{name}={value}" for name, value in bench.env]
    return shlex.join([*env, ".venv/bin/python", bench.script, *args])


def _run_once(bench: Benchmark, args: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(bench.path), *args],
        cwd=ROOT,
        env={**os.environ, **dict(bench.env)},
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def run_benchmark(bench: Benchmark) -> Result:
    """Run one benchmark; a missing script or a failure is a result, not an exception."""
    if not bench.path.exists():
        return Result(bench, command_text(bench, bench.args), "missing")
    args: Sequence[str] = bench.args
    started = time.perf_counter()
    try:
        proc = _run_once(bench, args)
        if proc.returncode == 2 and "usage:" in proc.stderr and args:
            # The script does not take these arguments (it came from another branch):
            # its defaults are better than no figure.
            args = ()
            proc = _run_once(bench, args)
    except subprocess.TimeoutExpired:
        return Result(
            bench,
            command_text(bench, args),
            "timed out",
            time.perf_counter() - started,
            notes=[f"stopped after {TIMEOUT_S:.0f} s"],
        )
    result = Result(bench, command_text(bench, args), "ok", time.perf_counter() - started)
    if args != bench.args:
        result.notes.append(
            f"the script refused `{shlex.join(bench.args)}`; it ran with its defaults"
        )
    result.output, result.figures = split_figures(proc.stdout)
    if proc.returncode != 0:
        result.status = "failed"
        result.errors = proc.stderr.rstrip()
        result.notes.append(f"exit status {proc.returncode}")
    elif result.figures is None:
        result.notes.append("no FIGURES line: its full output is shown")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks and write the document; exit 1 if one failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument(
        "--only", nargs="+", metavar="NAME", help="run only these scripts (e.g. protocol_bench)"
    )
    args = parser.parse_args(argv)
    chosen = [b for b in BENCHMARKS if not args.only or Path(b.script).stem in args.only]
    if not chosen:
        parser.error(f"no benchmark named {' '.join(args.only)}")
    info = machine()
    started = time.perf_counter()
    results: list[Result] = []
    for bench in chosen:
        print(f"== {bench.name}: {command_text(bench, bench.args)}", flush=True)
        result = run_benchmark(bench)
        results.append(result)
        print(result.output or f"({result.status})")
        for note in result.notes:
            print(f"  note: {note}")
        print(f"  [{result.status}, {result.seconds:.1f} s]", flush=True)
    total = time.perf_counter() - started
    info["Load average at end (1/5/15 min)"] = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    existing = args.output.read_text() if args.output.exists() else ""
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(render(results, info, hand_recorded(existing), total))
    print(f"wrote {args.output} ({total:.0f} s)")
    return 1 if any(r.status in ("failed", "timed out") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
