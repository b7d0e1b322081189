"""The floor monitor's HTML: the login form, the live grid (updated by server-sent events,
no reload) and the recall page. Plain HTML and a little JavaScript; every value from the
database is escaped (``html.escape`` here, ``textContent`` in the script)."""

from __future__ import annotations

from html import escape
from typing import Final

from controller.journal.recall import money

STYLE: Final = """
body { font-family: system-ui, sans-serif; margin: 1.5em; background: #101418; color: #e8e8e8; }
a { color: #8cc8ff; } h1 { font-size: 1.3em; } .who { float: right; }
table { border-collapse: collapse; width: 100%; } th, td { padding: .35em .6em; text-align: left; }
th { border-bottom: 1px solid #555; } tr.table-row td { border-bottom: 1px solid #2a2f35; }
tr.fault td { background: #5a1e1e; } tr.silent td { color: #888; font-style: italic; }
tr.quarantined td { background: #4b3a10; } .alerts li { margin: .2em 0; }
.alert-fault { color: #ff8a80; } .alert-rollback, .alert-chain, .alert-seal { color: #ffd180; }
.alert-silent { color: #bbb; } pre { background: #1b2026; padding: 1em; }
form.login { max-width: 20em; } input { display: block; margin: .4em 0 1em; width: 100%; }
"""

SCRIPT: Final = """
const grid = document.getElementById('grid');
const alertList = document.getElementById('alerts');
const canRecall = document.body.dataset.recall === 'yes';
function money(c) { const s = c < 0 ? '-' : ''; c = Math.abs(c);
  return s + '$' + Math.floor(c / 100) + '.' + String(c % 100).padStart(2, '0'); }
function range(low, high) { if (low == null && high == null) return null;
  return (low == null ? 'any' : money(low)) + '\u2013' + (high == null ? 'any' : money(high)); }
function limits(l) { if (!l) return ''; const main = range(l.main_min_cents, l.main_max_cents);
  const match = range(l.match_min_cents, l.match_max_cents);
  return [main, match && 'match ' + match].filter(Boolean).join(', ') || 'none posted'; }
function cell(tr, cls, text) { const td = document.createElement('td'); td.className = cls;
  td.textContent = text == null ? '' : text; tr.appendChild(td); return td; }
function render(data) {
  grid.replaceChildren();
  for (const t of data.tables) {
    const tr = document.createElement('tr');
    tr.id = 'table-' + t.table;
    tr.className = 'table-row' + (t.fault ? ' fault' : '') + (t.silent ? ' silent' : '') +
      (t.quarantined ? ' quarantined' : '');
    const name = cell(tr, 'name', '');
    if (canRecall) { const a = document.createElement('a'); a.href = '/recall/' + t.table;
      a.textContent = t.table; name.appendChild(a); } else { name.textContent = t.table; }
    cell(tr, 'state', t.state); cell(tr, 'round', t.round);
    cell(tr, 'rate', t.rounds_per_hour); cell(tr, 'house', money(t.house_today_cents));
    cell(tr, 'limits', limits(t.limits));
    cell(tr, 'fault', (t.fault ? t.fault.code + ' (' + t.fault.state + ')' : '') +
      (t.quarantined ? ' quarantined: ' + t.quarantined : ''));
    cell(tr, 'devices', Object.entries(t.devices).filter(([d, s]) => s !== 'connected')
      .map(([d, s]) => d + ' ' + s).join(', ') || 'all connected');
    cell(tr, 'seen', t.last_seen + (t.silent ? ' (silent)' : ''));
    grid.appendChild(tr);
  }
  alertList.replaceChildren();
  for (const a of data.alerts) {
    const li = document.createElement('li'); li.className = 'alert-' + a.kind;
    li.textContent = a.raised + ' ' + a.table + ' ' + a.kind + ': ' + a.message;
    alertList.appendChild(li);
  }
  document.getElementById('updated').textContent = data.at;
}
const events = new EventSource('/events');
events.onmessage = (e) => render(JSON.parse(e.data));
"""


def _page(title: str, body: str, attributes: str = "") -> str:
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{escape(title)}</title>"
        f"<style>{STYLE}</style></head><body{attributes}>{body}</body></html>"
    )


def login_page(problem: str | None = None) -> str:
    """The login form (with a one-line problem after a failed attempt)."""
    note = f"<p class=problem>{escape(problem)}</p>" if problem else ""
    return _page(
        "Floor monitor: log in",
        "<h1>Floor monitor</h1>" + note + "<form class=login method=post action=/login>"
        "<label>User <input name=user autocomplete=username required></label>"
        "<label>Password <input name=password type=password autocomplete=current-password"
        " required></label><button type=submit id=login>Log in</button></form>",
    )


def grid_page(user: str, role: str, can_recall: bool) -> str:
    """The live grid; the script fills it from ``/events``."""
    who = (
        f"<span class=who>{escape(user)} ({escape(role.replace('_', ' '))})"
        " <form method=post action=/logout style='display:inline'>"
        "<button type=submit>Log out</button></form></span>"
    )
    body = (
        f"{who}<h1>Casino floor</h1>"
        "<table><thead><tr><th>table</th><th>state</th><th>round</th><th>rounds/h</th>"
        "<th>house today</th><th>limits</th><th>fault</th><th>devices</th><th>last seen</th>"
        "</tr></thead>"
        "<tbody id=grid></tbody></table><h2>Alerts</h2><ul class=alerts id=alerts></ul>"
        f"<p><small>updated <span id=updated></span></small></p><script>{SCRIPT}</script>"
    )
    return _page("Casino floor", body, f" data-recall={'yes' if can_recall else 'no'}")


def rounds_page(table: str, rounds: list[tuple[int, str, str, int]]) -> str:
    """A table's recent rounds, each linked to its recall."""
    items = "".join(
        f"<li><a href='/recall/{escape(table)}/{r}'>round {r}</a> {escape(ended)} {status}"
        f" house {money(house, signed=True)}</li>"
        for r, ended, status, house in rounds
    )
    return _page(
        f"{table}: rounds",
        f"<p><a href='/'>floor</a></p><h1>{escape(table)}</h1><ul id=rounds>{items}</ul>",
    )


def recall_page(table: str, round_no: int, text: str) -> str:
    """One round, as ``journal recall`` prints it."""
    return _page(
        f"{table} round {round_no}",
        f"<p><a href='/'>floor</a> / <a href='/recall/{escape(table)}'>{escape(table)}</a></p>"
        f"<h1>{escape(table)}: round {round_no}</h1><pre id=recall>{escape(text)}</pre>",
    )
