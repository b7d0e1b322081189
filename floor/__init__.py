"""The casino floor: the back end that runs off the table.

- ``collector``: subscribes to every station's journal over MQTT (shared subscriptions),
  screens each message (``screen``), checks each table's chain and seals (``ingest``,
  ``branches``, ``seals``) and writes PostgreSQL (``store``, ``schema``, ``migrations``).
- ``monitor``: the floor console (live grid, pits, tables, recall, search, alerts) behind a
  login (``auth``, ``sessions``, ``headers``), reading the database through ``queries``,
  ``figures``, ``recall`` and ``search``, kept live by ``feed`` (one listener for every
  page; the collectors' ``heartbeat``); pages from ``page`` (Jinja2 templates), the
  casino's clock and pits from ``casino``, the charting library from ``vendor``.
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
