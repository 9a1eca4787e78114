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
export function clearMessage() { clearTimeout(messageTimer); $('message').hidden = true; }

// Keyboard focus kept where a person can use it. A control that had focus
// and was then hidden, disabled or rebuilt by a redraw leaves focus on the
// page's body, where a screen reader starts again from the top. After a
// redraw, `rescueFocus` gives focus back to that control where it is usable
// again, or to the control rebuilt in its place (the same id, or the same
// tag and data attributes), or to a usable control beside it, or else to
// the first usable of `fallbacks`. Only focus the page itself took away is
// given back: a pointer press (a click anywhere) forgets the control.
let lastFocused = null;
const usable = (el) => !!el && el.isConnected && !el.disabled && !el.closest('[hidden]') &&
  el.getClientRects().length > 0;
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
  const beside = lost.parentElement && lost.parentElement.isConnected
    ? [...lost.parentElement.querySelectorAll('button, a[href]')] : [];
  const target = [again, ...beside, ...fallbacks].find(usable);
  if (target) target.focus();
}

export function wire() {
  $('message').addEventListener('click', clearMessage);
  document.addEventListener('focusin', (e) => { lastFocused = e.target; });
  document.addEventListener('pointerdown', () => { lastFocused = null; }, true);
}
