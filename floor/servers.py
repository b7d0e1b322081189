"""A real broker and a real database in a temporary directory, for the tests, the bench
and ``make floor-demo``: Debian's ``mosquitto`` and PostgreSQL 15, started and stopped here.

The broker runs from the shipped configuration (``floor.broker``), as on a floor: TLS only
(a CA and a server certificate made with ``openssl``), no anonymous clients, the stations
on one listener (``station_port``: a password per table, each publishing only its own
``floor/<table>/`` topics) and the collectors on another (``port``: their own accounts).
PostgreSQL listens on a unix socket only. Both run as their own users
(``mosquitto``, ``postgres``): as root, the directories are handed to them first
(docs/pitfalls.md, "The floor stack").
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

from floor.broker import write_broker_files

PG_BIN: Final = Path("/usr/lib/postgresql/15/bin")
COLLECTOR_USER: Final = "collector"
#: The collectors' accounts (the broker makes the account name the client id).
COLLECTORS: Final = (COLLECTOR_USER, *(f"collector-{n}" for n in range(1, 5)))


class ServerError(RuntimeError):
    """A server did not start (the message has the tail of its log)."""


def wait_for(condition: Callable[[], object], timeout: float, interval: float = 0.02) -> bool:
    """Poll ``condition()`` until it is true or ``timeout`` seconds pass; True if it came."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _run(*command: str | Path) -> None:
    if shutil.which(str(command[0])) is None:
        raise ServerError(f"{command[0]} is not installed (make system-deps installs it)")
    subprocess.run([str(c) for c in command], check=True, capture_output=True)


def _accepts(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


class Broker:
    """mosquitto with TLS, per-station passwords and ACL (see the module docstring)."""

    def __init__(self, tables: Iterable[str]) -> None:
        self.dir = _server_directory("floor-mosquitto-")
        self.tables = list(tables)
        self.port = free_port()  # the collectors' listener
        self.station_port = free_port()  # the stations' listener
        self.ca_file = self.dir / "ca.pem"
        self.process: subprocess.Popen[bytes] | None = None
        self._passwords = {name: secrets.token_hex(12) for name in [*self.tables, *COLLECTORS]}
        self._make_certificates()
        self._write_config()

    def password_file(self, user: str) -> Path:
        """A file holding ``user``'s password (for a station's or a collector's config)."""
        path = self.dir / f"{user}.password"
        if not path.exists():
            path.write_text(self._passwords[user] + "\n", encoding="utf-8")
        return path

    def collector_settings(self, account: str = COLLECTOR_USER) -> dict[str, object]:
        """``floor.toml``'s ``[broker]`` for a collector with ``account`` on this broker."""
        return {
            "host": "127.0.0.1",
            "port": self.port,
            "username": account,
            "password_file": str(self.password_file(account)),
            "ca_file": str(self.ca_file),
        }

    def _make_certificates(self) -> None:
        d = self.dir
        _run(
            "openssl", "req", "-x509", "-nodes", "-newkey", "ec",
            "-pkeyopt", "ec_paramgen_curve:P-256", "-keyout", d / "ca.key", "-out", self.ca_file,
            "-days", "2", "-subj", "/CN=floor test CA",
        )  # fmt: skip
        _run(
            "openssl", "req", "-nodes", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-keyout", d / "server.key", "-out", d / "server.csr", "-subj", "/CN=127.0.0.1",
        )  # fmt: skip
        (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        _run(
            "openssl", "x509", "-req", "-in", d / "server.csr", "-CA", self.ca_file,
            "-CAkey", d / "ca.key", "-CAcreateserial", "-out", d / "server.pem", "-days", "2",
            "-extfile", d / "san.ext",
        )  # fmt: skip

    def _write_config(self) -> None:
        d = self.dir
        try:
            write_broker_files(
                d,
                stations={t: self._passwords[t] for t in self.tables},
                collectors={c: self._passwords[c] for c in COLLECTORS},
                station_port=self.station_port,
                collector_port=self.port,
                extra=f"persistence false\nlog_dest file {d / 'mosquitto.log'}\n"
                "log_type error\nlog_type warning\nlog_type notice\n",
            )
        except FileNotFoundError as err:  # mosquitto_passwd is not installed
            raise ServerError(str(err)) from None
        shutil.chown(d, "mosquitto", "mosquitto")
        for path in d.iterdir():
            shutil.chown(path, "mosquitto", "mosquitto")

    def start(self) -> None:
        """Start (or restart) the broker on its port; returns once it accepts connections.

        Raises:
            ServerError: it exited or did not listen within 10 s.
        """
        self.process = subprocess.Popen(
            ["mosquitto", "-c", str(self.dir / "mosquitto.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        process = self.process
        if not wait_for(lambda: self._listening() or process.poll() is not None, 10):
            self.kill()
            raise ServerError(f"mosquitto did not start: {self._log_tail()}")
        if process.poll() is not None:
            raise ServerError(f"mosquitto exited: {self._log_tail()}")

    def _listening(self) -> bool:
        return _accepts(self.port) and _accepts(self.station_port)

    def kill(self) -> None:
        """SIGKILL the broker (its in-flight messages are lost: persistence is off)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
        if self.process is not None:
            self.process.wait()
        self.process = None

    def _log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return (self.dir / "mosquitto.log").read_text()[-300:].replace("\n", " | ")
        return "(no log)"


class Database:
    """PostgreSQL 15 in a temporary directory, on a unix socket there."""

    def __init__(self, *, durable: bool = False) -> None:
        self.dir = _server_directory("floor-postgres-")
        shutil.chown(self.dir, "postgres", "postgres")
        self.data = self.dir / "data"
        self.durable = durable
        self.conninfo = f"host={self.dir} dbname=postgres user=postgres"
        self._pg("initdb", "-D", self.data, "-U", "postgres", "-A", "trust", "--no-sync")

    def _pg(self, tool: str, *args: str | Path) -> None:
        if not (PG_BIN / tool).exists():
            raise ServerError(f"{PG_BIN / tool} is not installed (make system-deps installs it)")
        _run("runuser", "-u", "postgres", "--", PG_BIN / tool, *args)

    def start(self) -> None:
        """Start (or restart) the server; returns once it accepts connections.

        Raises:
            subprocess.CalledProcessError: pg_ctl failed (the log is in the directory).
        """
        # Tests trade durability against a power cut for speed (fsync off: a killed server
        # still finds its WAL in the page cache); the bench keeps it (durable=True).
        options = f"-k {self.dir} -h '' -c max_connections=60"
        if not self.durable:
            options += " -c fsync=off -c full_page_writes=off"
        self._pg("pg_ctl", "-D", self.data, "-l", self.dir / "log", "-w", "-o", options, "start")

    def stop(self) -> None:
        """Stop at once (as a crash would: ``-m immediate``); idempotent."""
        with contextlib.suppress(subprocess.CalledProcessError):
            self._pg("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")

    def size(self) -> int:
        """Bytes of the data directory."""
        return sum(p.stat().st_size for p in self.data.rglob("*") if p.is_file())


def _server_directory(prefix: str) -> Path:
    # Directly under /tmp: the server's own user must reach it, and a test's tmp_path sits
    # below directories only root may enter.
    return Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))


def remove(server: Broker | Database) -> None:
    """Remove a stopped server's directory."""
    shutil.rmtree(server.dir, ignore_errors=True)
