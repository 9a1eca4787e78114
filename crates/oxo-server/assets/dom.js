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

export function wire() {
  $('message').addEventListener('click', clearMessage);
}
