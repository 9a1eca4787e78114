// A QR code encoder for the invite link, so that the link (whose secret
// follows '#') is drawn in the page and never sent anywhere. Byte mode,
// error correction level M, versions 1 to 10 (up to 213 bytes), the mask
// chosen by the standard's penalty score (ISO/IEC 18004).

// Per version 1..10 at level M: error correction codewords per block, and
// the blocks as [count, data codewords] groups.
const LEVEL_M = [
  null,
  [10, [[1, 16]]], [16, [[1, 28]]], [26, [[1, 44]]], [18, [[2, 32]]], [24, [[2, 43]]],
  [16, [[4, 27]]], [18, [[4, 31]]], [22, [[2, 38], [2, 39]]], [22, [[3, 36], [2, 37]]],
  [26, [[4, 43], [1, 44]]],
];

// Centres of the alignment patterns, per version (none on version 1).
const ALIGN = [null, [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34],
  [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50]];

// ---- arithmetic in GF(256) with the polynomial x^8 + x^4 + x^3 + x^2 + 1 ----
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
for (let i = 0, v = 1; i < 255; i++) {
  EXP[i] = v;
  LOG[v] = i;
  v <<= 1;
  if (v & 0x100) v ^= 0x11d;
}
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
const mul = (a, b) => (a && b ? EXP[LOG[a] + LOG[b]] : 0);

// The Reed-Solomon generator of degree n, highest power first, without
// its leading 1: the product of (x - a^i) for i below n.
function generator(n) {
  let poly = [1];
  for (let i = 0; i < n; i++) {
    const next = new Array(poly.length + 1).fill(0);
    poly.forEach((c, j) => {
      next[j] ^= c;
      next[j + 1] ^= mul(c, EXP[i]);
    });
    poly = next;
  }
  return poly.slice(1);
}

// The n error correction codewords of `data`: the remainder of data·x^n
// divided by the generator.
function correction(data, n) {
  const gen = generator(n);
  const rest = new Array(n).fill(0);
  for (const byte of data) {
    const factor = byte ^ rest.shift();
    rest.push(0);
    for (let i = 0; i < n; i++) rest[i] ^= mul(gen[i], factor);
  }
  return rest;
}

// ---- the bit stream ----
function dataCapacity(version) {
  const [, groups] = LEVEL_M[version];
  return groups.reduce((sum, [count, words]) => sum + count * words, 0);
}

// The smallest version that holds `length` bytes, or 0.
function versionFor(length) {
  for (let v = 1; v <= 10; v++) {
    const countBits = v < 10 ? 8 : 16;
    if (4 + countBits + 8 * length <= 8 * dataCapacity(v)) return v;
  }
  return 0;
}

// Mode, count, the bytes, a terminator and padding, as data codewords.
function dataCodewords(bytes, version) {
  const bits = [];
  const put = (value, width) => {
    for (let i = width - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  put(0b0100, 4);
  put(bytes.length, version < 10 ? 8 : 16);
  for (const b of bytes) put(b, 8);
  const capacity = 8 * dataCapacity(version);
  put(0, Math.min(4, capacity - bits.length));
  while (bits.length % 8) bits.push(0);
  const words = [];
  for (let i = 0; i < bits.length; i += 8) words.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  for (let pad = 0xec; words.length < capacity / 8; pad ^= 0xec ^ 0x11) words.push(pad);
  return words;
}

// The data split into blocks, each followed by its correction, interleaved
// column by column: every block's first data codeword, then every second…
function interleave(words, version) {
  const [ecPerBlock, groups] = LEVEL_M[version];
  const blocks = [];
  let at = 0;
  for (const [count, size] of groups) {
    for (let i = 0; i < count; i++) {
      const data = words.slice(at, at + size);
      at += size;
      blocks.push({ data, ec: correction(data, ecPerBlock) });
    }
  }
  const out = [];
  const longest = Math.max(...blocks.map((b) => b.data.length));
  for (let i = 0; i < longest; i++) for (const b of blocks) if (i < b.data.length) out.push(b.data[i]);
  for (let i = 0; i < ecPerBlock; i++) for (const b of blocks) out.push(b.ec[i]);
  return out;
}

// ---- the matrix ----
// A grid of modules (true = dark) and which of them are function patterns.
function grid(size) {
  return {
    size,
    dark: Array.from({ length: size }, () => new Array(size).fill(false)),
    fixed: Array.from({ length: size }, () => new Array(size).fill(false)),
  };
}

function setFixed(m, row, col, dark) {
  m.dark[row][col] = dark;
  m.fixed[row][col] = true;
}

// Finder patterns in three corners, with their light separators; timing
// lines; alignment patterns; the dark module; room for the format and
// version information.
function drawFunctionPatterns(m, version) {
  const n = m.size;
  for (const [top, left] of [[0, 0], [0, n - 7], [n - 7, 0]]) {
    for (let r = -1; r <= 7; r++) {
      for (let c = -1; c <= 7; c++) {
        const row = top + r;
        const col = left + c;
        if (row < 0 || col < 0 || row >= n || col >= n) continue;
        const ring = Math.max(Math.abs(r - 3), Math.abs(c - 3));
        setFixed(m, row, col, ring !== 2 && ring !== 4);
      }
    }
  }
  for (let i = 8; i < n - 8; i++) {
    setFixed(m, 6, i, i % 2 === 0);
    setFixed(m, i, 6, i % 2 === 0);
  }
  const centres = ALIGN[version];
  const last = centres.length - 1;
  centres.forEach((r, i) => centres.forEach((c, j) => {
    if ((i === 0 && (j === 0 || j === last)) || (i === last && j === 0)) return; // a finder's corner
    for (let dr = -2; dr <= 2; dr++) {
      for (let dc = -2; dc <= 2; dc++) setFixed(m, r + dr, c + dc, Math.max(Math.abs(dr), Math.abs(dc)) !== 1);
    }
  }));
  drawFormat(m, 0); // reserves the places; drawn again once the mask is chosen
  if (version >= 7) drawVersion(m, version);
}

// The 15 format bits: level M (00) and the mask, with their BCH code,
// masked by 101010000010010.
function formatBits(mask) {
  const data = (0b00 << 3) | mask;
  let rest = data << 10;
  for (let i = 14; i >= 10; i--) if ((rest >>> i) & 1) rest ^= 0x537 << (i - 10);
  return ((data << 10) | rest) ^ 0x5412;
}

// The format bits, twice: around the top-left finder, and split between the
// other two (bit 0 is the least significant).
function drawFormat(m, mask) {
  const n = m.size;
  const bits = formatBits(mask);
  const bit = (i) => ((bits >>> i) & 1) === 1;
  for (let i = 0; i <= 5; i++) setFixed(m, i, 8, bit(i));
  setFixed(m, 7, 8, bit(6));
  setFixed(m, 8, 8, bit(7));
  setFixed(m, 8, 7, bit(8));
  for (let i = 9; i < 15; i++) setFixed(m, 8, 14 - i, bit(i));
  for (let i = 0; i < 8; i++) setFixed(m, 8, n - 1 - i, bit(i));
  for (let i = 8; i < 15; i++) setFixed(m, n - 15 + i, 8, bit(i));
  setFixed(m, n - 8, 8, true); // the dark module
}

// Versions 7 and up: the version number with its 12-bit BCH code, in two
// 6×3 blocks beside the top-right and bottom-left finders.
function drawVersion(m, version) {
  const n = m.size;
  let rest = version << 12;
  for (let i = 17; i >= 12; i--) if ((rest >>> i) & 1) rest ^= 0x1f25 << (i - 12);
  const bits = (version << 12) | rest;
  for (let i = 0; i < 18; i++) {
    const dark = ((bits >>> i) & 1) === 1;
    const a = n - 11 + (i % 3);
    const b = Math.floor(i / 3);
    setFixed(m, b, a, dark);
    setFixed(m, a, b, dark);
  }
}

// The codewords' bits, most significant first, in two-column strips from
// the bottom right, up then down, skipping the vertical timing line; the
// modules they went to, in that order.
function drawCodewords(m, words) {
  const n = m.size;
  const order = [];
  let i = 0;
  const total = words.length * 8;
  for (let right = n - 1, strip = 0; right >= 1; right -= 2, strip++) {
    if (right === 6) right = 5;
    const upward = strip % 2 === 0;
    for (let step = 0; step < n; step++) {
      const row = upward ? n - 1 - step : step;
      for (const col of [right, right - 1]) {
        if (m.fixed[row][col]) continue;
        // Past the last codeword: the remainder bits, light.
        m.dark[row][col] = i < total && ((words[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
        order.push([row, col]);
        i++;
      }
    }
  }
  return order;
}

const MASKS = [
  (r, c) => (r + c) % 2 === 0,
  (r) => r % 2 === 0,
  (r, c) => c % 3 === 0,
  (r, c) => (r + c) % 3 === 0,
  (r, c) => (Math.floor(r / 2) + Math.floor(c / 3)) % 2 === 0,
  (r, c) => ((r * c) % 2) + ((r * c) % 3) === 0,
  (r, c) => (((r * c) % 2) + ((r * c) % 3)) % 2 === 0,
  (r, c) => (((r + c) % 2) + ((r * c) % 3)) % 2 === 0,
];

function applyMask(m, mask) {
  const flip = MASKS[mask];
  for (let r = 0; r < m.size; r++) {
    for (let c = 0; c < m.size; c++) if (!m.fixed[r][c] && flip(r, c)) m.dark[r][c] = !m.dark[r][c];
  }
}

// The standard's penalty for a finished symbol: long runs, 2×2 blocks,
// finder-like 1:1:3:1:1 patterns beside four light modules, and an
// unbalanced share of dark modules. The mask with the least is used.
function penalty(m) {
  const n = m.size;
  const at = (r, c, across) => (across ? m.dark[r][c] : m.dark[c][r]);
  let score = 0;
  for (const across of [true, false]) {
    for (let r = 0; r < n; r++) {
      let run = 1;
      for (let c = 1; c <= n; c++) {
        if (c < n && at(r, c, across) === at(r, c - 1, across)) { run++; continue; }
        if (run >= 5) score += run - 2;
        run = 1;
      }
      // The finder-like pattern, light beyond the symbol's edge.
      const bit = (c) => (c >= 0 && c < n && at(r, c, across) ? 1 : 0);
      for (let c = -4; c < n; c++) {
        const core = bit(c) && !bit(c + 1) && bit(c + 2) && bit(c + 3) && bit(c + 4) && !bit(c + 5) && bit(c + 6);
        if (!core) continue;
        const lightBefore = [1, 2, 3, 4].every((d) => !bit(c - d));
        const lightAfter = [7, 8, 9, 10].every((d) => !bit(c + d));
        if (lightBefore || lightAfter) score += 40;
      }
    }
  }
  let dark = 0;
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      if (m.dark[r][c]) dark++;
      if (r && c) {
        const v = m.dark[r][c];
        if (m.dark[r - 1][c] === v && m.dark[r][c - 1] === v && m.dark[r - 1][c - 1] === v) score += 3;
      }
    }
  }
  score += 10 * Math.floor(Math.abs(dark * 20 - n * n * 10) / (n * n));
  return score;
}

// The QR code for `text` (its UTF-8 bytes): `modules`, rows of booleans
// (true for dark) without the quiet zone; its version and mask; and the
// modules that hold the codewords' bits, in order (for the tests, which
// read them back with an independent decoder). Null when the text is too
// long for version 10.
export function symbol(text) {
  const bytes = [...new TextEncoder().encode(text)];
  const version = versionFor(bytes.length);
  if (!version) return null;
  const words = interleave(dataCodewords(bytes, version), version);
  let best = null;
  for (let mask = 0; mask < 8; mask++) {
    const m = grid(17 + 4 * version);
    drawFunctionPatterns(m, version);
    const order = drawCodewords(m, words);
    applyMask(m, mask);
    drawFormat(m, mask);
    const score = penalty(m);
    if (!best || score < best.score) best = { score, modules: m.dark, version, mask, order };
  }
  return best;
}

// The modules of the QR code for `text` (see `symbol`), or null.
export function encode(text) {
  const s = symbol(text);
  return s && s.modules;
}

// The code as an SVG image: dark modules on white with a quiet zone of
// four modules, one path, `scale` CSS pixels a module (whole pixels keep
// every module's edges sharp, for the camera).
export function svg(modules, label, scale = 3) {
  const NS = 'http://www.w3.org/2000/svg';
  const quiet = 4;
  const side = modules.length + 2 * quiet;
  const el = document.createElementNS(NS, 'svg');
  el.setAttribute('viewBox', `0 0 ${side} ${side}`);
  el.setAttribute('width', side * scale);
  el.setAttribute('height', side * scale);
  el.setAttribute('role', 'img');
  el.setAttribute('aria-label', label);
  el.setAttribute('shape-rendering', 'crispEdges');
  const back = document.createElementNS(NS, 'rect');
  back.setAttribute('width', side);
  back.setAttribute('height', side);
  back.setAttribute('fill', '#fff');
  let d = '';
  modules.forEach((row, r) => row.forEach((dark, c) => {
    if (dark) d += `M${c + quiet} ${r + quiet}h1v1h-1z`;
  }));
  const path = document.createElementNS(NS, 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', '#000');
  el.append(back, path);
  return el;
}
