"""The floor's schema migrations (``floor.schema``) without a server: the shipped files in
order, each applied once under the advisory lock and recorded, ``upto`` stopping at an older
floor's version, and a database newer than the code refused before anything is written.
``tests/test_floor_ingest.py`` applies the same migrations to a real PostgreSQL; here a
connection that keeps ``schema_migration`` in memory sees every statement sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from typing import Any

import pytest

from floor.schema import MIGRATION_NAME, SchemaError, migrate, migrations


class Connection:
    """What :func:`floor.schema.migrate` sends, with ``schema_migration`` kept in memory."""

    def __init__(self, *versions: int) -> None:
        self.versions = {v: f"v{v}" for v in versions}
        self.sent: list[tuple[str, Any]] = []
        self.open = 0  # transactions entered and not left

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.open += 1
        self.sent.append(("BEGIN", None))
        yield
        self.sent.append(("COMMIT", None))
        self.open -= 1

    def execute(self, sql: str | bytes, params: tuple[Any, ...] | None = None) -> list[Any]:
        assert self.open == 1, "every statement inside the one transaction"
        self.sent.append((sql if isinstance(sql, str) else sql.decode(), params))
        if sql == "SELECT version FROM schema_migration":
            return [(v,) for v in self.versions]
        if isinstance(sql, str) and sql.startswith("INSERT INTO schema_migration"):
            assert params is not None
            self.versions[params[0]] = params[1]
        return []

    def migrations_run(self) -> list[str]:
        """The migration files' texts sent (as bytes: a file holds several statements)."""
        shipped = {sql for _, _, sql in migrations()}
        return [sql for sql, _ in self.sent if sql in shipped]


SHIPPED = sorted(
    (int(m[1]), m[2])
    for entry in resources.files("floor.migrations").iterdir()
    if (m := re.fullmatch(r"(\d{4})_([a-z0-9_]+)\.sql", entry.name))
)


def test_the_shipped_migrations_are_every_numbered_file_in_order_with_its_text() -> None:
    found = migrations()
    assert [(v, name) for v, name, _ in found] == SHIPPED
    assert [v for v, _, _ in found][:4] == [1, 2, 3, 4] and len(found) >= 7
    for version, name, sql in found:
        path = resources.files("floor.migrations") / f"{version:04d}_{name}.sql"
        assert sql == path.read_text(encoding="utf-8")
    assert "__init__" not in {name for _, name, _ in found}


def test_the_migration_files_are_ascii_so_read_the_same_in_any_locale() -> None:
    for entry in resources.files("floor.migrations").iterdir():
        if entry.name.endswith(".sql"):
            assert entry.read_bytes().isascii(), entry.name


@pytest.mark.parametrize(
    ("name", "taken"),
    [("0001_journal.sql", True), ("0012_compact_rows.sql", True), ("001_journal.sql", False),
     ("0001_Journal.sql", False), ("0001_journal.sql.orig", False), ("x0001_journal.sql", False),
     ("0001_journal.txt", False), ("0001-journal.sql", False), ("0001_.sql", False)],
)  # fmt: skip
def test_a_migration_is_a_file_named_four_digits_and_a_lowercase_name(
    name: str, taken: bool
) -> None:
    assert (MIGRATION_NAME.fullmatch(name) is not None) is taken


def test_a_new_database_gets_every_migration_in_order_each_recorded() -> None:
    conn = Connection()
    versions = [v for v, _ in SHIPPED]
    assert migrate(conn) == versions  # type: ignore[arg-type]
    assert conn.versions == {v: name for v, name in SHIPPED}
    assert conn.migrations_run() == [sql for _, _, sql in migrations()]
    # The lock first, then the record table, then what is recorded, all in one transaction.
    assert conn.sent[0] == ("BEGIN", None) and conn.sent[-1] == ("COMMIT", None)
    assert conn.sent[1] == ("SELECT pg_advisory_xact_lock(%s)", (0x5F100A,))
    assert " ".join(conn.sent[2][0].lower().split()) == (
        "create table if not exists schema_migration (version integer primary key,"
        " name text not null, applied timestamptz not null default now())"
    )
    assert conn.sent[3] == ("SELECT version FROM schema_migration", None)
    inserts = [p for sql, p in conn.sent if sql.startswith("INSERT INTO schema_migration")]
    assert inserts == SHIPPED


def test_a_migration_already_applied_is_never_applied_again() -> None:
    every = [v for v, _ in SHIPPED]
    conn = Connection(*every[:3])
    assert migrate(conn) == every[3:]  # type: ignore[arg-type]
    assert conn.migrations_run() == [sql for v, _, sql in migrations() if v not in every[:3]]
    again = Connection(*every)
    assert migrate(again) == [] and again.migrations_run() == []  # type: ignore[arg-type]


@pytest.mark.parametrize("upto", [0, 1, 3, 4, 9, 10])
def test_upto_applies_the_migrations_up_to_that_version_included(upto: int) -> None:
    conn = Connection()
    expected = [v for v, _ in SHIPPED if v <= upto]
    assert migrate(conn, upto=upto) == expected  # type: ignore[arg-type]
    assert sorted(conn.versions) == expected
    # Later, without upto, the rest follows.
    assert migrate(conn) == [v for v, _ in SHIPPED if v > upto]  # type: ignore[arg-type]


def test_a_database_newer_than_the_code_is_refused_before_anything_is_written() -> None:
    conn = Connection(1, 99, 250)
    with pytest.raises(SchemaError, match=r"^the database has schema version 250, unknown here$"):
        migrate(conn)  # type: ignore[arg-type]
    assert conn.migrations_run() == [] and set(conn.versions) == {1, 99, 250}
    assert not any(sql.startswith("INSERT") for sql, _ in conn.sent)


def test_one_version_unknown_is_enough_to_refuse() -> None:
    conn = Connection(*[v for v, _ in SHIPPED], 13)
    with pytest.raises(SchemaError, match="schema version 13,"):
        migrate(conn)  # type: ignore[arg-type]
