"""Open-ended coverage-guided fuzzing of the wire decoders with atheris (optional).

Run: ``.venv/bin/pip install atheris`` then
``.venv/bin/python bench/fuzz_bridge.py -atheris_runs=1000000`` (libFuzzer flags pass
through). With ``--c`` every input also goes to the C firmware's decoders
(``firmware/tests/fuzz.c``, built with AddressSanitizer and UndefinedBehaviorSanitizer by
``make -C firmware san``): a crash, a hang or a delivered message there is a crash here.
The bounded, seeded fuzz tests that run on every ``make test`` are
``tests/test_bridge_fuzz.py`` and ``tests/test_firmware_fuzz.py``; this harness is for
long runs on a developer machine.
Any exception other than a ``ProtocolError`` is a crash that libFuzzer reports and saves,
and so is any message the authenticated endpoint delivers: fuzzed bytes carry no valid seal.
"""

from __future__ import annotations

import contextlib
import random
import sys

from drivers.simulated.c_firmware import FuzzTarget, build
from firmware_bridge import (
    DeviceKind,
    Endpoint,
    FrameDecoder,
    Identity,
    MessageReceived,
    ProtocolError,
    Role,
    decode_frame,
    decode_message,
)
from firmware_bridge.auth import Opener, SessionKeys

_decoder = FrameDecoder()
_device = Endpoint(
    Role.DEVICE,
    Identity(DeviceKind.SHOE, "fuzz", "F1"),
    rng=random.Random(0),
    secret=bytes(range(32)),
)
_opener = Opener(
    SessionKeys(bytes(range(32)), bytes(16), bytes(16), DeviceKind.SHOE.code).device_to_station
)
_device.start(0.0)
_clock = [0.0]
_c_target: list[FuzzTarget] = []  # the C harness, with --c


def test_one_input(data: bytes) -> None:
    """One libFuzzer input: decode it as a frame, as a payload, and as stream bytes."""
    try:
        frame = decode_frame(data)
        decode_message(frame.type_id, frame.payload)
    except ProtocolError:
        pass
    else:
        with contextlib.suppress(ProtocolError):  # the seal check: AuthenticationError only
            _opener.open(frame.header(), frame.payload)
    if data:
        with contextlib.suppress(ProtocolError):
            decode_message(data[0], data[1:])
    _decoder.feed(data)
    _clock[0] += 0.01
    _device.receive_data(data, _clock[0])
    _device.tick(_clock[0])
    _device.data_to_send()
    delivered = [e for e in _device.events() if isinstance(e, MessageReceived)]
    assert not delivered, f"a fuzzed frame was delivered: {delivered}"
    for target in _c_target:
        target.feed(data)  # raises FirmwareError on a crash or a hang of the C side


def main() -> int:
    try:
        import atheris
        from atheris.instrument_bytecode import instrument_all  # not in types-atheris's __init__
    except ImportError:
        print("atheris is not installed: .venv/bin/pip install atheris", file=sys.stderr)
        return 2
    if "--c" in sys.argv:
        sys.argv.remove("--c")
        build("san")
        _c_target.append(FuzzTarget())
    instrument_all()  # coverage feedback for the already-imported decoders
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main())
