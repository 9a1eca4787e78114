// Display names: the one this browser's player chose (kept in
// localStorage, asked for on the first visit, editable on the start page)
// and how the page calls each seat. Names are always set as text, never
// as HTML.
import { $, up } from './dom.js';

const KEY = 'oxo.name';
// The server's rule, as /api/info serves it (`setNameRules`); until then
// the length and control characters alone, which the server checks too.
let rules = { max_chars: 20, invisible: [], blank: [], reserved_prefix: 'computer' };

let remembered = '';

// Take the name rule /api/info serves (its "name" object).
export function setNameRules(served) {
  if (served && Number(served.max_chars) > 0) rules = served;
}

// Whether code point `cp` is in one of `ranges` ([low, high] pairs).
const within = (ranges, cp) => Array.isArray(ranges) && ranges.some(([low, high]) => cp >= low && cp <= high);
const hex = (cp) => 'U+' + cp.toString(16).toUpperCase().padStart(4, '0');
const control = (cp) => cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);

// The name this browser's player chose, or '' for none.
export function myName() {
  let name = remembered;
  try { name = localStorage.getItem(KEY) || name; } catch (e) { /* no storage */ }
  return checkName(name) === null ? name.trim() : '';
}

// Why `text` is not a name, or null when it is one: the server's rule and
// its words.
export function checkName(text) {
  const name = String(text || '').trim();
  const cps = [...name].map((c) => c.codePointAt(0));
  const bad = cps.find(control);
  if (bad !== undefined) return `A name cannot hold the control character ${hex(bad)}.`;
  const hidden = cps.find((cp) => within(rules.invisible, cp));
  if (hidden !== undefined) {
    return `A name cannot hold ${hex(hidden)}, an invisible formatting character `
      + '(such as a zero-width space, a direction mark or override, or a line separator).';
  }
  if (!cps.some((cp) => !/\s/u.test(String.fromCodePoint(cp)) && !within(rules.blank, cp))) {
    return 'A name needs at least one visible character.';
  }
  // Read as it shows: blank characters hide nothing (nor a space after
  // them), and full-width Latin ("Ｃomputer") counts as the ASCII it imitates.
  const narrow = [...name].filter((c) => !within(rules.blank, c.codePointAt(0))).join('').trimStart()
    .replace(/[\uFF01-\uFF5E]/gu, (c) => String.fromCodePoint(c.codePointAt(0) - 0xFEE0));
  if (narrow.toLowerCase().startsWith(rules.reserved_prefix)) {
    return 'Names starting with "Computer" are kept for the computer player.';
  }
  if (cps.length > rules.max_chars) return `A name is at most ${rules.max_chars} characters; this one has ${cps.length}.`;
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
