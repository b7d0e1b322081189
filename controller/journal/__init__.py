"""The table's legal record: the append-only, hash-chained SQLite journal (``store``), its
row format (``format``), reading (``reader``), chain checks (``verify``) and the
reconstruction of rounds from it (``recall``). The vocabulary is in ``docs/journal.md``.

May import ``controller.rules`` and ``controller.table``; never the service or the CLI.
"""
