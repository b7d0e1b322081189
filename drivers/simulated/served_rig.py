"""The station's end of a rig whose serial doubles run in another process.

The serial doubles (the shuffler, shoe and panel board) are served by another process on
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
from typing import Any, Final

import firmware_bridge as fb
from drivers.hal import DeviceKind, EventSink
from drivers.registry import DEVICES, Link, seed_offset
from drivers.serial_transport import SerialSettings
from drivers.simulated.card_reader import CardReaderDouble
from drivers.simulated.firmware import DEFAULT_FIRMWARE
from drivers.simulated.usb_backend import SimulatedUsbBackend
from drivers.simulated.wiring import (
    FAST_BACKOFF,
    SIMULATION_TIMING,
    DoubleAddress,
    RigDrivers,
    pair_double,
    wire_drivers,
)

#: The devices another process serves: every serial device of the registry. A USB double
#: stays in the station's process (its pyusb backend cannot be shared).
SERVED_KINDS: Final = tuple(spec.name for spec in DEVICES if spec.link is Link.SERIAL)


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
        #: The USB doubles, here; seeded as the in-process rig seeds them.
        self.local: dict[DeviceKind, CardReaderDouble] = {}
        self.panel_board = None  # served: its counters are the other process's
        try:
            for spec in DEVICES:
                if spec.link is Link.USB:
                    assert issubclass(spec.double, CardReaderDouble), spec.double
                    seeded = seed + seed_offset(spec.kind)
                    local = spec.double(
                        self.usb_backend, spec.serial_number, timing=timing, seed=seeded
                    )
                    self.local[spec.kind] = local
                    # Paired over its own link, as the in-process rig pairs it.
                    pair_double(local, self.usb_backend)
        except BaseException:
            self.close()
            raise

    @property
    def card_reader(self) -> CardReaderDouble:
        """The card reader double, in this process."""
        return self.local[DeviceKind.CARD_READER]

    def build_drivers(self, sink: EventSink, **driver_options: Any) -> RigDrivers:
        """The real drivers, pointed at the served doubles and the local ones."""
        options: dict[str, Any] = {"timing": self.timing, "backoff": FAST_BACKOFF}
        options.update(driver_options)
        doubles: dict[DeviceKind, DoubleAddress] = dict(self.local)
        for spec in DEVICES:
            if spec.name in self.served:
                doubles[spec.kind] = self.served[spec.name]
        return wire_drivers(
            sink,
            doubles,
            firmware=self.firmware_allowed,
            decks=self.decks,
            backend=self.usb_backend,
            options=options,
        )

    def close(self) -> None:
        """Stop the local doubles; idempotent."""
        for double in self.local.values():
            double.close()

    def __enter__(self) -> ServedRig:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
