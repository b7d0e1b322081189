"""The preset dictionaries of the compact storage (``controller.journal.compact``), one a
record kind, shipped with the program in ``dictionaries.json``.

Each is sample data texts of its kind from a simulated table (``bench/journal_layouts.py
--write-dictionaries`` builds them with :func:`controller.journal.compact.build_dictionary`).
A journal stored compactly copies the dictionary of a kind into its own kinds table when
it writes the kind's first row, and reads with that copy only: a later program with other
dictionaries reads an older file the same.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Final

from controller.journal.compact import COMMIT_DICTIONARY_LIMIT, DICTIONARY_LIMIT
from controller.journal.format import KIND_PATTERN

DICTIONARIES_PATH: Final = Path(__file__).with_name("dictionaries.json")


@cache
def load_dictionaries() -> dict[str, bytes]:
    """Kind -> its preset dictionary (read once).

    Raises:
        ValueError: the shipped file is not a map of record kinds to ASCII texts of at
            most :data:`controller.journal.compact.DICTIONARY_LIMIT` bytes.
    """
    loaded = json.loads(DICTIONARIES_PATH.read_text(encoding="ascii"))
    if not isinstance(loaded, dict):
        raise ValueError(f"{DICTIONARIES_PATH}: not a JSON object")
    found: dict[str, bytes] = {}
    for kind, text in loaded.items():
        if not KIND_PATTERN.fullmatch(kind) or not isinstance(text, str) or not text.isascii():
            raise ValueError(f"{DICTIONARIES_PATH}: bad entry {kind!r}")
        if len(text) > DICTIONARY_LIMIT:
            raise ValueError(f"{DICTIONARIES_PATH}: {kind}'s dictionary is too long")
        found[kind] = text.encode("ascii")
    return found


#: Of each kind's dictionary, the end that goes into the dictionary of a commit.
COMMIT_SHARE: Final = 480


@cache
def commit_dictionary() -> bytes:
    """The dictionary of :class:`controller.journal.compact.CommitCodec`: the end of each
    kind's (:data:`COMMIT_SHARE` bytes), in the kinds' order, cut to
    :data:`controller.journal.compact.COMMIT_DICTIONARY_LIMIT` from the end."""
    joined = b"".join(text[-COMMIT_SHARE:] for _, text in sorted(load_dictionaries().items()))
    return joined[-COMMIT_DICTIONARY_LIMIT:]
