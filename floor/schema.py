"""Versioned schema migrations: the files ``NNNN_name.sql`` in ``floor/migrations``,
applied in order, each once.

``schema_migration`` records each applied version. :func:`migrate` takes an advisory lock,
so collectors and monitors started together do not race; a database newer than this code
(a version it does not know) is refused rather than written to.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Final

import psycopg

MIGRATION_NAME: Final = re.compile(r"(\d{4})_([a-z0-9_]+)\.sql")
_LOCK: Final = 0x5F100A  # the advisory lock key of migrations


class SchemaError(RuntimeError):
    """The database's schema is newer than this code knows."""


def migrations() -> list[tuple[int, str, str]]:
    """``(version, name, sql)`` of every migration shipped with the code, in order."""
    found = []
    for entry in resources.files("floor.migrations").iterdir():
        match = MIGRATION_NAME.fullmatch(entry.name)
        if match:
            found.append((int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    return sorted(found)


def migrate(conn: psycopg.Connection[tuple[object, ...]], upto: int | None = None) -> list[int]:
    """Apply the migrations the database lacks (those up to version ``upto`` when given:
    a database as an older floor left it); returns the versions applied.

    Raises:
        SchemaError: when the database has a version this code does not ship.
    """
    applied: list[int] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migration (version integer PRIMARY KEY,"
            " name text NOT NULL, applied timestamptz NOT NULL DEFAULT now())"
        )
        done: set[int] = {
            int(str(v)) for (v,) in conn.execute("SELECT version FROM schema_migration")
        }
        known = migrations()
        unknown = done - {v for v, _, _ in known}
        if unknown:
            raise SchemaError(f"the database has schema version {max(unknown)}, unknown here")
        for version, name, sql in known:
            if version in done or (upto is not None and version > upto):
                continue
            conn.execute(sql.encode())
            conn.execute(
                "INSERT INTO schema_migration (version, name) VALUES (%s, %s)", (version, name)
            )
            applied.append(version)
    return applied
