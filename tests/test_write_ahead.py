"""The write-ahead proxy (``controller.service.station.write_ahead``): one class for every
device. A command waits in the ``CommandBuffer`` until the journal has committed what
caused it; ``start`` and ``close`` pass at once; the panel's lamp states are held apart,
the newest only; what is carried out is the device's method as it is then."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from controller.service.station import CommandBuffer, deferred, write_ahead
from controller.table.machine import TableDevices
from drivers.hal import Led, LedMode, PeekTarget


class Calls(list[tuple[str, tuple[object, ...]]]):
    """A device's calls, each also noted by the device's name in a shared log."""

    def __init__(self, name: str, log: list[str]) -> None:
        super().__init__()
        self.name, self.log = name, log

    def append(self, call: tuple[str, tuple[object, ...]]) -> None:
        self.log.append(self.name)
        super().append(call)


class Recording:
    """A device that writes down every call (and, with ``log``, who was called in order)."""

    def __init__(self, name: str = "", log: list[str] | None = None) -> None:
        self.calls = Calls(name, log if log is not None else [])
        self.ready = True  # not a command

    def start(self) -> None:
        self.calls.append(("start", ()))

    def close(self) -> None:
        self.calls.append(("close", ()))

    def shuffle(self, decks: int) -> None:
        self.calls.append(("shuffle", (decks,)))

    def check(self, target: PeekTarget) -> None:
        self.calls.append(("check", (target,)))

    def expect_hole_card(self) -> None:
        self.calls.append(("expect_hole_card", ()))

    def reveal_hole_card(self, commitment: str) -> None:
        self.calls.append(("reveal_hole_card", (commitment,)))

    def cancel_hole_card(self) -> None:
        self.calls.append(("cancel_hole_card", ()))

    def show(self, lamps: Mapping[Led, LedMode]) -> None:
        self.calls.append(("show", (dict(lamps),)))


def test_commands_wait_for_the_flush_in_order_and_lamps_come_last() -> None:
    order: list[str] = []
    shuffler, reader = Recording("shuffler", order), Recording("reader", order)
    shoe, panel = Recording("shoe", order), Recording("panel", order)
    buffer = CommandBuffer()
    devices = deferred(TableDevices(shuffler, panel, reader, shoe), buffer)  # type: ignore[arg-type]
    devices.panel.start()
    assert panel.calls == [("start", ())]  # at once
    devices.panel.show({Led.DEAL: LedMode.BLINK})
    assert devices.shoe is not None and devices.reader is not None
    devices.shoe.expect_hole_card()
    devices.panel.show({Led.PEEK: LedMode.STEADY})
    devices.reader.check(PeekTarget.LOOKING_FOR_ACE)
    devices.shoe.reveal_hole_card("ab" * 32)
    assert shoe.calls == reader.calls == [] and panel.calls == [("start", ())]
    order.clear()
    buffer.flush()
    assert order == ["shoe", "reader", "shoe", "panel"]  # commands in order, then the lamps
    assert shoe.calls == [("expect_hole_card", ()), ("reveal_hole_card", ("ab" * 32,))]
    assert reader.calls == [("check", (PeekTarget.LOOKING_FOR_ACE,))]
    # Only the newest lamp state is carried out: the panel shows what the commit left.
    assert panel.calls[-1] == ("show", ({Led.PEEK: LedMode.STEADY},))
    assert [c for c in panel.calls if c[0] == "show"] == [("show", ({Led.PEEK: LedMode.STEADY},))]
    devices.shoe.close()
    assert shoe.calls[-1] == ("close", ())


def test_the_device_method_is_looked_up_when_the_command_is_carried_out() -> None:
    shuffler = Recording()
    buffer = CommandBuffer()
    held = write_ahead(shuffler, buffer.defer)
    held.shuffle(6)
    seen: list[int] = []
    shuffler.shuffle = seen.append  # type: ignore[method-assign]  # replaced meanwhile
    buffer.flush()
    assert seen == [6] and shuffler.calls == []


def test_no_device_means_no_proxy_and_non_commands_are_refused() -> None:
    panel = Recording()
    buffer = CommandBuffer()
    devices = deferred(TableDevices(None, panel), buffer)  # type: ignore[arg-type]
    assert devices.shuffler is None and devices.reader is None and devices.shoe is None
    with pytest.raises(AttributeError, match="not a command"):
        _ = devices.panel.ready  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="not a command"):
        _ = devices.panel._private  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        devices.panel.no_such_command()  # type: ignore[attr-defined]
    buffer.flush()
    assert panel.calls == []
