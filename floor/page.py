"""The console's HTML: Jinja2 templates (``floor/templates``) with autoescaping on for every
template, so every value a station sent (a table id, a firmware version, a serial, a fault
text) reaches the page as text, never as markup. No page has inline script or style (the
content security policy of :mod:`floor.headers` forbids both): scripts and styles are files
under ``floor/static``, served from the package, and data for a script travels in a
``<script type="application/json">`` block written by Jinja's ``tojson`` (``<``, ``>`` and
``&`` escaped), which the browser never runs.
"""

from __future__ import annotations

from typing import Any, Final

from jinja2 import Environment, PackageLoader, StrictUndefined

from floor.auth import ROLE_RIGHTS

_ENV: Final = Environment(
    loader=PackageLoader("floor", "templates"),
    autoescape=True,  # every template, whatever its name
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def render(template: str, **context: Any) -> str:
    """Template ``template`` with ``context``; ``user`` and ``role`` (when given) also set
    ``rights``, the role's rights, for the navigation."""
    role = context.get("role")
    context.setdefault("user", None)
    context.setdefault("rights", ROLE_RIGHTS.get(role, frozenset()) if role else frozenset())
    context.setdefault("form_token", "")
    context.setdefault("nav", "")
    return _ENV.get_template(template).render(**context)
