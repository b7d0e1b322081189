"""The casino floor: the back end that runs off the table.

- ``collector``: subscribes to every station's journal over MQTT (shared subscriptions),
  checks each table's chain (``ingest``) and writes PostgreSQL (``schema``, ``migrations``).
- ``monitor``: the floor console (live grid, pits, tables, recall, search, alerts) behind a
  login (``auth``, ``sessions``, ``headers``), reading the database through ``queries``,
  ``figures``, ``recall`` and ``search``, kept live by ``feed`` (one listener for every
  page; the collectors' ``heartbeat``); pages from ``page`` (Jinja2 templates), the
  casino's clock and pits from ``casino``, the charting library from ``vendor``.
- ``config``: ``floor.toml``. ``servers``: a broker and a database in a temporary
  directory, for the tests, the bench and ``make floor-demo``.

May import ``controller.journal`` (row format, hash, wire format, recall), ``controller.rules``
and the TOML section reader ``controller.service.config_schema``; the station never imports
this package (``tests/test_layers.py``).
"""
