// The board: its cells built once per size, drawn from the GAME shown,
// with hints or values, the roving keyboard focus and the larger-cells zoom.
import { $, gameFocus, isPhone, rescueFocus, up } from './dom.js';
import { S } from './state.js';
import { play } from './play.js';
import { drawRecord, shownGame } from './record.js';
import { drawStatus } from './status.js';
import { drawEstimate, estimateMarks, note } from './estimate.js';

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

// Cells smaller than a fingertip get the "Larger cells" option, on at
// first on a phone (a touch screen, or a narrow window) and afterwards as
// the player last chose it.
// (A mouse points finer: on other screens the option comes below 30 px.)
const FINGER_PX = 32;
const MOUSE_PX = 30;
const ZOOM_KEY = 'oxo.zoom';

function zoomWanted() {
  let chosen = null;
  try { chosen = localStorage.getItem(ZOOM_KEY); } catch (e) { /* no storage */ }
  return chosen ? chosen === 'on' : isPhone();
}

export function fitZoom() {
  const g = S && S.game;
  if (!g) return;
  const board = $('board');
  const zoomed = board.classList.contains('zoomed');
  board.classList.remove('zoomed');
  const first = S.cells[0] && S.cells[0][0];
  const fitted = first ? first.getBoundingClientRect().width : 0;
  board.classList.toggle('zoomed', zoomed);
  if (!fitted) return; // not on screen yet
  const small = fitted < (isPhone() ? FINGER_PX : MOUSE_PX);
  $('zoom-toggle').hidden = !small;
  setZoom(small && zoomWanted());
}

// The player's choice, kept for the next big board.
function chooseZoom(on) {
  try { localStorage.setItem(ZOOM_KEY, on ? 'on' : 'off'); } catch (e) { /* no storage */ }
  setZoom(on);
}

export function setZoom(on) {
  $('zoom').checked = on;
  $('board').classList.toggle('zoomed', on);
  S.followed = '';
  if (S.game) follow(shownGame());
}

// A zoomed board keeps its last move (else the focused cell) in view, in
// its own box: the page never scrolls for it. Only a new last move moves
// it, so a player who panned away is left there until the next move.
function follow(g) {
  if (!$('board').classList.contains('zoomed')) return;
  const [r, c] = g.last ? g.last : S.focus;
  const key = r + ',' + c;
  const cell = S.cells[r] && S.cells[r][c];
  if (!cell || S.followed === key) return;
  S.followed = key;
  keepInView(cell, true);
}

// Scroll a zoomed board's box (never the page) so that `cell` is wholly in
// what it shows, clear of the pinned coordinates along its top and left:
// centred, or (for the keyboard's steps) moved no more than needed.
function keepInView(cell, centre) {
  const wrap = $('board-wrap');
  const box = wrap.getBoundingClientRect();
  const corner = $('board').querySelector('.coord.corner').getBoundingClientRect();
  const left = box.left + wrap.clientLeft + corner.width;
  const top = box.top + wrap.clientTop + corner.height;
  const right = box.left + wrap.clientLeft + wrap.clientWidth;
  const bottom = box.top + wrap.clientTop + wrap.clientHeight;
  const at = cell.getBoundingClientRect();
  const shift = (start, end, from, to) => {
    if (start >= from && end <= to) return 0;
    if (centre) return (start + end - from - to) / 2;
    return start < from ? start - from : end - to;
  };
  const dx = shift(at.left, at.right, left, right);
  const dy = shift(at.top, at.bottom, top, bottom);
  if (dx || dy) wrap.scrollBy(dx, dy);
}

// What the board is told of the position shown: exact values (a map "r,c"
// → value), the engine's estimate, why the values are not exact, and the
// offer of a longer look (see drawLonger); from the analysis board, or
// from hints in a game.
function advice() {
  if (S.analysis) return { values: S.values, estimate: S.estimate, reason: S.reason, longer: S.longer };
  const h = S.hints && !S.view && S.hints.version === S.shown ? S.hints : null;
  if (!h) return null;
  // What a look at this position found, and whether it found nothing more.
  const found = S.hintsSaid && S.hintsSaid.version === h.version ? S.hintsSaid : null;
  const longer = {
    offer: h.longerHelps && !(found && !found.helps),
    here: S.hintsLooking === h.version,
    busy: S.hintsLooking != null,
    said: found ? found.text : '',
  };
  return { values: h.map, estimate: h.estimate, reason: h.reason, longer };
}

// The "Look further" row, where the values shown left moves without one,
// and the status line under it (a live region, always rendered: what a
// look found is said there). `longer`: offered, a look running for this
// position, one running at all, what the last look here found. The button
// stays focusable while a look runs (aria-disabled, not disabled), and
// when the row goes, focus on it moves to the status line, which says why.
export function drawLonger(longer) {
  const l = longer || {};
  const note = l.here ? 'Looking further: this can take up to half a minute…'
    : l.busy ? 'Looking further at another position…'
    : l.said || '';
  if ($('longer-note').textContent !== note) $('longer-note').textContent = note;
  if (!l.offer && note && document.activeElement === $('look-longer')) $('longer-note').focus();
  $('longer-row').hidden = !l.offer;
  $('look-longer').setAttribute('aria-disabled', l.busy ? 'true' : 'false');
}

// What a longer look found, from the values before (`before` of them) and
// after (`after`) on `board` (its notation); whether looking again may
// find more is the answer's (`helps`), unless this look found nothing.
export function longerSaid(before, after, board, helps) {
  const empty = board.split('').filter((c) => c === '.').length;
  if (after >= empty) return { text: 'Looked further: every move has its exact value now.', helps: false };
  if (after <= before) {
    return { text: 'Looking further found no more values here; oxo solve values every move without a limit.', helps: false };
  }
  return { text: `Looked further: ${after} of the ${empty} moves have their exact value.`, helps };
}

function hintOf(map, r, c) {
  const h = map ? map.get(r + ',' + c) : null;
  if (!h) return null;
  // The distance is left out where the values come from the prover.
  const plies = h.plies === undefined ? '' : h.plies;
  const within = h.plies === undefined ? '' : ` in ${h.plies}`;
  if (h.value === 'win') return { cls: 'win', label: 'W' + plies, words: 'win' + within };
  if (h.value === 'loss') return { cls: 'loss', label: 'L' + plies, words: 'loss' + within };
  return { cls: 'draw', label: 'D', words: 'draw' };
}

export function draw() {
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
  const told = advice();
  const estimate = told && g.status === 'playing' ? told.estimate : null;
  const marks = estimateMarks(estimate, g.next);
  board.classList.toggle('valued', !!told);
  const exact = !!(told && told.values && told.values.size);
  $('legend').hidden = !exact;
  // Where the prover gives the values, wins and losses come without their
  // length: the legend says so instead of reading "W3".
  const lengthless = told && told.values &&
    [...told.values.values()].some((h) => h.value !== 'draw' && h.plies === undefined);
  $('legend-note').textContent = 'for the side to move, perfect play; ' +
    (lengthless ? 'W, L: length unknown' : 'W3: a win in 3 plies (moves by either side)');
  drawEstimate(estimate, g.next);
  note(!estimate ? '' : exact
    ? `W, D and L are exact, perfect play; ${told.reason}. The numbers on the board, the gauge and the line are the engine's estimate (alphabeta's search), not perfect play.`
    : `Not exact here: ${told.reason}. The numbers on the board, the gauge and the line are the engine's estimate (alphabeta's search), not perfect play.`);
  drawLonger(told && told.longer);

  for (let r = 0; r < g.rows; r++) {
    for (let c = 0; c < g.cols; c++) {
      const b = S.cells[r][c];
      const ch = up((rows[r] || '')[c] || '.');
      const mark = ch === 'X' || ch === 'O' ? ch : '';
      const key = r + ',' + c;
      const hint = mark || S.view ? null : hintOf(told && told.values, r, c) || marks.get(key);
      let label = `row ${r + 1}, column ${c + 1}, ${mark || 'empty'}`;
      if (line.has(key)) label += ', winning line';
      if (key === last) label += ', last move';
      if (hint) label += `, hint: ${hint.words}`;
      b.dataset.mark = mark;
      b.setAttribute('aria-label', label);
      b.className = 'cell' + (mark ? ' ' + mark.toLowerCase() : '') + (line.has(key) ? ' win' : '') +
        (key === last ? ' last' : '') + (!hint ? '' : hint.cls.startsWith('est') ? ' ' + hint.cls : ' value-' + hint.cls);
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
  follow(g);
  drawStatus(g);
  drawRecord();
  // Keyboard focus a redraw took away comes back (see rescueFocus): where
  // no control stands in for the one lost, to Rematch once a round is
  // over, else to the board.
  rescueFocus(...gameFocus());
}

export function isOff(b) { return b.getAttribute('aria-disabled') === 'true'; }

function nearestEnabled(r0, c0) {
  let best = null;
  let bestD = Infinity;
  S.cells.forEach((row, r) => row.forEach((b, c) => {
    const d = Math.abs(r - r0) + Math.abs(c - c0);
    if (!isOff(b) && d < bestD) { best = b; bestD = d; }
  }));
  return best;
}

// ---- keyboard: arrows move focus one cell (every cell, to read the board), Enter/Space play ----
// Home and End go to the row's ends (with Ctrl, the board's corners), Page
// Up and Page Down five rows: a big board's far side in a few presses.
const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
const PAGE = 5;
// (Keys with Alt or Meta, and Ctrl but for Home and End, are the browser's.)
function keyTarget(e, r0, c0, rows, cols) {
  if (e.altKey || e.metaKey || (e.ctrlKey && e.key !== 'Home' && e.key !== 'End')) return null;
  const d = ARROWS[e.key];
  if (d) return [r0 + d[0], c0 + d[1]];
  switch (e.key) {
    case 'Home': return e.ctrlKey ? [0, 0] : [r0, 0];
    case 'End': return e.ctrlKey ? [rows - 1, cols - 1] : [r0, cols - 1];
    case 'PageUp': return [Math.max(0, r0 - PAGE), c0];
    case 'PageDown': return [Math.min(rows - 1, r0 + PAGE), c0];
    default: return null;
  }
}
export function onBoardKey(e) {
  const cell = e.target.closest('.cell');
  if (!cell || !S || !S.game) return;
  const to = keyTarget(e, +cell.dataset.row, +cell.dataset.col, S.game.rows, S.game.cols);
  if (!to) return;
  e.preventDefault();
  const [r, c] = to;
  if (r < 0 || c < 0 || r >= S.game.rows || c >= S.game.cols) return;
  const b = S.cells[r][c];
  for (const row of S.cells) for (const x of row) x.tabIndex = -1;
  b.tabIndex = 0;
  // A zoomed board's box keeps the cell clear of the pinned coordinates,
  // which the browser's own scrolling on focus does not know about.
  const zoomed = $('board').classList.contains('zoomed');
  b.focus({ preventScroll: zoomed });
  if (zoomed) keepInView(b, false);
  S.focus = [r, c];
}

export function wire() {
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
  $('zoom').addEventListener('change', () => { if (S && S.game) chooseZoom($('zoom').checked); });
  window.addEventListener('resize', fitZoom);
}
