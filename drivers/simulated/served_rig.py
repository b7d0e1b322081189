"""The station's end of a rig whose serial doubles run in another process.

The shoe, shuffler and panel-board doubles are served by another process on
pseudo-terminals (:func:`drivers.simulated.serve.start_doubles`); this process knows
only where they are and what the station's configuration says of them
(:class:`ServedDouble`). The card reader double stays here: the station reaches it
through an in-process pyusb backend (:class:`SimulatedUsbBackend`), which no other
process can share, so its thread (``reader-double``) is device work done in the
station's process.

``build_drivers`` wires the same real drivers as :class:`SimulatedRig`
(:func:`drivers.simulated.wiring.wire_drivers`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import firmware_bridge as fb
from drivers.device_link import ExpectedDevice
from drivers.hal import EventSink
from drivers.panel_link import SerialPanelDriver
from drivers.serial_transport import SerialSettings
from drivers.simulated.card_reader import CardReaderDouble
from drivers.simulated.firmware import DEFAULT_FIRMWARE
from drivers.simulated.usb_backend import SimulatedUsbBackend
from drivers.simulated.wiring import (
    FAST_BACKOFF,
    SIMULATION_TIMING,
    RigDrivers,
    pair_double,
    wire_drivers,
)

#: The serial numbers the served doubles report (``drivers.simulated.serve``'s defaults).
SERVED_KINDS = ("shuffler", "shoe", "panel")


@dataclass(frozen=True, slots=True)
class ServedDouble:
    """A double served by another process: its pty path, serial number and pairing secret."""

    path: Path
    serial_number: str
    secret: bytes | None

    @property
    def settings(self) -> SerialSettings:
        """The port the real driver opens."""
        return SerialSettings(str(self.path))


class ServedRig:
    """The station's end of a split rig (see the module docstring). Close it when done."""

    def __init__(
        self,
        served: Mapping[str, ServedDouble],
        *,
        decks: int = 6,
        seed: int = 0,
        timing: fb.Timing | None = SIMULATION_TIMING,
    ) -> None:
        missing = set(SERVED_KINDS) - set(served)
        if missing:
            raise ValueError(f"no served {', '.join(sorted(missing))} double")
        self.served = dict(served)
        self.decks = decks
        self.timing = timing
        self.firmware_allowed = frozenset({DEFAULT_FIRMWARE})
        self.usb_backend = SimulatedUsbBackend()
        # The same seed as the in-process rig gives its reader (seed + 2).
        self.card_reader = CardReaderDouble(self.usb_backend, timing=timing, seed=seed + 2)
        self.panel_board = None  # served: its counters are the other process's
        try:
            self._pair_reader()
        except BaseException:
            self.close()
            raise

    def _pair_reader(self) -> None:
        """Pair the reader over its own link, as the in-process rig does."""
        pair_double(self.card_reader, self.usb_backend)

    def build_drivers(self, sink: EventSink, **driver_options: Any) -> RigDrivers:
        """The real drivers, pointed at the served doubles and the local reader."""
        options: dict[str, Any] = {"timing": self.timing, "backoff": FAST_BACKOFF}
        options.update(driver_options)
        board = self.served["panel"]
        panel = SerialPanelDriver(
            board.settings,
            sink,
            self._expected(board),
            **options,
        )
        return wire_drivers(
            sink,
            self.served["shuffler"],
            self.served["shoe"],
            self.card_reader,
            panel,
            firmware=self.firmware_allowed,
            decks=self.decks,
            backend=self.usb_backend,
            options=options,
        )

    def _expected(self, double: ServedDouble) -> ExpectedDevice:
        return ExpectedDevice(
            double.serial_number, firmware=self.firmware_allowed, secret=double.secret
        )

    def close(self) -> None:
        """Stop the reader double; idempotent."""
        self.card_reader.close()

    def __enter__(self) -> ServedRig:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
