//! The search itself: win/draw/loss by negamax with alpha-beta over the
//! board's bitboards, and the distance search ("a win within d plies?").
//! The overview of techniques is in the module above.

use super::table::{EXACT, Entry, Kind, LOWER, UPPER};
use super::{Pos, Progress, Solver};
use crate::value::Value;

/// Below this many empty cells, searching is cheaper than looking for a
/// pairing strategy.
const PAIRING_MIN_EMPTIES: u32 = 6;
/// From this many empty cells up, a node that needs only a draw first
/// looks for a move that leaves it a pairing strategy.
const LOOKAHEAD_MIN_EMPTIES: u32 = 9;
/// Steps one pairing search may take before giving up.
const PAIRING_BUDGET: u32 = 64;
/// The weight of the mover's own open windows in move ordering (against 3
/// for the opponent's) where it is out to win: the distance search, and
/// value-search nodes that need a win. Extending a line first makes
/// counter-threats, which force replies: from 4 to 16 here, the full
/// analysis of 6×6 k=4 went from 5,570,015 positions to 1,199,718 (and to
/// 719,057 with 16 at the draw-holding nodes of a won position too).
pub(super) const OWN_ATTACKING: u64 = 16;
/// Up to this many moves to order are scored one by one, from the windows
/// through each, rather than by one pass over every window.
const FEW_TO_SCORE: u32 = 6;
/// The same where a draw is all the mover needs, unless `analyse` values
/// a position one side wins (see `Solver::holding`). Blocking matters more
/// there: 8 or 16 made drawn boards search far more (7×6 k=5 26 times as
/// many positions with 16).
pub(super) const OWN_HOLDING: u64 = 4;

impl Solver {
    /// The position after the player to move takes bit `b`.
    #[inline]
    fn child(&self, pos: &Pos, b: u32) -> Pos {
        let mut next = Pos {
            me: pos.opp,
            opp: pos.me,
        };
        self.geo.place(&mut next.opp, b);
        next
    }

    /// The symmetry giving the smallest (me, opp) pair, and that pair.
    #[inline]
    pub(super) fn canonical(&self, pos: &Pos) -> (usize, u64, u64) {
        let mut best = (0, pos.me[0], pos.opp[0]);
        for s in 1..self.geo.symmetry_count() {
            if (pos.me[s], pos.opp[s]) < (best.1, best.2) {
                best = (s, pos.me[s], pos.opp[s]);
            }
        }
        best
    }

    #[inline]
    fn visit(&mut self) {
        let (depth, moves) = (&self.depth, &self.moves);
        self.meter.visit(|nodes, elapsed| Progress {
            nodes,
            elapsed,
            depth: *depth,
            moves: *moves,
        });
    }

    /// The value by two null-window searches, which prune far more than
    /// one full-window search: "is it a win?", then "is it a loss?".
    pub(super) fn wdl_root(&mut self, pos: &Pos) -> Value {
        if self.wdl(pos, 0, 1) >= 1 {
            Value::Win
        } else if self.wdl(pos, -1, 0) <= -1 {
            Value::Loss
        } else {
            Value::Draw
        }
    }

    /// Negamax over win (1), draw (0), loss (−1) for the side to move, who
    /// has not already lost. Fail-soft within (alpha, beta).
    pub(super) fn wdl(&mut self, pos: &Pos, mut alpha: i8, mut beta: i8) -> i8 {
        self.visit();
        if self.meter.aborted() {
            return 0;
        }
        let geo = &self.geo;
        let (me, opp) = (pos.me[0], pos.opp[0]);
        let empty = geo.valid & !(me | opp);
        if empty == 0 {
            return 0;
        }
        if geo.winning_cells(me, empty) != 0 {
            return 1;
        }
        let threats = geo.winning_cells(opp, empty);
        if threats.count_ones() > 1 {
            return -1;
        }
        if empty.count_ones() == 1 {
            // The last cell does not win: the board fills, a draw.
            return 0;
        }
        let mine = geo.live_cells(opp);
        let theirs = geo.live_cells(me);
        if mine == 0 && theirs == 0 {
            return 0;
        }
        if mine == 0 {
            beta = beta.min(0);
        }
        if theirs == 0 {
            alpha = alpha.max(0);
        }
        if alpha >= beta {
            return alpha;
        }
        let candidates = if threats != 0 {
            threats
        } else {
            empty & (mine | theirs)
        };

        let (sym, cme, copp) = self.canonical(pos);
        let mut hint = None;
        if let Some(entry) = self.table.get(cme, copp, Kind::Value) {
            let v = entry.a as i8 - 1;
            match entry.b {
                EXACT => return v,
                LOWER if v >= beta => return v,
                UPPER if v <= alpha => return v,
                LOWER => alpha = alpha.max(v),
                _ => beta = beta.min(v),
            }
            if alpha >= beta {
                return v;
            }
            if entry.best != u8::MAX {
                hint = Some(self.geo.unmap(sym, u32::from(entry.best)));
            }
        }

        // Pairing strategies settle many draws without search. A node that
        // needs only a draw and is about to look for a move that leaves it
        // a pairing skips the search for one it has already: the lookahead
        // finds that too (any move keeps a pairing).
        let look_ahead = beta <= 0 && empty.count_ones() >= LOOKAHEAD_MIN_EMPTIES;
        if empty.count_ones() >= PAIRING_MIN_EMPTIES {
            if beta > 0 && self.geo.has_pairing(me, opp, PAIRING_BUDGET) {
                beta = 0;
            }
            if alpha < 0
                && beta > alpha
                && !look_ahead
                && self.geo.has_pairing(opp, me, PAIRING_BUDGET)
            {
                alpha = 0;
            }
            if alpha >= beta {
                return alpha;
            }
        }

        // A move after which we have a pairing strategy holds the draw:
        // when a draw is all this node needs, look for one before searching.
        // Only a move into one of the opponent's open windows can help:
        // elsewhere it just takes a cell the pairing might have used. The
        // one search over all such moves may take as many steps as a
        // search per move would.
        if look_ahead
            && alpha < 0
            && let Some(cells) = self.geo.has_pairing_after_move(
                opp,
                me,
                candidates & theirs,
                PAIRING_BUDGET * (candidates & theirs).count_ones(),
            )
        {
            self.pairing = (self.meter.nodes(), cells);
            return 0;
        }

        // A node out to win builds its own lines first; one that needs only
        // a draw weighs blocking more (see `Geometry::cell_scores`).
        let own = if beta > 0 {
            OWN_ATTACKING
        } else {
            self.holding
        };
        let mut order = self.move_order(pos, candidates, hint, own);
        let alpha_in = alpha;
        let mut best = -2i8;
        let mut best_bit = u32::MAX;
        // The cells of a drawing strategy the opponent found after one of
        // our moves (its move and pairs): after any other move that leaves
        // those cells empty, the same strategy holds the draw, so the child
        // is a draw at best for us without being searched. With several
        // strategies found, a move must touch each of them to be searched.
        // That settles the child only while a draw is no better than what
        // we already have (then 0 is a fail-low bound, as the search would
        // have returned).
        let mut touches_all = !0u64;
        while let Some(b) = self.next_move(&mut order) {
            let v = if alpha >= 0 && touches_all >> b & 1 == 0 {
                0
            } else {
                let child = self.child(pos, b);
                // The child is the next node visited: its number.
                let id = self.meter.nodes() + 1;
                let v = -self.wdl(&child, -beta, -alpha);
                if self.meter.aborted() {
                    return 0;
                }
                if self.pairing.0 == id {
                    touches_all &= self.pairing.1;
                }
                v
            };
            if v > best {
                best = v;
                best_bit = b;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        let weight = empty.count_ones();
                        let h = &mut self.history[b as usize];
                        *h = h.saturating_add(weight * weight);
                        break;
                    }
                }
            }
        }
        let bound = if best <= alpha_in {
            UPPER
        } else if best >= beta {
            LOWER
        } else {
            EXACT
        };
        self.table.put(Entry {
            me: cme,
            opp: copp,
            kind: Kind::Value as u8,
            a: (best + 1) as u8,
            b: bound,
            best: self.geo.map(sym, best_bit) as u8,
            empties: empty.count_ones() as u8,
        });
        best
    }

    /// The bits of `candidates`, to be taken with [`Solver::next_move`]:
    /// the hint first, then by the windows they make or break (see
    /// [`Geometry::cell_scores`]), then by history, ties in static order.
    /// Picked lazily, and scored only once a move beyond the hint is
    /// wanted: most nodes cut off after a move or two, many on the hint.
    fn move_order(&self, pos: &Pos, candidates: u64, hint: Option<u32>, own: u64) -> MoveList {
        let mut list = MoveList {
            me: pos.me[0],
            opp: pos.opp[0],
            own,
            ..MoveList::default()
        };
        let hint = hint.filter(|&h| candidates >> h & 1 == 1);
        if let Some(h) = hint {
            list.push(h, u64::MAX, u32::MAX);
        }
        list.unscored = candidates & !hint.map_or(0, |h| 1 << h);
        list
    }

    /// The next move of `list` (see [`Solver::move_order`]), scoring the
    /// moves after the hint when the hint is used up.
    #[inline]
    fn next_move(&self, list: &mut MoveList) -> Option<u32> {
        if list.next == list.len && list.unscored != 0 {
            self.score_moves(list);
        }
        list.next()
    }

    /// Push the moves of `list` not yet scored, by their scores and history.
    fn score_moves(&self, list: &mut MoveList) {
        let rest = std::mem::take(&mut list.unscored);
        let mut scores = [0u64; 64];
        match rest.count_ones() {
            0 | 1 => {}
            // A few cells: each from the windows through it, not all.
            2..=FEW_TO_SCORE => {
                let mut cells = rest;
                while cells != 0 {
                    let b = cells.trailing_zeros();
                    scores[b as usize] = self.geo.cell_score(list.me, list.opp, b, list.own);
                    cells &= cells - 1;
                }
            }
            _ => self
                .geo
                .cell_scores(list.me, list.opp, &mut scores, list.own),
        }
        for &b in &self.geo.order {
            if rest >> b & 1 == 1 {
                let b = usize::from(b);
                list.push(b as u32, scores[b], self.history[b]);
            }
        }
    }

    /// With `attack`: can the side to move force a win within `d` plies?
    /// Without: will the side to move lose within `d` plies whatever it
    /// does?
    ///
    /// Dead cells (in no window either side can still complete) are skipped
    /// here too: taking one is a pass, and for either side a live move is at
    /// least as good, in result and in time, as a pass (an extra own mark
    /// never hurts, and the number of empty cells left is the same).
    pub(super) fn within(&mut self, pos: &Pos, d: u32, attack: bool) -> bool {
        self.visit();
        if self.meter.aborted() {
            return false;
        }
        let geo = &self.geo;
        let (me, opp) = (pos.me[0], pos.opp[0]);
        let empty = geo.valid & !(me | opp);
        if empty == 0 {
            return false;
        }
        let wins_now = geo.winning_cells(me, empty) != 0;
        if attack {
            if wins_now {
                return d >= 1;
            }
            if d < 3 {
                return false;
            }
        } else if wins_now || d < 2 {
            return false;
        }
        let threats = geo.winning_cells(opp, empty);
        if threats.count_ones() > 1 {
            // Attacker: the defender wins first. Defender: it blocks one,
            // the attacker takes the other.
            return !attack;
        }
        if empty.count_ones() == 1 {
            return false;
        }

        // The attacker is the side to move when attacking, else the other.
        let (attacker, defender) = if attack { (me, opp) } else { (opp, me) };
        let live = geo.live_cells(defender) | geo.live_cells(attacker);
        if live & empty == 0 {
            return false;
        }
        let kind = if attack { Kind::Attack } else { Kind::Defend };
        let (sym, cme, copp) = self.canonical(pos);
        let stored = self.table.get(cme, copp, kind);
        let d8 = d.min(254) as u8;
        let mut hint = None;
        if let Some(entry) = stored {
            if entry.b != u8::MAX && d8 >= entry.b {
                return true;
            }
            if entry.a != u8::MAX && d8 <= entry.a {
                return false;
            }
            if entry.best != u8::MAX {
                hint = Some(self.geo.unmap(sym, u32::from(entry.best)));
            }
        }
        if let Some(entry) = self.table.get(cme, copp, Kind::Value) {
            // What the value search proved settles some questions: a side
            // that cannot win does not win within any number of plies, and
            // one that cannot lose does not lose.
            let v = entry.a as i8 - 1;
            let cannot = if attack {
                v <= 0 && entry.b != LOWER
            } else {
                v >= 0 && entry.b != UPPER
            };
            if cannot {
                return false;
            }
            // The value search's best move is a good first guess here too.
            if hint.is_none() && entry.best != u8::MAX {
                hint = Some(self.geo.unmap(sym, u32::from(entry.best)));
            }
        }
        // The attacker wins two plies after a double threat: it must make
        // one within its moves before the last. (Asked after the table,
        // which answers many positions at once.)
        let geo = &self.geo;
        let moves = if attack { (d - 1) / 2 } else { d / 2 - 1 };
        let Some(next) = geo.double_threat_moves(attacker, defender, moves) else {
            return false;
        };
        if empty.count_ones() >= PAIRING_MIN_EMPTIES
            && geo.has_pairing(attacker, defender, PAIRING_BUDGET)
        {
            return false;
        }
        let mut candidates = if threats != 0 { threats } else { empty & live };
        if attack {
            candidates &= next;
        }
        let mut result = !attack;
        let mut deciding = u32::MAX;
        let mut order = self.move_order(pos, candidates, hint, OWN_ATTACKING);
        while let Some(b) = self.next_move(&mut order) {
            let child = self.child(pos, b);
            let answer = self.within(&child, d - 1, !attack);
            if self.meter.aborted() {
                return false;
            }
            // Attacker wants a move after which the defender loses in time;
            // the defender escapes if any move avoids that.
            if attack && answer {
                result = true;
                deciding = b;
                break;
            }
            if !attack && !answer {
                result = false;
                deciding = b;
                break;
            }
        }
        let mut entry = stored.unwrap_or(Entry {
            me: cme,
            opp: copp,
            kind: kind as u8,
            a: u8::MAX,
            b: u8::MAX,
            best: u8::MAX,
            empties: empty.count_ones() as u8,
        });
        if result {
            entry.b = entry.b.min(d8);
        } else {
            entry.a = if entry.a == u8::MAX {
                d8
            } else {
                entry.a.max(d8)
            };
        }
        if deciding != u32::MAX {
            entry.best = self.geo.map(sym, deciding) as u8;
        }
        self.table.put(entry);
        result
    }
}

struct MoveList {
    bits: [u8; 64],
    keys: [u64; 64],
    len: usize,
    next: usize,
    /// The candidates not pushed yet, and what scoring them needs: the
    /// position and the weight of the mover's own windows.
    unscored: u64,
    me: u64,
    opp: u64,
    own: u64,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            bits: [0; 64],
            keys: [0; 64],
            len: 0,
            next: 0,
            unscored: 0,
            me: 0,
            opp: 0,
            own: 0,
        }
    }
}

impl MoveList {
    /// Add bit `b`, ordered by `score`, then by `history`, then by the
    /// order of pushing.
    fn push(&mut self, b: u32, score: u64, history: u32) {
        self.bits[self.len] = b as u8;
        // Score and history saturate: the order among huge values does not
        // matter. The low bits make every key unique, earlier pushes the
        // greater, so moves can be picked out of order by swapping.
        self.keys[self.len] = (score.min((1 << 34) - 1) << 30)
            | u64::from(history.min((1 << 24) - 1)) << 6
            | (63 - self.len as u64);
        self.len += 1;
    }
}

impl Iterator for MoveList {
    type Item = u32;

    /// The remaining move with the greatest key.
    fn next(&mut self) -> Option<u32> {
        if self.next >= self.len {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..self.len {
            if self.keys[i] > self.keys[best] {
                best = i;
            }
        }
        self.bits.swap(self.next, best);
        self.keys.swap(self.next, best);
        self.next += 1;
        Some(u32::from(self.bits[self.next - 1]))
    }
}
