// The invite to a game between two people: the link to copy, on a phone
// the share sheet, on a desktop a QR code to scan. The link's secret
// follows '#', so it never reaches a server: the QR code is drawn here.
// While nobody has joined, the creator can cancel the game.
import { $, enc, isPhone, message } from './dom.js';
import { S } from './state.js';
import { api } from './net.js';
import { render } from './game.js';
import { encode, svg } from './qr.js';

// The QR code (on a desktop) and the Share button (on a phone that has a
// share sheet) for the link shown, whenever the invite shows.
export function drawInvite() {
  if ($('invite').hidden) return;
  const link = $('invite-link').value;
  const phone = isPhone();
  $('share').hidden = !(phone && typeof navigator.share === 'function');
  const figure = $('invite-qr');
  if (figure.dataset.link !== link) {
    figure.dataset.link = link;
    figure.querySelector('svg')?.remove();
    const modules = link ? encode(link) : null;
    if (modules) figure.prepend(svg(modules, 'QR code of the invite link'));
  }
  figure.hidden = phone || !figure.querySelector('svg');
  // Whether anyone but the friend with the link can find the game: the
  // lobby lists it while its creator has this page or the start page open,
  // and a correspondence game for its days a move after they leave.
  const listed = !!(S && S.game && S.game.listed);
  const days = S && S.game && S.game.clock && S.game.clock.days;
  const note = !listed ? 'Not in the lobby: only the invite link joins.'
    : days ? `In the lobby while this page or the start page is open here, and for ${days} day${days === 1 ? '' : 's'} after you leave.`
      : 'In the lobby while this page or the start page is open here.';
  if ($('seek-note').textContent !== note) $('seek-note').textContent = note;
}

// Cancel the game nobody has joined (the server's abort of a waiting
// game): it ends, counts for nobody, leaves the lobby, and its invite
// joins nobody after.
async function cancelSeek() {
  const st = S;
  if (!st || !st.token) return;
  $('cancel-seek').disabled = true;
  // At the version shown, which is waiting: if someone joined meanwhile,
  // the abort is refused as stale rather than ending their new game.
  const version = st.game ? st.game.version : undefined;
  const r = await api('POST', `/api/games/${enc(st.id)}/abort`, { version }, st.token);
  $('cancel-seek').disabled = false;
  if (S !== st) return;
  if (r.data.game) render(r.data.game);
  if (!r.ok) message('Could not cancel: ' + r.data.error);
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

// The phone's share sheet; a refusal or a closed sheet is no error, and
// any other failure leaves Copy to do it.
async function shareInvite() {
  try {
    await navigator.share({ title: 'oxo', text: 'Play me at oxo', url: $('invite-link').value });
  } catch (e) {
    if (e && e.name !== 'AbortError') copyInvite();
  }
}

export function wire() {
  $('copy').addEventListener('click', copyInvite);
  $('share').addEventListener('click', shareInvite);
  $('cancel-seek').addEventListener('click', cancelSeek);
  $('invite-link').addEventListener('focus', (e) => e.target.select());
  // A window turned or resized may go from phone to desktop or back.
  window.addEventListener('resize', drawInvite);
}
