// Routing: "/" is the start page, "/g/{id}" a game, "/analysis" the
// analysis board.
import { $, clearMessage } from './dom.js';
import { S, setCurrent } from './state.js';
import { stopLive } from './net.js';
import { openAnalysis } from './analysis.js';
import { showStart } from './start.js';
import { openGame } from './game.js';

export function route() {
  if (S) stopLive();
  setCurrent(null);
  clearMessage();
  const m = location.pathname.match(/^\/g\/([^/]+)\/?$/);
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
