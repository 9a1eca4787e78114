// The start page: the quick games and the form that chooses everything.
import { $, enc, message, rescueFocus } from './dom.js';
import { seats } from './state.js';
import { api } from './net.js';
import { route } from './route.js';
import { showLobby } from './lobby.js';
import { render } from './game.js';
import { difficulty, levelText } from './words.js';
import { setNameRules, showNameBox, withName } from './name.js';
import { timeControl } from './clock.js';

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

let infoLoaded = false;
export async function showStart() {
  document.body.classList.remove('wide-board');
  $('game-view').hidden = true;
  $('legend').hidden = true;
  $('missing-view').hidden = true;
  $('start-view').hidden = false;
  document.title = 'oxo — new game';
  showNameBox();
  showLobby();
  if (infoLoaded) return;
  infoLoaded = true;
  const r = await api('GET', '/api/info');
  const info = r.ok && Array.isArray(r.data.strategies) ? r.data : DEFAULT_INFO;
  setNameRules(info.name);
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
    // A computer player in plain words for this board, its algorithm after.
    const known = option.value !== 'human' && difficulty(option.value, rows, cols, k).level;
    const words = known ? `computer: ${levelText(option.value, rows, cols, k)} (${option.value})` : base;
    option.text = ok ? words : words + ' (not on this board)';
  }
  // A computer that cannot play the board gives way to the first choice
  // that can, said in a note beside the choice (never silently); it comes
  // back when the board changes to one it plays.
  const chosen = opponent.selectedOptions[0];
  if (chosen && chosen.disabled) {
    const first = [...opponent.options].find((o) => !o.disabled);
    // The player's own choice is kept, not a stand-in's that gave way too.
    if (first) { switchedFrom = switchedFrom || chosen.value; opponent.value = first.value; }
  } else if (switchedFrom && fits(switchedFrom)) {
    opponent.value = switchedFrom;
    switchedFrom = null;
  }
  const note = $('opponent-note');
  note.hidden = !switchedFrom;
  if (switchedFrom) {
    const now = opponent.selectedOptions[0];
    note.textContent = `The computer ${switchedFrom} cannot play ${rows}×${cols} with ${k} in a row, ` +
      `so the opponent is now ${now ? now.dataset.label || now.text : 'another'}.`;
  }
}

// The computer the form gave up for the board chosen, if any.
let switchedFrom = null;

// A whole number of at least 1 typed in field `id`, else NaN ("2.5" is
// refused, not cut to 2).
function whole(id) {
  const v = $(id).value.trim();
  return /^\d+$/.test(v) && Number(v) >= 1 ? Number(v) : NaN;
}

export function applyPreset() {
  const m = $('preset').value.match(/^(\d+)x(\d+)k(\d+)$/);
  if (!m) return;
  $('rows').value = m[1];
  $('cols').value = m[2];
  $('k').value = m[3];
  syncOpponents();
}

export function syncPreset() {
  const v = `${$('rows').value}x${$('cols').value}k${$('k').value}`;
  const has = [...$('preset').options].some((o) => o.value === v);
  $('preset').value = has ? v : 'custom';
  syncOpponents();
}

export async function startGame(e) {
  e.preventDefault();
  const rows = whole('rows');
  const cols = whole('cols');
  const k = whole('k');
  if (!(rows >= 1 && cols >= 1 && k >= 1)) {
    message('Rows, columns and k must be whole numbers of at least 1.');
    return;
  }
  await create($('start'), {
    size: `${rows}x${cols}`, k, opponent: $('opponent').value, first: $('first').value, listed: $('listed').checked,
    ...timeControl(),
  });
}

// One click, one game: the start page's quick buttons.
export async function quickStart(e) {
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

// The quick games' buttons: the level, a few plain words, and the
// algorithm's name in small print.
function labelQuick() {
  for (const b of $('quick').querySelectorAll('.quick-computer button[data-opponent]')) {
    const [rows, cols] = b.dataset.size.split('x').map(Number);
    const { level, words } = difficulty(b.dataset.opponent, rows, cols, +b.dataset.k);
    if (!level) continue;
    const plain = document.createElement('span');
    plain.className = 'words';
    plain.textContent = words;
    const small = document.createElement('small');
    small.textContent = b.dataset.opponent;
    b.replaceChildren(level, plain, small);
    const board = b.closest('tr').querySelector('th').firstChild.textContent.trim();
    b.setAttribute('aria-label', `${board}, ${level.toLowerCase()}, ${words} (${b.dataset.opponent})`);
  }
}

export async function create(button, body) {
  button.disabled = true;
  const r = await api('POST', '/api/games', withName(body));
  button.disabled = false;
  if (!r.ok || !r.data.game) {
    rescueFocus();
    message(r.data.error || 'could not start the game');
    return;
  }
  const g = r.data.game;
  seats.set(g.id, r.data.seat || 'x', r.data.token, r.data.invite);
  if (g.listed && g.status === 'waiting') seats.seek(g.id);
  history.pushState(null, '', '/g/' + enc(g.id));
  route();
  render(g);
}

export function wire() {
  labelQuick();
  $('new-game-form').addEventListener('submit', startGame);
  $('quick').addEventListener('click', quickStart);
  $('preset').addEventListener('change', applyPreset);
  $('opponent').addEventListener('change', () => { switchedFrom = null; $('opponent-note').hidden = true; });
  for (const id of ['rows', 'cols', 'k']) $(id).addEventListener('input', syncPreset);
}
