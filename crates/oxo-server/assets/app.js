// oxo serve — the browser side. Vanilla JS, no build step; talks only to /api (see the server's API).
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const enc = encodeURIComponent;
  const up = (s) => (s ? String(s).toUpperCase() : '');

  const DESCRIPTIONS = {
    human: 'a friend — share a link',
    random: 'computer: random — plays anywhere',
    rules: 'computer: rules — wins, blocks, forks',
    alphabeta: 'computer: alphabeta — searches ahead (big boards)',
    perfect: 'computer: perfect — cannot lose (small boards)',
    learned: 'computer: learned — taught itself by self-play',
  };
  const DEFAULT_INFO = {
    strategies: ['random', 'rules', 'alphabeta', 'perfect'],
    presets: [{ size: '3x3', k: 3 }, { size: '4x4', k: 4 }, { size: '7x7', k: 5 }, { size: '15x15', k: 5 }],
    max_side: 32,
  };

  // ---- seat tokens, one localStorage key per game (kept in memory too, for private modes) ----
  const memory = {};
  const seats = {
    key: (id) => 'oxo.seat.' + id,
    get(id) {
      let v = memory[id];
      try { v = JSON.parse(localStorage.getItem(this.key(id))) || v; } catch (e) { /* no storage */ }
      return v && v.token && (v.seat === 'x' || v.seat === 'o') ? v : null;
    },
    // X of a game between two people also keeps the invite for seat O.
    set(id, seat, token, invite) {
      const v = invite ? { seat, token, invite } : { seat, token };
      memory[id] = v;
      try { localStorage.setItem(this.key(id), JSON.stringify(v)); } catch (e) { /* no storage */ }
      this.remember(id);
    },
    // The games this browser holds a seat in, the latest first (at most 12).
    recentKey: 'oxo.recent',
    recent() {
      let list = memory.recent || [];
      try { list = JSON.parse(localStorage.getItem(this.recentKey)) || list; } catch (e) { /* no storage */ }
      return Array.isArray(list) ? list.filter((id) => typeof id === 'string') : [];
    },
    remember(id) {
      const list = [id, ...this.recent().filter((x) => x !== id)].slice(0, 12);
      memory.recent = list;
      try { localStorage.setItem(this.recentKey, JSON.stringify(list)); } catch (e) { /* no storage */ }
    },
  };

  // ---- HTTP: always resolves to {ok, status, data}; data.error explains failures ----
  async function api(method, path, body, token) {
    const headers = {};
    // Every POST says JSON (the server refuses anything else, so other sites' forms cannot post).
    if (method !== 'GET') headers['Content-Type'] = 'application/json';
    if (token) headers.Authorization = 'Bearer ' + token;
    let res;
    try {
      res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      return { ok: false, status: 0, data: { error: 'network error — is the server running?' } };
    }
    let data = null;
    try { data = await res.json(); } catch (e) { /* not JSON */ }
    if (!data || typeof data !== 'object') data = res.ok ? {} : { error: `${res.status} ${res.statusText}`.trim() };
    if (!res.ok && !data.error) data.error = `request failed (${res.status})`;
    return { ok: res.ok, status: res.status, data };
  }

  // ---- the non-blocking message area ----
  let messageTimer = 0;
  function message(text, kind = 'error', ms = 6000) {
    const el = $('message');
    clearTimeout(messageTimer);
    el.textContent = '';
    el.className = 'toast ' + kind;
    el.hidden = false;
    setTimeout(() => { el.textContent = text; }, 50); // re-announce even a repeated message
    if (ms) messageTimer = setTimeout(() => { el.hidden = true; }, ms);
  }
  function clearMessage() { clearTimeout(messageTimer); $('message').hidden = true; }

  // ---- state of the game page ----
  let S = null;
  function freshState(id) {
    return {
      id, seat: null, token: null, game: null, shown: -1, ws: null, wsTimer: 0, backoff: 500,
      live: false, closed: false, busy: false, sent: null, postMoves: false, hints: null, hintNoted: false, focus: [0, 0],
      wantFocus: false, built: '', cells: [],
      // The move list: past rounds once fetched, and what the board shows
      // (null: the game as it stands; else a round and a number of moves).
      record: null, view: null, presence: null,
      // The analysis board's line of moves and cached values (else null).
      analysis: null, values: null,
    };
  }

  // ---- routing: "/" is the start page, "/g/{id}" the game ----
  function route() {
    if (S) stopLive();
    S = null;
    clearMessage();
    const m = location.pathname.match(/^\/g\/([^/]+)\/?$/);
    if (m) openGame(decodeURIComponent(m[1]));
    else if (location.pathname === '/analysis') openAnalysis();
    else showStart();
  }

  // ---- the analysis board: anyone plays both sides; every empty cell
  // shows its perfect-play value ----
  function analysisUrl(a, ply) {
    const q = new URLSearchParams({ size: a.size, k: a.k, first: a.first });
    const moves = a.line.slice(0, ply).map(([r, c]) => r + ',' + c).join(';');
    if (moves) q.set('moves', moves);
    return '/analysis?' + q.toString();
  }

  async function openAnalysis() {
    const p = new URLSearchParams(location.search);
    const line = (p.get('moves') || '').split(';').filter(Boolean).map((m) => m.split(',').map(Number));
    const st = freshState(null);
    st.analysis = {
      size: p.get('size') || '3x3', k: p.get('k') || '', first: p.get('first') || 'x',
      line, ply: line.length, cache: new Map(),
    };
    if (!st.analysis.k) {
      const [r, c] = st.analysis.size.split('x').map(Number);
      st.analysis.k = String(Math.min(r || 3, c || r || 3, 5));
    }
    st.closed = true;
    S = st;
    $('start-view').hidden = true;
    $('missing-view').hidden = true;
    $('game-view').hidden = false;
    $('board').replaceChildren();
    $('role').textContent = 'Analysis board';
    $('role').className = '';
    $('connection').hidden = true;
    $('presence').hidden = true;
    $('meta').hidden = true;
    $('invite').hidden = true;
    $('watch-line').hidden = true;
    $('hints').closest('label').hidden = true;
    $('legend').hidden = false;
    $('status').textContent = 'Loading…';
    await analyse(st);
  }

  async function analyse(st) {
    const a = st.analysis;
    const url = analysisUrl(a, a.ply);
    history.replaceState(null, '', url);
    const res = await api('GET', '/api' + url);
    if (S !== st) return;
    if (!res.ok) {
      message(res.data.error);
      if (!st.game) { S = null; showStart(); }
      return;
    }
    const d = res.data;
    const values = d.available ? new Map(d.values.map((v) => [v.row + ',' + v.col, v])) : null;
    a.cache.set(a.ply, values);
    if (!d.available && d.reason) message(d.reason, 'info', 8000);
    st.game = {
      ...d, id: null, watch: null, version: d.moves.length, round: 1, first: a.first,
      opponent: 'analysis', seats: { x: true, o: true }, score: { x: 0, o: 0, draws: 0 },
      last: d.moves.length ? d.moves[d.moves.length - 1] : null,
    };
    st.shown = st.game.version;
    st.values = values;
    draw();
  }

  function analysisPlay(r, c) {
    const a = S.analysis;
    a.line = a.line.slice(0, a.ply).concat([[r, c]]);
    a.ply = a.line.length;
    analyse(S);
  }

  function analysisStep(ply) {
    const a = S.analysis;
    a.ply = Math.max(0, Math.min(a.line.length, ply));
    analyse(S);
  }

  // ---- start page ----
  let infoLoaded = false;
  async function showStart() {
    document.body.classList.remove('wide-board');
    $('game-view').hidden = true;
    $('legend').hidden = true;
    $('missing-view').hidden = true;
    $('start-view').hidden = false;
    document.title = 'oxo — new game';
    showLobby();
    if (infoLoaded) return;
    infoLoaded = true;
    const r = await api('GET', '/api/info');
    const info = r.ok && Array.isArray(r.data.strategies) ? r.data : DEFAULT_INFO;
    const preset = $('preset');
    const opponent = $('opponent');
    // Choices made while /api/info was on its way must survive the new options.
    const chosen = { preset: preset.value, opponent: opponent.value };
    const presets = Array.isArray(info.presets) && info.presets.length ? info.presets : DEFAULT_INFO.presets;
    preset.replaceChildren(...presets.map((p) => {
      const [rows, cols] = String(p.size).split('x');
      return new Option(`${rows}×${cols}, ${p.k} in a row`, `${rows}x${cols}k${p.k}`);
    }), new Option('Custom…', 'custom'));
    const described = {};
    for (const o of Array.isArray(info.opponents) ? info.opponents : []) {
      if (o && o.name && o.description) described[o.name] = 'computer: ' + o.description;
      if (o && o.name) limits[o.name] = { maxSide: o.max_side, boards: o.boards };
    }
    syncQuick();
    opponent.replaceChildren(new Option(DESCRIPTIONS.human, 'human'),
      ...info.strategies.map((s) => new Option(described[s] || DESCRIPTIONS[s] || 'computer: ' + s, s)));
    const max = Number(info.max_side) || 32;
    for (const id of ['rows', 'cols', 'k']) $(id).max = max;
    const keep = (select, value) => {
      if ([...select.options].some((o) => o.value === value)) select.value = value;
    };
    keep(opponent, chosen.opponent);
    keep(preset, chosen.preset);
    if (preset.value === 'custom') syncPreset(); else applyPreset();
  }

  // What each computer player can play, from /api/info: a longest side or a list of boards.
  const limits = {};

  // Offer only the opponents that can play the board in the form, so Start is never refused
  // for that; a choice that no longer fits falls back to the first one that does.
  function syncOpponents() {
    const rows = parseInt($('rows').value, 10);
    const cols = parseInt($('cols').value, 10);
    const k = parseInt($('k').value, 10);
    const fits = (name) => {
      const l = limits[name];
      if (!l) return true;
      if (l.maxSide && Math.max(rows, cols) > l.maxSide) return false;
      if (Array.isArray(l.boards)) return l.boards.some((b) => b.size === `${rows}x${cols}` && b.k === k);
      return true;
    };
    const opponent = $('opponent');
    for (const option of opponent.options) {
      const ok = fits(option.value);
      option.disabled = !ok;
      const base = option.dataset.label || (option.dataset.label = option.text);
      option.text = ok ? base : base + ' (not on this board)';
    }
    if (opponent.selectedOptions[0] && opponent.selectedOptions[0].disabled) {
      const first = [...opponent.options].find((o) => !o.disabled);
      if (first) opponent.value = first.value;
    }
  }

  function applyPreset() {
    const m = $('preset').value.match(/^(\d+)x(\d+)k(\d+)$/);
    if (!m) return;
    $('rows').value = m[1];
    $('cols').value = m[2];
    $('k').value = m[3];
    syncOpponents();
  }

  function syncPreset() {
    const v = `${$('rows').value}x${$('cols').value}k${$('k').value}`;
    const has = [...$('preset').options].some((o) => o.value === v);
    $('preset').value = has ? v : 'custom';
    syncOpponents();
  }

  async function startGame(e) {
    e.preventDefault();
    const rows = parseInt($('rows').value, 10);
    const cols = parseInt($('cols').value, 10);
    const k = parseInt($('k').value, 10);
    if (!(rows >= 1 && cols >= 1 && k >= 1)) {
      message('Rows, columns and k must be whole numbers of at least 1.');
      return;
    }
    await create($('start'), {
      size: `${rows}x${cols}`, k, opponent: $('opponent').value, first: $('first').value, listed: $('listed').checked,
    });
  }

  // One click, one game: the start page's quick buttons.
  async function quickStart(e) {
    const b = e.target.closest('button[data-opponent]');
    if (!b) return;
    await create(b, {
      size: b.dataset.size, k: +b.dataset.k, opponent: b.dataset.opponent, first: 'x', listed: b.dataset.listed === 'true',
    });
  }

  // Hide the quick games this server does not offer (a learned model it
  // lacks, say).
  function syncQuick() {
    for (const b of $('quick').querySelectorAll('button[data-opponent]')) {
      const l = limits[b.dataset.opponent];
      const [rows, cols] = b.dataset.size.split('x').map(Number);
      let ok = true;
      if (l && l.maxSide && Math.max(rows, cols) > l.maxSide) ok = false;
      if (l && Array.isArray(l.boards)) ok = l.boards.some((x) => x.size === b.dataset.size && x.k === +b.dataset.k);
      b.hidden = !ok;
    }
  }

  // The lobby: open games to join, games being played to watch, and the
  // games this browser has a seat in; refreshed while the start page shows.
  let lobbyTimer = null;
  async function showLobby() {
    clearTimeout(lobbyTimer);
    if ($('start-view').hidden) return;
    const ids = seats.recent().slice(0, 8);
    const q = ids.length ? '?recent=' + ids.map(enc).join(',') : '';
    const r = await api('GET', '/api/lobby' + q);
    if ($('start-view').hidden) return;
    lobbyTimer = setTimeout(showLobby, 5000);
    if (!r.ok) return;
    const item = (href, title, detail, data) => {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = href;
      Object.assign(a.dataset, data);
      a.append(title);
      const small = document.createElement('small');
      small.textContent = detail;
      a.append(small);
      li.append(a);
      return li;
    };
    const board = (g) => `${g.size.replace('x', '×')}, ${g.k} in a row`;
    const ago = (s) => (s < 60 ? 'just now' : s < 3600 ? `${Math.round(s / 60)} min ago` : 'a while ago');
    const open = (r.data.open || []).map((g) =>
      item('#', `Join: ${board(g)}`, `${up(g.first)} starts · opened ${ago(g.waiting)}`, { entry: g.entry }));
    const live = (r.data.live || []).map((g) => {
      const who = g.opponent === 'human' ? 'two players' : `vs ${g.opponent}`;
      const s = g.score || {};
      return item('/g/' + enc(g.watch), `${board(g)} · ${who}`,
        `round ${g.round} · X ${s.x || 0}, O ${s.o || 0}, draws ${s.draws || 0}`, { game: g.watch });
    });
    const mine = (r.data.recent || []).map((g) => {
      const held = seats.get(g.id);
      const who = g.opponent === 'human' ? 'a friend' : g.opponent;
      const state = g.status === 'won' ? `${up(g.winner)} won` : g.status === 'draw' ? 'draw'
        : g.status === 'waiting' ? 'waiting for a friend'
        : held && g.next === held.seat ? 'your turn' : 'playing';
      return item('/g/' + enc(g.id), `${g.size.replace('x', '×')} vs ${who}`, `round ${g.round} · ${state}`, { game: g.id });
    });
    $('open-list').replaceChildren(...open);
    $('live-list').replaceChildren(...live);
    $('recent-list').replaceChildren(...mine);
    $('lobby-open').hidden = open.length === 0;
    $('lobby-live').hidden = live.length === 0;
    $('recent').hidden = mine.length === 0;
  }

  // One click on an open game: seat O, then the game.
  async function joinOpen(a) {
    const r = await api('POST', `/api/lobby/${enc(a.dataset.entry)}/join`);
    if (!r.ok || !r.data.game) {
      message(r.data.error === undefined ? 'could not join' : 'That game is no longer open: ' + r.data.error);
      showLobby();
      return;
    }
    const g = r.data.game;
    seats.set(g.id, r.data.seat, r.data.token);
    history.pushState(null, '', '/g/' + enc(g.id));
    route();
    render(g);
  }

  async function create(button, body) {
    button.disabled = true;
    const r = await api('POST', '/api/games', body);
    button.disabled = false;
    if (!r.ok || !r.data.game) {
      message(r.data.error || 'could not start the game');
      return;
    }
    const g = r.data.game;
    seats.set(g.id, r.data.seat || 'x', r.data.token, r.data.invite);
    history.pushState(null, '', '/g/' + enc(g.id));
    route();
    render(g);
  }

  // ---- game page ----
  async function openGame(id) {
    const st = freshState(id);
    S = st;
    $('start-view').hidden = true;
    $('missing-view').hidden = true;
    $('game-view').hidden = false;
    $('legend').hidden = true;
    $('watch-line').hidden = false;
    $('connection').hidden = false;
    $('meta').hidden = false;
    $('board').replaceChildren();
    $('board').dataset.version = '';
    $('status').textContent = 'Loading…';
    $('hints').checked = false;
    $('zoom').checked = false;
    $('board').classList.remove('zoomed');
    $('zoom-toggle').hidden = true;
    $('invite').hidden = true;
    $('rematch').hidden = true;
    $('presence').hidden = true;
    $('details').textContent = '';
    for (const k of ['score-x', 'score-o', 'score-draws']) $(k).textContent = '0';
    $('round').textContent = '1';
    const base = location.origin + '/g/' + enc(id);
    // The watch link carries the room's read-only id, which arrives with the game.
    $('spectate-link').removeAttribute('href');
    $('spectate-link').textContent = '';
    setConnection(false);

    let held = seats.get(id);
    // The invite link is /g/ID#join=INVITE: the fragment never reaches a
    // server or its logs. (Games from before invites took /g/ID?join.)
    $('invite-link').value = held && held.invite ? base + '#join=' + held.invite : base + '?join';
    const invite = new URLSearchParams(location.hash.slice(1)).get('join');
    if (invite !== null || new URLSearchParams(location.search).has('join')) {
      if (!held) {
        const r = await api('POST', `/api/games/${enc(id)}/seats/o`, invite ? { invite } : {});
        if (S !== st) return;
        if (r.ok && r.data.token) {
          held = { seat: r.data.seat || 'o', token: r.data.token };
          seats.set(id, held.seat, held.token);
        } else if (r.status === 409) {
          message('seat taken — watching', 'info', 8000);
        } else if (r.status === 404) {
          gone(st);
          return;
        } else {
          message(r.data.error);
        }
      }
      history.replaceState(null, '', '/g/' + enc(id)); // a refresh must not join again
    }
    if (held) { st.seat = held.seat; st.token = held.token; }
    updateRole();

    const r = await api('GET', `/api/games/${enc(id)}`);
    if (S !== st) return;
    if (r.status === 404) { gone(st); return; }
    if (r.ok) render(r.data);
    connect();
  }

  // A link that leads to no game: a page that says so and leads home,
  // nothing else.
  function gone(st) {
    st.closed = true;
    $('game-view').hidden = true;
    $('missing-view').hidden = false;
    document.title = 'oxo — no such game';
  }

  function updateRole() {
    $('role').textContent = S.seat ? `You are ${up(S.seat)}` : 'Watching';
    $('role').className = S.seat ? 'mark-' + S.seat : '';
  }

  // ---- the live WebSocket, reconnecting with backoff ----
  function setConnection(live) {
    S.live = live;
    $('connection').textContent = live ? 'live' : 'reconnecting…';
    $('connection').className = 'conn ' + (live ? 'on' : 'off');
  }

  function connect() {
    const st = S;
    if (!st || st.closed) return;
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    let ws;
    try {
      // A seat's token makes this socket count as that player being here;
      // either way the socket also says who is here.
      const who = st.token ? 'token=' + enc(st.token) : 'presence=true';
      ws = new WebSocket(`${scheme}//${location.host}/api/games/${enc(st.id)}/live?${who}`);
    } catch (e) {
      retry(st);
      return;
    }
    st.ws = ws;
    ws.onopen = () => {
      if (S !== st) return;
      st.backoff = 500;
      setConnection(true);
    };
    ws.onmessage = (ev) => {
      if (S !== st) return;
      let g;
      try { g = JSON.parse(ev.data); } catch (e) { return; }
      if (g && g.presence) { showPresence(g.presence); return; }
      if (g && typeof g.error === 'string') {
        // A move sent on this socket was refused (one already sent again
        // as a POST has its answer there).
        if (g.game) render(g.game);
        if (!st.sent) return;
        answered(st);
        refusedMove(g.error, g.status);
        draw();
        return;
      }
      const game = g && g.game ? g.game : g;
      if (st.sent && game && game.version > st.sent.move.version) {
        answered(st);
        clearMessage();
      }
      render(game);
    };
    ws.onclose = (ev) => {
      if (S !== st || st.ws !== ws) return;
      st.ws = null;
      // 1008: this server takes no moves on its sockets (an older node
      // behind the same balancer): moves go as POSTs from now on.
      if (ev.code === 1008) st.postMoves = true;
      // A move sent on it may or may not have been played: it goes again
      // as a POST, which plays it or says, stale, what the game is now.
      if (st.sent) unanswered(st);
      setConnection(false);
      retry(st);
    };
  }

  // "Opponent connected / left" for players; who is here, for spectators.
  // The computer is always there, so nothing is said of it.
  function showPresence(p) {
    const st = S;
    const g = st && st.game;
    if (!g) return;
    st.presence = p;
    const el = $('presence');
    if (g.opponent !== 'human' && g.opponent !== undefined) { el.hidden = true; return; }
    let text;
    let away = false;
    if (st.seat) {
      const other = st.seat === 'x' ? 'o' : 'x';
      if (!g.seats || !g.seats[other]) { el.hidden = true; return; }
      away = !p[other];
      text = away ? 'Opponent left' : 'Opponent connected';
    } else {
      text = ['x', 'o'].map((s) => `${up(s)} ${p[s] ? 'here' : 'away'}`).join(' · ');
    }
    el.textContent = text;
    el.className = 'presence' + (away ? ' away' : '');
    el.hidden = false;
  }

  function retry(st) {
    if (st.closed || S !== st) return;
    clearTimeout(st.wsTimer);
    st.wsTimer = setTimeout(async () => {
      if (S !== st) return;
      // Without the socket, at least catch up with a plain GET, then try the socket again.
      const r = await api('GET', `/api/games/${enc(st.id)}`);
      if (S !== st) return;
      if (r.status === 404) { gone(st); return; }
      if (r.ok) render(r.data);
      connect();
    }, st.backoff);
    st.backoff = Math.min(st.backoff * 2, 5000);
  }

  function stopLive() {
    S.closed = true;
    clearTimeout(S.wsTimer);
    if (S.ws) { const ws = S.ws; S.ws = null; ws.close(); }
  }

  // ---- rendering a GAME ----
  function render(g) {
    if (!S || !g || typeof g !== 'object' || typeof g.board !== 'string') return;
    if (g.id && g.id !== S.id) return;
    if (typeof g.version === 'number' && g.version < S.shown) return;
    const changed = g.version !== S.shown;
    if (S.game && g.round !== S.game.round) { S.view = null; S.record = null; }
    S.game = g;
    S.shown = g.version;
    if (S.presence) showPresence(S.presence);
    // Fair play: hints are offered only against the computer (the server
    // withholds them while two people play).
    const offerHints = g.opponent !== 'human';
    $('hints').closest('label').hidden = !offerHints;
    if (!offerHints && $('hints').checked) { $('hints').checked = false; S.hints = null; }
    if (changed) {
      if (S.hints && S.hints.version !== g.version) S.hints = null;
      refreshHints();
    }
    draw();
  }

  function buildBoard(g) {
    const board = $('board');
    const key = `${g.rows}x${g.cols}`;
    if (S.built === key) return;
    S.built = key;
    S.cells = [];
    const frag = document.createDocumentFragment();
    // Coordinates on the edges, numbered from 1 as the status line and the
    // move list number rows and columns.
    const coord = (text, cls) => {
      const span = document.createElement('span');
      span.className = 'coord ' + cls;
      span.setAttribute('aria-hidden', 'true');
      span.textContent = text;
      return span;
    };
    frag.append(coord('', 'corner'));
    for (let c = 0; c < g.cols; c++) frag.append(coord(c + 1, 'col'));
    for (let r = 0; r < g.rows; r++) {
      frag.append(coord(r + 1, 'row'));
      const row = [];
      for (let c = 0; c < g.cols; c++) {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'cell';
        b.dataset.row = r;
        b.dataset.col = c;
        b.tabIndex = -1;
        row.push(b);
        frag.append(b);
      }
      S.cells.push(row);
    }
    board.replaceChildren(frag);
    board.style.setProperty('--rows', g.rows);
    board.style.setProperty('--cols', g.cols);
    board.classList.toggle('big', g.rows * g.cols > 64);
    // Big boards get the whole width of a wide screen.
    document.body.classList.toggle('wide-board', g.rows * g.cols > 64);
    S.focus = [Math.floor(g.rows / 2), Math.floor(g.cols / 2)];
    fitZoom();
  }

  // Cells smaller than a fingertip get the "Larger cells" option.
  const FINGER_PX = 30;
  function fitZoom() {
    const g = S && S.game;
    if (!g) return;
    const board = $('board');
    const zoomed = board.classList.contains('zoomed');
    board.classList.remove('zoomed');
    const first = S.cells[0] && S.cells[0][0];
    const fitted = first ? first.getBoundingClientRect().width : 0;
    board.classList.toggle('zoomed', zoomed);
    if (!fitted) return; // not on screen yet
    const small = fitted < FINGER_PX;
    $('zoom-toggle').hidden = !small;
    if (!small && zoomed) { $('zoom').checked = false; board.classList.remove('zoomed'); }
  }

  function setZoom(on) {
    $('board').classList.toggle('zoomed', on);
    const [r, c] = S.game && S.game.last ? S.game.last : S.focus;
    const cell = S.cells[r] && S.cells[r][c];
    if (cell) cell.scrollIntoView({ block: 'nearest', inline: 'center' });
  }

  function hintOf(r, c) {
    const map = S.analysis ? S.values : S.hints && S.hints.version === S.shown ? S.hints.map : null;
    const h = map ? map.get(r + ',' + c) : null;
    if (!h) return null;
    if (h.value === 'win') return { cls: 'win', label: 'W' + h.plies, words: `win in ${h.plies}` };
    if (h.value === 'loss') return { cls: 'loss', label: 'L' + h.plies, words: `loss in ${h.plies}` };
    return { cls: 'draw', label: 'D', words: 'draw' };
  }

  function draw() {
    const g = shownGame();
    buildBoard(g);
    const board = $('board');
    const hadFocus = board.contains(document.activeElement);
    const rows = g.board.split('/');
    const line = new Set((g.line || []).map(([r, c]) => r + ',' + c));
    const last = g.last ? g.last[0] + ',' + g.last[1] : '';
    const myTurn = !S.view && g.status === 'playing' && !S.busy &&
      (S.analysis ? true : !!S.seat && g.next === S.seat);
    board.dataset.version = g.version;
    board.classList.toggle('playable', myTurn);
    board.classList.toggle('review', !!S.view);
    board.classList.toggle('analysis', !!S.analysis);

    for (let r = 0; r < g.rows; r++) {
      for (let c = 0; c < g.cols; c++) {
        const b = S.cells[r][c];
        const ch = up((rows[r] || '')[c] || '.');
        const mark = ch === 'X' || ch === 'O' ? ch : '';
        const key = r + ',' + c;
        const hint = mark || S.view ? null : hintOf(r, c);
        let label = `row ${r + 1}, column ${c + 1}, ${mark || 'empty'}`;
        if (line.has(key)) label += ', winning line';
        if (key === last) label += ', last move';
        if (hint) label += `, hint: ${hint.words}`;
        b.dataset.mark = mark;
        b.setAttribute('aria-label', label);
        b.className = 'cell' + (mark ? ' ' + mark.toLowerCase() : '') + (line.has(key) ? ' win' : '') +
          (key === last ? ' last' : '') + (hint && S.analysis ? ' value-' + hint.cls : '');
        if (hint) {
          const span = document.createElement('span');
          span.className = 'hint ' + hint.cls;
          span.textContent = hint.label;
          b.replaceChildren(span);
        } else {
          b.textContent = mark;
        }
        // Not `disabled`: every cell stays focusable, so a keyboard or
        // screen-reader user can walk the whole board and hear it.
        const off = !myTurn || !!mark;
        b.setAttribute('aria-disabled', off ? 'true' : 'false');
      }
    }
    // roving tabindex: one focusable cell, preferably the last one focused
    const target = nearestEnabled(S.focus[0], S.focus[1]) || S.cells[S.focus[0]][S.focus[1]];
    for (const row of S.cells) for (const b of row) b.tabIndex = b === target ? 0 : -1;
    if (myTurn && !isOff(target) && (hadFocus || (S.wantFocus && document.activeElement === document.body))) {
      target.focus();
    }
    drawStatus(g);
    drawRecord();
  }

  // ---- the move list: any round, any move, replayed on the board ----
  function roundMoves(n) {
    const g = S.game;
    if (n === g.round) return { moves: g.moves || [], first: g.first || 'x', live: true };
    const r = S.record && S.record.rounds[n - 1];
    return r ? { moves: r.moves, first: r.first, result: r.result, line: r.line, live: false } : null;
  }

  // `moves` played in turn from `first`, as the board's notation (X.O/…).
  function boardAfter(rows, cols, first, moves) {
    const cells = Array.from({ length: rows }, () => Array(cols).fill('.'));
    let mark = first;
    for (const [row, col] of moves) {
      cells[row][col] = up(mark);
      mark = mark === 'x' ? 'o' : 'x';
    }
    return cells.map((row) => row.join('')).join('/');
  }

  // `moves` as the move list numbers them: "3. X 2,1" (rows and columns
  // from 1, as the status line counts them).
  function moveNames(first, moves) {
    let mark = first;
    return moves.map(([row, col], i) => {
      const name = `${i + 1}. ${up(mark)} ${row + 1},${col + 1}`;
      mark = mark === 'x' ? 'o' : 'x';
      return name;
    });
  }

  // The move list's entries, the one at `ply` marked current; `decorate`
  // may add to each button (its index, from 0).
  function fillMoveList(first, moves, ply, decorate) {
    $('move-list').replaceChildren(...moveNames(first, moves).map((name, i) => {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.ply = i + 1;
      b.textContent = name;
      if (i + 1 === ply) b.setAttribute('aria-current', 'step');
      if (decorate) decorate(b, i);
      li.append(b);
      return li;
    }));
  }

  // The GAME the board shows: the game itself, or a position of the move
  // list rebuilt from its moves.
  function shownGame() {
    const g = S.game;
    if (!S.view) return g;
    const r = roundMoves(S.view.round);
    if (!r) { S.view = null; return g; }
    const ply = Math.min(S.view.ply, r.moves.length);
    const end = ply === r.moves.length;
    const line = end ? (r.live ? g.line : r.line) : null;
    return {
      ...g, board: boardAfter(g.rows, g.cols, r.first, r.moves.slice(0, ply)), status: 'review',
      last: ply ? r.moves[ply - 1] : null, line, review: { round: S.view.round, ply, of: r.moves.length },
    };
  }

  function show(view) {
    const g = S.game;
    // The end of the round being played is the game itself.
    if (view && view.round === g.round && view.ply >= (g.moves || []).length) view = null;
    S.view = view;
    draw();
  }

  function step(delta) {
    if (S.analysis) { analysisStep(S.analysis.ply + delta); return; }
    const g = S.game;
    const round = S.view ? S.view.round : g.round;
    const r = roundMoves(round);
    if (!r) return;
    const ply = S.view ? S.view.ply : r.moves.length;
    show({ round, ply: Math.max(0, Math.min(r.moves.length, ply + delta)) });
  }

  async function loadRecord() {
    const st = S;
    const res = await api('GET', `/api/games/${enc(st.id)}/record`);
    if (S !== st) return false;
    if (!res.ok) { message(res.data.error); return false; }
    st.record = res.data;
    return true;
  }

  async function pickRound() {
    const n = +$('round-pick').value;
    const g = S.game;
    if (n !== g.round && !(S.record && S.record.rounds[n - 1])) {
      if (!(await loadRecord())) return;
    }
    const r = roundMoves(n);
    show(n === g.round ? null : { round: n, ply: r ? r.moves.length : 0 });
  }

  function resultText(r, g) {
    const result = r.live ? (g.status === 'won' ? g.winner : g.status === 'draw' ? 'draw' : null) : r.result;
    if (result === 'draw') return 'a draw';
    return result ? `${up(result)} wins` : 'being played';
  }

  function exportText(round, r, g) {
    const lines = [
      `oxo ${g.rows}x${g.cols} k=${g.k}, round ${round}, ${up(r.first)} first: ${resultText(r, g)}`,
      `position: ${boardAfter(g.rows, g.cols, r.first, r.moves)}`,
      `moves (row,column from 1): ${moveNames(r.first, r.moves).join('  ')}`,
    ];
    if (g.rows === 15 && g.cols === 15) {
      // Gomocup's PSQ record: a header, then "x,y,time" a move (x the
      // column, y the row, from 1), then -1.
      lines.push('', 'Piskvorky 15x15, 11:11, 0');
      for (const [row, col] of r.moves) lines.push(`${col + 1},${row + 1},0`);
      lines.push('-1');
    }
    return lines.join('\n');
  }

  function drawRecord() {
    const g = S.game;
    const pick = $('round-pick');
    pick.hidden = !!S.analysis;
    if (S.analysis) { drawAnalysisRecord(g); return; }
    if (pick.options.length !== g.round) {
      pick.replaceChildren(...Array.from({ length: g.round }, (_, i) => {
        const o = document.createElement('option');
        o.value = i + 1;
        o.textContent = i + 1 === g.round ? `Round ${i + 1} (now)` : `Round ${i + 1}`;
        return o;
      }));
    }
    const round = S.view ? S.view.round : g.round;
    pick.value = round;
    const r = roundMoves(round) || { moves: [], first: g.first || 'x', live: true };
    const ply = S.view ? S.view.ply : r.moves.length;
    fillMoveList(r.first, r.moves, ply);
    $('step-first').disabled = $('step-back').disabled = ply === 0;
    $('step-forward').disabled = ply >= r.moves.length;
    $('step-last').disabled = !S.view;
    $('record-text').value = exportText(round, r, g);
  }

  // The analysis board's line: every move, coloured by its value for the
  // side that made it where that position was analysed.
  function drawAnalysisRecord(g) {
    const a = S.analysis;
    fillMoveList(a.first, a.line, a.ply, (b, i) => {
      const [row, col] = a.line[i];
      const before = a.cache.get(i);
      const v = before && before.get(row + ',' + col);
      if (v) { b.classList.add('v-' + v.value); b.title = `${v.value} in ${v.plies}`; }
    });
    $('step-first').disabled = $('step-back').disabled = a.ply === 0;
    $('step-forward').disabled = $('step-last').disabled = a.ply >= a.line.length;
    $('record-text').value = exportText(1, { moves: a.line.slice(0, a.ply), first: a.first, live: true }, g);
  }

  function isOff(b) { return b.getAttribute('aria-disabled') === 'true'; }

  function nearestEnabled(r0, c0) {
    let best = null;
    let bestD = Infinity;
    S.cells.forEach((row, r) => row.forEach((b, c) => {
      const d = Math.abs(r - r0) + Math.abs(c - c0);
      if (!isOff(b) && d < bestD) { best = b; bestD = d; }
    }));
    return best;
  }

  // "O played row 2, column 3 — " so that a screen reader hears the reply.
  function lastMove(g) {
    if (!Array.isArray(g.last)) return '';
    const mark = g.board.split('/')[g.last[0]][g.last[1]];
    return `${up(mark)} played row ${g.last[0] + 1}, column ${g.last[1] + 1} — `;
  }

  function statusText(g) {
    if (S.analysis) {
      if (g.status === 'won') return `${up(g.winner)} wins`;
      if (g.status === 'draw') return 'Draw';
      return `${up(g.next)} to move — play either side`;
    }
    if (g.review) {
      const { round, ply, of } = g.review;
      return `Round ${round}, move ${ply} of ${of} — » goes back to the game`;
    }
    const me = S.seat;
    const computer = g.opponent && g.opponent !== 'human';
    switch (g.status) {
      case 'waiting':
        return me === 'x' ? 'Waiting for a friend to join — send them the invite link' : 'Waiting for O to join';
      case 'playing':
        if (me && g.next === me) return lastMove(g) + `Your turn (${up(me)})`;
        if (computer && g.next === 'o') return 'Computer is thinking…';
        return me ? `Waiting for ${up(g.next)}…` : `${up(g.next)} to move`;
      case 'won':
        return `${up(g.winner)} wins` + (me ? (me === g.winner ? ' — you win!' : ' — you lose') : '') + offerText(g, me);
      case 'draw':
        return 'Draw' + offerText(g, me);
      default:
        return String(g.status || '');
    }
  }

  // A rematch between two people is an offer the other accepts.
  function offerText(g, me) {
    if (!g.rematch) return '';
    if (me === g.rematch) return ` · rematch offered, waiting for ${up(g.rematch === 'x' ? 'o' : 'x')}`;
    return ` · ${up(g.rematch)} offers a rematch`;
  }

  function drawStatus(g) {
    const text = statusText(g);
    if ($('status').textContent !== text) $('status').textContent = text;
    $('status').className = (g.status === 'won' ? 'mark-' + g.winner : '') +
      (g.status === 'won' || g.status === 'draw' ? ' result' : '');
    document.title = text + ' — oxo';
    const score = g.score || {};
    $('score-x').textContent = score.x || 0;
    $('score-o').textContent = score.o || 0;
    $('score-draws').textContent = score.draws || 0;
    $('round').textContent = g.round || 1;
    const who = g.opponent === 'analysis' ? 'analysis' :
      g.opponent === 'human' ? 'two players' : `O is the computer (${g.opponent})`;
    $('details').textContent = `${g.rows}×${g.cols}, ${g.k} in a row · ${who} · ${up(g.first || 'x')} started`;
    const live = S.game;
    const over = live.status === 'won' || live.status === 'draw';
    $('rematch').hidden = !(over && S.seat);
    const offered = live.rematch;
    $('rematch').textContent = !offered ? 'Rematch' : offered === S.seat ? 'Rematch offered' : 'Accept rematch';
    $('rematch').disabled = offered === S.seat;
    // A finished round can be taken to the analysis board (never one still
    // being played: that would be help).
    const analysable = over && !S.analysis;
    $('analyse-link').hidden = !analysable;
    if (analysable) {
      $('analyse-link').href = analysisUrl(
        { size: `${live.rows}x${live.cols}`, k: live.k, first: live.first || 'x', line: live.moves || [] },
        (live.moves || []).length,
      );
    }
    if (g.watch) {
      const watchUrl = location.origin + '/g/' + enc(g.watch);
      if ($('spectate-link').textContent !== watchUrl) {
        $('spectate-link').href = watchUrl;
        $('spectate-link').textContent = watchUrl;
      }
    }
    const seatsTaken = g.seats || {};
    $('invite').hidden = !(S.seat === 'x' && g.opponent === 'human' && !seatsTaken.o);
  }

  // ---- actions ----
  async function play(r, c) {
    if (S && S.analysis) { analysisPlay(r, c); return; }
    const st = S;
    const g = st && st.game;
    if (!g || st.busy || !st.token) return;
    st.busy = true;
    st.focus = [r, c];
    st.wantFocus = true;
    draw();
    const move = { row: r, col: c, version: g.version };
    const ws = st.ws;
    if (ws && !st.postMoves && ws.readyState === WebSocket.OPEN) {
      // Moves go on the live socket (a seat's: it was opened with the
      // token, which a page holds before it connects) when it is open: the update carrying
      // the move is the answer, a refusal comes back as {"error", "status"}.
      // No answer soon (a connection that died without closing) and the
      // move goes again as a POST, and the socket starts afresh.
      st.sent = {
        move,
        timer: setTimeout(() => {
          if (S !== st || !st.sent) return;
          unanswered(st);
          ws.close();
        }, SOCKET_MOVE_WAIT),
      };
      ws.send(JSON.stringify(move));
      return;
    }
    await postMove(st, move);
  }

  // How long a move sent on the socket may go unanswered (they take
  // milliseconds) before it is sent again as a POST.
  const SOCKET_MOVE_WAIT = 5000;

  async function postMove(st, move) {
    st.busy = true;
    const res = await api('POST', `/api/games/${enc(st.id)}/moves`, move, st.token);
    if (S !== st) return;
    st.busy = false;
    if (res.ok && res.data.game) {
      clearMessage();
      render(res.data.game);
    } else if (res.status === 409 && res.data.game && res.data.game.version > move.version) {
      // The game moved on: most likely this very move, played from the
      // socket before it went quiet. What the game is now says all.
      clearMessage();
      render(res.data.game);
    } else {
      if (res.data.game) render(res.data.game);
      refusedMove(res.data.error, res.status);
    }
    draw();
  }

  // Why a move was refused; a stale one (409) briefly, as the board has
  // already caught up.
  function refusedMove(error, status) {
    message(error, 'error', status === 409 ? 3500 : 6000);
  }

  // The move sent on the live socket has its answer.
  function answered(st) {
    if (st.sent) clearTimeout(st.sent.timer);
    st.sent = null;
    st.busy = false;
  }

  // The move sent on the live socket got no answer: send it as a POST.
  function unanswered(st) {
    const move = st.sent.move;
    answered(st);
    postMove(st, move);
  }

  async function rematch() {
    const st = S;
    if (!st || !st.token) return;
    const round = st.game ? st.game.round : 0;
    const version = st.game ? st.game.version : undefined;
    $('rematch').disabled = true;
    const res = await api('POST', `/api/games/${enc(st.id)}/rematch`, { version }, st.token);
    $('rematch').disabled = false;
    if (S !== st) return;
    if (res.data.game) render(res.data.game);
    // Both players pressing Rematch at once: one press is the offer, the
    // other is refused with it (and can accept it): losing that race is fine.
    const moved = res.data.game && (res.data.game.round > round || res.data.game.rematch);
    if (!res.ok && !moved) message(res.data.error);
    draw();
  }

  async function refreshHints() {
    const st = S;
    const g = st && st.game;
    if (!g || !$('hints').checked || g.status !== 'playing') return;
    const res = await api('GET', `/api/games/${enc(st.id)}/hints`);
    if (S !== st || !st.game || !$('hints').checked) return;
    if (!res.ok) { message('hints: ' + res.data.error); return; }
    if (res.data.version !== st.game.version) return; // stale: a newer GAME is shown
    if (res.data.available === false) {
      if (!st.hintNoted) message('Hints unavailable: ' + (res.data.reason || 'not for this board'), 'info', 8000);
      st.hintNoted = true;
      return;
    }
    const map = new Map();
    for (const h of res.data.hints || []) map.set(h.row + ',' + h.col, h);
    st.hints = { version: res.data.version, map };
    draw();
  }

  async function copyInvite() {
    const input = $('invite-link');
    try {
      await navigator.clipboard.writeText(input.value);
      message('Invite link copied', 'ok', 2500);
    } catch (e) {
      input.focus();
      input.select();
      let ok = false;
      try { ok = document.execCommand('copy'); } catch (e2) { /* unsupported */ }
      message(ok ? 'Invite link copied' : 'Link selected — copy it with Ctrl+C or a long press', 'info', 5000);
    }
  }

  // ---- keyboard: arrows move focus one cell (every cell, to read the board), Enter/Space play ----
  const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  function onBoardKey(e) {
    const cell = e.target.closest('.cell');
    const d = ARROWS[e.key];
    if (!cell || !d || !S || !S.game) return;
    e.preventDefault();
    const r = +cell.dataset.row + d[0];
    const c = +cell.dataset.col + d[1];
    if (r < 0 || c < 0 || r >= S.game.rows || c >= S.game.cols) return;
    const b = S.cells[r][c];
    for (const row of S.cells) for (const x of row) x.tabIndex = -1;
    b.tabIndex = 0;
    b.focus();
    S.focus = [r, c];
  }

  // Back online, or back to the tab: the game at once, not after the backoff.
  function reconnectNow() {
    const st = S;
    if (!st || st.closed || st.analysis || st.ws) return;
    clearTimeout(st.wsTimer);
    st.backoff = 500;
    connect();
  }

  // ---- wiring ----
  function init() {
    window.addEventListener('online', reconnectNow);
    // Leaving the page closes its socket, so the other player sees this one
    // leave even when the browser keeps the page to come back to; coming
    // back opens it again.
    window.addEventListener('pagehide', () => {
      if (S && S.ws) { const ws = S.ws; S.ws = null; ws.close(); }
      if (S && S.sent) answered(S); // the GAME on coming back says what became of it
    });
    window.addEventListener('pageshow', (e) => { if (e.persisted) reconnectNow(); });
    document.addEventListener('visibilitychange', () => { if (!document.hidden) reconnectNow(); });
    $('new-game-form').addEventListener('submit', startGame);
    $('quick').addEventListener('click', quickStart);
    for (const list of ['recent-list', 'live-list', 'open-list']) {
      $(list).addEventListener('click', (e) => {
        const a = e.target.closest('a[data-game], a[data-entry]');
        if (!a || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        if (a.dataset.entry) { joinOpen(a); return; }
        history.pushState(null, '', a.getAttribute('href'));
        route();
      });
    }
    $('preset').addEventListener('change', applyPreset);
    for (const id of ['rows', 'cols', 'k']) $(id).addEventListener('input', syncPreset);
    const board = $('board');
    board.addEventListener('click', (e) => {
      const cell = e.target.closest('.cell');
      if (cell && !isOff(cell)) play(+cell.dataset.row, +cell.dataset.col);
    });
    board.addEventListener('keydown', onBoardKey);
    board.addEventListener('focusin', (e) => {
      const cell = e.target.closest('.cell');
      if (cell && S) S.focus = [+cell.dataset.row, +cell.dataset.col];
    });
    board.addEventListener('focusout', (e) => {
      if (S && e.relatedTarget && !board.contains(e.relatedTarget)) S.wantFocus = false;
    });
    $('rematch').addEventListener('click', rematch);
    $('step-first').addEventListener('click', () => step(-Infinity));
    $('step-back').addEventListener('click', () => step(-1));
    $('step-forward').addEventListener('click', () => step(1));
    $('step-last').addEventListener('click', () => {
      if (S && S.analysis) analysisStep(S.analysis.line.length); else show(null);
    });
    $('round-pick').addEventListener('change', pickRound);
    $('move-list').addEventListener('click', (e) => {
      const b = e.target.closest('button[data-ply]');
      if (!b || !S || !S.game) return;
      if (S.analysis) { analysisStep(+b.dataset.ply); return; }
      show({ round: S.view ? S.view.round : S.game.round, ply: +b.dataset.ply });
    });
    $('copy').addEventListener('click', copyInvite);
    $('invite-link').addEventListener('focus', (e) => e.target.select());
    $('hints').addEventListener('change', () => {
      if (!S || !S.game) return;
      if ($('hints').checked) refreshHints();
      else { S.hints = null; draw(); }
    });
    $('zoom').addEventListener('change', () => { if (S && S.game) setZoom($('zoom').checked); });
    window.addEventListener('resize', fitZoom);
    $('message').addEventListener('click', clearMessage);
    $('new-game-link').addEventListener('click', (e) => {
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      history.pushState(null, '', '/');
      route();
    });
    window.addEventListener('popstate', route);
    route();
  }

  init();
})();
