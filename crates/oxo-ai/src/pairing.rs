//! The pairing search shared by the solver's 64-bit boards and the
//! prover's 128-bit ones: whether the defender can cover every window the
//! attacker can still fill with a disjoint pair of empty cells, answering
//! each attacker stone in a pair with the pair's other cell so that no
//! window ever fills, whoever is to move.
//!
//! Backtracking over the most crowded open window, its pairs of
//! neighbouring free cells tried in turn, within a budget of steps: sound
//! (a pairing is claimed only once built), not complete. The defender may
//! also be given one stone to place first (a "spare", for a defender to
//! move), which blocks every window through its cell. A [`Budget`] may
//! ask for a second search where that fails, which also tries any two
//! free cells of a window, after its neighbours: more pairings, but many
//! more ways for a search to fail, so it is given fewer steps.

use std::ops::{BitAnd, BitOr, ControlFlow, Not};

/// A set of cells: `u64` or `u128`.
pub(crate) trait Cells:
    Copy + Eq + BitAnd<Output = Self> + BitOr<Output = Self> + Not<Output = Self>
{
    const EMPTY: Self;
    fn count(self) -> u32;
    /// The set of the lowest cell alone.
    fn lowest(self) -> Self;
    fn without_lowest(self) -> Self;
    fn single(b: u32) -> Self;
    /// The index of the lowest cell.
    fn index(self) -> u32;
}

impl Cells for u64 {
    const EMPTY: u64 = 0;
    #[inline]
    fn count(self) -> u32 {
        self.count_ones()
    }
    #[inline]
    fn lowest(self) -> u64 {
        self & self.wrapping_neg()
    }
    #[inline]
    fn without_lowest(self) -> u64 {
        self & self.wrapping_sub(1)
    }
    #[inline]
    fn single(b: u32) -> u64 {
        1 << b
    }
    #[inline]
    fn index(self) -> u32 {
        self.trailing_zeros()
    }
}

impl Cells for u128 {
    const EMPTY: u128 = 0;
    #[inline]
    fn count(self) -> u32 {
        self.count_ones()
    }
    #[inline]
    fn lowest(self) -> u128 {
        self & self.wrapping_neg()
    }
    #[inline]
    fn without_lowest(self) -> u128 {
        self & self.wrapping_sub(1)
    }
    #[inline]
    fn single(b: u32) -> u128 {
        1 << b
    }
    #[inline]
    fn index(self) -> u32 {
        self.trailing_zeros()
    }
}

/// What the search needs of a board.
pub(crate) trait Windows {
    type Cells: Cells;
    /// Window `i` (an index below 256) as a set of cells.
    fn window(&self, i: usize) -> Self::Cells;
    /// The windows through the lowest cell of `cells`, as four words.
    fn through(&self, cells: Self::Cells) -> &[u64; 4];
    /// Every window, as four words.
    fn all_windows(&self) -> &[u64; 4];
    /// How many windows there are.
    fn window_count(&self) -> usize;
    /// Cells, most promising first: the order spare stones are tried in.
    fn order(&self) -> &[u8];
}

/// How long a pairing search may look: `steps` over pairs of
/// neighbouring free cells, then, if that fails, `any_steps` more (0:
/// none) in a search that also tries any two free cells of a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Budget {
    pub steps: u32,
    pub any_steps: u32,
}

impl Budget {
    /// `search(steps, any_pairs)` over neighbours, then, if that finds
    /// nothing, over any pairs.
    fn run<T>(self, search: impl Fn(u32, bool) -> Option<T>) -> Option<T> {
        search(self.steps, false).or_else(|| {
            (self.any_steps > 0)
                .then(|| search(self.any_steps, true))
                .flatten()
        })
    }
}

impl From<u32> for Budget {
    /// `steps` over neighbouring cells only.
    fn from(steps: u32) -> Budget {
        Budget {
            steps,
            any_steps: 0,
        }
    }
}

/// The cells a pairing of the defender (stones `defender`) against the
/// attacker (`attacker`) takes, after one stone from `spare` if that helps
/// (0: none), if the search finds one within `budget` steps.
pub(crate) fn pairing<B: Windows>(
    board: &B,
    attacker: B::Cells,
    defender: B::Cells,
    valid: B::Cells,
    spare: B::Cells,
    budget: u32,
) -> Option<B::Cells> {
    pairing_avoiding(
        board,
        attacker,
        defender,
        valid,
        spare,
        B::Cells::EMPTY,
        budget,
    )
}

/// [`pairing`], trying first at each window the pairs (and first the
/// stones) with no cell in `avoid`: a pairing that leaves those cells out,
/// if the search meets one first, makes a proof that does not depend on
/// them.
pub(crate) fn pairing_avoiding<B: Windows>(
    board: &B,
    attacker: B::Cells,
    defender: B::Cells,
    valid: B::Cells,
    spare: B::Cells,
    avoid: B::Cells,
    budget: impl Into<Budget>,
) -> Option<B::Cells> {
    let budget = budget.into();
    let search = |steps, any_pairs| {
        let mut search = Search::new(board, steps, false);
        search.avoid = avoid;
        search.any_pairs = any_pairs;
        search
            .run(attacker, defender, valid, spare)
            .map(|(cells, _)| cells)
    };
    budget.run(search)
}

/// A pairing strategy as [`pairing`] finds it, written out: the stone it
/// places first (if it needs one) and its pairs, as cell indexes.
pub(crate) fn pairing_strategy<B: Windows>(
    board: &B,
    attacker: B::Cells,
    defender: B::Cells,
    valid: B::Cells,
    spare: B::Cells,
    budget: impl Into<Budget>,
) -> Option<Strategy> {
    let budget = budget.into();
    let search = |steps, any_pairs| {
        let mut search = Search::new(board, steps, true);
        search.any_pairs = any_pairs;
        search.run(attacker, defender, valid, spare)
    };
    let (_, trail) = budget.run(search)?;
    let mut strategy = Strategy {
        stone: None,
        pairs: Vec::new(),
    };
    for cells in trail {
        let rest = cells.without_lowest();
        if rest == B::Cells::EMPTY {
            strategy.stone = Some(cells.index());
        } else {
            strategy.pairs.push((cells.index(), rest.index()));
        }
    }
    Some(strategy)
}

/// A pairing strategy written out (see [`pairing_strategy`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Strategy {
    /// The defender's stone placed first, if it needs one.
    pub stone: Option<u32>,
    /// The pairs, as cell indexes.
    pub pairs: Vec<(u32, u32)>,
}

/// The windows with none of `blockers` in them.
fn open_windows<B: Windows, S: WindowSet>(board: &B, mut blockers: B::Cells) -> S {
    let mut open = S::from_words(board.all_windows());
    while blockers != B::Cells::EMPTY {
        open = open.and_not(S::from_words(board.through(blockers)));
        blockers = blockers.without_lowest();
    }
    open
}

/// A set of window indexes: a `u64` when the board has at most 64
/// windows, four words otherwise, so that settling the windows through a
/// cell or a pair is a few word operations.
trait WindowSet: Copy {
    fn from_words(words: &[u64; 4]) -> Self;
    fn and(self, other: Self) -> Self;
    fn or(self, other: Self) -> Self;
    fn and_not(self, other: Self) -> Self;
    fn xor(self, other: Self) -> Self;
    fn is_empty(self) -> bool;
    fn without(self, i: usize) -> Self;
    /// The smallest index in the set and the set without it.
    fn pop(self) -> Option<(usize, Self)>;
}

impl WindowSet for u64 {
    #[inline]
    fn from_words(words: &[u64; 4]) -> Self {
        words[0]
    }
    #[inline]
    fn and(self, other: Self) -> Self {
        self & other
    }
    #[inline]
    fn or(self, other: Self) -> Self {
        self | other
    }
    #[inline]
    fn and_not(self, other: Self) -> Self {
        self & !other
    }
    #[inline]
    fn xor(self, other: Self) -> Self {
        self ^ other
    }
    #[inline]
    fn is_empty(self) -> bool {
        self == 0
    }
    #[inline]
    fn without(self, i: usize) -> Self {
        self & !(1 << i)
    }
    #[inline]
    fn pop(self) -> Option<(usize, Self)> {
        (self != 0).then(|| (self.trailing_zeros() as usize, self & (self - 1)))
    }
}

impl WindowSet for [u64; 4] {
    #[inline]
    fn from_words(words: &[u64; 4]) -> Self {
        *words
    }
    #[inline]
    fn and(self, other: Self) -> Self {
        std::array::from_fn(|i| self[i] & other[i])
    }
    #[inline]
    fn or(self, other: Self) -> Self {
        std::array::from_fn(|i| self[i] | other[i])
    }
    #[inline]
    fn and_not(self, other: Self) -> Self {
        std::array::from_fn(|i| self[i] & !other[i])
    }
    #[inline]
    fn xor(self, other: Self) -> Self {
        std::array::from_fn(|i| self[i] ^ other[i])
    }
    #[inline]
    fn is_empty(self) -> bool {
        self == [0; 4]
    }
    #[inline]
    fn without(mut self, i: usize) -> Self {
        self[i / 64] &= !(1 << (i % 64));
        self
    }
    #[inline]
    fn pop(mut self) -> Option<(usize, Self)> {
        let word = self.iter().position(|&w| w != 0)?;
        let i = word * 64 + self[word].trailing_zeros() as usize;
        self[word] &= self[word] - 1;
        Some((i, self))
    }
}

/// The free cells of every window open to the attacker, counted in binary
/// across three window sets (bit `j` of each count in `planes[j]`): what the search
/// needs at each step (the most crowded open window) in a few word
/// operations instead of a pass over the windows. Exact for windows of at
/// most 7 cells; longer ones are counted by [`Crowding::Scan`].
#[derive(Clone, Copy)]
enum Crowding<S> {
    Planes([S; 3]),
    Scan,
}

/// The longest window [`Crowding::Planes`] counts.
const MAX_COUNTED: u32 = 7;

impl<S: WindowSet> Crowding<S> {
    /// The counts of free cells in the windows of `board` that hold none of
    /// the defender's stones (the only windows the search asks about): a
    /// window's cells less the `attacker`'s stones in it. Other windows'
    /// counts mean nothing.
    fn new<B: Windows>(board: &B, attacker: B::Cells) -> Self {
        if board.window_count() == 0 || board.window(0).count() > MAX_COUNTED {
            return Crowding::Scan;
        }
        let k = board.window(0).count();
        let (zero, all) = (S::from_words(&[0; 4]), S::from_words(&[!0; 4]));
        let planes = Crowding::Planes(std::array::from_fn(|j| {
            if k >> j & 1 == 1 { all } else { zero }
        }));
        let mut crowding = planes;
        let mut stones = attacker;
        while stones != B::Cells::EMPTY {
            crowding = crowding.without(board, stones);
            stones = stones.without_lowest();
        }
        crowding
    }

    /// The counts once the lowest cell of `cell` is taken: one less in
    /// every window through it (none is counted below zero: a window's
    /// count starts at its cells less the stones in it).
    #[inline]
    fn without<B: Windows<Cells = C>, C: Cells>(self, board: &B, cell: C) -> Self {
        match self {
            Crowding::Planes(mut planes) => {
                let mut borrow = S::from_words(board.through(cell));
                for plane in &mut planes {
                    let next = borrow.and_not(*plane);
                    *plane = plane.xor(borrow);
                    borrow = next;
                }
                Crowding::Planes(planes)
            }
            Crowding::Scan => Crowding::Scan,
        }
    }
}

/// The windows of `among` whose count in `planes` is below two.
#[inline]
fn below_two<S: WindowSet>(planes: &[S; 3], among: S) -> S {
    among.and_not(planes[1]).and_not(planes[2])
}

/// The least count in `planes` among the windows of `among` (not empty),
/// and the lowest window index with it: bit by bit from the highest, the
/// windows with a 0 there stay whenever there are any.
#[inline]
fn least<S: WindowSet>(planes: &[S; 3], among: S) -> (u32, usize) {
    let mut with = among;
    let mut n = 0;
    for j in (0..3).rev() {
        let zero = with.and_not(planes[j]);
        if zero.is_empty() {
            n |= 1 << j;
        } else {
            with = zero;
        }
    }
    let (i, _) = with.pop().expect("some window");
    (n, i)
}

/// A pairing search under way: its steps left, and once it succeeds, the
/// cells its pairs and stone left free.
struct Search<'a, B: Windows> {
    board: &'a B,
    budget: u32,
    /// Cells whose pairs and stones are tried last.
    avoid: B::Cells,
    /// Whether a window's pairs are any two of its free cells, not only
    /// neighbours.
    any_pairs: bool,
    left: B::Cells,
    /// When the strategy is wanted, not just its cells: the stone and the
    /// pairs on the way to the current branch (each as a set of cells).
    trail: Option<Vec<B::Cells>>,
}

impl<'a, B: Windows> Search<'a, B> {
    fn new(board: &'a B, budget: u32, keep_trail: bool) -> Self {
        Search {
            board,
            budget,
            avoid: B::Cells::EMPTY,
            any_pairs: false,
            left: B::Cells::EMPTY,
            trail: keep_trail.then(Vec::new),
        }
    }

    /// The whole search (see [`pairing`]): the cells its pairs and stone
    /// take, and the trail when it was kept.
    fn run(
        mut self,
        attacker: B::Cells,
        defender: B::Cells,
        valid: B::Cells,
        spare: B::Cells,
    ) -> Option<(B::Cells, Vec<B::Cells>)> {
        let free = valid & !(attacker | defender);
        let (attacker, defender, spare) = (attacker & valid, defender & valid, spare & free);
        // Most boards have at most 64 windows: one word holds the set.
        let found = if self.board.window_count() <= 64 {
            self.cover_all::<u64>(attacker, defender, free, spare)
        } else {
            self.cover_all::<[u64; 4]>(attacker, defender, free, spare)
        };
        found.then(|| (free & !self.left, self.trail.unwrap_or_default()))
    }

    /// [`cover`] from the start: every window without the `defender`'s
    /// stones open, the `attacker`'s stones counted in.
    fn cover_all<S: WindowSet>(
        &mut self,
        attacker: B::Cells,
        defender: B::Cells,
        free: B::Cells,
        spare: B::Cells,
    ) -> bool {
        let open = open_windows::<B, S>(self.board, defender);
        let crowding = Crowding::new(self.board, attacker);
        let mut why = B::Cells::EMPTY;
        cover(self, open, open, free, crowding, spare, &mut why)
    }

    /// Try `cells` (a stone or a pair) on the trail, while `then` searches
    /// the branch it opens; kept there if the branch succeeds.
    #[inline]
    fn along(&mut self, cells: B::Cells, then: impl FnOnce(&mut Self) -> bool) -> bool {
        if let Some(trail) = self.trail.as_mut() {
            trail.push(cells);
        }
        let found = then(self);
        if !found && let Some(trail) = self.trail.as_mut() {
            trail.pop();
        }
        found
    }
}

/// Backtracking search for disjoint pairs of `free` cells covering every
/// window in `open`, where the defender may first also take one cell of
/// `spare` (a subset of `free`; empty for none), which blocks every window
/// through it.
///
/// When a search without a spare stone fails without running out of
/// budget, `why` gains the cells of every window the failure depended on.
/// (With a spare stone, `why` means nothing: no caller reads it.)
fn cover<B: Windows, S: WindowSet>(
    search: &mut Search<B>,
    open: S,
    touched: S,
    free: B::Cells,
    crowding: Crowding<S>,
    spare: B::Cells,
    why: &mut B::Cells,
) -> bool {
    let none = B::Cells::EMPTY;
    if open.is_empty() {
        search.left = free;
        return true;
    }
    if search.budget == 0 {
        return false;
    }
    search.budget -= 1;
    let board = search.board;
    // The window with the fewest free cells is the most constrained (the
    // lowest index among equals).
    let Some((pick, fewest)) = (match &crowding {
        Crowding::Planes(planes) => crowded_by_count(board, planes, open, touched, spare, why),
        Crowding::Scan => crowded_by_scan(board, open, touched, free, spare, why),
    }) else {
        return false;
    };
    let through = |cell: B::Cells| S::from_words(board.through(cell));
    if spare != none && fewest > 2 {
        // No window forces a pair yet, so there is no conflict to aim the
        // spare stone at, and branching on pairs first would make every
        // later stone retry them all. Place the stone first instead, best
        // cells first: trying every spare cell leaves nothing out. A
        // search that fails looks only at some windows: a stone outside
        // all of them meets the same failure, and is not tried.
        let mut hope = spare;
        let avoid = search.avoid;
        for late in [false, true] {
            for &b in board.order() {
                let c = B::Cells::single(u32::from(b));
                if hope & c != none && (c & avoid != none) == late {
                    match place_stone(search, open, free, crowding, c) {
                        ControlFlow::Break(found) => return found,
                        ControlFlow::Continue(seen) => hope = hope & seen,
                    }
                }
            }
            if avoid == none {
                break;
            }
        }
        return false;
    }
    let window = board.window(pick);
    let rest = open.without(pick);
    // A crowded window: the spare stone may block it, which settles every
    // window through its cell at once, or a pair may cover it. (Stones
    // outside the windows a failed stone's search looked at fail too.)
    let mut stones = window & spare;
    while stones != none {
        let c = stones.lowest();
        stones = stones.without_lowest();
        match place_stone(search, rest, free, crowding, c) {
            ControlFlow::Break(found) => return found,
            ControlFlow::Continue(seen) => stones = stones & seen,
        }
    }
    // Pairs of free cells next to each other along the window (skipping
    // the attacker's stones): the pairs classic pairing strategies use, and
    // far fewer to try than every two cells of the window. A pair settles
    // the windows holding both its cells. With `any_pairs`, the cells
    // `gap` apart among the free ones follow, the nearest first.
    // The pairs clear of the cells to avoid go first, the others after.
    let avoid = search.avoid;
    let gaps = if search.any_pairs {
        (window & free).count().saturating_sub(1)
    } else {
        1
    };
    for late in [false, true] {
        for gap in 1..=gaps {
            let mut cells = window & free;
            while cells != none {
                let a = cells.lowest();
                cells = cells.without_lowest();
                let mut after = cells;
                for _ in 1..gap {
                    after = after.without_lowest();
                }
                if after == none {
                    break;
                }
                let b = after.lowest();
                let pair = a | b;
                if (pair & avoid != none) != late {
                    continue;
                }
                let settled = through(a).and(through(b));
                let crowding = crowding.without(board, a).without(board, b);
                if search.along(pair, |search| {
                    cover(
                        search,
                        rest.and_not(settled),
                        through(a).or(through(b)),
                        free & !pair,
                        crowding,
                        spare & !pair,
                        why,
                    )
                }) {
                    return true;
                }
                if search.budget == 0 {
                    return false;
                }
            }
        }
        if avoid == none {
            break;
        }
    }
    // Every way to settle this window failed.
    *why = *why | window;
    false
}

/// The spare stone on `c` (one cell of `free`), then [`cover`] of the
/// windows of `open` not through it with no stone left: `Break` with the
/// answer when it succeeds or the budget runs out, otherwise `Continue`
/// with the cells the failed search looked at (a stone outside them would
/// fail the same way, so the caller need not try it).
#[inline]
fn place_stone<B: Windows, S: WindowSet>(
    search: &mut Search<B>,
    open: S,
    free: B::Cells,
    crowding: Crowding<S>,
    c: B::Cells,
) -> ControlFlow<bool, B::Cells> {
    let (board, none) = (search.board, B::Cells::EMPTY);
    let left = open.and_not(S::from_words(board.through(c)));
    let mut seen = none;
    let crowding = crowding.without(board, c);
    if search.along(c, |search| {
        cover(search, left, left, free & !c, crowding, none, &mut seen)
    }) {
        return ControlFlow::Break(true);
    }
    if search.budget == 0 {
        return ControlFlow::Break(false);
    }
    ControlFlow::Continue(seen)
}

/// The most crowded open window (see [`cover`]) and its free cells, from
/// the counts: `None` when a window can no longer be settled (its cells
/// added to `why`).
///
/// Without a spare stone, the caller has checked that every open window
/// outside `touched` still has two free cells, so only the touched ones
/// can fail, and among the most crowded a touched window goes first. With
/// one, a window down to fewer than two free cells fails unless the spare
/// stone can block it.
#[inline]
fn crowded_by_count<B: Windows, S: WindowSet>(
    board: &B,
    planes: &[S; 3],
    open: S,
    touched: S,
    spare: B::Cells,
    why: &mut B::Cells,
) -> Option<(usize, u32)> {
    let none = B::Cells::EMPTY;
    let mut best = None;
    if spare == none {
        let touched = open.and(touched);
        if let Some((i, _)) = below_two(planes, touched).pop() {
            *why = *why | board.window(i);
            return None;
        }
        if !touched.is_empty() {
            let (n, i) = least(planes, touched);
            if n <= 2 {
                return Some((i, n));
            }
            best = Some((i, n));
        }
    } else {
        let mut low = below_two(planes, open);
        while let Some((i, rest)) = low.pop() {
            low = rest;
            if board.window(i) & spare == none {
                *why = *why | board.window(i);
                return None;
            }
        }
    }
    if open.is_empty() {
        return best;
    }
    let (n, i) = least(planes, open);
    match best {
        Some((_, fewest)) if fewest <= n => best,
        _ => Some((i, n)),
    }
}

/// [`crowded_by_count`] for windows too long to count in planes: a pass
/// over the open windows.
fn crowded_by_scan<B: Windows, S: WindowSet>(
    board: &B,
    open: S,
    touched: S,
    free: B::Cells,
    spare: B::Cells,
    why: &mut B::Cells,
) -> Option<(usize, u32)> {
    let none = B::Cells::EMPTY;
    let mut pick = 0;
    let mut fewest = u32::MAX;
    if spare == none {
        let mut scan = open.and(touched);
        while let Some((i, rest)) = scan.pop() {
            scan = rest;
            let n = (board.window(i) & free).count();
            if n < 2 {
                *why = *why | board.window(i);
                return None;
            }
            if n < fewest {
                fewest = n;
                pick = i;
            }
        }
    }
    if fewest > 2 {
        let mut scan = open;
        while let Some((i, rest)) = scan.pop() {
            scan = rest;
            let w = board.window(i);
            let n = (w & free).count();
            if n < 2 && w & spare == none {
                // No pair fits and the spare stone cannot block it: this
                // window can never be settled.
                *why = *why | w;
                return None;
            }
            if n < fewest {
                fewest = n;
                pick = i;
                // Without a spare stone, every window has two free cells
                // (the touched ones were just checked): two is the least.
                if n == 2 && spare == none {
                    break;
                }
            }
        }
    }
    Some((pick, fewest))
}
