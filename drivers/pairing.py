"""Pairing secrets on the station: where they are kept, and the pairing exchange on a port.

Each device's secret is a file ``KIND.key`` (``shoe.key``, ``card_reader.key``...) in the
pairing directory (``/var/lib/dealer-station/pairing``, mode 0700, owned by the service
user), written 0600: one line ``SERIAL HEX-SECRET``. Under systemd the same file may come
as a credential instead (``LoadCredential=shoe.key:...``): a file of that name in
``$CREDENTIALS_DIRECTORY`` wins over the directory's. See docs/operations.md.

:func:`pair_over` runs ``firmware_bridge.pairing.StationPairing`` on an opened transport:
it writes the request every ``interval`` seconds until the device answers (its pairing
button held) or refuses, or ``timeout`` passes.
"""

from __future__ import annotations

import contextlib
import os
import queue
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import firmware_bridge as fb
from drivers.errors import DriverError, TransportError
from drivers.transport import LinkListener, ThreadedTransport

CREDENTIALS_ENV: Final = "CREDENTIALS_DIRECTORY"


class PairingStoreError(DriverError):
    """A pairing file that cannot be read or written, or does not parse."""


@dataclass(frozen=True, slots=True)
class PairedDevice:
    """One device's pairing: the serial number it reported and the shared secret."""

    serial_number: str
    secret: bytes = field(repr=False)


class PairingStore:
    """The pairing files of one station (see the module docstring)."""

    def __init__(self, directory: Path, credentials: Path | None = None) -> None:
        self.directory = directory
        if credentials is None and os.environ.get(CREDENTIALS_ENV):
            credentials = Path(os.environ[CREDENTIALS_ENV])
        self.credentials = credentials

    def path(self, kind: str) -> Path:
        """Where ``kind``'s secret is read from (the credential when there is one)."""
        if self.credentials is not None and (self.credentials / f"{kind}.key").exists():
            return self.credentials / f"{kind}.key"
        return self.directory / f"{kind}.key"

    def load(self, kind: str) -> PairedDevice | None:
        """The pairing of ``kind``, or None when it was never paired.

        Raises:
            PairingStoreError: the file exists but cannot be read or does not parse.
        """
        path = self.path(kind)
        try:
            text = path.read_text(encoding="ascii")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError, ValueError) as err:
            raise PairingStoreError(f"{path}: cannot read: {err}") from err
        # The secret is the last word: a serial number may hold spaces (HELLO text).
        serial, _, secret_hex = text.strip().rpartition(" ")
        try:
            secret = bytes.fromhex(secret_hex)
        except ValueError:
            secret = b""
        if not serial or len(secret) != fb.SECRET_BYTES:
            raise PairingStoreError(f"{path}: not a pairing file (SERIAL HEX-SECRET)")
        return PairedDevice(serial, secret)

    def save(self, kind: str, device: PairedDevice) -> Path:
        """Write ``kind``'s pairing atomically and durably, 0600, in a 0700 directory: the
        file is written and synced under a temporary name, renamed, then the directory synced.

        Raises:
            PairingStoreError: the directory or file cannot be written.
        """
        path = self.directory / f"{kind}.key"
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{kind}.", dir=self.directory)
            try:
                os.fchmod(fd, 0o600)
                os.write(fd, f"{device.serial_number} {device.secret.hex()}\n".encode())
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path)
            # The rename is durable only once the directory is on disk: without this a power
            # cut can bring back the old pairing (or none) after the device took the new one.
            directory = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
        except (OSError, ValueError) as err:
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(tmp)
            raise PairingStoreError(f"{path}: cannot write: {err}") from err
        return path


class _Collector:
    """A ``LinkListener`` that queues what the transport reports."""

    def __init__(self) -> None:
        self.items: queue.Queue[bytes | TransportError | None] = queue.Queue()

    def link_up(self, description: str) -> None:
        self.items.put(None)

    def link_data(self, data: bytes) -> None:
        self.items.put(data)

    def link_tick(self) -> None:
        return

    def link_down(self, error: TransportError) -> None:
        self.items.put(error)


def pair_over(
    make_transport: Callable[[LinkListener], ThreadedTransport],
    kind: fb.DeviceKind,
    station_id: str,
    *,
    timeout: float = 30.0,
    interval: float = 0.5,
) -> fb.PairingResult:
    """Pair the device behind a transport; ``make_transport(listener)`` builds it.

    Raises:
        fb.PairingError: the device refused (no consent: its pairing button was not held)
            or answered as another kind.
        TimeoutError: no answer within ``timeout`` seconds (nothing there, or no consent
            on a device that stays silent).
    """
    collector = _Collector()
    transport = make_transport(collector)
    pairing = fb.StationPairing(kind, station_id)
    deadline = time.monotonic() + timeout
    next_send = 0.0
    transport.start()
    try:
        while (now := time.monotonic()) < deadline:
            if now >= next_send and transport.is_open:
                with contextlib.suppress(TransportError):
                    transport.write(pairing.request())
                next_send = now + interval
            try:
                item = collector.items.get(timeout=min(interval, deadline - now))
            except queue.Empty:
                continue
            if isinstance(item, bytes):
                result = pairing.receive(item)
                if result is not None:
                    return result
            elif item is None:
                next_send = 0.0  # the port just opened: ask at once
        raise TimeoutError(f"no pairing answer from the {kind.name_text} in {timeout:g} s")
    finally:
        transport.close()
