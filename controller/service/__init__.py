"""The daemon: ``station.toml`` (``config``), structured logs, systemd notification, the
station's main loop (``station``) and the composition root that builds the drivers
(``daemon``).

May import ``controller.rules``, ``controller.table``, ``controller.journal`` and
``drivers``; never ``controller.simulation`` or ``controller.cli``.
"""
