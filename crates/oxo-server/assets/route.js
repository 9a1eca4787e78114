// Routing: "/" is the start page, "/g/{id}" a game, "/analysis" the
// analysis board.
import { $, clearMessage } from './dom.js';
import { S, setCurrent } from './state.js';
import { stopLive } from './net.js';
import { openAnalysis } from './analysis.js';
import { showStart } from './start.js';
import { openGame } from './game.js';
import { dropSeeks } from './seeks.js';

export function route() {
  if (S) stopLive();
  setCurrent(null);
  clearMessage();
  const m = location.pathname.match(/^\/g\/([^/]+)\/?$/);
  // The start page keeps this browser's open games listed; elsewhere a
  // game's own page does, for that game only.
  if (m || location.pathname === '/analysis') dropSeeks();
  if (m) openGame(decodeURIComponent(m[1]));
  else if (location.pathname === '/analysis') openAnalysis();
  else showStart();
}

export function wire() {
  $('new-game-link').addEventListener('click', (e) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    history.pushState(null, '', '/');
    route();
  });
  window.addEventListener('popstate', route);
}
