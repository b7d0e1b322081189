"""The sealed hole card: a face-down card whose identity must not leak before the reveal.

Imported as :class:`controller.rules.cards.SealedCard`. Its own module so that it stays a
Python class in the compiled build (``make compiled`` leaves this file out): the table's
:class:`controller.table.holecard.WithheldCard` subclasses it, and mypyc refuses an
interpreted subclass of a compiled class at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.rules.cards import Card


class SealedCard:
    """A face-down card whose identity must not leak before the reveal.

    ``repr``/``str``/formatting never show the card; equality and hashing are by identity
    so that comparing or putting it in a set cannot reveal it either. Only :meth:`reveal`
    gives the card, and the procedure calls it at the reveal.
    """

    __slots__ = ("__card",)

    def __init__(self, card: Card) -> None:
        self.__card = card

    def reveal(self) -> Card:
        """Return the card. Call only at the reveal."""
        return self.__card

    def __repr__(self) -> str:
        return "SealedCard(<face down>)"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("a sealed card cannot be pickled")
