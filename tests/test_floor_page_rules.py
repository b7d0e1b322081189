"""The console's pages (``floor.page``) without a server: what a page knows of the visitor
(nobody on the login page; a role's rights for the navigation and the grid's buttons), the
form token's empty default, and every value escaped (the pages' contents are played in
Chromium by tests/test_floor_monitor.py)."""

from __future__ import annotations

from floor.page import render

GRID = {"zone": "UTC", "pits": []}


def test_the_login_page_shows_nobody_and_an_empty_token_by_default() -> None:
    page = render("login.html", problem=None)
    assert 'name="form_token" value=""' in page
    assert 'id="logout"' not in page and 'class="user"' not in page


def test_a_pit_supervisor_acknowledges_and_neither_recalls_nor_searches() -> None:
    page = render("grid.html", user="pat", role="pit_supervisor", form_token="f00d", **GRID)
    assert 'data-ack="yes" data-recall="no" data-form-token="f00d"' in page
    assert "Search rounds" not in page
    assert '<span class="user">pat</span> <span class="role">pit supervisor</span>' in page


def test_surveillance_recalls_and_searches_and_acknowledges_nothing() -> None:
    page = render("grid.html", user="sam", role="surveillance", form_token="f00d", **GRID)
    assert 'data-ack="no" data-recall="yes"' in page
    assert '<a href="/search" class="">Search rounds</a>' in page


def test_a_page_without_a_role_has_no_rights_and_given_rights_stand() -> None:
    page = render("grid.html", user="x", role=None, **GRID)
    assert 'data-ack="no" data-recall="no" data-form-token=""' in page
    given = render("grid.html", user="x", role="surveillance", rights={"acknowledge"}, **GRID)
    assert 'data-ack="yes" data-recall="no"' in given


def test_the_grid_marks_its_own_link() -> None:
    page = render("grid.html", user="pat", role="surveillance", **GRID)
    assert '<a href="/" class="on">Live floor</a>' in page  # the grid names its own
    assert '<a href="/pit" class="">Pits</a>' in page


def test_every_value_is_escaped() -> None:
    page = render("login.html", problem="<script>alert(1)</script>")
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_a_page_that_names_no_navigation_marks_no_link() -> None:
    page = render("base.html", user="pat", role="pit_supervisor")
    assert '<a href="/" class="">Live floor</a>' in page
    assert '<a href="/pit" class="">Pits</a>' in page


def test_a_role_the_console_does_not_know_has_no_rights() -> None:
    page = render("grid.html", user="x", role="croupier", **GRID)
    assert 'data-ack="no" data-recall="no"' in page and "Search rounds" not in page
