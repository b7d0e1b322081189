"""A spy on the calls that make a file durable: the real ``os.fsync`` and ``os.replace``
run, and the spy notes, in order, what each ``fsync`` reached (the file's path and its
content at that moment) and each rename's target. Used by the tests of the files the station
replaces atomically (the pairing files, the sealing key file)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: ("fsync", path, content then) or ("replace", target, b"").
Events = list[tuple[str, str, bytes]]


def spy(monkeypatch: pytest.MonkeyPatch) -> Events:
    events: Events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        target = os.readlink(f"/proc/self/fd/{fd}")
        content = Path(target).read_bytes() if Path(target).is_file() else b""
        events.append(("fsync", target, content))
        real_fsync(fd)

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        events.append(("replace", str(dst), b""))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    return events
