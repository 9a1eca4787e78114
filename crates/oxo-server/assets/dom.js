// Small DOM helpers and the page's one message area (a toast).

export const $ = (id) => document.getElementById(id);
export const enc = encodeURIComponent;
export const up = (s) => (s ? String(s).toUpperCase() : '');

// A phone, or a window as narrow as one: a touch screen or under 40rem.
export const isPhone = () => matchMedia('(pointer: coarse), (max-width: 40rem)').matches;

let messageTimer = 0;
export function message(text, kind = 'error', ms = 6000) {
  const el = $('message');
  clearTimeout(messageTimer);
  el.textContent = '';
  el.className = 'toast ' + kind;
  el.hidden = false;
  // The last message said, kept after the toast hides (for the tests,
  // which may look later than a busy machine shows it).
  el.dataset.said = text;
  setTimeout(() => { el.textContent = text; }, 50); // re-announce even a repeated message
  if (ms) messageTimer = setTimeout(() => { el.hidden = true; }, ms);
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
// page's body, where a screen reader starts again from the top. After a
// redraw, `rescueFocus` gives focus back to that control where it is usable
// again, or to the control rebuilt in its place (the same id, or the same
// tag and data attributes), or to the nearest usable control beside it
// (never one of the game's action buttons, which act at once), or else to
// the first usable of `fallbacks`. Only keyboard focus the page itself
// took away is given back: focus a click gave (which shows no focus ring)
// is not remembered, nor a control its user left (a blur while it was
// still usable: a tap elsewhere, a phone keyboard's Done), and a text
// field is never focused again (that would bring a phone's keyboard up).
let lastFocused = null;
const usable = (el) => !!el && el.isConnected && !el.disabled && !el.closest('[hidden]') &&
  el.getClientRects().length > 0;
const typing = (el) => el.matches('input:not([type=checkbox]):not([type=radio]), textarea, select');
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
  return document.querySelector(selector);
}
export function rescueFocus(...fallbacks) {
  const active = document.activeElement;
  const lost = lastFocused;
  if (!lost || (active && active !== document.body && usable(active))) return;
  const again = usable(lost) ? lost : rebuilt(lost);
  const beside = lost.isConnected && !lost.closest('.action-row') ? nearest(lost) : null;
  const target = [again, beside, ...fallbacks].find((el) => usable(el) && !typing(el));
  if (target) target.focus();
}

export function wire() {
  $('message').addEventListener('click', clearMessage);
  document.addEventListener('focusin', (e) => {
    lastFocused = e.target.matches(':focus-visible') ? e.target : null;
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
