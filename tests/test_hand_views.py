"""The snapshots' view of each hand (``controller.table.view.HandViews``): kept while the
hand is unchanged, made again at every change a hand can go through (a card, a split that
swaps its second card, a double, a status), and always what a fresh view would show."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from controller.rules.cards import parse_card
from controller.rules.hands import HandStatus, PlayerHand
from controller.table.view import HandView, HandViews


def fresh(h: PlayerHand) -> HandView:
    """The view worked out by hand from the hand's fields."""
    return HandView(
        h.seat,
        h.index + 1,
        tuple(c.text for c in h.cards),
        h.total,
        h.status.value,
        h.doubled,
    )


def hand(*cards: str, seat: int = 3, index: int = 0) -> PlayerHand:
    h = PlayerHand(seat, index, 500)
    for text in cards:
        h.add(parse_card(text))
    return h


def test_an_unchanged_hand_gets_the_same_view_object() -> None:
    views, h = HandViews(), hand("7S", "8H")
    first = views.view(h)
    assert first == HandView(3, 1, ("7S", "8H"), 15, "playing", False)
    assert views.view(h) is first


def test_a_card_makes_the_view_again() -> None:
    views, h = HandViews(), hand("7S", "8H")
    views.view(h)
    h.add(parse_card("2C"))
    assert views.view(h) == HandView(3, 1, ("7S", "8H", "2C"), 17, "playing", False)


def test_a_split_that_swaps_the_second_card_makes_the_view_again() -> None:
    """The count stays 2; only the last card tells the change."""
    views, h = HandViews(), hand("8S", "8H")
    views.view(h)
    h.cards.pop()
    h.hard -= 8
    h.add(parse_card("3D"))
    assert views.view(h).cards == ("8S", "3D")


def test_a_double_and_a_status_make_the_view_again() -> None:
    views, h = HandViews(), hand("5S", "6H")
    views.view(h)
    h.double_cents = 500
    assert views.view(h).doubled
    h.status = HandStatus.STOOD
    assert views.view(h).status == "stood"


def test_another_hand_in_the_same_place_gets_its_own_view() -> None:
    """A new round's hand at the same seat and index, with equal cards: a new object."""
    views = HandViews()
    old, new = hand("9S", "7H"), hand("9S", "7H")
    views.view(old)
    new.status = HandStatus.BUST  # differs only in what the old view cannot show
    assert views.view(new).status == "bust"


_CARDS = st.sampled_from([f"{r}{s}" for r in "A23456789JQK" for s in "SHDC"])
_STEPS = st.one_of(
    st.tuples(st.just("card"), _CARDS),
    st.tuples(st.just("swap"), _CARDS),
    st.tuples(st.just("double"), st.integers(0, 2000)),
    st.tuples(st.just("status"), st.sampled_from(list(HandStatus))),
    st.tuples(st.just("look"), st.none()),
)


@given(st.lists(_STEPS, max_size=30))
def test_the_view_is_always_what_a_fresh_view_shows(steps: list[tuple[str, object]]) -> None:
    views, h = HandViews(), hand("7S", "8H")
    for step, value in steps:
        if step == "card":
            h.add(parse_card(str(value)))
        elif step == "swap" and len(h.cards) >= 2:
            gone = h.cards.pop()
            h.hard -= gone.points
            h.has_ace = any(c.points == 1 for c in h.cards)
            h.add(parse_card(str(value)))
        elif step == "double":
            h.double_cents = int(str(value))
        elif step == "status":
            assert isinstance(value, HandStatus)
            h.status = value
        assert views.view(h) == fresh(h)
