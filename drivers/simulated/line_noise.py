"""A seeded manipulator for the bytes a device double sends: split, drop, duplicate, corrupt.

Modelled on pymodbus ``NullModem.set_manipulator``: every chunk the double writes (one
encoded frame, normally) goes through ``LineNoise(chunk)`` and the pieces it returns are
what crosses the wire. Random damage comes from a seeded ``random.Random`` so a failing
test replays byte for byte; ``corrupt_next`` / ``drop_next`` / ``duplicate_next`` damage
exactly the next N chunks for targeted fault tests.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterable

#: The hook type: one chunk in, the pieces to write out (possibly none).
Manipulator = Callable[[bytes], Iterable[bytes]]


class LineNoise:
    """Seeded damage on a byte stream; with every rate at 0 it only passes chunks through."""

    def __init__(
        self,
        seed: int = 0,
        *,
        split_rate: float = 0.0,
        drop_rate: float = 0.0,
        duplicate_rate: float = 0.0,
        corrupt_rate: float = 0.0,
    ) -> None:
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self.split_rate = split_rate
        self.drop_rate = drop_rate
        self.duplicate_rate = duplicate_rate
        self.corrupt_rate = corrupt_rate
        self._corrupt_next = 0
        self._drop_next = 0
        self._duplicate_next = 0
        self.chunks_damaged = 0

    def corrupt_next(self, count: int) -> None:
        """Flip one bit in each of the next ``count`` chunks."""
        with self._lock:
            self._corrupt_next += count

    def drop_next(self, count: int) -> None:
        """Lose the next ``count`` chunks entirely."""
        with self._lock:
            self._drop_next += count

    def duplicate_next(self, count: int) -> None:
        """Send each of the next ``count`` chunks twice."""
        with self._lock:
            self._duplicate_next += count

    @property
    def idle(self) -> bool:
        """Whether chunks pass through untouched: no rate set and no damage armed (a
        writer may then send several frames as one chunk)."""
        return not (
            self._drop_next
            or self._corrupt_next
            or self._duplicate_next
            or self.split_rate
            or self.drop_rate
            or self.duplicate_rate
            or self.corrupt_rate
        )

    def __call__(self, chunk: bytes) -> list[bytes]:
        with self._lock:
            return self._apply(chunk)

    def _apply(self, chunk: bytes) -> list[bytes]:
        rnd = self._random
        if not chunk:
            return []
        if self._drop_next:
            self._drop_next -= 1
            self.chunks_damaged += 1
            return []
        data = bytearray(chunk)
        if self._corrupt_next:
            self._corrupt_next -= 1
            self.chunks_damaged += 1
            self._flip(data)
        elif self.corrupt_rate and rnd.random() < self.corrupt_rate:
            self.chunks_damaged += 1
            self._flip(data)
        if self.drop_rate and rnd.random() < self.drop_rate:
            # Lose a byte (not the whole chunk): the framing must resynchronise.
            self.chunks_damaged += 1
            del data[rnd.randrange(len(data))]
        pieces = [bytes(data)]
        if self._duplicate_next:
            self._duplicate_next -= 1
            self.chunks_damaged += 1
            pieces.append(bytes(data))
        elif self.duplicate_rate and rnd.random() < self.duplicate_rate:
            self.chunks_damaged += 1
            pieces.append(bytes(data))
        if self.split_rate and rnd.random() < self.split_rate:
            pieces = [part for piece in pieces for part in self._split(piece)]
        return pieces

    def _flip(self, data: bytearray) -> None:
        index = self._random.randrange(len(data))
        data[index] ^= 1 << self._random.randrange(8)

    def _split(self, piece: bytes) -> list[bytes]:
        if len(piece) < 2:
            return [piece]
        cut = self._random.randrange(1, len(piece))
        return [piece[:cut], piece[cut:]]
