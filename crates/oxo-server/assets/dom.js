// Small DOM helpers and the page's one message area (a toast).

export const $ = (id) => document.getElementById(id);
export const enc = encodeURIComponent;
export const up = (s) => (s ? String(s).toUpperCase() : '');

// A phone, or a window as narrow as one: a touch screen or under 40rem.
export const isPhone = () => matchMedia('(pointer: coarse), (max-width: 40rem)').matches;

let messageTimer = 0;
// How long the toast showing stays (0: until the next). A mouse over it
// holds it, and leaving gives the reader READ_MORE_MS more at least; a
// click or tap puts it away.
let messageMs = 0;
let messageHeld = false;
const READ_MORE_MS = 3000;
const hideLater = (ms) => {
  clearTimeout(messageTimer);
  if (ms) messageTimer = setTimeout(() => { $('message').hidden = true; }, ms);
};
export function message(text, kind = 'error', ms = 6000) {
  const el = $('message');
  el.textContent = '';
  el.className = 'toast ' + kind;
  el.hidden = false;
  // The last message said, kept after the toast hides (for the tests,
  // which may look later than a busy machine shows it).
  el.dataset.said = text;
  setTimeout(() => { el.textContent = text; }, 50); // re-announce even a repeated message
  messageMs = ms;
  // A new message under a resting mouse is held as the one it replaced.
  if (messageHeld) clearTimeout(messageTimer);
  else hideLater(ms);
}

// A message that informs (the toast as `info`), said unless an error is
// showing, which it would hide: whether it was said.
export function inform(text, ms) {
  if (!$('message').hidden && $('message').classList.contains('error')) return false;
  message(text, 'info', ms);
  return true;
}
export function clearMessage() { clearTimeout(messageTimer); $('message').hidden = true; }

// Keyboard focus kept where a person can use it. A control that had focus
// and was then hidden, disabled or rebuilt by a redraw leaves focus on the
// page's body, where a screen reader starts again from the top. Once a
// redraw is done (`rescueFocus` waits for the end of the current task's
// work, so that a redraw's parts see the page as it ends up), focus goes
// back to that control where it is usable again, or to the control
// rebuilt in its place (the same id, or the same tag and data attributes,
// in the same list first), or to the nearest usable control beside it, or
// else to the first usable of `fallbacks`. Never from one control that
// acts at once to another of its group (`data-acts`: Decline draw must not
// hand focus to Offer draw, nor Decline rematch to Rematch), never to a
// text field (a phone's keyboard would come up). Only keyboard focus the
// page itself took away is given back: focus a click gave (which shows no
// focus ring) is not remembered, nor a control its user left (a blur while
// it was still usable: a tap elsewhere, a phone keyboard's Done).
let lastFocused = null;
let lastList = null;
const usable = (el) => !!el && el.isConnected && !el.disabled && !el.closest('[hidden]') &&
  el.getClientRects().length > 0;
const typing = (el) => el.matches('input:not([type=checkbox]):not([type=radio]), textarea, select');
const group = (el) => { const g = el.closest('[data-acts]'); return g ? g.dataset.acts : null; };
// Whether focus on `el` shows a ring (browsers without :focus-visible: yes).
function keyboardFocus(el) {
  try { return el.matches(':focus-visible'); } catch (e) { return true; }
}
// The usable control nearest `el` among its siblings: before it, then after.
function nearest(el) {
  for (const step of ['previousElementSibling', 'nextElementSibling']) {
    for (let x = el[step]; x; x = x[step]) if (usable(x) && x.matches('button, a[href]')) return x;
  }
  return null;
}
function rebuilt(el) {
  if (el.id) return $(el.id);
  const data = Object.entries(el.dataset);
  if (!data.length) return null;
  const selector = el.tagName.toLowerCase() +
    data.map(([k, v]) => `[data-${k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}="${CSS.escape(v)}"]`).join('');
  const list = lastList && $(lastList);
  return (list && list.querySelector(selector)) || document.querySelector(selector);
}
function rescueNow(fallbacks) {
  const active = document.activeElement;
  const lost = lastFocused;
  if (!lost || (active && active !== document.body && usable(active))) return;
  const again = usable(lost) ? lost : rebuilt(lost);
  const acts = group(lost);
  const beside = lost.isConnected && !acts ? nearest(lost) : null;
  const target = [again, beside, ...fallbacks]
    .find((el) => usable(el) && !typing(el) && (el === again || !acts || group(el) !== acts));
  if (target) target.focus();
}
let rescue = null;
export function rescueFocus(...fallbacks) {
  if (!rescue) queueMicrotask(() => { const f = rescue; rescue = null; rescueNow(f); });
  rescue = fallbacks;
}
// Where focus goes in a game when nothing stands in for the control lost:
// Rematch once a round is over, else the board, else the status line.
export const gameFocus = () =>
  [$('rematch'), document.querySelector('#board .cell[tabindex="0"]'), $('status')];

export function wire() {
  $('message').addEventListener('click', clearMessage);
  $('message').addEventListener('pointerenter', () => {
    messageHeld = true;
    clearTimeout(messageTimer);
  });
  $('message').addEventListener('pointerleave', () => {
    messageHeld = false;
    if (messageMs && !$('message').hidden) hideLater(Math.max(READ_MORE_MS, messageMs / 2));
  });
  document.addEventListener('focusin', (e) => {
    lastFocused = keyboardFocus(e.target) ? e.target : null;
    const list = e.target.closest('ul[id], ol[id]');
    lastList = list ? list.id : null;
  });
  // Judged once the blur's cause is done: a control being removed or
  // hidden may be blurred while it still stands.
  document.addEventListener('focusout', (e) => {
    const left = e.target;
    setTimeout(() => {
      if (left === lastFocused && usable(left) && document.activeElement !== left) lastFocused = null;
    });
  });
}
