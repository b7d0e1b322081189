// The live grid: fed by the server-sent events of /events (floor/feed.py), never reloaded.
// Every value is put in the page as text (textContent), never as markup.
'use strict';
(() => {
  const body = document.body;
  const canAck = body.dataset.ack === 'yes';
  const formToken = body.dataset.formToken || '';
  const STREAM_SILENT_MS = 3500; // no message for this long: the stream is lost
  const tables = new Map();
  let alerts = [];
  let sortKey = 'table';
  let sortDir = 1;
  let lastMessage = Date.now();
  let serverStale = [];
  let lastGood = 'never';

  // [key, heading, sort value, class]
  const COLUMNS = [
    ['table', 'Table', (t) => t.table, 'name'],
    ['pit', 'Pit', (t) => t.pit, ''],
    ['state', 'State', (t) => t.state, 'state'],
    ['round', 'Round', (t) => t.round ?? -1, 'num'],
    ['rounds_h', 'Rounds/h', (t) => t.rounds_h, 'num'],
    ['hands_h', 'Hands/h', (t) => t.hands_h, 'num'],
    ['handle', 'Handle (shift)', (t) => t.handle_cents, 'num'],
    ['win', 'Win (shift)', (t) => t.win_cents, 'num'],
    ['hold', 'Hold', (t) => (t.handle_cents > 0 ? t.win_cents / t.handle_cents : -1e9), 'num'],
    ['win_day', 'Win (day)', (t) => t.win_day_cents, 'num'],
    ['limits', 'Limits', (t) => t.limits, 'limits'],
    ['fault', 'Fault', (t) => t.fault + t.quarantined, 'fault'],
    ['devices', 'Devices', (t) => t.devices, 'devices'],
    ['seen', 'Last seen', (t) => t.seen, 'seen'],
    ['alerts', 'Alerts', (t) => t.alerts, 'num'],
  ];

  const $ = (id) => document.getElementById(id);
  const grid = $('grid');
  const head = $('grid-head');

  function heading() {
    head.replaceChildren();
    for (const [key, label, , cls] of COLUMNS) {
      const th = document.createElement('th');
      th.className = cls;
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.sort = key;
      button.textContent = label + (sortKey === key ? (sortDir > 0 ? ' \u25B2' : ' \u25BC') : '');
      if (sortKey === key) button.classList.add('sorted');
      button.addEventListener('click', () => {
        sortDir = sortKey === key ? -sortDir : 1;
        sortKey = key;
        heading();
        render();
      });
      th.appendChild(button);
      head.appendChild(th);
    }
  }

  function cell(tr, cls, text) {
    const td = document.createElement('td');
    td.className = cls;
    td.textContent = text == null ? '' : String(text);
    tr.appendChild(td);
    return td;
  }

  function shown(t) {
    const pit = $('filter-pit').value;
    const state = $('filter-state').value;
    const text = $('filter-text').value.trim().toLowerCase();
    if (pit && (t.pit || '(no pit)') !== pit) return false;
    if (state && t.state !== state) return false;
    if ($('filter-trouble').checked && t.flag === 0) return false;
    return !text || t.table.toLowerCase().includes(text);
  }

  function row(t) {
    const tr = document.createElement('tr');
    tr.id = 'table-' + t.table;
    tr.className = 'table-row' + (t.fault ? ' fault' : '') + (t.quarantined ? ' quarantined' : '') +
      (t.silent ? ' silent' : '');
    const name = cell(tr, 'name', '');
    const link = document.createElement('a');
    link.href = '/table/' + encodeURIComponent(t.table);
    link.textContent = t.table;
    name.appendChild(link);
    cell(tr, 'pit', t.pit);
    cell(tr, 'state', t.state);
    cell(tr, 'round num', t.round);
    cell(tr, 'rate num', t.rounds_h.toFixed(1));
    cell(tr, 'hands num', t.hands_h.toFixed(1));
    cell(tr, 'handle num', t.handle);
    cell(tr, 'win num' + (t.win_cents < 0 ? ' neg' : ''), t.win);
    cell(tr, 'hold num', t.hold);
    cell(tr, 'house win-day num' + (t.win_day_cents < 0 ? ' neg' : ''), t.win_day);
    cell(tr, 'limits', t.limits);
    cell(tr, 'fault', [t.fault, t.quarantined && 'quarantined: ' + t.quarantined]
      .filter(Boolean).join(' '));
    cell(tr, 'devices', t.devices);
    cell(tr, 'seen', t.seen + (t.silent ? ' (silent)' : ''));
    const count = cell(tr, 'alerts num', '');
    if (t.alerts) {
      const pill = document.createElement('span');
      pill.className = 'pill';
      pill.textContent = String(t.alerts);
      count.appendChild(pill);
    }
    return tr;
  }

  function render() {
    const sortBy = COLUMNS.find((c) => c[0] === sortKey)[2];
    const list = [...tables.values()].filter(shown);
    list.sort((a, b) => {
      if (a.flag !== b.flag) return b.flag - a.flag; // faulted, then silent, on top
      const x = sortBy(a);
      const y = sortBy(b);
      const order = typeof x === 'number' && typeof y === 'number' ? x - y
        : String(x).localeCompare(String(y), undefined, { numeric: true });
      return order * sortDir || a.table.localeCompare(b.table, undefined, { numeric: true });
    });
    grid.replaceChildren(...list.map(row));
    const all = [...tables.values()];
    $('count-tables').textContent = String(all.length);
    $('count-fault').textContent = String(all.filter((t) => t.flag === 2).length);
    $('count-silent').textContent = String(all.filter((t) => t.silent).length);
    $('count-shown').textContent = String(list.length);
    const states = new Set(all.map((t) => t.state).filter(Boolean));
    const select = $('filter-state');
    const chosen = select.value;
    const have = new Set([...select.options].map((o) => o.value));
    for (const state of [...states].sort()) {
      if (!have.has(state)) select.appendChild(new Option(state, state));
    }
    select.value = chosen;
  }

  async function acknowledge(alert, li, button) {
    button.disabled = true;
    const answer = await fetch('/alerts/' + alert.id + '/ack', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { Accept: 'application/json' },
      body: new URLSearchParams({ form_token: formToken }),
    }).catch(() => null);
    if (!answer || !answer.ok) {
      button.disabled = false;
      const problem = document.createElement('span');
      problem.className = 'problem';
      problem.textContent = answer ? (await answer.text()).trim() : 'the console did not answer';
      li.appendChild(problem);
    }
  }

  function renderAlerts() {
    const list = $('alerts');
    list.replaceChildren();
    let open = 0;
    for (const a of alerts) {
      const li = document.createElement('li');
      li.className = 'alert alert-' + a.kind + (a.ack ? ' acked' : '');
      if (a.id != null) li.id = 'alert-' + a.id;
      if (!a.ack) open += 1;
      for (const [cls, text] of [['when', a.raised], ['kind', a.kind], ['table', a.table],
        ['message', a.message]]) {
        const span = document.createElement('span');
        span.className = cls;
        span.textContent = text;
        li.appendChild(span);
        li.appendChild(document.createTextNode(' '));
      }
      if (a.ack) {
        const note = document.createElement('span');
        note.className = 'ack-note';
        note.textContent = a.ack;
        li.appendChild(note);
      } else if (canAck && a.id != null) {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'ack';
        button.textContent = 'Acknowledge';
        button.addEventListener('click', () => acknowledge(a, li, button));
        li.appendChild(button);
      }
      list.appendChild(li);
    }
    if (!alerts.length) {
      const li = document.createElement('li');
      li.className = 'none';
      li.textContent = 'no open alert';
      list.appendChild(li);
    }
    $('count-alerts').textContent = String(open);
  }

  function banner() {
    const reasons = [...serverStale];
    const quiet = Date.now() - lastMessage;
    if (quiet > STREAM_SILENT_MS) {
      reasons.unshift('the console server has not answered for ' + Math.round(quiet / 1000) +
        ' s (event stream lost)');
    }
    $('stale').hidden = reasons.length === 0;
    $('stale-why').textContent = reasons.join('; ');
    $('last-good').textContent = lastGood;
  }

  function onGrid(message) {
    lastMessage = Date.now();
    const data = JSON.parse(message.data);
    if (data.full) tables.clear();
    for (const t of data.full ? data.tables : data.changed) tables.set(t.table, t);
    for (const name of data.removed || []) tables.delete(name);
    if (data.alerts) {
      alerts = data.alerts;
      renderAlerts();
    }
    if (data.shift) $('shift-name').textContent = data.shift;
    if (data.day) $('day-name').textContent = data.day;
    render();
  }

  function onStatus(message) {
    lastMessage = Date.now();
    const status = JSON.parse(message.data);
    serverStale = status.stale;
    lastGood = status.last_good;
    $('updated').textContent = status.at;
    banner();
  }

  for (const id of ['filter-pit', 'filter-state', 'filter-trouble', 'filter-text']) {
    $(id).addEventListener('input', render);
  }
  heading();
  renderAlerts();
  const events = new EventSource('/events');
  events.addEventListener('grid', onGrid);
  events.addEventListener('status', onStatus);
  events.addEventListener('logout', () => { window.location.assign('/login'); });
  setInterval(banner, 500);
})();
