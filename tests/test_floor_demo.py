"""``make floor-demo`` for real, with two stations: each deals under its own table id and
sealing key, and the floor merges each one's sealed rows under its own account, with no
alert; Ctrl-C (SIGINT) ends it cleanly."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import psycopg

from floor.servers import free_port, wait_for

ROOT = Path(__file__).resolve().parents[1]


def _merged(conninfo: str) -> dict[str, tuple[str, int]]:
    """table -> (the table id its station_started row names, its last checked seal row)."""
    try:
        with psycopg.connect(conninfo, connect_timeout=2) as conn:
            found = conn.execute(
                "SELECT j.table_id, j.data::jsonb->>'table_id', t.sealed_row FROM journal_row j"
                " JOIN floor_table t USING (table_id) WHERE j.kind = 'station_started'"
            ).fetchall()
    except psycopg.Error:
        return {}  # not migrated yet
    return {table: (named, sealed) for table, named, sealed in found}


def test_the_demos_stations_each_ship_their_own_sealed_table() -> None:
    demo = subprocess.Popen(
        [sys.executable, "-m", "floor.demo", "--stations", "2", "--port", str(free_port())],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        assert demo.stdout is not None
        conninfo = None
        for line in demo.stdout:
            found = re.fullmatch(r"floor database: psql '(.+)'\n", line)
            if found:
                conninfo = found[1]
            if "stations dealing" in line:
                break
        assert conninfo is not None
        tables = {"PA-S21-01", "PA-S21-02"}

        def sealed_tables() -> set[str]:
            return {t for t, (_, sealed) in _merged(conninfo).items() if sealed > 0}

        assert wait_for(lambda: sealed_tables() == tables, 60)
        merged = _merged(conninfo)
        assert {table: named for table, (named, _) in merged.items()} == {t: t for t in tables}
        with psycopg.connect(conninfo) as conn:
            kinds = conn.execute("SELECT kind FROM alert WHERE kind <> 'fault'").fetchall()
        assert kinds == []  # injected device faults only: no table, seal or chain alert
        demo.send_signal(signal.SIGINT)
        assert demo.wait(60) == 0
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
        if demo.stdout is not None:
            demo.stdout.close()
