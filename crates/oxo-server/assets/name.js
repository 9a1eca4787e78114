// Display names: the one this browser's player chose (kept in
// localStorage, asked for on the first visit, editable on the start page)
// and how the page calls each seat. Names are always set as text, never
// as HTML.
import { $, up } from './dom.js';

const KEY = 'oxo.name';
// The server's rule (see the API reference): trimmed, 1 to 20 characters,
// no control character or direction override.
const MAX = 20;
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

let remembered = '';

// The name this browser's player chose, or '' for none.
export function myName() {
  let name = remembered;
  try { name = localStorage.getItem(KEY) || name; } catch (e) { /* no storage */ }
  return checkName(name) === null ? name.trim() : '';
}

// Why `text` is not a name, or null when it is one.
export function checkName(text) {
  const name = String(text || '').trim();
  if (!name) return 'A name needs at least one character that is not a space.';
  if (FORBIDDEN.test(name)) return 'A name cannot hold control characters.';
  const chars = [...name].length;
  if (chars > MAX) return `A name is at most ${MAX} characters; this one has ${chars}.`;
  return null;
}

// `body` with this player's name added, when they chose one.
export function withName(body) {
  const name = myName();
  return name ? { ...body, name } : body;
}

// What the page calls `seat` of GAME `g` in its sentences: "Ada (X)" for
// a person who gave a name, else "X" (the computer's difficulty shows by
// the score instead).
export function who(g, seat) {
  const person = seat === 'x' || (g && g.opponent === 'human');
  const name = person && g && g.players && g.players[seat];
  return name ? `${name} (${up(seat)})` : up(seat);
}

// The names beside the score, by each mark.
export function showPlayers(g) {
  for (const seat of ['x', 'o']) {
    const name = (g && g.players && g.players[seat]) || '';
    const el = $('name-' + seat);
    if (el.textContent !== name) el.textContent = name;
    el.hidden = !name;
  }
}

// The start page's name field: filled with the name chosen, and a prompt
// to choose one on the first visit.
export function showNameBox() {
  const name = myName();
  if (document.activeElement !== $('name-input')) $('name-input').value = name;
  $('name-form').classList.toggle('prompt', !name);
  $('name-note').textContent = name
    ? 'Your opponents and spectators see this name.'
    : 'Choose the name your opponents and spectators will see.';
}

function saveName(e) {
  e.preventDefault();
  const text = $('name-input').value;
  const why = checkName(text);
  if (why) { $('name-note').textContent = why; return; }
  remembered = text.trim();
  try { localStorage.setItem(KEY, remembered); } catch (e2) { /* no storage: kept for this page */ }
  $('name-input').value = remembered;
  showNameBox();
  // Said beside the field, not in a toast that would cover the lobby.
  $('name-note').textContent = 'Saved. Your opponents and spectators see this name.';
}

export function wire() {
  $('name-form').addEventListener('submit', saveName);
}
