// The analysis board's variation tree: the main line and every branch
// played off it, as nodes of moves; written as text for the shared link,
// localStorage and the export, PGN-like: moves `row,col` (from 0, as the API
// takes them) separated by spaces, each variation in parentheses after the
// move it replaces, variations nesting:
//   7,7 7,8 (8,8 9,9 (6,6)) 6,6
// is 7,7 then 7,8 then 6,6 (the main line), with 8,8 9,9 instead of 7,8 6,6,
// and 6,6 instead of 9,9 after 8,8.

// The most moves a tree may hold (the text of a URL stays reasonable).
export const MAX_NODES = 2000;

function node(m) { return { m, kids: [] }; }
export const key = (m) => m[0] + ',' + m[1];

// A tree holding the one line `moves`.
export function lineTree(moves) {
  const root = node(null);
  let at = root;
  for (const m of moves) { const n = node(m); at.kids.push(n); at = n; }
  return root;
}

// The node `path` (a list of moves from the start) leads to, or null.
export function nodeAt(root, path) {
  let at = root;
  for (const m of path) {
    at = at.kids.find((k) => key(k.m) === key(m));
    if (!at) return null;
  }
  return at;
}

// Make `path` part of the tree: a move not yet played at a node becomes a
// new branch there, after the ones it has (the main line stays first).
export function addPath(root, path) {
  let at = root;
  for (const m of path) {
    let next = at.kids.find((k) => key(k.m) === key(m));
    if (!next) { next = node(m); at.kids.push(next); }
    at = next;
  }
  return at;
}

// The first child of every node from `from` (the main line from there).
export function mainFrom(from) {
  const moves = [];
  for (let at = from.kids[0]; at; at = at.kids[0]) moves.push(at.m);
  return moves;
}

export function count(root) {
  let n = 0;
  const walk = (x) => { for (const k of x.kids) { n += 1; walk(k); } };
  walk(root);
  return n;
}

// Whether the tree is no more than the one line `path` (nothing a link
// would need beyond the moves of the position).
export function isJust(root, path) {
  return count(root) === path.length && nodeAt(root, path) !== null;
}

// The tree as text (see the top of this file).
export function write(root) {
  const out = [];
  const walk = (at) => {
    if (!at.kids.length) return;
    const [main, ...others] = at.kids;
    out.push(key(main.m));
    for (const o of others) {
      out.push('(' + key(o.m));
      walk(o);
      out[out.length - 1] += ')';
    }
    walk(main);
  };
  walk(root);
  return out.join(' ');
}

// The tree `text` writes, or null when it is not such a text (or holds
// more than MAX_NODES moves).
export function read(text) {
  const tokens = String(text).match(/\(|\)|[^\s()]+/g) || [];
  const root = node(null);
  let i = 0;
  let nodes = 0;
  // A line starting at `from`; a variation replaces the last move read.
  const line = (from, nested) => {
    let parent = from;
    let last = null;
    while (i < tokens.length) {
      const t = tokens[i++];
      if (t === '(') {
        if (!last || !line(parent, true)) return false;
      } else if (t === ')') {
        return nested;
      } else {
        const m = t.match(/^(\d{1,2}),(\d{1,2})$/);
        if (!m || ++nodes > MAX_NODES) return false;
        const move = [+m[1], +m[2]];
        if (last) parent = last;
        last = addPath(parent, [move]);
      }
    }
    return !nested;
  };
  return line(root, false) ? root : null;
}
