"""Pairing, sans-I/O (firmware_bridge.pairing and the device side of the Endpoint)."""

from __future__ import annotations

import pytest

from firmware_bridge import (
    DeviceKind,
    Endpoint,
    Identity,
    Paired,
    PairingError,
    Role,
    StationPairing,
)

SHOE = Identity(DeviceKind.SHOE, "sho-2.3.1", "SHO-42")


def device(consent: bool) -> Endpoint:
    endpoint = Endpoint(Role.DEVICE, SHOE, secret=None, pairing_consent=lambda: consent)
    endpoint.start(0.0)
    return endpoint


def test_both_sides_derive_one_secret_and_a_repeated_request_gets_the_same_answer() -> None:
    shoe = device(consent=True)
    station = StationPairing(DeviceKind.SHOE, "PA-S21-07")
    request = station.request()
    shoe.receive_data(request, 0.0)
    first = shoe.data_to_send()
    shoe.receive_data(request, 0.1)  # sent again before the answer was read
    second = shoe.data_to_send()
    assert second.lstrip(b"\0") == first.lstrip(b"\0")
    paired = [e for e in shoe.events() if isinstance(e, Paired)]
    assert len(paired) == 1 and paired[0].station == "PA-S21-07"
    result = station.receive(first)
    assert result is not None
    assert result.secret == paired[0].secret == shoe.secret and len(result.secret) == 32
    assert result.device == SHOE
    # A second station (another key pair) gets another secret: the tap's view is useless.
    other = StationPairing(DeviceKind.SHOE, "X")
    shoe.receive_data(other.request(), 0.2)
    again = other.receive(shoe.data_to_send())
    assert again is not None and again.secret != result.secret == paired[0].secret


def test_without_the_pairing_button_the_device_refuses() -> None:
    shoe = device(consent=False)
    station = StationPairing(DeviceKind.SHOE, "PA-S21-07")
    shoe.receive_data(station.request(), 0.0)
    with pytest.raises(PairingError, match="hold the device's pairing button"):
        station.receive(shoe.data_to_send())
    assert shoe.secret is None


def test_a_device_of_another_kind_refuses() -> None:
    shoe = device(consent=True)
    station = StationPairing(DeviceKind.CARD_READER, "PA-S21-07")
    shoe.receive_data(station.request(), 0.0)
    with pytest.raises(PairingError, match="this device is a shoe"):
        station.receive(shoe.data_to_send())
    assert shoe.secret is None
