//! What the search keeps up to date about the windows as marks come and
//! go: each window's kind by its counts of marks, the evaluation it adds
//! up to, the windows one and two marks short of k (the threats), and a
//! learned model's sum where the player has one. The search in
//! [`super`] reads it; this file only counts.

use crate::windows::{Counts, WindowBoard};

/// A set of window or cell ids with O(1) insert, remove and iteration.
#[derive(Clone, Debug, Default)]
pub(super) struct IdSet {
    pub(super) members: Vec<u32>,
    /// Position in `members` plus one, or 0 when absent, by id.
    pub(super) slot: Vec<u32>,
}

impl IdSet {
    /// An empty set for ids below `len`.
    pub(super) fn new(len: usize) -> IdSet {
        IdSet {
            members: Vec::new(),
            slot: vec![0; len],
        }
    }

    pub(super) fn set(&mut self, id: u32, present: bool) {
        let slot = self.slot[id as usize];
        if present && slot == 0 {
            self.members.push(id);
            self.slot[id as usize] = self.members.len() as u32;
        } else if !present && slot != 0 {
            let last = *self.members.last().expect("a member to remove");
            self.members.swap_remove(slot as usize - 1);
            if last != id {
                self.slot[last as usize] = slot;
            }
            self.slot[id as usize] = 0;
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// What the search keeps up to date about the windows as marks come and
/// go: the evaluation and the threats.
#[derive(Clone, Debug)]
pub(super) struct Tally {
    pub(super) k: u16,
    /// What a window is to each player, by its counts of marks (at
    /// [`Tally::slot`]).
    pub(super) kinds: Vec<WindowKind>,
    /// Sum of each player's live windows' worth.
    pub(super) score: [i64; 2],
    /// Live windows one mark short of k, per player: wins on the next move.
    pub(super) fours: [IdSet; 2],
    /// Live windows two marks short, per player (empty when k < 3): the
    /// moves in them make fours.
    pub(super) threes: [IdSet; 2],
    /// A learned table of window worths, if the player has one.
    pub(super) learned: Option<LearnedTally>,
}

/// A [`crate::ntuple::Scheme::Tallies`] model's value, kept by the tally:
/// the model reads each window by the same counts of marks the tally
/// keeps, so its sum changes with them, with no pass of its own over the
/// windows.
#[derive(Clone, Debug)]
pub(super) struct LearnedTally {
    /// The model's weight in fixed point of a window seen from X and from
    /// O, by its counts of marks at [`Tally::slot`], as the tally's kinds
    /// are read (the model's own table is by the viewer's marks and the
    /// opponent's).
    pub(super) table: Vec<[i64; 2]>,
    /// The sum of every window's weight, seen from X and from O.
    pub(super) sum: [i64; 2],
}

/// What a window is to each player, read by [`Tally::track`] as marks
/// come and go and by [`Engine::gain`](super::Engine::gain) when moves are ordered.
#[derive(Clone, Debug)]
pub(super) struct WindowKind {
    /// Worth to each player: by the player's marks in it when the
    /// opponent has none, else nothing.
    pub(super) worth: [i64; 2],
    /// What the window adds to the gain of each of its empty cells for
    /// each player (see [`cell_gain`]): summed over a cell's windows only
    /// when moves are ordered, which is far less work than keeping every
    /// cell's sum up to date as marks come and go.
    pub(super) gain: [i64; 2],
    /// [`WindowKind::four`] and [`WindowKind::three`] for each player
    /// whose window it is, one and two marks short of k.
    pub(super) flags: u8,
}

impl WindowKind {
    /// The kind of a window holding `counts` marks, with `values` the
    /// worth of a live window by its marks.
    pub(super) fn new(values: &[i64], counts: Counts) -> WindowKind {
        let k = values.len() - 1;
        let (x, o) = (usize::from(counts[0]), usize::from(counts[1]));
        let mut kind = WindowKind {
            worth: [0, 0],
            gain: [cell_gain(values, (x, o)), cell_gain(values, (o, x))],
            flags: 0,
        };
        for p in 0..2 {
            if counts[1 - p] != 0 {
                continue;
            }
            let mine = usize::from(counts[p]);
            kind.worth[p] = values[mine];
            if mine + 1 == k {
                kind.flags |= WindowKind::four(p);
            }
            // As `Tally::threes` has it: none where k < 3.
            if k >= 3 && mine + 2 == k {
                kind.flags |= WindowKind::three(p);
            }
        }
        kind
    }

    /// The flag of a window one mark short of k for player `p` alone.
    pub(super) const fn four(p: usize) -> u8 {
        1 << p
    }

    /// The flag of a window two marks short of k for player `p` alone.
    pub(super) const fn three(p: usize) -> u8 {
        4 << p
    }
}

/// What a window with `mine` marks of a player and `theirs` of the
/// opponent's adds to that player's gain at each of its empty cells, with
/// `values` the worth of a live window by its marks: the worth the mark
/// adds to the window when only the player has marks there, or the worth
/// it takes away when only the opponent has.
pub(super) fn cell_gain(values: &[i64], (mine, theirs): (usize, usize)) -> i64 {
    let k = values.len() - 1;
    if theirs == 0 {
        values[(mine + 1).min(k)] - values[mine]
    } else if mine == 0 {
        values[theirs]
    } else {
        0
    }
}

impl Tally {
    pub(super) fn new(board: &WindowBoard) -> Tally {
        let k = board.rules().k() as u16;
        let windows = board.window_count();
        let values: Vec<i64> = (0..=u32::from(k))
            .map(|n| match n {
                0 => 0,
                // Capped so that a whole board's sum stays far below WIN.
                n => 1i64 << (3 * (n - 1).min(6)),
            })
            .collect();
        let kinds = Tally::slots(k)
            .map(|counts| WindowKind::new(&values, counts))
            .collect();
        let mut tally = Tally {
            k,
            kinds,
            score: [0, 0],
            fours: [IdSet::new(windows), IdSet::new(windows)],
            threes: [IdSet::new(windows), IdSet::new(windows)],
            learned: None,
        };
        if k == 1 {
            // Every empty one-cell window is already a win for both.
            for w in 0..windows as u32 {
                tally.fours[0].set(w, true);
                tally.fours[1].set(w, true);
            }
        }
        tally
    }

    /// Where the tables keep a window with `counts` marks of X and O:
    /// `x * (k + 1) + o`.
    #[inline(always)]
    pub(super) fn slot(&self, counts: Counts) -> usize {
        usize::from(counts[0]) * (usize::from(self.k) + 1) + usize::from(counts[1])
    }

    /// The counts of each slot of the tables for windows of `k` cells, in
    /// order.
    pub(super) fn slots(k: u16) -> impl Iterator<Item = Counts> {
        (0..=k).flat_map(move |x| (0..=k).map(move |o| [x, o]))
    }

    /// Account for `window` going from `before` to `after`.
    #[inline(always)]
    pub(super) fn track(&mut self, window: u32, before: Counts, after: Counts) {
        let (before, after) = (self.slot(before), self.slot(after));
        if let Some(learned) = &mut self.learned {
            let (was, now) = (learned.table[before], learned.table[after]);
            for view in 0..2 {
                learned.sum[view] += now[view] - was[view];
            }
        }
        let (was, now) = (&self.kinds[before], &self.kinds[after]);
        for p in 0..2 {
            self.score[p] += now.worth[p] - was.worth[p];
        }
        let flipped = was.flags ^ now.flags;
        if flipped != 0 {
            for p in 0..2 {
                if flipped & WindowKind::four(p) != 0 {
                    self.fours[p].set(window, now.flags & WindowKind::four(p) != 0);
                }
                if flipped & WindowKind::three(p) != 0 {
                    self.threes[p].set(window, now.flags & WindowKind::three(p) != 0);
                }
            }
        }
    }
}
