"""The repository stands alone: what it cites is in it.

A clause cited anywhere (``PA 635a.7(m)``, ``NJ 19.7(g)``, ``NJ 13:69F-19.7(i)``,
``NY 5324.12(b)(6)(iv)``) must be a clause of the texts in docs/regulations/; another section
(``635a.10``, ``NJ 13:69F-19.12``) may be cited only where those texts cite it, or to say
that it is not included (``635a.3 not included``: a profile's value assumed). No file
names a document outside the repository or a tracker's issue number: the design, the style
and the pitfalls are docs/design.md, docs/style.md and docs/pitfalls.md, and a comment says
what a figure measured, not who asked for it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REGULATIONS = ROOT / "docs" / "regulations"
TEXTS = {
    "PA": ("635a.7", REGULATIONS / "pa-58-pa-code-635a.7.txt"),
    "NJ": ("19.7", REGULATIONS / "nj-njac-13-69F-19.7.txt"),
    "NY": ("5324.12", REGULATIONS / "ny-9-nycrr-5324.12.txt"),
}
SUFFIXES = {".py", ".md", ".c", ".h", ".toml", ".sh", ".txt", ".service", ".rules", ".conf"}
NAMED = {"Makefile"}
SKIP_DIRS = {
    ".git",
    ".venv",
    "build",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    "node_modules",
}
# Public texts kept as published (they carry their own register's "Issue 46"), and vendored
# C libraries.
SKIP_UNDER = (REGULATIONS, ROOT / "firmware" / "third_party")
THIS = Path(__file__).resolve()

#: Names of what is not in the repository, and a tracker's issue numbers.
OUTSIDE = re.compile(
    r"\.\./shared|shared/regulations|DESIGN\.md|STYLE\.md|\(STYLE\b|LIBRARY-NOTES"
    r"|\b[Ii]ssue \d+|\bissue's\b"
)
#: A citation: jurisdiction (optional where the section number says it), section, clauses.
CITATION = re.compile(
    r"(?:\b(?P<juris>PA|NJ|NY) )?"
    r"(?P<section>635a\.\d+|(?<=NJ )(?:13:69F-)?19\.\d+|5324\.\d+)"
    r"(?P<clauses>(?:\([a-z0-9]+\))*)"
)
NOT_INCLUDED = (" not included", " is not included")
TOKEN = re.compile(r"^\((?P<paren>[a-z]+|\d+)\)|^(?P<dot>\d+)\.\s")
ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii")


def clauses(text: str) -> set[str]:
    """Every clause path of a regulation's text, e.g. ``(h)(1)(i)``.

    A paragraph opens with its label: a letter, a number (``(1)``, or ``1.`` in N.J.A.C.)
    or a roman numeral. ``(i)``, ``(v)`` and ``(x)`` are a letter or a numeral: a numeral
    when it opens the list a paragraph ending in ``:`` announces, or follows ``(iv)``/``(ix)``.
    """
    found: set[str] = set()
    letter = number = roman = ""
    opens_list = False
    for paragraph in (p.strip() for p in text.split("\n\n")):
        match = TOKEN.match(paragraph)
        if not match:
            continue
        label = match.group("paren") or match.group("dot")
        if label.isdigit():
            number, roman = label, ""
        elif label in ROMAN and (
            len(label) > 1
            or (label == "i" and opens_list and number)
            or (roman and ROMAN.index(label) == ROMAN.index(roman) + 1)
        ):
            roman = label
        else:
            letter, number, roman = label, "", ""
        found.add("".join(f"({part})" for part in (letter, number, roman) if part))
        opens_list = paragraph.rstrip().endswith(":")
    return found


HELD = {
    juris: (section, path.read_text(encoding="utf-8")) for juris, (section, path) in TEXTS.items()
}
CLAUSES = {juris: clauses(text) for juris, (_, text) in HELD.items()}


def files() -> Iterator[Path]:
    for folder, dirs, names in os.walk(ROOT):
        here = Path(folder)
        dirs[:] = [
            d
            for d in dirs
            if d not in SKIP_DIRS and not d.endswith(".egg-info") and here / d not in SKIP_UNDER
        ]
        for name in names:
            path = here / name
            if path.suffix in SUFFIXES or name in NAMED:
                yield path


def problems(text: str, *, outside: bool = True) -> list[str]:
    """What ``text`` cites that the repository does not hold."""
    found = [m.group(0) for m in OUTSIDE.finditer(text)] if outside else []
    for m in CITATION.finditer(text):
        section, cited = m.group("section").removeprefix("13:69F-"), m.group("clauses")
        juris = m.group("juris") or ("PA" if section.startswith("635a") else "NY")
        if juris == "NJ" and not section.startswith("19."):
            continue
        held_section, held_text = HELD[juris]
        if section != held_section:
            said_absent = text.startswith(NOT_INCLUDED, m.end())
            if section not in held_text and not said_absent:
                found.append(m.group(0))  # a section the held text never cites
        elif cited and cited not in CLAUSES[juris]:
            found.append(m.group(0))
    return found


# This file's own examples of what the check refuses are left out.
FILES = sorted(p for p in files() if p.resolve() != THIS)


def test_the_clause_parser_reads_each_text() -> None:
    assert {"(a)", "(h)(1)(ii)", "(i)", "(p)(2)", "(r)"} <= CLAUSES["PA"]
    assert "(h)(2)(i)" not in CLAUSES["PA"]  # (h)(2) ends in "."; the next (i) is a letter
    assert {"(d)(3)", "(j)(1)", "(l)"} <= CLAUSES["NJ"]
    assert {"(a)", "(b)(1)(iv)", "(b)(6)(vii)", "(b)(10)", "(c)(4)(iv)", "(d)(5)"} <= CLAUSES["NY"]
    assert "(b)(11)" not in CLAUSES["NY"]


def test_the_check_catches_what_is_not_held() -> None:
    assert problems("# PA 635a.7(m): no draw when the outcome cannot change") == []
    assert problems("NJ 13:69F-19.7(i), NJ 19.7(d)3, NY 5324.12(b)(6)(iv), 635a.10") == []
    assert problems("PA 635a.7(z)") == ["PA 635a.7(z)"]
    assert problems("NY 5324.12(b)(11)") == ["NY 5324.12(b)(11)"]
    assert problems("PA 635a.7(h)(2)(i)") == ["PA 635a.7(h)(2)(i)"]
    assert problems("PA 635a.13") == ["PA 635a.13"]
    assert problems("NJ 19.9(a)") == ["NJ 19.9(a)"]
    assert problems("PA 635a.3 not included") == []
    assert sorted(problems("a figure of issue 15 (see ../shared/DESIGN.md)")) == [
        "../shared",
        "DESIGN.md",
        "issue 15",
    ]


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_a_file_cites_only_what_the_repository_holds(path: Path) -> None:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return
    wrong = problems(text)
    assert not wrong, f"{path.relative_to(ROOT)} cites what the repository does not hold: {wrong}"
