"""``dealer-station check-config [--ports] FILE``: check a station.toml without starting
anything; with ``--ports``, also that no other process has a configured serial port open
(the service's unit runs it as root before every start: docs/operations.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller.rules.options import shown
from controller.rules.profiles import OPTION_FIELDS, DealerSecondCard, Profile
from controller.service.config import DEFAULT_CONFIG_PATH, StationConfig, load_config
from controller.service.config_schema import ConfigError

EXIT_BAD_CONFIG = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One optional argument: the file (default /etc/dealer-station/station.toml)."""
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_CONFIG_PATH)
    parser.add_argument(
        "--ports",
        action="store_true",
        help="also refuse a serial port another process has open (run as root to see all)",
    )


def run(args: argparse.Namespace) -> int:
    """Exit 0 and summarise a good file (the procedure, then every rules option with its
    value and basis); exit 2 with one line naming what is wrong."""
    try:
        config = load_config(args.file)
    except ConfigError as err:
        print(err, file=sys.stderr)
        return EXIT_BAD_CONFIG
    if args.ports:
        held = held_port(config)
        if held:
            print(f"{args.file}: {held}", file=sys.stderr)
            return EXIT_BAD_CONFIG
    print(
        f"{args.file}: ok: table {config.table_id}, profile {config.profile.code},"
        f" {config.decks} decks, devices {', '.join(config.devices.names())},"
        f" journal {config.journal.path}"
    )
    profile = config.rules()
    print(f"procedure: {procedure_summary(profile)}")
    print("options (value, then its basis; 'set' where [options] sets it):")
    for name in OPTION_FIELDS:
        mark = ", set" if name in config.options else ""
        print(f"  {name} = {shown(getattr(profile, name))}  ({profile.basis(name)}{mark})")
    return 0


def held_port(config: StationConfig) -> str:
    """``key: what`` for the first configured serial port another process has open, or
    ``""``. ``TIOCEXCL`` stops only later openers without root's capability: a process that
    opened the port first, or root's, would share the device's bytes with the station."""
    from drivers.port_holders import port_holders

    for key, port in config.devices.serial_ports():
        holders = port_holders(port)
        if holders:
            who = ", ".join(map(str, holders))
            return f"{key}: {port} is held by {who}: close it before the station starts"
    return ""


def procedure_summary(profile: Profile) -> str:
    """One line: how this table deals, peeks and settles."""
    if profile.dealer_second_card is DealerSecondCard.AFTER_PLAYERS:
        deal = "dealer's second card after the players"
    elif profile.peek:
        deal = "hole card, card reader peek on A/K/Q/J"
    else:
        deal = "hole card turned after the players, no peek"
    blackjack = "at once against 2-9" if profile.blackjack_paid_at_once else "after the round"
    return (
        f"{deal}; dealer {'hits' if profile.hit_soft_17 else 'stands on'} soft 17;"
        f" blackjack paid {blackjack}; settlement {profile.settlement_order.value}"
    )
