"""The casino floor: the back end that runs off the table.

- ``collector``: subscribes to every station's journal over MQTT (shared subscriptions),
  screens each message (``screen``), checks each table's chain and seals (``ingest``,
  ``branches``, ``seals``) and writes PostgreSQL (``schema``, ``migrations``).
- ``monitor``: the read-only floor page (grid, live updates, recall, alerts) behind a login
  (``auth``), reading the database through ``queries``.
- ``operations``: what an operator does from the command line (release a quarantine, clear
  an alert); ``cli``: the ``dealer-station floor`` commands.
- ``config``: ``floor.toml``. ``broker``: the broker configuration the floor ships.
  ``servers``: a broker and a database in a temporary directory, for the tests, the bench
  and ``make floor-demo``.

May import ``controller.journal`` (row format, hash, wire format, recall, seals),
``controller.rules``, the TOML section reader ``controller.service.config_schema`` and
``controller.service.sdnotify``; the station never imports this package
(``tests/test_layers.py``).
"""
