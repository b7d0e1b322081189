"""A collector's heartbeat to the console: ``NOTIFY floor_collector`` every second.

The payload is ``CLIENT_ID`` followed by what the collector says of itself (``ok``, or
``broker lost``, ``writer stopped``). The console (:mod:`floor.feed`) listens: no heartbeat
from any collector for :data:`floor.feed.STALE_SECONDS` means the floor's picture is no
longer being brought up to date, and every page says so. Nothing is written: a NOTIFY is
delivered to the listeners and gone.

A thread of its own with its own connection, so that a writer stuck or dead (its thread
ended) is told apart from a collector process that is gone (no heartbeat at all). A database
address that takes the connection and never answers holds it 5 s at most (libpq's
``connect_timeout``), then it tries again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Final

import psycopg

CHANNEL: Final = "floor_collector"
INTERVAL: Final = 1.0


class Heartbeat:
    """Sends ``NOTIFY floor_collector, 'NAME STATE'`` every :data:`INTERVAL` seconds."""

    def __init__(self, conninfo: str, name: str, state: Callable[[], str]) -> None:
        self.conninfo, self.name, self.state = conninfo, name, state
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="collector-heartbeat")

    def start(self) -> None:
        """Start beating in the background."""
        self._thread.start()

    def stop(self) -> None:
        """Stop (the console notices within a few seconds, as it would a crash). A thread
        held inside a database call is waited for 5 s at most, then left to end on its own."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)

    def _run(self) -> None:
        conn: psycopg.Connection[tuple[Any, ...]] | None = None
        try:
            while not self._stop.is_set():
                try:
                    if conn is None or conn.closed:
                        conn = psycopg.connect(
                            self.conninfo, autocommit=True, connect_timeout=5,
                            application_name=f"floor-collector {self.name}"[:63],
                        )  # fmt: skip
                    conn.execute(
                        "SELECT pg_notify(%s, %s)", (CHANNEL, f"{self.name} {self.state()}"[:200])
                    )
                except psycopg.Error:
                    if conn is not None:
                        conn.close()
                    conn = None  # the database is away: the console sees that itself
                self._stop.wait(INTERVAL)
        finally:
            if conn is not None:
                conn.close()
