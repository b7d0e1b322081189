"""The casino floor: the back end that runs off the table.

- ``collector``: subscribes to every station's journal over MQTT (shared subscriptions),
  checks each table's chain (``ingest``) and writes PostgreSQL (``schema``, ``migrations``).
- ``monitor``: the read-only floor page (grid, live updates, recall, alerts) behind a login
  (``auth``), reading the database through ``queries``.
- ``config``: ``floor.toml``. ``servers``: a broker and a database in a temporary
  directory, for the tests, the bench and ``make floor-demo``.

May import ``controller.journal`` (row format, hash, wire format, recall), ``controller.rules``
and the TOML section reader ``controller.service.config_schema``; the station never imports
this package (``tests/test_layers.py``).
"""
