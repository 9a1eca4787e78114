//! The learned evaluator: an n-tuple network over the board's k-windows.
//!
//! A *tuple* is an ordered list of cells. Seen from the player to move,
//! each cell is empty, own or the opponent's, so a tuple of `n` cells shows
//! one of `3ⁿ` patterns; each pattern has a weight, and a position's raw
//! score is the sum of the weights its tuples show. Tuples come in classes
//! that share one weight table: a class is every image of one tuple under
//! the board's symmetries (8 on square boards, 4 on others), so the value
//! is symmetric by construction and what is learnt in one corner is known
//! in the others.
//!
//! It sits below both of its readers: the learned player
//! ([`crate::learned`], which keeps the weights in a [`crate::Model`]) and
//! alphabeta's search, which reads a model's value at its leaves through a
//! [`Tracker`] (or, for [`Scheme::Tallies`], its one table of window
//! worths).

use std::collections::HashSet;
use std::sync::Arc;

use oxo_core::{Direction, Player, Rules, Symmetry};

use crate::windows::WindowBoard;

/// The ways of reading a board into tuples, by the id the model file
/// stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Every k-window, its exact pattern (`3ᵏ` weights per class).
    Windows,
    /// Every k-window, plus every pair of windows of different directions
    /// that cross in one cell (`3²ᵏ⁻¹` weights per pair class) and every
    /// 2×3 and 3×2 block of cells (729 per block class), each with its
    /// exact pattern: pairs see forks, which single windows cannot, and
    /// blocks see the forks a move will set up next.
    WindowPairs,
    /// Every k-window, reduced to its counts of own and opponent marks
    /// (`(k+1)²` weights per class): for long windows, where `3ᵏ` weights
    /// would be too many to learn.
    WindowCounts,
    /// Every k-window, plus every 2×3 and 3×2 block of cells, each with its
    /// exact pattern (729 weights per block class): for boards where
    /// crossing pairs would be too many weights.
    WindowBlocks,
    /// Every run of k+2 cells along a line, its exact pattern, where the
    /// run may hang over the board's edge by up to two cells (left out of
    /// the pattern): a run sees a k-window and whether its ends are open.
    /// The weights are shared by *translation* and direction, not by the
    /// board's symmetries: every run of every direction and position reads
    /// one table, chosen only by how many cells hang over each end, so a
    /// 15×15 board learns as fast as a small one and the weight count
    /// (`3ᵏ⁺²` and five smaller tables: 4,374 for k = 5) does not depend
    /// on the board's size. The player and training consider only moves
    /// within two cells of a mark, and block a win the opponent threatens.
    Segments,
    /// Every k-window, reduced to its counts of own and opponent marks, all
    /// windows reading one table (`(k+1)²` weights, 36 for k = 5, on any
    /// board): the window counting alphabeta evaluates with, the worth of
    /// each count learnt instead of set by hand. Shared by translation and
    /// direction as [`Scheme::Segments`] is, and played the same way.
    Tallies,
}

/// Models are for boards of at most this many cells (64×64): a file for a
/// larger board is refused, so that a damaged header cannot make us build
/// a huge board's tables.
pub const MAX_MODEL_CELLS: usize = 64 * 64;

/// The richer schemes are chosen while their weights stay below this
/// (250 KB of model file: 5×5 k=4 with pairs needs 60,183).
const WEIGHT_BUDGET: usize = 64_000;
/// Crossing pairs are offered on boards of at most this many cells: their
/// number grows with the square of the windows'.
const PAIRS_MAX_CELLS: usize = 64;
/// Windows longer than this are read by counts.
const EXACT_MAX_K: u32 = 6;
/// Runs of k+2 cells are read exactly up to this k (`3⁸` weights).
const SEGMENTS_MAX_K: u32 = 6;
/// How far a run of [`Scheme::Segments`] may hang over the board's edge.
const SEGMENT_OVERHANG: usize = 2;

impl Scheme {
    /// Every scheme.
    pub const ALL: [Scheme; 6] = [
        Scheme::Windows,
        Scheme::WindowPairs,
        Scheme::WindowCounts,
        Scheme::WindowBlocks,
        Scheme::Segments,
        Scheme::Tallies,
    ];

    /// The id written in model files.
    #[must_use]
    pub const fn id(self) -> u16 {
        match self {
            Scheme::Windows => 1,
            Scheme::WindowPairs => 2,
            Scheme::WindowCounts => 3,
            Scheme::WindowBlocks => 4,
            Scheme::Segments => 5,
            Scheme::Tallies => 6,
        }
    }

    /// The scheme with this id.
    #[must_use]
    pub fn from_id(id: u16) -> Option<Scheme> {
        Scheme::ALL.into_iter().find(|s| s.id() == id)
    }

    /// Whether the scheme may read boards of `rules` (models are for
    /// boards of at most [`MAX_MODEL_CELLS`] cells, and crossing
    /// pairs for boards of at most 64).
    #[must_use]
    pub fn fits(self, rules: Rules) -> bool {
        let cells = rules.cell_count();
        cells <= MAX_MODEL_CELLS
            && (self != Scheme::WindowPairs || cells <= PAIRS_MAX_CELLS)
            && (self != Scheme::Segments || rules.k() <= SEGMENTS_MAX_K)
    }

    /// Whether a model's weights are shared by translation, so that one
    /// trained on a board can play another with the same k (see
    /// [`crate::Model::transfer`]).
    #[must_use]
    pub const fn translation_invariant(self) -> bool {
        matches!(self, Scheme::Segments | Scheme::Tallies)
    }

    /// The scheme measured to play best on `rules`, keeping a model small
    /// (at most about 250 KB): pairs on small boards with short windows,
    /// one table of window counts ([`Scheme::Tallies`]) for k = 5 and 6
    /// (which beat [`Scheme::Segments`]' runs there: see `docs/learned.md`,
    /// "The schemes before"), counts by symmetry class beyond.
    #[must_use]
    pub fn for_rules(rules: Rules) -> Scheme {
        if rules.k() > EXACT_MAX_K {
            return Scheme::WindowCounts;
        }
        if rules.k() >= 5 && Scheme::Tallies.fits(rules) {
            return Scheme::Tallies;
        }
        if rules.k() >= 2 && rules.k() <= 4 && Scheme::WindowPairs.fits(rules) {
            let pairs = Features::new(rules, Scheme::WindowPairs);
            if pairs.weight_count() <= WEIGHT_BUDGET {
                return Scheme::WindowPairs;
            }
        }
        if rules.rows().min(rules.cols()) >= 2 && rules.rows().max(rules.cols()) >= 3 {
            let blocks = Features::new(rules, Scheme::WindowBlocks);
            if blocks.weight_count() <= WEIGHT_BUDGET {
                return Scheme::WindowBlocks;
            }
        }
        Scheme::Windows
    }
}

/// One cell of one tuple: how the tuple's pattern index grows when the cell
/// holds an own or an opponent mark.
#[derive(Clone, Copy, Debug)]
struct Member {
    cell: u32,
    own: u32,
    opp: u32,
}

/// One tuple: its members are `members[start..end]`, its weights start at
/// `base`.
#[derive(Clone, Copy, Debug)]
struct Tuple {
    start: u32,
    end: u32,
    base: u32,
}

/// The tuples of one scheme on one board, and where each cell occurs.
#[derive(Clone, Debug)]
pub(crate) struct Features {
    rules: Rules,
    scheme: Scheme,
    tuples: Vec<Tuple>,
    members: Vec<Member>,
    /// `through[offsets[c]..offsets[c + 1]]`: (tuple, member) pairs holding
    /// cell `c`.
    offsets: Vec<u32>,
    through: Vec<(u32, u32)>,
    weight_count: usize,
}

/// The symmetries in the order the tuples' images are listed, which the
/// order of the weights' sums follows: the mirrors and half turn, then (on
/// square boards only) the four that transpose.
const TUPLE_ORDER: [Symmetry; 8] = [
    Symmetry::Identity,
    Symmetry::MirrorRows,
    Symmetry::MirrorColumns,
    Symmetry::HalfTurn,
    Symmetry::Transpose,
    Symmetry::ThreeQuarterTurn,
    Symmetry::QuarterTurn,
    Symmetry::AntiTranspose,
];

/// Cell maps of the board's symmetries: `map[s][cell]` is where symmetry
/// `s` sends `cell`.
fn symmetries(rules: Rules) -> Vec<Vec<u32>> {
    let (rows, cols) = (rules.rows(), rules.cols());
    TUPLE_ORDER
        .iter()
        .filter(|s| s.fits(rows, cols))
        .map(|s| {
            (0..rows * cols)
                .map(|i| {
                    let (r, c) = s.map(rows, cols, i / cols, i % cols);
                    r * cols + c
                })
                .collect()
        })
        .collect()
}

/// Every k-window ([`Rules::windows`]) as its cells' indices in order.
pub(crate) fn windows(rules: Rules) -> Vec<Vec<u32>> {
    rules
        .windows()
        .map(|line| {
            // In range: the board has at most MAX_SIDE² cells.
            line.cells().map(|cell| rules.index(cell) as u32).collect()
        })
        .collect()
}

/// Pairs of windows of different directions crossing in one cell: window
/// `a`'s cells, then `b`'s without the shared one.
fn crossing_pairs(windows: &[Vec<u32>], k: usize) -> Vec<Vec<u32>> {
    let mut pairs = Vec::new();
    for (i, a) in windows.iter().enumerate() {
        for b in &windows[i + 1..] {
            let shared: Vec<u32> = b.iter().copied().filter(|c| a.contains(c)).collect();
            // Two windows of one direction share a run of cells, not one.
            let same_direction = a[1] - a[0] == b[1] - b[0];
            if shared.len() == 1 && !same_direction && k >= 2 {
                let mut cells = a.clone();
                cells.extend(b.iter().copied().filter(|&c| c != shared[0]));
                pairs.push(cells);
            }
        }
    }
    pairs
}

/// Every `h`×`w` and `w`×`h` block of cells, row by row.
fn rectangles(rules: Rules, h: u32, w: u32) -> Vec<Vec<u32>> {
    let (rows, cols) = (rules.rows(), rules.cols());
    let mut found = Vec::new();
    for (h, w) in [(h, w), (w, h)] {
        for top in 0..rows.saturating_sub(h - 1) {
            for left in 0..cols.saturating_sub(w - 1) {
                found.push(
                    (0..h * w)
                        .map(|i| (top + i / w) * cols + left + i % w)
                        .collect(),
                );
            }
        }
    }
    found
}

/// The weight tables of [`Scheme::Segments`] for runs of `len` cells: for
/// each overhang (cells off the board before the run's first cell on it,
/// and after its last) its first weight and its pattern count, in file
/// order.
fn segment_tables(len: usize) -> Vec<((usize, usize), usize, usize)> {
    let mut tables = Vec::new();
    let mut base = 0;
    for total in 0..=SEGMENT_OVERHANG {
        for before in (0..=total).rev() {
            let patterns = 3usize.pow((len - total) as u32);
            tables.push(((before, total - before), base, patterns));
            base += patterns;
        }
    }
    tables
}

/// Every run of k+2 cells along a line that holds a k-window and hangs
/// over the edge by at most [`SEGMENT_OVERHANG`] cells: its cells on the
/// board in order, and its overhang before and after them.
fn segments(rules: Rules) -> Vec<(Vec<u32>, (usize, usize))> {
    let (rows, cols) = (i64::from(rules.rows()), i64::from(rules.cols()));
    let k = i64::from(rules.k());
    let len = k + 2;
    let hang = SEGMENT_OVERHANG as i64;
    let mut found = Vec::new();
    for direction in Direction::ALL {
        let (dr, dc) = direction.delta();
        let (dr, dc) = (i64::from(dr), i64::from(dc));
        for row in -hang..rows + hang {
            for col in -hang..cols + hang {
                let at = |i: i64| (row + i * dr, col + i * dc);
                let on = |(r, c): (i64, i64)| (0..rows).contains(&r) && (0..cols).contains(&c);
                let inside: Vec<i64> = (0..len).filter(|&i| on(at(i))).collect();
                let (Some(&first), Some(&last)) = (inside.first(), inside.last()) else {
                    continue;
                };
                let (before, after) = (first, len - 1 - last);
                if (inside.len() as i64) < k || before + after > hang {
                    continue;
                }
                let cells = inside
                    .iter()
                    .map(|&i| {
                        let (r, c) = at(i);
                        // On the board: at most MAX_SIDE² cells.
                        (r * cols + c) as u32
                    })
                    .collect();
                found.push((cells, (before as usize, after as usize)));
            }
        }
    }
    found
}

impl Features {
    /// The tuples of `scheme` on a board of `rules`.
    pub(crate) fn new(rules: Rules, scheme: Scheme) -> Features {
        match scheme {
            Scheme::Segments => return Features::segmented(rules),
            Scheme::Tallies => return Features::tallied(rules),
            _ => {}
        }
        let maps = symmetries(rules);
        let k = rules.k() as usize;
        let windows = windows(rules);
        let mut groups: Vec<(Vec<Vec<u32>>, bool)> = vec![(windows.clone(), false)];
        match scheme {
            Scheme::Windows => {}
            Scheme::WindowPairs => {
                groups.push((crossing_pairs(&windows, k), false));
                groups.push((rectangles(rules, 2, 3), false));
            }
            Scheme::WindowCounts => groups[0].1 = true,
            Scheme::WindowBlocks => groups.push((rectangles(rules, 2, 3), false)),
            Scheme::Segments | Scheme::Tallies => {
                unreachable!("built by Features::segmented and Features::tallied")
            }
        }

        let mut features = Features {
            rules,
            scheme,
            tuples: Vec::new(),
            members: Vec::new(),
            offsets: Vec::new(),
            through: Vec::new(),
            weight_count: 0,
        };
        for (candidates, counts) in groups {
            let mut seen: HashSet<Vec<u32>> = HashSet::new();
            for tuple in candidates {
                let mut key = tuple.clone();
                key.sort_unstable();
                if seen.contains(&key) {
                    continue;
                }
                // A new class: every symmetric image of this tuple, each
                // ordered as the image of the first, shares its weights.
                let patterns = if counts {
                    (k + 1) * (k + 1)
                } else {
                    3usize.pow(tuple.len() as u32)
                };
                let base = features.weight_count as u32;
                features.weight_count += patterns;
                let mut images: Vec<Vec<u32>> = Vec::new();
                for map in &maps {
                    let image: Vec<u32> = tuple.iter().map(|&c| map[c as usize]).collect();
                    if images.contains(&image) {
                        continue;
                    }
                    let mut key = image.clone();
                    key.sort_unstable();
                    seen.insert(key);
                    images.push(image);
                }
                for image in images {
                    let start = features.members.len() as u32;
                    for (i, &cell) in image.iter().enumerate() {
                        let (own, opp) = if counts {
                            (k as u32 + 1, 1)
                        } else {
                            let step = 3u32.pow(i as u32);
                            (step, 2 * step)
                        };
                        features.members.push(Member { cell, own, opp });
                    }
                    features.tuples.push(Tuple {
                        start,
                        end: features.members.len() as u32,
                        base,
                    });
                }
            }
        }

        features.index_cells();
        features
    }

    /// The tuples of [`Scheme::Tallies`]: every window, its index the
    /// count of own marks times k+1 plus the count of the opponent's, into
    /// one table.
    fn tallied(rules: Rules) -> Features {
        let k = rules.k();
        let mut features = Features {
            rules,
            scheme: Scheme::Tallies,
            tuples: Vec::new(),
            members: Vec::new(),
            offsets: Vec::new(),
            through: Vec::new(),
            weight_count: ((k + 1) * (k + 1)) as usize,
        };
        for window in windows(rules) {
            let start = features.members.len() as u32;
            features
                .members
                .extend(window.into_iter().map(|cell| Member {
                    cell,
                    own: k + 1,
                    opp: 1,
                }));
            features.tuples.push(Tuple {
                start,
                end: features.members.len() as u32,
                base: 0,
            });
        }
        features.index_cells();
        features
    }

    /// The tuples of [`Scheme::Segments`].
    fn segmented(rules: Rules) -> Features {
        let tables = segment_tables(rules.k() as usize + 2);
        let mut features = Features {
            rules,
            scheme: Scheme::Segments,
            tuples: Vec::new(),
            members: Vec::new(),
            offsets: Vec::new(),
            through: Vec::new(),
            weight_count: tables.iter().map(|t| t.2).sum(),
        };
        for (cells, overhang) in segments(rules) {
            let Some(&(_, base, _)) = tables.iter().find(|t| t.0 == overhang) else {
                continue;
            };
            let start = features.members.len() as u32;
            for (i, &cell) in cells.iter().enumerate() {
                let step = 3u32.pow(i as u32);
                features.members.push(Member {
                    cell,
                    own: step,
                    opp: 2 * step,
                });
            }
            features.tuples.push(Tuple {
                start,
                end: features.members.len() as u32,
                base: base as u32,
            });
        }
        features.index_cells();
        features
    }

    /// Fill in which tuples hold each cell.
    fn index_cells(&mut self) {
        let features = self;
        let rules = features.rules;
        let cell_count = rules.cell_count();
        let mut offsets = vec![0u32; cell_count + 1];
        for m in &features.members {
            offsets[m.cell as usize + 1] += 1;
        }
        for i in 0..cell_count {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut through = vec![(0, 0); offsets[cell_count] as usize];
        for (t, tuple) in features.tuples.iter().enumerate() {
            for m in tuple.start..tuple.end {
                let cell = features.members[m as usize].cell as usize;
                through[fill[cell] as usize] = (t as u32, m);
                fill[cell] += 1;
            }
        }
        features.offsets = offsets;
        features.through = through;
    }

    pub(crate) const fn rules(&self) -> Rules {
        self.rules
    }

    pub(crate) const fn scheme(&self) -> Scheme {
        self.scheme
    }

    pub(crate) fn weight_count(&self) -> usize {
        self.weight_count
    }

    pub(crate) fn tuple_count(&self) -> usize {
        self.tuples.len()
    }

    /// Each tuple's weight index in `board` seen from `me`, into `out`.
    pub(crate) fn indices(&self, board: &WindowBoard, me: Player, out: &mut Vec<u32>) {
        out.clear();
        for tuple in &self.tuples {
            let mut index = tuple.base;
            for m in &self.members[tuple.start as usize..tuple.end as usize] {
                match board.get(m.cell as usize) {
                    None => {}
                    Some(p) if p == me => index += m.own,
                    Some(_) => index += m.opp,
                }
            }
            out.push(index);
        }
    }

    /// The (tuple, member) pairs that hold `cell`.
    fn through(&self, cell: usize) -> &[(u32, u32)] {
        &self.through[self.offsets[cell] as usize..self.offsets[cell + 1] as usize]
    }
}

/// Fixed-point weights of a [`Tracker`]: a weight `w` is `round(w * 2²⁴)`,
/// so that sums come and go exactly as marks do. Fine enough that a weight
/// read by every tuple of a big board (the empty run's) still adds up to
/// less than 10⁻⁴ of rounding.
pub(crate) const TRACKER_SCALE: f32 = 16_777_216.0;

/// Weights beyond ±2¹⁶ are read as that much, so that no sum can
/// overflow (2¹⁶ · 2²⁴ per tuple, fewer than 2¹⁶ tuples).
const TRACKER_WEIGHT_CAP: f32 = 65_536.0;

/// A model's raw value (the sum before `tanh`) kept up to date as marks
/// come and go, for both players at once: what a search that makes and
/// takes back moves reads at its leaves (alphabeta with a learned
/// evaluation). Each mark costs two weight reads per tuple through its cell.
#[derive(Clone, Debug)]
pub(crate) struct Tracker {
    features: Arc<Features>,
    /// The weights in fixed point ([`TRACKER_SCALE`]).
    weights: Arc<[i64]>,
    /// Each tuple's weight index seen from X and from O.
    index: [Vec<u32>; 2],
    /// The sum of the tuples' weights seen from X and from O.
    sum: [i64; 2],
}

impl Tracker {
    /// A tracker of an empty board of `features`' rules.
    pub(crate) fn new(features: Arc<Features>, weights: &[f32]) -> Tracker {
        let weights: Arc<[i64]> = weights
            .iter()
            .map(|&w| {
                // A NaN becomes 0 (the cast), ±∞ the cap.
                let w = w.clamp(-TRACKER_WEIGHT_CAP, TRACKER_WEIGHT_CAP);
                (f64::from(w) * f64::from(TRACKER_SCALE)).round() as i64
            })
            .collect();
        let empty: Vec<u32> = features.tuples.iter().map(|t| t.base).collect();
        let sum: i64 = empty.iter().map(|&i| weights[i as usize]).sum();
        Tracker {
            features,
            weights,
            index: [empty.clone(), empty],
            sum: [sum, sum],
        }
    }

    /// `player` marks the empty `cell` (`add`), or the mark is taken back.
    pub(crate) fn change(&mut self, cell: usize, player: Player, add: bool) {
        let features = &*self.features;
        for &(t, m) in features.through(cell) {
            let member = features.members[m as usize];
            for view in [Player::X, Player::O] {
                let step = if view == player {
                    member.own
                } else {
                    member.opp
                };
                let index = &mut self.index[view.index()][t as usize];
                let before = self.weights[*index as usize];
                if add {
                    *index += step;
                } else {
                    *index -= step;
                }
                self.sum[view.index()] += self.weights[*index as usize] - before;
            }
        }
    }

    pub(crate) fn rules(&self) -> Rules {
        self.features.rules
    }

    /// The one table of a [`Scheme::Tallies`] model, in fixed point, read
    /// at `own * (k + 1) + opponent's` marks of a window: a search that
    /// counts each window's marks anyway can keep the sum itself.
    pub(crate) fn tallies(&self) -> Option<Arc<[i64]>> {
        (self.features.scheme == Scheme::Tallies).then(|| Arc::clone(&self.weights))
    }

    /// The position's raw value for `player` to move, in units of
    /// 2⁻²⁴ (its `tanh` is the model's value).
    pub(crate) fn value(&self, player: Player) -> i64 {
        self.sum[player.index()]
    }
}

/// How good a move is for the player making it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum MoveScore {
    /// The move wins at once.
    Win,
    /// The move fills the board without a line.
    Draw,
    /// The network's value of the position after it, for the mover
    /// (the opponent's value negated), before squashing.
    Estimate(f32),
}

impl MoveScore {
    /// The move's value for the mover in −1..=1.
    pub(crate) fn value(self) -> f32 {
        match self {
            MoveScore::Win => 1.0,
            MoveScore::Draw => 0.0,
            MoveScore::Estimate(raw) => raw.tanh(),
        }
    }
}

/// Scratch space for evaluating moves without allocating.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    indices: Vec<u32>,
    /// Per weight, how many tuples read it (shared schemes, in `learn`).
    hits: Vec<u32>,
    /// Per weight, a running mean of the square of its reads per position
    /// ([`Scheme::Tallies`], in `learn`).
    mean_squares: Vec<f32>,
}

/// How far from the marks the schemes shared by translation look for moves.
const MOVE_REACH: u32 = 2;

impl Features {
    /// The raw score of `board` for the player to move.
    pub(crate) fn raw(&self, weights: &[f32], board: &WindowBoard, scratch: &mut Scratch) -> f32 {
        self.indices(board, board.to_move(), &mut scratch.indices);
        scratch.indices.iter().map(|&i| weights[i as usize]).sum()
    }

    /// Every empty cell with the score of playing it, for the player to
    /// move; the board must not be finished.
    ///
    /// Each move is scored incrementally: the position is read once from
    /// the opponent's side, and each move changes only the tuples through
    /// its cell.
    pub(crate) fn score_moves(
        &self,
        weights: &[f32],
        board: &WindowBoard,
        scratch: &mut Scratch,
        out: &mut Vec<(usize, MoveScore)>,
    ) {
        out.clear();
        let mover = board.to_move();
        let opponent = mover.other();
        self.indices(board, opponent, &mut scratch.indices);
        let indices = &scratch.indices;
        let base: f32 = indices.iter().map(|&i| weights[i as usize]).sum();
        let empties = board.cell_count() - board.stones();
        // Schemes shared by translation (the big boards): only moves near
        // the marks (any on an empty board), and only blocks when the
        // opponent threatens to win.
        let local = self.scheme.translation_invariant();
        let marked = board.stones() > 0;
        let forced = local
            && marked
            && !board.empty_cells().any(|c| board.wins_at(c, mover))
            && board.empty_cells().any(|c| board.wins_at(c, opponent));
        for cell in 0..board.cell_count() {
            if !board.is_empty(cell) {
                continue;
            }
            if local && marked {
                let keep = if forced {
                    board.wins_at(cell, opponent)
                } else {
                    board.near_a_mark(cell, MOVE_REACH)
                };
                if !keep {
                    continue;
                }
            }
            let score = if board.wins_at(cell, mover) {
                MoveScore::Win
            } else if empties == 1 {
                MoveScore::Draw
            } else {
                let mut raw = base;
                for &(t, m) in self.through(cell) {
                    let index = indices[t as usize];
                    // The mover is the opponent's opponent.
                    let step = self.members[m as usize].opp;
                    raw += weights[(index + step) as usize] - weights[index as usize];
                }
                MoveScore::Estimate(-raw)
            };
            out.push((cell, score));
        }
    }

    /// Move the value of `board` (for the player to move) towards `target`
    /// by one gradient step of size `rate`.
    pub(crate) fn learn(
        &self,
        weights: &mut [f32],
        board: &WindowBoard,
        target: f32,
        rate: f32,
        scratch: &mut Scratch,
    ) {
        self.indices(board, board.to_move(), &mut scratch.indices);
        let raw: f32 = scratch.indices.iter().map(|&i| weights[i as usize]).sum();
        let value = raw.tanh();
        let mut step = rate * (target - value) * (1.0 - value * value);
        if self.scheme == Scheme::Tallies {
            // A few weights, read from a handful of times a position (a
            // four) to hundreds (a lone mark): each weight's step is its
            // gradient divided by the running mean of its square, so that
            // the rare counts learn as fast as the common ones.
            scratch.hits.clear();
            scratch.hits.resize(weights.len(), 0);
            for &i in &scratch.indices {
                scratch.hits[i as usize] += 1;
            }
            scratch.mean_squares.resize(weights.len(), 1.0);
            for (i, &hits) in scratch.hits.iter().enumerate() {
                let hits = hits as f32;
                let mean = &mut scratch.mean_squares[i];
                *mean = 0.999 * *mean + 0.001 * hits * hits;
                if hits > 0.0 {
                    weights[i] += step * hits / (0.001 + *mean);
                }
            }
            return;
        }
        if self.scheme.translation_invariant() {
            // Many tuples read the same weight: a step of `rate` per tuple
            // would move the value by the sum of the squares of the
            // weights' reads. Normalize so that it moves by `rate` times
            // the tuple count, as it does when every read is of its own
            // weight.
            scratch.hits.resize(weights.len(), 0);
            let mut squares = 0u64;
            for &i in &scratch.indices {
                let hits = &mut scratch.hits[i as usize];
                squares += 2 * u64::from(*hits) + 1;
                *hits += 1;
            }
            for &i in &scratch.indices {
                scratch.hits[i as usize] = 0;
            }
            step *= scratch.indices.len() as f32 / squares as f32;
        }
        for &i in &scratch.indices {
            weights[i as usize] += step;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tic_tac_toe_has_three_window_classes() {
        let f = Features::new(Rules::default(), Scheme::Windows);
        // Edge lines, middle lines, diagonals.
        assert_eq!(f.weight_count(), 3 * 27);
        // Every ordered image: edges 4 lines × 2 directions, middles 2 × 2,
        // diagonals 2 × 2.
        assert_eq!(f.tuple_count(), 8 + 4 + 4);
    }

    #[test]
    fn incremental_scores_match_a_fresh_reading() {
        for (rules, scheme) in [
            (Rules::default(), Scheme::WindowPairs),
            (Rules::new(4, 5, 3).unwrap(), Scheme::Windows),
            (Rules::new(6, 6, 5).unwrap(), Scheme::WindowCounts),
            (Rules::new(6, 6, 5).unwrap(), Scheme::WindowBlocks),
            (Rules::new(9, 7, 5).unwrap(), Scheme::Segments),
            (Rules::new(4, 6, 3).unwrap(), Scheme::Segments),
            (Rules::new(9, 7, 5).unwrap(), Scheme::Tallies),
        ] {
            let f = Features::new(rules, scheme);
            let weights: Vec<f32> = (0..f.weight_count())
                .map(|i| ((i * 7919) % 101) as f32 / 100.0 - 0.5)
                .collect();
            let mut board = WindowBoard::new(rules);
            board.play(1);
            board.play(rules.cell_count() - 1);
            let mut scratch = Scratch::default();
            let mut scores = Vec::new();
            f.score_moves(&weights, &board, &mut scratch, &mut scores);
            for &(cell, score) in &scores {
                let mut child = board.clone();
                child.play(cell);
                let fresh = -f.raw(&weights, &child, &mut scratch);
                let MoveScore::Estimate(raw) = score else {
                    panic!("no win yet")
                };
                assert!((raw - fresh).abs() < 1e-4, "{rules} {cell}: {raw} {fresh}");
            }
        }
    }

    #[test]
    fn a_tracker_follows_the_marks_and_comes_back_exactly() {
        for (rules, scheme) in [
            (Rules::new(9, 7, 5).unwrap(), Scheme::Segments),
            (Rules::new(15, 15, 5).unwrap(), Scheme::Segments),
            (Rules::new(5, 5, 4).unwrap(), Scheme::WindowPairs),
            (Rules::new(15, 15, 5).unwrap(), Scheme::Tallies),
        ] {
            let f = Arc::new(Features::new(rules, scheme));
            let weights: Vec<f32> = (0..f.weight_count())
                .map(|i| ((i * 7919) % 101) as f32 / 100.0 - 0.5)
                .collect();
            let mut tracker = Tracker::new(Arc::clone(&f), &weights);
            let start = [tracker.value(Player::X), tracker.value(Player::O)];
            let mut board = WindowBoard::new(rules);
            let mut scratch = Scratch::default();
            let cells: Vec<usize> = (0..rules.cell_count()).step_by(3).take(12).collect();
            for &cell in &cells {
                tracker.change(cell, board.to_move(), true);
                board.play(cell);
                for me in [Player::X, Player::O] {
                    let mut seen = board.clone();
                    seen.set_to_move(me);
                    let fresh = f.raw(&weights, &seen, &mut scratch);
                    let tracked = tracker.value(me) as f32 / TRACKER_SCALE;
                    assert!((fresh - tracked).abs() < 1e-3, "{rules}: {fresh} {tracked}");
                }
            }
            for &cell in cells.iter().rev() {
                let player = board.get(cell).unwrap();
                tracker.change(cell, player, false);
                board.clear(cell);
            }
            assert_eq!([tracker.value(Player::X), tracker.value(Player::O)], start);
        }
    }

    #[test]
    fn segments_share_one_table_whatever_the_board() {
        for (rows, cols) in [(5, 5), (7, 7), (9, 6), (15, 15), (30, 30)] {
            let rules = Rules::new(rows, cols, 5).unwrap();
            let f = Features::new(rules, Scheme::Segments);
            // 3⁷ for runs wholly on the board, 3⁶ each for one cell over
            // either end, 3⁵ each for two over.
            assert_eq!(f.weight_count(), 2187 + 2 * 729 + 3 * 243);
            // Every k-window lies in some run.
            let windows = windows(rules);
            for w in &windows {
                assert!(
                    f.tuples.iter().any(|t| {
                        let cells: Vec<u32> = f.members[t.start as usize..t.end as usize]
                            .iter()
                            .map(|m| m.cell)
                            .collect();
                        cells.windows(w.len()).any(|c| c == &w[..])
                    }),
                    "{rules}: {w:?}"
                );
            }
        }
        assert_eq!(
            Features::new(Rules::new(5, 5, 4).unwrap(), Scheme::Segments).weight_count(),
            729 + 2 * 243 + 3 * 81
        );
        assert!(!Scheme::Segments.fits(Rules::new(9, 9, 7).unwrap()));
    }

    #[test]
    fn tallies_read_every_window_by_its_counts_into_one_table() {
        for (rows, cols, k) in [(7, 7, 5), (15, 15, 5), (9, 6, 4)] {
            let rules = Rules::new(rows, cols, k).unwrap();
            let f = Features::new(rules, Scheme::Tallies);
            assert_eq!(f.weight_count(), ((k + 1) * (k + 1)) as usize);
            assert_eq!(f.tuple_count(), windows(rules).len());
            assert!(f.tuples.iter().all(|t| t.base == 0));
        }
        // Weight own·(k+1) + opponent's: on an empty 15×15 board every
        // window reads weight 0; after X's centre mark, the 20 windows
        // through it read weight 6 from X's side and 1 from O's.
        let rules = Rules::new(15, 15, 5).unwrap();
        let f = Features::new(rules, Scheme::Tallies);
        let mut weights = vec![0.0; 36];
        weights[6] = 1.0;
        weights[1] = -2.0;
        let mut board = WindowBoard::new(rules);
        let mut scratch = Scratch::default();
        assert_eq!(f.raw(&weights, &board, &mut scratch), 0.0);
        board.play(7 * 15 + 7);
        assert_eq!(f.raw(&weights, &board, &mut scratch), -40.0);
        board.set_to_move(Player::X);
        assert_eq!(f.raw(&weights, &board, &mut scratch), 20.0);
    }

    #[test]
    fn segments_offer_only_moves_near_the_marks_and_blocks() {
        let rules = Rules::new(15, 15, 5).unwrap();
        let f = Features::new(rules, Scheme::Segments);
        let weights = vec![0.0; f.weight_count()];
        let mut scratch = Scratch::default();
        let mut scores = Vec::new();
        let mut board = WindowBoard::new(rules);
        f.score_moves(&weights, &board, &mut scratch, &mut scores);
        assert_eq!(scores.len(), 225);
        board.play(7 * 15 + 7);
        f.score_moves(&weights, &board, &mut scratch, &mut scores);
        assert_eq!(scores.len(), 24);
        // X has four in a row, open at one end: O must block it.
        let mut board = WindowBoard::new(rules);
        for (x, o) in [(0, 100), (1, 101), (2, 150)] {
            board.play(x);
            board.play(o);
        }
        board.play(3);
        f.score_moves(&weights, &board, &mut scratch, &mut scores);
        assert_eq!(scores, vec![(4, MoveScore::Estimate(0.0))]);
    }

    #[test]
    fn schemes_for_the_usual_boards() {
        let r = |rows, cols, k| Rules::new(rows, cols, k).unwrap();
        assert_eq!(Scheme::for_rules(Rules::default()), Scheme::WindowPairs);
        assert_eq!(Scheme::for_rules(r(4, 4, 4)), Scheme::WindowPairs);
        assert_eq!(Scheme::for_rules(r(5, 5, 4)), Scheme::WindowPairs);
        assert_eq!(Scheme::for_rules(r(7, 7, 5)), Scheme::Tallies);
        assert_eq!(Scheme::for_rules(r(15, 15, 5)), Scheme::Tallies);
        assert_eq!(Scheme::for_rules(r(30, 30, 5)), Scheme::Tallies);
        assert_eq!(Scheme::for_rules(r(6, 6, 6)), Scheme::Tallies);
        assert_eq!(Scheme::for_rules(r(8, 8, 4)), Scheme::WindowBlocks);
        assert_eq!(Scheme::for_rules(r(30, 30, 4)), Scheme::Windows);
        assert_eq!(Scheme::for_rules(r(9, 9, 7)), Scheme::WindowCounts);
        for scheme in Scheme::ALL {
            assert_eq!(Scheme::from_id(scheme.id()), Some(scheme));
        }
    }
}
