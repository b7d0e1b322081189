"""The simulated table: a dealer and basic-strategy players who follow the panel as people
would, driving the real station code against the device doubles.

May import every ``controller`` package below the command line (``rules``, ``table``,
``journal``, ``service``) and ``drivers`` (the doubles included); never ``controller.cli``.
"""
