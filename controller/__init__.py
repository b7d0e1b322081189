"""The dealer station's table controller, in layers whose imports point one way.

``rules`` <- ``table`` <- ``journal`` <- ``service`` <- ``simulation`` <- ``cli``

- ``rules``: pure Spanish 21 rules (cards, hands, payouts, jurisdiction profiles). No I/O.
- ``table``: the regulated procedure: the state machine, prompts, faults, the hole card.
- ``journal``: the legal record: append-only, hash-chained SQLite, its reader and checks.
- ``service``: the daemon: configuration, logging, systemd, the station's main loop.
- ``simulation``: a dealer and basic-strategy players driving the real station code.
- ``cli``: the ``dealer-station`` command line.

A package imports only from the packages to its left (``tests/test_layers.py`` checks it).
"""
